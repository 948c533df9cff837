//! `vodbench rerun`: an on-demand run made again from its `manifest.json` — the resolved
//! scenario it records, checked against its hash and its trace's — through
//! [`OnDemand`](crate::system::ondemand::OnDemand), and every results file compared byte for
//! byte with the original folder's.

use super::compare::run_into;
use super::saved_folder::read_json;
use super::CommandError;
use crate::output::Outputs;
use crate::plugin::Registry;
use crate::spec::Source;
use crate::system::ondemand::runner;
use crate::system::ondemand::spec::{Scenario, ScenarioFile, SweepSuite};
use std::path::{Path, PathBuf};

/// Arguments of `vodbench rerun`.
#[derive(clap::Args)]
pub(crate) struct RerunArgs {
    /// The manifest.json of an earlier run.
    manifest: PathBuf,
    /// Output folder (default: the run's folder name with `.rerun` appended, beside it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// The files `vodbench rerun` compares byte for byte: every file of the original folder but
/// `manifest.json` (which records the host and the build).
fn results_files(dir: &Path) -> Result<Vec<String>, String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_file() && name != "manifest.json" && !name.starts_with('.') {
            v.push(name);
        }
    }
    v.sort();
    Ok(v)
}

/// `vodbench rerun`.
pub(crate) fn cmd(
    registry: &Registry,
    outputs: &Outputs,
    args: RerunArgs,
) -> Result<(), CommandError> {
    let path = &args.manifest;
    let path = if path.is_dir() {
        path.join("manifest.json")
    } else {
        path.clone()
    };
    if !path.is_file() {
        return Err(CommandError::input(format!(
            "{}: no such file (expected the manifest.json of a vodbench output folder)",
            path.display()
        )));
    }
    let manifest = read_json(&path).map_err(CommandError::Input)?;
    if manifest["kind"] == "search" {
        return Err(CommandError::input(format!(
            "{}: the manifest of a search; rerun reproduces single runs (a search is \
             reproduced by `vodbench search` on the same scenario: same seed, same answer on \
             any number of threads)",
            path.display()
        )));
    }
    if manifest.get("resolved_scenario").is_none() || manifest.get("scenario_file").is_none() {
        return Err(CommandError::input(format!(
            "{}: not the manifest of an on-demand vodbench run (no resolved_scenario and \
             scenario_file); broadcast folders are reproduced by running their scenario again",
            path.display()
        )));
    }
    let file: ScenarioFile = serde_json::from_value(manifest["resolved_scenario"].clone())
        .map_err(|e| {
            CommandError::input(format!(
                "{}: resolved_scenario is not a scenario this vodbench reads: {e}",
                path.display()
            ))
        })?;
    let scenario_file = PathBuf::from(manifest["scenario_file"].as_str().unwrap_or("scenario"));
    let text = toml::to_string(&file).map_err(|e| {
        CommandError::failure(format!(
            "{}: cannot write the scenario back: {e}",
            path.display()
        ))
    })?;
    let source = Source::from_text(&scenario_file, text);
    let s = Scenario::from_source(&source, registry)
        .map_err(|e| CommandError::input(format!("{}: {e}", path.display())))?;
    if let Some(want) = manifest["scenario_sha256"].as_str() {
        let got = runner::scenario_sha256(&s);
        if got != want {
            return Err(CommandError::input(format!(
                "{}: the resolved scenario hashes to {got}, the manifest says {want} (was the \
                 manifest edited?)",
                path.display()
            )));
        }
    }
    if let Some(want) = manifest["workload"]["trace_sha256"].as_str() {
        match runner::trace_sha256(&s) {
            Ok(Some(got)) if got == want => {}
            Ok(got) => {
                return Err(CommandError::input(format!(
                    "{}: the trace file {} changed since the run (sha256 {} now, {want} then)",
                    path.display(),
                    s.file
                        .workload
                        .trace
                        .as_ref()
                        .map(|t| s.resolve_path(t).display().to_string())
                        .unwrap_or_default(),
                    got.unwrap_or_else(|| "none".into())
                )))
            }
            Err(e) => return Err(e.into()),
        }
    }
    let original = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let out = args.out.unwrap_or_else(|| {
        let name = original
            .file_name()
            .map_or("run".into(), |n| n.to_string_lossy().into_owned());
        original.with_file_name(format!("{name}.rerun"))
    });
    let name = s.name().to_string();
    run_into(outputs, &SweepSuite::single(s), &out)?;
    let (before, after) = match (results_files(&original), results_files(&out)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(m), _) | (_, Err(m)) => return Err(CommandError::Failure(m)),
    };
    let mut differ = Vec::new();
    let mut only_before = Vec::new();
    let mut only_after = Vec::new();
    for f in before
        .iter()
        .chain(after.iter().filter(|f| !before.contains(f)))
    {
        match (
            std::fs::read(original.join(f)).ok(),
            std::fs::read(out.join(f)).ok(),
        ) {
            (Some(a), Some(b)) if a == b => {}
            (Some(_), Some(_)) | (None, None) => differ.push(f.clone()),
            (Some(_), None) => only_before.push(f.clone()),
            (None, Some(_)) => only_after.push(f.clone()),
        }
    }
    if differ.is_empty() && only_before.is_empty() && only_after.is_empty() {
        if !args.quiet {
            println!(
                "reproduced {name}: {} files byte-identical ({}); output: {}",
                before.len(),
                before.join(", "),
                out.display()
            );
        }
        Ok(())
    } else {
        let mut parts = Vec::new();
        if !differ.is_empty() {
            parts.push(format!("differs in: {}", differ.join(", ")));
        }
        if !only_before.is_empty() {
            parts.push(format!(
                "has files the rerun did not write: {} (added to the folder after the run, \
                 by `vodbench export --out` say?)",
                only_before.join(", ")
            ));
        }
        if !only_after.is_empty() {
            parts.push(format!("lacks: {}", only_after.join(", ")));
        }
        Err(CommandError::failure(format!(
            "{} against its rerun: {} (output: {})",
            original.display(),
            parts.join("; "),
            out.display()
        )))
    }
}
