//! Issue 30, item 3: the delay of every fragment request split into Jadav et al.'s components
//! (`[run] request_delays = true`). The components are parts of the round trip that never
//! overlap, so over any scenario the means add up to the mean round trip (N_Q, the
//! remainder, is never cut at zero); on an idle network with one stream the fixed parts are
//! what the interconnect and the disk give by hand; the summary, `delays.csv` and the
//! reports carry them; without the key nothing changes.

mod common;

use proptest::prelude::*;
use vodbench_harness::results::{DelayStat, RequestDelays};
use vodbench_harness::system::ondemand::runner;
use vodbench_harness::system::ondemand::scenario::Scenario;

fn delays(text: &str) -> (RequestDelays, u64) {
    let registry = vodbench_plugins::registry();
    let s = Scenario::parse(text, std::path::Path::new("delays.toml"), &registry)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let (r, _) = runner::run(&s, &mut |_, _| {}).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (
        r.summary.request_delays.expect("asked for"),
        r.summary.disks.demand_requests,
    )
}

fn scenario(
    terminals: u32,
    stripe: &str,
    network: &str,
    scheduler: &str,
    prefetch: &str,
) -> String {
    format!(
        r#"seed = 3
[run]
warmup = "5s"
duration = "20s"
request_delays = true
[videos]
count = 6
length = "1min"
bit_rate = "4Mbit/s"
[server]
nodes = 2
disks_per_node = 2
memory_per_node = "4MiB"
stripe = "{stripe}"
{network}
[disk.model]
name = "analytic"
spec = "st15150n"
[disk.scheduler]
name = "{scheduler}"
[prefetcher]
name = "{prefetch}"
[terminals]
count = {terminals}
memory = "2MiB"
[workload.generate]
start_spread = "5s"
pauses_per_video = 1.0
pause_mean = "2s"
seeks_per_video = 1.0
seek_mean = "10s"
"#
    )
}

fn check_sums(d: &RequestDelays, what: &str) {
    let parts = [d.n_c, d.d_t, d.d_s, d.d_r, d.n_q, d.s_q];
    let sum: u64 = parts.iter().map(|p| p.mean_ns).sum();
    // each mean is rounded down: the sum may fall short of R_tot's by under one ns a part,
    // and exceeds it only if a remainder N_Q was cut at zero
    assert!(
        sum <= d.r_tot.mean_ns && d.r_tot.mean_ns - sum < 7,
        "{what}: Σ means {sum} vs R_tot {}",
        d.r_tot.mean_ns
    );
    let all = |f: fn(&DelayStat) -> bool| parts.iter().chain([&d.r_tot]).all(f);
    assert!(
        all(|p| p.mean_ns <= p.p99_ns.max(p.mean_ns)
            && p.p99_ns <= p.p999_ns
            && p.p999_ns <= p.max_ns),
        "{what}: {d:?}"
    );
    assert!(
        parts.iter().all(|p| p.max_ns <= d.r_tot.max_ns),
        "{what}: {d:?}"
    );
    assert_eq!(
        d.sum_of_max_ns,
        parts.iter().map(|p| p.max_ns).sum::<u64>(),
        "{what}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn the_components_add_up_to_the_round_trip_in_any_scenario(
        terminals in 1u32..24,
        stripe in prop::sample::select(vec!["64KiB", "256KiB", "512KiB"]),
        network in prop::sample::select(vec![
            "",
            "[server.network]\nname = \"ports\"\nbandwidth = \"3MB/s\"\nsend_cost = \"20us\"\n",
            "[server.network]\nname = \"mesh2d\"\nbandwidth = \"2MB/s\"\nrows = 1\nreceive_cost = \"30us\"\n",
        ]),
        scheduler in prop::sample::select(vec!["elevator", "edf", "fcfs"]),
        prefetch in prop::sample::select(vec!["none", "standard"]),
    ) {
        let text = scenario(terminals, stripe, network, scheduler, prefetch);
        let (d, demand) = delays(&text);
        check_sums(&d, &text);
        // only requests served by their own disk access are decomposed: no more than the
        // disks' demand accesses, give or take those in flight when the window opened (a
        // request counts when its data arrives, an access when it starts; at most 2 MiB /
        // 64 KiB = 32 per terminal)
        prop_assert!(
            d.requests <= demand + u64::from(terminals) * 32,
            "{} of {demand}",
            d.requests
        );
        if prefetch == "none" {
            prop_assert!(d.requests > 0);
        }
    }
}

