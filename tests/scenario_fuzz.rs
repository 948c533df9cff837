//! Random scenarios, most of them valid and some with a value out of range, of the wrong type
//! or malformed, over every registered plugin of every kind (disk models, schedulers, buffer
//! pools, prefetchers, layouts, interconnects, admission policies; for broadcast, schedules,
//! client buffers and disks) and their parameters, with pauses, seeks, searches, piggybacking and a `terminals.prime`,
//! generated or replayed from a trace of any events in any order.
//! Whatever the file says, vodbench must either reject it with an error naming the file, or
//! — once `vodbench check`'s checks pass — run it to the end: never a panic, never a run that
//! fails after the checks accepted it, and the same results twice. The simulations are small
//! (a few disks, at most 30 terminals, at most a few simulated minutes).
//!
//! The same for broadcast scenarios (Waldvogel et al.): random movies, schedules, client
//! buffers, caches and disks; a run must play every frame of every receiver once.
//!
//! This test found a terminal that primed less than its first frame and stopped simulated
//! time (`tests/priming.rs`), layouts and client buffers that `check` accepted but could not
//! be built (`tests/fixtures/bad/layout-too-big.toml`, `broadcast-kappa-over-cache.toml`),
//! and a broadcast receiver that never left an instant (`plugins/tests/
//! broadcast_conformance.rs`).

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::panic::{catch_unwind, AssertUnwindSafe};
use vodbench_harness::plugin::{Kind, Registry};
use vodbench_harness::system::broadcast::{run_suite, BroadcastError, BroadcastSuite};
use vodbench_harness::system::ondemand::runner;
use vodbench_harness::system::ondemand::scenario::Scenario;
use vodbench_harness::system::ondemand::simulate;

/// Values that are out of range, of the wrong type or malformed for most keys.
const ODD: &[&str] = &[
    "0",
    "-1",
    "4294967296",
    "18446744073709551615",
    "1e308",
    "nan",
    "inf",
    "\"\"",
    "\"0s\"",
    "\"-1s\"",
    "\"1ns\"",
    "\"100000h\"",
    "\"0B\"",
    "\"1e30GiB\"",
    "\"abc\"",
    "true",
    "[]",
    "{}",
    "\"18446744073709551616ns\"",
    "\"-5%\"",
    "\"150%\"",
];

/// Builds a scenario's text from `seed`: each value is a plausible one, or with a small
/// probability one of [`ODD`].
struct Gen {
    rng: Xoshiro256PlusPlus,
    lines: Vec<String>,
    registry: Registry,
}

