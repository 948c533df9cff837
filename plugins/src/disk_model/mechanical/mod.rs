//! `mechanical`: the physics DiskSim 4.0 models, in Rust, driven by DiskSim parameter files.
//!
//! One concept per file:
//! - [`params`]: the syntax of DiskSim parameter files (blocks, lists, `source`, seek tables);
//! - [`spec`]: the typed disk those files describe;
//! - [`bundled`]: the disks shipped with vodbench (`spec = "barracuda"`);
//! - [`geometry`]: zones, spares and skews: LBN → (cylinder, head, sector) and angles;
//! - [`seek`]: seek curves (extracted table, `hplplus10`, `hpl`, curve, linear, constant);
//! - [`cache`]: the on-board cache segments;
//! - [`disk`]: one request's timing (overheads, seek, rotation, media and bus transfer,
//!   read-ahead, fast writes).
//!
//! Simulated time inside the model is integer picoseconds (DiskSim's mechanical unit); the
//! [`DiskModel`] interface rounds each part to nanoseconds.
//!
//! ```
//! use vodbench_plugins::disk_model::mechanical::Mechanical;
//! let mut d = Mechanical::bundled("barracuda", None).unwrap();
//! assert_eq!(d.disk().layout.blocks, 4_217_670);
//! let b = d.disk_mut().serve(0, 8, false, 0);
//! assert!(b.completion > b.seek + b.rotation);
//! ```

pub mod bundled;
pub mod bus_times;
pub mod cache;
pub mod disk;
pub mod geometry;
pub mod params;
pub mod seek;
pub mod spec;

use disk::Disk;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskAccess, DiskGeometry, DiskModel, Plugin, PluginError, ServiceTime,
};
use vodbench_plugin_api::time::{SimDuration, SimTime};

/// Bytes per sector.
pub const SECTOR: u64 = 512;

/// Parameters of `mechanical`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MechanicalParams {
    /// A bundled disk (`barracuda`, `cheetah9LP`, `hp_c2247a`, `st15150n`) or the path of a
    /// DiskSim parameter file (`.parv` or `.diskspecs`), relative to the scenario.
    pub spec: String,
    /// Which `disksim_disk` block (or instance) when the file holds several.
    pub disk: Option<String>,
}

impl Default for MechanicalParams {
    fn default() -> Self {
        MechanicalParams {
            spec: "st15150n".into(),
            disk: None,
        }
    }
}

/// Loads the disk named by `spec` (bundled name, else a path resolved against `base`).
pub fn load_spec(
    spec: &str,
    disk: Option<&str>,
    base: &Path,
) -> Result<spec::DiskSpec, params::SpecError> {
    match bundled::file_of(spec) {
        Some(top) => spec::load(&bundled::source(), Path::new(""), top, disk),
        None => {
            let p = base.join(spec);
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            spec::load(&params::FileSystem, &dir, &name, disk)
        }
    }
}

/// The `mechanical` disk model.
#[derive(Clone, Debug)]
pub struct Mechanical {
    disk: Disk,
    bound_extra: u64,
}

impl Mechanical {
    /// A disk from a typed spec.
    pub fn new(spec: &spec::DiskSpec) -> Result<Mechanical, String> {
        let disk = Disk::new(spec)?;
        let o = &spec.overheads;
        let worst = [o.read_hit, o.read_miss, o.write_hit, o.write_miss]
            .iter()
            .flatten()
            .fold(0.0f64, |a, &b| a.max(b))
            * o.time_scale
            + o.data_prep
            + o.reselect_first
            + o.min_seek_delay
            + o.completion[0].max(o.completion[1]);
        Ok(Mechanical {
            bound_extra: seek::ms_to_ps(worst),
            disk,
        })
    }

    /// A bundled disk by name.
    pub fn bundled(name: &str, disk: Option<&str>) -> Result<Mechanical, String> {
        let s = load_spec(name, disk, Path::new("")).map_err(|e| e.to_string())?;
        Mechanical::new(&s)
    }

    /// The timing engine.
    pub fn disk(&self) -> &Disk {
        &self.disk
    }

