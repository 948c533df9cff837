//! Video terminals (SPIFFI §5.1): prime, play, request whenever there is room, glitch, re-prime.
//!
//! A terminal reads one stripe block at a time and reserves memory for a block when it asks for
//! it ([`super::playout`] has the arithmetic). When a frame's display time comes before its
//! data, that is a glitch: the terminal stops and re-primes (fills its buffer, or
//! `terminals.prime` bytes) before resuming, as SPIFFI's terminals do.
//!
//! Trace events: `start` waits while the terminal is still playing (the closed loop of SPIFFI
//! §6); later events of that terminal wait behind it and keep their spacing (the terminal's
//! accumulated delay, `lag`, is added to them). A `start` is first put to admission control
//! (`[admission]`; the default admits every stream): a refused viewing shows nothing and its
//! later events are dropped. With `[server] manager_node` the start first travels as the
//! object manager's delegation to its interface node, which decides, and the viewing begins
//! or is refused when the answer is back at the manager ([`super::manager`]). `pause` stops display but not reading; `resume` continues where it stopped, within the frame on display; `seek`
//! drops the buffer and re-primes at the new position; `stop` ends the video. `ff`/`rewind`
//! start a visual search (SPIFFI §8.1, [`super::visual_search`]); a start may wait for others
//! to piggyback on it (SPIFFI §8.2, [`super::piggyback`]). Events that make no sense in the
//! terminal's state (a pause while idle, an event naming another video) are counted in
//! `events_ignored`.
//!
//! Measured here: glitches (count, stalled time, terminals affected, first glitch), start-up
//! latency, videos started, searches, terminal buffer occupancy, and the terminals' side of
//! the byte conservation (issued, delivered, received, consumed, discarded).

use super::admission::Decision;
use super::event::{Ev, NONE};
use super::interface_cpu::IfaceJob;
use super::piggyback::Piggyback;
use super::playout::Playout;
use super::ports::Ports;
use super::replication::Source;
use super::requests::{Arena, Req};
use super::stats::{clip, DurStat};
use super::term::{PrimeKind, Search, TState, Term};
use super::video::VideoLibrary;
use super::visual_search::{NextSegment, VisualSearch};
use super::workload::Events;
use crate::ids::{BlockId, DiskId, VideoId};
use crate::plugin::{Endpoint, Layout, PrefetchHint};
use crate::results::{Column, Glitches, PiggybackSummary, SearchSummary, Stat, Table};
use crate::system::ondemand::scenario::{ScenarioError, SearchMode, Warmup};
use crate::time::{SimDuration, SimTime};
use crate::trace::{EventKind, TraceEvent};

mod config;
mod display;
mod events;
mod groups;
mod reading;
mod report;
mod search;
mod sessions;

use config::TerminalConfig;

/// Every terminal, the workload that drives them, and what they measured.
pub(super) struct Terminals<'a> {
    /// The real terminals, then piggyback stream slots.
    pub terms: Vec<Term>,
    cfg: TerminalConfig,
    lib: VideoLibrary,
    /// Blocks of each object of the library.
    pub blocks: Vec<u32>,
    /// The workload, read as the run reaches it.
    events: Events<'a>,
    /// Why the workload stopped early (an error reading it), until the engine takes it.
    read_error: Option<ScenarioError>,
    /// Workload events taken from the stream and not yet applied (due, delayed or deferred
    /// behind their terminal), by slot; `Ev::Trace` and `Ev::Delayed` name slots.
    pending: Arena<TraceEvent>,
    pig: Piggyback,
    search: VisualSearch,
    // warm-up: the window opens when every terminal with a start has displayed
    to_start: u32,
    started_display: u32,
    last_first_start: SimTime,
    // measured
    glitches: u64,
    stalled: u64,
    first_glitch: Option<SimTime>,
    startup: DurStat,
    videos_started: u64,
    events_ignored: u64,
    searches: u64,
    segments: u64,
    prefetch_hints: u64,
    buffer_samples: u64,
    buffer_sum: u128,
    buffer_peak: u64,
    // conservation
    issued: u64,
    delivered: u64,
    received_bytes: u64,
    consumed_bytes: u64,
    discarded_bytes: u64,
}

impl<'a> Terminals<'a> {
    fn new(
        cfg: TerminalConfig,
        lib: VideoLibrary,
        blocks: Vec<u32>,
        events: Events<'a>,
        (to_start, last_first_start): (u32, SimTime),
        pig: Piggyback,
        search: VisualSearch,
    ) -> Self {
        let terms = (0..cfg.count).map(|_| Term::new()).collect();
        Terminals {
            terms,
            cfg,
            lib,
            blocks,
            events,
            read_error: None,
            pending: Arena::new(),
            pig,
            search,
            to_start,
            started_display: 0,
            last_first_start,
            glitches: 0,
            stalled: 0,
            first_glitch: None,
            startup: DurStat::new(),
            videos_started: 0,
            events_ignored: 0,
            searches: 0,
            segments: 0,
            prefetch_hints: 0,
            buffer_samples: 0,
            buffer_sum: 0,
            buffer_peak: 0,
            issued: 0,
            delivered: 0,
            received_bytes: 0,
            consumed_bytes: 0,
            discarded_bytes: 0,
        }
    }

    /// The playout arithmetic over this library.
    #[inline]
    fn playout(&self) -> Playout<'_> {
        Playout {
            lib: &self.lib,
            block_bytes: self.cfg.block_bytes,
            blocks: &self.blocks,
            memory: self.cfg.memory,
            prime: self.cfg.prime,
            set: self.cfg.rounds.map_or(1, |r| r.0),
        }
    }

    /// The video library.
    pub fn lib(&self) -> &VideoLibrary {
        &self.lib
    }

    /// A read request message's size (`server.network.request_bytes`).
    pub fn request_bytes(&self) -> u64 {
        self.cfg.request_bytes
    }

    /// Real terminals (the slots after them are piggyback streams).
    pub fn real(&self) -> usize {
        self.cfg.count
    }

    /// Terminals with a `start` in the workload, and the latest first start: when the
    /// measured period opens by itself at the latest (warm-up `auto`).
    pub fn warmup_limit(&self) -> (u32, SimTime) {
        (self.to_start, self.last_first_start)
    }

    /// Glitches in the measured period so far.
    pub fn glitches(&self) -> u64 {
        self.glitches
    }
}
