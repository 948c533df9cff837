//! `vodbench net calibrate` (issue 30, item 2): an interconnect measured on its own through
//! the network component runs use. J0 (Jadav et al. §5.1): `scenarios/jadav/calib-network.toml`
//! carries 8–512 KiB messages at 13.8 MB/s point to point, without blocking on an idle network;
//! messages into one node wait for its port, and on a mesh for the links they share.

mod common;

use common::{root, text, vodbench};
use std::path::Path;

const CALIB: &str = "scenarios/jadav/calib-network.toml";

fn calibrate(args: &[&str]) -> serde_json::Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("c");
    let mut a = vec!["net", "calibrate"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let o = vodbench(&a);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{a:?}: {stdout}{stderr}");
    let csv = std::fs::read_to_string(out.join("calibration.csv")).unwrap();
    assert!(csv.starts_with("bytes,messages,unloaded_ns,"), "{csv}");
    serde_json::from_slice(&std::fs::read(out.join("calibration.json")).unwrap()).unwrap()
}

fn rows(c: &serde_json::Value) -> &Vec<serde_json::Value> {
    c["rows"].as_array().unwrap()
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap()
}

/// A copy of the calibration scenario with its `[server]` nodes and `[server.network]` table
/// replaced.
fn variant(dir: &Path, nodes: u32, network: &str) -> String {
    let text = std::fs::read_to_string(root().join(CALIB)).unwrap();
    let (head, rest) = text.split_once("[server.network]").unwrap();
    let (_, tail) = rest.split_once("[disk.model]").unwrap();
    let text = format!("{head}[server.network]\n{network}\n[disk.model]{tail}")
        .replace("nodes = 2", &format!("nodes = {nodes}"));
    let path = dir.join("variant.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn j0_the_calibration_scenario_carries_13_8_mb_s_at_every_size_without_blocking() {
    let c = calibrate(&[CALIB]);
    assert_eq!(c["interconnect"], "ports");
    let r = rows(&c);
    assert_eq!(r.len(), 13, "8 KiB … 512 KiB");
    assert_eq!(u(&r[0]["bytes"]), 8 << 10);
    assert_eq!(u(&r[12]["bytes"]), 512 << 10);
    for row in r {
        let bytes = u(&row["bytes"]) as f64;
        // N_C / size = 1 / 13.8 MB/s within ±5 %, and no blocking (N_Q = 0)
        let per_byte = u(&row["unloaded_ns"]) as f64 * 1e-9 / bytes;
        assert!(
            (per_byte * 13.8e6 - 1.0).abs() < 0.05,
            "{row}: {per_byte} s/byte"
        );
        assert_eq!(u(&row["mean_ns"]), u(&row["unloaded_ns"]), "{row}");
        assert_eq!(u(&row["blocking_max_ns"]), 0, "{row}");
        let bw = row["bandwidth_mb_s"].as_f64().unwrap();
        assert!((bw / 13.8 - 1.0).abs() < 0.05, "{row}");
    }
}

#[test]
fn messages_into_one_port_wait_for_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let three = variant(
        tmp.path(),
        3,
        "name = \"ports\"\nbandwidth = \"13.8MB/s\"\nper_message = \"0s\"",
    );
    let c = calibrate(&[&three, "--from", "0,2", "--to", "1", "--sizes", "64KiB"]);
    let r = &rows(&c)[0];
    let one = u(&r["unloaded_ns"]);
    assert_eq!(u(&r["messages"]), 2);
    // the second waits one whole transfer for node 1's receive port
    assert_eq!(u(&r["max_ns"]), 2 * one);
    assert_eq!(u(&r["blocking_max_ns"]), one);
    assert_eq!(u(&r["blocking_mean_ns"]), one / 2);
}

