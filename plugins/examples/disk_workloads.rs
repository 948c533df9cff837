//! Writes the generated workloads of the `mechanical`-against-DiskSim fixtures (issue 35,
//! item 2) as DiskSim ASCII traces (`arrival_ms device lbn sectors flags`, flags bit 0 =
//! read), one folder per bundled DiskSim disk:
//!
//! - `e-seq-streams-closed`: 16 sequential streams of 64 KB reads served in turn (VoD-like
//!   interleaving, so every request breaks the previous one's read-ahead), closed.
//! - `f-boundaries-closed`: 64-sector requests straddling every zone boundary and 300
//!   cylinder boundaries (every third a write), in random order, closed.
//! - `g-writes-cached-open`: open arrivals (exponential gaps, mean 25 ms; 50 ms on the HP
//!   C2247A), half writes, 4–64
//!   sectors, 60 % of them on a block a recent request touched (writes hitting the cache,
//!   reads of written data).
//!
//! ```text
//! cargo run --release -p vodbench-plugins --example disk_workloads -- OUT_DIR
//! cargo run --release -p vodbench-plugins --example disk_workloads -- OUT_DIR SPEC GAP_MS
//! ```
//!
//! The second form writes the same three, plus `r-rand4k-closed` (2,000 random 4 KB reads)
//! and `s-rand512k-closed` (1,000 random 512 KB reads), for any DiskSim parameter file the
//! loader takes (for example the other disks of DiskSim's `valid/`), with the open workload's
//! mean gap `GAP_MS`, into `OUT_DIR/<file stem>`; seeds from the file's name.
//!
//! Seeds are fixed (the disk's index in [`DISKS`] plus a workload number), so the traces are
//! the ones the fixtures hold. DiskSim's responses to them come from the `disksim` binding:
//! `vodbench disk replay --model disksim --spec DISK --trace T [--closed] --out DIR`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use vodbench_plugins::disk_model::mechanical::Mechanical;

/// The DiskSim disks bundled with vodbench, and the mean gap (ms) between arrivals of the open
/// workload on each: about half its capacity (the HP C2247A, at 5400 rpm and writing
/// through, is the slowest).
const DISKS: [(&str, f64); 3] = [
    ("barracuda", 25.0),
    ("cheetah9LP", 25.0),
    ("hp_c2247a", 50.0),
];

fn line(out: &mut String, t_ms: f64, lbn: u64, n: u64, read: bool) {
    writeln!(out, "{t_ms:.6} 0 {lbn} {n} {}", u8::from(read)).expect("to a string");
}

fn seq_streams(blocks: u64, rng: &mut StdRng) -> String {
    let n = 128;
    let mut next: Vec<u64> = (0..16)
        .map(|_| rng.random_range(0..blocks - 4096 * n))
        .collect();
    let mut out = String::new();
    for i in 0..3200 {
        let s = i % next.len();
        line(&mut out, 0.0, next[s], n, true);
        next[s] += n;
    }
    out
}

