//! `vodbench disk replay` streams its inputs (issue 37, item 4): a trace of 10⁷ requests, with
//! a reference of 10⁷ response times and `--out`, is replayed within a few hundred MB —
//! 8 bytes kept per request and per reference line — where reading the files whole took
//! about 1.3 GB (134 MB for 10⁶ requests before, 25 MB now). The peak is the child's
//! maximum resident set (getrusage); this file holds no other test, so no other child counts.

mod common;

use std::io::{BufRead, Write};
use std::process::Command;

const REQUESTS: u64 = 10_000_000;

#[test]
fn ten_million_requests_replay_in_bounded_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, reference, out) = (
        tmp.path().join("long.trace"),
        tmp.path().join("long.ref"),
        tmp.path().join("out"),
    );
    // random 4 KiB reads over Barracuda's 4,217,670 sectors (a 64-bit LCG), one every 0.5 ms
    let mut t = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&trace).unwrap());
    let mut r =
        std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&reference).unwrap());
    writeln!(t, "# 10^7 requests for tests/replay_memory.rs").unwrap();
    let mut x: u64 = 1;
    for i in 0..REQUESTS {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let lbn = (x >> 33) % 4_200_000;
        writeln!(
            t,
            "{}.{} 0 {lbn} 8 1",
            i / 2,
            if i % 2 == 0 { 0 } else { 5 }
        )
        .unwrap();
        writeln!(r, "{}.{:03}", 5 + i % 10, i % 1000).unwrap();
    }
    t.into_inner().unwrap().sync_all().unwrap();
    r.into_inner().unwrap().sync_all().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .args([
            "disk",
            "replay",
            "--spec",
            "barracuda",
            "--closed",
            "--trace",
        ])
        .arg(&trace)
        .arg("--reference")
        .arg(&reference)
        .arg("--out")
        .arg(&out)
        .current_dir(common::root())
        .output()
        .unwrap();
    let (stdout, stderr) = common::text(&o);
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.starts_with("10000000 requests through"), "{stdout}");
    assert!(stdout.contains("against the reference"), "{stdout}");
    let peak = common::children_peak_bytes();
    let input =
        std::fs::metadata(&trace).unwrap().len() + std::fs::metadata(&reference).unwrap().len();
    eprintln!(
        "peak resident set {:.0} MB for {REQUESTS} requests ({:.0} MB of input)",
        peak as f64 / 1e6,
        input as f64 / 1e6
    );
    assert!(
        peak < 400_000_000,
        "disk replay of {REQUESTS} requests peaked at {peak} bytes: its inputs are not streamed"
    );
    assert!(
        peak < input,
        "peak {peak} bytes is not below the {input} bytes of its inputs"
    );
    // every request's row was written, after the header
    let rows = std::io::BufReader::new(std::fs::File::open(out.join("requests.csv")).unwrap())
        .lines()
        .count() as u64;
    assert_eq!(rows, REQUESTS + 1);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["summary"]["requests"], REQUESTS);
}
