//! # vodbench-reports
//!
//! Turns saved run outputs into reports. The harness simulates and saves data
//! (`summary.json`, `manifest.json`, tables); this crate only reads saved folders back, as
//! criterion.rs separates analysis from reporting:
//!
//! ```text
//!  run ─► output folder ─┬─► tables: CSV + Parquet (polars)           [`PolarsTableWriter`]
//!                        ├─► report.html (plotters SVG, templates)    [`HtmlReporter`]
//!                        ├─► vodbench compare A B … ─► report.html + compare.json
//!                        └─► vodbench export DIR --format csv|parquet|json
//! ```
//!
//! Every HTML report is a [`html::Page`] (a serializable context: cards, facts, charts,
//! tables) filled into one template; charts are inline SVG drawn by [`charts`]; the page has
//! inline CSS, no script and a Content-Security-Policy that forbids loading anything. The
//! binary hands both hooks to the command line with [`outputs`].
#![deny(missing_docs)]

pub mod broadcast_report;
pub mod cache_report;
pub mod charts;
pub mod compare;
pub mod export;
pub mod folder;
pub mod html;
pub mod run_report;
pub mod run_sweep_report;
pub mod search_report;
pub mod sweep_report;
mod tables;

pub use tables::{to_dataframe, PolarsTableWriter};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use vodbench_harness::output::{CompareRun, ExportFormat, Outputs, ReportError, Reporter};

/// The reporter the binary installs: `report.html` for every output folder, comparisons and
/// exports.
#[derive(Debug, Default, Clone, Copy)]
pub struct HtmlReporter;

/// The report page of a saved output folder (on-demand run, broadcast run, search, sweep or
/// cache replay).
pub fn folder_page(dir: &Path) -> Result<html::Page, String> {
    let f = folder::RunFolder::load(dir).map_err(|e| e.to_string())?;
    match f.kind {
        folder::FolderKind::OnDemand => run_report::page(&f),
        folder::FolderKind::RunSweep => run_sweep_report::page(&f),
        folder::FolderKind::Broadcast => broadcast_report::page(&f),
        folder::FolderKind::Search => search_report::page(&f),
        folder::FolderKind::Sweep => sweep_report::page(&f),
        folder::FolderKind::Cache => cache_report::page(&f),
    }
}

impl Reporter for HtmlReporter {
    fn folder_report(&self, dir: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
        let html = folder_page(dir)?.render()?;
        Ok(vec![("report.html".into(), html.into_bytes())])
    }

    fn compare(&self, runs: &[CompareRun], out: &Path) -> Result<Vec<PathBuf>, ReportError> {
        compare::write(runs, out)
    }

    fn export(
        &self,
        dir: &Path,
        format: ExportFormat,
        out: &Path,
    ) -> Result<Vec<PathBuf>, ReportError> {
        export::export(dir, format, out)
    }
}

/// The polars table writer and the HTML reporter, as the command line takes them
/// (`vodbench_harness::cli::main_with(registry, vodbench_reports::outputs())`).
pub fn outputs() -> Outputs {
    Outputs {
        tables: Some(Arc::new(PolarsTableWriter)),
        reporter: Some(Arc::new(HtmlReporter)),
    }
}
