//! `linear`: Waldvogel et al.'s disk cost model (§V-A, eq. 3), `t(n) = C₁ + C₂·n`.
//!
//! Every access costs a fixed `access` time `C₁` (the random seek time `S_r`, booked as the
//! seek part) plus `per_block` `C₂` for each block of `block` bytes it touches (sequential
//! seek and transfer, booked as the transfer part). The paper derives `C₁ ≈ 10 ms` and
//! `C₂ ≈ 2 ms` per frame from DiskSim's Seagate Barracuda; those are the defaults, with a
//! block of one frame when used as a broadcast receiver's disk (the block defaults to the
//! scenario's unit of I/O: a frame for receivers, a stripe block for servers). Position and
//! history play no part: the head never "moves", so `cylinders` is 1.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    BuildContext, DiskAccess, DiskGeometry, DiskModel, Plugin, PluginError, ServiceTime,
};
use vodbench_plugin_api::time::{SimDuration, SimTime};
use vodbench_plugin_api::units::{Bytes, Duration};

/// Parameters of `linear`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LinearParams {
    /// Fixed cost of every access, `C₁` (default 10ms).
    pub access: Duration,
    /// Cost per block, `C₂` (default 2ms).
    pub per_block: Duration,
    /// Block size (default: the scenario's unit of I/O — one frame for a receiver).
    pub block: Option<Bytes>,
    /// Capacity (default 1TiB).
    pub capacity: Bytes,
}

impl Default for LinearParams {
    fn default() -> Self {
        LinearParams {
            access: Duration(10_000_000),
            per_block: Duration(2_000_000),
            block: None,
            capacity: Bytes(1 << 40),
        }
    }
}

/// The `linear` disk model.
#[derive(Debug, Clone)]
pub struct Linear {
    access: SimDuration,
    per_block: SimDuration,
    block: u64,
    capacity: u64,
}

impl Linear {
    /// A model charging `access + per_block · ⌈bytes / block⌉` per access.
    pub fn new(access: SimDuration, per_block: SimDuration, block: u64, capacity: u64) -> Self {
        Linear {
            access,
            per_block,
            block: block.max(1),
            capacity,
        }
    }
}

impl DiskModel for Linear {
    fn geometry(&self) -> DiskGeometry {
        DiskGeometry {
            capacity_bytes: self.capacity,
            cylinders: 1,
        }
    }
    fn cylinder_of(&self, _offset: u64) -> u32 {
        0
    }
    fn head_cylinder(&self) -> u32 {
        0
    }
    fn service(&mut self, a: &DiskAccess, _now: SimTime) -> ServiceTime {
        ServiceTime {
            seek: self.access,
            transfer: self.per_block.saturating_mul(a.bytes.div_ceil(self.block)),
            ..ServiceTime::default()
        }
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        self.access + self.per_block.saturating_mul(a.bytes.div_ceil(self.block))
    }
}

impl Plugin for Linear {
    type Kind = dyn DiskModel;
    type Params = LinearParams;
    const NAME: &'static str = "linear";
    const DESCRIPTION: &'static str =
        "t(n) = C1 + C2·n per access (Waldvogel eq. 3; defaults 10ms + 2ms per block of one frame)";

    fn validate(p: &LinearParams) -> Result<(), PluginError> {
        if p.block == Some(Bytes(0)) {
            return Err(PluginError::param("block", "must be at least 1 byte"));
        }
        if p.capacity.0 == 0 {
            return Err(PluginError::param("capacity", "must be at least 1 byte"));
        }
        if p.access.0 == 0 && p.per_block.0 == 0 {
            return Err(PluginError::param(
                "access",
                "access and per_block cannot both be zero (every access would be free)",
            ));
        }
        Ok(())
    }

    fn build(p: &LinearParams, ctx: &BuildContext<'_>) -> Result<Box<dyn DiskModel>, PluginError> {
        let block = p.block.map_or(ctx.block_bytes, |b| b.0);
        Ok(Box::new(Linear::new(
            p.access.sim(),
            p.per_block.sim(),
            block,
            p.capacity.0,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_is_c1_plus_c2_per_block() {
        let mut d = Linear::new(
            SimDuration::from_millis(10),
            SimDuration::from_millis(2),
            1000,
            1 << 30,
        );
        let t = d.service(
            &DiskAccess {
                offset: 12345,
                bytes: 54_000,
                write: true,
            },
            SimTime::ZERO,
        );
        assert_eq!(t.total(), SimDuration::from_millis(10 + 2 * 54));
        assert_eq!(t.seek, SimDuration::from_millis(10));
        // A partial block costs a whole one.
        let t = d.service(
            &DiskAccess {
                offset: 0,
                bytes: 1001,
                write: false,
            },
            SimTime::ZERO,
        );
        assert_eq!(t.total(), SimDuration::from_millis(14));
    }

    #[test]
    fn zero_costs_are_rejected() {
        let p = LinearParams {
            access: Duration(0),
            per_block: Duration(0),
            ..LinearParams::default()
        };
        assert!(Linear::validate(&p).is_err());
    }
}
