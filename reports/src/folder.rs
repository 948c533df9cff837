//! Reading a saved output folder back: `manifest.json`, `summary.json` and the CSV tables.
//!
//! Reports are made only from what a run saved (DESIGN §6): nothing here simulates.

use polars::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use vodbench_harness::output::ReportError;

/// What produced a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderKind {
    /// `vodbench run` of an on-demand scenario.
    OnDemand,
    /// `vodbench run` of an on-demand sweep file: `summary.json` with `points` (each point's
    /// summary and swept values) and `sweep`, `sweep.csv`, a folder per point.
    RunSweep,
    /// `vodbench run` of a broadcast scenario (`"kind": "broadcast"` in the manifest).
    Broadcast,
    /// `vodbench search`: `search.json` (held as the summary) and `curve.csv`.
    Search,
    /// `vodbench sweep`: `sweep.json` (held as the summary), `sweep.csv` and a
    /// `curve-NNN.csv` per point.
    Sweep,
    /// `vodbench cache replay`: `cache.json` (held as the summary), `cache.csv` and
    /// `speed.csv`.
    Cache,
}

/// A saved output folder, loaded.
#[derive(Debug, Clone)]
pub struct RunFolder {
    /// Where it was read from.
    pub dir: PathBuf,
    /// On-demand or broadcast.
    pub kind: FolderKind,
    /// `manifest.json`.
    pub manifest: serde_json::Value,
    /// `summary.json`.
    pub summary: serde_json::Value,
    /// Every `*.csv` table by file stem.
    pub tables: BTreeMap<String, DataFrame>,
}

fn input(msg: String) -> ReportError {
    ReportError::Input(msg)
}

fn read_json(path: &Path) -> Result<serde_json::Value, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        input(format!(
            "{}: cannot read ({e}); not a vodbench output folder?",
            path.display()
        ))
    })?;
    serde_json::from_str(&text)
        .map_err(|e| input(format!("{}: not valid JSON: {e}", path.display())))
}

/// Reads one CSV table with polars (column types inferred from every row).
pub fn read_csv(path: &Path) -> Result<DataFrame, ReportError> {
    CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(None)
        .try_into_reader_with_file_path(Some(path.to_path_buf()))
        .and_then(|r| r.finish())
        .map_err(|e| input(format!("{}: not a readable CSV table: {e}", path.display())))
}

impl RunFolder {
    /// Loads `dir`; an input error names the folder when it is missing or not an output
    /// folder.
    pub fn load(dir: &Path) -> Result<RunFolder, ReportError> {
        if !dir.is_dir() {
            return Err(input(format!("{}: no such folder", dir.display())));
        }
        let search = !dir.join("summary.json").is_file() && dir.join("search.json").is_file();
        let sweep = !dir.join("summary.json").is_file() && dir.join("sweep.json").is_file();
        let cache = !dir.join("summary.json").is_file() && dir.join("cache.json").is_file();
        if !search && !sweep && !cache && !dir.join("summary.json").is_file() {
            return Err(input(format!(
                "{}: not a vodbench output folder (it has no summary.json)",
                dir.display()
            )));
        }
        let summary = read_json(&dir.join(if search {
            "search.json"
        } else if sweep {
            "sweep.json"
        } else if cache {
            "cache.json"
        } else {
            "summary.json"
        }))?;
        let manifest = if dir.join("manifest.json").is_file() {
            read_json(&dir.join("manifest.json"))?
        } else {
            serde_json::Value::Null
        };
        let kind = if search {
            FolderKind::Search
        } else if sweep {
            FolderKind::Sweep
        } else if cache {
            FolderKind::Cache
        } else if manifest["kind"] == "broadcast" {
            FolderKind::Broadcast
        } else if summary["points"].is_array() && summary["sweep"].is_array() {
            FolderKind::RunSweep
        } else {
            FolderKind::OnDemand
        };
        let mut tables = BTreeMap::new();
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| input(format!("{}: {e}", dir.display())))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "csv"))
            .collect();
        entries.sort();
        for p in entries {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            tables.insert(stem, read_csv(&p)?);
        }
        Ok(RunFolder {
            dir: dir.to_path_buf(),
            kind,
            manifest,
            summary,
            tables,
        })
    }

    /// The scenario name (summary, else manifest).
    pub fn scenario(&self) -> String {
        self.summary["scenario"]
            .as_str()
            .or(self.manifest["scenario"].as_str())
            .unwrap_or("scenario")
            .to_string()
    }

    /// A column of table `table` as floats (missing table or column: `None`).
    pub fn f64s(&self, table: &str, column: &str) -> Option<Vec<f64>> {
        col_f64(self.tables.get(table)?, column)
    }
}

/// A column as floats (nulls become NaN); `None` when the column is missing or not numeric.
pub fn col_f64(df: &DataFrame, column: &str) -> Option<Vec<f64>> {
    let c = df.column(column).ok()?;
    let c = c.cast(&DataType::Float64).ok()?;
    let ca = c.f64().ok()?;
    Some(ca.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
}

/// A column as text (numbers written as polars shows them).
pub fn col_text(df: &DataFrame, column: &str) -> Option<Vec<String>> {
    let c = df.column(column).ok()?;
    let c = c.cast(&DataType::String).ok()?;
    let ca = c.str().ok()?;
    Some(
        ca.iter()
            .map(|v| v.unwrap_or_default().to_string())
            .collect(),
    )
}
