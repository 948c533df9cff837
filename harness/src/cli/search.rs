//! `vodbench search`: the largest number of terminals an on-demand scenario serves without a
//! glitch ([`crate::experiment::search`]), with a spinner counting the simulations; writes
//! `search.json`, `curve.csv` and the report. The limits it shares with `vodbench sweep` are
//! here too.

use super::progress::{progress_bar, worker_pool};
use super::CommandError;
use crate::experiment::cache::RunCache;
use crate::experiment::search::{
    search_cached, search_folder, summary_text, SearchOptions, CLIMB_FROM_PERCENT,
};
use crate::output::{self, Outputs};
use crate::plugin::Registry;
use crate::results::search::Probe;
use crate::spec::{ScenarioError, Source};
use crate::system::ondemand::spec::Scenario;
use crate::system::ondemand::{runner, OnDemand};
use crate::system::{declared, Declared};
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
}

impl SearchLimits {
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
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    /// Refuse a scenario (each sweep point) whose run is estimated to need more memory than
    /// this (`8GiB`, `500MiB`; default 8GiB), naming what dominates.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
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
    let path = &args.scenario;
    let source = read_on_demand(
        path,
        "search finds the most on-demand terminals without glitches; this is a broadcast \
         scenario",
    )?;
    let opts = args.limits.options()?;
    let scenario = Scenario::from_source(&source?, registry)?;
    if scenario.file.workload.generate.is_none() {
        return Err(CommandError::input(format!(
            "{}: search varies the number of terminals, so the workload must come from \
             [workload.generate], not from a trace",
            path.display()
        )));
    }
    runner::preflight(&scenario)?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(&format!("{}-search", scenario.name())));
    output::check_output_dir(&dir)?;
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
    let result =
        pool.install(|| search_cached::<OnDemand>(&scenario, &opts, cache.as_ref(), &on_probe));
    bar.finish_and_clear();
    if let (Some(c), false) = (&cache, args.quiet) {
        eprint!("{}", cache_text(c));
    }
    let result = result?;
    let wall = started.elapsed();
    let folder = search_folder::<OnDemand>(&scenario, &opts, &result);
    output::write_tree(&dir, &folder, outputs.writers())?;
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