/// Plausible values (as TOML) of the built-in plugins' parameters: what the generator knows
/// of them beyond their types. A registered plugin or parameter not listed here gets values
/// from its type ([`by_type`]), so a new plugin is fuzzed as soon as it is registered.
const KNOWN: &[(&str, &str, &[&str])] = &[
    (
        "analytic",
        "capacity",
        &["\"100MiB\"", "\"1GiB\"", "\"7.5GiB\"", "\"100GiB\""],
    ),
    (
        "analytic",
        "rotational_latency",
        &["\"position\"", "\"uniform\""],
    ),
    ("analytic", "seek_factor_ms", &["0.0", "0.283", "10"]),
    (
        "analytic",
        "transfer_rate",
        &["1000000", "7400000", "10000000000"],
    ),
    ("analytic", "rotation", &["\"0s\"", "\"8.333ms\"", "\"1s\""]),
    (
        "analytic",
        "cylinder_bytes",
        &["\"512B\"", "\"1.25MiB\"", "\"1GiB\""],
    ),
    ("analytic", "settle", &["\"0s\"", "\"0.75ms\"", "\"1s\""]),
    ("analytic", "overhead", &["\"0s\"", "\"1ms\""]),
    (
        "analytic",
        "track_switch",
        &["\"0s\"", "\"0.75ms\"", "\"2s\""],
    ),
    ("analytic", "spec", &["\"st15150n\""]),
    ("linear", "access", &["\"0s\"", "\"10ms\"", "\"1s\""]),
    ("linear", "per_block", &["\"0s\"", "\"2ms\""]),
    ("linear", "block", &["\"1B\"", "\"4KiB\"", "\"1MiB\""]),
    ("linear", "capacity", &["\"1MiB\"", "\"1TiB\""]),
    (
        "mechanical",
        "spec",
        &[
            "\"barracuda\"",
            "\"cheetah9LP\"",
            "\"hp_c2247a\"",
            "\"st15150n\"",
        ],
    ),
    ("gss", "groups", &["1", "2", "3", "7", "40", "1000000"]),
    ("real-time", "classes", &["1", "2", "3", "64"]),
    (
        "real-time",
        "spacing",
        &["\"1ns\"", "\"100ms\"", "\"4s\"", "\"1h\""],
    ),
    ("scan-edf", "bucket", &["\"1ns\"", "\"1s\"", "\"1h\""]),
    (
        "delayed",
        "max_advance",
        &["\"1ns\"", "\"1s\"", "\"8s\"", "\"1h\""],
    ),
    ("ideal", "latency", &["\"0s\"", "\"5us\"", "\"1ms\""]),
    ("ideal", "per_byte", &["\"0ns\"", "\"40ns\"", "\"1us\""]),
    (
        "ports",
        "bandwidth",
        &["\"1MB/s\"", "\"25MB/s\"", "\"1GB/s\""],
    ),
    ("ports", "per_message", &["\"0s\"", "\"5us\"", "\"1ms\""]),
    ("static-limit", "max_streams", &["1", "3", "30"]),
    ("chunked", "chunk", &["1", "2", "11", "1000"]),
    ("chunked", "delta_a", &["0.0", "0.05", "1.0", "2.0"]),
    ("chunked", "delta_d", &["0.0", "0.5", "1.0"]),
    ("fuzzycast", "max_shift", &["0.0", "0.1", "1.0", "5.0"]),
    ("fuzzycast", "peak", &["1", "2", "5", "1000"]),
    ("mcs", "kappa", &["\"2.5%\"", "\"50%\"", "1", "2", "1000"]),
    ("mdp", "kappa", &["\"2.5%\"", "\"50%\"", "1", "2", "1000"]),
    ("radix-heap", "block", &["\"25%\"", "1", "\"100%\""]),
];

/// Values for a parameter of type `ty` (as `vodbench plugins` names it), as TOML; none for
/// a free-form string (a file name, say), which keeps its default.
fn by_type(ty: &str) -> Vec<String> {
    let ty = ty.strip_suffix(" or null").unwrap_or(ty);
    let v: &[&str] = match ty {
        "integer" => &["1", "2", "3", "8", "64"],
        "number" => &["0.0", "0.5", "1.0", "10.0"],
        "boolean" => &["true", "false"],
        "a duration" => &["\"1ms\"", "\"1s\"", "\"4s\"", "\"1h\""],
        "a size" => &["\"4KiB\"", "\"1MiB\"", "\"1GiB\""],
        "a bandwidth" => &["\"1MB/s\"", "\"25MB/s\"", "\"1GB/s\""],
        "a bit rate" => &["\"64kbit/s\"", "\"4Mbit/s\""],
        t if t.starts_with("a count") => &["1", "2", "\"2.5%\"", "\"50%\""],
        t if t.starts_with('"') => {
            return t.split(" | ").map(str::to_string).collect();
        }
        _ => &[],
    };
    v.iter().map(|x| x.to_string()).collect()
}

