//! Transmission scheduling and client profiles (issue 31, Deliver 2 and 3; Pappas et al.
//! §2.3, §3.2): runs of small scenarios with `[transmission]`, `[server.egress]` and
//! `[[clients.profile]]` — rate-controlled EDF paces every client within a subround with no
//! loss, FIFO blocks arrive in bursts, a client's socket buffer smaller than the packets
//! loses them all, a lost packet costs its client's CPU, a timer-paced sender's ticks arrive
//! as bursts, runs repeat byte for byte — and bad input named by its key.

mod common;
use common::{run_text as run, text, vodbench};
use serde_json::Value;
use std::path::Path;

/// A small server: `n` clients of 1.5 Mbit/s from memory, a 122 Mbit/s egress, `policy` (the
/// `[transmission]` table's body) and `profile` (the `[[clients.profile]]` table's body).
fn scenario(n: u32, policy: &str, profile: &str) -> String {
    format!(
        r#"
name = "tx"
seed = 3
[run]
warmup = "5s"
duration = "10s"
[videos]
count = 2
length = "30s"
bit_rate = "1.5Mbit/s"
frames = "cbr"
[server]
nodes = 1
disks_per_node = 2
memory_per_node = "32MiB"
stripe = "192KiB"
[server.cpu]
start_io = 0
send = 0
receive = 0
[server.network]
latency = "0s"
per_byte = "0s"
[server.egress]
rate = "122Mbit/s"
cpu_per_packet = "50us"
cpu_ns_per_byte = 62.19
[disk.model]
name = "linear"
access = "100us"
per_block = "0s"
[transmission]
{policy}
[terminals]
count = {n}
memory = "384KiB"
[workload.generate]
popularity = "uniform"
start_spread = "2s"
[[clients.profile]]
{profile}
"#
    )
}

const SPARC20: &str = r#"name = "sparc20"
link = "155Mbit/s"
max_rate = "155Mbit/s"
rx_queue = "64KiB"
rx_cpu_per_packet = "200us"
rx_cpu_ns_per_byte = 40.0"#;

fn summary(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn rate_edf_paces_every_client_within_a_subround_without_loss() {
    let dir = tempfile::tempdir().unwrap();
    let policy = "name = \"rate-edf\"\npacket = \"48KiB\"\nsubround = \"100ms\"";
    let out = run(dir.path(), "rate", &scenario(20, policy, SPARC20));
    let s = summary(&out);
    let t = &s["transmission"];
    assert_eq!(t["policy"], "rate-edf");
    assert_eq!(t["client_packets_lost"], 0);
    assert_eq!(s["glitches"]["count"], 0);
    // 20 clients of 1.5 Mbit/s: 30 Mbit/s through the egress, within 2 %
    let thr = t["throughput_bps"].as_f64().unwrap();
    assert!((thr - 30e6).abs() < 0.02 * 30e6, "{thr}");
    // a packet is sent at most one subround before its deadline, and its trip (egress,
    // access link, receive CPU) takes well under 10 ms: every client's jitter is below
    // 110 ms
    let csv = std::fs::read_to_string(out.join("clients.csv")).unwrap();
    assert_eq!(csv.lines().count(), 21, "{csv}");
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[col("profile")], "sparc20");
        assert_eq!(f[col("packets_lost")], "0");
        let max: u64 = f[col("jitter_max_ns")].parse().unwrap();
        assert!(max < 110_000_000, "{line}");
    }
    // the summary's monitored client is the table's terminal 0
    assert_eq!(t["monitored"]["terminal"], 0);
}

#[test]
fn fifo_blocks_arrive_in_bursts_that_rate_edf_smooths() {
    let dir = tempfile::tempdir().unwrap();
    let jitter = |name: &str, policy: &str| {
        let out = run(dir.path(), name, &scenario(5, policy, SPARC20));
        summary(&out)["transmission"]["jitter_mean_ns"]
            .as_u64()
            .unwrap()
    };
    let fifo = jitter("fifo", "name = \"fifo-blocks\"\npacket = \"48KiB\"");
    let rate = jitter(
        "rate",
        "name = \"rate-edf\"\npacket = \"48KiB\"\nsubround = \"100ms\"",
    );
    // a whole block (4 packets) at once, once a block time (1.05 s), against a packet per
    // subround near its deadline
    assert!(fifo > 5 * rate, "fifo {fifo} ns, rate-edf {rate} ns");
}

