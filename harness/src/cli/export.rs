//! `vodbench export`: a saved run folder's summary and tables written as CSV, Parquet or
//! JSON by the installed reporter, into a folder of their own published atomically
//! ([`output::write_staged`]).

use super::saved_folder::not_a_run;
use super::CommandError;
use crate::output::{self, ExportFormat, Outputs, Reporter};
use std::path::PathBuf;

/// Arguments of `vodbench export`.
#[derive(clap::Args)]
pub(crate) struct ExportArgs {
    /// A run's output folder.
    dir: PathBuf,
    /// csv, parquet or json.
    #[arg(long, default_value = "csv")]
    format: String,
    /// Output folder (default: DIR/export-FORMAT).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The installed reporter, or the failure that none is.
pub(crate) fn reporter(outputs: &Outputs) -> Result<&dyn Reporter, CommandError> {
    outputs.reporter().ok_or_else(|| {
        CommandError::failure(
            "no reporter is installed in this binary (vodbench-reports provides one)",
        )
    })
}

/// `vodbench export`.
pub(crate) fn cmd(outputs: &Outputs, args: ExportArgs) -> Result<(), CommandError> {
    let rep = reporter(outputs)?;
    let Some(format) = ExportFormat::parse(&args.format) else {
        let allowed: Vec<&str> = ExportFormat::ALL.iter().map(|(n, _)| *n).collect();
        return Err(CommandError::input(format!(
            "--format: unknown format `{}`; allowed: {}",
            args.format,
            allowed.join(", ")
        )));
    };
    if !args.dir.is_dir() {
        return Err(CommandError::input(format!(
            "{}: no such folder (expected a vodbench output folder)",
            args.dir.display()
        )));
    }
    if let Some(what) = not_a_run(&args.dir) {
        return Err(CommandError::input(format!(
            "{what}; export writes a run's summary and tables (those of `vodbench run`, a \
             sweep file's included)"
        )));
    }
    if !args.dir.join("summary.json").is_file() {
        return Err(CommandError::input(format!(
            "{}: not a vodbench output folder (it has no summary.json)",
            args.dir.display()
        )));
    }
    let out = args
        .out
        .unwrap_or_else(|| args.dir.join(format!("export-{}", format.name())));
    if output::within(&args.dir, &out) {
        return Err(CommandError::input(format!(
            "--out {}: is or holds the folder being exported ({}); export writes a folder of \
             its own: choose another (without --out: DIR/export-FORMAT)",
            out.display(),
            args.dir.display()
        )));
    }
    let _lock = output::claim_output_dir(&out, output::Claim::Exclusive, output::Writer::Export)?;
    // written whole into a staging folder, then published: a full disk leaves no truncated
    // file, and only a folder vodbench wrote is replaced
    let files = output::write_staged(
        &out,
        output::Writer::Export,
        |stage| -> Result<Vec<PathBuf>, CommandError> {
            let files = rep.export(&args.dir, format, stage)?;
            Ok(files
                .iter()
                .map(|f| out.join(f.strip_prefix(stage).unwrap_or(f)))
                .collect())
        },
    )?;
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}