impl Gen {
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.rng.random_range(0..xs.len())]
    }
    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }
    fn table(&mut self, name: &str) {
        self.lines.push(format!("[{name}]"));
    }
    /// `key = value`, the value replaced by an odd one now and then.
    fn set(&mut self, key: &str, value: String) {
        let value = if self.chance(0.01) {
            self.pick(ODD).to_string()
        } else {
            value
        };
        self.lines.push(format!("{key} = {value}"));
    }
    /// `key = "one of xs"`, with probability `p`.
    fn maybe(&mut self, p: f64, key: &str, xs: &[&str]) {
        if self.chance(p) {
            let v = format!("\"{}\"", self.pick(xs));
            self.set(key, v);
        }
    }
    /// The table `key` choosing a plugin of `kind`: one of those registered, and each of its
    /// parameters with probability 0.4 (always when it is required), from [`KNOWN`] or its
    /// type.
    fn plugin(&mut self, kind: Kind, key: &str) {
        self.table(key);
        let infos = self.registry.infos(kind);
        let info = &infos[self.rng.random_range(0..infos.len())];
        self.set("name", format!("\"{}\"", info.name));
        for p in info.params() {
            let known: Vec<String> = KNOWN
                .iter()
                .filter(|(n, k, _)| *n == info.name && *k == p.name)
                .flat_map(|(_, _, v)| v.iter().map(|x| x.to_string()))
                .collect();
            let values = if known.is_empty() {
                by_type(&p.ty)
            } else {
                known
            };
            if values.is_empty() || !(p.required || self.chance(0.4)) {
                continue;
            }
            let v = values[self.rng.random_range(0..values.len())].clone();
            self.set(&p.name, v);
        }
    }
    /// `key = one of xs` (written as is), with probability `p`.
    fn maybe_raw(&mut self, p: f64, key: &str, xs: &[&str]) {
        if self.chance(p) {
            let v = self.pick(xs).to_string();
            self.set(key, v);
        }
    }
}

/// A random scenario file, and the trace file it replays, if it does.
#[derive(Clone)]
struct Files {
    scenario: String,
    trace: Option<String>,
}

