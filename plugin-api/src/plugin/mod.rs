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

mod admission;
mod analytic_model;
mod broadcast_schedule;
mod buffer_pool;
mod client_buffer;
mod context;
mod disk_model;
mod disk_scheduler;
mod error;
mod interconnect;
mod kinds;
mod layout;
mod no_params;
pub mod param_schema;
mod prefetcher;
mod registry;
mod resolved;
pub mod slot_keys;
mod transmission;

pub use admission::{Admission, Fetch, Placement, ServerLoad, StreamRequest, Verdict};
pub use analytic_model::{Analysis, AnalysisTable, AnalyticModel, ModelInput, Quantity};
pub use broadcast_schedule::{BroadcastSchedule, Schedule, ScheduleSpec, WindowViolation};
pub use buffer_pool::{BufferPool, CacheRequest};
pub use client_buffer::{CacheView, ClientBuffer, ExtentId, Removal};
pub use context::BuildContext;
pub use disk_model::{DiskAccess, DiskGeometry, DiskModel, ServiceTime};
pub use disk_scheduler::{DiskScheduler, HeadState, QueuedRequest, RequestClass};
pub use error::PluginError;
pub use interconnect::{Endpoint, Interconnect, Transfer};
pub use kinds::{AnyResolved, Entry, EntryInfo, Kind, ParamInfo, ParamsFn, ParseFn, PluginKind};
pub use layout::{Layout, Location};
pub use no_params::NoParams;
pub use prefetcher::{PrefetchCandidate, PrefetchHint, PrefetchPoll, Prefetcher, Reference};
pub use registry::{params_of_schema, DefaultChoice, Loaded, Plugin, Registry};
pub use resolved::{BuildFn, Origin, Resolved};
pub use transmission::{Packet, ReadyBlock, Transmission, TxPoll};
