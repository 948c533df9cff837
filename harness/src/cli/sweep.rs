//! `vodbench sweep`: a search at every point of an on-demand sweep
//! ([`crate::experiment::sweep`]), in parallel, with a spinner counting the simulations; each
//! point's search is saved as it finishes, and `--resume` takes those already saved. Writes
//! `sweep.json`, `sweep.csv`, `sweep.md`, a curve per point and the report.
//!
//! Across processes or machines sharing the output folder ([`crate::experiment::task`]):
//! `--task I/N` searches only task I's points and saves each, writing nothing else; `--merge`
//! then writes the sweep from the saved points, byte-identical to one made in one go.

use super::progress::{progress_bar, worker_pool};
use super::search::{cache_text, read_on_demand, SearchLimits};
use super::CommandError;
use crate::experiment::checkpoint::{self, Unused};
use crate::experiment::search::search_cached;
use crate::experiment::sweep::{markdown, sweep_folder, sweep_manifest, sweep_search};
use crate::experiment::task::Task;
use crate::output::{self, Outputs};
use crate::plugin::Registry;
use crate::results::search::{Probe, SearchResult};
use crate::system::ondemand::runner;
use crate::system::ondemand::scenario::SweepSuite;
use crate::system::ondemand::OnDemand;
use crate::system::RunError;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `vodbench sweep`.
#[derive(Debug, clap::Args)]
pub(crate) struct SweepArgs {
    /// Scenario file (TOML) with a `[sweep]` (a file without one is a single point); each
    /// point's terminal count is its expected answer (its search climbs from half of it).
    scenario: PathBuf,
    /// Output folder (default: out/NAME-sweep, NAME being the scenario's name with
    /// characters other than letters, digits, '.', '_' and '-' made '_').
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replication, terminal and thread limits.
    #[command(flatten)]
    limits: SearchLimits,
    /// Only these points (0-based indices in grid order, as `vodbench check` lists them).
    #[arg(long, value_delimiter = ',')]
    points: Vec<usize>,
    /// Take every point already searched in the output folder (its `points/NNN.json`, saved
    /// as each point finishes) instead of searching it again, if it was searched with the
    /// same resolved scenario, the same contents of the files it reads (disk specifications),
    /// limits and vodbench executable: continues a stopped sweep.
    #[arg(long, conflicts_with_all = ["task", "merge"])]
    resume: bool,
    /// Search only this task's share of the points, for one of N processes sharing the
    /// output folder (Slurm array tasks, GNU parallel jobs, a shell loop): `I/N` takes the
    /// points whose grid index is I modulo N; `slurm` takes I and N from a Slurm array
    /// task's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, `slurm/N` only I. Each point is
    /// saved as it finishes (points/NNN.json) and nothing else is written; points already
    /// saved for this same search are not searched again, so a task that died is simply run
    /// again. `--merge` writes the sweep once every task is done.
    #[arg(long, value_name = "I/N", conflicts_with = "merge")]
    pub(crate) task: Option<String>,
    /// Write the sweep (sweep.json, sweep.csv, sweep.md, curves, report.html) from the
    /// points saved in the output folder by `--task` runs, searching none: byte-identical
    /// to the sweep made in one go. Refuses, naming each, points that are missing or were
    /// saved for another scenario, other limits, other input files or by another build.
    #[arg(long)]
    pub(crate) merge: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    /// Refuse a scenario (each sweep point) whose run is estimated to need more memory than
    /// this (`8GiB`, `500MiB`; default 8GiB), naming what dominates.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
}

