//! `analytic`: a disk described by a handful of numbers (SPIFFI §6.2 and Table 1; Wu §3).
//!
//! Service time = controller overhead + seek + rotational latency + media transfer, where
//! - seek over `d > 0` cylinders takes `settle + seek_factor_ms · √d` milliseconds (the
//!   square-root curve SPIFFI uses with factor 0.283 and settle 0.75 ms), and 0 for `d = 0`;
//! - cylinders are of constant size (`cylinder_bytes`; SPIFFI assumes 1.25 MB) and byte `o`
//!   lies on cylinder `o / cylinder_bytes`;
//! - rotational latency is either tracked (`position`, default): the platter spins at constant
//!   speed from t = 0, a track holds `transfer_rate × rotation` bytes, and byte `o` sits at
//!   angle `(o mod track) / track`, so the wait is the time until that angle comes under the
//!   head once the seek ends; or drawn uniformly in `[0, rotation)` (`uniform`) from the disk's
//!   own random stream;
//! - transfer takes `bytes / transfer_rate`, rounded up to the nanosecond, plus
//!   `track_switch` for each track boundary the bytes cross (a track holds `transfer_rate ×
//!   rotation` bytes; 0 by default). Table 1 lists a settle time but no head-switch time, and
//!   SPIFFI's 512 KB reads cross eight or nine tracks, so whether the paper's disk lost time
//!   at each is one of its open details (`scenarios/spiffi/README.md` records what it
//!   changes).
//!
//! The head ends on the cylinder of the last byte read. There is no on-board cache here (the
//! `mechanical` model of DiskSim fidelity is separate). Sizes in SPIFFI's table are taken as
//! binary (its 512 KB stripes are 2^19 bytes), the transfer rate as decimal, the way disk
//! makers quote data rates: the ST15150N preset is 5 GiB, 1.25 MiB cylinders (4096
//! cylinders) and 7,400,000 bytes/s. (The paper does not say which; the decimal rate was
//! chosen after comparing with the paper's results — it lowers vodbench's maximum terminal
//! counts by about 4 % — as `scenarios/spiffi/README.md` records, with what each reading
//! changes.)

use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    BuildContext, DiskAccess, DiskGeometry, DiskModel, Plugin, PluginError, ServiceTime,
};
use vodbench_plugin_api::rng::SimRng;
use vodbench_plugin_api::time::{mul_div_ceil, mul_div_floor, SimDuration, SimTime};
use vodbench_plugin_api::units::{Bytes, Duration};

/// How rotational latency is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RotationalLatency {
    /// From the platter's angle when the seek ends.
    #[default]
    Position,
    /// Uniformly random in one revolution.
    Uniform,
}

/// Parameters of `analytic`: a preset, then any physical value overridden.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AnalyticParams {
    /// Preset the other values start from: `st15150n` (SPIFFI Table 1's Seagate ST15150N).
    pub spec: String,
    /// Capacity (default from the preset: 5GiB).
    pub capacity: Option<Bytes>,
    /// Bytes per cylinder (preset: 1.25MiB).
    pub cylinder_bytes: Option<Bytes>,
    /// Seek time factor in ms per √cylinder (preset: 0.283).
    pub seek_factor_ms: Option<f64>,
    /// Settle time added to every non-zero seek (preset: 0.75ms).
    pub settle: Option<Duration>,
    /// One revolution (preset: 8.333ms, 7200 rpm).
    pub rotation: Option<Duration>,
    /// Media transfer rate in bytes per second (preset: 7400000, SPIFFI's 7.4 MB/s).
    pub transfer_rate: Option<u64>,
    /// Controller overhead per request (preset: 0).
    pub overhead: Option<Duration>,
    /// Time lost at each track boundary a transfer crosses, to switch heads (or step to the
    /// next cylinder) and settle on the new track (preset: 0, SPIFFI Table 1 lists none).
    pub track_switch: Option<Duration>,
    /// `position` (default) or `uniform`.
    pub rotational_latency: RotationalLatency,
}

impl Default for AnalyticParams {
    fn default() -> Self {
        AnalyticParams {
            spec: "st15150n".into(),
            capacity: None,
            cylinder_bytes: None,
            seek_factor_ms: None,
            settle: None,
            rotation: None,
            transfer_rate: None,
            overhead: None,
            track_switch: None,
            rotational_latency: RotationalLatency::Position,
        }
    }
}

