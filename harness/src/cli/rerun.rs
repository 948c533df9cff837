//! `vodbench rerun`: an on-demand run made again from its `manifest.json` — the resolved
//! scenario it records — through [`OnDemand`](crate::system::ondemand::OnDemand), and every
//! results file compared byte for byte with the original folder's.
//!
//! A rerun cannot lie: before running, every input the manifest records is compared with what
//! the rerun would use — the resolved scenario's hash, the seed, the terminal count, the
//! scenario's name, the plugins and their parameters, the vodbench version, the workload's
//! source and trace hash, the hash of every other file the run read (disk specifications, the
//! plugin libraries it loaded, which it loads again from the paths the manifest records) —
//! and any difference is named and nothing is run; after running, the workload's fingerprint
//! is compared too. It never writes into the folder it checks (nor a folder holding it, nor one
//! inside it), so a copy edited by hand is never replaced by the very results it is compared
//! with.

use super::compare::run_into;
use super::saved_folder::read_json;
use super::CommandError;
use crate::output::{self, Outputs};
use crate::plugin::Registry;
use crate::scenario::Source;
use crate::system::ondemand::runner;
use crate::system::ondemand::scenario::{Scenario, ScenarioFile, SweepSuite};
use serde_json::Value;
use std::collections::BTreeMap;
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

/// The rerun's folder without `--out`: the original's name with `.rerun` appended, beside it.
fn default_out(original: &Path) -> PathBuf {
    let name = original
        .file_name()
        .map_or("run".into(), |n| n.to_string_lossy().into_owned());
    original.with_file_name(format!("{name}.rerun"))
}

/// `value` as the manifest shows it, for a message.
fn shown(value: &Value) -> String {
    match value {
        Value::Null => "nothing".into(),
        Value::String(s) => format!("`{s}`"),
        v => v.to_string(),
    }
}

/// Every input the manifest records that differs from what a rerun of the resolved scenario
/// `s` would use, each said with both values.
fn input_differences(manifest: &Value, s: &Scenario) -> Result<Vec<String>, CommandError> {
    let mut out = Vec::new();
    let mut check = |what: &str, recorded: &Value, now: Value| {
        if *recorded != now {
            out.push(format!(
                "{what}: the manifest says {}, the rerun would use {}",
                shown(recorded),
                shown(&now)
            ));
        }
    };
    check(
        "scenario_sha256 (the hash of resolved_scenario: was it edited?)",
        &manifest["scenario_sha256"],
        runner::scenario_sha256(s).into(),
    );
    check("seed", &manifest["seed"], s.file.seed.into());
    check("terminals", &manifest["terminals"], s.terminals().into());
    check("scenario", &manifest["scenario"], s.name().into());
    check(
        "vodbench_version",
        &manifest["vodbench_version"],
        env!("CARGO_PKG_VERSION").into(),
    );
    let plugins = s.plugins.manifest_lines();
    let (then, now) = (
        manifest["plugins"].as_object().cloned().unwrap_or_default(),
        plugins.as_object().cloned().unwrap_or_default(),
    );
    let keys: std::collections::BTreeSet<&String> = then.keys().chain(now.keys()).collect();
    for k in keys {
        check(
            &format!("plugins.{k}"),
            then.get(k).unwrap_or(&Value::Null),
            now.get(k).cloned().unwrap_or(Value::Null),
        );
    }
    if !manifest["plugins"].is_object() {
        check("plugins", &manifest["plugins"], plugins.clone());
    }
    let source = match &s.file.workload.trace {
        Some(t) => format!("trace {}", t.display()),
        None => "generator".to_string(),
    };
    check(
        "workload.source",
        &manifest["workload"]["source"],
        source.into(),
    );
    let trace = runner::trace_sha256(s)?;
    let trace_file = s
        .file
        .workload
        .trace
        .as_ref()
        .map(|t| s.resolve_path(t).display().to_string())
        .unwrap_or_default();
    check(
        &format!(
            "workload.trace_sha256 (the hash of the trace file {trace_file}: changed since the \
             run?)"
        ),
        &manifest["workload"]["trace_sha256"],
        trace.into(),
    );
    let recorded: BTreeMap<String, Value> = manifest["input_files"]
        .as_object()
        .map(|m| m.clone().into_iter().collect())
        .unwrap_or_default();
    let read = runner::input_files(s)?;
    let files: std::collections::BTreeSet<&String> = recorded.keys().chain(read.keys()).collect();
    for f in files {
        check(
            &format!("input_files.{f} (a file the run reads: its sha256)"),
            recorded.get(f).unwrap_or(&Value::Null),
            read.get(f).cloned().map_or(Value::Null, Value::from),
        );
    }
    Ok(out)
}

/// When the manifest's `scenario_file` is a relative path that is not there from the
/// current folder: a note for errors about the files the scenario reads, which are found
/// beside it, relative to the folder the run was made in.
fn elsewhere_hint(manifest: &Value) -> Option<String> {
    let file = Path::new(manifest["scenario_file"].as_str()?);
    (file.is_relative() && !file.exists()).then(|| {
        format!(
            " (the manifest records the scenario file as {}, relative to the folder the run \
             was made in, and the files the scenario reads are found beside it: run rerun \
             from that folder)",
            file.display()
        )
    })
}