/// `vodbench sweep`.
pub(crate) fn cmd(
    registry: &Registry,
    outputs: &Outputs,
    args: SweepArgs,
) -> Result<(), CommandError> {
    super::check::set_max_memory(args.max_memory.as_deref())?;
    let path = &args.scenario;
    let opts = args.limits.options()?;
    let mut suite = sweepable_suite(registry, path)?;
    // each point's index in grid order (names its checkpoint)
    let grid = only_points(&mut suite, &args.points)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(&format!("{}-sweep", suite.name)));
    // --task runs share the folder with each other, every other writer has it alone
    let claim = if args.task.is_some() {
        output::Claim::Shared
    } else {
        output::Claim::Exclusive
    };
    let _lock = output::claim_output_dir(&dir, claim, output::Writer::Sweep)?;
    let pool = worker_pool(args.limits.threads)?;
    let bar = progress_bar(args.quiet, "{spinner} sweep {msg}: {pos} runs ({elapsed})");
    let npoints = suite.points.len();
    let labels: Vec<String> = suite.points.iter().map(|p| p.label()).collect();
    let on_probe = |i: usize, p: &Probe| {
        bar.inc(1);
        bar.set_message(format!(
            "{npoints} points; last: {} rep. {}: {} terminals, {} glitches",
            labels[i],
            p.replication + 1,
            p.terminals,
            p.glitches
        ));
    };
    let keys: Vec<String> = suite
        .points
        .iter()
        .map(|p| checkpoint::point_key(&p.scenario, &opts))
        .collect::<Result<_, _>>()?;
    let ctx = TaskRun {
        suite: &suite,
        grid: &grid,
        keys: &keys,
        labels: &labels,
        dir: &dir,
        quiet: args.quiet,
    };
    if let Some(task) = &args.task {
        let task = Task::parse(task, |k| std::env::var(k).ok())
            .map_err(|m| CommandError::input(format!("--task: {m}")))?;
        return pool.install(|| run_task(&ctx, task, &opts, &args.limits, &on_probe, &bar));
    }
    let mut prior: Vec<Option<SearchResult>> = vec![None; npoints];
    if args.merge {
        merge_saved(&ctx, &opts, path, &mut prior)?;
    }
    if args.resume {
        resume_saved(&ctx, &opts, &mut prior);
    }
    let cache = args.limits.open_cache()?;
    let save_error = std::sync::Mutex::new(None::<String>);
    let on_done = |i: usize, r: &SearchResult| {
        if let Err(e) = checkpoint::save(&dir, grid[i], &checkpoint::to_text(&keys[i], r)) {
            let mut first = save_error.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert_with(|| e.to_string());
        }
    };
    let started = Instant::now();
    let outcome =
        pool.install(|| sweep_search(&suite, &opts, &prior, cache.as_ref(), &on_probe, &on_done));
    bar.finish_and_clear();
    if let (Some(c), false) = (&cache, args.quiet) {
        eprint!("{}", cache_text(c));
    }
    if let Some(e) = save_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        if !args.quiet {
            eprintln!("warning: a point's checkpoint could not be saved: {e}");
        }
    }
    let (result, searches) = outcome?;
    let wall = started.elapsed();
    save_sweep(&ctx, outputs, &opts, &prior, &result, &searches)?;
    if !args.quiet {
        print!("{}", markdown(&result));
        println!(
            "wall time {:.1}s for {} points; output: {}",
            wall.as_secs_f64(),
            npoints,
            dir.display()
        );
    }
    Ok(())
}

/// Writes the sweep's output folder (`prior[i]`: whether point `i` was resumed).
fn save_sweep(
    ctx: &TaskRun<'_>,
    outputs: &Outputs,
    opts: &crate::experiment::search::SearchOptions,
    prior: &[Option<SearchResult>],
    result: &crate::results::sweep::SweepResult,
    searches: &[SearchResult],
) -> Result<(), CommandError> {
    let (grid, dir) = (ctx.grid, ctx.dir);
    let resumed: Vec<usize> = (0..ctx.suite.points.len())
        .filter(|&i| prior[i].is_some())
        .map(|i| grid[i])
        .collect();
    let manifest = sweep_manifest(ctx.suite, opts, &resumed);
    let folder = sweep_folder(dir, &manifest, result, searches, grid, ctx.keys);
    // report.html from the written folder; sweep.csv and the curves are written above
    let writers = output::Writers {
        tables: None,
        reporter: outputs.reporter(),
    };
    output::write_tree(dir, output::Writer::Sweep, &folder, writers)?;
    Ok(())
}

