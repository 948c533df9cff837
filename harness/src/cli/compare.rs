//! `vodbench compare`: one HTML report laying runs side by side — saved output folders,
//! the runs of a sweep file's points, a stored baseline, or on-demand scenarios run now (each
//! through [`OnDemand`], replicated with consecutive seeds when asked, the run-to-run spread of
//! every metric saved as `replications.json`). The installed reporter draws the report. The
//! runs made now and the report are written into a staging folder and published whole
//! ([`output::write_staged`]); an `--out` vodbench did not write is refused.

use super::baseline;
use super::export::reporter;
use super::saved_folder::{list_dirs, output_folder_scenario, read_json, sweep_run_points};
use super::CommandError;
use crate::output::{self, CompareRun, Outputs};
use crate::plugin::Registry;
use crate::results::Replications;
use crate::scenario::Source;
use crate::system::ondemand::scenario::{Scenario, SweepSuite};
use crate::system::ondemand::OnDemand;
use crate::system::{declared, Declared, Silent, System};
use std::path::{Path, PathBuf};

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

/// Runs the on-demand configuration `suite` and saves its output folder `dir`; its summary,
/// as JSON.
pub(super) fn run_into(
    outputs: &Outputs,
    suite: &SweepSuite,
    dir: &Path,
) -> Result<serde_json::Value, CommandError> {
    let outcome = OnDemand::run(suite, &Silent)?;
    let summary = serde_json::to_value(&outcome[0].0.summary).expect("serialisable");
    output::write_tree(
        dir,
        output::Writer::Run,
        &OnDemand::save(suite, outcome),
        outputs.writers(),
    )?;
    Ok(summary)
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
pub(crate) fn cmd(
    registry: &Registry,
    outputs: &Outputs,
    args: CompareArgs,
) -> Result<(), CommandError> {
    let rep = reporter(outputs)?;
    if args.inputs.is_empty() {
        return Err(CommandError::input(
            "compare: give output folders or scenario files to compare (or --baseline NAME DIR)",
        ));
    }
    if let Some(b) = &args.baseline {
        baseline::check_name(b).map_err(CommandError::Input)?;
    }
    // flags that apply to scenario inputs only: refused, not ignored, when there is none
    if !args.inputs.iter().any(|i| is_scenario(i)) {
        let flag = if args.terminals.is_some() {
            Some("--terminals")
        } else if args.replications > 1 {
            Some("--replications")
        } else {
            None
        };
        if let Some(flag) = flag {
            return Err(CommandError::input(format!(
                "compare: {flag} applies to scenario inputs (.toml), which are run now; every \
                 input here is a saved folder, whose runs are compared as they were made"
            )));
        }
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join("compare"));
    // a folder of the user's first (exit 2, naming its files), whatever names it holds; no
    // other command writes it meanwhile
    let _lock = output::claim_output_dir(&out, output::Claim::Exclusive, output::Writer::Compare)?;
    if out.join("manifest.json").is_file() {
        // a run's (or search's, sweep's) folder: compare would replace it with its report
        return Err(CommandError::input(format!(
            "--out {}: the output folder of a vodbench run (it holds manifest.json); compare \
             would replace it with its report.html: choose another folder",
            out.display()
        )));
    }
    for input in args.inputs.iter().filter(|i| !is_scenario(i)) {
        if output::within(input, &out) {
            return Err(CommandError::input(format!(
                "--out {}: holds the input {}; compare replaces its output folder as a whole: \
                 choose another folder",
                out.display(),
                input.display()
            )));
        }
    }
    // the runs and the report go into a staging folder, published whole when all is written
    let files = output::write_staged(
        &out,
        output::Writer::Compare,
        |stage| -> Result<Vec<PathBuf>, CommandError> {
            let runs = gather(registry, outputs, &args, stage)?;
            if runs.len() < 2 {
                return Err(CommandError::input(
                "compare: needs at least two runs (give two or more inputs, or --baseline NAME \
                 DIR)",
            ));
            }
            let mut files = rep.compare(&runs, stage)?;
            files.push(save_runs(stage, &runs)?);
            Ok(files
                .iter()
                .map(|f| out.join(f.strip_prefix(stage).unwrap_or(f)))
                .collect())
        },
    )?;
    if !args.quiet {
        for f in files {
            println!("wrote {}", f.display());
        }
    }
    Ok(())
}

/// Whether the input `p` is a scenario file to run (rather than a saved folder).
fn is_scenario(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "toml")
}

