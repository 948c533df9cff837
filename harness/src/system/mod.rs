//! The systems vodbench computes answers for, each behind one trait, [`System`]: a scenario
//! file is *loaded* (parsed, its sweep expanded, every point validated and its plugins
//! resolved), *validated* (what only building shows: plugins that cannot be built, a video
//! library that does not fit), *run* (every point, in parallel where independent), and its
//! results *saved* as an output folder ([`Folder`]).
//!
//! ```text
//!  file ─► Source ─► declared() ─┬─► OnDemand  (SPIFFI's server: [`ondemand`])
//!                                └─► Broadcast (periodic broadcast: [`broadcast`])
//!          S::load ─► S::validate ─► S::run ─► S::save ─► output::write_tree
//! ```
//!
//! The commands (`run`, `check`, `bench`, and through the on-demand system `search`, `sweep`,
//! `compare`, `rerun`) drive a system only through this trait; which system a file is for is
//! decided by what it declares ([`declared`]): a top-level `[broadcast]` table makes it a
//! broadcast scenario, anything else an on-demand one. A system whose scenarios have a load
//! to vary — the on-demand server's terminals — is also [`Searchable`]: a search
//! (`experiment::search`) asks it for one simulation at a time.

pub mod broadcast;
pub mod memory;
pub mod ondemand;
pub mod overrides;

pub use overrides::OverrideError;

use crate::contract_breach::ContractBreach;
use crate::output::Folder;
use crate::plugin::{
    Analysis, AnalyticModel, BuildContext, ModelInput, PluginError, Registry, Resolved,
};
use crate::results::analysis::PointAnalysis;
use crate::results::search::AnswerStats;
use crate::scenario::{ScenarioError, Source};
use crate::time::SimTime;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The systems a scenario file can declare.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Declared {
    /// An on-demand video server (the default).
    OnDemand,
    /// Periodic broadcast (a top-level `[broadcast]` table).
    Broadcast,
}

/// The system `source` declares: broadcast when it has a top-level `[broadcast]` table,
/// on-demand otherwise (a file that is not TOML is left to the on-demand loader, which
/// reports where it breaks).
pub fn declared(source: &Source) -> Declared {
    if source.declares("broadcast") {
        Declared::Broadcast
    } else {
        Declared::OnDemand
    }
}

/// What a run reports as it goes. Both methods may be called from several threads.
pub trait Progress: Sync {
    /// A single simulation reached simulated time `now` of a run that ends at `end` (when
    /// known).
    fn simulated(&self, _now: SimTime, _end: Option<SimTime>) {}
    /// `done` of `total` points have finished.
    fn points(&self, _done: usize, _total: usize) {}
}

/// Reports nothing.
pub struct Silent;
impl Progress for Silent {}

/// Why a run of a loaded file failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The scenario cannot run, for a reason found only when building or running it (its
    /// trace, a plugin that cannot be built for it): bad input, exit code 2.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// An on-demand simulation stopped (a plugin broke its contract, no progress): exit 1.
    #[error(transparent)]
    Sim(ondemand::SimError),
    /// A broadcast run failed; a disk too small for what it spills is bad input.
    #[error("{}: {error}", path.display())]
    Broadcast {
        /// The scenario file.
        path: std::path::PathBuf,
        /// What went wrong.
        error: broadcast::BroadcastError,
    },
    /// One point of a sweep failed.
    #[error("sweep point ({label}): {error}")]
    Point {
        /// The point's values (`elevator / 512KiB`).
        label: String,
        /// Its error.
        error: Box<RunError>,
    },
}

impl From<ondemand::SimError> for RunError {
    fn from(e: ondemand::SimError) -> Self {
        match e {
            ondemand::SimError::Scenario(e) => RunError::Scenario(e),
            e => RunError::Sim(e),
        }
    }
}

impl RunError {
    /// Whether the input is at fault (exit code 2) rather than the run (exit code 1).
    pub fn is_input(&self) -> bool {
        match self {
            RunError::Scenario(_) => true,
            // a loaded plugin that breaks its contract is the user's input
            RunError::Sim(ondemand::SimError::Plugin(b)) => b.by_loaded_policy(),
            RunError::Sim(_) => false,
            RunError::Broadcast { error, .. } => match error {
                broadcast::BroadcastError::DiskFull { .. } => true,
                broadcast::BroadcastError::Contract(b) => b.by_loaded_policy(),
                _ => false,
            },
            RunError::Point { error, .. } => error.is_input(),
        }
    }

    /// The broken contract this error reports, if it is one (in a sweep's point too).
    pub fn breach(&self) -> Option<&ContractBreach> {
        match self {
            RunError::Sim(ondemand::SimError::Plugin(b)) => Some(b.as_ref()),
            RunError::Broadcast {
                error: broadcast::BroadcastError::Contract(b),
                ..
            } => Some(b.as_ref()),
            RunError::Point { error, .. } => error.breach(),
            RunError::Scenario(_) | RunError::Sim(_) | RunError::Broadcast { .. } => None,
        }
    }
}

