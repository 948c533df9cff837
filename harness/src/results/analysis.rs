//! What `vodbench analyze` produces: each point's analytic model evaluated
//! ([`crate::plugin::AnalyticModel`]) — `analysis.json` is this, serialised.
//!
//! The driver that fills it in is [`crate::experiment::analyze`].

use crate::plugin::Analysis;
use serde::Serialize;
use std::collections::BTreeMap;

/// One point's model and what it predicts there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointAnalysis {
    /// Point index in grid order.
    pub point: usize,
    /// Axis name → value (empty without a sweep).
    pub values: serde_json::Value,
    /// The values as short text (`single disk / 512KB`).
    pub label: String,
    /// The model's name, or `None` where the point names none.
    pub model: Option<String>,
    /// Its parameters, defaults filled in.
    pub params: serde_json::Value,
    /// What it predicts (values under `summary.json`'s keys where a run measures the same
    /// quantity, tables, notes).
    pub analysis: Option<Analysis>,
    /// The point's published values (`[paper]`).
    pub paper: BTreeMap<String, f64>,
}

/// What `analysis.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnalysisResult {
    /// Scenario name.
    pub scenario: String,
    /// The system the file declares (`on-demand`, `broadcast`).
    pub system: String,
    /// Axis names (empty without a sweep).
    pub sweep: Vec<String>,
    /// One entry per point.
    pub points: Vec<PointAnalysis>,
}
