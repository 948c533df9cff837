//! Issue 30, item 1: streams read in rounds (`[terminals.rounds]`, Jadav et al. §3.2, eq.
//! 1–3): a set of `blocks` fragments asked for together, one from each node holding the
//! object, when the buffer has room for all of it (`eager`) or `lead` before its first frame
//! is due (`latest`, eq. 3's t_max).

mod common;
use common::{text, vodbench};
use serde_json::Value;
use std::path::Path;

/// One stream of a CBR video from 4 single-disk nodes holding it round-robin (S = 4), on an
/// idle server; `rounds` is the `[terminals.rounds]` table (or nothing).
fn scenario(dir: &Path, name: &str, rounds: &str) -> std::path::PathBuf {
    let text = format!(
        r#"name = "{name}"
seed = 2
[run]
warmup = "0s"
duration = "60s"
request_sample_every = 1
[videos]
count = 2
length = "2min"
bit_rate = "1.5Mbit/s"
frames = "cbr"
[server]
nodes = 4
disks_per_node = 1
memory_per_node = "4MiB"
stripe = "64KiB"
[disk.model]
name = "analytic"
spec = "st15150n"
[layout]
name = "stripe-factor"
factor = 4
placement = "contiguous"
[prefetcher]
name = "none"
[terminals]
count = 1
memory = "512KiB"
{rounds}
[workload.generate]
start_spread = "0s"
"#
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn run(dir: &Path, path: &Path) -> (Value, String) {
    let out = dir.join(format!(
        "out-{}",
        path.file_stem().unwrap().to_string_lossy()
    ));
    let o = vodbench(&[
        "run",
        path.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let summary = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap());
    (
        summary.unwrap(),
        std::fs::read_to_string(out.join("requests.csv")).unwrap(),
    )
}

/// How many requests reached the disks at each instant (time − queue wait), after the
/// first 10 s (priming fills the whole buffer at once, in any mode).
fn arrivals(csv: &str) -> Vec<usize> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (time, queue) = (col("time_ns"), col("queue_ns"));
    let mut at: std::collections::BTreeMap<u64, usize> = Default::default();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        let t: u64 = f[time].parse().unwrap();
        let q: u64 = f[queue].parse().unwrap();
        if t - q > 10_000_000_000 {
            *at.entry(t - q).or_default() += 1;
        }
    }
    at.into_values().collect()
}

#[test]
fn issue30_a_round_asks_for_its_whole_set_together() {
    let tmp = tempfile::tempdir().unwrap();
    let (s, csv) = run(
        tmp.path(),
        &scenario(tmp.path(), "sets", "[terminals.rounds]\nblocks = 4\n"),
    );
    assert_eq!(s["glitches"]["count"], 0);
    let groups = arrivals(&csv);
    assert!(groups.len() > 10, "{groups:?}");
    // every instant brings a whole set (the video's last set may be shorter)
    let (last, rest) = groups.split_last().unwrap();
    assert!(rest.iter().all(|&n| n == 4), "{groups:?}");
    assert!((1..=4).contains(last));
    // one block at a time instead: a block whenever one block's room frees
    let (s, csv) = run(tmp.path(), &scenario(tmp.path(), "blocks", ""));
    assert_eq!(s["glitches"]["count"], 0);
    let groups = arrivals(&csv);
    assert!(
        groups.iter().filter(|&&n| n == 1).count() * 10 >= groups.len() * 9,
        "{groups:?}"
    );
}

#[test]
fn issue30_latest_asks_lead_before_the_set_is_due() {
    let tmp = tempfile::tempdir().unwrap();
    let eager = run(
        tmp.path(),
        &scenario(tmp.path(), "eager", "[terminals.rounds]\nblocks = 4\n"),
    )
    .0;
    let latest = run(
        tmp.path(),
        &scenario(
            tmp.path(),
            "latest",
            "[terminals.rounds]\nblocks = 4\nissue = \"latest\"\nlead = \"300ms\"\n",
        ),
    )
    .0;
    // a set fetched 300 ms before it is due on an idle server arrives in time, and the
    // buffer holds less than when each set comes a whole round ahead
    assert_eq!(latest["glitches"]["count"], 0, "{latest}");
    let occupancy = |s: &Value| {
        s["terminal_buffer"]["occupancy_mean_bytes"]
            .as_u64()
            .unwrap()
    };
    assert!(
        occupancy(&latest) * 10 < occupancy(&eager) * 8,
        "{} vs {}",
        occupancy(&latest),
        occupancy(&eager)
    );
    // asked for only 1 µs ahead, a set cannot come in time: the stream glitches
    let late = run(
        tmp.path(),
        &scenario(
            tmp.path(),
            "late",
            "[terminals.rounds]\nblocks = 4\nissue = \"latest\"\nlead = \"1us\"\n",
        ),
    )
    .0;
    assert!(late["glitches"]["count"].as_u64().unwrap() > 0, "{late}");
}

#[test]
fn issue30_bad_rounds_are_refused_at_their_key() {
    let tmp = tempfile::tempdir().unwrap();
    for (rounds, key, says) in [
        ("blocks = 0", "terminals.rounds.blocks", "must be in 1..=32"),
        (
            "blocks = 33",
            "terminals.rounds.blocks",
            "must be in 1..=32",
        ),
        ("blocks = 16", "terminals.memory", "cannot hold one round"),
        (
            "blocks = 4\nissue = \"latest\"",
            "terminals.rounds.lead",
            "needs `lead`",
        ),
        (
            "blocks = 4\nlead = \"5ms\"",
            "terminals.rounds.lead",
            "only with issue",
        ),
        (
            "blocks = 4\nissue = \"late\"",
            "terminals.rounds.issue",
            "eager",
        ),
    ] {
        let p = scenario(
            tmp.path(),
            "bad",
            &format!("[terminals.rounds]\n{rounds}\n"),
        );
        let o = vodbench(&["check", p.to_str().unwrap()]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{rounds}: {err}");
        assert!(err.contains(key) && err.contains(says), "{rounds}: {err}");
    }
}
