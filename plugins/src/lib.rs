//! # vodbench-plugins
//!
//! Every built-in policy and disk model of vodbench, one file each, registered through the
//! same public API ([`Registry::add`]) that a third-party crate uses, and the default plugin
//! of each scenario table ([`set_defaults`]). Adding a policy is one file in its kind's
//! folder plus one line in that folder's `register`. This crate depends on
//! `vodbench-plugin-api` alone.
//!
//! ```
//! use vodbench_plugin_api::plugin::{DiskScheduler, Kind};
//! let registry = vodbench_plugins::registry();
//! assert!(registry.names::<dyn DiskScheduler>().contains(&"elevator"));
//! assert_eq!(registry.default_choice("disk.scheduler").unwrap().name, "elevator");
//! assert_eq!(registry.default_choice("admission").unwrap().kind, Kind::Admission);
//! ```
#![deny(missing_docs)]

pub mod admission;
pub mod analytic;
pub mod broadcast;
pub mod buffer_pool;
pub mod client_buffer;
pub mod disk_model;
pub mod interconnect;
pub mod layout;
pub mod prefetcher;
pub mod scheduler;
pub mod transmission;

use vodbench_plugin_api::plugin::{
    Admission, AnalyticModel, BroadcastSchedule, BufferPool, DiskModel, DiskScheduler,
    Interconnect, Layout, Prefetcher, Registry,
};

/// Adds every built-in plugin to `r` and makes the built-in defaults its defaults.
pub fn register_all(r: &mut Registry) {
    disk_model::register(r);
    scheduler::register(r);
    buffer_pool::register(r);
    prefetcher::register(r);
    layout::register(r);
    interconnect::register(r);
    admission::register(r);
    broadcast::register(r);
    client_buffer::register(r);
    analytic::register(r);
    transmission::register(r);
    set_defaults(r);
}

/// The plugin each scenario table gets when a scenario leaves it out: SPIFFI's server
/// (§6.2, Table 1: the ST15150N, the elevator, global LRU, standard prefetching, full
/// striping, the 5 µs + 0.04 µs/byte network, every stream admitted), the IDEAL broadcast
/// schedule with Waldvogel's eq. 1-2 as its analytic model, a linear receiver disk, and the
/// mechanical model for `vodbench disk replay`. An on-demand scenario's `[analytic]` has no
/// default: a scenario names the model it wants evaluated.
pub fn set_defaults(r: &mut Registry) {
    let table = |pairs: &[(&str, &str)]| -> toml::Table {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), toml::Value::String(v.to_string())))
            .collect()
    };
    let none = toml::Table::new;
    r.set_default::<dyn DiskModel>("disk.model", "analytic", table(&[("spec", "st15150n")]));
    r.set_default::<dyn DiskScheduler>("disk.scheduler", "elevator", none());
    r.set_default::<dyn BufferPool>("buffer_pool", "global-lru", none());
    r.set_default::<dyn Prefetcher>("prefetcher", "standard", none());
    r.set_default::<dyn Layout>("layout", "striped", none());
    r.set_default::<dyn Interconnect>("server.network", "ideal", none());
    r.set_default::<dyn Admission>("admission", "accept-all", none());
    r.set_default::<dyn BroadcastSchedule>("broadcast.schedule", "ideal", none());
    r.set_default::<dyn DiskModel>("receiver.disk", "linear", none());
    r.set_default::<dyn AnalyticModel>("broadcast.analytic", "waldvogel-bandwidth", none());
    // `vodbench disk replay` without `--model`: the DiskSim-accurate model
    r.set_default::<dyn DiskModel>("disk.replay", "mechanical", none());
}

/// A registry holding every built-in plugin and the built-in defaults.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register_all(&mut r);
    r
}

/// Parameters of plugins that take none (defined in the plugin API; re-exported here for
/// crates that named it from this one).
pub use vodbench_plugin_api::plugin::NoParams;
