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

/// Where the baseline `name` of the scenario named `scenario` is saved in the store.
fn target(name: &str, scenario: &str) -> PathBuf {
    store().join(name).join(output::folder_name(scenario))
}

/// Checks, before a run's work, that its baseline `name` can be saved: its folder in the
/// store is absent or a baseline vodbench saved, and no other command is writing it
/// ([`output::claim_output_dir`], let go at once), so that a refusal comes before the run,
/// not after it.
pub(crate) fn check_target(name: &str, scenario: &str) -> Result<(), CommandError> {
    let to = target(name, scenario);
    drop(output::claim_output_dir(
        &to,
        output::Claim::Exclusive,
        output::Writer::Baseline,
    )?);
    Ok(())
}

/// Copies the output folder `dir` into the baseline store as `name`.
pub(crate) fn save(dir: &Path, name: &str, quiet: bool) -> Result<(), CommandError> {
    let scenario = output_folder_scenario(dir).map_err(CommandError::Failure)?;
    let to = target(name, &scenario);
    let _lock = output::claim_output_dir(&to, output::Claim::Exclusive, output::Writer::Baseline)?;
    output::copy_folder(dir, &to, output::Writer::Baseline)?;
    if !quiet {
        println!("saved baseline `{name}`: {}", to.display());
    }
    Ok(())
}
