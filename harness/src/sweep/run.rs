//! `vodbench run` of an on-demand sweep: every point simulated once (in parallel, each with
//! the scenario's seed, so the results do not depend on the thread count), one output folder
//! per point under `points/`, and the combined `summary.json` and `sweep.csv`.

use crate::cli::{failure, input_error};
use crate::output;
use crate::plugin::Registry;
use crate::results::{RunResults, Summary};
use crate::runner::{self, RunError};
use crate::spec::grid::value_text;
use crate::sweep::SweepSuite;
use crate::trace::TraceEvent;
use rayon::prelude::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// One point's run: its results and its workload events.
pub type PointRun = (RunResults, Vec<TraceEvent>);

/// Runs every point of `suite` (inside the current rayon pool); `done(i)` is called as point
/// `i` finishes. Results are in point order.
pub fn run_points(
    suite: &SweepSuite,
    done: &(dyn Fn(usize) + Sync),
) -> Result<Vec<PointRun>, (usize, RunError)> {
    suite
        .points
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let r = runner::run(&p.scenario, &mut |_, _| {}).map_err(|e| (i, e));
            done(i);
            r
        })
        .collect()
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

/// `vodbench run` of an on-demand sweep file.
pub fn cmd_run(
    registry: &Registry,
    outputs: &output::Outputs,
    path: &Path,
    out: Option<PathBuf>,
    terminals: Option<u32>,
    seed: Option<u64>,
    quiet: bool,
) -> ExitCode {
    let mut suite = match SweepSuite::load(path, registry) {
        Ok(s) => s,
        Err(e) => return input_error(e),
    };
    let flags = [
        ("--terminals", "terminals.count", terminals.is_some()),
        ("--seed", "seed", seed.is_some()),
    ];
    for (flag, key, _) in flags.into_iter().filter(|f| f.2) {
        if let Some(m) = crate::spec::grid::flag_overrides_sweep(path, &suite.swept, flag, key) {
            return input_error(m);
        }
    }
    for p in &mut suite.points {
        if let Some(n) = terminals {
            if let Err(e) = p.scenario.set_terminals(n) {
                return input_error(e);
            }
        }
        if let Some(seed) = seed {
            p.scenario.file.seed = seed;
        }
        if let Err(e) = runner::preflight(&p.scenario) {
            return input_error(format!("sweep point ({}): {e}", p.label()));
        }
    }
    let dir = out.unwrap_or_else(|| output::default_dir(&suite.name));
    if let Err(e) = output::check_output_dir(&dir) {
        return failure(e);
    }
    let started = Instant::now();
    let bar = crate::search::points_bar(suite.points.len());
    if !quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    }
    let results = match run_points(&suite, &|_| bar.inc(1)) {
        Ok(r) => r,
        Err((i, RunError::Scenario(e))) => {
            return input_error(format!("sweep point ({}): {e}", suite.points[i].label()))
        }
        Err((i, e)) => return failure(format!("sweep point ({}): {e}", suite.points[i].label())),
    };
    bar.finish_and_clear();
    let wall = started.elapsed();
    let summaries: Vec<&Summary> = results.iter().map(|(r, _)| &r.summary).collect();
    let manifest = json!({
        "vodbench_version": env!("CARGO_PKG_VERSION"),
        "kind": "sweep-run",
        "scenario": suite.name,
        "scenario_file": suite.path.display().to_string(),
        "sweep": suite.axes,
        "points": suite.points.iter().enumerate().map(|(i, p)| json!({
            "values": values_json(&p.values),
            "folder": format!("points/{}", suite.point_dir(i)),
        })).collect::<Vec<_>>(),
    });
    let files = [
        ("manifest.json", output::to_json(&manifest)),
        (
            "summary.json",
            output::to_json(&summary_json(&suite, &summaries)),
        ),
        ("sweep.csv", sweep_csv(&suite, &summaries)),
    ];
    // the folder is replaced as a whole (no stale points of an earlier, larger grid); each
    // point's folder inside it is a complete run folder with its own report
    let top = output::Writers {
        tables: None,
        reporter: None,
    };
    if let Err(e) = output::write_folder(&dir, &files, &[], top, &[]) {
        return failure(e);
    }
    for (i, (p, (r, events))) in suite.points.iter().zip(&results).enumerate() {
        let manifest = runner::manifest(&p.scenario, events);
        let sub = dir.join("points").join(suite.point_dir(i));
        if let Err(e) = output::write_run(&sub, &manifest, r, outputs.writers()) {
            return failure(e);
        }
    }
    if !quiet {
        print!("{}", summary_text(&suite, &summaries));
        println!(
            "wall time {:.2}s for {} points; output: {}",
            wall.as_secs_f64(),
            suite.points.len(),
            dir.display()
        );
    }
    ExitCode::SUCCESS
}
