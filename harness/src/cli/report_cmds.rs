//! `vodbench compare`, `export`, `rerun` and `run --save-baseline`: the commands that work on
//! saved output folders. The harness resolves inputs, runs scenarios when asked to, computes
//! replication spreads and stores baselines; the installed [`crate::output::Reporter`] turns
//! the saved folders into files.
//!
//! Baselines live in `$VODBENCH_BASELINES` (default `out/baselines`), one folder per baseline
//! name and scenario: `<store>/<NAME>/<scenario>/`, a copy of the run's output folder.

use super::{failure, input_error, EXIT_FAILURE};
use crate::output::{self, CompareRun, ExportFormat, ReportError, Reporter};
use crate::plugin::Registry;
use crate::results::Replications;
use crate::system::ondemand::runner;
use crate::system::ondemand::spec::{Scenario, ScenarioFile};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `vodbench compare`.
#[derive(clap::Args)]
pub(crate) struct CompareArgs {
    /// Output folders of earlier runs, or scenario files (`.toml`) to run now.
    inputs: Vec<PathBuf>,
    /// Output folder (default: out/compare).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Compare each input folder with the run of the same scenario stored as baseline NAME.
    #[arg(long, value_name = "NAME")]
    baseline: Option<String>,
    /// Run each scenario input this many times with seeds seed, seed+1, … and show whether
    /// differences exceed the run-to-run spread.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    replications: u32,
    /// Override the number of terminals of scenario inputs.
    #[arg(long)]
    terminals: Option<u32>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

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

fn baseline_store() -> PathBuf {
    std::env::var_os("VODBENCH_BASELINES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new("out").join("baselines"))
}

/// Checks a baseline name: letters, digits, `.`, `_` and `-`.
pub(crate) fn check_baseline_name(name: &str) -> Result<(), String> {
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

fn reporter(outputs: &output::Outputs) -> Result<&dyn Reporter, ExitCode> {
    outputs.reporter().ok_or_else(|| {
        failure("no reporter is installed in this binary (vodbench-reports provides one)")
    })
}

fn report_error(e: ReportError) -> ExitCode {
    match e {
        ReportError::Input(m) => input_error(m),
        ReportError::Failure(m) => failure(m),
    }
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not valid JSON: {e}", path.display()))
}

/// What a saved folder holds when it is vodbench's but not one run's: a search's, a
/// sweep's, or an interrupted sweep's. The commands on runs say so instead of calling it "not
/// a vodbench output folder".
fn not_a_run(dir: &Path) -> Option<String> {
    let kind = read_json(&dir.join("manifest.json"))
        .ok()
        .and_then(|m| m["kind"].as_str().map(str::to_string));
    let what = match kind.as_deref() {
        Some("search") => "a `vodbench search` folder, not a run: its results are search.json \
                           and curve.csv, and its report.html shows them"
            .to_string(),
        Some("sweep") => "a `vodbench sweep` folder, not a run: its results are sweep.json, \
                          sweep.csv, sweep.md and curve-NNN.csv (`vodbench sweep-table` prints \
                          its tables); to compare the runs of a sweep file's points, `vodbench \
                          run FILE --out DIR`, then `vodbench compare DIR`"
            .to_string(),
        None if dir.join("points").is_dir() && !dir.join("summary.json").is_file() => {
            "an interrupted `vodbench sweep` (it holds only points/): `vodbench sweep FILE \
             --out DIR --resume` finishes it"
                .to_string()
        }
        _ => return None,
    };
    Some(format!("{}: {what}", dir.display()))
}

/// The scenario name of a saved on-demand output folder; an input error when `dir` is not one.
fn output_folder_scenario(dir: &Path) -> Result<String, String> {
    if !dir.exists() {
        return Err(format!("{}: no such folder", dir.display()));
    }
    if !dir.is_dir() {
        return Err(format!(
            "{}: not a folder (expected a vodbench output folder or a .toml scenario)",
            dir.display()
        ));
    }
    if let Some(what) = not_a_run(dir) {
        return Err(what);
    }
    if !dir.join("summary.json").is_file() || !dir.join("manifest.json").is_file() {
        return Err(format!(
            "{}: not a vodbench output folder (it has no summary.json and manifest.json; \
             `vodbench run SCENARIO --out DIR` writes one)",
            dir.display()
        ));
    }
    let m = read_json(&dir.join("manifest.json"))?;
    m["scenario"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{}: manifest.json names no scenario", dir.display()))
}

/// The runs of a `vodbench run` of a sweep file (manifest kind `sweep-run`), each with its
/// point's label: its values, `/`-separated, in axis order (`elevator / 512KiB`). `None` for
/// any other folder.
fn sweep_run_points(dir: &Path) -> Option<Result<Vec<(String, PathBuf)>, String>> {
    let m = read_json(&dir.join("manifest.json")).ok()?;
    if m["kind"].as_str() != Some("sweep-run") {
        return None;
    }
    let bad = || format!("{}: manifest.json lists no sweep points", dir.display());
    let Some(points) = m["points"].as_array().filter(|p| !p.is_empty()) else {
        return Some(Err(bad()));
    };
    let axes: Vec<&str> = m["sweep"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for p in points {
        let Some(folder) = p["folder"].as_str() else {
            return Some(Err(bad()));
        };
        let label = axes
            .iter()
            .filter_map(|a| p["values"].get(*a))
            .map(|v| match serde_json::from_value::<toml::Value>(v.clone()) {
                Ok(t) => crate::spec::grid::value_text(&t),
                Err(_) => v.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" / ");
        out.push((label, dir.join(folder)));
    }
    Some(Ok(out))
}

/// Copies the output folder `dir` into the baseline store as `name`.
pub(crate) fn save_baseline(dir: &Path, name: &str, quiet: bool) -> ExitCode {
    let scenario = match output_folder_scenario(dir) {
        Ok(s) => s,
        Err(m) => return failure(m),
    };
    let to = baseline_store()
        .join(name)
        .join(output::folder_name(&scenario));
    if let Err(e) = output::copy_folder(dir, &to) {
        return failure(e);
    }
    if !quiet {
        println!("saved baseline `{name}`: {}", to.display());
    }
    ExitCode::SUCCESS
}

/// Runs `s` and writes its output folder `dir`; returns its summary as JSON.
fn run_into(
    outputs: &output::Outputs,
    s: &Scenario,
    dir: &Path,
) -> Result<serde_json::Value, ExitCode> {
    let (results, events) = runner::run(s, &mut |_, _| {}).map_err(|e| match e {
        crate::system::RunError::Scenario(e) => input_error(e),
        e => failure(e),
    })?;
    let manifest = runner::manifest(s, &events);
    output::write_run(dir, &manifest, &results, outputs.writers()).map_err(failure)?;
    Ok(serde_json::to_value(&results.summary).expect("serialisable"))
}

fn unique_label(labels: &[String], want: &str) -> String {
    if !labels.iter().any(|l| l == want) {
        return want.to_string();
    }
    (2..)
        .map(|i| format!("{want} #{i}"))
        .find(|l| !labels.iter().any(|x| x == l))
        .expect("some label is free")
}

/// `vodbench compare`.
pub(crate) fn cmd_compare(
    registry: &Registry,
    outputs: &output::Outputs,
    args: CompareArgs,
) -> ExitCode {
    let rep = match reporter(outputs) {
        Ok(r) => r,
        Err(c) => return c,
    };
    if args.inputs.is_empty() {
        return input_error(
            "compare: give output folders or scenario files to compare (or --baseline NAME DIR)",
        );
    }
    if let Some(b) = &args.baseline {
        if let Err(m) = check_baseline_name(b) {
            return input_error(m);
        }
    }
    let out = args.out.unwrap_or_else(|| Path::new("out").join("compare"));
    if out.join("manifest.json").is_file() {
        // a run's (or search's, sweep's) folder: its report.html would be overwritten
        return input_error(format!(
            "--out {}: the output folder of a vodbench run (it holds manifest.json); compare \
             would overwrite its report.html: choose another folder",
            out.display()
        ));
    }
    let mut runs: Vec<CompareRun> = Vec::new();
    let labels = |runs: &[CompareRun]| runs.iter().map(|r| r.label.clone()).collect::<Vec<_>>();
    let push = |runs: &mut Vec<CompareRun>, label: &str, dir, replications| {
        let label = unique_label(&labels(runs), label);
        runs.push(CompareRun {
            label,
            dir,
            replications,
        });
    };
    for input in &args.inputs {
        let is_scenario = input.extension().is_some_and(|e| e == "toml");
        if is_scenario {
            if args.baseline.is_some() {
                return input_error(format!(
                    "{}: --baseline compares saved output folders; run the scenario first \
                     (`vodbench run {} --out DIR`)",
                    input.display(),
                    input.display()
                ));
            }
            if super::is_broadcast_file(input) {
                return input_error(format!(
                    "{}: compare lays on-demand runs side by side; this is a broadcast scenario \
                     (its own report.html compares its sweep points)",
                    input.display()
                ));
            }
            let mut s = match Scenario::load(input, registry) {
                Ok(s) => s,
                Err(e) => return input_error(e),
            };
            if let Some(n) = args.terminals {
                if let Err(e) = s.set_terminals(n) {
                    return input_error(e);
                }
            }
            let label = s.name().to_string();
            let arm = out
                .join("runs")
                .join(output::folder_name(&unique_label(&labels(&runs), &label)));
            if !args.quiet {
                eprintln!(
                    "running {} ({} × {})",
                    input.display(),
                    label,
                    args.replications
                );
            }
            if args.replications == 1 {
                if let Err(c) = run_into(outputs, &s, &arm) {
                    return c;
                }
                push(&mut runs, &label, arm, None);
            } else {
                let base_seed = s.file.seed;
                let (mut seeds, mut names, mut summaries) = (Vec::new(), Vec::new(), Vec::new());
                for k in 0..u64::from(args.replications) {
                    let mut r = s.clone();
                    r.file.seed = base_seed.wrapping_add(k);
                    let name = format!("rep-{}", k + 1);
                    match run_into(outputs, &r, &arm.join(&name)) {
                        Ok(summary) => summaries.push(summary),
                        Err(c) => return c,
                    }
                    seeds.push(r.file.seed);
                    names.push(name);
                }
                let reps = Replications::from_summaries(&label, seeds, names, &summaries);
                let path = arm.join("replications.json");
                if let Err(e) = output::write_atomic(&path, output::to_json(&reps).as_bytes()) {
                    return failure(e);
                }
                push(&mut runs, &label, arm.join("rep-1"), Some(path));
            }
            continue;
        }
        // a saved folder: a run, or replications written by an earlier compare
        if input.join("replications.json").is_file() {
            let path = input.join("replications.json");
            let reps: Replications = match read_json(&path).and_then(|v| {
                serde_json::from_value(v).map_err(|e| format!("{}: {e}", path.display()))
            }) {
                Ok(r) => r,
                Err(m) => return input_error(m),
            };
            let Some(first) = reps.runs.first() else {
                return input_error(format!("{}: lists no runs", path.display()));
            };
            let dir = input.join(first);
            if let Err(m) = output_folder_scenario(&dir) {
                return input_error(m);
            }
            push(&mut runs, &reps.scenario.clone(), dir, Some(path));
            continue;
        }
        let scenario = match output_folder_scenario(input) {
            Ok(s) => s,
            Err(m) => return input_error(m),
        };
        if let Some(points) = sweep_run_points(input) {
            // `vodbench run SWEEP`: every point's run, labelled by its values
            if args.baseline.is_some() {
                return input_error(format!(
                    "{}: the runs of a sweep file's points; --baseline compares single runs \
                     (compare the folder with another sweep's, or give points/NNN folders)",
                    input.display()
                ));
            }
            let points = match points {
                Ok(p) => p,
                Err(m) => return input_error(m),
            };
            let folder = input
                .file_name()
                .map_or(scenario.clone(), |n| n.to_string_lossy().into_owned());
            for (label, dir) in points {
                if let Err(m) = output_folder_scenario(&dir) {
                    return input_error(m);
                }
                // with other inputs beside it, say whose point it is
                let label = if args.inputs.len() > 1 {
                    format!("{folder}: {label}")
                } else {
                    label
                };
                push(&mut runs, &label, dir, None);
            }
            continue;
        }
        if let Some(b) = &args.baseline {
            let store = baseline_store().join(b);
            if !store.is_dir() {
                let known = list_dirs(&baseline_store());
                return input_error(format!(
                    "--baseline: unknown baseline `{b}` (no folder {}); saved baselines: {}; \
                     save one with `vodbench run SCENARIO --save-baseline {b}`",
                    store.display(),
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                ));
            }
            let base = store.join(output::folder_name(&scenario));
            if let Err(m) = output_folder_scenario(&base) {
                let known = list_dirs(&store);
                return input_error(format!(
                    "--baseline: baseline `{b}` has no run of scenario `{scenario}` ({m}); it \
                     holds: {}",
                    if known.is_empty() {
                        "nothing".into()
                    } else {
                        known.join(", ")
                    }
                ));
            }
            if !runs.iter().any(|r| r.dir == base) {
                push(&mut runs, &format!("{scenario} (baseline {b})"), base, None);
            }
        }
        let label = input
            .file_name()
            .map_or(scenario.clone(), |n| n.to_string_lossy().into_owned());
        push(&mut runs, &label, input.clone(), None);
    }
    if runs.len() < 2 {
        return input_error(
            "compare: needs at least two runs (give two or more inputs, or --baseline NAME DIR)",
        );
    }
    match rep.compare(&runs, &out) {
        Ok(files) => {
            if !args.quiet {
                for f in files {
                    println!("wrote {}", f.display());
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => report_error(e),
    }
}

fn list_dirs(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `vodbench export`.
pub(crate) fn cmd_export(outputs: &output::Outputs, args: ExportArgs) -> ExitCode {
    let rep = match reporter(outputs) {
        Ok(r) => r,
        Err(c) => return c,
    };
    let Some(format) = ExportFormat::parse(&args.format) else {
        let allowed: Vec<&str> = ExportFormat::ALL.iter().map(|(n, _)| *n).collect();
        return input_error(format!(
            "--format: unknown format `{}`; allowed: {}",
            args.format,
            allowed.join(", ")
        ));
    };
    if !args.dir.is_dir() {
        return input_error(format!(
            "{}: no such folder (expected a vodbench output folder)",
            args.dir.display()
        ));
    }
    if let Some(what) = not_a_run(&args.dir) {
        return input_error(format!(
            "{what}; export writes a run's summary and tables (those of `vodbench run`, a \
             sweep file's included)"
        ));
    }
    if !args.dir.join("summary.json").is_file() {
        return input_error(format!(
            "{}: not a vodbench output folder (it has no summary.json)",
            args.dir.display()
        ));
    }
    let out = args
        .out
        .unwrap_or_else(|| args.dir.join(format!("export-{}", format.name())));
    match rep.export(&args.dir, format, &out) {
        Ok(files) => {
            for f in files {
                println!("wrote {}", f.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => report_error(e),
    }
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
pub(crate) fn cmd_rerun(
    registry: &Registry,
    outputs: &output::Outputs,
    args: RerunArgs,
) -> ExitCode {
    let path = &args.manifest;
    let path = if path.is_dir() {
        path.join("manifest.json")
    } else {
        path.clone()
    };
    if !path.is_file() {
        return input_error(format!(
            "{}: no such file (expected the manifest.json of a vodbench output folder)",
            path.display()
        ));
    }
    let manifest = match read_json(&path) {
        Ok(m) => m,
        Err(m) => return input_error(m),
    };
    if manifest["kind"] == "search" {
        return input_error(format!(
            "{}: the manifest of a search; rerun reproduces single runs (a search is \
             reproduced by `vodbench search` on the same scenario: same seed, same answer on \
             any number of threads)",
            path.display()
        ));
    }
    if manifest.get("resolved_scenario").is_none() || manifest.get("scenario_file").is_none() {
        return input_error(format!(
            "{}: not the manifest of an on-demand vodbench run (no resolved_scenario and \
             scenario_file); broadcast folders are reproduced by running their scenario again",
            path.display()
        ));
    }
    let file: ScenarioFile = match serde_json::from_value(manifest["resolved_scenario"].clone()) {
        Ok(f) => f,
        Err(e) => {
            return input_error(format!(
                "{}: resolved_scenario is not a scenario this vodbench reads: {e}",
                path.display()
            ))
        }
    };
    let scenario_file = PathBuf::from(manifest["scenario_file"].as_str().unwrap_or("scenario"));
    let text = match toml::to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            return failure(format!(
                "{}: cannot write the scenario back: {e}",
                path.display()
            ))
        }
    };
    let s = match Scenario::parse(&text, &scenario_file, registry) {
        Ok(s) => s,
        Err(e) => return input_error(format!("{}: {e}", path.display())),
    };
    if let Some(want) = manifest["scenario_sha256"].as_str() {
        let got = runner::scenario_sha256(&s);
        if got != want {
            return input_error(format!(
                "{}: the resolved scenario hashes to {got}, the manifest says {want} (was the \
                 manifest edited?)",
                path.display()
            ));
        }
    }
    if let Some(want) = manifest["workload"]["trace_sha256"].as_str() {
        match runner::trace_sha256(&s) {
            Ok(Some(got)) if got == want => {}
            Ok(got) => {
                return input_error(format!(
                    "{}: the trace file {} changed since the run (sha256 {} now, {want} then)",
                    path.display(),
                    s.file
                        .workload
                        .trace
                        .as_ref()
                        .map(|t| s.resolve_path(t).display().to_string())
                        .unwrap_or_default(),
                    got.unwrap_or_else(|| "none".into())
                ))
            }
            Err(e) => return input_error(e),
        }
    }
    let original = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let out = args.out.unwrap_or_else(|| {
        let name = original
            .file_name()
            .map_or("run".into(), |n| n.to_string_lossy().into_owned());
        original.with_file_name(format!("{name}.rerun"))
    });
    if let Err(c) = run_into(outputs, &s, &out) {
        return c;
    }
    let (before, after) = match (results_files(&original), results_files(&out)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(m), _) | (_, Err(m)) => return failure(m),
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
                "reproduced {}: {} files byte-identical ({}); output: {}",
                s.name(),
                before.len(),
                before.join(", "),
                out.display()
            );
        }
        ExitCode::SUCCESS
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
        eprintln!(
            "error: {} against its rerun: {} (output: {})",
            original.display(),
            parts.join("; "),
            out.display()
        );
        ExitCode::from(EXIT_FAILURE)
    }
}
