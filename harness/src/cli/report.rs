//! `vodbench report DIR`: draws `report.html` again from what a command saved, without
//! simulating, so a folder made by an older build, or a sweep gathered from many machines, is
//! drawn by this build's reporter. The page is the one the command wrote: the reporter reads
//! only the saved files (DESIGN §6), so a folder redrawn by the build that made it gives the
//! same bytes.
//!
//! Every kind of folder: a run's (on-demand or broadcast), a search's, a sweep's (each drawn
//! from its own files), a comparison's (from the runs `compare-runs.json` lists) and the
//! runs of a sweep file's points (`vodbench run SWEEP`: each point's page).

use super::compare::{saved_runs, RUNS_FILE};
use super::export::reporter;
use super::saved_folder::{read_json, sweep_run_points};
use super::CommandError;
use crate::output::{write_atomic, Outputs, Reporter};
use std::path::{Path, PathBuf};

/// Arguments of `vodbench report`.
#[derive(clap::Args)]
pub(crate) struct ReportArgs {
    /// A saved output folder: of `run`, `search`, `sweep`, `compare`, or a broadcast run.
    dirs: Vec<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// How a redrawn file relates to the one it replaced.
fn change(path: &Path, new: &[u8]) -> &'static str {
    match std::fs::read(path) {
        Ok(old) if old == new => "unchanged",
        Ok(_) => "redrawn; the saved one differed",
        Err(_) => "drawn; there was none",
    }
}

/// Publishes `files` (name, contents) in `dir`, each atomically; what each became.
fn publish(dir: &Path, files: Vec<(String, Vec<u8>)>) -> Result<Vec<String>, CommandError> {
    let mut lines = Vec::new();
    for (name, bytes) in files {
        let path = dir.join(&name);
        let how = change(&path, &bytes);
        write_atomic(&path, &bytes)?;
        lines.push(format!("{} ({how})", path.display()));
    }
    Ok(lines)
}

/// The page of one run, search, sweep or broadcast folder.
fn folder(rep: &dyn Reporter, dir: &Path) -> Result<Vec<String>, CommandError> {
    let files = rep.folder_report(dir).map_err(CommandError::Input)?;
    publish(dir, files)
}

/// A comparison's page, from the runs it recorded.
fn comparison(rep: &dyn Reporter, dir: &Path) -> Result<Vec<String>, CommandError> {
    let runs = saved_runs(dir).map_err(CommandError::Input)?;
    let olds: Vec<(PathBuf, Option<Vec<u8>>)> = ["report.html", "compare.json"]
        .iter()
        .map(|f| (dir.join(f), std::fs::read(dir.join(f)).ok()))
        .collect();
    let written = rep.compare(&runs, dir)?;
    Ok(written
        .into_iter()
        .map(|p| {
            let old = olds
                .iter()
                .find(|(o, _)| *o == p)
                .and_then(|(_, b)| b.clone());
            let how = match (old, std::fs::read(&p).ok()) {
                (Some(a), Some(b)) if a == b => "unchanged",
                (Some(_), _) => "redrawn; the saved one differed",
                (None, _) => "drawn; there was none",
            };
            format!("{} ({how})", p.display())
        })
        .collect())
}

/// Redraws the folder `dir`, whatever kind it is; the lines to print.
fn redraw(rep: &dyn Reporter, dir: &Path) -> Result<Vec<String>, CommandError> {
    if !dir.is_dir() {
        return Err(CommandError::input(format!(
            "{}: no such folder (give a folder written by vodbench run, search, sweep or \
             compare)",
            dir.display()
        )));
    }
    let compared = dir.join(RUNS_FILE).is_file() || dir.join("compare.json").is_file();
    if compared && !dir.join("manifest.json").is_file() {
        return comparison(rep, dir);
    }
    if let Some(points) = sweep_run_points(dir) {
        // `vodbench run SWEEP`: the folder has no page of its own, each point has one
        let mut lines = Vec::new();
        for (_, point) in points.map_err(CommandError::Input)? {
            lines.extend(folder(rep, &point)?);
        }
        return Ok(lines);
    }
    if dir.join("manifest.json").is_file() {
        // a readable manifest, so a damaged one is named as such and not as "no summary"
        read_json(&dir.join("manifest.json")).map_err(CommandError::Input)?;
    }
    folder(rep, dir)
}

/// `vodbench report DIR…`.
pub(crate) fn cmd(outputs: &Outputs, args: ReportArgs) -> Result<(), CommandError> {
    let rep = reporter(outputs)?;
    if args.dirs.is_empty() {
        return Err(CommandError::input(
            "report: give one or more output folders to draw again (written by vodbench run, \
             search, sweep or compare)",
        ));
    }
    for dir in &args.dirs {
        for line in redraw(rep, dir)? {
            if !args.quiet {
                println!("{line}");
            }
        }
    }
    Ok(())
}