    /// The timing engine, to serve requests in picoseconds.
    pub fn disk_mut(&mut self) -> &mut Disk {
        &mut self.disk
    }

    fn sectors(&self, a: &DiskAccess) -> (u64, u64) {
        let blocks = self.disk.layout.blocks;
        let lbn = (a.offset / SECTOR).min(blocks - 1);
        let end = a
            .offset
            .saturating_add(a.bytes.max(1))
            .div_ceil(SECTOR)
            .min(blocks);
        (lbn, end.max(lbn + 1) - lbn)
    }
}

fn ns(ps: u64) -> u64 {
    (ps + 500) / 1000
}

impl DiskModel for Mechanical {
    fn transfer_includes_bus(&self) -> bool {
        // the transfer ends when the drive's bus has carried the last sector
        true
    }

    fn geometry(&self) -> DiskGeometry {
        DiskGeometry {
            capacity_bytes: self.disk.layout.blocks * SECTOR,
            cylinders: self.disk.layout.cylinders,
        }
    }

    fn cylinder_of(&self, offset: u64) -> u32 {
        let lbn = (offset / SECTOR).min(self.disk.layout.blocks - 1);
        self.disk.layout.ltop(lbn).cyl
    }

    fn head_cylinder(&self) -> u32 {
        self.disk.cylinder()
    }

    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        let (lbn, n) = self.sectors(a);
        let start = now.as_nanos().saturating_mul(1000);
        let b = self.disk.serve(lbn, n, a.write, start);
        let total = ns(b.completion - start);
        let seek = ns(b.seek).min(total);
        let rotation = ns(b.rotation).min(total - seek);
        let transfer = ns(b.transfer).min(total - seek - rotation);
        ServiceTime {
            overhead: SimDuration::from_nanos(total - seek - rotation - transfer),
            seek: SimDuration::from_nanos(seek),
            rotation: SimDuration::from_nanos(rotation),
            transfer: SimDuration::from_nanos(transfer),
            cache_hit: b.cache_hit,
        }
    }

    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        // overheads, a pending destage of up to one segment, the seek, and for every track
        // touched (and every time a full segment stalls the media) one seek and one turn,
        // plus the bus
        let (_, n) = self.sectors(a);
        let d = &self.disk;
        let p = d.period();
        let min_spt = d
            .layout
            .bands
            .iter()
            .map(|b| u64::from(b.spt()))
            .min()
            .unwrap_or(1);
        let seg = d.segment_len().max(1);
        let pieces = |k: u64| k / min_spt + k / seg + 2;
        let per_piece = d.seek.max() + 2 * p;
        let bus = d.bus_time().max(1);
        let destage = pieces(seg) * per_piece + seg * bus;
        let this = pieces(n) * per_piece + n * (bus + p / min_spt + 1);
        // read-ahead interrupted in a track switch or in (or before) a sector it may not leave
        let ra_stop = d.seek.max() + p + p / min_spt + 1;
        SimDuration::from_nanos(ns(self.bound_extra + destage + this + ra_stop) + 1)
    }
}

impl Plugin for Mechanical {
    type Kind = dyn DiskModel;
    type Params = MechanicalParams;
    const NAME: &'static str = "mechanical";
    const DESCRIPTION: &'static str =
        "DiskSim-accurate mechanics from a DiskSim parameter file: zones, skews, seek curve, rotation, cache, bus";

    fn validate(p: &MechanicalParams) -> Result<(), PluginError> {
        if bundled::file_of(&p.spec).is_some() {
            load_spec(&p.spec, p.disk.as_deref(), Path::new(""))
                .map_err(|e| PluginError::param("spec", e.to_string()))?;
        }
        Ok(())
    }

    fn build(
        p: &MechanicalParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn DiskModel>, PluginError> {
        let s = load_spec(&p.spec, p.disk.as_deref(), ctx.base_dir)
            .map_err(|e| PluginError::param("spec", e.to_string()))?;
        Ok(Box::new(
            Mechanical::new(&s).map_err(|e| PluginError::param("spec", e))?,
        ))
    }
}
