//! Periodic broadcast schedules
//! ([`BroadcastSchedule`](vodbench_plugin_api::plugin::BroadcastSchedule); Waldvogel et al.
//! §III, §IV, §VII).

pub mod chunked;
pub mod fuzzycast;
pub mod ideal;

use vodbench_plugin_api::plugin::{BroadcastSchedule, Kind, Registry};

/// Registers the built-in broadcast schedules; `ideal` is `[broadcast.schedule]`'s default.
pub fn register(r: &mut Registry) {
    r.add::<ideal::Ideal>();
    r.add::<fuzzycast::Fuzzycast>();
    r.add::<chunked::Chunked>();
    r.set_default::<dyn BroadcastSchedule>(
        Kind::BroadcastSchedule.key(),
        "ideal",
        toml::Table::new(),
    );
}
