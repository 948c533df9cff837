//! Running a broadcast scenario: every sweep point in parallel, every receiver of a point in
//! parallel, results in grid order (so output is independent of the thread count). The
//! results ([`crate::results::broadcast`]) are re-exported here, and their tables and
//! manifest made here.

use super::receiver::{expected_buffer, receive, ClientOutcome, Sample};
use super::scenario::{
    build_context, BroadcastScenario, BroadcastSuite, Derived, BUFFER, DISK, SCHEDULE, SLOTS,
};
use super::BroadcastError;
use crate::plugin::{Schedule, ScheduleSpec};
use crate::results::{Column, Table};
use crate::rng::stream;
use rand::Rng;
use rayon::prelude::*;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

pub use crate::results::broadcast::{
    BroadcastSummary, MeanSample, PointResult, ReceiverSummary, ScheduleSummary, SuiteResults,
};

struct Plan {
    d: Derived,
    batch: u32,
    joins: Vec<u32>,
    spec: ScheduleSpec,
    schedule_key: String,
}

fn plan(s: &BroadcastScenario, base_dir: &Path) -> Result<Plan, BroadcastError> {
    let d = s
        .file
        .derive()
        .map_err(|(k, m)| BroadcastError::Internal(format!("{k}: {m}")))?;
    let chosen = s.plugins.required(&BUFFER);
    let buffer = chosen
        .build(&build_context(s, &d, "receiver", 0, base_dir))
        .map_err(|e| BroadcastError::Build {
            plugin: chosen.name.into(),
            message: e.to_string(),
        })?;
    let batch = buffer.batch_frames().max(1);
    let joins = joins(s, &d);
    let spec = schedule_spec(s, &d, batch, &joins);
    Ok(Plan {
        d,
        batch,
        joins,
        schedule_key: schedule_key(s, &spec),
        spec,
    })
}

/// The instants at which the receivers of `s` join: in the steady state, one full period
/// after the broadcast starts (at `receiver.join` into it, or at a random instant of it).
pub(super) fn joins(s: &BroadcastScenario, d: &Derived) -> Vec<u32> {
    let period = d.frames + d.delay;
    match s.file.receiver.join {
        Some(phase) => vec![period + phase],
        None => (0..s.file.receiver.clients)
            .map(|k| {
                period + stream(s.file.seed, "receiver.join", u64::from(k)).random_range(0..period)
            })
            .collect(),
    }
}

/// The schedule point `s` (derived `d`) needs for receivers joining at `joins` with buffers
/// taking `batch` frames at a time: the batch is its chunk hint when its schedule uses one,
/// else 1, so that points batching differently share the schedule.
pub(super) fn schedule_spec(
    s: &BroadcastScenario,
    d: &Derived,
    batch: u32,
    joins: &[u32],
) -> ScheduleSpec {
    let period = d.frames + d.delay;
    let max_join = joins.iter().copied().max().unwrap_or(period);
    ScheduleSpec {
        frames: d.frames,
        delay: d.delay,
        horizon: max_join + period - 1,
        chunk_hint: if s.chunk_hint_used { batch } else { 1 },
    }
}

/// What identifies a point's schedule among a sweep's: points with the same key share one.
pub(super) fn schedule_key(s: &BroadcastScenario, spec: &ScheduleSpec) -> String {
    let schedule = s.plugins.required(&SCHEDULE);
    format!("{} {} {:?}", schedule.name, schedule.params, spec)
}

fn build_schedule(
    s: &BroadcastScenario,
    spec: &ScheduleSpec,
    base_dir: &Path,
) -> Result<Schedule, BroadcastError> {
    let d = s
        .file
        .derive()
        .map_err(|(k, m)| BroadcastError::Internal(format!("{k}: {m}")))?;
    let chosen = s.plugins.required(&SCHEDULE);
    let name = chosen.name;
    let plugin = chosen
        .build(&build_context(s, &d, "broadcast", 0, base_dir))
        .map_err(|e| BroadcastError::Build {
            plugin: name.into(),
            message: e.to_string(),
        })?;
    let broke = |detail: String| {
        BroadcastError::contract(SCHEDULE.key, name, detail).attributed(chosen.origin.as_deref())
    };
    let schedule = plugin.schedule(spec).map_err(|e| broke(e.to_string()))?;
    if schedule.spec() != spec {
        return Err(broke("returned a schedule for a different spec".into()));
    }
    schedule.check_windows().map_err(|v| broke(v.to_string()))?;
    Ok(schedule)
}

