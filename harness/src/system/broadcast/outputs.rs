//! What a broadcast run prints: one point's summary, or a sweep's table.

use crate::output;
use crate::results::broadcast::{BroadcastSummary, SuiteResults};

fn pct(r: f64) -> String {
    format!("{:.2} %", r * 100.0)
}

fn one(s: &BroadcastSummary) -> String {
    let r = &s.receivers;
    let sc = &s.schedule;
    let rows: Vec<(&str, String)> = vec![
        ("scenario", s.scenario.clone()),
        (
            "movie",
            format!(
                "{} frames of {} B, {:.1} ms each; delay w = {} instants",
                s.frames,
                s.frame_bytes,
                s.instant_ns as f64 / 1e6,
                s.delay_instants
            ),
        ),
        (
            "schedule",
            format!(
                "{}: mean {:.3}×, peak {}× the playout rate (eq. 1: {:.3}, ln: {:.3})",
                sc.name,
                sc.mean_bandwidth_ratio,
                sc.peak_bandwidth_ratio,
                sc.ideal_bandwidth_ratio,
                sc.ideal_bandwidth_approx_ratio
            ),
        ),
        (
            "receivers",
            format!(
                "{} × cache {} frames ({}), batch κ = {} ({} of C)",
                s.clients,
                s.cache_frames,
                pct(s.cache_ratio),
                s.batch_frames,
                pct(s.batch_ratio)
            ),
        ),
        (
            "client I/O time",
            format!(
                "{} of playout (min {}, max {})",
                pct(r.client_io_time_ratio),
                pct(r.client_io_time_min_ratio),
                pct(r.client_io_time_max_ratio)
            ),
        ),
        (
            "disk accesses",
            format!(
                "{} ({} writes, {} reads); {} frames written, {} read",
                r.disk_accesses, r.writes, r.reads, r.frames_written, r.frames_read
            ),
        ),
        (
            "frames cycled",
            format!(
                "{} written more than once (of {} spilled)",
                r.frames_cycled_more_than_once, r.frames_spilled
            ),
        ),
        (
            "glitches",
            format!(
                "{} ({:.2} s stalled)",
                r.glitches,
                r.stalled_ns as f64 / 1e9
            ),
        ),
        (
            "peak buffer",
            format!(
                "{} frames ({} of the movie; eq. 2: {:.0})",
                r.peak_buffered_frames,
                pct(r.peak_buffered_ratio),
                r.peak_buffered_theory_frames
            ),
        ),
    ];
    let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<w$}  {v}\n"))
        .collect()
}

/// The text `vodbench run` prints for a broadcast scenario.
pub fn summary_text(results: &SuiteResults) -> String {
    if results.sweep_keys.is_empty() {
        return one(&results.points[0].summary);
    }
    let mut header: Vec<String> = results.sweep_keys.clone();
    header.extend(
        [
            "C",
            "κ",
            "I/O time",
            "seeks",
            "cycled",
            "glitches",
            "bandwidth",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    let mut rows = vec![header];
    for p in &results.points {
        let s = &p.summary;
        let mut row: Vec<String> = p
            .point
            .iter()
            .map(|(_, v)| match v {
                toml::Value::String(x) => x.clone(),
                toml::Value::Table(t) => t
                    .iter()
                    .map(|(k, v)| {
                        if k == "name" {
                            v.as_str().unwrap_or_default().to_string()
                        } else {
                            format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_string))
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
                other => other.to_string(),
            })
            .collect();
        row.extend([
            s.cache_frames.to_string(),
            s.batch_frames.to_string(),
            pct(s.receivers.client_io_time_ratio),
            s.receivers.seeks.to_string(),
            s.receivers.frames_cycled_more_than_once.to_string(),
            s.receivers.glitches.to_string(),
            format!("{:.3}", s.schedule.mean_bandwidth_ratio),
        ]);
        rows.push(row);
    }
    output::aligned_text(format!("scenario {}\n", results.name), &rows)
}
