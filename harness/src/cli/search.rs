//! `vodbench search`: the largest number of terminals an on-demand scenario serves without a
//! glitch ([`crate::experiment::search`]), with a spinner counting the simulations; writes
//! `search.json`, `curve.csv` and the report. The limits it shares with `vodbench sweep` are
//! here too.
//!
//! Across processes or machines sharing the output folder ([`crate::experiment::task`]):
//! `--task I/N` makes only task I's replications (replication r is task r mod N's) and saves
//! each as `replications/NNN.json`, stopping once the saved replications decide the search;
//! `--merge` writes the search from them, byte-identical to one made in one go.

use super::progress::{progress_bar, worker_pool};
use super::CommandError;
use crate::experiment::cache::RunCache;
use crate::experiment::checkpoint;
use crate::experiment::search::{
    decided, from_replications, replication, search_cached, search_folder, summary_text,
    SearchOptions, CLIMB_FROM_PERCENT,
};
use crate::experiment::task::Task;
use crate::output::{self, Outputs};
use crate::plugin::Registry;
use crate::results::search::{Probe, ReplicationResult};
use crate::scenario::{ScenarioError, Source};
use crate::system::ondemand::scenario::Scenario;
use crate::system::ondemand::{runner, OnDemand};
use crate::system::{declared, Declared};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The options `vodbench search` and `vodbench sweep` share: how many replications and
/// terminals a search may use, and on how many threads.
#[derive(Debug, clap::Args)]
pub(crate) struct SearchLimits {
    /// Most replications (independent seeds) to reach 90 % confidence within 5 % (at least 3;
    /// per point for a sweep).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(3..=1000))]
    seeds: u32,
    /// Fewest replications before the stopping rule is looked at (at least 3, at most
    /// --seeds): raise it where replications' maxima spread widely, since a few that happen to
    /// agree can otherwise stop the search with too narrow an interval.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(3..=1000))]
    min_seeds: u32,
    /// Worker threads (default: one per CPU); the result does not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub(crate) threads: Option<u32>,
    /// Largest terminal count to try.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_terminals: u32,
    /// End each simulation at its first glitch in the measured period: the maxima and
    /// intervals are the same (a search only asks whether a run glitches) and glitching runs
    /// cost less, but their glitch counts in the curve become lower bounds (usually 1).
    #[arg(long)]
    stop_at_glitch: bool,
    /// Keep every simulation in this folder and take from it those already made, by this
    /// same vodbench build, for the same configuration, seed and terminal count (in any
    /// search or sweep given the folder): the outputs are the same as without it. Delete the
    /// folder to empty it.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Stop each replication's bisection once its largest glitch-free and smallest glitching
    /// counts are within this many percent of the former (0: down to one terminal). Saves
    /// the last simulations near each maximum; each replication's answer may then be up to
    /// that much low. Changes the results.
    #[arg(long, value_name = "PERCENT", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=20))]
    resolution: u32,
    /// Start each replication's climb at this many percent of the scenario's terminal count
    /// (the expected answer) instead of 50: saves the climb's first simulations, but
    /// glitches at loads below the start go unseen. Changes the results.
    #[arg(long, value_name = "PERCENT", default_value_t = CLIMB_FROM_PERCENT, value_parser = clap::value_parser!(u32).range(10..=100))]
    climb_from: u32,
    /// Start every replication after the first at ±5 % around replication 0's answer and
    /// bisect (replication 0 still climbs from --climb-from): fewer simulations, the same
    /// answers where glitches grow with the count, but a later replication's glitch well
    /// below replication 0's answer goes unseen. Changes the results; by default every
    /// replication climbs.
    #[arg(long)]
    bracket: bool,
}

impl SearchLimits {
    /// These limits as the flags that set them (all but `--threads`), for a command that
    /// runs vodbench again with them (`vodbench slurm`'s scripts).
    pub(crate) fn to_args(&self) -> Vec<String> {
        let mut a = vec![
            "--seeds".to_string(),
            self.seeds.to_string(),
            "--min-seeds".into(),
            self.min_seeds.to_string(),
            "--max-terminals".into(),
            self.max_terminals.to_string(),
            "--resolution".into(),
            self.resolution.to_string(),
            "--climb-from".into(),
            self.climb_from.to_string(),
        ];
        if self.stop_at_glitch {
            a.push("--stop-at-glitch".into());
        }
        if self.bracket {
            a.push("--bracket".into());
        }
        if let Some(c) = &self.cache {
            a.push("--cache".into());
            a.push(
                std::path::absolute(c)
                    .unwrap_or_else(|_| c.clone())
                    .display()
                    .to_string(),
            );
        }
        a
    }

