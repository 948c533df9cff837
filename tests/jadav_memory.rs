//! Jadav et al. §3.2 and §7.1 (issue 30, deliverable 1's "memory per role"): the storage
//! nodes' memory is `[server] memory_per_node` (their buffer pools), each stream's buffer
//! B_I is `terminals.memory`, and each interface node's memory for those buffers, B_I_tot,
//! is `[server] interface_memory`. The `buffer` admission policy (eq. 4) takes it as B_I_tot
//! when its own `total` is not given; with `[admission]`, whatever the policy, a stream whose
//! buffer the node's memory cannot hold is refused as the run goes (`interface_memory`); a
//! fixed load (no `[admission]`) whose buffers do not fit one interface node's memory is
//! refused with the key and the numbers.

mod common;
use common::{refused, run_text};
use serde_json::Value;

/// One storage node, one interface node, eight streams of 128 KiB buffers.
fn small(server_extra: &str, tail: &str) -> String {
    format!(
        r#"name = "interface-memory-small"
seed = 2
[run]
warmup = "0s"
duration = "20s"
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
{server_extra}
[server.network]
name = "ports"
bandwidth = "13.8MB/s"
[disk.model]
name = "analytic"
capacity = "1GiB"
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
{tail}"#
    )
}

fn admission(dir: &std::path::Path) -> Value {
    let s: Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    s["admission"].clone()
}

#[test]
fn issue30_buffer_admission_takes_b_i_tot_from_interface_memory() {
    let tmp = tempfile::tempdir().unwrap();
    // eq. 4 is strict: 3 × 128 KiB = 384 KiB < 500 KiB, a fourth (512 KiB) is not
    let out = run_text(
        tmp.path(),
        "declared",
        &small(
            "interface_memory = \"500KiB\"",
            "[admission]\nname = \"buffer\"\n",
        ),
    );
    let a = admission(&out);
    assert_eq!(a["admitted"], 3, "{a}");
    assert_eq!(a["refused_by_reason"]["buffer space"], 5, "{a}");
    // the policy's own total wins over the declared memory
    let out = run_text(
        tmp.path(),
        "total",
        &small(
            "interface_memory = \"500KiB\"",
            "[admission]\nname = \"buffer\"\ntotal = \"300KiB\"\n",
        ),
    );
    assert_eq!(admission(&out)["admitted"], 2);
    // a fixed load that fits: 8 × 128 KiB = 1 MiB
    run_text(
        tmp.path(),
        "fits",
        &small("interface_memory = \"1MiB\"", ""),
    );
}

#[test]
fn issue30_interface_memory_bad_input_names_the_key() {
    refused(
        &small("interface_memory = \"1000KiB\"", ""),
        &[
            "server.interface_memory",
            "8 streams one interface node serves",
            "8 × terminals.memory 128KiB = 1MiB",
            "[admission]",
        ],
    );
    refused(
        &small(
            "interface_memory = \"100KiB\"",
            "[admission]\nname = \"buffer\"\n",
        ),
        &["server.interface_memory", "one stream's buffer", "128KiB"],
    );
    refused(
        &small("interface_memory = \"1MiB\"", "").replace("interface_nodes = 1\n", ""),
        &["server.interface_memory", "server.interface_nodes"],
    );
    refused(
        &small("interface_memory = \"lots\"", ""),
        &["interface_memory"],
    );
}

#[test]
fn issue30_interface_memory_binds_every_policy_during_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    // 5 s objects over 20 s: streams end and their viewers start again, so the memory is
    // taken and given back as the run goes
    let short =
        |extra: &str, tail: &str| small(extra, tail).replace("length = \"30s\"", "length = \"5s\"");
    for (label, policy) in [
        ("accept-all", "[admission]\nname = \"accept-all\"\n"),
        // a policy that would admit more than the node holds: 1 MiB against 500 KiB
        (
            "buffer-1mib",
            "[admission]\nname = \"buffer\"\ntotal = \"1MiB\"\n",
        ),
        ("retrieval", "[admission]\nname = \"retrieval\"\n"),
    ] {
        let out = run_text(
            tmp.path(),
            label,
            &short("interface_memory = \"500KiB\"", policy),
        );
        let a = admission(&out);
        // never more than 3 × 128 KiB buffers on the node at once …
        assert_eq!(a["active_streams_peak"], 3, "{label}: {a}");
        // … and what was refused was refused for that memory
        let refused = a["refused"].as_u64().unwrap();
        assert!(refused > 0, "{label}: {a}");
        assert_eq!(
            a["refused_by_reason"]["interface_memory"], refused,
            "{label}: {a}"
        );
        // the memory of ended streams is given back: more streams than fit at once
        assert!(a["admitted"].as_u64().unwrap() > 3, "{label}: {a}");
    }
    // without the declared memory the same load is admitted whole
    let out = run_text(
        tmp.path(),
        "undeclared",
        &small("", "[admission]\nname = \"accept-all\"\n")
            .replace("length = \"30s\"", "length = \"5s\""),
    );
    assert_eq!(admission(&out)["refused"], 0);
}
