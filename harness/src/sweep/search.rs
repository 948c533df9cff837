//! `vodbench sweep`: SPIFFI's maximum glitch-free terminal count (§7.1) at every point of a
//! sweep, beside the paper's published values.
//!
//! Each point is a [`crate::search`] of its own (same replications, seeds and stopping
//! rule). Points and their replications run in parallel in one rayon pool; every search is
//! independent of the thread count, so `sweep.json` is too. Besides the maximum, each point
//! reports what the runs at the answer measured (disk utilization, SPIFFI Fig. 14; references
//! to pages another terminal referenced first, Fig. 16), its scaleup on a scaleup series
//! (§7.6, Table 2) and its cost per terminal when the scenario has a `[cost]` (Table 3).
//!
//! Outputs: `sweep.json`, `sweep.csv` (one row per point), `sweep.md`, a markdown table of
//! paper vs vodbench (`vodbench sweep-table` prints it again from saved folders), a
//! `curve-NNN.csv` per point, and `report.html` from the installed reporter (the
//! `vodbench-reports` crate draws the maxima, the paper's beside them and [`table`]).

use super::checkpoint::{self, Unused};
use crate::cli::{failure, input_error};
use crate::output;
use crate::plugin::Registry;
use crate::run_cache::RunCache;
use crate::search::{
    cache_text, progress_bar, search_cached, worker_pool, Probe, SearchLimits, SearchOptions,
    SearchResult,
};
use crate::spec::grid::value_text;
use crate::sweep::SweepSuite;
use crate::system::ondemand::outputs::{csv_field, values_json};
use crate::system::ondemand::runner;
use crate::system::RunError;
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

pub use crate::results::sweep::{PointSearch, SweepResult};

