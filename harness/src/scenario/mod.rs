//! Scenario files, whatever system they describe: where errors point (file, line, key), how
//! a key path maps back to its line, the `[sweep]` grid that turns one file into many
//! configurations, and the JSON Schema `vodbench schema` prints.
//!
//! Each system reads its own tables ([`crate::system`]); what they share lives here.

pub mod error;
pub mod grid;
pub mod json_schema;
pub mod libraries;
pub mod locate;
pub mod slots;
mod source;

pub use error::ScenarioError;
pub use grid::{Axis, Grid, GridPoint, SeriesEntry, MAX_SWEEP_POINTS};
pub use source::Source;
