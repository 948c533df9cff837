//! One terminal's state (SPIFFI §5.1): what it is doing, which object it reads and where,
//! which blocks have arrived, where its playout is, and its own counters.

use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum TState {
    Idle,
    Priming,
    Playing,
    Paused,
    Stalled,
    /// Skip search: reading (or showing) one segment.
    Searching,
    /// Piggyback: waiting for its group to start.
    Waiting,
    /// Piggyback: watching its group's stream, reading nothing itself.
    Following,
}

/// Why a terminal primes: it starts a video, it sought, or it glitched.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum PrimeKind {
    Start,
    Seek,
    Glitch,
}

/// A visual search in progress (SPIFFI §8.1).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Search {
    None,
    /// Skip search: the segment `[seg_start, seg_end)` (frames of the normal video) is being
    /// read (`showing == false`) or shown.
    Skip {
        forward: bool,
        seg_start: u64,
        seg_end: u64,
        showing: bool,
    },
    /// Playing the fast-forward (`forward`) or rewind version of `title`.
    Version {
        forward: bool,
    },
}

/// One terminal (or a piggyback stream: a hidden terminal reading for its members).
pub(super) struct Term {
    pub state: TState,
    pub paused_from: TState,
    /// The object being read: the video itself or one of its search versions.
    pub video: u32,
    /// The video as the trace names it.
    pub title: u32,
    pub search: Search,
    /// Piggyback: the pending group (`Waiting`) or the stream slot (`Following`).
    pub group: u32,
    /// Piggyback: when this terminal asked for its video.
    pub requested_at: SimTime,
    /// Piggyback stream slot: the terminals watching it (empty for real terminals).
    pub members: Vec<u32>,
    /// The session: data of an older one is discarded on arrival.
    pub epoch: u32,
    pub first_block: u32,
    pub next_block: u32,
    pub frontier_block: u32,
    /// Blocks arrived past the frontier (bit `i`: block `frontier_block + i`).
    pub mask: u128,
    pub outstanding: u32,
    /// Blocks of the current round's set still to ask for (`[terminals.rounds]`; the set's
    /// room was reserved when its first block was asked for).
    pub set_left: u32,
    /// Skip search: no block at or past this one is requested (`u32::MAX` otherwise).
    pub limit_block: u32,
    pub play_frame: u64,
    pub start_frame: u64,
    pub base_frame: u64,
    pub base_time: SimTime,
    pub prime_since: SimTime,
    pub prime_kind: PrimeKind,
    /// Generation of the terminal's pending wake-up: a `Wake` event carrying another one
    /// is stale and ignored.
    pub gen: u32,
    /// When the pending wake-up of generation `gen` fires (`SimTime::MAX`: none pending).
    pub wake_time: SimTime,
    /// Workload events waiting for the terminal to be idle.
    pub deferred: VecDeque<u32>,
    /// How much later than the trace the terminal's events happen (its waits add up).
    pub lag: SimDuration,
    pub has_displayed: bool,
    /// Counted by the automatic warm-up: it displayed, or admission refused its first
    /// viewing (it will show nothing to wait for).
    pub warmed: bool,
    /// When the terminal first asked for a video (`SimTime::MAX`: not yet).
    pub first_request: SimTime,
    pub stall_since: SimTime,
    /// When the terminal paused: a resume shifts its playout by the pause, so the frame on
    /// display when it paused keeps the rest of its display time.
    pub paused_at: SimTime,
    pub session_received: u64,
    /// Its current viewing was admitted (and is counted as an active stream).
    pub admitted: bool,
    /// Its client's packets are being sent every δ_I (`client_packet`).
    pub packets_armed: bool,
    /// The video of a viewing admission refused: that viewing's later events are dropped.
    pub refused: Option<u32>,
    /// A `start` waiting for admission's probes, or for the object manager node's delegation
    /// and its answer (`[server] manager_node`), and when it asked: the terminal's later
    /// events wait behind it.
    pub admitting: Option<(crate::trace::TraceEvent, SimTime)>,
    // measured
    pub glitches_measured: u64,
    pub stalled_measured: u64,
    pub videos_started: u64,
    pub bytes_received: u64,
    pub startup_sum: u64,
    pub startups: u64,
}

impl Term {
    pub fn new() -> Term {
        Term {
            state: TState::Idle,
            paused_from: TState::Idle,
            video: 0,
            title: 0,
            search: Search::None,
            group: 0,
            requested_at: SimTime::ZERO,
            members: Vec::new(),
            epoch: 0,
            first_block: 0,
            next_block: 0,
            frontier_block: 0,
            mask: 0,
            outstanding: 0,
            set_left: 0,
            limit_block: u32::MAX,
            play_frame: 0,
            start_frame: 0,
            base_frame: 0,
            base_time: SimTime::ZERO,
            prime_since: SimTime::ZERO,
            prime_kind: PrimeKind::Start,
            gen: 0,
            wake_time: SimTime::MAX,
            deferred: VecDeque::new(),
            lag: SimDuration::ZERO,
            has_displayed: false,
            warmed: false,
            first_request: SimTime::MAX,
            stall_since: SimTime::ZERO,
            paused_at: SimTime::ZERO,
            session_received: 0,
            admitted: false,
            packets_armed: false,
            refused: None,
            admitting: None,
            glitches_measured: 0,
            stalled_measured: 0,
            videos_started: 0,
            bytes_received: 0,
            startup_sum: 0,
            startups: 0,
        }
    }

    /// Whether the terminal asked for a video before `t` and is still waiting for its first
    /// frame, having shown none (see `Glitches::never_displayed`).
    pub fn never_displayed_since(&self, t: SimTime) -> bool {
        !self.has_displayed
            && self.first_request < t
            && matches!(
                self.state,
                TState::Priming | TState::Waiting | TState::Following
            )
    }

    /// Makes the pending wake-up, if any, stale.
    pub fn cancel_wake(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        self.wake_time = SimTime::MAX;
    }

    /// Whether it has no session of its own (idle, or watching a group's stream).
    pub fn without_session(&self) -> bool {
        matches!(
            self.state,
            TState::Idle | TState::Waiting | TState::Following
        )
    }
}
