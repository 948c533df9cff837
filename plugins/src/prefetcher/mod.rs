//! Prefetchers ([`Prefetcher`](vodbench_harness::plugin::Prefetcher)).

pub mod delayed;
pub mod none;
pub mod real_time;
pub mod standard;

use vodbench_harness::plugin::Registry;

/// Registers the built-in prefetchers.
pub fn register(r: &mut Registry) {
    r.add::<none::NoPrefetch>();
    r.add::<standard::Standard>();
    r.add::<real_time::RealTimePrefetch>();
    r.add::<delayed::Delayed>();
}
