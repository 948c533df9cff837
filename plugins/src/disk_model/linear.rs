//! `linear`: Waldvogel et al.'s disk cost model (§V-A, eq. 3), `t(n) = C₁ + C₂·n`.
//!
//! Every access costs a fixed `access` time `C₁` (the random seek time `S_r`, booked as the
//! seek part) plus `per_block` `C₂` for each block of `block` bytes it touches (sequential
//! seek and transfer, booked as the transfer part). The paper derives `C₁ ≈ 10 ms` and
//! `C₂ ≈ 2 ms` per frame from DiskSim's Seagate Barracuda; those are the defaults, with a
//! block of one frame when used as a broadcast receiver's disk (the block defaults to the
//! scenario's unit of I/O: a frame for receivers, a stripe block for servers). Position and
//! history play no part: the head never "moves", so `cylinders` is 1.
//!
//! Optionally (`jitter`), an access also waits a dynamic delay `y ~ U(0, max]` drawn from the
//! disk's own random stream and booked as seek: Wu et al.'s dynamic mechanical delay (§4.2,
//! eq. 8). With `per = "request"` every access draws its own; with `per = "cycle"` one access
//! in every `cycle` (default: the scenario's terminals, one round-robin cycle) draws one and
//! the others none — eq. 8's one `y_i` per inter-arrival of a stream's blocks, the reading
//! that reproduces Wu's Figs. 12–13 (`scenarios/wu/README.md`). Without `jitter` no random
//! number is drawn and the model is as before.

use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    BuildContext, DiskAccess, DiskGeometry, DiskModel, Plugin, PluginError, ServiceTime,
};
use vodbench_plugin_api::rng::SimRng;
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
    /// A dynamic delay `y ~ U(0, max]` added to accesses (default: none), e.g.
    /// `{ max = "14ms", per = "cycle" }`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter: Option<Jitter>,
}

/// Which accesses draw a dynamic delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JitterPer {
    /// Every access (default).
    #[default]
    Request,
    /// One access in every `cycle`.
    Cycle,
}

/// a table { max, per, cycle }: Wu's dynamic mechanical delay (eq. 8).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Jitter {
    /// `DM_max`: the delay is uniform in (0, max].
    pub max: Duration,
    /// `request` (default) or `cycle`.
    #[serde(default)]
    pub per: JitterPer,
    /// Accesses per cycle with `per = "cycle"` (default: the scenario's terminals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle: Option<u32>,
}

