//! # vodbench-plugins
//!
//! Every built-in policy and disk model of vodbench, one file each, registered through the
//! same public API ([`Registry::add`]) that a third-party crate uses. Adding a policy is one
//! file in its kind's folder plus one line in that folder's `register`.
//!
//! ```
//! let registry = vodbench_plugins::registry();
//! assert!(registry.names::<dyn vodbench_harness::plugin::DiskScheduler>().contains(&"elevator"));
//! ```
#![deny(missing_docs)]

pub mod broadcast;
pub mod buffer_pool;
pub mod client_buffer;
pub mod disk_model;
pub mod layout;
pub mod prefetcher;
pub mod scheduler;

use vodbench_harness::plugin::Registry;

/// Adds every built-in plugin to `r`.
pub fn register_all(r: &mut Registry) {
    disk_model::register(r);
    scheduler::register(r);
    buffer_pool::register(r);
    prefetcher::register(r);
    layout::register(r);
    broadcast::register(r);
    client_buffer::register(r);
}

/// A registry holding every built-in plugin.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register_all(&mut r);
    r
}

/// Parameters of plugins that take none.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}