/// One stream on an idle `ports` network with a `uniform`-latency disk: N_C is exactly the
/// two messages' times by hand, D_T the block over the transfer rate, S_Q zero.
#[test]
fn one_stream_on_an_idle_network_has_the_fixed_parts_by_hand() {
    let text = scenario(
        1,
        "64KiB",
        "[server.network]\nname = \"ports\"\nbandwidth = \"10MB/s\"\nper_message = \"0s\"\n\
         send_cost = \"50us\"\nreceive_cost = \"50us\"\nrequest_bytes = \"1000B\"\n",
        "edf",
        "none",
    )
    .replace(
        "spec = \"st15150n\"",
        "spec = \"st15150n\"\ntransfer_rate = 8000000\nrotational_latency = \"uniform\"",
    )
    .replace("pauses_per_video = 1.0", "pauses_per_video = 0.0")
    .replace("seeks_per_video = 1.0", "seeks_per_video = 0.0");
    let (d, _) = delays(&text);
    check_sums(&d, &text);
    // the request (1000 B) and the block (64 KiB) at 10 MB/s, each with 50 µs at both ends
    let n_c = 1000 * 100 + 65_536 * 100 + 4 * 50_000;
    assert_eq!((d.n_c.mean_ns, d.n_c.max_ns), (n_c, n_c), "{d:?}");
    let d_t = 65_536u64 * 1_000_000_000 / 8_000_000;
    assert_eq!((d.d_t.mean_ns, d.d_t.max_ns), (d_t, d_t), "{d:?}");
    assert_eq!(d.s_q.max_ns, 0, "one stream never queues: {d:?}");
    assert!(d.requests > 50, "{d:?}");
}

/// The outputs: `summary.json`'s `request_delays`, `delays.csv` and a chart in the run's
/// report, and in a sweep run's report the components stacked against the points; without
/// the key, neither.
#[test]
fn the_summary_the_table_and_the_reports_carry_them() {
    let tmp = tempfile::tempdir().unwrap();
    let base =
        std::fs::read_to_string(common::root().join("tests/fixtures/sweep_small.toml")).unwrap();
    let on = base.replace(
        "duration = \"30s\"",
        "duration = \"30s\"\nrequest_delays = true",
    );
    assert_ne!(on, base);
    std::fs::write(tmp.path().join("on.toml"), &on).unwrap();
    let out = tmp.path().join("out");
    let o = common::vodbench(&[
        "run",
        tmp.path().join("on.toml").to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", common::text(&o));
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        report.contains("Mean delay components per point"),
        "sweep run report"
    );
    assert!(report.contains("Maximum delay components per point"));
    let point = out.join("points").join(
        std::fs::read_dir(out.join("points"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .min()
            .unwrap(),
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(point.join("summary.json")).unwrap()).unwrap();
    assert!(
        summary["request_delays"]["r_tot"]["p999_ns"]
            .as_u64()
            .unwrap()
            > 0
    );
    let csv = std::fs::read_to_string(point.join("delays.csv")).unwrap();
    assert!(
        csv.starts_with("component,mean_ns,max_ns,p99_ns,p999_ns\nn_c,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 8, "{csv}");
    let report = std::fs::read_to_string(point.join("report.html")).unwrap();
    assert!(report.contains("Delay components per fragment request"));
    // off by default: no section, no table, no chart
    let off = tmp.path().join("off");
    let o = common::vodbench(&[
        "run",
        "tests/fixtures/tiny.toml",
        "--quiet",
        "--out",
        off.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", common::text(&o));
    let summary = std::fs::read_to_string(off.join("summary.json")).unwrap();
    assert!(!summary.contains("request_delays"));
    assert!(!off.join("delays.csv").exists());
}
