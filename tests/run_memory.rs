//! `vodbench run` streams its workload (issue 37, item 4): a trace of 10⁷ events is checked,
//! hashed and run within a bounded resident set — what the engine holds is each terminal's
//! state and the events waiting behind it, not the trace — where holding the events took
//! 32 bytes each (320 MB) and hashing the trace read it whole. The peak is the child's
//! maximum resident set (getrusage); this file holds no other test, so no other child counts.

mod common;

use std::io::Write;
use std::process::Command;

const EVENTS: u64 = 10_000_000;
const TERMINALS: u64 = 20;

#[test]
fn ten_million_workload_events_run_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, scenario, out) = (
        tmp.path().join("long.trace"),
        tmp.path().join("long.toml"),
        tmp.path().join("out"),
    );
    // 20 terminals start a 3-hour video each, then pause and resume it in turn, one event
    // per terminal every 2 ms: 10⁷ events over 1000 s, all of them inside the measured period
    let mut t = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&trace).unwrap());
    writeln!(t, "# vodbench-trace v1\n# terminals={TERMINALS} videos=4").unwrap();
    for i in 0..EVENTS {
        let (round, term) = (i / TERMINALS, i % TERMINALS);
        let kind = match round {
            0 => "start",
            r if r % 2 == 1 => "pause",
            _ => "resume",
        };
        let ms = round * 2;
        writeln!(
            t,
            "{}.{:03} {term} {kind} {} 0",
            ms / 1000,
            ms % 1000,
            term % 4
        )
        .unwrap();
    }
    t.into_inner().unwrap().sync_all().unwrap();
    std::fs::write(
        &scenario,
        format!(
            r#"name = "long-trace"
seed = 7

[run]
warmup = "auto"
duration = "20min"

[videos]
count = 4
length = "3h"
bit_rate = "1Mbit/s"

[server]
nodes = 1
disks_per_node = 2
memory_per_node = "16MiB"
stripe = "256KiB"

[disk.model]
name = "analytic"
spec = "st15150n"

[terminals]
count = {TERMINALS}
memory = "1MiB"

[workload]
trace = "long.trace"
"#
        ),
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .arg("run")
        .arg(&scenario)
        .arg("--quiet")
        .arg("--out")
        .arg(&out)
        .current_dir(common::root())
        .output()
        .unwrap();
    let (stdout, stderr) = common::text(&o);
    assert!(o.status.success(), "{stdout}{stderr}");
    let peak = common::children_peak_bytes();
    let input = std::fs::metadata(&trace).unwrap().len();
    eprintln!(
        "peak resident set {:.0} MB for {EVENTS} workload events ({:.0} MB of trace)",
        peak as f64 / 1e6,
        input as f64 / 1e6
    );
    // holding the events alone would take 320 MB
    assert!(
        peak < 150_000_000,
        "a run of {EVENTS} workload events peaked at {peak} bytes: its workload is not streamed"
    );
    // every event was read: the manifest counts them all, and the terminals saw every pause
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["workload"]["events"], EVENTS, "{manifest}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["videos_started"], 0,
        "all started before the window"
    );
    assert_eq!(summary["events_ignored"], 0, "{summary}");
}
