//! `[disk]`: the disk timing model and the disk scheduler, both plugins.

use crate::scenario::slots::PluginTable;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[disk]`: the disk timing model and the scheduler, both plugins.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiskSection {
    /// Disk model (default: the binary's; in vodbench `analytic` with the SPIFFI ST15150N
    /// spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<PluginTable>,
    /// Disk scheduler (default: the binary's; `elevator` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<PluginTable>,
}
