//! What the on-demand system writes and prints: a run's manifest, the summary table
//! `vodbench run` prints, and the files of a sweep file's run ([`OnDemand`](super::OnDemand)
//! runs every point once, in parallel, each with the scenario's seed): one output folder per
//! point under `points/`, and the combined `summary.json` and `sweep.csv`.

use super::scenario::SweepSuite;
use crate::output;
use crate::results::Summary;
use crate::scenario::grid::value_text;
use serde_json::json;

pub use super::runner::manifest;

/// The manifest of one point of a sweep file's run (`kind: sweep-run`) is each point's run
/// manifest; this is the top folder's.
pub fn sweep_run_manifest(suite: &SweepSuite) -> serde_json::Value {
    serde_json::json!({
        "vodbench_version": env!("CARGO_PKG_VERSION"),
        "kind": "sweep-run",
        "scenario": suite.name,
        "scenario_file": suite.path.display().to_string(),
        "sweep": suite.axes,
        "points": suite.points.iter().enumerate().map(|(i, p)| serde_json::json!({
            "values": values_json(&p.values),
            "folder": format!("points/{}", suite.point_dir(i)),
        })).collect::<Vec<_>>(),
    })
}

/// The human-readable summary printed by `vodbench run`.
pub fn summary_table(s: &Summary) -> String {
    let mut rows = run_rows(s);
    rows.extend(storage_rows(s));
    optional_rows(s, &mut rows);
    let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in rows {
        out.push_str(&format!("{k:<w$}  {v}\n"));
    }
    for (k, v) in &s.paper {
        out.push_str(&format!("{:<w$}  {v}\n", format!("paper: {k}")));
    }
    out
}

fn ms(ns: u64) -> String {
    format!("{:.1} ms", ns as f64 / 1e6)
}

fn pct(r: f64) -> String {
    format!("{:.1} %", r * 100.0)
}

fn mib(b: u64) -> String {
    format!("{:.1} MiB", b as f64 / 1048576.0)
}

/// The summary's rows of the run as a whole: the load, the glitches, start-up latency, the
/// disks' and CPUs' utilization and requests.
fn run_rows(s: &Summary) -> Vec<(String, String)> {
    vec![
        ("scenario".into(), s.scenario.clone()),
        ("terminals".into(), s.terminals.to_string()),
        (
            "measured".into(),
            format!(
                "{:.0} s after {:.1} s warm-up{}",
                s.measured_ns as f64 / 1e9,
                s.warmup_ns as f64 / 1e9,
                if s.ended_early {
                    " (workload ended early)"
                } else {
                    ""
                }
            ),
        ),
        (
            "glitches".into(),
            format!(
                "{} ({} terminals, {:.1} s stalled){}",
                s.glitches.count,
                s.glitches.terminals_affected,
                s.glitches.stalled_ns as f64 / 1e9,
                match s.glitches.never_displayed {
                    0 => String::new(),
                    n => format!(
                        "; {n} terminals asked for a video before the measured period and \
                         never displayed it"
                    ),
                }
            ),
        ),
        (
            "start-up latency".into(),
            format!(
                "mean {}, p99 {}, max {}",
                ms(s.startup_latency.mean_ns),
                ms(s.startup_latency.p99_ns),
                ms(s.startup_latency.max_ns)
            ),
        ),
        (
            "disk utilization".into(),
            format!(
                "mean {}, min {}, max {}",
                pct(s.disks.utilization_mean_ratio),
                pct(s.disks.utilization_min_ratio),
                pct(s.disks.utilization_max_ratio)
            ),
        ),
        (
            "CPU utilization".into(),
            format!(
                "mean {}, max {}",
                pct(s.cpu.utilization_mean_ratio),
                pct(s.cpu.utilization_max_ratio)
            ),
        ),
        (
            "disk requests".into(),
            format!(
                "{} ({} demand, {} prefetch)",
                s.disks.requests, s.disks.demand_requests, s.disks.prefetch_requests
            ),
        ),
    ]
}

/// The summary's rows of the data path: I/O time, the buffer pool, server memory, the
/// terminals' buffers.
fn storage_rows(s: &Summary) -> Vec<(String, String)> {
    let io = &s.disks.io_time;
    vec![
        (
            "I/O time".into(),
            format!(
                "mean {} = queue {} + seek {} + rotation {} + transfer {} + overhead {}{}",
                ms(io.total.mean_ns),
                ms(io.queue.mean_ns),
                ms(io.seek.mean_ns),
                ms(io.rotation.mean_ns),
                ms(io.transfer.mean_ns),
                ms(io.overhead.mean_ns),
                match &io.bus_wait {
                    Some(w) => format!(" + bus wait {}", ms(w.mean_ns)),
                    None => String::new(),
                }
            ),
        ),
        (
            "I/O time p99 / max".into(),
            format!("{} / {}", ms(io.total.p99_ns), ms(io.total.max_ns)),
        ),
        (
            "buffer pool".into(),
            format!(
                "hit {}, shared refs {}, joins {}, waits {}",
                pct(s.buffer_pool.hit_ratio),
                pct(s.buffer_pool.shared_ratio),
                s.buffer_pool.joins,
                s.buffer_pool.page_waits
            ),
        ),
        (
            "server memory".into(),
            format!(
                "mean {}, peak {}",
                mib(s.buffer_pool.memory_in_use_mean_bytes),
                mib(s.buffer_pool.memory_in_use_peak_bytes)
            ),
        ),
        (
            "terminal buffer".into(),
            format!(
                "mean {}, peak {} of {}",
                mib(s.terminal_buffer.occupancy_mean_bytes),
                mib(s.terminal_buffer.occupancy_peak_bytes),
                mib(s.terminal_buffer.memory_bytes)
            ),
        ),
    ]
}

