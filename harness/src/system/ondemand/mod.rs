//! The discrete-event engine: a SPIFFI-style video server simulated end to end (SPIFFI §5–6).
//!
//! Data path of one terminal read: the terminal sends a request (wire delay) → the node's CPU
//! receives it (FCFS) → buffer pool: hit (send), join a read in progress, or miss (allocate a
//! page, start an I/O, queue at the disk) → the disk scheduler picks, the disk model times the
//! access → the CPU sends the block (wire delay) → the terminal buffers it and plays frames.
//! After every real reference the prefetcher may queue read-ahead for that disk.
//!
//! Events are block-granular: a terminal schedules one wake-up for the earliest of "a frame's
//! display time comes before its data" (a glitch), "enough frames consumed to make room for
//! another block" and "end of video", computed exactly from the frame offsets, instead of one
//! event per frame. Everything runs on integer nanoseconds and per-component random streams,
//! so a scenario and seed give byte-identical results.
//!
//! Interactive viewing (SPIFFI §8): pause/resume/seek in `terminal`, fast-forward and rewind
//! searches in `visual_search`, piggybacking of viewers of the same video in `piggyback`.

mod block_set;
mod engine;
mod piggyback;
mod queue;
mod server;
pub mod spec;
mod stats;
mod terminal;
pub mod video;
mod visual_search;

pub use engine::{check_buildable, simulate, simulate_with, Progress, SimError, SimOptions};
pub use queue::EventQueue;
