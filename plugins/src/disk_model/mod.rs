//! Disk timing models ([`DiskModel`](vodbench_plugin_api::plugin::DiskModel)).

pub mod analytic;
pub mod array;
#[cfg(feature = "disksim")]
pub mod disksim;
pub mod linear;
pub mod mechanical;

use vodbench_plugin_api::plugin::Registry;

/// Registers the built-in disk models.
pub fn register(r: &mut Registry) {
    r.add::<analytic::Analytic>();
    r.add::<array::Array>();
    r.add::<linear::Linear>();
    r.add::<mechanical::Mechanical>();
    #[cfg(feature = "disksim")]
    r.add::<disksim::DiskSim>();
}