fn random_scenario(seed: u64) -> Files {
    let mut g = Gen {
        rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        lines: vec!["name = \"fuzz\"".into()],
        registry: vodbench_plugins::registry(),
    };
    let s = g.rng.random::<u64>();
    g.set("seed", s.to_string());
    g.table("run");
    g.maybe_raw(0.5, "warmup", &["\"auto\"", "\"0s\"", "\"5s\"", "\"30s\""]);
    g.maybe(1.0, "duration", &["5s", "20s", "1min"]);
    g.maybe(0.2, "sample_interval", &["1ms", "100ms", "1s", "1h"]);
    g.maybe_raw(0.2, "request_sample_every", &["0", "1", "16"]);

    // a generated workload's popularity, drawn here: a video of its own for every start
    // (`distinct`, `hotspot`) needs more videos
    let popularity = g
        .chance(0.8)
        .then(|| g.pick(&["zipf", "zipf", "uniform", "uniform", "distinct", "hotspot"]));
    g.table("videos");
    let count = if matches!(popularity, Some("distinct" | "hotspot")) {
        g.rng.random_range(40..=120u32)
    } else {
        g.rng.random_range(1..=12u32)
    };
    g.set("count", count.to_string());
    let length_s = [1u64, 3, 10, 30, 60, 180][g.rng.random_range(0..6)];
    g.set("length", format!("\"{length_s}s\""));
    // 4 KiB stripes only with low bit rates, so that the runs stay small
    let tiny_stripe = g.chance(0.1);
    let rates: &[&str] = if tiny_stripe {
        &["64kbit/s", "256kbit/s"]
    } else {
        &["64kbit/s", "1Mbit/s", "4Mbit/s", "8Mbit/s"]
    };
    g.maybe(1.0, "bit_rate", rates);
    g.maybe_raw(0.4, "fps", &["1", "24", "30", "60", "240"]);
    g.maybe(0.4, "frames", &["mpeg", "cbr"]);
    g.maybe(
        0.15,
        "gop",
        &["I", "IP", "IBBPBBPBBPBBPBB", "IBBB", "PPPP", ""],
    );
    g.maybe_raw(
        0.15,
        "size_ratio",
        &["[10.0, 5.0, 2.0]", "[1, 1, 1]", "[0, 0, 0]", "[1, 2]"],
    );

    g.table("server");
    let nodes = g.rng.random_range(1..=3u32);
    g.set("nodes", nodes.to_string());
    let disks = g.rng.random_range(1..=3u32);
    g.set("disks_per_node", disks.to_string());
    let stripe_kib: u64 = if tiny_stripe {
        4
    } else {
        [64, 256, 512, 1024][g.rng.random_range(0..4)]
    };
    let pages = [2u64, 3, 8, 32, 100][g.rng.random_range(0..5)];
    g.set("memory_per_node", format!("\"{}KiB\"", stripe_kib * pages));
    g.set("stripe", format!("\"{stripe_kib}KiB\""));
    g.maybe_raw(0.15, "cpu_mips", &["1", "40", "100000"]);
    // Jadav et al.'s roles now and then: interface nodes, the object manager as a node, the
    // storage nodes' threading, the interface nodes' memory, and the popular-object schemes
    let interfaces = if g.chance(0.25) {
        g.rng.random_range(1..=3u32)
    } else {
        0
    };
    if interfaces > 0 {
        g.set("interface_nodes", interfaces.to_string());
        g.maybe_raw(0.4, "manager_node", &["true", "false"]);
        g.maybe(0.15, "storage_threading", &["multi", "single"]);
        g.maybe(0.15, "interface_memory", &["64KiB", "64MiB", "1GiB"]);
        if g.chance(0.4) {
            g.table("server.replication");
            g.maybe(1.0, "scheme", &["rdss", "ldss", "lmss"]);
            g.maybe(0.3, "window", &["1s", "10s", "1min"]);
            g.maybe_raw(0.4, "threshold", &["1", "2", "3"]);
            g.maybe_raw(0.3, "local_disks", &["1", "2"]);
            g.maybe_raw(0.5, "prefix", &["1", "\"50%\"", "\"100%\""]);
            g.maybe_raw(0.3, "dedicated_interfaces", &["1", "2"]);
        }
    }

    // every plugin table: a registered plugin, each parameter now and then
    g.plugin(Kind::DiskModel, "disk.model");
    g.plugin(Kind::DiskScheduler, "disk.scheduler");
    g.plugin(Kind::BufferPool, "buffer_pool");
    g.plugin(Kind::Prefetcher, "prefetcher");
    g.plugin(Kind::Layout, "layout");
    if g.chance(0.3) {
        g.plugin(Kind::Interconnect, "server.network");
    }
    if g.chance(0.2) {
        g.plugin(Kind::Admission, "admission");
    }

    g.table("terminals");
    let terminals = g.rng.random_range(1..=30u32);
    g.set("count", terminals.to_string());
    let blocks = [2u64, 4, 8, 16, 64, 128][g.rng.random_range(0..6)];
    g.set("memory", format!("\"{}KiB\"", stripe_kib * blocks));
    g.maybe(0.3, "prime", &["1B", "4KiB", "64KiB", "1MiB", "100MiB"]);
    if g.chance(0.2) {
        // service rounds (Jadav et al. eq. 1-3)
        g.table("terminals.rounds");
        g.maybe_raw(1.0, "blocks", &["1", "2", "4"]);
        g.maybe(0.5, "issue", &["eager", "latest"]);
        g.maybe(0.4, "lead", &["1ms", "1s", "10s"]);
    }

    if g.chance(0.3) {
        g.table("interactive");
        g.maybe(0.7, "search", &["skip", "version"]);
        g.maybe(0.4, "every", &["1ms", "1s", "8s", "1h", "2h"]);
        g.maybe(0.4, "show", &["1ms", "1s", "10min", "11min"]);
        g.maybe_raw(0.4, "speedup", &["1", "2", "8", "1000", "1001"]);
        g.maybe_raw(0.3, "hints", &["true", "false"]);
    }
    if g.chance(0.25) {
        g.table("piggyback");
        g.maybe(1.0, "delay", &["0s", "1s", "30s", "5min", "11h"]);
        g.maybe_raw(0.3, "most_popular", &["0", "1", "3", "1000"]);
        g.maybe_raw(
            0.3,
            "delays",
            &["[\"1s\", \"2s\"]", "[]", "[\"1h\", \"x\"]"],
        );
    }

    if g.chance(0.3) {
        g.table("workload");
        g.lines.push("trace = \"fuzz.trace\"".into());
        let trace = random_trace(&mut g.rng, terminals, count, length_s);
        return Files {
            scenario: g.lines.join("\n") + "\n",
            trace: Some(trace),
        };
    }
    g.table("workload.generate");
    if let Some(p) = popularity {
        g.set("popularity", format!("\"{p}\""));
    }
    // the hot videos' keys mostly with their popularity, now and then without it (refused)
    let hot = if popularity == Some("hotspot") {
        1.0
    } else {
        0.02
    };
    g.maybe_raw(0.9 * hot, "fraction", &["0.0", "0.4", "1.0"]);
    g.maybe_raw(0.3 * hot, "hot_videos", &["1", "2", "20"]);
    g.maybe(0.3 * hot, "hot_period", &["1s", "10s", "5min"]);
    g.maybe_raw(0.5, "z", &["0.0", "0.5", "1.0", "1.5", "10.0"]);
    g.maybe(0.8, "start_spread", &["0s", "1s", "10s", "1min"]);
    g.maybe_raw(0.4, "pauses_per_video", &["0.0", "1.0", "5.0"]);
    g.maybe(0.3, "pause_mean", &["1ms", "1s", "2min"]);
    g.maybe_raw(0.4, "seeks_per_video", &["0.0", "1.0", "5.0"]);
    g.maybe(0.3, "seek_mean", &["1ms", "1s", "5min", "10h"]);
    g.maybe_raw(0.4, "searches_per_video", &["0.0", "1.0", "5.0"]);
    g.maybe(0.3, "search_mean", &["1ms", "1s", "10s"]);
    g.maybe_raw(0.2, "search_speed", &["0.5", "1", "8", "1000"]);
    Files {
        scenario: g.lines.join("\n") + "\n",
        trace: None,
    }
}

