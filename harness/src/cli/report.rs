//! `vodbench report DIR`: draws `report.html` again from what a command saved, without
//! simulating, so a folder made by an older build, or a sweep gathered from many machines, is
//! drawn by this build's reporter. The page is the one the command wrote: the reporter reads
//! only the saved files (DESIGN §6), so a folder redrawn by the build that made it gives the
//! same bytes.
//!
//! Every kind of folder: a run's (on-demand or broadcast), a search's, a sweep's (each drawn
//! from its own files), a comparison's (from the runs `compare-runs.json` lists) and the
//! runs of a sweep file's points (`vodbench run SWEEP`: the folder's page and each point's).
//!
//! The page is written into the folder only when the folder is vodbench's
//! ([`crate::ownership::check_owned`]), and is then recorded in its mark; a folder without
//! the mark (made by a build from before the mark, or copied by hand) is drawn with `--out
//! NEW`, a new folder holding only the pages.

use super::compare::{saved_runs, RUNS_FILE};
use super::export::reporter;
use super::saved_folder::{read_json, sweep_run_points};
use super::CommandError;
use crate::output::{self, write_atomic, Outputs, Reporter};
use crate::ownership;
use std::path::{Path, PathBuf};

/// Arguments of `vodbench report`.
#[derive(clap::Args)]
pub(crate) struct ReportArgs {
    /// A saved output folder: of `run`, `search`, `sweep`, `compare`, or a broadcast run.
    dirs: Vec<PathBuf>,
    /// Write the pages into this new folder instead of into the saved one (which is only
    /// read): for a folder that is read-only or that vodbench's mark does not cover. One
    /// input folder only.
    #[arg(long, value_name = "NEW")]
    out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// How a redrawn file relates to the one the saved folder holds.
fn change(old: Option<&[u8]>, new: &[u8]) -> &'static str {
    match old {
        Some(old) if old == new => "unchanged",
        Some(_) => "redrawn; the saved one differed",
        None => "drawn; there was none",
    }
}

/// The pages of a saved folder: (path relative to it, contents).
type Pages = Vec<(PathBuf, Vec<u8>)>;

/// The pages of the folder `dir`, whatever kind it is, drawn without writing anything;
/// comparisons are drawn by the reporter into `scratch`.
fn draw(rep: &dyn Reporter, dir: &Path, scratch: &Path) -> Result<Pages, CommandError> {
    if !dir.is_dir() {
        return Err(CommandError::input(format!(
            "{}: no such folder (give a folder written by vodbench run, search, sweep or \
             compare)",
            dir.display()
        )));
    }
    let compared = dir.join(RUNS_FILE).is_file() || dir.join("compare.json").is_file();
    if compared && !dir.join("manifest.json").is_file() {
        let runs = saved_runs(dir).map_err(CommandError::Input)?;
        let mut pages = Vec::new();
        for f in rep.compare(&runs, scratch)? {
            let bytes = std::fs::read(&f)
                .map_err(|e| CommandError::failure(format!("{}: {e}", f.display())))?;
            let rel = f.strip_prefix(scratch).unwrap_or(&f).to_path_buf();
            pages.push((rel, bytes));
        }
        return Ok(pages);
    }
    let folder = |d: &Path, rel: &Path| -> Result<Pages, CommandError> {
        let files = rep.folder_report(d).map_err(CommandError::Input)?;
        Ok(files
            .into_iter()
            .map(|(name, bytes)| (rel.join(name), bytes))
            .collect())
    };
    if let Some(points) = sweep_run_points(dir) {
        // `vodbench run SWEEP`: the folder's page compares the points, each point has its own
        let mut pages = folder(dir, Path::new(""))?;
        for (_, point) in points.map_err(CommandError::Input)? {
            let rel = point.strip_prefix(dir).unwrap_or(&point).to_path_buf();
            pages.extend(folder(&point, &rel)?);
        }
        return Ok(pages);
    }
    if dir.join("manifest.json").is_file() {
        // a readable manifest, so a damaged one is named as such and not as "no summary"
        read_json(&dir.join("manifest.json")).map_err(CommandError::Input)?;
    }
    folder(dir, Path::new(""))
}

/// Redraws `dir` in place, each page recorded in the mark of the folder holding it; the
/// lines to print.
fn in_place(rep: &dyn Reporter, dir: &Path) -> Result<Vec<String>, CommandError> {
    let scratch = tempdir()?;
    let pages = draw(rep, dir, scratch.path())?;
    // no other command writes the folder meanwhile
    let _lock = output::lock_output(dir, output::Claim::Exclusive)?;
    // nothing is written into a folder that is not vodbench's
    let mut holders: Vec<PathBuf> = pages
        .iter()
        .map(|(rel, _)| dir.join(rel.parent().unwrap_or(Path::new(""))))
        .collect();
    holders.dedup();
    for h in &holders {
        ownership::check_owned(h).map_err(|e| {
            CommandError::input(format!(
                "{e}; `vodbench report {} --out NEW` draws the page into a new folder",
                dir.display()
            ))
        })?;
    }
    let mut lines = Vec::new();
    for (rel, bytes) in &pages {
        let path = dir.join(rel);
        let how = change(std::fs::read(&path).ok().as_deref(), bytes);
        write_atomic(&path, bytes)?;
        let holder = path.parent().unwrap_or(dir);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        ownership::record(holder, &[name.as_deref().unwrap_or_default()])
            .map_err(|e| CommandError::failure(e.to_string()))?;
        lines.push(format!("{} ({how})", path.display()));
    }
    Ok(lines)
}

/// Draws `dir` into the new folder `out`, published whole; the lines to print.
fn into(rep: &dyn Reporter, dir: &Path, out: &Path) -> Result<Vec<String>, CommandError> {
    if output::same_or_nested(dir, out) {
        return Err(CommandError::input(format!(
            "--out {}: the saved folder itself, or inside or around it; give a new folder",
            out.display()
        )));
    }
    let scratch = tempdir()?;
    let pages = draw(rep, dir, scratch.path())?;
    let _lock = output::claim_output_dir(out, output::Claim::Exclusive, output::Writer::Report)?;
    output::write_staged(
        out,
        output::Writer::Report,
        |stage| -> Result<(), CommandError> {
            for (rel, bytes) in &pages {
                let path = stage.join(rel);
                if let Some(p) = path.parent() {
                    std::fs::create_dir_all(p)
                        .map_err(|e| CommandError::failure(format!("{}: {e}", p.display())))?;
                }
                write_atomic(&path, bytes)?;
            }
            Ok(())
        },
    )?;
    Ok(pages
        .iter()
        .map(|(rel, bytes)| {
            let saved = std::fs::read(dir.join(rel)).ok();
            format!(
                "{} ({})",
                out.join(rel).display(),
                change(saved.as_deref(), bytes)
            )
        })
        .collect())
}

fn tempdir() -> Result<tempfile::TempDir, CommandError> {
    tempfile::tempdir().map_err(|e| CommandError::failure(format!("a scratch folder: {e}")))
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
    if args.out.is_some() && args.dirs.len() > 1 {
        return Err(CommandError::input(
            "report: --out takes one saved folder (its pages go into the new folder)",
        ));
    }
    for dir in &args.dirs {
        let lines = match &args.out {
            Some(out) => into(rep, dir, out)?,
            None => in_place(rep, dir)?,
        };
        for line in lines {
            if !args.quiet {
                println!("{line}");
            }
        }
    }
    Ok(())
}