/// The Sparc-20 receiving at what P7 measured for it sending (`scenarios/pappas/
/// clients-fig1-7.toml`): 50 µs + 79.24 ns/B, so 50 + 49152 × 0.07924 = 3944.8 µs per 48 KiB
/// packet.
const SPARC20_P7: &str = r#"name = "sparc20"
link = "155Mbit/s"
max_rate = "155Mbit/s"
rx_queue = "64KiB"
rx_cpu_per_packet = "50us"
rx_cpu_ns_per_byte = 79.24"#;

/// P9 by hand: FIFO blocks send a block's 48 KiB packets back to back, one every
/// 49152 × 8 / 122 Mbit/s = 3223.1 µs (the egress CPU, 50 µs + 49152 × 62.19 ns =
/// 3106.8 µs, is faster; the client's 155 Mbit/s link too). The first packet fills 48 KiB of
/// the 64 KiB socket buffer for 3944.8 µs, so the second finds 16 KiB free and is lost; the
/// third arrives 6446 µs after the first, the buffer empty again; the fourth is lost: every
/// other packet, exactly half. Rate-EDF sends one packet per 100 ms subround and loses none.
#[test]
fn a_client_slower_than_the_egress_loses_every_other_packet_of_a_fifo_burst() {
    let dir = tempfile::tempdir().unwrap();
    let t = |name: &str, policy: &str| {
        let out = run(dir.path(), name, &scenario(1, policy, SPARC20_P7));
        summary(&out)["transmission"].clone()
    };
    let fifo = t("fifo", "name = \"fifo-blocks\"\npacket = \"48KiB\"");
    let sent = fifo["client_packets"].as_u64().unwrap();
    assert!(sent >= 30, "{fifo}");
    assert_eq!(
        fifo["client_packets_lost"].as_u64().unwrap() * 2,
        sent,
        "{fifo}"
    );
    let rate = t(
        "rate",
        "name = \"rate-edf\"\npacket = \"48KiB\"\nsubround = \"100ms\"",
    );
    assert_eq!(rate["client_packets_lost"], 0, "{rate}");
    assert!(rate["client_packets"].as_u64().unwrap() >= 30, "{rate}");
}

/// A lost packet is received, then dropped (`lost_packet_cpu`, default "full"): in the FIFO
/// burst above the client loses every other packet either way, but by default the lost
/// ones cost its CPU as much as the received ones, so its receive share doubles.
#[test]
fn a_lost_packet_costs_the_client_cpu_unless_its_profile_says_none() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = "name = \"fifo-blocks\"\npacket = \"48KiB\"";
    let t = |name: &str, profile: &str| {
        let out = run(dir.path(), name, &scenario(1, fifo, profile));
        summary(&out)["transmission"]["monitored"].clone()
    };
    let full = t("full", SPARC20_P7);
    let none = t("none", &format!("{SPARC20_P7}\nlost_packet_cpu = \"none\""));
    assert_eq!(full["packets"], none["packets"]);
    assert_eq!(full["packets_lost"], none["packets_lost"]);
    let sent = full["packets"].as_u64().unwrap();
    assert_eq!(full["packets_lost"].as_u64().unwrap() * 2, sent, "{full}");
    let (f, n) = (
        full["rx_cpu_ratio"].as_f64().unwrap(),
        none["rx_cpu_ratio"].as_f64().unwrap(),
    );
    // each received packet costs 3944.8 µs; each lost one as much, or nothing
    let per_packet = 50e-6 + 49152.0 * 79.24e-9;
    let expected = per_packet * sent as f64 / 2.0 / 10.0;
    assert!((n / expected - 1.0).abs() < 0.05, "{n} vs {expected}");
    assert!((f / n - 2.0).abs() < 0.05, "full {f} none {n}");
}

