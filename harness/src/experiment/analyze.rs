//! `vodbench analyze`: the analytic model a scenario (or each point of its sweep) declares,
//! evaluated in closed form beside what the simulation measures.
//!
//! A model ([`crate::plugin::AnalyticModel`]) is chosen like any plugin, in the on-demand
//! `[analytic]` table or a broadcast's `[broadcast.analytic]`; a sweep may vary it and its
//! parameters like any key. Each point's system describes the point to the model
//! ([`crate::plugin::ModelInput`]) and the model returns values under the keys `summary.json`
//! and `sweep.json` use where a run measures the same quantity, tables (curves, grids) and
//! notes.
//!
//! Outputs: `analysis.json` ([`AnalysisResult`]), `analysis.csv` (one row per point, one
//! column per value, the published `[paper]` values beside as `paper.KEY`), one
//! `analysis-TABLE.csv` per table (every point's rows, the point first), and a
//! `manifest.json`. [`text`] is what the command prints.

use crate::output::Folder;
use crate::results::analysis::{AnalysisResult, PointAnalysis};
use crate::system::ondemand::outputs::csv_field;
use crate::system::System;
use std::collections::BTreeSet;

/// Every point of `suite` analysed; `None` when no point names a model.
pub fn analyze<S: System>(
    suite: &S::Suite,
) -> Result<Option<AnalysisResult>, crate::scenario::ScenarioError> {
    let points = S::analyze(suite)?;
    if points.iter().all(|p| p.analysis.is_none()) {
        return Ok(None);
    }
    let sweep = points
        .first()
        .and_then(|p| p.values.as_object())
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    Ok(Some(AnalysisResult {
        scenario: S::name(suite).to_string(),
        system: S::NAME.to_string(),
        sweep,
        points,
    }))
}

/// A number for people: whole numbers as integers, others with 4 significant digits
/// (scientific notation when very large or small).
pub fn number_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{v:.3e}");
    }
    let digits = 3 - a.log10().floor() as i32;
    format!("{v:.*}", digits.max(0) as usize)
}

/// The value keys of every point, in order of first appearance, sorted within a point.
fn value_keys(r: &AnalysisResult) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut keys = Vec::new();
    for p in &r.points {
        for k in p.analysis.iter().flat_map(|a| a.values.keys()) {
            if seen.insert(k.clone()) {
                keys.push(k.clone());
            }
        }
    }
    keys
}

/// The published keys of every point, sorted.
fn paper_keys(r: &AnalysisResult) -> Vec<String> {
    let keys: BTreeSet<&String> = r.points.iter().flat_map(|p| p.paper.keys()).collect();
    keys.into_iter().cloned().collect()
}

/// An axis value as CSV text.
fn axis_cell(p: &PointAnalysis, axis: &str) -> String {
    match &p.values[axis] {
        serde_json::Value::String(s) => csv_field(s),
        v => csv_field(&v.to_string()),
    }
}

/// `analysis.csv`: one row per point: its index, axis values and model, each value (empty
/// where the point's model gives none), and the published values as `paper.KEY`.
pub fn analysis_csv(r: &AnalysisResult) -> String {
    let (keys, paper) = (value_keys(r), paper_keys(r));
    let mut head = vec!["point".to_string()];
    head.extend(r.sweep.iter().map(|a| csv_field(a)));
    head.push("model".into());
    head.extend(keys.iter().map(|k| csv_field(k)));
    head.extend(paper.iter().map(|k| csv_field(&format!("paper.{k}"))));
    let mut out = head.join(",") + "\n";
    for p in &r.points {
        let mut row = vec![p.point.to_string()];
        row.extend(r.sweep.iter().map(|a| axis_cell(p, a)));
        row.push(p.model.clone().unwrap_or_default());
        let values = p.analysis.as_ref().map(|a| &a.values);
        row.extend(keys.iter().map(|k| {
            values
                .and_then(|v| v.get(k))
                .map_or(String::new(), |v| v.to_string())
        }));
        row.extend(
            paper
                .iter()
                .map(|k| p.paper.get(k).map_or(String::new(), |v| v.to_string())),
        );
        out.push_str(&row.join(","));
        out.push('\n');
    }
    out
}

/// The names of every table some point's model gives, in order of first appearance.
fn table_names(r: &AnalysisResult) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for t in r
        .points
        .iter()
        .flat_map(|p| p.analysis.iter().flat_map(|a| &a.tables))
    {
        if !names.contains(&t.name) {
            names.push(t.name.clone());
        }
    }
    names
}

