//! Jadav et al. §6 (issue 30, item 4): `[server.replication]`'s LDSS and LMSS through whole
//! runs — a fragment read from the dedicated interface node's local disk crosses no
//! interconnect (N_C = N_Q = 0) and keeps its disk components, a prefix in memory needs no
//! disk access, RDSS is the server without the table, bad input names its key — J8
//! (Fig. 11) as `vodbench sweep` searches it on `scenarios/jadav/fig11-ldss-lmss.toml`, and
//! (issue 30, demotion) a hot object that changes mid-run: the second one detected and served
//! from the dedicated node's local disk, the first demoted (§6.2, line 274).

mod common;
use common::{refused, root, run_text, text, vodbench};
use serde_json::Value;
use std::path::Path;

fn summary(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
}

/// Two storage nodes' worth of a Fig. 11 server (4 storage, 2 interface nodes), videos of
/// 10 s, and three viewings of video 0 from a trace: at 0 s (it makes video 0 popular, with
/// `threshold = 1`; served at interface 0 from the storage nodes), at 1 s (the first at the
/// dedicated interface node 1: it fetches every fragment from the storage nodes, and the node
/// keeps them) and at 30 s, the only viewing of the measured period (25 s to 45 s): every
/// fragment of it is local.
fn small(dir: &Path, replication: &str) -> String {
    std::fs::write(
        dir.join("three.trace"),
        "# vodbench-trace v1\n0.0 0 start 0 0\n1.0 1 start 0 0\n30.0 2 start 0 0\n",
    )
    .unwrap();
    format!(
        r#"name = "replication-small"
seed = 3
[run]
warmup = "25s"
duration = "20s"
request_delays = true
[videos]
count = 4
length = "10s"
bit_rate = "1.5Mbit/s"
frames = "cbr"
[server]
nodes = 4
interface_nodes = 2
disks_per_node = 1
memory_per_node = "128KiB"
stripe = "64KiB"
[server.network]
name = "ports"
bandwidth = "13.8MB/s"
per_message = "0s"
send_cost = "50us"
receive_cost = "50us"
[server.replication]
{replication}
[disk.model]
name = "analytic"
capacity = "1GiB"
cylinder_bytes = "1MiB"
seek_factor_ms = 0.2895
settle = "1ms"
rotation = "16.06ms"
transfer_rate = 10000000
rotational_latency = "uniform"
[disk.scheduler]
name = "edf"
[layout]
name = "stripe-factor"
factor = 4
[prefetcher]
name = "none"
[terminals]
count = 3
memory = "512KiB"
[terminals.rounds]
blocks = 4
issue = "eager"
[workload]
trace = "three.trace"
"#
    )
}

/// `small`'s server with four terminals and a trace in which the hot object changes:
/// video 0 asked for at 0, 1 and 2 s, video 1 at 25, 26, 27 and 40 s, and video 0 again at
/// 41 s. With `threshold = 2` and `window = "20s"`: video 0 is popular at 1 s, its viewing at
/// 2 s is at the dedicated node (interface 1), and it is demoted at 21 s (its request at 1 s
/// leaving the window leaves one); video 1 is popular at 26 s at the same node (its copy
/// replacing video 0's), its viewing at 27 s fetches and keeps every fragment, and its
/// viewing at 40 s, the one measured (39 s to 51 s) with the viewing of video 0 at 41 s, reads
/// every fragment from the local disk; video 0's viewing at 41 s goes to the ordinary
/// interface node 0 and fetches from the storage nodes. Video 1 is demoted at 47 s (its
/// request at 27 s leaving), before the run ends.
fn shift(dir: &Path, replication: &str) -> String {
    std::fs::write(
        dir.join("shift.trace"),
        "# vodbench-trace v1\n0.0 0 start 0 0\n1.0 1 start 0 0\n2.0 2 start 0 0\n\
         25.0 0 start 1 0\n26.0 1 start 1 0\n27.0 2 start 1 0\n40.0 0 start 1 0\n\
         41.0 3 start 0 0\n",
    )
    .unwrap();
    small(dir, replication)
        .replace("trace = \"three.trace\"", "trace = \"shift.trace\"")
        .replace("[terminals]\ncount = 3", "[terminals]\ncount = 4")
        .replace(
            "warmup = \"25s\"\nduration = \"20s\"",
            "warmup = \"39s\"\nduration = \"12s\"",
        )
}

