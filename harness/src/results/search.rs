//! What a search produces (`vodbench search`, SPIFFI §7.1): every simulation it made, each
//! replication's answer, the confidence interval on their mean and what the runs at the
//! answers measured — `search.json` and `curve.csv` are these, serialised.
//!
//! The algorithm that fills them in is [`crate::experiment::search`].

use super::Summary;
use serde::Serialize;

/// Where a replication's climb starts by default, in percent of the scenario's terminal
/// count (see [`crate::experiment::search::climb_start`]); `search.json` records another
/// share only.
pub const CLIMB_FROM_PERCENT: u32 = 50;

/// One simulation made by a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Probe {
    /// Replication index.
    pub replication: u32,
    /// Seed of the run.
    pub seed: u64,
    /// Terminals simulated.
    pub terminals: u32,
    /// Glitches in the measured period.
    pub glitches: u64,
}

/// What the run at a replication's answer measured besides glitches: SPIFFI plots disk
/// utilization at the maximum (Fig. 14) and the share of references to pages another
/// terminal referenced before (Fig. 16).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct AnswerStats {
    /// Mean busy fraction of the disks (`disks.utilization_mean_ratio`).
    pub disk_utilization_mean_ratio: f64,
    /// Buffer-pool references to a page last referenced by another terminal, as a share of
    /// all references (`buffer_pool.shared_ratio`).
    pub shared_ratio: f64,
    /// Buffer-pool hit ratio (`buffer_pool.hit_ratio`).
    pub hit_ratio: f64,
}

impl AnswerStats {
    /// The figures of an on-demand run's summary.
    pub fn of(s: &Summary) -> AnswerStats {
        AnswerStats {
            disk_utilization_mean_ratio: s.disks.utilization_mean_ratio,
            shared_ratio: s.buffer_pool.shared_ratio,
            hit_ratio: s.buffer_pool.hit_ratio,
        }
    }

    /// The mean of several (None for none).
    pub fn mean(xs: &[AnswerStats]) -> Option<AnswerStats> {
        if xs.is_empty() {
            return None;
        }
        let n = xs.len() as f64;
        let m = |f: fn(&AnswerStats) -> f64| xs.iter().map(f).sum::<f64>() / n;
        Some(AnswerStats {
            disk_utilization_mean_ratio: m(|x| x.disk_utilization_mean_ratio),
            shared_ratio: m(|x| x.shared_ratio),
            hit_ratio: m(|x| x.hit_ratio),
        })
    }
}

/// The answer of one replication.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplicationResult {
    /// Replication index.
    pub replication: u32,
    /// Its seed.
    pub seed: u64,
    /// Largest glitch-free terminal count found (0: even one terminal glitched).
    pub max_terminals: u32,
    /// Glitch-free at the search's terminal cap: the true maximum may be higher.
    pub capped: bool,
    /// Simulations it took.
    pub runs: u32,
    /// The run at the answer (none when even one terminal glitched).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_answer: Option<AnswerStats>,
}

/// A two-sided Student-t confidence interval on the mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// Confidence level.
    pub level: f64,
    /// Sample mean.
    pub mean: f64,
    /// Half-width.
    pub half_width: f64,
    /// `half_width / mean` (0 when both are 0).
    pub relative_half_width: f64,
    /// mean − half-width.
    pub low: f64,
    /// mean + half-width.
    pub high: f64,
}

/// What `search.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchResult {
    /// Scenario name.
    pub scenario: String,
    /// Scenario seed, from which the replications' seeds derive.
    pub seed: u64,
    /// The answer: the mean of the replications' maxima, rounded to the nearest terminal.
    pub max_terminals: u64,
    /// Confidence interval of the mean of the replications' maxima.
    pub confidence_interval: Interval,
    /// Whether the interval reached the precision target within the replication limit.
    pub converged: bool,
    /// Replications used.
    pub replications: u32,
    /// Simulations of the replications used.
    pub runs: u32,
    /// Each replication's answer.
    pub per_replication: Vec<ReplicationResult>,
    /// The mean over replications of what their runs at the answer measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_answer: Option<AnswerStats>,
    /// The published maximum (`[paper] max_terminals` of the scenario), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper_max_terminals: Option<f64>,
    /// The maximum the scenario's analytic model predicts (`[analytic]`), if it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_max_terminals: Option<f64>,
    /// What the runs counted as failures when more than glitches (`glitches or lost
    /// packets` with `[transmission]`); absent: glitches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures: Option<String>,
    /// Terminal count the replications start from
    /// ([`climb_start_at`](crate::experiment::search::climb_start_at) of `terminals.count`).
    pub start_terminals: u32,
    /// [`SearchOptions::climb_from_percent`](crate::experiment::search::SearchOptions),
    /// when not the default.
    #[serde(skip_serializing_if = "is_default_climb")]
    pub climb_from_percent: u32,
    /// [`SearchOptions::bracket`](crate::experiment::search::SearchOptions): later
    /// replications started around replication 0's answer (absent: every replication
    /// climbed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bracket: bool,
    /// [`SearchOptions::resolution_percent`](crate::experiment::search::SearchOptions),
    /// when not 0 (bisection to one terminal).
    #[serde(skip_serializing_if = "is_zero")]
    pub resolution_percent: u32,
    /// Largest terminal count tried.
    pub terminal_cap: u32,
    /// Fewest replications before the stopping rule was looked at.
    pub min_replications: u32,
    /// Replication limit.
    pub max_replications: u32,
    /// Target relative half-width.
    pub precision: f64,
    /// Whether simulations ended at their first glitch
    /// ([`SearchOptions::stop_at_glitch`](crate::experiment::search::SearchOptions)): then
    /// a glitching run's count in the curve is a lower bound.
    pub stop_at_glitch: bool,
    /// Every simulation of the replications used (`curve.csv`).
    #[serde(skip)]
    pub probes: Vec<Probe>,
}

fn is_default_climb(p: &u32) -> bool {
    *p == CLIMB_FROM_PERCENT
}

fn is_zero(p: &u32) -> bool {
    *p == 0
}
