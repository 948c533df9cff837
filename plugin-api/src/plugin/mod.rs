//! The plugin API: one small trait per policy kind, and the [`Registry`] that builds them by name.
//!
//! The engine does the bookkeeping (queues, page tables, clocks, accounting, invariant checks);
//! a plugin only decides. Each trait below says exactly what the engine promises the plugin and
//! what it expects back; a plugin that breaks its side (returns a request it was never given,
//! evicts a page it does not hold) stops the run with an error naming the plugin.
//!
//! The kinds are declared once, in the table of `kinds.rs`: [`Kind`] lists them, each with its
//! scenario table, its trait and what it decides ([`Kind::decides`]). Built-ins live in the
//! `vodbench-plugins` crate and register through exactly this API, as a third-party crate
//! would (see [`Plugin`]); it also sets each kind's default ([`Registry::set_default`]), so
//! the simulator names no built-in.

mod context;
mod error;
mod kinds;
mod no_params;
pub mod param_schema;
mod registry;
mod resolved;
pub mod slot_keys;

pub use context::BuildContext;

/// Each kind's module (its trait and the types of its calls, in the file named as the
/// table's `$module`), declared and re-exported from the kinds table.
macro_rules! kind_modules {
    ($( $(#[$doc:meta])* $variant:ident => dyn $trait:ident, $field:ident, $key:literal, $module:ident, $decides:literal; )*) => {
        $( mod $module; pub use $module::*; )*
    };
}
crate::for_each_kind!(kind_modules);
pub use error::PluginError;
pub use kinds::{AnyResolved, Entry, EntryInfo, Kind, ParamInfo, ParamsFn, ParseFn, PluginKind};
pub use no_params::NoParams;
pub use registry::{params_of_schema, DefaultChoice, Loaded, Plugin, Registry};
pub use resolved::{BuildFn, Origin, Resolved};