impl Default for LinearParams {
    fn default() -> Self {
        LinearParams {
            access: Duration(10_000_000),
            per_block: Duration(2_000_000),
            block: None,
            capacity: Bytes(1 << 40),
            jitter: None,
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
    jitter: Option<Dynamic>,
}

/// The dynamic delay of a [`Linear`] disk: its own random stream and where in its cycle it is.
#[derive(Debug, Clone)]
struct Dynamic {
    max_ns: u64,
    every: u32,
    next: u32,
    rng: SimRng,
}

impl Linear {
    /// A model charging `access + per_block · ⌈bytes / block⌉` per access.
    pub fn new(access: SimDuration, per_block: SimDuration, block: u64, capacity: u64) -> Self {
        Linear {
            access,
            per_block,
            block: block.max(1),
            capacity,
            jitter: None,
        }
    }

    /// Adds a dynamic delay uniform in `(0, max]` to one access in every `every` (1: every
    /// access), drawn from `rng`, starting with the first access.
    pub fn with_jitter(mut self, max: SimDuration, every: u32, rng: SimRng) -> Self {
        self.jitter = (max > SimDuration::ZERO).then(|| Dynamic {
            max_ns: max.as_nanos(),
            every: every.max(1),
            next: 0,
            rng,
        });
        self
    }

    /// The dynamic delay of the next access (0 without jitter, or between draws of a cycle).
    fn dynamic(&mut self) -> SimDuration {
        let Some(j) = &mut self.jitter else {
            return SimDuration::ZERO;
        };
        let draw = j.next == 0;
        j.next = (j.next + 1) % j.every;
        if draw {
            SimDuration::from_nanos(j.rng.random_range(1..=j.max_ns))
        } else {
            SimDuration::ZERO
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
            seek: self.access + self.dynamic(),
            transfer: self.per_block.saturating_mul(a.bytes.div_ceil(self.block)),
            ..ServiceTime::default()
        }
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        let dynamic = self
            .jitter
            .as_ref()
            .map_or(SimDuration::ZERO, |j| SimDuration::from_nanos(j.max_ns));
        self.access + dynamic + self.per_block.saturating_mul(a.bytes.div_ceil(self.block))
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
        if let Some(j) = &p.jitter {
            if j.max.0 == 0 {
                return Err(PluginError::param(
                    "jitter.max",
                    "must be positive: the delay is uniform in (0, max]",
                ));
            }
            if j.cycle == Some(0) {
                return Err(PluginError::param(
                    "jitter.cycle",
                    "must be at least 1 access per cycle",
                ));
            }
            if j.cycle.is_some() && j.per == JitterPer::Request {
                return Err(PluginError::param(
                    "jitter.cycle",
                    "applies to per = \"cycle\" only (per = \"request\" draws at every access)",
                ));
            }
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
        let mut disk = Linear::new(p.access.sim(), p.per_block.sim(), block, p.capacity.0);
        if let Some(j) = &p.jitter {
            let every = match j.per {
                JitterPer::Request => 1,
                JitterPer::Cycle => j.cycle.unwrap_or(ctx.terminals),
            };
            disk = disk.with_jitter(j.max.sim(), every, ctx.rng());
        }
        Ok(Box::new(disk))
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

    fn read(d: &mut Linear) -> ServiceTime {
        d.service(
            &DiskAccess {
                offset: 0,
                bytes: 1000,
                write: false,
            },
            SimTime::ZERO,
        )
    }

    /// Per request every access draws a delay in (0, max]; per cycle of 3 only every third
    /// does; the draws come from the given stream (the same stream, the same delays) and
    /// their mean is max/2.
    #[test]
    fn jitter_draws_uniform_delays_per_request_or_per_cycle() {
        let base = || {
            Linear::new(
                SimDuration::from_millis(8),
                SimDuration::from_millis(1),
                1000,
                1 << 30,
            )
        };
        let max = SimDuration::from_millis(14);
        let rng = || vodbench_plugin_api::rng::stream(5, "disk", 0);
        let mut a = base().with_jitter(max, 1, rng());
        let mut b = base().with_jitter(max, 1, rng());
        let mut sum = 0u64;
        let n = 20_000;
        for _ in 0..n {
            let (ta, tb) = (read(&mut a), read(&mut b));
            assert_eq!(ta, tb);
            let y = ta.seek - SimDuration::from_millis(8);
            assert!(y > SimDuration::ZERO && y <= max, "{y:?}");
            assert!(
                ta.total()
                    <= a.service_bound(&DiskAccess {
                        offset: 0,
                        bytes: 1000,
                        write: false
                    })
            );
            sum += y.as_nanos();
        }
        let mean_ms = sum as f64 / f64::from(n) / 1e6;
        // U(0, 14 ms]: mean 7 ms, standard error 4.04 ms / √20000 = 0.029 ms
        assert!((mean_ms - 7.0).abs() < 0.15, "{mean_ms}");
        let mut c = base().with_jitter(max, 3, rng());
        let seeks: Vec<bool> = (0..9)
            .map(|_| read(&mut c).seek > SimDuration::from_millis(8))
            .collect();
        assert_eq!(
            seeks,
            [true, false, false, true, false, false, true, false, false]
        );
        // without jitter nothing changes
        assert_eq!(read(&mut base()).seek, SimDuration::from_millis(8));
    }

    #[test]
    fn bad_jitter_is_refused_at_its_key() {
        let with = |j: Jitter| {
            let p = LinearParams {
                jitter: Some(j),
                ..LinearParams::default()
            };
            match Linear::validate(&p).unwrap_err() {
                PluginError::InvalidParam { path, .. } => path,
                e => panic!("{e:?}"),
            }
        };
        let j = |max: u64, per, cycle| Jitter {
            max: Duration(max),
            per,
            cycle,
        };
        assert_eq!(with(j(0, JitterPer::Request, None)), "jitter.max");
        assert_eq!(with(j(1, JitterPer::Cycle, Some(0))), "jitter.cycle");
        assert_eq!(with(j(1, JitterPer::Request, Some(4))), "jitter.cycle");
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