fn boundaries(d: &Mechanical, rng: &mut StdRng) -> String {
    let layout = &d.disk().layout;
    let blocks = layout.blocks;
    let mut starts: Vec<u64> = layout.bands.iter().skip(1).map(|b| b.first_lbn).collect();
    // the first LBN of random cylinders: where the mapping's cylinder changes
    for _ in 0..300 {
        let c = rng.random_range(1..layout.cylinders);
        let (mut lo, mut hi) = (0u64, blocks - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if layout.ltop(mid).cyl < c {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        starts.push(lo);
    }
    let mut reqs: Vec<(u64, bool)> = starts
        .iter()
        .enumerate()
        .filter(|(_, s)| **s >= 32 && **s + 32 <= blocks)
        .map(|(i, s)| (s - 32, i % 3 != 2))
        .collect();
    // a random order (Fisher-Yates), so no request continues the previous one
    for i in (1..reqs.len()).rev() {
        let j = rng.random_range(0..=i);
        reqs.swap(i, j);
    }
    let mut out = String::new();
    for (lbn, read) in reqs {
        line(&mut out, 0.0, lbn, 64, read);
    }
    out
}

fn writes_cached(blocks: u64, gap_ms: f64, rng: &mut StdRng) -> String {
    let mut out = String::new();
    let mut recent: Vec<u64> = Vec::new();
    let mut t = 0.0;
    for _ in 0..5000 {
        t += -gap_ms * (1.0 - rng.random::<f64>()).ln();
        let n = 4 * rng.random_range(1..=16u64);
        let lbn = if !recent.is_empty() && rng.random_bool(0.6) {
            let base = recent[rng.random_range(0..recent.len())];
            (base + 4 * rng.random_range(0..8u64)).min(blocks - n)
        } else {
            rng.random_range(0..blocks - n)
        };
        recent.push(lbn);
        if recent.len() > 20 {
            recent.remove(0);
        }
        line(&mut out, t, lbn, n, rng.random_bool(0.5));
    }
    out
}

fn random_reads(blocks: u64, n: u64, count: usize, rng: &mut StdRng) -> String {
    let mut out = String::new();
    for _ in 0..count {
        let lbn = n * rng.random_range(0..(blocks - n) / n);
        line(&mut out, 0.0, lbn, n, true);
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "disk-workloads".into());
    if let Some(spec) = args.get(2) {
        let gap_ms: f64 = args
            .get(3)
            .and_then(|g| g.parse().ok())
            .expect("GAP_MS: the open workload's mean gap in ms");
        let d = Mechanical::bundled(spec, None).unwrap_or_else(|e| panic!("{e}"));
        let blocks = d.disk().layout.blocks;
        let stem = std::path::Path::new(spec)
            .file_stem()
            .map_or("disk".into(), |s| s.to_string_lossy().to_string());
        let base = stem
            .bytes()
            .fold(17u64, |h, b| h.wrapping_mul(31) + u64::from(b));
        let seed = |w: u64| StdRng::seed_from_u64(base.wrapping_add(w));
        let out = std::path::Path::new(&dir).join(&stem);
        std::fs::create_dir_all(&out).expect("the output folder");
        for (name, text) in [
            (
                "r-rand4k-closed",
                random_reads(blocks, 8, 2000, &mut seed(1)),
            ),
            (
                "s-rand512k-closed",
                random_reads(blocks, 1024, 1000, &mut seed(2)),
            ),
            ("e-seq-streams-closed", seq_streams(blocks, &mut seed(5))),
            ("f-boundaries-closed", boundaries(&d, &mut seed(6))),
            (
                "g-writes-cached-open",
                writes_cached(blocks, gap_ms, &mut seed(7)),
            ),
        ] {
            let p = out.join(format!("{name}.trace"));
            std::fs::write(&p, text).expect("writing a trace");
            println!("{}", p.display());
        }
        return;
    }
    for (i, (disk, gap_ms)) in DISKS.iter().enumerate() {
        let d = Mechanical::bundled(disk, None).expect("a bundled disk");
        let blocks = d.disk().layout.blocks;
        let seed = |w: u64| StdRng::seed_from_u64(1000 * (i as u64 + 1) + w);
        let out = std::path::Path::new(&dir).join(disk);
        std::fs::create_dir_all(&out).expect("the output folder");
        for (name, text) in [
            ("e-seq-streams-closed", seq_streams(blocks, &mut seed(5))),
            ("f-boundaries-closed", boundaries(&d, &mut seed(6))),
            (
                "g-writes-cached-open",
                writes_cached(blocks, *gap_ms, &mut seed(7)),
            ),
        ] {
            let p = out.join(format!("{name}.trace"));
            std::fs::write(&p, text).expect("writing a trace");
            println!("{}", p.display());
        }
    }
}
