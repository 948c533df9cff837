//! Prefetchers ([`Prefetcher`](vodbench_plugin_api::plugin::Prefetcher)).

pub mod delayed;
pub mod none;
mod queued_index;
pub mod real_time;
pub mod standard;

use vodbench_plugin_api::plugin::{Kind, Prefetcher, Registry};

/// Registers the built-in prefetchers; `standard` is `[prefetcher]`'s default.
pub fn register(r: &mut Registry) {
    r.add::<none::NoPrefetch>();
    r.add::<standard::Standard>();
    r.add::<real_time::RealTimePrefetch>();
    r.add::<delayed::Delayed>();
    r.set_default::<dyn Prefetcher>(Kind::Prefetcher.key(), "standard", toml::Table::new());
}
