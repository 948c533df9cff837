//! The files of `vodbench run` of an on-demand sweep ([`crate::system::ondemand::OnDemand`]
//! runs every point once, in parallel, each with the scenario's seed): one output folder per
//! point under `points/`, and the combined `summary.json` and `sweep.csv`.

use crate::output;
use crate::results::Summary;
use crate::spec::grid::value_text;
use crate::sweep::SweepSuite;
use serde_json::json;

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
pub fn summary_text(suite: &SweepSuite, summaries: &[&Summary]) -> String {
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
