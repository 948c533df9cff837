//! Analytic models: a closed-form answer to a scenario point, beside the simulated one.
//!
//! Several source papers give equations for what vodbench simulates: Wu et al. the streams a
//! block size sustains (eq. 3–6) and the probability of continuity of a stream buffer
//! (eq. 7–15), Jadav et al. a stream's round timing (eq. 1–3), Pappas et al. the memory of
//! double buffering (2NS), Waldvogel et al. the bandwidth of a periodic broadcast (eq. 1–2).
//! An [`AnalyticModel`] evaluates such equations at one point of a scenario: the system
//! describes the point as named quantities ([`ModelInput`]: the block size, the bit rate, the
//! terminals, …, each with the scenario key it came from), the model adds its own parameters
//! (its scenario table) and returns an [`Analysis`]: values under the keys `summary.json`
//! uses where a run measures the same quantity (`max_terminals`,
//! `disks.utilization_mean_ratio`), tables (a curve, a grid), and notes.

use super::error::PluginError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One quantity of a scenario point, in SI units (bytes, seconds, bits per second, counts).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Quantity {
    /// Its value.
    pub value: f64,
    /// The scenario key it comes from (`server.stripe`), which an error about it names.
    pub key: &'static str,
}

/// One point of a scenario as an analytic model sees it: the quantities its system defines
/// there, by name, and the table the model was chosen at.
///
/// The on-demand system gives `block_bytes` (`server.stripe`), `bit_rate_bps`
/// (`videos.bit_rate`), `terminals` (`terminals.count`), `terminal_memory_bytes`
/// (`terminals.memory`), `nodes`, `disks_per_node`, `disks` and `memory_per_node_bytes`; the
/// broadcast system `frames` (`broadcast.frames`), `delay_instants` (`broadcast.delay`, in
/// frame times), `frame_rate` and `bit_rate_bps`.
///
/// ```
/// use vodbench_plugin_api::plugin::ModelInput;
/// let mut input = ModelInput::new("on-demand", "analytic");
/// input.set("block_bytes", 32_000.0, "server.stripe");
/// assert_eq!(input.require("block_bytes").unwrap(), 32_000.0);
/// assert_eq!(input.key_of("block_bytes"), "server.stripe");
/// assert_eq!(input.param_key("l_max"), "analytic.l_max");
/// assert!(input.require("frames").is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ModelInput {
    system: &'static str,
    slot: &'static str,
    quantities: BTreeMap<&'static str, Quantity>,
}

impl ModelInput {
    /// No quantities yet, for a point of `system` (`on-demand`) whose model is chosen at the
    /// table `slot` (`analytic`).
    pub fn new(system: &'static str, slot: &'static str) -> Self {
        ModelInput {
            system,
            slot,
            quantities: BTreeMap::new(),
        }
    }

    /// Sets quantity `name` to `value`, which comes from the scenario key `key`.
    pub fn set(&mut self, name: &'static str, value: f64, key: &'static str) -> &mut Self {
        self.quantities.insert(name, Quantity { value, key });
        self
    }

    /// The system the point belongs to.
    pub fn system(&self) -> &'static str {
        self.system
    }

    /// The table the model was chosen at (`analytic`).
    pub fn slot(&self) -> &'static str {
        self.slot
    }

    /// Every quantity, by name, in name order.
    pub fn quantities(&self) -> impl Iterator<Item = (&'static str, Quantity)> + '_ {
        self.quantities.iter().map(|(k, q)| (*k, *q))
    }

    /// Quantity `name`, if the system defines it.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.quantities.get(name).map(|q| q.value)
    }

    /// Quantity `name`, or an error saying this system's scenarios do not give it.
    pub fn require(&self, name: &str) -> Result<f64, PluginError> {
        self.get(name).ok_or_else(|| {
            PluginError::Build(format!(
                "needs `{name}`, which a {} scenario does not give (it gives: {})",
                self.system,
                self.quantities
                    .keys()
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }

    /// The scenario key quantity `name` comes from (the model's table when unknown).
    pub fn key_of(&self, name: &str) -> &'static str {
        self.quantities.get(name).map_or(self.slot, |q| q.key)
    }

    /// The full scenario key of the model's own parameter `param` (`analytic.l_max`).
    pub fn param_key(&self, param: &str) -> String {
        format!("{}.{param}", self.slot)
    }

    /// An error about quantity `name`'s value, at its scenario key.
    pub fn invalid(&self, name: &str, message: impl Into<String>) -> PluginError {
        PluginError::param(self.key_of(name), message)
    }
}

/// A table a model computes: a curve or a grid, one row per line, every cell a number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalysisTable {
    /// Its name (a file name part: `p_c_exact`).
    pub name: String,
    /// What it holds, in a sentence.
    pub description: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, each as long as `columns`.
    pub rows: Vec<Vec<f64>>,
}

/// What a model predicts at one point.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Analysis {
    /// Predicted values by key: the key `summary.json` (or `sweep.json`) uses where a run
    /// measures the same quantity (`max_terminals`, `disks.utilization_mean_ratio`), a key
    /// of the model's own otherwise (`continuity.delta_s`). Every value is finite.
    pub values: BTreeMap<String, f64>,
    /// Tables (curves and grids).
    pub tables: Vec<AnalysisTable>,
    /// Remarks on this point: readings, where an equation leaves its range.
    pub notes: Vec<String>,
}

impl Analysis {
    /// Sets value `key`.
    pub fn value(&mut self, key: &str, v: f64) -> &mut Self {
        self.values.insert(key.to_string(), v);
        self
    }

    /// Adds a note.
    pub fn note(&mut self, n: impl Into<String>) -> &mut Self {
        self.notes.push(n.into());
        self
    }
}

/// A closed-form model evaluated at the points of a scenario (`vodbench analyze`).
///
/// A model only computes: it reads the point's quantities ([`ModelInput`]) and its own
/// parameters and returns what its equations give. An input outside an equation's range is
/// an error at the key it came from ([`ModelInput::invalid`], or
/// [`PluginError::param`] with [`ModelInput::param_key`] for a parameter of its own). The
/// harness checks that every value is finite.
///
/// ```
/// use vodbench_plugin_api::plugin::{Analysis, AnalyticModel, ModelInput, PluginError};
///
/// /// The bytes per second the terminals consume.
/// struct Demand;
/// impl AnalyticModel for Demand {
///     fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
///         let n = input.require("terminals")?;
///         let a = input.require("bit_rate_bps")?;
///         let mut out = Analysis::default();
///         out.value("demand_bytes_per_s", n * a / 8.0);
///         Ok(out)
///     }
/// }
/// let mut input = ModelInput::new("on-demand", "analytic");
/// input.set("terminals", 10.0, "terminals.count");
/// input.set("bit_rate_bps", 1.5e6, "videos.bit_rate");
/// assert_eq!(Demand.evaluate(&input).unwrap().values["demand_bytes_per_s"], 1_875_000.0);
/// ```
pub trait AnalyticModel: Send + Sync {
    /// What the model predicts at the point `input` describes.
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError>;
}