/// Fully resolved physical values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec {
    /// Capacity in bytes.
    pub capacity: u64,
    /// Bytes per cylinder.
    pub cylinder_bytes: u64,
    /// ms per √cylinder.
    pub seek_factor_ms: f64,
    /// Settle, ns.
    pub settle_ns: u64,
    /// Revolution, ns.
    pub rotation_ns: u64,
    /// Bytes per second.
    pub transfer_rate: u64,
    /// Overhead, ns.
    pub overhead_ns: u64,
    /// Time per track boundary crossed by a transfer, ns.
    pub track_switch_ns: u64,
}

/// The bundled presets.
pub const PRESETS: &[&str] = &["st15150n"];

fn preset(name: &str) -> Option<Spec> {
    match name {
        "st15150n" => Some(Spec {
            capacity: 5 << 30,
            cylinder_bytes: 1_310_720,
            seek_factor_ms: 0.283,
            settle_ns: 750_000,
            rotation_ns: 8_333_000,
            transfer_rate: 7_400_000,
            overhead_ns: 0,
            track_switch_ns: 0,
        }),
        _ => None,
    }
}

impl AnalyticParams {
    /// The preset with overrides applied.
    pub fn resolve(&self) -> Result<Spec, PluginError> {
        let mut s = preset(&self.spec).ok_or_else(|| {
            PluginError::param(
                "spec",
                format!(
                    "unknown preset {:?}; bundled: {}",
                    self.spec,
                    PRESETS.join(", ")
                ),
            )
        })?;
        if let Some(v) = self.capacity {
            s.capacity = v.0;
        }
        if let Some(v) = self.cylinder_bytes {
            s.cylinder_bytes = v.0;
        }
        if let Some(v) = self.seek_factor_ms {
            s.seek_factor_ms = v;
        }
        if let Some(v) = self.settle {
            s.settle_ns = v.0;
        }
        if let Some(v) = self.rotation {
            s.rotation_ns = v.0;
        }
        if let Some(v) = self.transfer_rate {
            s.transfer_rate = v;
        }
        if let Some(v) = self.overhead {
            s.overhead_ns = v.0;
        }
        if let Some(v) = self.track_switch {
            s.track_switch_ns = v.0;
        }
        let chk = |ok: bool, key: &str, msg: String| {
            if ok {
                Ok(())
            } else {
                Err(PluginError::param(key, msg))
            }
        };
        chk(
            (1 << 20..=1 << 50).contains(&s.capacity),
            "capacity",
            format!("must be in 1MiB..=1PiB, got {}", Bytes(s.capacity)),
        )?;
        chk(
            s.cylinder_bytes >= 512 && s.cylinder_bytes <= s.capacity,
            "cylinder_bytes",
            format!(
                "must be in 512B..=capacity, got {}",
                Bytes(s.cylinder_bytes)
            ),
        )?;
        chk(
            s.capacity / s.cylinder_bytes <= 10_000_000,
            "cylinder_bytes",
            "gives more than 10000000 cylinders".into(),
        )?;
        chk(
            s.seek_factor_ms.is_finite() && (0.0..=100.0).contains(&s.seek_factor_ms),
            "seek_factor_ms",
            format!("must be in 0..=100, got {}", s.seek_factor_ms),
        )?;
        chk(
            s.settle_ns <= 1_000_000_000,
            "settle",
            format!("must be at most 1s, got {}", Duration(s.settle_ns)),
        )?;
        chk(
            (1_000..=1_000_000_000).contains(&s.rotation_ns),
            "rotation",
            format!("must be in 1us..=1s, got {}", Duration(s.rotation_ns)),
        )?;
        chk(
            (1_000..=1 << 40).contains(&s.transfer_rate),
            "transfer_rate",
            format!("must be in 1000..=2^40 bytes/s, got {}", s.transfer_rate),
        )?;
        chk(
            s.overhead_ns <= 1_000_000_000,
            "overhead",
            format!("must be at most 1s, got {}", Duration(s.overhead_ns)),
        )?;
        chk(
            s.track_switch_ns <= s.rotation_ns,
            "track_switch",
            format!(
                "must be at most one revolution ({}), got {}",
                Duration(s.rotation_ns),
                Duration(s.track_switch_ns)
            ),
        )?;
        Ok(s)
    }
}

/// The analytic disk.
pub struct Analytic {
    spec: Spec,
    cylinders: u32,
    track_bytes: u64,
    head: u32,
    mode: RotationalLatency,
    rng: SimRng,
}

