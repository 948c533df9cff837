//! The sweep behind `vodbench sweep`: SPIFFI's maximum glitch-free terminal count (§7.1) at
//! every point of an on-demand sweep, beside the paper's published values.
//!
//! Each point is a [`search`](super::search) of its own (same replications, seeds and stopping
//! rule). Points and their replications run in parallel in one rayon pool; every search is
//! independent of the thread count, so `sweep.json` is too. Besides the maximum, each point
//! reports what the runs at the answer measured (disk utilization, SPIFFI Fig. 14; references
//! to pages another terminal referenced first, Fig. 16), its scaleup on a scaleup series
//! (§7.6, Table 2) and its cost per terminal when the scenario has a `[cost]` (Table 3).
//!
//! Outputs: `sweep.json`, `sweep.csv` (one row per point), `sweep.md`, a markdown table of
//! paper vs vodbench (and the `[analytic]` model's maximum where the scenario has one) (`vodbench sweep-table` prints it again from saved folders), a
//! `curve-NNN.csv` per point, and `report.html` from the installed reporter (the
//! `vodbench-reports` crate draws the maxima, the paper's beside them and [`table`]).

use super::cache::RunCache;
use super::checkpoint;
use super::search::{search_cached, search_manifest, SearchOptions};
use crate::output::Folder;
use crate::results::search::{Probe, SearchResult};
use crate::results::sweep::{PointSearch, SweepResult};
use crate::scenario::grid::value_text;
use crate::system::ondemand::outputs::{csv_field, values_json};
use crate::system::ondemand::scenario::SweepSuite;
use crate::system::ondemand::OnDemand;
use crate::system::RunError;
use rayon::prelude::*;
use std::path::Path;

/// Searches every point (inside the current rayon pool) but those with a result in `prior`
/// (indexed like the points; shorter means none), which are taken as they are.
/// Simulations are taken from and saved to `cache` if given (see [`super::cache`]).
/// `on_probe(point, probe)` sees every simulation, `on_done(point, result)` every search as
/// it finishes.
pub fn sweep_search(
    suite: &SweepSuite,
    opts: &SearchOptions,
    prior: &[Option<SearchResult>],
    cache: Option<&RunCache>,
    on_probe: &(dyn Fn(usize, &Probe) + Sync),
    on_done: &(dyn Fn(usize, &SearchResult) + Sync),
) -> Result<(SweepResult, Vec<SearchResult>), RunError> {
    let results: Vec<SearchResult> = suite
        .points
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            if let Some(Some(r)) = prior.get(i) {
                return Ok(r.clone());
            }
            let r = search_cached::<OnDemand>(&p.scenario, opts, cache, &|pr| on_probe(i, pr))
                .map_err(|e| RunError::Point {
                    label: p.label(),
                    error: Box::new(e),
                })?;
            on_done(i, &r);
            Ok(r)
        })
        .collect::<Result<_, RunError>>()?;
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
            let capped = r.per_replication.iter().filter(|x| x.capped).count() as u32;
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
                // a capped maximum is a lower bound, not a converged answer
                converged: r.converged && capped == 0,
                capped_replications: capped,
                terminal_cap: (capped > 0).then_some(r.terminal_cap),
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
                model_max_terminals: r.model_max_terminals,
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
    let has_model = r.points.iter().any(|p| p.model_max_terminals.is_some());
    if has_model {
        head.push("model_max_terminals".into());
    }
    // only a sweep with a capped point has the columns (others keep their layout)
    let has_capped = r.points.iter().any(|p| p.capped_replications > 0);
    if has_capped {
        head.extend(["capped_replications".into(), "terminal_cap".into()]);
    }
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
        if has_model {
            row.push(opt(p.model_max_terminals));
        }
        if has_capped {
            row.push(p.capped_replications.to_string());
            row.push(p.terminal_cap.map_or_else(String::new, |c| c.to_string()));
        }
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
    let head: Vec<String> = head.iter().map(|h| md_text(h)).collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| row.iter().map(|c| md_text(c)).collect())
        .collect();
    let mut out = format!("**{}**", md_text(&r.scenario));
    if !r.description.is_empty() {
        out.push_str(&format!(" — {}", md_text(&r.description)));
    }
    out.push_str("\n\n");
    if let Some(m) = &r.method {
        out.push_str(&format!("*{m}*\n\n"));
    }
    if r.stop_at_glitch {
        out.push_str(&format!("*{STOPPED_AT_GLITCH}*\n\n"));
    }
    if let Some(note) = capped_note(r) {
        out.push_str(&format!("*{note}*\n\n"));
    }
    out.push_str(&format!("| {} |\n", head.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(head.len())));
    for row in rows {
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}

