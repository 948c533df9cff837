//! Periodic broadcast with client-side buffering (Waldvogel, Deng, Janakiraman: "Efficient
//! Buffer Management for Scalable Media-on-Demand").
//!
//! Here the data path differs from on-demand streaming: the server broadcasts the frames of a
//! movie on a fixed schedule ([`BroadcastSchedule`](crate::plugin::BroadcastSchedule): IDEAL,
//! Fuzzycast, chunked; §III, §IV, §VII); each client joins at any instant, catches every
//! frame within its window, keeps out-of-order frames in a small memory cache backed by its
//! local disk ([`ClientBuffer`](crate::plugin::ClientBuffer): MDP, MCS, Belady's optimum, a
//! radix heap; §V–VI), and plays them in order ([`receiver`]). The cost the paper minimises
//! is the client's disk I/O time as a fraction of playout time.
//!
//! A broadcast scenario is a TOML file with a `[broadcast]` table ([`scenario`]);
//! `vodbench run` runs it through [`Broadcast`], its [`System`] (every point of its
//! `[sweep]`, in parallel) and writes `summary.json` and tables like an on-demand run.

pub mod memory;
pub mod outputs;
pub mod receiver;
pub mod run;
pub mod scenario;

pub use receiver::{expected_buffer, receive, ClientOutcome, Sample};
pub use run::{run_suite, MeanSample, PointResult, SuiteResults};
pub use scenario::{BroadcastFile, BroadcastScenario, BroadcastSuite, Derived};

/// Why a broadcast run failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BroadcastError {
    /// A plugin broke its contract ([`BreachAt::Broadcast`](crate::contract_breach::BreachAt)).
    #[error(transparent)]
    Contract(Box<ContractBreach>),
    /// A plugin could not be built.
    #[error("cannot build plugin `{plugin}`: {message}")]
    Build {
        /// Plugin name.
        plugin: String,
        /// Why.
        message: String,
    },
    /// The schedule misses a frame for some join instant.
    #[error("the schedule does not deliver frame {frame} within [{join}, {join} + {window}) to a client joining at instant {join}")]
    Window {
        /// 0-based frame.
        frame: u32,
        /// Join instant.
        join: u32,
        /// Window length.
        window: u32,
    },
    /// The receiver's disk is too small for the frames the run spills (known only by
    /// running; exit code 2, as for any scenario error).
    #[error("the receiver's disk is full: {frames} frames would not fit; choose a larger disk (receiver.disk)")]
    DiskFull {
        /// Frames that would be on disk.
        frames: u64,
    },
    /// An engine invariant failed (a bug in vodbench).
    #[error("internal error: {0}")]
    Internal(String),
}

use crate::contract_breach::{BreachAt, ContractBreach};
use crate::output::{Folder, TableFormat};
use crate::plugin::{Origin, Registry};
use crate::results::analysis::PointAnalysis;
use crate::scenario::{ScenarioError, Source};
use crate::system::{OverrideError, Progress, RunError, System, Work};
use std::path::Path;
use std::sync::Arc;

impl BroadcastError {
    /// Policy `name`, chosen at the scenario's key `key` (`receiver.buffer`, `receiver.disk`),
    /// broke its contract, doing `detail` (its source unknown until
    /// [`attributed`](Self::attributed)).
    pub(crate) fn contract(key: &'static str, name: &str, detail: String) -> BroadcastError {
        BroadcastError::Contract(Box::new(ContractBreach {
            kind: key,
            name: name.to_string(),
            source: None,
            at: BreachAt::Broadcast,
            detail,
        }))
    }

    /// The error with a broken contract attributed to `origin`, the library (or Python
    /// class) its policy was loaded from (`None`: a built-in).
    pub(crate) fn attributed(mut self, origin: Option<&Origin>) -> BroadcastError {
        if let BroadcastError::Contract(b) = &mut self {
            b.source = origin.map(|o| o.path.clone());
        }
        self
    }
}

/// Periodic broadcast with buffering receivers (Waldvogel et al.).
pub struct Broadcast;

impl System for Broadcast {
    type Suite = BroadcastSuite;
    type Outcome = SuiteResults;
    const NAME: &'static str = "broadcast";

