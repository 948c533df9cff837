//! Disk schedulers ([`DiskScheduler`](vodbench_plugin_api::plugin::DiskScheduler)).

pub mod c_scan;
pub mod edf;
pub mod elevator;
pub mod fcfs;
pub mod gss;
pub mod real_time;
pub mod round_robin;
pub mod scan_edf;
mod sweep;

use vodbench_plugin_api::plugin::{DiskScheduler, Kind, Registry};

/// Registers the built-in disk schedulers; `elevator` is `[disk.scheduler]`'s default.
pub fn register(r: &mut Registry) {
    r.add::<fcfs::Fcfs>();
    r.add::<elevator::Elevator>();
    r.add::<c_scan::CScan>();
    r.add::<round_robin::RoundRobin>();
    r.add::<gss::Gss>();
    r.add::<real_time::RealTime>();
    r.add::<edf::Edf>();
    r.add::<scan_edf::ScanEdf>();
    r.set_default::<dyn DiskScheduler>(Kind::DiskScheduler.key(), "elevator", toml::Table::new());
}