fn run_point(
    s: &BroadcastScenario,
    p: &Plan,
    schedule: &Schedule,
    name: &str,
    base_dir: &Path,
) -> Result<PointResult, BroadcastError> {
    let d = p.d;
    let outcomes: Vec<Result<(ClientOutcome, Vec<Sample>), BroadcastError>> = p
        .joins
        .par_iter()
        .enumerate()
        .map(|(k, &join)| {
            let c = build_context(s, &d, "receiver", k as u64, base_dir);
            let (chosen, disk_choice) = (s.plugins.required(&BUFFER), s.plugins.required(&DISK));
            let mut buffer = chosen.build(&c).map_err(|e| BroadcastError::Build {
                plugin: chosen.name.into(),
                message: e.to_string(),
            })?;
            let mut disk = disk_choice
                .build(&c.clone().with_component(DISK.key, c.index))
                .map_err(|e| BroadcastError::Build {
                    plugin: disk_choice.name.into(),
                    message: e.to_string(),
                })?;
            let mut samples = Vec::new();
            let out = receive(
                d,
                schedule,
                join,
                chosen.name,
                buffer.as_mut(),
                disk_choice.name,
                disk.as_mut(),
                &mut samples,
            )
            .map_err(|e| {
                // the policy that broke its contract: the disk model or the client buffer
                let disk_broke = matches!(&e, BroadcastError::Contract(b) if b.kind == DISK.key);
                let origin = if disk_broke {
                    &disk_choice.origin
                } else {
                    &chosen.origin
                };
                e.attributed(origin.as_deref())
            })?;
            Ok((out, samples))
        })
        .collect();
    let mut clients = Vec::with_capacity(outcomes.len());
    let mut sums: Vec<(u32, u64, u64)> = Vec::new();
    for o in outcomes {
        let (out, smp) = o?;
        if sums.is_empty() {
            sums = smp.iter().map(|x| (x.instant, 0, 0)).collect();
        }
        for (acc, x) in sums.iter_mut().zip(&smp) {
            acc.1 += u64::from(x.memory);
            acc.2 += u64::from(x.disk);
        }
        clients.push(out);
    }
    let nc = clients.len() as f64;
    let samples: Vec<MeanSample> = sums
        .into_iter()
        .map(|(instant, m, dk)| MeanSample {
            instant,
            memory: m as f64 / nc,
            disk: dk as f64 / nc,
        })
        .collect();
    // Bandwidth over the steady state: from one full period on.
    let counts = schedule.per_instant();
    let from = (d.frames + d.delay) as usize;
    let steady = &counts[from.min(counts.len()) - 1..];
    let mut hist: BTreeMap<u32, u64> = BTreeMap::new();
    for &c in steady {
        *hist.entry(c).or_default() += 1;
    }
    let (mean_bw, peak_bw) = schedule.bandwidth(from as u32);
    // the analytic model's values (Waldvogel eq. 1-2), checked present when loaded
    let theory = |k: &str| s.analysis.values.get(k).copied().unwrap_or(f64::NAN);
    let ideal = theory("schedule.ideal_bandwidth_ratio");
    let sum = |f: fn(&ClientOutcome) -> u64| clients.iter().map(f).sum::<u64>();
    let max = |f: fn(&ClientOutcome) -> u32| clients.iter().map(f).max().unwrap_or(0);
    let ratios: Vec<f64> = clients.iter().map(ClientOutcome::io_time_ratio).collect();
    let receivers = ReceiverSummary {
        client_io_time_ratio: sum(|c| c.io_time_ns) as f64 / sum(|c| c.playout_ns).max(1) as f64,
        client_io_time_min_ratio: ratios.iter().copied().fold(f64::INFINITY, f64::min),
        client_io_time_max_ratio: ratios.iter().copied().fold(0.0, f64::max),
        playout_ns: sum(|c| c.playout_ns),
        io_time_ns: sum(|c| c.io_time_ns),
        io_seek_ns: sum(|c| c.io_seek_ns),
        io_rotation_ns: sum(|c| c.io_rotation_ns),
        io_transfer_ns: sum(|c| c.io_transfer_ns),
        io_overhead_ns: sum(|c| c.io_overhead_ns),
        disk_accesses: sum(|c| c.disk_accesses),
        seeks: sum(|c| c.seeks),
        reads: sum(|c| c.reads),
        writes: sum(|c| c.writes),
        frames_written: sum(|c| c.frames_written),
        frames_read: sum(|c| c.frames_read),
        bytes_written: sum(|c| c.bytes_written),
        bytes_read: sum(|c| c.bytes_read),
        frames_spilled: sum(|c| c.frames_spilled),
        frames_cycled_more_than_once: sum(|c| c.frames_cycled),
        glitches: sum(|c| c.glitches),
        stalled_ns: sum(|c| c.stalled_ns),
        frames_direct: sum(|c| c.frames_direct),
        peak_memory_frames: max(|c| c.peak_memory_frames),
        memory_overflow_frames: max(|c| c.memory_overflow_frames),
        peak_disk_frames: max(|c| c.peak_disk_frames),
        peak_buffered_frames: max(|c| c.peak_buffered_frames),
        peak_buffered_ratio: f64::from(max(|c| c.peak_buffered_frames)) / f64::from(d.frames),
        peak_buffered_theory_frames: theory("receivers.peak_buffered_theory_frames"),
        peak_buffered_instant: clients[0].peak_buffered_instant,
        peak_buffered_theory_instant: theory("receivers.peak_buffered_theory_instant"),
    };
    let summary = BroadcastSummary {
        scenario: name.to_string(),
        seed: s.file.seed,
        frames: d.frames,
        delay_instants: d.delay,
        instant_ns: d.instant_ns,
        frame_bytes: d.frame_bytes,
        cache_frames: d.cache,
        cache_ratio: f64::from(d.cache) / f64::from(d.frames),
        batch_frames: p.batch,
        batch_ratio: f64::from(p.batch) / f64::from(d.cache),
        read_ahead_instants: d.read_ahead,
        clients: clients.len() as u32,
        schedule: ScheduleSummary {
            name: s.plugins.required(&SCHEDULE).name.to_string(),
            mean_bandwidth_ratio: mean_bw,
            peak_bandwidth_ratio: f64::from(peak_bw),
            ideal_bandwidth_ratio: ideal,
            ideal_bandwidth_approx_ratio: theory("schedule.ideal_bandwidth_approx_ratio"),
            mean_over_ideal_ratio: mean_bw / ideal,
            transmissions: schedule.total_transmissions(),
            horizon_instants: schedule.spec().horizon,
        },
        receivers,
        paper: s.file.paper.clone(),
    };
    Ok(PointResult {
        point: s.point.clone(),
        summary,
        clients,
        samples,
        bandwidth_histogram: hist.into_iter().collect(),
    })
}