#[test]
fn issue30_a_new_hot_object_is_detected_and_served_locally_and_the_old_one_demoted() {
    let tmp = tempfile::tempdir().unwrap();
    let text_ = shift(
        tmp.path(),
        "scheme = \"ldss\"\nthreshold = 2\nwindow = \"20s\"",
    );
    assert!(text_.contains("count = 4") && text_.contains("warmup = \"39s\""));
    let s = summary(&run_text(tmp.path(), "shift", &text_));
    let r = &s["replication"];
    let s_ = 1_000_000_000u64;
    let change =
        |v: u64, at: u64| serde_json::json!({"video": v, "interface": 1, "at_ns": at * s_});
    assert_eq!(
        r["promotions"],
        serde_json::json!([change(0, 1), change(1, 26)]),
        "{r}"
    );
    assert_eq!(
        r["demotions"],
        serde_json::json!([change(0, 21), change(1, 47)]),
        "{r}"
    );
    assert_eq!(
        (r["promotion_count"].as_u64(), r["demotion_count"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(r["waiting_requests"], 0);
    // the first popular object keeps its fields' meaning
    assert_eq!(r["popular_video"], 0);
    assert_eq!(r["detected_ns"], s_);
    assert_eq!(r["dedicated_interface"], 1);
    assert_eq!(r["dedicated_interfaces"], 1);
    // 2 s (video 0), 27 s and 40 s (video 1) at the dedicated node; 41 s (video 0) not
    assert_eq!(
        (r["viewings"].as_u64(), r["viewings_dedicated"].as_u64()),
        (Some(8), Some(3))
    );
    // the node holds video 1's copy now, every fragment of it
    assert_eq!(r["kept_fragments"], FRAGMENTS);
    // measured: the second hot object's viewing reads every fragment from the local disk;
    // the demoted object's viewing fetches every one from the storage nodes
    assert_eq!(r["local_disk_reads"], FRAGMENTS, "{r}");
    assert_eq!(r["dedicated_remote_reads"], 0);
    let d = &s["request_delays"];
    assert_eq!(d["requests"], 2 * FRAGMENTS, "{d}");
    assert!(d["n_c"]["max_ns"].as_u64().unwrap() > 0, "{d}");
    assert!(s["network"]["messages"].as_u64().unwrap() >= 2 * FRAGMENTS);
    assert_eq!(s["glitches"]["count"], 0);
    // the same scenario and seed give the same bytes
    let again = summary(&run_text(tmp.path(), "shift2", &text_));
    assert_eq!(s, again);
}

#[test]
fn issue30_two_dedicated_nodes_serve_two_hot_objects_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    // three interface nodes, the last two dedicated: video 0 popular at 1 s at interface 1,
    // video 1 at 26 s at interface 2 — its request finds video 0 still popular at 1 (demoted
    // only at 21 s with a 20 s window; here the window is 30 s, so at 31 s)
    let text_ = shift(
        tmp.path(),
        "scheme = \"ldss\"\nthreshold = 2\nwindow = \"30s\"\ndedicated_interfaces = 2",
    )
    .replace("interface_nodes = 2", "interface_nodes = 3");
    let s = summary(&run_text(tmp.path(), "two", &text_));
    let r = &s["replication"];
    let s_ = 1_000_000_000u64;
    let change =
        |v: u64, i: u64, at: u64| serde_json::json!({"video": v, "interface": i, "at_ns": at * s_});
    assert_eq!(
        r["promotions"],
        serde_json::json!([change(0, 1, 1), change(1, 2, 26)]),
        "{r}"
    );
    // video 0: requests 0, 1, 2 s leave at 30, 31, 32 s: demoted at 31 s; its viewing at
    // 41 s goes to the ordinary node; video 1 (25, 26, 27, 40 s) stays popular to the end
    assert_eq!(r["demotions"], serde_json::json!([change(0, 1, 31)]), "{r}");
    assert_eq!(r["dedicated_interfaces"], 2);
    assert_eq!(r["local_disk_reads"], FRAGMENTS, "{r}");
    // both nodes keep their copies: video 0's (never replaced) and video 1's
    assert_eq!(r["kept_fragments"], 2 * FRAGMENTS);
    assert_eq!(s["disks"]["count"], 6);
}

/// Fragments of a 10 s video at 1.5 Mbit/s in 64 KiB: 1,875,000 B → 29.
const FRAGMENTS: u64 = 29;

#[test]
fn issue30_a_local_fragment_crosses_no_interconnect_and_keeps_its_disk_components() {
    let tmp = tempfile::tempdir().unwrap();
    let text_ = small(tmp.path(), "scheme = \"ldss\"\nthreshold = 1");
    let s = summary(&run_text(tmp.path(), "ldss", &text_));
    let r = &s["replication"];
    assert_eq!(r["popular_video"], 0);
    assert_eq!(r["detected_ns"], 0);
    assert_eq!(r["dedicated_interface"], 1);
    assert_eq!(r["viewings_dedicated"], 2, "{r}");
    assert_eq!(r["kept_fragments"], FRAGMENTS);
    // the measured viewing reads every fragment from the local disk, none remotely
    assert_eq!(r["local_disk_reads"], FRAGMENTS, "{r}");
    assert_eq!(r["dedicated_remote_reads"], 0);
    let d = &s["request_delays"];
    assert_eq!(d["requests"], FRAGMENTS, "{d}");
    assert_eq!(d["other_requests"], 0);
    for c in ["n_c", "n_q"] {
        assert_eq!(d[c]["max_ns"], 0, "{c} of a local fragment: {d}");
    }
    // D_T is the local disk's transfer of 64 KiB at 10 MB/s (the last fragment is shorter)
    assert_eq!(d["d_t"]["max_ns"], 6_553_600);
    assert!(d["d_r"]["mean_ns"].as_u64().unwrap() > 0);
    let r_tot = d["r_tot"]["mean_ns"].as_u64().unwrap();
    let parts: u64 = ["d_t", "d_s", "d_r", "s_q"]
        .iter()
        .map(|c| d[c]["mean_ns"].as_u64().unwrap())
        .sum();
    assert!(
        r_tot.abs_diff(parts) <= 4,
        "R_tot {r_tot} ≠ disk parts {parts}"
    );
    // no interconnect traffic in the measured period, and the storage disks are idle
    assert_eq!(s["network"]["messages"], 0, "{}", s["network"]);
    assert_eq!(s["disks"]["count"], 5);
    assert_eq!(s["disks"]["requests"], FRAGMENTS);
    // nothing played late, and the bytes balance
    assert_eq!(s["glitches"]["count"], 0);
    let c = &s["conservation"];
    let u = |k: &str| c[k].as_u64().unwrap();
    assert_eq!(
        u("disk_demand_bytes") + u("hit_bytes") + u("join_bytes"),
        u("sent_bytes") + u("serving_bytes")
    );
    assert_eq!(u("sent_bytes"), u("received_bytes") + u("in_transit_bytes"));
}

/// With the object manager a node (`[server] manager_node`), it routes each viewing as
/// before — the popular object's to the dedicated interface node — and its delegation goes
/// there: the measured viewing (at 30 s) is still read from the local disk, and its only
/// messages on the interconnect are the manager's delegation into interface node 1 and the
/// answer back.
#[test]
fn issue30_a_manager_node_delegates_the_popular_objects_viewing_to_the_dedicated_node() {
    let tmp = tempfile::tempdir().unwrap();
    let text_ = small(tmp.path(), "scheme = \"ldss\"\nthreshold = 1").replace(
        "interface_nodes = 2\n",
        "interface_nodes = 2\nmanager_node = true\n",
    );
    let out = run_text(tmp.path(), "ldss-managed", &text_);
    let s = summary(&out);
    let r = &s["replication"];
    assert_eq!(r["dedicated_interface"], 1);
    assert_eq!(r["viewings_dedicated"], 2, "{r}");
    assert_eq!(r["local_disk_reads"], FRAGMENTS, "{r}");
    assert_eq!(r["dedicated_remote_reads"], 0);
    let n = &s["network"];
    assert_eq!(n["messages"], 2, "{n}");
    assert_eq!(n["control_messages"], 2, "{n}");
    let links = std::fs::read_to_string(out.join("links.csv")).unwrap();
    let carried = |name: &str| {
        let row = links
            .lines()
            .find(|l| l.split(',').nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no link {name} in {links}"));
        row.split(',').nth(3).unwrap().parse::<u64>().unwrap()
    };
    for (link, messages) in [
        ("manager send", 1),
        ("interface 1 receive", 1),
        ("interface 1 send", 1),
        ("manager receive", 1),
        ("interface 0 receive", 0),
    ] {
        assert_eq!(carried(link), messages, "{link}: {links}");
    }
    assert_eq!(s["glitches"]["count"], 0);
}

#[test]
fn issue30_lmss_prefix_fragments_need_no_disk_access() {
    let tmp = tempfile::tempdir().unwrap();
    let text_ = small(
        tmp.path(),
        "scheme = \"lmss\"\nthreshold = 1\nprefix = \"100%\"",
    );
    let s = summary(&run_text(tmp.path(), "lmss", &text_));
    let r = &s["replication"];
    assert_eq!(r["prefix_fragments"], FRAGMENTS);
    assert_eq!(r["memory_reads"], FRAGMENTS, "{r}");
    assert_eq!(r["local_disk_reads"], 0);
    // no request has disk components, and no disk served any
    let d = &s["request_delays"];
    assert_eq!(d["requests"], 0, "{d}");
    assert_eq!(d["other_requests"], FRAGMENTS);
    assert_eq!(s["disks"]["requests"], 0);
    assert_eq!(s["glitches"]["count"], 0);

    // half the object in memory: the first 15 fragments from memory, the other 14 from disk
    let text_ = small(
        tmp.path(),
        "scheme = \"lmss\"\nthreshold = 1\nprefix = \"50%\"",
    );
    let s = summary(&run_text(tmp.path(), "half", &text_));
    let r = &s["replication"];
    assert_eq!(r["prefix_fragments"], 15);
    assert_eq!(
        (r["memory_reads"].as_u64(), r["local_disk_reads"].as_u64()),
        (Some(15), Some(14))
    );
}

#[test]
fn issue30_rdss_is_the_server_without_the_table() {
    let file = root().join("scenarios/jadav/fig11-rdss.toml");
    let base = std::fs::read_to_string(file).unwrap();
    let i = base.find("[sweep]").unwrap();
    let base = base[..i]
        .replace("count = 240", "count = 60")
        .replace("fraction = 0.0", "fraction = 0.4");
    let tmp = tempfile::tempdir().unwrap();
    let mut without = summary(&run_text(tmp.path(), "without", &base));
    let with = format!("{base}\n[server.replication]\nscheme = \"rdss\"\n");
    let mut with = summary(&run_text(tmp.path(), "with", &with));
    let r = with.as_object_mut().unwrap().remove("replication").unwrap();
    assert_eq!(r["viewings"], 60);
    assert_eq!(r["viewings_dedicated"], 0);
    for s in [&mut with, &mut without] {
        s.as_object_mut().unwrap().remove("events");
    }
    assert_eq!(with, without);
}

#[test]
fn issue30_bad_replication_input_names_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    for (replication, key, what) in [
        (
            "scheme = \"ldss\"\nlocal_disks = 0",
            "server.replication.local_disks",
            "local disks",
        ),
        (
            "scheme = \"lmss\"\nprefix = 30",
            "server.replication.prefix",
            "video 0 has 29",
        ),
        (
            "scheme = \"lmss\"",
            "server.replication.prefix",
            "lmss needs",
        ),
        (
            "scheme = \"ldss\"\nprefix = \"10%\"",
            "server.replication.prefix",
            "remove it",
        ),
        (
            "scheme = \"ldss\"\nthreshold = 0",
            "server.replication.threshold",
            "1..=1000000",
        ),
        (
            "scheme = \"ldss\"\ndedicated_interfaces = 2",
            "server.replication.dedicated_interfaces",
            "must be 1..=1 with server.interface_nodes = 2, got 2",
        ),
        (
            "scheme = \"lmss\"\nprefix = 4\ndedicated_interfaces = 0",
            "server.replication.dedicated_interfaces",
            "got 0",
        ),
        (
            "scheme = \"rdss\"\ndedicated_interfaces = 2",
            "server.replication.dedicated_interfaces",
            "rdss dedicates none",
        ),
    ] {
        let file = tmp.path().join("bad.toml");
        std::fs::write(&file, small(tmp.path(), replication)).unwrap();
        let out = vodbench(&["check", file.to_str().unwrap()]);
        let (o, e) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{replication}: {o}{e}");
        assert!(e.contains(key), "{replication}: {e}");
        assert!(e.contains(what), "{replication}: {e}");
    }
    // the popular object does not fit its local disk: the error says how much it needs
    let file = tmp.path().join("full.toml");
    let full = small(tmp.path(), "scheme = \"ldss\"")
        .replace("count = 4\nlength", "count = 1\nlength")
        .replace("capacity = \"1GiB\"", "capacity = \"1MiB\"");
    std::fs::write(&file, full).unwrap();
    let out = vodbench(&["check", file.to_str().unwrap()]);
    let (_, e) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("server.replication.local_disks")
            && e.contains("bytes on each of 1 local disks, but a disk holds 1048576"),
        "{e}"
    );
    // LMSS's prefix lives in the dedicated node's memory beside the streams' buffers: 4
    // fragments of 64 KiB and 3 × 512 KiB need 1792 KiB
    let lmss = |memory: &str| {
        small(tmp.path(), "scheme = \"lmss\"\nprefix = 4").replace(
            "stripe = \"64KiB\"",
            &format!("stripe = \"64KiB\"\ninterface_memory = \"{memory}\""),
        )
    };
    let file = tmp.path().join("prefix.toml");
    std::fs::write(&file, lmss("1791KiB")).unwrap();
    let out = vodbench(&["check", file.to_str().unwrap()]);
    let (_, e) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("server.interface_memory")
            && e.contains("prefix is 4 fragments")
            && e.contains("at least 1792KiB"),
        "{e}"
    );
    std::fs::write(&file, lmss("1792KiB")).unwrap();
    let out = vodbench(&["check", file.to_str().unwrap()]);
    assert!(out.status.success(), "{:?}", text(&out));
    // one interface node cannot dedicate one
    let file = tmp.path().join("one.toml");
    let one = small(tmp.path(), "scheme = \"ldss\"")
        .replace("interface_nodes = 2", "interface_nodes = 1");
    std::fs::write(&file, one).unwrap();
    let out = vodbench(&["check", file.to_str().unwrap()]);
    let (_, e) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("server.replication.scheme") && e.contains("interface_nodes ≥ 2"),
        "{e}"
    );
}