/// `analysis-NAME.csv`: table `name` of every point that has it, each row led by the point's
/// index and axis values. The columns are every point's, in order of first appearance; a
/// point's table without one of them leaves its cells empty.
pub fn table_csv(r: &AnalysisResult, name: &str) -> String {
    let tables: Vec<(&PointAnalysis, &crate::plugin::AnalysisTable)> = r
        .points
        .iter()
        .filter_map(|p| {
            let t = p
                .analysis
                .as_ref()?
                .tables
                .iter()
                .find(|t| t.name == name)?;
            Some((p, t))
        })
        .collect();
    if tables.is_empty() {
        return String::new();
    }
    // the union of the points' columns, in order of first appearance (a sweep's points may
    // name theirs differently: one DM_max column each); a point's missing cells are empty
    let mut columns: Vec<&str> = Vec::new();
    for (_, t) in &tables {
        for c in &t.columns {
            if !columns.contains(&c.as_str()) {
                columns.push(c);
            }
        }
    }
    let mut head = vec!["point".to_string()];
    head.extend(r.sweep.iter().map(|a| csv_field(a)));
    head.extend(columns.iter().map(|c| csv_field(c)));
    let mut out = head.join(",") + "\n";
    for (p, t) in &tables {
        let at: Vec<Option<usize>> = columns
            .iter()
            .map(|c| t.columns.iter().position(|x| x == c))
            .collect();
        for row in &t.rows {
            let mut cells = vec![p.point.to_string()];
            cells.extend(r.sweep.iter().map(|a| axis_cell(p, a)));
            cells.extend(at.iter().map(|i| {
                i.and_then(|i| row.get(i))
                    .map_or_else(String::new, |v| v.to_string())
            }));
            out.push_str(&cells.join(","));
            out.push('\n');
        }
    }
    out
}

