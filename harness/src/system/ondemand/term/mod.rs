//! One terminal's state (SPIFFI §5.1): what it is doing, and in one part each, changed
//! only through that part's methods: the blocks of its session ([`Blocks`]), where its
//! display is ([`Playhead`]), its pending wake-up ([`Wake`]), why its display is stopped
//! ([`Stops`]), its workload events waiting ([`Deferred`]), its piggyback group
//! ([`Group`]) and its own counts ([`Counts`]).

mod blocks;
mod counts;
mod deferred;
mod group;
mod playhead;
mod stops;
mod wake;

use blocks::Blocks;
use counts::Counts;
use deferred::Deferred;
use group::Group;
use playhead::Playhead;
use stops::Stops;
use wake::Wake;

use crate::time::SimTime;

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
    /// The video as the trace names it.
    pub title: u32,
    pub search: Search,
    /// Its client's packets are being sent every δ_I (`client_packet`).
    pub packets_armed: bool,
    /// The blocks of its session.
    pub read: Blocks,
    /// Where its display is.
    pub play: Playhead,
    /// Its pending wake-up.
    pub wake: Wake,
    /// Its priming, stall and pause.
    pub stops: Stops,
    /// Its workload events waiting, and admission's decision on its viewing.
    pub events: Deferred,
    /// Its piggyback group.
    pub group: Group,
    /// What it measured.
    pub counts: Counts,
}

impl Term {
    pub fn new() -> Term {
        Term {
            state: TState::Idle,
            title: 0,
            search: Search::None,
            packets_armed: false,
            read: Blocks::new(),
            play: Playhead::new(),
            wake: Wake::new(),
            stops: Stops::new(),
            events: Deferred::new(),
            group: Group::new(),
            counts: Counts::new(),
        }
    }

    /// Whether the terminal asked for a video before `t` and is still waiting for its first
    /// frame, having shown none (see `Glitches::never_displayed`).
    pub fn never_displayed_since(&self, t: SimTime) -> bool {
        !self.counts.has_displayed()
            && self.counts.first_request() < t
            && matches!(
                self.state,
                TState::Priming | TState::Waiting | TState::Following
            )
    }

    /// Makes the pending wake-up, if any, stale.
    #[inline]
    pub fn cancel_wake(&mut self) {
        self.wake.cancel();
    }

    /// Whether it has no session of its own (idle, or watching a group's stream).
    pub fn without_session(&self) -> bool {
        matches!(
            self.state,
            TState::Idle | TState::Waiting | TState::Following
        )
    }
}