/// A trace of any events in any order for the scenario's terminals and videos — pauses of
/// idle terminals, resumes of playing ones, seeks past the end — and now and then an event
/// for a terminal or video the scenario does not have, or a malformed line.
fn random_trace(
    rng: &mut Xoshiro256PlusPlus,
    terminals: u32,
    videos: u32,
    length_s: u64,
) -> String {
    let kinds = ["start", "pause", "resume", "seek", "stop", "ff", "rewind"];
    let mut out = String::from("# vodbench-trace v1\n");
    let mut time_ms = 0u64;
    for _ in 0..rng.random_range(1..60) {
        time_ms += rng.random_range(0..5_000);
        let odd = rng.random_bool(0.01);
        let terminal = rng.random_range(0..terminals + u32::from(odd));
        let video = rng.random_range(0..videos);
        let kind = kinds[rng.random_range(0..kinds.len())];
        let position_ms = rng.random_range(0..=length_s * 1500);
        if rng.random_bool(0.005) {
            out.push_str("1.5 0 jump 0 0\n");
        }
        out.push_str(&format!(
            "{}.{:03} {terminal} {kind} {video} {}.{:03}\n",
            time_ms / 1000,
            time_ms % 1000,
            position_ms / 1000,
            position_ms % 1000
        ));
    }
    out
}