/// Runs every point of `suite`; `progress(done, total)` is called as points finish.
pub fn run_suite(
    suite: &BroadcastSuite,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<SuiteResults, BroadcastError> {
    let base_dir = suite.base_dir.as_path();
    crate::interrupt::check();
    let plans: Vec<Plan> = suite
        .points
        .iter()
        .map(|s| plan(s, base_dir))
        .collect::<Result<_, _>>()?;
    // Distinct schedules, each built once, in parallel.
    let mut keys: Vec<(&str, usize)> = Vec::new();
    for (i, p) in plans.iter().enumerate() {
        if !keys.iter().any(|(k, _)| *k == p.schedule_key) {
            keys.push((&p.schedule_key, i));
        }
    }
    let built: Vec<Result<Arc<Schedule>, BroadcastError>> = keys
        .par_iter()
        .map(|&(_, i)| build_schedule(&suite.points[i], &plans[i].spec, base_dir).map(Arc::new))
        .collect();
    // a stop requested while the schedules were built: no receiver starts
    crate::interrupt::check();
    let mut schedules: BTreeMap<&str, Arc<Schedule>> = BTreeMap::new();
    for ((k, _), b) in keys.iter().zip(built) {
        schedules.insert(k, b?);
    }
    let total = suite.points.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let points: Vec<Result<PointResult, BroadcastError>> = suite
        .points
        .par_iter()
        .zip(plans.par_iter())
        .map(|(s, p)| {
            let r = run_point(
                s,
                p,
                &schedules[p.schedule_key.as_str()],
                &suite.name,
                base_dir,
            );
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(n, total);
            r
        })
        .collect();
    Ok(SuiteResults {
        name: suite.name.clone(),
        sweep_keys: suite.sweep_keys.clone(),
        points: points.into_iter().collect::<Result<_, _>>()?,
    })
}

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Table(t) => {
            let mut parts: Vec<String> = Vec::new();
            if let Some(n) = t.get("name") {
                parts.push(value_text(n));
            }
            for (k, v) in t.iter().filter(|(k, _)| *k != "name") {
                parts.push(format!("{k}={}", value_text(v)));
            }
            parts.join(" ")
        }
        other => other.to_string(),
    }
}

fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

impl SuiteResults {
    /// `summary.json`: the point's summary, or every point's with its swept values.
    pub fn summary_json(&self) -> serde_json::Value {
        if self.sweep_keys.is_empty() {
            serde_json::to_value(&self.points[0].summary).expect("serializable")
        } else {
            json!({
                "scenario": self.name,
                "sweep": self.sweep_keys,
                "points": self.points.iter().map(|p| json!({
                    "values": p.point.iter().map(|(k, v)| (k.clone(), toml_to_json(v)))
                        .collect::<serde_json::Map<_, _>>(),
                    "summary": p.summary,
                })).collect::<Vec<_>>(),
            })
        }
    }

    /// The tables: per sweep point (`sweep`), or per receiver (`clients`), the receivers'
    /// mean occupancy against eq. 2 (`occupancy`) and the bandwidth histogram (`bandwidth`).
    pub fn tables(&self) -> Vec<Table> {
        if !self.sweep_keys.is_empty() {
            return vec![self.sweep_table()];
        }
        let p = &self.points[0];
        vec![clients_table(p), occupancy_table(p), bandwidth_table(p)]
    }

    /// `sweep`: one row per point, its values and its summary's figures.
    fn sweep_table(&self) -> Table {
        let mut cols: Vec<(String, Column)> = vec![(
            "point".into(),
            Column::U64((0..self.points.len() as u64).collect()),
        )];
        for (i, k) in self.sweep_keys.iter().enumerate() {
            cols.push((
                k.clone(),
                Column::Str(
                    self.points
                        .iter()
                        .map(|p| value_text(&p.point[i].1))
                        .collect(),
                ),
            ));
        }
        let f = |g: fn(&BroadcastSummary) -> f64| {
            Column::F64(self.points.iter().map(|p| g(&p.summary)).collect())
        };
        let u = |g: fn(&BroadcastSummary) -> u64| {
            Column::U64(self.points.iter().map(|p| g(&p.summary)).collect())
        };
        cols.extend([
            ("cache_frames".into(), u(|s| u64::from(s.cache_frames))),
            ("cache_ratio".into(), f(|s| s.cache_ratio)),
            ("batch_frames".into(), u(|s| u64::from(s.batch_frames))),
            ("batch_ratio".into(), f(|s| s.batch_ratio)),
            (
                "client_io_time_ratio".into(),
                f(|s| s.receivers.client_io_time_ratio),
            ),
            ("seeks".into(), u(|s| s.receivers.seeks)),
            ("frames_written".into(), u(|s| s.receivers.frames_written)),
            ("frames_read".into(), u(|s| s.receivers.frames_read)),
            (
                "frames_cycled_more_than_once".into(),
                u(|s| s.receivers.frames_cycled_more_than_once),
            ),
            ("glitches".into(), u(|s| s.receivers.glitches)),
            (
                "peak_buffered_ratio".into(),
                f(|s| s.receivers.peak_buffered_ratio),
            ),
            (
                "mean_bandwidth_ratio".into(),
                f(|s| s.schedule.mean_bandwidth_ratio),
            ),
            (
                "peak_bandwidth_ratio".into(),
                f(|s| s.schedule.peak_bandwidth_ratio),
            ),
            (
                "ideal_bandwidth_ratio".into(),
                f(|s| s.schedule.ideal_bandwidth_ratio),
            ),
        ]);
        Table {
            name: "sweep".into(),
            columns: cols,
        }
    }

