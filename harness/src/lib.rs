//! # vodbench-harness
//!
//! The core of vodbench: a deterministic discrete-event simulator of video-on-demand servers,
//! the plugin traits that policies implement, the scenario and trace formats, metrics, and the
//! command-line library that binaries wire up.
//!
//! ```text
//!  scenario.toml ──► scenario::Scenario ──┐            ┌─► results::Summary ─► summary.json
//!  trace / generator ─► trace::TraceEvent ┼─► sim ─────┤
//!  plugin::Registry (built-ins + yours) ──┘            └─► results::Table ──► CSV (reports)
//! ```
//!
//! The harness registers no plugin of its own. A binary builds a [`plugin::Registry`], adds
//! the built-ins (crate `vodbench-plugins`) and any third-party plugins through
//! [`plugin::Registry::add`], and calls [`cli::main_with`]. Simulated time is integer
//! nanoseconds ([`time::SimTime`]); every random stream is derived from the scenario seed
//! ([`rng`]), so a scenario and seed always give byte-identical outputs.
//!
//! The modules, from the bottom up:
//!
//! * [`scenario`] — what every scenario file shares: errors at a key's line, the `[sweep]` grid,
//!   the JSON Schema;
//! * [`results`] — what runs, searches and sweeps produce, as plain data;
//! * [`system`] — the [`system::System`] trait (load → validate → run → save) and the
//!   systems behind it, on-demand and broadcast; [`output`] writes what they save;
//! * [`experiment`] — drivers over many simulations (search, run cache, sweep, disk replay),
//!   with typed results and errors;
//! * [`cli`] — one file per command; nothing else imports it, and `system` imports neither
//!   it nor `experiment`.
#![deny(missing_docs)]

pub mod atomic_write;
pub mod cli;
pub mod contract_breach;
pub mod digest;
pub mod experiment;
pub mod file_mark;
pub mod fuzz;
pub mod interrupt;
pub mod output;
pub mod ownership;
pub mod plugin_library;
pub mod results;
pub mod scenario;
pub mod system;
pub mod trace;

pub use vodbench_plugin_api::{ids, input, plugin, rng, time, units};
