//! Sweeps: one scenario file, a grid of configurations (SPIFFI §7 varies one or two
//! parameters per figure).
//!
//! * [`crate::spec::grid`] — the `[sweep]` table (key axes, series axes, per-point published
//!   values), shared by on-demand and broadcast scenarios;
//! * [`crate::system::ondemand::spec::suite`] — an on-demand sweep file, every point a
//!   validated scenario;
//! * [`crate::system::ondemand::outputs`] — the files of `vodbench run` of an on-demand sweep
//!   (every point once);
//! * [`search`] — `vodbench sweep`, the maximum glitch-free terminal count at every point;
//! * [`checkpoint`] — each point's search saved as it finishes (`vodbench sweep --resume`).

pub mod checkpoint;
pub mod search;

pub use crate::spec::grid::MAX_SWEEP_POINTS;
pub use crate::system::ondemand::spec::{has_sweep, SweepPoint, SweepSuite};
