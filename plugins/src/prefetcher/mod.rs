//! Prefetchers ([`Prefetcher`](vodbench_harness::plugin::Prefetcher)).

pub mod none;
pub mod standard;

use vodbench_harness::plugin::Registry;

/// Registers the built-in prefetchers.
pub fn register(r: &mut Registry) {
    r.add::<none::NoPrefetch>();
    r.add::<standard::Standard>();
}