/// The runs to lay side by side: saved folders as they are, scenarios run now into
/// `stage/runs/LABEL`.
fn gather(
    registry: &Registry,
    outputs: &Outputs,
    args: &CompareArgs,
    stage: &Path,
) -> Result<Vec<CompareRun>, CommandError> {
    let mut runs: Vec<CompareRun> = Vec::new();
    for input in &args.inputs {
        if is_scenario(input) {
            if args.baseline.is_some() {
                return Err(CommandError::input(format!(
                    "{}: --baseline compares saved output folders; run the scenario first \
                     (`vodbench run {} --out DIR`)",
                    input.display(),
                    input.display()
                )));
            }
            run_scenario(registry, outputs, args, stage, input, &mut runs)?;
            continue;
        }
        // a saved folder: a run, or replications written by an earlier compare
        if input.join("replications.json").is_file() {
            saved_replications(input, &mut runs)?;
            continue;
        }
        let scenario = output_folder_scenario(input).map_err(CommandError::Input)?;
        if let Some(points) = sweep_run_points(input) {
            // `vodbench run SWEEP`: every point's run, labelled by its values
            if args.baseline.is_some() {
                return Err(CommandError::input(format!(
                    "{}: the runs of a sweep file's points; --baseline compares single runs \
                     (compare the folder with another sweep's, or give points/NNN folders)",
                    input.display()
                )));
            }
            sweep_points(args, input, &scenario, points, &mut runs)?;
            continue;
        }
        if let Some(b) = &args.baseline {
            let base = baseline_run(b, &scenario)?;
            if !runs.iter().any(|r| r.dir == base) {
                push(&mut runs, &format!("{scenario} (baseline {b})"), base, None);
            }
        }
        let label = input
            .file_name()
            .map_or(scenario.clone(), |n| n.to_string_lossy().into_owned());
        push(&mut runs, &label, input.clone(), None);
    }
    Ok(runs)
}

/// The labels of `runs` so far.
fn labels(runs: &[CompareRun]) -> Vec<String> {
    runs.iter().map(|r| r.label.clone()).collect::<Vec<_>>()
}

/// Adds a run under `label`, made unique among those of `runs`.
fn push(runs: &mut Vec<CompareRun>, label: &str, dir: PathBuf, replications: Option<PathBuf>) {
    let label = unique_label(&labels(runs), label);
    runs.push(CompareRun {
        label,
        dir,
        replications,
    });
}

/// Runs the scenario file `input` now (`--replications` times) into `stage/runs/LABEL`.
fn run_scenario(
    registry: &Registry,
    outputs: &Outputs,
    args: &CompareArgs,
    stage: &Path,
    input: &Path,
    runs: &mut Vec<CompareRun>,
) -> Result<(), CommandError> {
    let source = Source::read(input)?;
    if declared(&source) == Declared::Broadcast {
        return Err(CommandError::input(format!(
            "{}: compare lays on-demand runs side by side; this is a broadcast scenario \
                 (its own report.html compares its sweep points)",
            input.display()
        )));
    }
    // one configuration: a file with a [sweep] is refused, naming the key
    let mut suite = SweepSuite::single(Scenario::from_source(&source, registry)?);
    if let Some(n) = args.terminals {
        OnDemand::set_load(&mut suite, n).map_err(|e| super::flag_error("--terminals", e))?;
    }
    let label = OnDemand::name(&suite).to_string();
    let arm = stage
        .join("runs")
        .join(output::folder_name(&unique_label(&labels(runs), &label)));
    if !args.quiet {
        eprintln!(
            "running {} ({} × {})",
            input.display(),
            label,
            args.replications
        );
    }
    if args.replications == 1 {
        run_into(outputs, &suite, &arm)?;
        push(runs, &label, arm, None);
    } else {
        let base_seed = suite.points[0].scenario.file.seed;
        let (mut seeds, mut names, mut summaries) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..u64::from(args.replications) {
            let mut r = suite.clone();
            let seed = base_seed.wrapping_add(k);
            OnDemand::set_seed(&mut r, seed).map_err(|e| super::flag_error("--seed", e))?;
            let name = format!("rep-{}", k + 1);
            summaries.push(run_into(outputs, &r, &arm.join(&name))?);
            seeds.push(seed);
            names.push(name);
        }
        let reps = Replications::from_summaries(&label, seeds, names, &summaries);
        let path = arm.join("replications.json");
        output::write_atomic(&path, output::to_json(&reps).as_bytes())?;
        push(runs, &label, arm.join("rep-1"), Some(path));
    }
    Ok(())
}

/// The first run of the replications an earlier compare saved in `input`.
fn saved_replications(input: &Path, runs: &mut Vec<CompareRun>) -> Result<(), CommandError> {
    let path = input.join("replications.json");
    let reps: Replications = read_json(&path)
        .and_then(|v| serde_json::from_value(v).map_err(|e| format!("{}: {e}", path.display())))
        .map_err(CommandError::Input)?;
    let Some(first) = reps.runs.first() else {
        return Err(CommandError::input(format!(
            "{}: lists no runs",
            path.display()
        )));
    };
    let dir = input.join(first);
    output_folder_scenario(&dir).map_err(CommandError::Input)?;
    push(runs, &reps.scenario.clone(), dir, Some(path));
    Ok(())
}

