//! # vodbench-plugin-api
//!
//! Everything a vodbench plugin is written against, and nothing else: the policy traits (one
//! per [plugin kind](plugin::Kind)), the [`Plugin`](plugin::Plugin) recipe and the
//! [`Registry`](plugin::Registry) that builds plugins by name, and the small types they use —
//! simulated [`time`], [`ids`] of the simulated system's parts, scenario [`units`] and
//! per-component random streams ([`rng`]). It depends on serde, schemars, toml and rand only:
//! a third-party policy crate builds without the simulator, its command line or its reports.
//!
//! ```text
//!  your crate ──► vodbench-plugin-api ◄── vodbench-plugins (the built-ins, same API)
//!                        ▲
//!                 vodbench-harness (engine, scenarios, experiments, CLI)
//!                        ▲
//!                 your binary: cli::main_with(registry, outputs)
//! ```
//!
//! Writing a plugin takes three steps (the `sstf` example crate, `examples/sstf-plugin`, is
//! a complete one):
//!
//! 1. implement the kind's trait on your type — here a disk scheduler that serves the most
//!    recent request first;
//! 2. implement [`Plugin`](plugin::Plugin): its name, a one-line description, a serde
//!    parameters type and a constructor;
//! 3. add it to a registry; a binary hands that registry to `vodbench_harness::cli::main_with`.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//! use vodbench_plugin_api::ids::RequestId;
//! use vodbench_plugin_api::plugin::*;
//!
//! #[derive(Default)]
//! struct Lifo(Vec<RequestId>);
//! impl DiskScheduler for Lifo {
//!     fn enqueue(&mut self, r: QueuedRequest) { self.0.push(r.id) }
//!     fn dequeue(&mut self, _head: &HeadState) -> Option<RequestId> { self.0.pop() }
//!     fn len(&self) -> usize { self.0.len() }
//! }
//!
//! /// `lifo` takes one parameter.
//! #[derive(Serialize, Deserialize, JsonSchema)]
//! #[serde(deny_unknown_fields, default)]
//! struct LifoParams {
//!     /// Not used; shows how a parameter is declared.
//!     depth: u32,
//! }
//! impl Default for LifoParams {
//!     fn default() -> Self { LifoParams { depth: 1 } }
//! }
//!
//! impl Plugin for Lifo {
//!     type Kind = dyn DiskScheduler;
//!     type Params = LifoParams;
//!     const NAME: &'static str = "lifo";
//!     const DESCRIPTION: &'static str = "last in, first out (an unfair example)";
//!     fn build(_: &LifoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
//!         Ok(Box::new(Lifo::default()))
//!     }
//! }
//!
//! let mut registry = Registry::new();
//! registry.add::<Lifo>();
//! let chosen = registry
//!     .resolve::<dyn DiskScheduler>("lifo", &toml::Table::new())
//!     .unwrap();
//! assert_eq!(chosen.params["depth"], 1);
//! ```
#![deny(missing_docs)]

pub mod abi;
pub mod ids;
pub mod input;
mod intern;
pub mod plugin;
pub mod rng;
pub mod time;
pub mod units;