/// What a benchmark counts of a run: units of work and, for a simulation with a clock, the
/// simulated seconds.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Work {
    /// Units of work done (events, client frames).
    pub units: f64,
    /// Their name (`events`).
    pub unit: &'static str,
    /// Simulated seconds, where the run has a simulated clock.
    pub simulated_s: Option<f64>,
}

/// One way of answering a scenario file: load → validate → run → saved results.
///
/// ```no_run
/// use vodbench_harness::system::{ondemand::OnDemand, Silent, System};
/// use vodbench_harness::scenario::Source;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let registry = vodbench_harness::plugin::Registry::new(); // with the built-ins added
/// let source = Source::read(std::path::Path::new("scenarios/zipf1.toml"))?;
/// let suite = OnDemand::load(&source, &registry)?;
/// OnDemand::validate(&suite)?;
/// let outcome = OnDemand::run(&suite, &Silent)?;
/// let folder = OnDemand::save(&suite, outcome);
/// assert!(folder.files.iter().any(|(name, _)| name == "summary.json"));
/// # Ok(()) }
/// ```
pub trait System {
    /// A loaded file: every point, validated, plugins resolved.
    type Suite: Send + Sync;
    /// What running every point of a suite yields.
    type Outcome: Send;
    /// The system's name, as messages call it (`on-demand`, `broadcast`).
    const NAME: &'static str;

    /// Parses and validates the file: its sweep expanded, every point checked and its
    /// plugins resolved. Errors name the file, the line and the key.
    fn load(source: &Arc<Source>, registry: &Registry) -> Result<Self::Suite, ScenarioError>;
    /// The scenario's name (the default output folder's).
    fn name(suite: &Self::Suite) -> &str;
    /// Whether the file has a `[sweep]` (several points, even if one).
    fn is_sweep(suite: &Self::Suite) -> bool;
    /// Replaces every point's seed (the command line's override); an error when a sweep
    /// axis sets it.
    fn set_seed(suite: &mut Self::Suite, seed: u64) -> Result<(), OverrideError>;
    /// Replaces every point's load, its number of terminals (the command line's override);
    /// an error where the system has none, a sweep axis sets it or it is out of range.
    fn set_load(suite: &mut Self::Suite, load: u32) -> Result<(), OverrideError>;
    /// Builds what a run builds, without running, and reports the first thing that cannot
    /// be built, at its key.
    fn validate(suite: &Self::Suite) -> Result<(), ScenarioError>;
    /// What `vodbench check` prints for a valid file (after [`validate`](System::validate)).
    fn check_text(suite: &Self::Suite) -> Result<String, ScenarioError>;
    /// Runs every point.
    fn run(suite: &Self::Suite, progress: &dyn Progress) -> Result<Self::Outcome, RunError>;
    /// The output folder of a run (the outcome is consumed: its tables move into it).
    fn save(suite: &Self::Suite, outcome: Self::Outcome) -> Folder;
    /// What `vodbench run` prints about the results.
    fn summary_text(suite: &Self::Suite, outcome: &Self::Outcome) -> String;
    /// The line `vodbench run` prints last: the wall time, the speed and the output folder.
    fn wall_text(
        suite: &Self::Suite,
        outcome: &Self::Outcome,
        wall: std::time::Duration,
        dir: &Path,
    ) -> String;
    /// What `vodbench bench` counts of a run.
    fn work(outcome: &Self::Outcome) -> Work;
    /// Each point's analytic model evaluated (`vodbench analyze`): the second way to answer
    /// a scenario, in closed form. Errors name the key whose value the model cannot take.
    fn analyze(suite: &Self::Suite) -> Result<Vec<PointAnalysis>, ScenarioError>;
}

/// The analytic model `model`, chosen at table `slot`, evaluated at `input`; its errors as
/// scenario errors through `at`, at the key they name (a quantity's scenario key or the
/// model's parameter), and every value checked to be finite.
pub(crate) fn evaluate_model(
    model: &Resolved<dyn AnalyticModel>,
    slot: &str,
    ctx: &BuildContext<'_>,
    input: &ModelInput,
    at: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<Analysis, ScenarioError> {
    let name = model.name;
    let err = |e: PluginError| match e {
        PluginError::InvalidParam { path, message } if !path.is_empty() => {
            at(&path, format!("analytic model `{name}`: {message}"))
        }
        e => at(slot, format!("analytic model `{name}`: {e}")),
    };
    let analysis = model
        .build(ctx)
        .and_then(|m| m.evaluate(input))
        .map_err(err)?;
    let cells = analysis.values.iter().map(|(k, v)| (k.clone(), *v)).chain(
        analysis.tables.iter().flat_map(|t| {
            t.rows
                .iter()
                .flatten()
                .map(move |v| (format!("table {}", t.name), *v))
        }),
    );
    for (key, v) in cells {
        if !v.is_finite() {
            return Err(at(
                slot,
                format!(
                    "analytic model `{name}` broke its contract: {key} is {v}, not a finite number"
                ),
            ));
        }
    }
    Ok(analysis)
}

/// How a search runs each of its simulations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProbeOptions {
    /// End the simulation at its first glitch in the measured period: whether it glitches is
    /// the same, but a glitching run's count is then a lower bound (usually 1).
    pub stop_at_glitch: bool,
}