impl Analytic {
    /// A disk with `spec`, drawing uniform latencies (if asked) from `rng`.
    pub fn new(spec: Spec, mode: RotationalLatency, rng: SimRng) -> Self {
        let cylinders = spec.capacity.div_ceil(spec.cylinder_bytes) as u32;
        let track_bytes = ((u128::from(spec.transfer_rate) * u128::from(spec.rotation_ns)
            / 1_000_000_000) as u64)
            .max(1);
        Analytic {
            spec,
            cylinders,
            track_bytes,
            head: 0,
            mode,
            rng,
        }
    }

    /// Seek time over `d` cylinders (at most the disk's last cylinder): 0 for none, else
    /// settle + f·√d rounded to the nanosecond. Computed on each access rather than looked
    /// up: a table per disk is tens of kilobytes, and with dozens of disks every lookup
    /// missed the processor's caches, which cost more than the square root.
    pub fn seek_time(&self, d: u32) -> SimDuration {
        let d = d.min(self.cylinders.saturating_sub(1));
        if d == 0 {
            return SimDuration::ZERO;
        }
        SimDuration::from_nanos(
            self.spec.settle_ns
                + (self.spec.seek_factor_ms * f64::from(d).sqrt() * 1e6).round() as u64,
        )
    }
}

impl Analytic {
    /// Media transfer of `a` in nanoseconds: its bytes at the transfer rate, rounded up, and
    /// `track_switch` for each track boundary it crosses.
    fn transfer_time(&self, a: &DiskAccess) -> u64 {
        let media = mul_div_ceil(a.bytes, 1_000_000_000, self.spec.transfer_rate);
        if self.spec.track_switch_ns == 0 || a.bytes == 0 {
            return media;
        }
        let crossed = (a.offset + a.bytes - 1) / self.track_bytes - a.offset / self.track_bytes;
        media + crossed * self.spec.track_switch_ns
    }
}

impl DiskModel for Analytic {
    fn geometry(&self) -> DiskGeometry {
        DiskGeometry {
            capacity_bytes: self.spec.capacity,
            cylinders: self.cylinders,
        }
    }

    fn cylinder_of(&self, offset: u64) -> u32 {
        ((offset / self.spec.cylinder_bytes) as u32).min(self.cylinders - 1)
    }

    fn head_cylinder(&self) -> u32 {
        self.head
    }

    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        let overhead = SimDuration::from_nanos(self.spec.overhead_ns);
        let target = self.cylinder_of(a.offset);
        let seek = self.seek_time(self.head.abs_diff(target));
        let r = self.spec.rotation_ns;
        let rotation = match self.mode {
            RotationalLatency::Position => {
                let ready = (now + overhead + seek).as_nanos() % r;
                let angle = mul_div_floor(a.offset % self.track_bytes, r, self.track_bytes);
                (angle + r - ready) % r
            }
            RotationalLatency::Uniform => self.rng.random_range(0..r),
        };
        let transfer = self.transfer_time(a);
        self.head = self.cylinder_of(a.offset + a.bytes.max(1) - 1);
        ServiceTime {
            overhead,
            seek,
            rotation: SimDuration::from_nanos(rotation),
            transfer: SimDuration::from_nanos(transfer),
            cache_hit: false,
        }
    }

    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        let transfer = self.transfer_time(a);
        SimDuration::from_nanos(
            self.spec.overhead_ns
                + self.seek_time(self.cylinders).as_nanos()
                + self.spec.rotation_ns
                + transfer,
        )
    }
}

impl Plugin for Analytic {
    type Kind = dyn DiskModel;
    type Params = AnalyticParams;
    const NAME: &'static str = "analytic";
    const DESCRIPTION: &'static str =
        "seek curve settle + f·√d, tracked or uniform rotation, constant transfer rate (SPIFFI Table 1 preset)";

    fn validate(p: &AnalyticParams) -> Result<(), PluginError> {
        p.resolve().map(|_| ())
    }

