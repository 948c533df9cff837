//! What the on-demand system writes and prints: a run's manifest, the summary table
//! `vodbench run` prints, and the files of a sweep file's run (`summary.json`, `sweep.csv`).

use crate::results::Summary;

pub use crate::runner::manifest;
pub use crate::sweep::run::{summary_json, summary_text as sweep_summary_text, sweep_csv};

/// The manifest of one point of a sweep file's run (`kind: sweep-run`) is each point's run
/// manifest; this is the top folder's.
pub fn sweep_run_manifest(suite: &super::spec::SweepSuite) -> serde_json::Value {
    serde_json::json!({
        "vodbench_version": env!("CARGO_PKG_VERSION"),
        "kind": "sweep-run",
        "scenario": suite.name,
        "scenario_file": suite.path.display().to_string(),
        "sweep": suite.axes,
        "points": suite.points.iter().enumerate().map(|(i, p)| serde_json::json!({
            "values": crate::sweep::run::values_json(&p.values),
            "folder": format!("points/{}", suite.point_dir(i)),
        })).collect::<Vec<_>>(),
    })
}

/// The human-readable summary printed by `vodbench run`.
pub fn summary_table(s: &Summary) -> String {
    let ms = |ns: u64| format!("{:.1} ms", ns as f64 / 1e6);
    let pct = |r: f64| format!("{:.1} %", r * 100.0);
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / 1048576.0);
    let io = &s.disks.io_time;
    let rows: Vec<(String, String)> = vec![
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
        (
            "I/O time".into(),
            format!(
                "mean {} = queue {} + seek {} + rotation {} + transfer {} + overhead {}",
                ms(io.total.mean_ns),
                ms(io.queue.mean_ns),
                ms(io.seek.mean_ns),
                ms(io.rotation.mean_ns),
                ms(io.transfer.mean_ns),
                ms(io.overhead.mean_ns)
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
    ];
    let mut rows = rows;
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
