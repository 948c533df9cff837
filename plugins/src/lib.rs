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
    slot_keys, Admission, AnalyticModel, BroadcastSchedule, BufferPool, DiskModel, DiskScheduler,
    Interconnect, Kind, Layout, Prefetcher, Registry,
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
    let spec = table(&[("spec", "st15150n")]);
    r.set_default::<dyn DiskModel>(Kind::DiskModel.key(), "analytic", spec);
    r.set_default::<dyn DiskScheduler>(Kind::DiskScheduler.key(), "elevator", none());
    r.set_default::<dyn BufferPool>(Kind::BufferPool.key(), "global-lru", none());
    r.set_default::<dyn Prefetcher>(Kind::Prefetcher.key(), "standard", none());
    r.set_default::<dyn Layout>(Kind::Layout.key(), "striped", none());
    r.set_default::<dyn Interconnect>(Kind::Interconnect.key(), "ideal", none());
    r.set_default::<dyn Admission>(Kind::Admission.key(), "accept-all", none());
    r.set_default::<dyn BroadcastSchedule>(Kind::BroadcastSchedule.key(), "ideal", none());
    r.set_default::<dyn DiskModel>(slot_keys::RECEIVER_DISK, "linear", none());
    let waldvogel = "waldvogel-bandwidth";
    r.set_default::<dyn AnalyticModel>(slot_keys::BROADCAST_ANALYTIC, waldvogel, none());
    // `vodbench disk replay` without `--model`: the DiskSim-accurate model
    r.set_default::<dyn DiskModel>(slot_keys::DISK_REPLAY, "mechanical", none());
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