/// The timer-paced sender (`rate-edf` woken once per `subround`, sending every packet due
/// before the next tick back to back): a slow PC (8 KiB socket buffer, 400 µs + 800 ns/B =
/// 6.954 ms of CPU per 8 KiB packet behind a 10 Mbit/s link, 6.554 ms per packet) at
/// 1.5 Mbit/s is due 8 KiB every 43.7 ms, so a 100 µs tick sends one packet at a time and
/// nothing is lost, while a 100 ms tick sends 18.75 KB at once, 2 or 3 packets back to
/// back: the second arrives while the first still fills the buffer and is lost (its receive
/// work keeps the CPU busy to 13.9 ms); the third, at 13.1 ms, finds the buffer empty. One
/// lost per tick: 8192 / 18750 of the packets.
#[test]
fn a_timer_paced_sender_sends_each_ticks_bytes_at_once_and_a_slow_client_loses_them() {
    let dir = tempfile::tempdir().unwrap();
    let pc = r#"name = "pc-slow"
link = "10Mbit/s"
max_rate = "10Mbit/s"
rx_queue = "8KiB"
rx_cpu_per_packet = "400us"
rx_cpu_ns_per_byte = 800.0"#;
    let t = |name: &str, tick: &str| {
        let policy = format!("name = \"rate-edf\"\npacket = \"8KiB\"\nsubround = \"{tick}\"");
        let out = run(dir.path(), name, &scenario(1, &policy, pc));
        summary(&out)["transmission"]["monitored"].clone()
    };
    let smooth = t("smooth", "100us");
    assert_eq!(smooth["packets_lost"], 0, "{smooth}");
    let timer = t("timer", "100ms");
    let (sent, lost) = (
        timer["packets"].as_u64().unwrap(),
        timer["packets_lost"].as_u64().unwrap(),
    );
    // 18.75 KB per tick: 2.29 packets on average, one of each tick lost
    let per_tick = 1.5e6 * 0.1 / 8.0 / 8192.0;
    let expected = 1.0 / per_tick;
    let ratio = lost as f64 / sent as f64;
    assert!(
        (ratio - expected).abs() < 0.06,
        "{ratio} vs {expected}: {timer}"
    );
    // the same bytes arrive (received or lost) either way
    assert!(sent.abs_diff(smooth["packets"].as_u64().unwrap()) <= 3);
}

#[test]
fn a_socket_buffer_smaller_than_the_packets_loses_every_packet() {
    let dir = tempfile::tempdir().unwrap();
    let small = SPARC20.replace("\"64KiB\"", "\"16KiB\"");
    let out = run(
        dir.path(),
        "small",
        &scenario(2, "name = \"edf\"\npacket = \"48KiB\"", &small),
    );
    let t = &summary(&out)["transmission"];
    let sent = t["client_packets"].as_u64().unwrap();
    assert!(sent > 0);
    assert_eq!(t["client_packets_lost"].as_u64().unwrap(), sent);
    assert_eq!(t["loss_ratio"], 1.0);
    assert_eq!(t["goodput_mean_bps"], 0.0);
}

#[test]
fn runs_with_transmission_repeat_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let text_ = scenario(8, "name = \"edf\"\npacket = \"16KiB\"", SPARC20);
    let a = run(dir.path(), "a", &text_);
    let b = run(dir.path(), "b", &text_);
    common::assert_same_files(&a, &b, &["summary.json", "clients.csv"], "between two runs");
}

#[test]
fn bad_transmission_and_client_input_is_named_by_its_key() {
    let ok = scenario(2, "name = \"edf\"", SPARC20);
    // a client rate above its access link
    common::refused(
        &ok.replace("max_rate = \"155Mbit/s\"", "max_rate = \"200Mbit/s\""),
        &["clients.profile[0].max_rate", "access link"],
    );
    // a subround outside its range
    common::refused(
        &scenario(2, "name = \"rate-edf\"\nsubround = \"1us\"", SPARC20),
        &["subround", "100us"],
    );
    // a policy that does not exist: the allowed ones listed
    common::refused(
        &scenario(2, "name = \"lifo\"", SPARC20),
        &["transmission", "fifo-blocks", "rate-edf"],
    );
    // a transmission policy without the egress link it sends on
    let no_egress = ok.replace(
        "[server.egress]\nrate = \"122Mbit/s\"\ncpu_per_packet = \"50us\"\ncpu_ns_per_byte = 62.19\n",
        "",
    );
    assert_ne!(no_egress, ok);
    common::refused(&no_egress, &["transmission", "[server.egress]"]);
    // a packet larger than 64 KiB
    common::refused(
        &scenario(2, "name = \"fifo-blocks\"\npacket = \"1MiB\"", SPARC20),
        &["packet", "64KiB"],
    );
    // what a lost packet costs: only "full" or "none"
    common::refused(
        &ok.replace("rx_queue = ", "lost_packet_cpu = \"half\"\nrx_queue = "),
        &["lost_packet_cpu", "full", "none"],
    );
    // an unknown profile key
    common::refused(
        &ok.replace("rx_queue = ", "rx_buffer = \"1KiB\"\nrx_queue = "),
        &["rx_buffer"],
    );
}