/// `--merge`: every point's search as a `--task` run saved it, into `prior`; an error naming
/// each point that is missing or was saved for another search.
fn merge_saved(
    ctx: &TaskRun<'_>,
    opts: &crate::experiment::search::SearchOptions,
    path: &Path,
    prior: &mut [Option<SearchResult>],
) -> Result<(), CommandError> {
    let (suite, grid, keys, labels, dir) = (ctx.suite, ctx.grid, ctx.keys, ctx.labels, ctx.dir);
    let npoints = suite.points.len();
    let mut refused = Vec::new();
    for (i, p) in suite.points.iter().enumerate() {
        match checkpoint::load(dir, grid[i], &keys[i], &p.scenario, opts) {
            Ok(r) => prior[i] = Some(r),
            Err(why) => refused.push(format!(
                "point {} ({}): {}",
                grid[i],
                labels[i],
                why.describe(&dir.join(checkpoint::relative_path(grid[i])))
            )),
        }
    }
    if !refused.is_empty() {
        return Err(CommandError::input(format!(
            "{}: cannot merge: {} of {npoints} points are not saved for this search:\n  {}\n\
             run their tasks again (`vodbench sweep {} --out {} --task I/N` searches only \
             the points it finds no usable file for), then merge",
            dir.display(),
            refused.len(),
            refused.join("\n  "),
            path.display(),
            dir.display()
        )));
    }
    Ok(())
}

/// `--resume`: the points' searches saved before and still usable, into `prior`; says which
/// saved ones are searched again, and why.
fn resume_saved(
    ctx: &TaskRun<'_>,
    opts: &crate::experiment::search::SearchOptions,
    prior: &mut [Option<SearchResult>],
) {
    let (suite, grid, keys, labels, dir) = (ctx.suite, ctx.grid, ctx.keys, ctx.labels, ctx.dir);
    let npoints = suite.points.len();
    for (i, p) in suite.points.iter().enumerate() {
        let why = match checkpoint::load(dir, grid[i], &keys[i], &p.scenario, opts) {
            Ok(r) => {
                prior[i] = Some(r);
                continue;
            }
            Err(Unused::Absent) => continue,
            Err(Unused::Stale(why)) => format!("saved {why}"),
            Err(Unused::Invalid(m)) => format!("unreadable ({m})"),
            Err(Unused::Inconsistent(m)) => format!("inconsistent ({m})"),
        };
        if !ctx.quiet {
            eprintln!(
                "point {} ({}): {} not used: {why}; searching it again",
                grid[i],
                labels[i],
                dir.join(checkpoint::relative_path(grid[i])).display()
            );
        }
    }
    if !ctx.quiet {
        let n = prior.iter().flatten().count();
        eprintln!(
            "resuming {}: {n} of {npoints} points already searched",
            dir.display()
        );
    }
}

/// The sweep of `vodbench sweep FILE` (or of a `vodbench slurm` of it), checked as a sweep
/// needs it: on-demand points with a generated workload whose runs fit.
pub(crate) fn sweepable_suite(
    registry: &Registry,
    path: &Path,
) -> Result<SweepSuite, CommandError> {
    let source = read_on_demand(
        path,
        "sweep searches the most on-demand terminals without glitches; this is a broadcast \
         scenario (`vodbench run` runs its sweep)",
    )?;
    // a file without a [sweep] is one point
    let suite = SweepSuite::from_source(&source?, registry)?;
    for p in &suite.points {
        if p.scenario.file.workload.generate.is_none() {
            return Err(CommandError::input(format!(
                "{}: sweep varies the number of terminals, so the workload must come from \
                 [workload.generate], not from a trace",
                path.display()
            )));
        }
        runner::preflight(&p.scenario)
            .map_err(|e| CommandError::input(format!("sweep point ({}): {e}", p.label())))?;
    }
    Ok(suite)
}