    /// The cache folder given with `--cache`, opened.
    pub(crate) fn open_cache(&self) -> Result<Option<RunCache>, CommandError> {
        self.cache
            .as_deref()
            .map(RunCache::open)
            .transpose()
            .map_err(|e| CommandError::input(format!("--cache: {e}")))
    }

    /// The search options these limits set, or why they are contradictory.
    pub(crate) fn options(&self) -> Result<SearchOptions, CommandError> {
        if self.min_seeds > self.seeds {
            return Err(CommandError::input(format!(
                "--min-seeds {} is more than --seeds {}: the fewest replications must not \
                 exceed the most",
                self.min_seeds, self.seeds
            )));
        }
        Ok(SearchOptions {
            min_replications: self.min_seeds,
            max_replications: self.seeds,
            max_terminals: self.max_terminals,
            stop_at_glitch: self.stop_at_glitch,
            resolution_percent: self.resolution,
            climb_from_percent: self.climb_from,
            bracket: self.bracket,
        })
    }
}

/// Arguments of `vodbench search`.
#[derive(Debug, clap::Args)]
pub(crate) struct SearchArgs {
    /// Scenario file (TOML) with a generated workload; its terminal count is the expected
    /// answer (the search climbs from half of it).
    scenario: PathBuf,
    /// Output folder (default: out/NAME-search, NAME being the scenario's name with
    /// characters other than letters, digits, '.', '_' and '-' made '_').
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replication, terminal and thread limits.
    #[command(flatten)]
    limits: SearchLimits,
    /// Make only this task's share of the replications, for one of N processes sharing the
    /// output folder (Slurm array tasks, GNU parallel jobs, a shell loop): `I/N` makes the
    /// replications whose index is I modulo N; `slurm` takes I and N from a Slurm array
    /// task's SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT, `slurm/N` only I. Each is
    /// saved as it finishes (replications/NNN.json) and nothing else is written; the task
    /// stops once the saved replications decide the search, and makes none that is already
    /// saved. `--merge` writes the search once the tasks are done.
    #[arg(long, value_name = "I/N", conflicts_with = "merge")]
    task: Option<String>,
    /// Write the search (search.json, curve.csv, report.html) from the replications saved in
    /// the output folder by `--task` runs, simulating nothing: byte-identical to the search
    /// made in one go. Refuses when the stopping rule needs a replication that is missing or
    /// was saved for another scenario, other limits, other input files or by another build.
    #[arg(long)]
    merge: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    /// Refuse a scenario (each sweep point) whose run is estimated to need more memory than
    /// this (`8GiB`, `500MiB`; default 8GiB), naming what dominates.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
}

/// The scenario of `vodbench search FILE` (or of a `vodbench slurm` of it), checked as a
/// search needs it: an on-demand scenario with a generated workload whose run fits.
pub(crate) fn searchable_scenario(
    registry: &Registry,
    path: &Path,
) -> Result<Scenario, CommandError> {
    let source = read_on_demand(
        path,
        "search finds the most on-demand terminals without glitches; this is a broadcast \
         scenario",
    )?;
    let scenario = Scenario::from_source(&source?, registry)?;
    if scenario.file.workload.generate.is_none() {
        return Err(CommandError::input(format!(
            "{}: search varies the number of terminals, so the workload must come from \
             [workload.generate], not from a trace",
            path.display()
        )));
    }
    runner::preflight(&scenario)?;
    Ok(scenario)
}

/// Reads the scenario of a command that takes on-demand files only: a broadcast one is
/// refused with `refusal` after its path. A file that cannot be read is returned as the inner
/// error, for the command to report once its flags are checked.
pub(super) fn read_on_demand(
    path: &Path,
    refusal: &str,
) -> Result<Result<Arc<Source>, ScenarioError>, CommandError> {
    let source = Source::read(path);
    if source
        .as_ref()
        .is_ok_and(|s| declared(s) == Declared::Broadcast)
    {
        return Err(CommandError::input(format!(
            "{}: {refusal}",
            path.display()
        )));
    }
    Ok(source)
}