#[test]
fn issue30_bad_hot_object_input_names_the_key() {
    let file = root().join("scenarios/jadav/popularity-shift.toml");
    let base = std::fs::read_to_string(file).unwrap();
    let base = &base[..base.find("[[sweep.series").unwrap()];
    // hot_period and hot_videos belong to popularity = "hotspot"
    refused(
        &base
            .replace("popularity = \"hotspot\"", "popularity = \"uniform\"")
            .replace("fraction = 0.4\n", ""),
        &[
            "workload.generate.hot_period",
            "set popularity = \"hotspot\"",
        ],
    );
    refused(
        &base.replace("hot_period = \"300s\"\n", "hot_videos = 0\n"),
        &["workload.generate.hot_videos", "1..=1000"],
    );
    refused(
        &base.replace("hot_period = \"300s\"\n", "hot_period = \"0s\"\n"),
        &["workload.generate.hot_period", "1ms..=1000h"],
    );
    // more hot videos over the run than the library has: 3 a second over the 900 s the
    // generator covers
    refused(
        &base.replace(
            "hot_period = \"300s\"\n",
            "hot_period = \"1s\"\nhot_videos = 3\n",
        ),
        &[
            "workload.generate.hot_videos",
            "make 2703 hot videos, but videos.count is 1500",
        ],
    );
    // the scenario's own server has six interface nodes: at most five dedicated
    refused(
        &format!(
            "{base}\n[server.replication]\nscheme = \"ldss\"\nlocal_disks = 4\n\
             dedicated_interfaces = 6\n"
        ),
        &[
            "server.replication.dedicated_interfaces",
            "must be 1..=5 with server.interface_nodes = 6, got 6",
        ],
    );
}