    fn load(source: &Arc<Source>, registry: &Registry) -> Result<BroadcastSuite, ScenarioError> {
        BroadcastSuite::from_source_within(source, registry, &memory::refusal_of_point)
    }

    fn name(suite: &BroadcastSuite) -> &str {
        &suite.name
    }

    fn is_sweep(suite: &BroadcastSuite) -> bool {
        !suite.sweep_keys.is_empty()
    }

    fn set_seed(suite: &mut BroadcastSuite, seed: u64) -> Result<(), OverrideError> {
        if let Some(e) = OverrideError::swept(&suite.path, &suite.swept, "seed") {
            return Err(e);
        }
        for p in &mut suite.points {
            p.file.seed = seed;
        }
        Ok(())
    }

    fn set_load(suite: &mut BroadcastSuite, _: u32) -> Result<(), OverrideError> {
        Err(OverrideError::NoLoad {
            path: suite.path.clone(),
            system: Self::NAME,
            instead: "receiver.clients",
        })
    }

    fn validate(suite: &BroadcastSuite) -> Result<(), ScenarioError> {
        // loading built every point's plugins once already, each point checked alone
        // against the memory budget; the whole sweep holds every schedule at once
        let e = memory::estimate(suite, rayon::current_num_threads());
        crate::system::memory::refuse_above_limit(&suite.source, &e)
    }

    fn check_text(suite: &BroadcastSuite) -> Result<String, ScenarioError> {
        Ok(format!(
            "ok: {} ({}, broadcast, {} point{})\n",
            suite.path.display(),
            suite.name,
            suite.points.len(),
            if suite.points.len() == 1 { "" } else { "s" }
        ))
    }

    fn run(suite: &BroadcastSuite, progress: &dyn Progress) -> Result<SuiteResults, RunError> {
        Self::validate(suite)?;
        run_suite(suite, &|done, total| progress.points(done, total)).map_err(|error| {
            RunError::Broadcast {
                path: suite.path.clone(),
                error,
            }
        })
    }

    fn save(suite: &BroadcastSuite, outcome: SuiteResults) -> Folder {
        Folder {
            files: vec![
                (
                    "manifest.json".into(),
                    crate::output::to_json(&outcome.manifest(suite)),
                ),
                (
                    "summary.json".into(),
                    crate::output::to_json(&outcome.summary_json()),
                ),
            ],
            tables: outcome.tables(),
            formats: vec![TableFormat::Csv],
            report: true,
            subfolders: Vec::new(),
        }
    }

    fn summary_text(_: &BroadcastSuite, outcome: &SuiteResults) -> String {
        outputs::summary_text(outcome)
    }

    fn wall_text(
        _: &BroadcastSuite,
        outcome: &SuiteResults,
        wall: std::time::Duration,
        dir: &Path,
    ) -> String {
        let n = outcome.points.len();
        format!(
            "wall time {:.3}s for {} point{}, {:.1}M frames/s; output: {}\n",
            wall.as_secs_f64(),
            n,
            if n == 1 { "" } else { "s" },
            Self::work(outcome).units / wall.as_secs_f64().max(1e-9) / 1e6,
            dir.display()
        )
    }

    fn analyze(suite: &BroadcastSuite) -> Result<Vec<PointAnalysis>, ScenarioError> {
        // every point's model was evaluated when it was loaded
        Ok(suite
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| PointAnalysis {
                point: i,
                values: crate::system::ondemand::outputs::values_json(&p.point),
                label: p
                    .point
                    .iter()
                    .map(|(_, v)| crate::scenario::grid::value_text(v))
                    .collect::<Vec<_>>()
                    .join(" / "),
                model: Some(p.plugins.required(&scenario::ANALYTIC).name.to_string()),
                params: p.plugins.required(&scenario::ANALYTIC).params.clone(),
                analysis: Some(p.analysis.clone()),
                paper: p.file.paper.clone(),
            })
            .collect())
    }

    fn work(outcome: &SuiteResults) -> Work {
        let frames: u64 = outcome
            .points
            .iter()
            .map(|p| u64::from(p.summary.frames) * u64::from(p.summary.clients))
            .sum();
        Work {
            units: frames as f64,
            unit: "client frames",
            simulated_s: None,
        }
    }
}
