//! Jadav et al. §3.2 and §7.1 (issue 30, deliverable 1's "memory per role"): the storage
//! nodes' memory is `[server] memory_per_node` (their buffer pools), each stream's buffer
//! B_I is `terminals.memory`, and each interface node's memory for those buffers, B_I_tot,
//! is `[server] interface_memory`. The `buffer` admission policy (eq. 4) takes it as B_I_tot
//! when its own `total` is not given; a fixed load (no `[admission]`) whose buffers do not
//! fit one interface node's memory is refused with the key and the numbers.

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
