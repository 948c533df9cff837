//! `vodbench cache replay` streams its trace (issue 37, item 4): a CSV trace of 10⁷ requests
//! is replayed through a pool within a bounded resident set — the pool's own state and the
//! results, not the trace. The peak is the child's maximum resident set (getrusage); this
//! file holds no other test, so no other child counts.

mod common;

use std::io::Write;
use std::process::Command;

const REQUESTS: u64 = 10_000_000;

#[test]
fn ten_million_requests_replay_through_a_pool_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (tmp.path().join("long.csv"), tmp.path().join("out"));
    // ids over 10⁵ objects from a 64-bit LCG, one-byte objects
    let mut t = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&trace).unwrap());
    let mut x: u64 = 3;
    for i in 0..REQUESTS {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        writeln!(t, "{i},{},1", (x >> 33) % 100_000).unwrap();
    }
    t.into_inner().unwrap().sync_all().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .args(["cache", "replay", "--trace"])
        .arg(&trace)
        .args([
            "--pool",
            "fifo",
            "--size",
            "1000",
            "--threads",
            "1",
            "--out",
        ])
        .arg(&out)
        .current_dir(common::root())
        .output()
        .unwrap();
    let (stdout, stderr) = common::text(&o);
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("10000000 requests"), "{stdout}");
    let peak = common::children_peak_bytes();
    let input = std::fs::metadata(&trace).unwrap().len();
    eprintln!(
        "peak resident set {:.0} MB for {REQUESTS} requests ({:.0} MB of trace)",
        peak as f64 / 1e6,
        input as f64 / 1e6
    );
    // holding the requests alone would take 240 MB (24 bytes each)
    assert!(
        peak < 100_000_000,
        "cache replay of {REQUESTS} requests peaked at {peak} bytes: its trace is not streamed"
    );
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("cache.json")).unwrap()).unwrap();
    assert!(
        results.to_string().contains("10000000"),
        "every request counted: {results}"
    );
}