/// `vodbench sweep --stop-at-glitch` over `fig11-ldss-lmss.toml` at the shares given: each
/// (scheme, p)'s maximum streams.
fn fig11(fractions: &str) -> Vec<(String, f64, f64)> {
    let text_ = std::fs::read_to_string(root().join("scenarios/jadav/fig11-ldss-lmss.toml"))
        .unwrap()
        .replace(
            "\"workload.generate.fraction\" = [0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0]",
            &format!("\"workload.generate.fraction\" = [{fractions}]"),
        );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("fig11.toml");
    std::fs::write(&file, text_).unwrap();
    let out = tmp.path().join("out");
    let o = vodbench(&[
        "sweep",
        file.to_str().unwrap(),
        "--stop-at-glitch",
        "--max-terminals",
        "1400",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (s, p, m) = (
        col("scheme"),
        col("workload.generate.fraction"),
        col("max_terminals"),
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[s].to_string(),
                f[p].parse().unwrap(),
                f[m].parse().unwrap(),
            )
        })
        .collect()
}

/// J8 (Fig. 11) as the search finds it on seed 1 (`scenarios/jadav/README.md`'s table): what
/// holds and what does not under the default reading (one local disk, 50 % prefix).
#[test]
fn issue30_j8_fig11_what_the_search_finds() {
    let rows = fig11("0.0, 0.1, 0.6, 1.0");
    let max = |scheme: &str, p: f64| {
        rows.iter()
            .find(|(s, q, _)| s == scheme && *q == p)
            .unwrap_or_else(|| panic!("no point {scheme} {p}: {rows:?}"))
            .2
    };
    // J8(a) at p = 0: the dedicated node idles, the other five carry every stream
    for s in ["LDSS", "LMSS"] {
        assert!(max("RDSS", 0.0) > 1.02 * max(s, 0.0), "{rows:?}");
    }
    // ... but at 10 % the popular object's four storage nodes already limit RDSS, and
    // LDSS and LMSS move its viewings off them: J8(a) fails there
    for s in ["LDSS", "LMSS"] {
        assert!(max(s, 0.1) > 1.1 * max("RDSS", 0.1), "{rows:?}");
    }
    // J8(b) fails with one local disk: at high p it carries fewer streams than the four
    // storage nodes holding the object
    for p in [0.6, 1.0] {
        for s in ["LDSS", "LMSS"] {
            assert!(max("RDSS", p) > 1.5 * max(s, p), "{rows:?}");
        }
    }
    // J8(c) fails: a prefix read in the first half of every viewing leaves the second half's
    // disk load, and the viewings all start within the first minute
    for p in [0.0, 0.1, 0.6, 1.0] {
        let (d, m) = (max("LDSS", p), max("LMSS", p));
        assert!((m - d).abs() <= 0.1 * d, "p = {p}: LDSS {d}, LMSS {m}");
    }
    // J8(d) holds: RDSS falls with p, to at most half
    assert!(max("RDSS", 0.0) > max("RDSS", 0.1));
    assert!(max("RDSS", 0.1) > max("RDSS", 0.6));
    assert!(max("RDSS", 0.6) > max("RDSS", 1.0));
    assert!(max("RDSS", 1.0) <= 0.5 * max("RDSS", 0.0), "{rows:?}");
}