/// Searches every point (inside the current rayon pool) but those with a result in `prior`
/// (indexed like the points; shorter means none), which are taken as they are.
/// Simulations are taken from and saved to `cache` if given (see [`crate::run_cache`]).
/// `on_probe(point, probe)` sees every simulation, `on_done(point, result)` every search as
/// it finishes.
pub fn sweep_search(
    suite: &SweepSuite,
    opts: &SearchOptions,
    prior: &[Option<SearchResult>],
    cache: Option<&RunCache>,
    on_probe: &(dyn Fn(usize, &Probe) + Sync),
    on_done: &(dyn Fn(usize, &SearchResult) + Sync),
) -> Result<(SweepResult, Vec<SearchResult>), (usize, RunError)> {
    let results: Vec<SearchResult> = suite
        .points
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            if let Some(Some(r)) = prior.get(i) {
                return Ok(r.clone());
            }
            let r = search_cached(&p.scenario, opts, cache, &|pr| on_probe(i, pr))
                .map_err(|e| (i, e))?;
            on_done(i, &r);
            Ok(r)
        })
        .collect::<Result<_, _>>()?;
    let mut points: Vec<PointSearch> = suite
        .points
        .iter()
        .zip(&results)
        .enumerate()
        .map(|(i, (p, r))| {
            let f = &p.scenario.file;
            let disks = u64::from(f.server.nodes) * u64::from(f.server.disks_per_node);
            let memory = u64::from(f.server.nodes) * f.server.memory_per_node.0;
            let cost_total = f.cost.as_ref().map(|c| c.total(disks, memory));
            let paper = f.paper.clone();
            let ratio = paper
                .get("max_terminals")
                .filter(|&&x| x > 0.0)
                .map(|x| r.max_terminals as f64 / x);
            PointSearch {
                point: i,
                values: values_json(&p.values),
                label: p.label(),
                max_terminals: r.max_terminals,
                ci_low: r.confidence_interval.low,
                ci_high: r.confidence_interval.high,
                replications: r.replications,
                runs: r.runs,
                converged: r.converged,
                at_answer: r.at_answer,
                disks,
                server_memory_bytes: memory,
                factor: p.factor,
                scaleup: None,
                cost_total,
                cost_per_terminal: cost_total
                    .filter(|_| r.max_terminals > 0)
                    .map(|c| c / r.max_terminals as f64),
                paper,
                ratio,
            }
        })
        .collect();
    // scaleup: against the factor-1 point that agrees on every other axis
    if let Some(axis) = suite.scale_axis {
        for i in 0..points.len() {
            let me = &suite.points[i];
            let base = suite.points.iter().position(|q| {
                q.factor == Some(1.0)
                    && q.values
                        .iter()
                        .zip(&me.values)
                        .enumerate()
                        .all(|(k, (a, b))| k == axis || a == b)
            });
            if let (Some(b), Some(f)) = (base, me.factor) {
                let base_max = points[b].max_terminals;
                if base_max > 0 {
                    points[i].scaleup =
                        Some(points[i].max_terminals as f64 / (f * base_max as f64));
                }
            }
        }
    }
    let first = suite.points.first().map(|p| &p.scenario.file);
    Ok((
        SweepResult {
            scenario: suite.name.clone(),
            description: first.map(|f| f.description.clone()).unwrap_or_default(),
            seed: first.map_or(1, |f| f.seed),
            sweep: suite.axes.clone(),
            points,
            method: opts.method_text(),
            stop_at_glitch: opts.stop_at_glitch,
        },
        results,
    ))
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// `sweep.csv`: one row per point.
pub fn sweep_csv(r: &SweepResult) -> String {
    let paper_keys: std::collections::BTreeSet<&String> =
        r.points.iter().flat_map(|p| p.paper.keys()).collect();
    let mut head = vec!["point".to_string()];
    head.extend(r.sweep.iter().map(|a| csv_field(a)));
    head.extend(
        [
            "max_terminals",
            "ci_low",
            "ci_high",
            "replications",
            "runs",
            "converged",
            "disk_utilization_mean_ratio",
            "shared_ratio",
            "hit_ratio",
            "disks",
            "server_memory_bytes",
            "scaleup",
            "cost_total",
            "cost_per_terminal",
            "ratio",
        ]
        .map(String::from),
    );
    head.extend(paper_keys.iter().map(|k| csv_field(&format!("paper_{k}"))));
    let opt = |x: Option<f64>| x.map(|v| format!("{v}")).unwrap_or_default();
    let mut out = head.join(",") + "\n";
    for p in &r.points {
        let mut row = vec![p.point.to_string()];
        for a in &r.sweep {
            let v = p.values.get(a).cloned().unwrap_or(serde_json::Value::Null);
            let t = toml::Value::try_from(&v)
                .map(|v| value_text(&v))
                .unwrap_or_else(|_| v.to_string());
            row.push(csv_field(&t));
        }
        row.extend([
            p.max_terminals.to_string(),
            format!("{}", p.ci_low),
            format!("{}", p.ci_high),
            p.replications.to_string(),
            p.runs.to_string(),
            p.converged.to_string(),
            opt(p.at_answer.map(|a| a.disk_utilization_mean_ratio)),
            opt(p.at_answer.map(|a| a.shared_ratio)),
            opt(p.at_answer.map(|a| a.hit_ratio)),
            p.disks.to_string(),
            p.server_memory_bytes.to_string(),
            opt(p.scaleup),
            opt(p.cost_total),
            opt(p.cost_per_terminal),
            opt(p.ratio),
        ]);
        row.extend(paper_keys.iter().map(|k| opt(p.paper.get(*k).copied())));
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// What a sweep made with `--stop-at-glitch` says of its curves (`sweep.md`, `report.html`).
pub const STOPPED_AT_GLITCH: &str = "made with --stop-at-glitch: each simulation ended at its \
     first glitch in the measured period, so the maxima are those of a whole run but a \
     glitching run's count in curve-NNN.csv is a lower bound (usually 1)";

/// `sweep.md`: paper vs vodbench, one row per point. Columns appear only when some point has
/// something to show in them.
pub fn markdown(r: &SweepResult) -> String {
    let (head, rows) = table(r);
    let mut out = format!("**{}**", r.scenario);
    if !r.description.is_empty() {
        out.push_str(&format!(" — {}", r.description));
    }
    out.push_str("\n\n");
    if let Some(m) = &r.method {
        out.push_str(&format!("*{m}*\n\n"));
    }
    if r.stop_at_glitch {
        out.push_str(&format!("*{STOPPED_AT_GLITCH}*\n\n"));
    }
    out.push_str(&format!("| {} |\n", head.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(head.len())));
    for row in rows {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}

/// The paper-vs-vodbench table of a sweep, as `sweep.md` and the sweep's `report.html` show
/// it: the header (the axes, then the paper's and vodbench's maxima and every other figure
/// some point has) and one row of text per point.
pub fn table(r: &SweepResult) -> (Vec<String>, Vec<Vec<String>>) {
    let any = |f: &dyn Fn(&PointSearch) -> bool| r.points.iter().any(f);
    let paper = |k: &str| any(&|p: &PointSearch| p.paper.contains_key(k));
    let mut head: Vec<String> = r.sweep.clone();
    type Cell = Box<dyn Fn(&PointSearch) -> String>;
    let mut cells: Vec<Cell> = Vec::new();
    let dash = || "–".to_string();
    if paper("max_terminals") {
        head.push("paper".into());
        cells.push(Box::new(move |p| {
            p.paper.get("max_terminals").map_or_else(dash, |x| num(*x))
        }));
    }
    head.push("vodbench (90 % CI)".into());
    cells.push(Box::new(|p| {
        format!(
            "{} ({:.0}–{:.0}){}",
            p.max_terminals,
            p.ci_low,
            p.ci_high,
            if p.converged {
                ""
            } else {
                " ⚠ not converged"
            }
        )
    }));
    if paper("max_terminals") {
        head.push("vodbench / paper".into());
        cells.push(Box::new(move |p| {
            p.ratio
                .map_or_else(dash, |x| format!("{:+.0} %", (x - 1.0) * 100.0))
        }));
    }
    let metric = |head: &mut Vec<String>,
                  cells: &mut Vec<Cell>,
                  key: &'static str,
                  title: &str,
                  get: fn(&PointSearch) -> Option<f64>,
                  show: fn(f64) -> String| {
        let has_paper = r.points.iter().any(|p| p.paper.contains_key(key));
        let has = r.points.iter().any(|p| get(p).is_some());
        if has_paper {
            head.push(format!("paper {title}"));
            cells.push(Box::new(move |p| {
                p.paper
                    .get(key)
                    .map_or_else(|| "–".to_string(), |x| show(*x))
            }));
        }
        if has {
            head.push(title.to_string());
            cells.push(Box::new(move |p| {
                get(p).map_or_else(|| "–".to_string(), show)
            }));
        }
    };
    metric(
        &mut head,
        &mut cells,
        "disk_utilization",
        "disk utilization",
        |p| p.at_answer.map(|a| a.disk_utilization_mean_ratio),
        pct,
    );
    metric(
        &mut head,
        &mut cells,
        "shared_ratio",
        "shared references",
        |p| p.at_answer.map(|a| a.shared_ratio),
        pct,
    );
    metric(
        &mut head,
        &mut cells,
        "scaleup",
        "scaleup",
        |p| p.scaleup,
        |x| format!("{x:.2}"),
    );
    metric(
        &mut head,
        &mut cells,
        "cost_total",
        "cost",
        |p| p.cost_total,
        |x| format!("${x:.0}"),
    );
    metric(
        &mut head,
        &mut cells,
        "cost_per_terminal",
        "cost/terminal",
        |p| p.cost_per_terminal,
        |x| format!("${x:.0}"),
    );
    let known = [
        "max_terminals",
        "disk_utilization",
        "shared_ratio",
        "scaleup",
        "cost_total",
        "cost_per_terminal",
    ];
    let others: std::collections::BTreeSet<String> = r
        .points
        .iter()
        .flat_map(|p| p.paper.keys())
        .filter(|k| !known.contains(&k.as_str()))
        .cloned()
        .collect();
    for k in others {
        head.push(format!("paper {k}"));
        cells.push(Box::new(move |p| {
            p.paper.get(&k).map_or_else(|| "–".to_string(), |x| num(*x))
        }));
    }
    let mut rows = Vec::new();
    for p in &r.points {
        let mut row: Vec<String> = r
            .sweep
            .iter()
            .map(|a| {
                let v = p.values.get(a).cloned().unwrap_or(serde_json::Value::Null);
                toml::Value::try_from(&v)
                    .map(|v| value_text(&v))
                    .unwrap_or_else(|_| v.to_string())
            })
            .collect();
        row.extend(cells.iter().map(|c| c(p)));
        rows.push(row);
    }
    (head, rows)
}

/// Arguments of `vodbench sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// Scenario file (TOML) with a `[sweep]` (a file without one is a single point); each
    /// point's terminal count is its expected answer (its search climbs from half of it).
    pub scenario: PathBuf,
    /// Output folder (default: out/NAME-sweep, NAME being the scenario's name with
    /// characters other than letters, digits, '.', '_' and '-' made '_').
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replication, terminal and thread limits.
    #[command(flatten)]
    pub limits: SearchLimits,
    /// Only these points (0-based indices in grid order, as `vodbench check` lists them).
    #[arg(long, value_delimiter = ',')]
    pub points: Vec<usize>,
    /// Take every point already searched in the output folder (its `points/NNN.json`, saved
    /// as each point finishes) instead of searching it again, if it was searched with the
    /// same resolved scenario, limits and vodbench version: continues a stopped sweep.
    #[arg(long)]
    pub resume: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `vodbench sweep`.
pub fn cmd_sweep(registry: &Registry, outputs: &output::Outputs, args: SweepArgs) -> ExitCode {
    let path = &args.scenario;
    if std::fs::read_to_string(path).is_ok_and(|t| crate::system::broadcast::is_broadcast(&t)) {
        return input_error(format!(
            "{}: sweep searches the most on-demand terminals without glitches; this is a \
             broadcast scenario (`vodbench run` runs its sweep)",
            path.display()
        ));
    }
    let opts = match args.limits.options() {
        Ok(o) => o,
        Err(e) => return input_error(e),
    };
    let mut suite = match SweepSuite::load(path, registry) {
        Ok(s) => s,
        Err(e) => return input_error(e),
    };
    // each point's index in grid order (names its checkpoint)
    let mut grid: Vec<usize> = (0..suite.points.len()).collect();
    if !args.points.is_empty() {
        let n = suite.points.len();
        if let Some(bad) = args.points.iter().find(|&&i| i >= n) {
            return input_error(format!(
                "--points: {bad} is not a point of {} (0..{n})",
                path.display()
            ));
        }
        let keep: std::collections::BTreeSet<usize> = args.points.iter().copied().collect();
        suite.points = suite
            .points
            .into_iter()
            .enumerate()
            .filter(|(i, _)| keep.contains(i))
            .map(|(_, p)| p)
            .collect();
        grid = keep.into_iter().collect();
    }
    for p in &suite.points {
        if p.scenario.file.workload.generate.is_none() {
            return input_error(format!(
                "{}: sweep varies the number of terminals, so the workload must come from \
                 [workload.generate], not from a trace",
                path.display()
            ));
        }
        if let Err(e) = runner::preflight(&p.scenario) {
            return input_error(format!("sweep point ({}): {e}", p.label()));
        }
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(&format!("{}-sweep", suite.name)));
    if let Err(e) = output::check_output_dir(&dir) {
        return failure(e);
    }
    let pool = match worker_pool(args.limits.threads) {
        Ok(p) => p,
        Err(e) => return failure(e),
    };
    let bar = progress_bar(args.quiet, "{spinner} sweep {msg}: {pos} runs ({elapsed})");
    let npoints = suite.points.len();
    let labels: Vec<String> = suite.points.iter().map(|p| p.label()).collect();
    let on_probe = |i: usize, p: &Probe| {
        bar.inc(1);
        bar.set_message(format!(
            "{npoints} points; last: {} rep. {}: {} terminals, {} glitches",
            labels[i],
            p.replication + 1,
            p.terminals,
            p.glitches
        ));
    };
    let keys: Vec<String> = suite
        .points
        .iter()
        .map(|p| checkpoint::point_key(&p.scenario, &opts))
        .collect();
    let mut prior: Vec<Option<SearchResult>> = vec![None; npoints];
    if args.resume {
        for (i, p) in suite.points.iter().enumerate() {
            let why = match checkpoint::load(&dir, grid[i], &keys[i], &p.scenario, &opts) {
                Ok(r) => {
                    prior[i] = Some(r);
                    continue;
                }
                Err(Unused::Absent) => continue,
                Err(Unused::Stale) => {
                    "saved for another scenario, other limits or another vodbench".to_string()
                }
                Err(Unused::Invalid(m)) => format!("unreadable ({m})"),
            };
            if !args.quiet {
                eprintln!(
                    "point {} ({}): {} not used: {why}; searching it again",
                    grid[i],
                    labels[i],
                    dir.join(checkpoint::relative_path(grid[i])).display()
                );
            }
        }
        if !args.quiet {
            let n = prior.iter().flatten().count();
            eprintln!(
                "resuming {}: {n} of {npoints} points already searched",
                dir.display()
            );
        }
    }
    let cache = match args.limits.open_cache() {
        Ok(c) => c,
        Err(e) => return input_error(format!("--cache: {e}")),
    };
    let save_error = std::sync::Mutex::new(None::<String>);
    let on_done = |i: usize, r: &SearchResult| {
        if let Err(e) = checkpoint::save(&dir, grid[i], &checkpoint::to_text(&keys[i], r)) {
            let mut first = save_error.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert_with(|| e.to_string());
        }
    };
    let started = Instant::now();
    let outcome =
        pool.install(|| sweep_search(&suite, &opts, &prior, cache.as_ref(), &on_probe, &on_done));
    bar.finish_and_clear();
    if let (Some(c), false) = (&cache, args.quiet) {
        eprint!("{}", cache_text(c));
    }
    if let Some(e) = save_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        if !args.quiet {
            eprintln!("warning: a point's checkpoint could not be saved: {e}");
        }
    }
    let (result, searches) = match outcome {
        Ok(r) => r,
        Err((i, RunError::Scenario(e))) => {
            return input_error(format!("sweep point ({}): {e}", labels[i]))
        }
        Err((i, e)) => return failure(format!("sweep point ({}): {e}", labels[i])),
    };
    let wall = started.elapsed();
    let mut manifest = crate::search::search_manifest(&suite.points[0].scenario, &opts);
    if let Some(o) = manifest.as_object_mut() {
        o.insert("kind".into(), "sweep".into());
        o.insert(
            "resumed_points".into(),
            serde_json::json!((0..npoints)
                .filter(|&i| prior[i].is_some())
                .map(|i| grid[i])
                .collect::<Vec<_>>()),
        );
        o.insert("sweep".into(), serde_json::json!(suite.axes));
        o.insert(
            "points".into(),
            serde_json::json!(suite
                .points
                .iter()
                .map(|p| values_json(&p.values))
                .collect::<Vec<_>>()),
        );
    }
    let mut files: Vec<(String, String)> = vec![
        ("manifest.json".into(), output::to_json(&manifest)),
        ("sweep.json".into(), output::to_json(&result)),
        ("sweep.csv".into(), sweep_csv(&result)),
        ("sweep.md".into(), markdown(&result)),
    ];
    for (i, s) in searches.iter().enumerate() {
        files.push((
            format!("curve-{i:03}.csv"),
            crate::search::curve_csv(&s.probes),
        ));
        files.push((
            checkpoint::relative_path(grid[i]),
            checkpoint::to_text(&keys[i], s),
        ));
    }
    files.extend(checkpoint::saved_except(&dir, &grid));
    let refs: Vec<(&str, String)> = files.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    // report.html from the written folder; sweep.csv and the curves are written above
    let writers = output::Writers {
        tables: None,
        reporter: outputs.reporter(),
    };
    if let Err(e) = output::write_folder(&dir, &refs, &[], writers, &[]) {
        return failure(e);
    }
    if !args.quiet {
        print!("{}", markdown(&result));
        println!(
            "wall time {:.1}s for {} points; output: {}",
            wall.as_secs_f64(),
            npoints,
            dir.display()
        );
    }
    ExitCode::SUCCESS
}

/// `vodbench sweep-table DIR…`: the `sweep.md` tables of saved `vodbench sweep` folders,
/// rebuilt from their `sweep.json`, one after another (for `scenarios/spiffi/README.md`).
pub fn cmd_sweep_table(dirs: &[PathBuf]) -> ExitCode {
    let mut out = String::new();
    for d in dirs {
        let file = d.join("sweep.json");
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => return input_error(format!("{}: {e}", file.display())),
        };
        let r: SweepResult = match serde_json::from_str(&text) {
            Ok(r) => r,
            Err(e) => {
                return input_error(format!(
                    "{}: not a `vodbench sweep` result: {e}",
                    file.display()
                ))
            }
        };
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&markdown(&r));
    }
    print!("{out}");
    ExitCode::SUCCESS
}