#[test]
fn the_monitored_client_is_sampled_as_clients_are_inserted() {
    let dir = tempfile::tempdir().unwrap();
    // clients 0, 1, 2 start at 0, 4 and 8 s; a sample every 2 s over 12 s
    std::fs::write(
        dir.path().join("insert.trace"),
        "# vodbench-trace v1\n# terminals=3 videos=2\n0 0 start 0 0\n4 1 start 1 0\n8 2 start 0 0\n",
    )
    .unwrap();
    let text_ = scenario(3, "name = \"rate-edf\"\nsubround = \"50ms\"", SPARC20)
        .replace(
            "[workload.generate]\npopularity = \"uniform\"\nstart_spread = \"2s\"",
            "[workload]\ntrace = \"insert.trace\"",
        )
        .replace(
            "warmup = \"5s\"\nduration = \"10s\"",
            "warmup = \"0s\"\nduration = \"12s\"\nsample_interval = \"2s\"",
        );
    let out = run(dir.path(), "insert", &text_);
    let csv = std::fs::read_to_string(out.join("monitored.csv")).unwrap();
    let rows: Vec<Vec<u64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert!(
        csv.starts_with("time_ns,clients,goodput_bps,packets,packets_lost,"),
        "{csv}"
    );
    // samples at 2, 4, …, 10 s (the one at the end of the period is not taken)
    assert!(rows.len() >= 5, "{csv}");
    assert_eq!(rows[0][0], 2_000_000_000);
    let clients: Vec<u64> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(clients[..5], [1, 1, 2, 2, 3], "{csv}");
    // the report draws them against the clients started
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Arrival rate at the monitored client"));
    assert!(html.contains("Jitter at the monitored client"));
    // the monitored client gets about its rate in every interval, in whole 48 KiB packets
    // (a 2 s interval holds 7.6 of them at 1.5 Mbit/s), and loses none
    for r in &rows {
        assert_eq!(r[4], 0, "{csv}");
        assert_eq!(r[2], r[3] * 48 * 1024 * 8 / 2, "{csv}");
        assert!((5..=9).contains(&r[3]), "{csv}");
    }
}

#[test]
fn a_search_counts_lost_packets_as_failures() {
    let dir = tempfile::tempdir().unwrap();
    // FIFO blocks of four 48 KiB packets, 3.2 ms apart on the 122 Mbit/s egress, to a client
    // that takes 5 ms per packet and holds one: half of every block is lost, without a glitch
    let slow = SPARC20.replace(
        "rx_cpu_per_packet = \"200us\"",
        "rx_cpu_per_packet = \"3ms\"",
    );
    let search = |name: &str, policy: &str, profile: &str| -> Value {
        let file = dir.path().join(format!("{name}.toml"));
        std::fs::write(&file, scenario(8, policy, profile)).unwrap();
        let out = dir.path().join(name);
        let o = vodbench(&[
            "search",
            file.to_str().unwrap(),
            "--seeds",
            "3",
            "--max-terminals",
            "40",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{name}: {:?}", text(&o));
        serde_json::from_slice(&std::fs::read(out.join("search.json")).unwrap()).unwrap()
    };
    let fifo = "name = \"fifo-blocks\"\npacket = \"48KiB\"";
    let lossy = search("lossy", fifo, &slow);
    let fine = search("fine", fifo, SPARC20);
    let max = |v: &Value| v["max_terminals"].as_f64().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(max(&lossy), 0.0, "{lossy}");
    // 40 clients of 1.5 Mbit/s fit the egress: the search reaches its limit
    assert_eq!(max(&fine), 40.0, "{fine}");
    // the answer says what counted as a failure
    assert_eq!(fine["failures"], "glitches or lost packets");
}
