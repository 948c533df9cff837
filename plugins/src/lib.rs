//! # vodbench-plugins
//!
//! Every built-in policy and disk model of vodbench, one file each, registered through the
//! same public API ([`Registry::add`]) that a third-party crate uses, and the default plugin
//! of each scenario table ([`Registry::set_default`]). Each kind has its folder, named as the
//! kinds table names the kind's module (`disk_scheduler/`), whose `register` adds its
//! plugins and sets its defaults; the folders and [`register_all`] come from the kinds table
//! ([`vodbench_plugin_api::for_each_kind!`]), so a new kind needs its folder and no line
//! here. Adding a policy is one file in its kind's folder plus one line in that folder's
//! `register`. This crate depends on `vodbench-plugin-api` alone.
//!
//! The defaults are SPIFFI's server (§6.2, Table 1: the ST15150N, the elevator, global LRU,
//! standard prefetching, full striping, the 5 µs + 0.04 µs/byte network, every stream
//! admitted), the IDEAL broadcast schedule with Waldvogel's eq. 1-2 as its analytic model, a
//! linear receiver disk, and the mechanical model for `vodbench disk replay`. An on-demand
//! scenario's `[analytic]` has no default: a scenario names the model it wants evaluated;
//! nor does `[transmission]` (a block then goes as one message), and every broadcast scenario
//! gives its `[receiver.buffer]`.
//!
//! ```
//! use vodbench_plugin_api::plugin::{DiskScheduler, Kind};
//! let registry = vodbench_plugins::registry();
//! assert!(registry.names::<dyn DiskScheduler>().contains(&"elevator"));
//! assert_eq!(registry.default_choice("disk.scheduler").unwrap().name, "elevator");
//! assert_eq!(registry.default_choice("admission").unwrap().kind, Kind::Admission);
//! ```
#![deny(missing_docs)]

/// Each kind's folder, and [`register_all`] calling each folder's `register` in the kinds
/// table's order.
macro_rules! kind_folders {
    ($( $(#[$doc:meta])* $variant:ident => dyn $trait:ident, $field:ident, $key:literal, $module:ident, $decides:literal; )*) => {
        $( pub mod $module; )*

        /// Adds every built-in plugin to `r` and makes the built-in defaults its defaults.
        pub fn register_all(r: &mut Registry) {
            $( $module::register(r); )*
        }
    };
}
vodbench_plugin_api::for_each_kind!(kind_folders);

use vodbench_plugin_api::plugin::Registry;

/// A registry holding every built-in plugin and the built-in defaults.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    register_all(&mut r);
    r
}

/// Parameters of plugins that take none (defined in the plugin API; re-exported here for
/// crates that named it from this one).
pub use vodbench_plugin_api::plugin::NoParams;
