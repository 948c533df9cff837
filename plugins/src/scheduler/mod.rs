//! Disk schedulers ([`DiskScheduler`](vodbench_harness::plugin::DiskScheduler)).

pub mod elevator;
pub mod fcfs;

use vodbench_harness::plugin::Registry;

/// Registers the built-in disk schedulers.
pub fn register(r: &mut Registry) {
    r.add::<fcfs::Fcfs>();
    r.add::<elevator::Elevator>();
}