/// The rows of what a scenario may measure besides: buses, visual search, piggybacking,
/// continuity.
fn optional_rows(s: &Summary, rows: &mut Vec<(String, String)>) {
    if let Some(b) = &s.buses {
        rows.push((
            "bus utilization".into(),
            format!(
                "mean {}, max {} held; bandwidth used mean {}, max {} (eq. 5: {}); {} buses",
                pct(b.utilization_mean_ratio),
                pct(b.utilization_max_ratio),
                pct(b.bandwidth_mean_ratio),
                pct(b.bandwidth_max_ratio),
                pct(b.model_eq5_ratio),
                b.count
            ),
        ));
    }
    if let Some(x) = &s.search {
        let gib = |b: u64| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64);
        rows.push((
            "searches".into(),
            format!(
                "{} ({:?}; {} segments shown); storage: videos {}, search versions {} (+{})",
                x.searches,
                x.mode,
                x.segments_shown,
                gib(x.video_bytes),
                gib(x.search_version_bytes),
                pct(x.search_version_bytes as f64 / x.video_bytes.max(1) as f64)
            ),
        ));
    }
    if let Some(p) = &s.piggyback {
        rows.push((
            "piggybacking".into(),
            format!(
                "{} groups, {} joined, {} streams saved, mean wait {:.1} s",
                p.groups_formed,
                p.members_joined,
                p.streams_saved,
                p.wait.mean_ns as f64 / 1e9
            ),
        ));
    }
    if let Some(c) = &s.continuity {
        // a few lengths of the curve: 1, 2, 5, 10, 20 … up to the longest
        let shown: Vec<String> = (1..=c.max_l)
            .filter(|l| [1, 2, 5, 10, 15, 20, 50, 100].contains(l) || *l == c.max_l)
            .map(|l| match c.p_c[l as usize - 1] {
                Some(p) => format!("l={l} {p:.3}"),
                None => format!("l={l} -"),
            })
            .collect();
        rows.push((
            "continuity P_c".into(),
            format!(
                "{} ({} inter-arrivals, {} held back)",
                shown.join(", "),
                c.inter_arrivals,
                c.held_back
            ),
        ));
    }
}

/// Axis values as JSON (`{"server.stripe": "512KiB", "scheduler": "elevator"}`).
pub fn values_json(values: &[(String, toml::Value)]) -> serde_json::Value {
    serde_json::Value::Object(
        values
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                )
            })
            .collect(),
    )
}

/// The combined `summary.json` of a sweep run: the axes and, per point, its values, its
/// published figures and its summary.
pub fn summary_json(suite: &SweepSuite, summaries: &[&Summary]) -> serde_json::Value {
    json!({
        "scenario": suite.name,
        "sweep": suite.axes,
        "points": suite.points.iter().zip(summaries).map(|(p, s)| json!({
            "values": values_json(&p.values),
            "paper": p.scenario.file.paper,
            "summary": s,
        })).collect::<Vec<_>>(),
    })
}

/// Quotes a CSV field when needed.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `sweep.csv` of a sweep run: one row per point, its axis values then its main metrics.
pub fn sweep_csv(suite: &SweepSuite, summaries: &[&Summary]) -> String {
    let mut out: Vec<String> = vec!["point".into()];
    out.extend(suite.axes.iter().map(|a| csv_field(a)));
    out.extend(
        [
            "terminals",
            "glitches",
            "terminals_affected",
            "disk_utilization_mean_ratio",
            "disk_utilization_max_ratio",
            "hit_ratio",
            "shared_ratio",
            "prefetches_wasted",
            "memory_in_use_mean_bytes",
            "startup_latency_mean_ns",
        ]
        .map(String::from),
    );
    let mut text = out.join(",") + "\n";
    for (i, (p, s)) in suite.points.iter().zip(summaries).enumerate() {
        let mut row = vec![i.to_string()];
        row.extend(p.values.iter().map(|(_, v)| csv_field(&value_text(v))));
        row.extend([
            s.terminals.to_string(),
            s.glitches.count.to_string(),
            s.glitches.terminals_affected.to_string(),
            format!("{}", s.disks.utilization_mean_ratio),
            format!("{}", s.disks.utilization_max_ratio),
            format!("{}", s.buffer_pool.hit_ratio),
            format!("{}", s.buffer_pool.shared_ratio),
            s.buffer_pool.prefetches_wasted.to_string(),
            s.buffer_pool.memory_in_use_mean_bytes.to_string(),
            s.startup_latency.mean_ns.to_string(),
        ]);
        text.push_str(&row.join(","));
        text.push('\n');
    }
    text
}

/// The table `vodbench run` prints for a sweep.
pub fn sweep_summary_text(suite: &SweepSuite, summaries: &[&Summary]) -> String {
    let mut rows: Vec<Vec<String>> = vec![{
        let mut h = suite.axes.clone();
        h.extend(
            ["terminals", "glitches", "disk util", "hit", "shared"]
                .iter()
                .map(|s| s.to_string()),
        );
        h
    }];
    for (p, s) in suite.points.iter().zip(summaries) {
        let mut r: Vec<String> = p.values.iter().map(|(_, v)| value_text(v)).collect();
        r.extend([
            s.terminals.to_string(),
            s.glitches.count.to_string(),
            format!("{:.1} %", s.disks.utilization_mean_ratio * 100.0),
            format!("{:.1} %", s.buffer_pool.hit_ratio * 100.0),
            format!("{:.1} %", s.buffer_pool.shared_ratio * 100.0),
        ]);
        rows.push(r);
    }
    let title = format!("scenario {} ({} points)\n", suite.name, suite.points.len());
    output::aligned_text(title, &rows)
}
