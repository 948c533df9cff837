//! Experiments over many simulations, with typed results and typed errors: what the
//! commands `search`, `sweep`, `disk replay` and `analyze` drive, without printing anything.
//!
//! ```text
//!  search     the largest load without glitches (SPIFFI §7.1): replications, each a climb
//!             and a bisection over a Searchable system's load, until a Student-t interval
//!             is tight enough (statistics)
//!  cache      a folder of search simulations shared between searches and sweeps
//!  sweep      a search at every point of an on-demand sweep, with scaleup and cost
//!  checkpoint each point's search saved as it finishes (sweep --resume)
//!  task       a share of the points or replications for one of N processes (--task I/N)
//!  slurm      the values `vodbench slurm` writes into sbatch scripts, checked and quoted
//!  disk_replay  a block trace through one disk model, against a reference
//!  disksim_rms  DiskSim's validation statistic against a real drive (bucketed RMS)
//!  cache_replay  a request trace through buffer pools at several cache sizes (miss ratios)
//!  analyze    every point's analytic model evaluated in closed form (no simulation)
//! ```
//!
//! The results are plain data in [`crate::results`]; the command line (`cli`) parses
//! flags, shows progress, writes the output folders and maps errors to exit codes.

pub mod analyze;
pub mod cache;
pub mod cache_replay;
pub mod checkpoint;
pub mod disk_replay;
pub mod disksim_rms;
pub mod search;
pub mod slurm;
pub mod statistics;
pub mod sweep;
pub mod task;