/// `text` (a label, a name, a description from the scenario file) as Markdown shows it, not
/// as markup: HTML's `&`, `<` and `>` as entities, a table's `|` escaped, line breaks as
/// spaces, so a label can neither inject HTML nor break the table.
fn md_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// What a sweep with capped points says of them (`sweep.md`, the printed table,
/// `report.html`): which points never glitched up to `--max-terminals`, so that their maxima
/// are lower bounds; `None` when no point was capped.
pub fn capped_note(r: &SweepResult) -> Option<String> {
    let capped: Vec<&PointSearch> = r
        .points
        .iter()
        .filter(|p| p.capped_replications > 0)
        .collect();
    let cap = capped.iter().find_map(|p| p.terminal_cap)?;
    let names: Vec<String> = capped
        .iter()
        .map(|p| format!("{} ({})", p.point, p.label))
        .collect();
    Some(format!(
        "⚠ {} of {} points never glitched up to {cap} terminals in some replication \
         (point {}): their maxima (marked ≥) are the cap, a lower bound, not a converged \
         maximum; raise --max-terminals",
        capped.len(),
        r.points.len(),
        names.join(", ")
    ))
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
    if any(&|p: &PointSearch| p.model_max_terminals.is_some()) {
        head.push("model".into());
        cells.push(Box::new(move |p| {
            p.model_max_terminals.map_or_else(dash, num)
        }));
    }
    head.push("vodbench (90 % CI)".into());
    cells.push(Box::new(|p| {
        let capped = p.capped_text();
        format!(
            "{}{} ({:.0}–{:.0}){}",
            if capped.is_some() { "≥" } else { "" },
            p.max_terminals,
            p.ci_low,
            p.ci_high,
            match capped {
                Some(c) => format!(" ⚠ {c}"),
                None if !p.converged => " ⚠ not converged".to_string(),
                None => String::new(),
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

/// The manifest of a sweep: its first point's search manifest with `"kind": "sweep"`, the
/// grid indices of the points taken from checkpoints (`resumed`), the axes and every point's
/// values.
pub fn sweep_manifest(
    suite: &SweepSuite,
    opts: &SearchOptions,
    resumed: &[usize],
) -> serde_json::Value {
    let mut manifest = search_manifest::<OnDemand>(&suite.points[0].scenario, opts);
    if let Some(o) = manifest.as_object_mut() {
        o.insert("kind".into(), "sweep".into());
        o.insert("resumed_points".into(), serde_json::json!(resumed));
        // what its checkpoints are keyed by besides the scenario: the executable, and the
        // files every point reads (disk specifications), when any does
        o.insert(
            "build".into(),
            super::cache::build_hash()
                .unwrap_or_else(|e| format!("unidentified ({e})"))
                .into(),
        );
        let files: std::collections::BTreeMap<String, String> = suite
            .points
            .iter()
            .filter_map(|p| crate::system::ondemand::runner::input_files(&p.scenario).ok())
            .flatten()
            .collect();
        if !files.is_empty() {
            o.insert("input_files".into(), serde_json::json!(files));
        }
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
    manifest
}

/// The output folder of a sweep into `dir`: `manifest.json`, `sweep.json`, `sweep.csv`,
/// `sweep.md`, and per point searched (`grid` holds their indices in grid order, `keys` their
/// [`checkpoint::point_key`]s) its `curve-NNN.csv` and its checkpoint, beside the
/// checkpoints of the other points already in `dir` (a `--points` run keeps them); its
/// `report.html` is drawn from the written folder.
pub fn sweep_folder(
    dir: &Path,
    manifest: &serde_json::Value,
    result: &SweepResult,
    searches: &[SearchResult],
    grid: &[usize],
    keys: &[String],
) -> Folder {
    let mut files: Vec<(String, String)> = vec![
        ("manifest.json".into(), crate::output::to_json(manifest)),
        ("sweep.json".into(), crate::output::to_json(result)),
        ("sweep.csv".into(), sweep_csv(result)),
        ("sweep.md".into(), markdown(result)),
        // its checkpoints' folder is marked as one, so that a later `--resume` may save
        // points into it
        (
            format!("{}/{}", checkpoint::FOLDER, crate::ownership::MARK),
            crate::ownership::checkpoints_mark_text(crate::ownership::Writer::Sweep),
        ),
    ];
    for (i, s) in searches.iter().enumerate() {
        files.push((
            format!("curve-{i:03}.csv"),
            super::search::curve_csv(&s.probes),
        ));
        files.push((
            checkpoint::relative_path(grid[i]),
            checkpoint::to_text(&keys[i], s),
        ));
    }
    files.extend(checkpoint::saved_except(dir, grid));
    Folder {
        files,
        report: true,
        ..Folder::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue49_sweep_md_shows_names_and_labels_as_text_not_html() {
        let r = SweepResult {
            scenario: "<b>fig</b>".into(),
            description: "R&D <img src=x onerror=alert(1)>".into(),
            seed: 1,
            sweep: vec!["<script>a|b</script>".into()],
            points: Vec::new(),
            method: None,
            stop_at_glitch: false,
        };
        let md = markdown(&r);
        assert!(!md.contains('<') && !md.contains('>'), "{md}");
        assert!(
            md.starts_with(
                "**&lt;b&gt;fig&lt;/b&gt;** — R&amp;D &lt;img src=x onerror=alert(1)&gt;"
            ),
            "{md}"
        );
        assert!(
            md.contains("| &lt;script&gt;a\\|b&lt;/script&gt; |"),
            "{md}"
        );
    }
}