/// What a `--task` run works on.
struct TaskRun<'a> {
    suite: &'a SweepSuite,
    /// Each point's index in grid order.
    grid: &'a [usize],
    /// Each point's checkpoint key.
    keys: &'a [String],
    labels: &'a [String],
    dir: &'a Path,
    quiet: bool,
}

/// `vodbench sweep --task`: searches the task's points that have no usable checkpoint in
/// the folder, in parallel (inside the current pool), saving each as it finishes; a point
/// that cannot be saved fails the task, since its work would be lost.
fn run_task(
    ctx: &TaskRun<'_>,
    task: Task,
    opts: &crate::experiment::search::SearchOptions,
    limits: &SearchLimits,
    on_probe: &(dyn Fn(usize, &Probe) + Sync),
    bar: &indicatif::ProgressBar,
) -> Result<(), CommandError> {
    let mine: Vec<usize> = (0..ctx.suite.points.len())
        .filter(|&i| task.owns(ctx.grid[i]))
        .collect();
    let mut todo = Vec::new();
    for &i in &mine {
        let p = &ctx.suite.points[i];
        match checkpoint::load(ctx.dir, ctx.grid[i], &ctx.keys[i], &p.scenario, opts) {
            Ok(_) => {}
            Err(why) => {
                if !ctx.quiet && why != Unused::Absent {
                    eprintln!(
                        "point {} ({}): {}; searching it again",
                        ctx.grid[i],
                        ctx.labels[i],
                        why.describe(&ctx.dir.join(checkpoint::relative_path(ctx.grid[i])))
                    );
                }
                todo.push(i);
            }
        }
    }
    let cache = limits.open_cache()?;
    let started = Instant::now();
    let outcome: Result<Vec<(usize, u64)>, CommandError> = todo
        .par_iter()
        .map(|&i| {
            let p = &ctx.suite.points[i];
            let r =
                search_cached::<OnDemand>(&p.scenario, opts, cache.as_ref(), &|pr| on_probe(i, pr))
                    .map_err(|e| RunError::Point {
                        label: p.label(),
                        error: Box::new(e),
                    })?;
            checkpoint::save(ctx.dir, ctx.grid[i], &checkpoint::to_text(&ctx.keys[i], &r))
                .map_err(|e| {
                    CommandError::failure(format!(
                        "point {} ({}) was searched but could not be saved: {e}",
                        ctx.grid[i], ctx.labels[i]
                    ))
                })?;
            Ok((i, r.max_terminals))
        })
        .collect();
    bar.finish_and_clear();
    if let (Some(c), false) = (&cache, ctx.quiet) {
        eprint!("{}", cache_text(c));
    }
    let done = outcome?;
    if !ctx.quiet {
        let list = |v: &[usize]| {
            v.iter()
                .map(|&i| ctx.grid[i].to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "task {task}: points [{}] of {}; {} searched, {} already saved",
            list(&mine),
            ctx.suite.points.len(),
            done.len(),
            mine.len() - done.len()
        );
        for (i, max) in &done {
            println!(
                "  point {} ({}): {max} terminals",
                ctx.grid[*i], ctx.labels[*i]
            );
        }
        println!(
            "wall time {:.1}s; saved in {}",
            started.elapsed().as_secs_f64(),
            ctx.dir.join(checkpoint::FOLDER).display()
        );
    }
    Ok(())
}

/// Keeps only the points of `suite` listed by `--points` (all when none is); their indices in
/// grid order.
fn only_points(suite: &mut SweepSuite, points: &[usize]) -> Result<Vec<usize>, CommandError> {
    let n = suite.points.len();
    if points.is_empty() {
        return Ok((0..n).collect());
    }
    if let Some(bad) = points.iter().find(|&&i| i >= n) {
        return Err(CommandError::input(format!(
            "--points: {bad} is not a point of {} (0..{n})",
            suite.path.display()
        )));
    }
    let keep: std::collections::BTreeSet<usize> = points.iter().copied().collect();
    suite.points = std::mem::take(&mut suite.points)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep.contains(i))
        .map(|(_, p)| p)
        .collect();
    Ok(keep.into_iter().collect())
}
