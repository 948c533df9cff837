//! `vodbench export DIR --format csv|parquet|json`: a saved folder's summary and tables in
//! another format, one file per format (hyperfine-style): [`csv`], [`parquet`], [`json`].
//!
//! CSV and Parquet write one file per table plus `summary.<ext>` (every metric of
//! `summary.json` as `metric,value` rows); JSON writes one `export.json` holding the summary
//! and every table as an array of row objects.

pub mod csv;
pub mod json;
pub mod parquet;

use crate::folder::RunFolder;
use polars::prelude::*;
use std::path::{Path, PathBuf};
use vodbench_harness::output::{ExportFormat, ReportError};
use vodbench_harness::results::flatten_metrics;

/// Every metric of `summary.json` as a two-column table (`metric`, `value`).
pub fn summary_frame(summary: &serde_json::Value) -> PolarsResult<DataFrame> {
    let m = flatten_metrics(summary);
    let keys: Vec<&str> = m.keys().map(String::as_str).collect();
    let values: Vec<f64> = m.values().copied().collect();
    DataFrame::new(
        keys.len(),
        vec![
            Column::new("metric".into(), keys),
            Column::new("value".into(), values),
        ],
    )
}

/// Exports the folder `dir` as `format` into `out`.
pub fn export(dir: &Path, format: ExportFormat, out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let folder = RunFolder::load(dir)?;
    std::fs::create_dir_all(out)
        .map_err(|e| ReportError::Failure(format!("{}: {e}", out.display())))?;
    let fail = |e: String| ReportError::Failure(e);
    match format {
        ExportFormat::Csv => csv::write(&folder, out).map_err(fail),
        ExportFormat::Parquet => parquet::write(&folder, out).map_err(fail),
        ExportFormat::Json => json::write(&folder, out).map_err(fail),
    }
}

/// The tables to export: `summary` first, then every saved table by name.
pub(crate) fn frames(folder: &RunFolder) -> Result<Vec<(String, DataFrame)>, String> {
    let mut v = vec![(
        "summary".to_string(),
        summary_frame(&folder.summary).map_err(|e| e.to_string())?,
    )];
    v.extend(folder.tables.iter().map(|(k, df)| (k.clone(), df.clone())));
    Ok(v)
}
