//! Buffer-pool page replacement ([`BufferPool`](vodbench_plugin_api::plugin::BufferPool)).

pub mod global_lru;
pub mod love_prefetch;

use vodbench_plugin_api::plugin::Registry;

/// Registers the built-in buffer pools.
pub fn register(r: &mut Registry) {
    r.add::<global_lru::GlobalLru>();
    r.add::<love_prefetch::LovePrefetch>();
}
