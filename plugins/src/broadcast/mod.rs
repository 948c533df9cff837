//! Periodic broadcast schedules
//! ([`BroadcastSchedule`](vodbench_plugin_api::plugin::BroadcastSchedule); Waldvogel et al.
//! §III, §IV, §VII).

pub mod chunked;
pub mod fuzzycast;
pub mod ideal;

use vodbench_plugin_api::plugin::Registry;

/// Registers the built-in broadcast schedules.
pub fn register(r: &mut Registry) {
    r.add::<ideal::Ideal>();
    r.add::<fuzzycast::Fuzzycast>();
    r.add::<chunked::Chunked>();
}
