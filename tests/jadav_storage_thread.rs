//! Jadav et al. §5 (issue 30): `[server] storage_threading = "single"`, a storage node whose
//! one thread waits out each disk access and each reply's delivery, against the default
//! `"multi"` (the disk a device of its own), on a hand-worked case: one storage node with one
//! disk, one interface node, eight streams of 64 KiB fragments, no CPU costs, 50 µs of
//! software at each end of a message. Under `"multi"` a request queued during an access
//! starts the moment the access ends; under `"single"` it starts only when the reply of the
//! access before it has been delivered: 50 µs + 65,536 B / 13.8 MB/s + 50 µs = 4,848,986 ns
//! later, and never sooner. The wait to be received is in N_Q, not S_Q. Bad combinations are
//! refused with the key.

mod common;
use common::{refused, run_text};
use serde_json::Value;
use std::path::Path;

fn small(threading: &str) -> String {
    format!(
        r#"name = "storage-thread-small"
seed = 2
[run]
warmup = "0s"
duration = "20s"
request_delays = true
request_sample_every = 1
[videos]
count = 64
length = "30s"
bit_rate = "1.5Mbit/s"
frames = "cbr"
[server]
nodes = 1
interface_nodes = 1
disks_per_node = 1
memory_per_node = "1MiB"
stripe = "64KiB"
storage_threading = "{threading}"
[server.cpu]
start_io = 0
send = 0
receive = 0
[server.network]
name = "ports"
bandwidth = "13.8MB/s"
per_message = "0s"
send_cost = "50us"
receive_cost = "50us"
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
factor = 1
[prefetcher]
name = "none"
[terminals]
count = 8
memory = "128KiB"
[terminals.rounds]
blocks = 1
issue = "eager"
[workload.generate]
popularity = "distinct"
start_spread = "1s"
"#
    )
}

/// Every access of the run's `requests` table in start order: (start, service, queue) ns.
fn accesses(dir: &Path) -> Vec<(u64, u64, u64)> {
    let text = std::fs::read_to_string(dir.join("requests.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (t, q, io) = (col("time_ns"), col("queue_ns"), col("io_time_ns"));
    let mut v: Vec<(u64, u64, u64)> = lines
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|x| x.parse().unwrap_or(0)).collect();
            (f[t], f[io] - f[q], f[q])
        })
        .collect();
    v.sort();
    v
}

fn delays(dir: &Path) -> Value {
    let s: Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["glitches"]["count"], 0);
    s["request_delays"].clone()
}

/// The reply of 64 KiB: send cost, the bytes at 13.8 MB/s (rounded up), receive cost.
const REPLY_NS: u64 = 50_000 + 4_748_986 + 50_000;

#[test]
fn issue30_single_threaded_storage_node_serializes_access_and_reply() {
    let tmp = tempfile::tempdir().unwrap();
    let multi = run_text(tmp.path(), "multi", &small("multi"));
    let single = run_text(tmp.path(), "single", &small("single"));
    let gaps = |dir: &Path| -> Vec<(u64, bool)> {
        let a = accesses(dir);
        assert!(a.len() > 400, "{}", a.len());
        a.windows(2)
            .map(|w| {
                let end = w[0].0 + w[0].1;
                assert!(w[1].0 >= end, "accesses overlap: {w:?}");
                (w[1].0 - end, w[1].2 > 0)
            })
            .collect()
    };
    // multi: an access that waited starts as the one before it ends
    let m = gaps(&multi);
    assert!(m.iter().filter(|(_, q)| *q).count() > 100);
    assert!(m.iter().filter(|(_, q)| *q).all(|(g, _)| *g == 0), "{m:?}");
    // single: never sooner than the reply's delivery after an access, and exactly then for
    // one that was waiting (received, with no CPU cost, the moment the thread is free)
    let s = gaps(&single);
    assert!(s.iter().all(|(g, _)| *g >= REPLY_NS), "{s:?}");
    assert!(s.iter().filter(|(_, q)| *q).count() >= 5);
    assert!(
        s.iter().filter(|(_, q)| *q).all(|(g, _)| *g == REPLY_NS),
        "{s:?}"
    );
    // the wait to be received is network-side (N_Q), the disk queue (S_Q) shrinks; the
    // network's unloaded part is the same
    let (dm, ds) = (delays(&multi), delays(&single));
    assert_eq!(dm["n_c"]["mean_ns"], ds["n_c"]["mean_ns"]);
    let ns = |d: &Value, c: &str| d[c]["mean_ns"].as_u64().unwrap();
    assert!(ns(&dm, "n_q") < 10_000, "{dm}");
    assert!(ns(&ds, "n_q") > 1_000_000, "{ds}");
    assert!(ns(&ds, "s_q") < ns(&dm, "s_q"), "{ds} {dm}");
    assert!(ns(&ds, "r_tot") > ns(&dm, "r_tot"), "{ds} {dm}");
}

#[test]
fn issue30_single_threaded_storage_node_bad_input_names_the_key() {
    let base = small("single");
    refused(
        &base.replace("disks_per_node = 1", "disks_per_node = 2"),
        &["server.storage_threading", "disks_per_node = 1", "got 2"],
    );
    refused(
        &base.replace("\"single\"", "\"one\""),
        &["storage_threading", "single", "multi"],
    );
    refused(
        &base.replace(
            "[server.cpu]",
            "[server.bus]\nrate = \"10MB/s\"\n[server.cpu]",
        ),
        &["server.storage_threading", "[server.bus]"],
    );
}