    fn build(
        p: &AnalyticParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn DiskModel>, PluginError> {
        Ok(Box::new(Analytic::new(
            p.resolve()?,
            p.rotational_latency,
            ctx.rng(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::rng::stream;

    fn disk(mode: RotationalLatency) -> Analytic {
        Analytic::new(
            AnalyticParams::default().resolve().unwrap(),
            mode,
            stream(1, "disk", 0),
        )
    }

    #[test]
    fn st15150n_preset() {
        let d = disk(RotationalLatency::Position);
        assert_eq!(d.geometry().cylinders, 4096);
        assert_eq!(d.seek_time(0), SimDuration::ZERO);
        // 0.75 + 0.283·√1 ms
        assert_eq!(d.seek_time(1).as_nanos(), 1_033_000);
        // 0.75 + 0.283·√4095 ms = 0.75 + 18.109789 ms
        assert_eq!(d.seek_time(4095).as_nanos(), 750_000 + 18_109_789);
        // 7400000 B/s × 8.333 ms = 61664.2 bytes per track, rounded down
        assert_eq!(d.track_bytes, 61_664);
    }

    #[test]
    fn rotation_waits_for_the_sector() {
        let mut d = disk(RotationalLatency::Position);
        // offset 0 is at angle 0; at t = 1 ms on cylinder 0 (no seek) we wait until the
        // next revolution starts: 8.333 - 1 ms
        let t = d.service(
            &DiskAccess {
                offset: 0,
                bytes: 4096,
                write: false,
            },
            SimTime::from_nanos(1_000_000),
        );
        assert_eq!(t.seek, SimDuration::ZERO);
        assert_eq!(t.rotation.as_nanos(), 7_333_000);
        // transfer of 4096 bytes at 7400000 B/s, rounded up
        assert_eq!(t.transfer.as_nanos(), 553_514);
        // 30832 of 61664 bytes into the track, at time 0: 30832/61664 × 8.333 ms = 4.1665 ms
        let mut d = disk(RotationalLatency::Position);
        let t = d.service(
            &DiskAccess {
                offset: 30_832,
                bytes: 1,
                write: false,
            },
            SimTime::ZERO,
        );
        assert_eq!(t.rotation.as_nanos(), 4_166_500);
    }

    #[test]
    fn head_moves_to_the_last_byte() {
        let mut d = disk(RotationalLatency::Uniform);
        let t = d.service(
            &DiskAccess {
                offset: 10 * 1_310_720,
                bytes: 1_310_720,
                write: false,
            },
            SimTime::ZERO,
        );
        assert_eq!(t.seek, d.seek_time(10));
        assert_eq!(d.head_cylinder(), 10);
        assert!(t.rotation.as_nanos() < 8_333_000);
        assert_eq!(t.total(), t.overhead + t.seek + t.rotation + t.transfer);
    }

    #[test]
    fn each_track_boundary_a_transfer_crosses_costs_a_track_switch() {
        let p = AnalyticParams {
            track_switch: Some(Duration(750_000)),
            ..AnalyticParams::default()
        };
        let mut d = Analytic::new(
            p.resolve().unwrap(),
            RotationalLatency::Position,
            stream(1, "disk", 0),
        );
        let media = |bytes: u64| mul_div_ceil(bytes, 1_000_000_000, 7_400_000);
        let read = |d: &mut Analytic, offset: u64, bytes: u64| {
            let a = DiskAccess {
                offset,
                bytes,
                write: false,
            };
            let t = d.service(&a, SimTime::ZERO);
            assert_eq!(t.total(), d.service_bound(&a).min(t.total()));
            t.transfer.as_nanos()
        };
        // within one track (61,664 bytes): no switch, as without the parameter
        assert_eq!(read(&mut d, 0, 61_664), media(61_664));
        // one byte over the boundary: one switch
        assert_eq!(read(&mut d, 1, 61_664), media(61_664) + 750_000);
        // a 512 KB stripe block from a track's start crosses 8 boundaries (8.5 tracks)
        assert_eq!(read(&mut d, 0, 524_288), media(524_288) + 8 * 750_000);
        // ... and 9 from near a track's end
        assert_eq!(read(&mut d, 61_000, 524_288), media(524_288) + 9 * 750_000);
        // the default charges none
        let mut plain = disk(RotationalLatency::Position);
        assert_eq!(read(&mut plain, 61_000, 524_288), media(524_288));
        // more than a revolution is refused, naming the key
        let p = AnalyticParams {
            track_switch: Some(Duration(9_000_000)),
            ..AnalyticParams::default()
        };
        assert!(
            matches!(p.resolve(), Err(PluginError::InvalidParam { path, .. }) if path == "track_switch")
        );
    }

    #[test]
    fn overrides_and_ranges() {
        let p = AnalyticParams {
            capacity: Some(Bytes(8 << 30)),
            ..AnalyticParams::default()
        };
        assert_eq!(p.resolve().unwrap().capacity, 8 << 30);
        let p = AnalyticParams {
            spec: "st999".into(),
            ..AnalyticParams::default()
        };
        assert!(
            matches!(p.resolve(), Err(PluginError::InvalidParam { path, .. }) if path == "spec")
        );
        let p = AnalyticParams {
            transfer_rate: Some(5),
            ..AnalyticParams::default()
        };
        assert!(
            matches!(p.resolve(), Err(PluginError::InvalidParam { path, .. }) if path == "transfer_rate")
        );
    }
}