/// What a search keeps of one simulation: whether (and how often) it failed its viewers, and
/// what it measured in case its load turns out to be a replication's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProbeOutcome {
    /// Glitches in the measured period, each viewer never served counted as one (a lower
    /// bound if the run ended at its first).
    pub glitches: u64,
    /// The ratios measured by the run.
    pub stats: AnswerStats,
}

/// What identifies the simulations of one configuration in a run cache
/// (`experiment::cache`), whatever their seed and load.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheIdentity {
    /// The resolved configuration without what only labels or prices it, and without the
    /// seed and load a search sets for each simulation.
    pub configuration: serde_json::Value,
    /// The folder its relative paths resolve against.
    pub base_dir: PathBuf,
    /// The scenario file (named when the configuration cannot be cached).
    pub file: PathBuf,
}

/// A system with a load a search can vary: the largest load served without a glitch is its
/// capacity (SPIFFI §7.1). A search (`experiment::search`) climbs and bisects over the load of
/// one configuration ([`Searchable::Point`]), asking for one simulation at a time
/// ([`Searchable::probe`]); the run cache stores what a probe returns.
///
/// ```no_run
/// use vodbench_harness::system::ondemand::{scenario::Scenario, OnDemand};
/// use vodbench_harness::system::{ProbeOptions, Searchable};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let registry = vodbench_harness::plugin::Registry::new(); // with the built-ins added
/// let scenario = Scenario::load(std::path::Path::new("scenarios/zipf1.toml"), &registry)?;
/// let shared = OnDemand::shared(1);
/// let run = OnDemand::probe(&scenario, 7, 100, &shared, ProbeOptions::default())?;
/// println!("100 terminals, seed 7: {} glitches", run.glitches);
/// # Ok(()) }
/// ```
pub trait Searchable: System {
    /// One configuration whose load a search varies (a point of a suite).
    type Point: Send + Sync;
    /// What the simulations of one search share (the on-demand system: a memo of video
    /// libraries, the same for every run of one seed).
    type Shared: Sync;
    /// The largest load a search may try.
    const MAX_LOAD: u32;

    /// The configuration's name (`search.json`'s `scenario`).
    fn point_name(point: &Self::Point) -> &str;
    /// Its seed, from which every replication's seed derives.
    fn seed(point: &Self::Point) -> u64;
    /// The load it declares: the expected answer, from which a search starts climbing.
    fn expected_load(point: &Self::Point) -> u32;
    /// The published maximum it carries (`[paper] max_terminals`), if any.
    fn published_max(point: &Self::Point) -> Option<f64>;
    /// What its runs count as failures, when more than glitches (the on-demand system with
    /// `[transmission]`: packets lost at a client, too); `None` (the default) for glitches.
    fn failures(_point: &Self::Point) -> Option<&'static str> {
        None
    }
    /// The maximum its analytic model predicts (`max_terminals` of its `[analytic]` model),
    /// if it has one; a model that cannot take the point is an error at its key.
    fn model_max(point: &Self::Point) -> Result<Option<f64>, ScenarioError>;
    /// What the simulations of one search, run on `threads` threads, share.
    fn shared(threads: usize) -> Self::Shared;
    /// Simulates `point` at `load` with `seed`.
    fn probe(
        point: &Self::Point,
        seed: u64,
        load: u32,
        shared: &Self::Shared,
        opts: ProbeOptions,
    ) -> Result<ProbeOutcome, RunError>;
    /// What identifies `point`'s simulations in a run cache, or why it cannot be cached
    /// (naming its file).
    fn cache_identity(point: &Self::Point) -> Result<CacheIdentity, String>;
    /// The manifest of a search of `point`: its run manifest (plugins, resolved scenario,
    /// hashes, host) without a workload's events, which every simulation makes anew.
    fn search_manifest(point: &Self::Point) -> serde_json::Value;
}

#[cfg(test)]
mod tests {
    use crate::plugin::Kind;

    /// A kind no system's scenario can choose would be registered, listed and never run.
    #[test]
    fn every_kind_has_a_slot_in_some_system() {
        let slots = super::ondemand::scenario::SLOTS
            .iter()
            .chain(super::broadcast::scenario::SLOTS);
        let taken: Vec<Kind> = slots.map(|s| s.kind).collect();
        for kind in Kind::ALL {
            assert!(
                taken.contains(kind),
                "no system has a slot of kind {} ([{}])",
                kind.trait_name(),
                kind.key()
            );
        }
    }
}