/// Every point's run of a sweep file's run saved in `input` (of `scenario`).
fn sweep_points(
    args: &CompareArgs,
    input: &Path,
    scenario: &str,
    points: Result<Vec<(String, PathBuf)>, String>,
    runs: &mut Vec<CompareRun>,
) -> Result<(), CommandError> {
    let points = points.map_err(CommandError::Input)?;
    let folder = input
        .file_name()
        .map_or(scenario.to_string(), |n| n.to_string_lossy().into_owned());
    for (label, dir) in points {
        output_folder_scenario(&dir).map_err(CommandError::Input)?;
        // with other inputs beside it, say whose point it is
        let label = if args.inputs.len() > 1 {
            format!("{folder}: {label}")
        } else {
            label
        };
        push(runs, &label, dir, None);
    }
    Ok(())
}

/// The run of `scenario` in the saved baseline `b`.
fn baseline_run(b: &str, scenario: &str) -> Result<PathBuf, CommandError> {
    let store = baseline::store().join(b);
    if !store.is_dir() {
        let known = list_dirs(&baseline::store());
        return Err(CommandError::input(format!(
            "--baseline: unknown baseline `{b}` (no folder {}); saved baselines: {}; \
             save one with `vodbench run SCENARIO --save-baseline {b}`",
            store.display(),
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        )));
    }
    let base = store.join(output::folder_name(scenario));
    if let Err(m) = output_folder_scenario(&base) {
        let known = list_dirs(&store);
        return Err(CommandError::input(format!(
            "--baseline: baseline `{b}` has no run of scenario `{scenario}` ({m}); it \
             holds: {}",
            if known.is_empty() {
                "nothing".into()
            } else {
                known.join(", ")
            }
        )));
    }
    Ok(base)
}

/// The file in a comparison's folder that lists its runs, so `vodbench report` can draw the
/// page again.
pub(super) const RUNS_FILE: &str = "compare-runs.json";

/// One run of a comparison as `compare-runs.json` records it: a folder inside the
/// comparison's folder relative to it (the folder can be moved), any other as an absolute
/// path.
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedRun {
    label: String,
    dir: PathBuf,
    replications: Option<PathBuf>,
}

fn saved_path(out: &Path, path: &Path) -> PathBuf {
    match path.strip_prefix(out) {
        Ok(inside) => inside.to_path_buf(),
        Err(_) => std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// Writes `compare-runs.json` for `runs` into `out` (the comparison's folder, or its staging
/// folder, inside which scenario runs were made); its path.
fn save_runs(out: &Path, runs: &[CompareRun]) -> Result<PathBuf, CommandError> {
    let saved: Vec<SavedRun> = runs
        .iter()
        .map(|r| SavedRun {
            label: r.label.clone(),
            dir: saved_path(out, &r.dir),
            replications: r.replications.as_deref().map(|p| saved_path(out, p)),
        })
        .collect();
    let path = out.join(RUNS_FILE);
    let doc = serde_json::json!({ "runs": saved });
    output::write_atomic(&path, output::to_json(&doc).as_bytes())?;
    Ok(path)
}

/// The runs of the comparison saved in `dir`, as `compare-runs.json` lists them; why not,
/// naming the file.
pub(super) fn saved_runs(dir: &Path) -> Result<Vec<CompareRun>, String> {
    let path = dir.join(RUNS_FILE);
    if !path.is_file() {
        return Err(format!(
            "{}: a comparison without {RUNS_FILE} (made before vodbench \
             recorded a comparison's runs); run the same `vodbench compare` again",
            dir.display()
        ));
    }
    #[derive(serde::Deserialize)]
    struct Doc {
        runs: Vec<SavedRun>,
    }
    let doc: Doc = serde_json::from_value(read_json(&path)?)
        .map_err(|e| format!("{}: not a list of compared runs: {e}", path.display()))?;
    if doc.runs.len() < 2 {
        return Err(format!(
            "{}: lists {} run(s); a comparison has at least two",
            path.display(),
            doc.runs.len()
        ));
    }
    let resolve = |p: PathBuf| if p.is_absolute() { p } else { dir.join(p) };
    doc.runs
        .into_iter()
        .map(|r| {
            let run = CompareRun {
                dir: resolve(r.dir),
                replications: r.replications.map(resolve),
                label: r.label,
            };
            match output_folder_scenario(&run.dir) {
                Ok(_) => Ok(run),
                Err(m) => Err(format!("{}: run `{}`: {m}", path.display(), run.label)),
            }
        })
        .collect()
}