/// `vodbench search`.
pub(crate) fn cmd(
    registry: &Registry,
    outputs: &Outputs,
    args: SearchArgs,
) -> Result<(), CommandError> {
    super::check::set_max_memory(args.max_memory.as_deref())?;
    let opts = args.limits.options()?;
    let scenario = searchable_scenario(registry, &args.scenario)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(&format!("{}-search", scenario.name())));
    // --task runs share the folder with each other, every other writer has it alone
    let claim = if args.task.is_some() {
        output::Claim::Shared
    } else {
        output::Claim::Exclusive
    };
    let _lock = output::claim_output_dir(&dir, claim, output::Writer::Search)?;
    let pool = worker_pool(args.limits.threads)?;
    let cache = args.limits.open_cache()?;
    let bar = progress_bar(args.quiet, "{spinner} search: {pos} runs ({elapsed}) {msg}");
    let on_probe = |p: &Probe| {
        bar.inc(1);
        bar.set_message(format!(
            "replication {}: {} terminals, {} glitches",
            p.replication + 1,
            p.terminals,
            p.glitches
        ));
    };
    let started = Instant::now();
    let key = checkpoint::point_key(&scenario, &opts)?;
    if let Some(task) = &args.task {
        let task = Task::parse(task, |k| std::env::var(k).ok())
            .map_err(|m| CommandError::input(format!("--task: {m}")))?;
        let made = pool.install(|| {
            run_task(
                &scenario,
                &opts,
                &key,
                &dir,
                task,
                cache.as_ref(),
                &on_probe,
            )
        });
        bar.finish_and_clear();
        if let (Some(c), false) = (&cache, args.quiet) {
            eprint!("{}", cache_text(c));
        }
        let (made, mine, decided_by) = made?;
        if !args.quiet {
            println!(
                "task {task}: made replications [{}] of the search; {}",
                made.iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                match decided_by {
                    Some(k) => format!("the search is decided by replications 0–{}", k - 1),
                    None => format!(
                        "its replications ({}) are all saved; others' may be running",
                        mine
                    ),
                }
            );
            println!(
                "wall time {:.1}s; saved in {}",
                started.elapsed().as_secs_f64(),
                dir.join(checkpoint::REPLICATIONS).display()
            );
        }
        return Ok(());
    }
    let result = if args.merge {
        merged(&scenario, &opts, &key, &dir, &args.scenario)?
    } else {
        let result =
            pool.install(|| search_cached::<OnDemand>(&scenario, &opts, cache.as_ref(), &on_probe));
        bar.finish_and_clear();
        if let (Some(c), false) = (&cache, args.quiet) {
            eprint!("{}", cache_text(c));
        }
        result?
    };
    let wall = started.elapsed();
    let mut folder = search_folder::<OnDemand>(&scenario, &opts, &result);
    // a merged search keeps the replications it was made from (and may be merged again)
    let kept = checkpoint::saved_in_except(&dir, checkpoint::REPLICATIONS, &[]);
    if !kept.is_empty() {
        folder.files.push((
            format!("{}/{}", checkpoint::REPLICATIONS, crate::ownership::MARK),
            crate::ownership::checkpoints_mark_text(output::Writer::Search),
        ));
        folder.files.extend(kept);
    }
    output::write_tree(&dir, output::Writer::Search, &folder, outputs.writers())?;
    if !args.quiet {
        print!("{}", summary_text(&result));
        println!(
            "wall time {:.1}s; output: {}",
            wall.as_secs_f64(),
            dir.display()
        );
    }
    Ok(())
}

/// The replications saved in `dir` under `key`, in index order, up to the first that is not
/// usable (and why it is not, with its path), at most `max` of them.
type Saved = (Vec<(ReplicationResult, Vec<Probe>)>, Option<(u32, String)>);

