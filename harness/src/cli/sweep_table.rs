//! `vodbench sweep-table`: the paper-vs-vodbench markdown tables of saved `vodbench sweep`
//! folders, rebuilt from their `sweep.json` (for `scenarios/spiffi/README.md`).

use super::CommandError;
use crate::experiment::sweep::markdown;
use crate::results::sweep::SweepResult;
use std::path::PathBuf;

/// Arguments of `vodbench sweep-table`.
#[derive(clap::Args)]
pub(crate) struct SweepTableArgs {
    /// Output folders of `vodbench sweep` (each with a sweep.json).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
}

/// `vodbench sweep-table DIR…`: the `sweep.md` tables of saved `vodbench sweep` folders,
/// rebuilt from their `sweep.json`, one after another (for `scenarios/spiffi/README.md`).
pub(crate) fn cmd(args: SweepTableArgs) -> Result<(), CommandError> {
    let mut out = String::new();
    for d in &args.dirs {
        let file = d.join("sweep.json");
        if !file.is_file() {
            return Err(CommandError::input(format!(
                "{}: holds no sweep.json; `vodbench sweep-table` takes the output folders of \
                 `vodbench sweep`",
                d.display()
            )));
        }
        let text = crate::input::read_text(&file)
            .map_err(|e| CommandError::input(format!("{}: {e}", file.display())))?;
        let r: SweepResult = serde_json::from_str(&text).map_err(|e| {
            CommandError::input(format!(
                "{}: not a `vodbench sweep` result: {e}",
                file.display()
            ))
        })?;
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&markdown(&r));
    }
    print!("{out}");
    Ok(())
}
