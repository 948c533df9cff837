//! Why and since when a terminal's display is stopped (SPIFFI §5.1): priming for a start, a
//! seek or after a glitch, stalled, or paused.

use super::{PrimeKind, TState};
use crate::time::SimTime;

/// The terminal's priming, stall and pause.
pub(in crate::system::ondemand) struct Stops {
    prime_kind: PrimeKind,
    /// Since when it primes: its start-up latency is counted from here.
    prime_since: SimTime,
    stall_since: SimTime,
    /// When the terminal paused: a resume shifts its playout by the pause, so the frame on
    /// display when it paused keeps the rest of its display time.
    paused_at: SimTime,
    /// The state it paused in, to go back to.
    paused_from: TState,
}

impl Stops {
    pub fn new() -> Stops {
        Stops {
            prime_kind: PrimeKind::Start,
            prime_since: SimTime::ZERO,
            stall_since: SimTime::ZERO,
            paused_at: SimTime::ZERO,
            paused_from: TState::Idle,
        }
    }

    /// Why it primes.
    #[inline]
    pub fn prime_kind(&self) -> PrimeKind {
        self.prime_kind
    }

    /// Since when it primes.
    #[inline]
    pub fn prime_since(&self) -> SimTime {
        self.prime_since
    }

    /// Since when it is stalled.
    #[inline]
    pub fn stall_since(&self) -> SimTime {
        self.stall_since
    }

    /// When it paused.
    #[inline]
    pub fn paused_at(&self) -> SimTime {
        self.paused_at
    }

    /// The state it paused in.
    #[inline]
    pub fn paused_from(&self) -> TState {
        self.paused_from
    }

    /// It primes from `now`, for `kind`.
    pub fn prime(&mut self, kind: PrimeKind, now: SimTime) {
        self.prime_kind = kind;
        self.prime_since = now;
    }

    /// Its start-up counts from `at` (it asked then, and waited).
    pub fn primed_since(&mut self, at: SimTime) {
        self.prime_since = at;
    }

    /// It glitched now: it stalls and re-primes.
    pub fn glitch(&mut self, now: SimTime) {
        self.prime_kind = PrimeKind::Glitch;
        self.stall_since = now;
    }

    /// Its stall is counted from `now` (it resumed stalled, or the measured period opened).
    pub fn stalled_since(&mut self, now: SimTime) {
        self.stall_since = now;
    }

    /// It paused now, in state `from`.
    pub fn pause(&mut self, from: TState, now: SimTime) {
        self.paused_from = from;
        self.paused_at = now;
    }
}