fn saved_prefix(
    dir: &Path,
    key: &str,
    max: u32,
    scenario: &Scenario,
    opts: &SearchOptions,
) -> Saved {
    let mut runs = Vec::new();
    for r in 0..max {
        match checkpoint::load_replication(dir, r, key, scenario, opts) {
            Ok(run) => runs.push(run),
            Err(why) => {
                let text = why.describe(&dir.join(checkpoint::replication_path(r)));
                return (runs, Some((r, text)));
            }
        }
    }
    (runs, None)
}

/// `vodbench search --task`: makes this task's replications, in batches as wide as the pool,
/// each saved as it finishes, until none is left or the replications saved in `dir` (by
/// every task) decide the search. Returns the replications made, how many are this task's,
/// and how many decide the search when they do.
fn run_task(
    scenario: &Scenario,
    opts: &SearchOptions,
    key: &str,
    dir: &Path,
    task: Task,
    cache: Option<&RunCache>,
    on_probe: &(dyn Fn(&Probe) + Sync),
) -> Result<(Vec<u32>, usize, Option<usize>), CommandError> {
    let max = opts.replication_limits().1;
    let mine: Vec<u32> = task
        .items(max as usize)
        .into_iter()
        .map(|r| r as u32)
        .collect();
    let width = rayon::current_num_threads().max(1);
    let mut made = Vec::new();
    loop {
        let (runs, _) = saved_prefix(dir, key, max, scenario, opts);
        let maxima: Vec<u32> = runs.iter().map(|(r, _)| r.max_terminals).collect();
        if let Some((k, _)) = decided(&maxima, opts) {
            return Ok((made, mine.len(), Some(k)));
        }
        let batch: Vec<u32> = mine
            .iter()
            .copied()
            .filter(|&r| checkpoint::load_replication(dir, r, key, scenario, opts).is_err())
            .take(width)
            .collect();
        if batch.is_empty() {
            return Ok((made, mine.len(), None));
        }
        let done: Vec<u32> = batch
            .par_iter()
            .map(|&r| -> Result<u32, CommandError> {
                let (rep, probes) = replication::<OnDemand>(scenario, opts, cache, r, on_probe)?;
                checkpoint::save_replication(
                    dir,
                    r,
                    &checkpoint::replication_to_text(key, &rep, &probes),
                )
                .map_err(|e| {
                    CommandError::failure(format!(
                        "replication {r} was made but could not be saved: {e}"
                    ))
                })?;
                Ok(r)
            })
            .collect::<Result<_, _>>()?;
        made.extend(done);
    }
}

/// `vodbench search --merge`: the search from the replications saved in `dir`, or why the
/// stopping rule cannot be applied yet.
fn merged(
    scenario: &Scenario,
    opts: &SearchOptions,
    key: &str,
    dir: &Path,
    path: &Path,
) -> Result<crate::results::search::SearchResult, CommandError> {
    let max = opts.replication_limits().1;
    let (runs, stop) = saved_prefix(dir, key, max, scenario, opts);
    let usable = runs.len();
    from_replications::<OnDemand>(scenario, opts, runs).ok_or_else(|| {
        let (r, why) = stop.expect("undecided only when a replication is not usable");
        let have = match usable {
            0 => "none of its replications is saved".to_string(),
            1 => "only replication 0 is saved".to_string(),
            n => format!("replications 0–{} are saved", n - 1),
        };
        CommandError::input(format!(
            "{}: cannot merge: {have} for this search, the stopping rule needs more, and \
             replication {r} is not usable: {why}\n\
             run the tasks again (`vodbench search {} --out {} --task I/N` makes only the \
             replications it finds no usable file for), then merge",
            dir.display(),
            path.display(),
            dir.display()
        ))
    })
}

/// What `vodbench search` and `sweep` say about the cache after their runs: how many
/// simulations came from it and were saved to it, and what could not be cached or saved.
pub(super) fn cache_text(c: &RunCache) -> String {
    let mut out = format!(
        "cache {}: {} simulations taken from it, {} saved to it\n",
        c.dir().display(),
        c.reused(),
        c.stored()
    );
    if let Some(why) = c.refused() {
        out += &format!("warning: not cached: {why}\n");
    }
    if let Some(e) = c.save_error() {
        out += &format!("warning: a simulation could not be saved to the cache: {e}\n");
    }
    out
}
