//! What a sweep produces (`vodbench sweep`): one search per point with what derives from it
//! (scaleup, cost per terminal, the ratio to the published value) — `sweep.json` is this,
//! serialised, and `vodbench sweep-table` reads it back.
//!
//! The driver that fills it in is [`crate::experiment::sweep`].

use super::search::AnswerStats;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One point's search with what derives from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointSearch {
    /// Point index in grid order.
    pub point: usize,
    /// Axis name → value.
    pub values: serde_json::Value,
    /// The values as short text (`elevator / 512KiB`).
    pub label: String,
    /// The maximum glitch-free terminal count (mean over replications).
    pub max_terminals: u64,
    /// Its 90 % confidence interval (low, high).
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// Replications used.
    pub replications: u32,
    /// Simulations used.
    pub runs: u32,
    /// Whether the search met its precision target and found the maximum: false when some
    /// replication never glitched up to the terminal cap ([`capped_replications`](Self::capped_replications)).
    pub converged: bool,
    /// Replications that never glitched up to [`terminal_cap`](Self::terminal_cap)
    /// (`--max-terminals`): their maxima are the cap, a lower bound, and so is the point's.
    /// Written only when some did.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub capped_replications: u32,
    /// The largest terminal count the search tried, when some replication reached it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_cap: Option<u32>,
    /// Mean over replications of their runs at the answer.
    pub at_answer: Option<AnswerStats>,
    /// Disks in the server.
    pub disks: u64,
    /// Server buffer memory, all nodes.
    pub server_memory_bytes: u64,
    /// Scale factor on the sweep's scaleup series.
    pub factor: Option<f64>,
    /// max_terminals / (factor × max_terminals of the factor-1 point with the same other
    /// values).
    pub scaleup: Option<f64>,
    /// Storage cost (`[cost]`): disks × price + memory × price per MiB.
    pub cost_total: Option<f64>,
    /// cost_total / max_terminals.
    pub cost_per_terminal: Option<f64>,
    /// The point's published values (`[paper]`).
    pub paper: BTreeMap<String, f64>,
    /// max_terminals / paper max_terminals.
    pub ratio: Option<f64>,
    /// The point's analytic model's `max_terminals` (`[analytic]`), when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_max_terminals: Option<f64>,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

impl PointSearch {
    /// What a capped point's maximum is, in words ("never glitched up to 60 terminals in 3
    /// of 3 replications (raise --max-terminals)"); `None` when no replication was capped.
    pub fn capped_text(&self) -> Option<String> {
        let cap = self.terminal_cap.filter(|_| self.capped_replications > 0)?;
        Some(format!(
            "never glitched up to {cap} terminals in {} of {} replications: a lower bound \
             (raise --max-terminals)",
            self.capped_replications, self.replications
        ))
    }
}

/// What `sweep.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    /// Scenario name.
    pub scenario: String,
    /// Scenario description (of the first point).
    pub description: String,
    /// Scenario seed.
    pub seed: u64,
    /// Axis names.
    pub sweep: Vec<String>,
    /// One entry per point.
    pub points: Vec<PointSearch>,
    /// How the searches departed from SPIFFI §7.1's method, if they did (`--resolution`,
    /// `--climb-from`; see
    /// [`SearchOptions::default_method`](crate::experiment::search::SearchOptions::default_method)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Whether every simulation ended at its first glitch in the measured period
    /// (`--stop-at-glitch`): the maxima are the same, but each `curve-NNN.csv` then gives a
    /// glitching run's count as a lower bound (usually 1). Written only when set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stop_at_glitch: bool,
}
