//! Baselines: output folders stored under a name by `vodbench run --save-baseline NAME`, for
//! `vodbench compare --baseline NAME` to lay a new run beside.
//!
//! Baselines live in `$VODBENCH_BASELINES` (default `out/baselines`), one folder per baseline
//! name and scenario: `<store>/<NAME>/<scenario>/`, a copy of the run's output folder.

use super::saved_folder::output_folder_scenario;
use super::CommandError;
use crate::output;
use std::path::{Path, PathBuf};

/// The folder baselines are stored in.
pub(crate) fn store() -> PathBuf {
    std::env::var_os("VODBENCH_BASELINES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new("out").join("baselines"))
}

/// Checks a baseline name: letters, digits, `.`, `_` and `-`.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "--save-baseline/--baseline: `{name}` is not a baseline name; use letters, digits, \
             `.`, `_` and `-` (not starting with `.`)"
        ))
    }
}

/// Copies the output folder `dir` into the baseline store as `name`.
pub(crate) fn save(dir: &Path, name: &str, quiet: bool) -> Result<(), CommandError> {
    let scenario = output_folder_scenario(dir).map_err(CommandError::Failure)?;
    let to = store().join(name).join(output::folder_name(&scenario));
    let _lock = output::claim_output_dir(&to, output::Claim::Exclusive)?;
    output::copy_folder(dir, &to)?;
    if !quiet {
        println!("saved baseline `{name}`: {}", to.display());
    }
    Ok(())
}