/// A random broadcast scenario file.
fn random_broadcast(seed: u64) -> String {
    let mut g = Gen {
        rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        lines: vec!["name = \"fuzz-broadcast\"".into()],
        registry: vodbench_plugins::registry(),
    };
    // TOML's integers are signed: a broadcast file (read as a TOML table, like a sweep) takes
    // seeds up to i64::MAX only, and says so
    let s = g.rng.random_range(0..=i64::MAX as u64);
    g.set("seed", s.to_string());
    g.table("broadcast");
    g.maybe_raw(1.0, "frames", &["10", "300", "1800", "1800", "5000"]);
    g.maybe_raw(0.5, "frame_rate", &["1", "24", "30", "240"]);
    g.maybe(1.0, "delay", &["1s", "5s", "5s", "30s"]);
    g.maybe(0.3, "bit_rate", &["64kbit/s", "4Mbit/s", "16Mbit/s"]);
    g.plugin(Kind::BroadcastSchedule, "broadcast.schedule");
    g.table("receiver");
    g.maybe_raw(0.6, "clients", &["1", "2", "5"]);
    g.maybe_raw(
        1.0,
        "cache",
        &[
            "\"5%\"", "\"20%\"", "\"50%\"", "\"50%\"", "\"100%\"", "2", "100",
        ],
    );
    g.maybe_raw(0.2, "join", &["0", "1", "10", "1000000"]);
    // without it, 1 s: at 30 frames/s a cache must then hold more than 31 frames
    g.maybe(0.6, "read_ahead", &["0s", "0s", "1ms", "100ms", "1h"]);
    g.maybe(0.2, "sample", &["1ms", "1s", "1h"]);
    g.plugin(Kind::ClientBuffer, "receiver.buffer");
    if g.chance(0.4) {
        g.plugin(Kind::DiskModel, "receiver.disk");
    }
    g.lines.join("\n") + "\n"
}

/// Checks one broadcast file: rejected by name, or every receiver of every point plays
/// every frame once, the same twice.
fn check_broadcast(text: &str) -> Result<Outcome, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("fuzz-broadcast.toml");
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let registry = vodbench_plugins::registry();
    let suite = match catch_unwind(AssertUnwindSafe(|| BroadcastSuite::load(&path, &registry)))
        .map_err(|_| "panicked while checking".to_string())?
    {
        Ok(s) => s,
        Err(e) => {
            let message = e.to_string();
            return if message.starts_with(&path.display().to_string()) {
                Ok(Outcome::Rejected)
            } else {
                Err(format!("the error does not name the file: {message}"))
            };
        }
    };
    let mut runs = Vec::new();
    for _ in 0..2 {
        let r = match catch_unwind(AssertUnwindSafe(|| run_suite(&suite, &|_, _| {})))
            .map_err(|_| "panicked while simulating".to_string())?
        {
            Ok(r) => r,
            // what a run spills is known only by running it; the error names the key
            Err(e @ BroadcastError::DiskFull { .. }) if e.to_string().contains("receiver.disk") => {
                return Ok(Outcome::Rejected);
            }
            Err(e) => return Err(format!("the checks passed but the run failed: {e}")),
        };
        for p in &r.points {
            for c in &p.clients {
                let frames = u64::from(p.summary.frames);
                if c.frames_played != frames || c.frames_read != c.frames_written {
                    return Err(format!("a receiver lost frames: {c:?}"));
                }
            }
        }
        runs.push(format!("{:?}", r.points));
    }
    if runs[0] != runs[1] {
        return Err("two runs of the same file differ".into());
    }
    Ok(Outcome::Ran)
}

/// Runs `check` on another thread and fails if it has not finished after `secs` seconds:
/// a livelock fails the test instead of hanging the suite (a guard, not a measurement).
fn within<T: Send + 'static>(
    secs: u64,
    check: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(check());
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .map_err(|_| format!("did not finish within {secs} s (a livelock?)"))?
}

/// What became of one random file.
enum Outcome {
    Rejected,
    Ran,
}

/// Why `files` is rejected (for tuning the generator: `FUZZ_WHY=1`).
fn why_rejected(files: &Files) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzz.toml");
    std::fs::write(&path, &files.scenario).unwrap();
    if let Some(t) = &files.trace {
        std::fs::write(dir.path().join("fuzz.trace"), t).unwrap();
    }
    let registry = vodbench_plugins::registry();
    match Scenario::load(&path, &registry)
        .and_then(|s| runner::preflight(&s).map(|_| s))
        .and_then(|s| runner::workload(&s))
    {
        Ok(_) => "not rejected".into(),
        Err(e) => e.to_string(),
    }
}