/// `vodbench rerun`.
pub(crate) fn cmd(
    registry: &Registry,
    outputs: &Outputs,
    args: RerunArgs,
) -> Result<(), CommandError> {
    let (path, manifest) = read_manifest(&args.manifest)?;
    // the registry with the run's libraries lives as long as the run
    let (_registry, s) = scenario_of(registry, &path, &manifest)?;
    let hint = elsewhere_hint(&manifest);
    let differences = input_differences(&manifest, &s).map_err(|e| match (e, hint.as_deref()) {
        (CommandError::Input(m), Some(h)) => CommandError::Input(format!("{m}{h}")),
        (CommandError::Scenario(e), Some(h)) => CommandError::Input(format!("{e}{h}")),
        (e, _) => e,
    })?;
    if !differences.is_empty() {
        return Err(CommandError::input(format!(
            "{}: cannot reproduce this run: what the manifest records differs from what a \
             rerun would use, in {}: {}; nothing was run{}",
            path.display(),
            differences.len(),
            differences.join("; "),
            hint.as_deref().unwrap_or("")
        )));
    }
    let (original, out) = output_folder(&path, args.out)?;
    let name = s.name().to_string();
    let _lock = output::claim_output_dir(&out, output::Claim::Exclusive, output::Writer::Run)?;
    run_into(outputs, &SweepSuite::single(s), &out)?;
    compare_outputs(&original, &out, &manifest, &name, args.quiet)
}

/// The manifest at `path` (or in the folder `path`): a single on-demand run's, read.
fn read_manifest(path: &Path) -> Result<(PathBuf, Value), CommandError> {
    let path = if path.is_dir() {
        path.join("manifest.json")
    } else {
        path.to_path_buf()
    };
    // say what is there instead: a FIFO, a device or a folder is not "no such file"
    if let Err(why) = crate::input::regular_file_size(&path, crate::input::MAX_TEXT_BYTES) {
        return Err(CommandError::input(format!(
            "{}: {why} (expected the manifest.json of a vodbench output folder)",
            path.display()
        )));
    }
    let manifest = read_json(&path).map_err(CommandError::Input)?;
    // a single run's manifest has no `kind`; every other folder's says what it holds
    if let Some(kind) = manifest.get("kind").map(|k| k.as_str().unwrap_or("?")) {
        let (what, how) = match kind {
            "search" => (
                "a search",
                "a search is reproduced by `vodbench search` on the same scenario: same seed, \
                 same answer on any number of threads",
            ),
            "sweep" => (
                "a sweep",
                "a sweep is reproduced by `vodbench sweep` on the same scenario: the same \
                 points on any number of threads",
            ),
            "sweep-run" => (
                "the runs of a sweep file",
                "they are reproduced by `vodbench run` on the same scenario",
            ),
            _ => (
                "another command's output",
                "run the command that wrote it again",
            ),
        };
        return Err(CommandError::input(format!(
            "{}: the manifest of {what} (kind `{kind}`); rerun reproduces single runs ({how})",
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
    Ok((path, manifest))
}

/// The scenario the manifest at `path` records, resolved with the plugin libraries the run
/// loaded (loaded again from where they were), and the registry that holds them.
fn scenario_of<'r>(
    registry: &'r Registry,
    path: &Path,
    manifest: &Value,
) -> Result<(std::borrow::Cow<'r, Registry>, Scenario), CommandError> {
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
    // the plugin libraries the run loaded, loaded again from where they were (their bytes
    // are compared below, with the other input files)
    let (python, libraries): (Vec<PathBuf>, Vec<PathBuf>) = manifest["plugin_libraries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l["path"].as_str().map(PathBuf::from))
        .partition(|p| p.to_string_lossy().contains(".py#"));
    if !python.is_empty() {
        return Err(CommandError::input(format!(
            "{}: the run had Python policies registered ({}); the command line loads shared \
             libraries only: run the scenario again from Python with the same classes \
             (their source hashes are in the manifest's plugin_libraries)",
            path.display(),
            python
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let registry = crate::plugin_library::with_libraries(registry, &libraries).map_err(|e| {
        CommandError::input(format!(
            "{}: cannot load a plugin library the run used: {e}",
            path.display()
        ))
    })?;
    let s = Scenario::from_source(&source, &registry)
        .map_err(|e| CommandError::input(format!("{}: {e}", path.display())))?;
    Ok((registry, s))
}

/// The folder the rerun writes (`out`, or beside the run's folder): never the run's folder,
/// one inside it or one holding it. The run's folder and the rerun's.
fn output_folder(path: &Path, out: Option<PathBuf>) -> Result<(PathBuf, PathBuf), CommandError> {
    let original = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let out = out.unwrap_or_else(|| default_out(&original));
    if output::same_or_nested(&out, &original) {
        return Err(CommandError::input(format!(
            "--out {}: the folder being checked ({}), or one inside it or holding it; a rerun \
             never writes over the run it compares with: choose another folder (without \
             --out: {})",
            out.display(),
            original.display(),
            default_out(&original).display()
        )));
    }
    Ok((original, out))
}

/// Compares the rerun's output folder `out` with the run's (`original`) file by file, and
/// the workload it had with the one `manifest` records.
fn compare_outputs(
    original: &Path,
    out: &Path,
    manifest: &Value,
    name: &str,
    quiet: bool,
) -> Result<(), CommandError> {
    let (before, after) = match (results_files(original), results_files(out)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(m), _) | (_, Err(m)) => return Err(CommandError::Failure(m)),
    };
    let mut differ = Vec::new();
    // the workload the rerun generated (or read) against the one the run had
    if let Ok(now) = read_json(&out.join("manifest.json")) {
        for key in ["events", "fingerprint"] {
            if now["workload"][key] != manifest["workload"][key] {
                differ.push(format!(
                    "the workload's {key} (the manifest says {}, the rerun had {})",
                    manifest["workload"][key], now["workload"][key]
                ));
            }
        }
    }
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
        if !quiet {
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