/// Pads `rows` (header first) into aligned columns, the first left-aligned.
fn aligned(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = width[c])
                } else {
                    format!("{s:>w$}", w = width[c])
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// What `vodbench analyze` prints: a table of every point's values (published values beside
/// as `paper:KEY`), then each point's tables and notes.
pub fn text(r: &AnalysisResult) -> String {
    let (keys, paper) = (value_keys(r), paper_keys(r));
    let mut out = format!("{} ({}): analytic model", r.scenario, r.system);
    let models: BTreeSet<&str> = r.points.iter().filter_map(|p| p.model.as_deref()).collect();
    out.push_str(&format!(
        "{} {}\n\n",
        if models.len() == 1 { "" } else { "s" },
        models.into_iter().collect::<Vec<_>>().join(", ")
    ));
    let mut head = vec!["point".to_string()];
    head.extend(keys.iter().cloned());
    head.extend(paper.iter().map(|k| format!("paper:{k}")));
    let mut rows = vec![head];
    for p in &r.points {
        let name = if p.label.is_empty() {
            p.point.to_string()
        } else {
            format!("{} {}", p.point, p.label)
        };
        let mut row = vec![name];
        let values = p.analysis.as_ref().map(|a| &a.values);
        row.extend(keys.iter().map(|k| {
            values
                .and_then(|v| v.get(k))
                .map_or("-".to_string(), |v| number_text(*v))
        }));
        row.extend(
            paper
                .iter()
                .map(|k| p.paper.get(k).map_or("-".to_string(), |v| number_text(*v))),
        );
        rows.push(row);
    }
    out.push_str(&aligned(&rows));
    // a table the same as an earlier point's (a curve that does not depend on the swept
    // key) is named, not printed again
    let mut shown: Vec<(usize, &crate::plugin::AnalysisTable)> = Vec::new();
    for p in &r.points {
        let Some(a) = &p.analysis else { continue };
        let which = if r.points.len() == 1 {
            String::new()
        } else {
            format!(" (point {} {})", p.point, p.label)
        };
        for t in &a.tables {
            if let Some((i, _)) = shown.iter().find(|(_, s)| *s == t) {
                out.push_str(&format!("\n{}{which}: as at point {i}\n", t.name));
                continue;
            }
            shown.push((p.point, t));
            if t.rows.len() > 40 {
                out.push_str(&format!(
                    "\n{}{which}: {} ({} rows: analysis-{}.csv)\n",
                    t.name,
                    t.description,
                    t.rows.len(),
                    t.name
                ));
                continue;
            }
            out.push_str(&format!("\n{}{which}: {}\n", t.name, t.description));
            let mut rows = vec![t.columns.clone()];
            rows.extend(
                t.rows
                    .iter()
                    .map(|r| r.iter().map(|v| number_text(*v)).collect()),
            );
            out.push_str(&aligned(&rows));
        }
        for n in &a.notes {
            out.push_str(&format!("note{which}: {n}\n"));
        }
    }
    out
}

/// The output folder of an analysis: `manifest.json` (`manifest`), `analysis.json`,
/// `analysis.csv` and one `analysis-TABLE.csv` per table.
pub fn analysis_folder(manifest: &serde_json::Value, r: &AnalysisResult) -> Folder {
    let mut files = vec![
        (
            "manifest.json".to_string(),
            crate::output::to_json(manifest),
        ),
        ("analysis.json".to_string(), crate::output::to_json(r)),
        ("analysis.csv".to_string(), analysis_csv(r)),
    ];
    for name in table_names(r) {
        let csv = table_csv(r, &name);
        files.push((format!("analysis-{name}.csv"), csv));
    }
    Folder {
        files,
        ..Folder::default()
    }
}

/// The manifest of an analysis: what was evaluated, from which file, with which vodbench.
pub fn analysis_manifest(r: &AnalysisResult, file: &std::path::Path) -> serde_json::Value {
    serde_json::json!({
        "vodbench_version": env!("CARGO_PKG_VERSION"),
        "kind": "analysis",
        "scenario_file": file.display().to_string(),
        "system": r.system,
        "models": r.points.iter().map(|p| serde_json::json!({
            "point": p.point,
            "model": p.model,
            "params": p.params,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::{Analysis, AnalysisTable};

    fn result() -> AnalysisResult {
        let mut a = Analysis::default();
        a.value("max_terminals", 19.0)
            .value("bus.utilization_ratio", 0.35774);
        a.tables.push(AnalysisTable {
            name: "curve".into(),
            description: "a curve".into(),
            columns: vec!["n".into(), "b".into()],
            rows: vec![vec![1.0, 0.5], vec![2.0, 1.25]],
        });
        a.note("a note");
        let point = |i: usize, label: &str, analysis: Option<Analysis>| PointAnalysis {
            point: i,
            values: serde_json::json!({ "server.stripe": label }),
            label: label.into(),
            model: analysis.as_ref().map(|_| "wu-blocksize".to_string()),
            params: serde_json::Value::Null,
            analysis,
            paper: [("max_terminals".to_string(), 18.0)].into_iter().collect(),
        };
        AnalysisResult {
            scenario: "s".into(),
            system: "on-demand".into(),
            sweep: vec!["server.stripe".into()],
            points: vec![point(0, "512KB", Some(a)), point(1, "1MB", None)],
        }
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(number_text(200.0), "200");
        assert_eq!(number_text(0.010667), "0.01067");
        assert_eq!(number_text(14.5174), "14.52");
        assert_eq!(number_text(-0.5), "-0.5000");
        assert_eq!(number_text(2.5e-5), "2.500e-5");
        assert_eq!(number_text(324_000.4), "324000");
    }

    #[test]
    fn csv_has_a_row_per_point_and_a_column_per_value_and_published_value() {
        let csv = analysis_csv(&result());
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "point,server.stripe,model,bus.utilization_ratio,max_terminals,paper.max_terminals"
        );
        assert_eq!(lines[1], "0,512KB,wu-blocksize,0.35774,19,18");
        assert_eq!(lines[2], "1,1MB,,,,18");
        let t = table_csv(&result(), "curve");
        assert_eq!(
            t,
            "point,server.stripe,n,b\n0,512KB,1,0.5\n0,512KB,2,1.25\n"
        );
    }

    /// A sweep whose points name their columns differently (one DM_max each) keeps every
    /// point's rows, under the union of the columns.
    #[test]
    fn table_csv_keeps_points_whose_columns_differ() {
        let mut r = result();
        let mut b = r.points[0].analysis.clone().unwrap();
        b.tables[0].columns = vec!["n".into(), "c".into()];
        r.points[1].analysis = Some(b);
        let t = table_csv(&r, "curve");
        assert_eq!(
            t,
            "point,server.stripe,n,b,c\n0,512KB,1,0.5,\n0,512KB,2,1.25,\n1,1MB,1,,0.5\n\
             1,1MB,2,,1.25\n"
        );
    }

    #[test]
    fn text_shows_values_beside_the_paper_then_tables_and_notes() {
        let t = text(&result());
        assert!(
            t.starts_with("s (on-demand): analytic model wu-blocksize\n"),
            "{t}"
        );
        assert!(t.contains("paper:max_terminals"), "{t}");
        assert!(t.contains("0 512KB"), "{t}");
        assert!(t.contains("curve (point 0 512KB): a curve"), "{t}");
        assert!(t.contains("note (point 0 512KB): a note"), "{t}");
    }
}
