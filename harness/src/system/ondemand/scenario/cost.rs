//! `[cost]`: storage prices for the cost per terminal `vodbench sweep` reports (SPIFFI §7.6,
//! Table 3), with its section check.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[cost]`: storage prices (SPIFFI §7.6: "9 Gbyte disks are available for approximately
/// $4,000, and memory costs about $40/Mbyte"). Cost = disks × `disk` + server memory in MiB
/// × `memory_per_mib`; cost per terminal divides it by the maximum glitch-free terminals.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CostSection {
    /// Price of one disk (default 0).
    #[serde(default)]
    pub disk: f64,
    /// Price of one MiB of server buffer memory (default 0: disks only, as in Table 3).
    #[serde(default)]
    pub memory_per_mib: f64,
}

impl CostSection {
    /// Each price is 0 or more.
    pub(super) fn validate(&self) -> Result<(), (String, String)> {
        for (k, v) in [
            ("cost.disk", self.disk),
            ("cost.memory_per_mib", self.memory_per_mib),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err((k.into(), format!("must be a price of 0 or more, got {v}")));
            }
        }
        Ok(())
    }

    /// The storage cost of a server with `disks` disks and `memory_bytes` of buffer memory.
    pub fn total(&self, disks: u64, memory_bytes: u64) -> f64 {
        disks as f64 * self.disk + memory_bytes as f64 / (1u64 << 20) as f64 * self.memory_per_mib
    }
}
