//! Buffer-pool page replacement ([`BufferPool`](vodbench_harness::plugin::BufferPool)).

pub mod global_lru;

use vodbench_harness::plugin::Registry;

/// Registers the built-in buffer pools.
pub fn register(r: &mut Registry) {
    r.add::<global_lru::GlobalLru>();
}
