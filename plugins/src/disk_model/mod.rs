//! Disk timing models ([`DiskModel`](vodbench_harness::plugin::DiskModel)).

pub mod analytic;
pub mod linear;

use vodbench_harness::plugin::Registry;

/// Registers the built-in disk models.
pub fn register(r: &mut Registry) {
    r.add::<analytic::Analytic>();
    r.add::<linear::Linear>();
}
