//! `[workload]`: where the viewers' events come from, a trace file or a generator, with its
//! section check.

use crate::trace::GeneratorParams;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `[workload]`: exactly one of `trace` or `[workload.generate]`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    /// A trace file (format: `traces/README.md`), relative to the scenario file.
    #[serde(default)]
    pub trace: Option<PathBuf>,
    /// Generate the workload instead (Zipf or uniform popularity, pauses, seeks).
    #[serde(default)]
    pub generate: Option<GeneratorParams>,
}

impl WorkloadSection {
    /// `[workload]`: a trace or a generator, exactly one.
    pub(super) fn validate(&self) -> Result<(), (String, String)> {
        match (&self.trace, &self.generate) {
            (Some(_), None) => Ok(()),
            (None, Some(g)) => g
                .validate()
                .map_err(|(k, m)| (format!("workload.generate.{k}"), m)),
            (Some(_), Some(_)) => Err((
                "workload".into(),
                "give either `trace` or `[workload.generate]`, not both".into(),
            )),
            (None, None) => Err((
                "workload".into(),
                "missing: give `trace = \"file.trace\"` or a `[workload.generate]` table".into(),
            )),
        }
    }
}
