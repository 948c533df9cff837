//! Periodic broadcast with client-side buffering (Waldvogel, Deng, Janakiraman: "Efficient
//! Buffer Management for Scalable Media-on-Demand").
//!
//! Here the data path differs from on-demand streaming: the server broadcasts the frames of a
//! movie on a fixed schedule ([`BroadcastSchedule`](crate::plugin::BroadcastSchedule): IDEAL,
//! Fuzzycast, chunked; §III, §IV, §VII); each client joins at any instant, catches every
//! frame within its window, keeps out-of-order frames in a small memory cache backed by its
//! local disk ([`ClientBuffer`](crate::plugin::ClientBuffer): MDP, MCS, Belady's optimum, a
//! radix heap; §V–VI), and plays them in order ([`receiver`]). The cost the paper minimises
//! is the client's disk I/O time as a fraction of playout time.
//!
//! A broadcast scenario is a TOML file with a `[broadcast]` table ([`scenario`]);
//! `vodbench run` runs it (every point of its `[sweep]`, in parallel) and writes
//! `summary.json` and tables like an on-demand run.

pub mod cli;
pub mod receiver;
pub mod run;
pub mod scenario;

pub use receiver::{expected_buffer, receive, ClientOutcome, Sample};
pub use run::{run_suite, MeanSample, PointResult, SuiteResults};
pub use scenario::{is_broadcast, BroadcastFile, BroadcastScenario, BroadcastSuite, Derived};

/// Why a broadcast run failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BroadcastError {
    /// A plugin broke its contract.
    #[error("plugin `{plugin}` broke its contract: {message}")]
    Contract {
        /// Plugin name.
        plugin: String,
        /// What it did.
        message: String,
    },
    /// A plugin could not be built.
    #[error("cannot build plugin `{plugin}`: {message}")]
    Build {
        /// Plugin name.
        plugin: String,
        /// Why.
        message: String,
    },
    /// The schedule misses a frame for some join instant.
    #[error("the schedule does not deliver frame {frame} within [{join}, {join} + {window}) to a client joining at instant {join}")]
    Window {
        /// 0-based frame.
        frame: u32,
        /// Join instant.
        join: u32,
        /// Window length.
        window: u32,
    },
    /// The receiver's disk is too small for the frames the run spills (known only by
    /// running; exit code 2, as for any scenario error).
    #[error("the receiver's disk is full: {frames} frames would not fit; choose a larger disk (receiver.disk)")]
    DiskFull {
        /// Frames that would be on disk.
        frames: u64,
    },
    /// An engine invariant failed (a bug in vodbench).
    #[error("internal error: {0}")]
    Internal(String),
}