/// A Fig. 11 run that ends with local reads in flight (every viewing of one object, 40
/// streams, LDSS and LMSS): the bytes still balance.
#[test]
fn issue30_ldss_and_lmss_runs_balance_their_bytes() {
    let file = root().join("scenarios/jadav/fig11-ldss-lmss.toml");
    let base = std::fs::read_to_string(file).unwrap();
    let base = base[..base.find("[sweep]").unwrap()]
        .replace("count = 240", "count = 40")
        .replace("fraction = 0.0", "fraction = 1.0");
    let tmp = tempfile::tempdir().unwrap();
    for (name, table) in [
        ("ldss", "scheme = \"ldss\""),
        ("lmss", "scheme = \"lmss\"\nprefix = \"50%\""),
    ] {
        let text_ = format!("{base}\n[server.replication]\n{table}\n");
        let s = summary(&run_text(tmp.path(), name, &text_));
        let r = &s["replication"];
        assert!(
            r["local_disk_reads"].as_u64().unwrap() > 1000,
            "{name}: {r}"
        );
        let c = &s["conservation"];
        let u = |k: &str| c[k].as_u64().unwrap();
        assert!(
            u("serving_bytes") > 0 || u("in_transit_bytes") > 0,
            "{name}: {c}"
        );
        assert_eq!(
            u("disk_demand_bytes") + u("hit_bytes") + u("join_bytes"),
            u("sent_bytes") + u("serving_bytes"),
            "{name}: {c}"
        );
        assert_eq!(
            u("sent_bytes"),
            u("received_bytes") + u("in_transit_bytes"),
            "{name}: {c}"
        );
        assert_eq!(
            u("requests_issued"),
            u("requests_delivered") + u("requests_in_system"),
            "{name}: {c}"
        );
    }
}