/// Checks one file; `Err` says what went wrong.
fn check(files: &Files) -> Result<Outcome, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("fuzz.toml");
    std::fs::write(&path, &files.scenario).map_err(|e| e.to_string())?;
    let trace = dir.path().join("fuzz.trace");
    if let Some(t) = &files.trace {
        std::fs::write(&trace, t).map_err(|e| e.to_string())?;
    }
    let registry = vodbench_plugins::registry();
    let prepared = catch_unwind(AssertUnwindSafe(|| {
        let s = Scenario::load(&path, &registry)?;
        runner::preflight(&s)?;
        let events = runner::workload(&s)?;
        Ok((s, events))
    }))
    .map_err(|_| "panicked while checking".to_string())?;
    let (scenario, events) = match prepared {
        Ok(x) => x,
        Err(e) => {
            let e: vodbench_harness::system::ondemand::scenario::ScenarioError = e;
            let message = e.to_string();
            let named = message.starts_with(&path.display().to_string())
                || (files.trace.is_some() && message.starts_with(&trace.display().to_string()));
            return if named {
                Ok(Outcome::Rejected)
            } else {
                Err(format!("the error does not name the file: {message}"))
            };
        }
    };
    let mut summaries = Vec::new();
    for _ in 0..2 {
        let r = catch_unwind(AssertUnwindSafe(|| {
            simulate(&scenario, &events, &mut |_, _| {})
        }))
        .map_err(|_| "panicked while simulating".to_string())?
        .map_err(|e| format!("the checks passed but the run failed: {e}"))?;
        let c = &r.summary.conservation;
        if c.requests_issued != c.requests_delivered + c.requests_in_system {
            return Err(format!("requests lost: {c:?}"));
        }
        summaries.push(serde_json::to_string(&r.summary).map_err(|e| e.to_string())?);
    }
    if summaries[0] != summaries[1] {
        return Err("two runs of the same file differ".into());
    }
    Ok(Outcome::Ran)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    #[test]
    fn issue2_random_scenarios_are_rejected_by_name_or_run_to_the_end(seed in any::<u64>()) {
        let files = random_scenario(seed);
        let for_check = files.clone();
        if let Err(why) = within(120, move || check(&for_check)) {
            prop_assert!(
                false,
                "{why}\n--- scenario (seed {seed}) ---\n{}\n--- trace ---\n{}",
                files.scenario,
                files.trace.as_deref().unwrap_or("(none)")
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        .. ProptestConfig::default()
    })]

    #[test]
    fn issue6_random_broadcast_scenarios_are_rejected_by_name_or_play_every_frame(
        seed in any::<u64>()
    ) {
        let text = random_broadcast(seed);
        let for_check = text.clone();
        if let Err(why) = within(120, move || check_broadcast(&for_check)) {
            prop_assert!(false, "{why}\n--- broadcast scenario (seed {seed}) ---\n{text}");
        }
    }
}

/// The generator makes files of both kinds, with and without traces, so the property above
/// tests every path.
#[test]
fn issue2_random_scenarios_include_valid_and_invalid_ones() {
    let (mut rejected, mut ran, mut traces) = (0, 0, 0);
    for seed in 0..40 {
        let files = random_scenario(seed);
        match check(&files) {
            Ok(Outcome::Rejected) => {
                rejected += 1;
                if std::env::var_os("FUZZ_WHY").is_some() {
                    eprintln!("seed {seed}: {}", why_rejected(&files));
                }
            }
            Ok(Outcome::Ran) => {
                ran += 1;
                traces += usize::from(files.trace.is_some());
            }
            Err(why) => panic!("seed {seed}: {why}"),
        }
    }
    assert!(
        ran >= 8 && rejected >= 8 && traces >= 3,
        "ran {ran} ({traces} from traces), rejected {rejected}"
    );
    let (mut rejected, mut ran) = (0, 0);
    for seed in 0..40 {
        match check_broadcast(&random_broadcast(seed)) {
            Ok(Outcome::Rejected) => rejected += 1,
            Ok(Outcome::Ran) => ran += 1,
            Err(why) => panic!("broadcast seed {seed}: {why}"),
        }
    }
    assert!(
        ran >= 8 && rejected >= 8,
        "broadcast: ran {ran}, rejected {rejected}"
    );
}