    /// The run's manifest.
    pub fn manifest(&self, suite: &BroadcastSuite) -> serde_json::Value {
        let first = &suite.points[0];
        let mut m = json!({
            "vodbench_version": env!("CARGO_PKG_VERSION"),
            "kind": "broadcast",
            "scenario": self.name,
            "seed": first.file.seed,
            "sweep": self.sweep_keys,
            "points": suite.points.iter().map(|p| json!({
                "values": p.point.iter().map(|(k, v)| (k.clone(), toml_to_json(v)))
                    .collect::<serde_json::Map<_, _>>(),
                "plugins": crate::scenario::slots::manifest_lines(SLOTS, &p.plugins.chosen),
            })).collect::<Vec<_>>(),
            "resolved_scenario": first.file,
        });
        // the plugin libraries loaded, only when some were (manifests without stay as they
        // were)
        if !first.libraries.is_empty() {
            m["plugin_libraries"] = crate::scenario::libraries::manifest_lines(&first.libraries);
        }
        m
    }
}

/// `clients`: one row per receiver of a single run.
fn clients_table(p: &PointResult) -> Table {
    let c = &p.clients;
    let cu = |g: fn(&ClientOutcome) -> u64| Column::U64(c.iter().map(g).collect());
    Table {
        name: "clients".into(),
        columns: vec![
            ("client".into(), Column::U64((0..c.len() as u64).collect())),
            ("join_instant".into(), cu(|o| u64::from(o.join))),
            (
                "client_io_time_ratio".into(),
                Column::F64(c.iter().map(ClientOutcome::io_time_ratio).collect()),
            ),
            ("io_time_ns".into(), cu(|o| o.io_time_ns)),
            ("disk_accesses".into(), cu(|o| o.disk_accesses)),
            ("seeks".into(), cu(|o| o.seeks)),
            ("frames_written".into(), cu(|o| o.frames_written)),
            ("frames_read".into(), cu(|o| o.frames_read)),
            (
                "frames_cycled_more_than_once".into(),
                cu(|o| o.frames_cycled),
            ),
            ("glitches".into(), cu(|o| o.glitches)),
            ("stalled_ns".into(), cu(|o| o.stalled_ns)),
            (
                "peak_buffered_frames".into(),
                cu(|o| u64::from(o.peak_buffered_frames)),
            ),
        ],
    }
}

/// `occupancy`: the receivers' mean buffer occupancy per sample against eq. 2.
fn occupancy_table(p: &PointResult) -> Table {
    let s = &p.summary;
    let sm = &p.samples;
    Table {
        name: "occupancy".into(),
        columns: vec![
            (
                "instant".into(),
                Column::U64(sm.iter().map(|x| u64::from(x.instant)).collect()),
            ),
            (
                "time_ns".into(),
                Column::U64(
                    sm.iter()
                        .map(|x| u64::from(x.instant) * s.instant_ns)
                        .collect(),
                ),
            ),
            (
                "memory_frames".into(),
                Column::F64(sm.iter().map(|x| x.memory).collect()),
            ),
            (
                "disk_frames".into(),
                Column::F64(sm.iter().map(|x| x.disk).collect()),
            ),
            (
                "buffered_frames".into(),
                Column::F64(sm.iter().map(|x| x.memory + x.disk).collect()),
            ),
            (
                "eq2_frames".into(),
                Column::F64(
                    sm.iter()
                        .map(|x| expected_buffer(f64::from(x.instant), s.frames, s.delay_instants))
                        .collect(),
                ),
            ),
        ],
    }
}

/// `bandwidth`: the histogram of the frames sent per instant.
fn bandwidth_table(p: &PointResult) -> Table {
    Table {
        name: "bandwidth".into(),
        columns: vec![
            (
                "frames_per_instant".into(),
                Column::U64(
                    p.bandwidth_histogram
                        .iter()
                        .map(|x| u64::from(x.0))
                        .collect(),
                ),
            ),
            (
                "instants".into(),
                Column::U64(p.bandwidth_histogram.iter().map(|x| x.1).collect()),
            ),
        ],
    }
}
