//! The keys of the scenario tables that choose a plugin at a key other than its kind's own
//! ([`Kind::key`](super::Kind::key)): where a binary's defaults
//! ([`Registry::set_default`](super::Registry::set_default)) and a system's slots meet. A
//! table at its kind's own key is named by the kind (`Kind::DiskScheduler.key()`).

/// A broadcast receiver's local disk, a [`DiskModel`](super::DiskModel).
pub const RECEIVER_DISK: &str = "receiver.disk";
/// A broadcast's analytic model, an [`AnalyticModel`](super::AnalyticModel).
pub const BROADCAST_ANALYTIC: &str = "broadcast.analytic";
/// The [`DiskModel`](super::DiskModel) `vodbench disk replay` uses without `--model`.
pub const DISK_REPLAY: &str = "disk.replay";