#[test]
fn on_a_mesh_a_message_crosses_its_hops_and_waits_only_for_links_it_shares() {
    let tmp = tempfile::tempdir().unwrap();
    // Jadav's 56 nodes on a 4 × 14 mesh (reading 4), a 40 ns router per hop
    let mesh = variant(
        tmp.path(),
        56,
        "name = \"mesh2d\"\nrows = 4\nbandwidth = \"13.8MB/s\"\nper_message = \"0s\"\nhop_delay = \"40ns\"",
    );
    let far = calibrate(&[&mesh, "--from", "0", "--to", "55", "--sizes", "64KiB"]);
    let near = calibrate(&[&mesh, "--from", "0", "--to", "1", "--sizes", "64KiB"]);
    let (f, n) = (&rows(&far)[0], &rows(&near)[0]);
    // node 0 (0,0) → node 55 (3,13): 16 hops; → node 1: 1 hop
    assert_eq!(u(&f["unloaded_ns"]) - u(&n["unloaded_ns"]), 15 * 40);
    assert_eq!(u(&f["blocking_max_ns"]), 0);
    let bw = f["bandwidth_mb_s"].as_f64().unwrap();
    assert!((bw / 13.8 - 1.0).abs() < 0.01, "{f}");
    // 1 → 3 and 2 → 3 share the link (0,2)→(0,3) and node 3's ejection: the second waits
    let shared = calibrate(&[&mesh, "--from", "1,2", "--to", "3", "--sizes", "64KiB"]);
    let s = &rows(&shared)[0];
    assert!(u(&s["blocking_max_ns"]) > 4_000_000, "{s}");
}

#[test]
fn bad_calibrations_are_refused_with_the_key_or_flag() {
    let o = vodbench(&["net", "calibrate", CALIB, "--to", "2"]);
    let e = text(&o).1;
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("key `server.nodes`")
            && e.contains("node 2 is not a node of the scenario (nodes 0..2)"),
        "{e}"
    );
    let o = vodbench(&["net", "calibrate", CALIB, "--sizes", "64KiB,lots"]);
    let e = text(&o).1;
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--sizes: `lots` is not a message size"), "{e}");
}

/// Issue 50: the message-work reading's cost is J0's to give. With 14.8 µs of handler work
/// at each end (`calib-network-message-work.toml`, as the `*-message-work.toml` runs), a
/// message still takes its bytes / 13.8 MB/s within J0's ±5 % at every size, 8 KiB the
/// closest (4.99 % longer); 15 µs would break it there.
#[test]
fn issue50_message_work_stays_inside_j0_and_queues_at_the_receiver() {
    const MW: &str = "scenarios/jadav/calib-network-message-work.toml";
    let c = calibrate(&[MW]);
    let r = rows(&c);
    assert_eq!(r.len(), 13);
    for row in r {
        let bytes = u(&row["bytes"]);
        let wire = bytes as f64 / 13.8e6 * 1e9;
        // the ports' time plus 14.8 µs at each end, to the nanosecond's rounding
        let unloaded = u(&row["unloaded_ns"]) as f64;
        assert!((unloaded - wire - 29_600.0).abs() < 2.0, "{row}");
        let off = unloaded / wire - 1.0;
        assert!(
            off > 0.0 && off <= 0.05,
            "{bytes} B: {:.2} % above J0",
            100.0 * off
        );
        assert_eq!(u(&row["blocking_max_ns"]), 0, "{row}");
    }
    let at_8k = u(&r[0]["unloaded_ns"]) as f64 / (8192.0 / 13.8e6 * 1e9) - 1.0;
    assert!((at_8k - 0.0499).abs() < 0.0005, "{at_8k}");
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join(MW))
        .unwrap()
        .replace("per_message = \"14.8us\"", "per_message = \"15us\"");
    let path = tmp.path().join("mw15.toml");
    std::fs::write(&path, text).unwrap();
    let c15 = calibrate(&[path.to_str().unwrap(), "--sizes", "8KiB"]);
    let off = u(&rows(&c15)[0]["unloaded_ns"]) as f64 / (8192.0 / 13.8e6 * 1e9) - 1.0;
    assert!(off > 0.05, "15 µs per message breaks J0 at 8 KiB: {off}");
}
