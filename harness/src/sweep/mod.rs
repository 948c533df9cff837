//! Sweeps: one scenario file, a grid of configurations (SPIFFI §7 varies one or two
//! parameters per figure).
//!
//! * [`grid`] — the `[sweep]` table (key axes, series axes, per-point published values),
//!   shared by on-demand and broadcast scenarios;
//! * [`suite`] — an on-demand sweep file, every point a validated [`crate::scenario::Scenario`];
//! * [`run`] — `vodbench run` of an on-demand sweep (every point once);
//! * [`search`] — `vodbench sweep`, the maximum glitch-free terminal count at every point;
//! * [`checkpoint`] — each point's search saved as it finishes (`vodbench sweep --resume`).

pub mod checkpoint;
pub mod grid;
pub mod run;
pub mod search;
pub mod suite;

pub use grid::{Axis, Grid, GridPoint, SeriesEntry, MAX_SWEEP_POINTS};
pub use suite::{has_sweep, SweepPoint, SweepSuite};
