//! Admission control ([`Admission`](vodbench_plugin_api::plugin::Admission)).

pub mod accept_all;
pub mod buffer;
pub mod retrieval;
pub mod static_limit;

use vodbench_plugin_api::plugin::{Admission, Kind, Registry};

/// Registers the built-in admission policies; `accept-all` is `[admission]`'s default.
pub fn register(r: &mut Registry) {
    r.add::<accept_all::AcceptAll>();
    r.add::<static_limit::StaticLimit>();
    r.add::<buffer::Buffer>();
    r.add::<retrieval::Retrieval>();
    r.set_default::<dyn Admission>(Kind::Admission.key(), "accept-all", toml::Table::new());
}
