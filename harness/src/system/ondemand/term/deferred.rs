//! A terminal's workload events waiting (SPIFFI §6's closed loop): the events deferred
//! behind it, its accumulated delay, the start waiting for admission, and what admission
//! decided of its viewing.

use crate::time::{SimDuration, SimTime};
use crate::trace::TraceEvent;
use std::collections::VecDeque;

/// The terminal's side of the workload.
pub(in crate::system::ondemand) struct Deferred {
    /// Workload events (by slot) waiting for the terminal to be idle.
    queue: VecDeque<u32>,
    /// How much later than the trace the terminal's events happen (its waits add up).
    lag: SimDuration,
    /// The video of a viewing admission refused: that viewing's later events are dropped.
    refused: Option<u32>,
    /// A `start` waiting for admission's probes, or for the object manager node's delegation
    /// and its answer (`[server] manager_node`), and when it asked: the terminal's later
    /// events wait behind it.
    admitting: Option<(TraceEvent, SimTime)>,
    /// Its current viewing was admitted (and is counted as an active stream).
    admitted: bool,
}

impl Deferred {
    pub fn new() -> Deferred {
        Deferred {
            queue: VecDeque::new(),
            lag: SimDuration::ZERO,
            refused: None,
            admitting: None,
            admitted: false,
        }
    }

    /// Whether a new event must wait behind earlier ones or a start being admitted.
    #[inline]
    pub fn holds(&self) -> bool {
        !self.queue.is_empty() || self.admitting.is_some()
    }

    /// Event `slot` waits behind the others.
    pub fn push(&mut self, slot: u32) {
        self.queue.push_back(slot);
    }

    /// The first event waiting.
    #[inline]
    pub fn front(&self) -> Option<u32> {
        self.queue.front().copied()
    }

    /// The first event waiting leaves the queue.
    pub fn pop(&mut self) {
        self.queue.pop_front();
    }

    /// Every event waiting leaves the queue, in order.
    pub fn take_all(&mut self) -> Vec<u32> {
        self.queue.drain(..).collect()
    }

    /// How much later than the trace its events happen.
    #[inline]
    pub fn lag(&self) -> SimDuration {
        self.lag
    }

    /// Its events happen `lag` later than the trace from now on.
    pub fn set_lag(&mut self, lag: SimDuration) {
        self.lag = lag;
    }

    /// The video of the viewing admission refused, if it did.
    #[inline]
    pub fn refused(&self) -> Option<u32> {
        self.refused
    }

    /// The start `e`, asked at `at`, waits for admission.
    pub fn wait_for_admission(&mut self, e: TraceEvent, at: SimTime) {
        self.admitting = Some((e, at));
    }

    /// The start waiting for admission, if any.
    #[inline]
    pub fn admitting(&self) -> Option<(TraceEvent, SimTime)> {
        self.admitting
    }

    /// The start waiting for admission leaves the wait.
    pub fn take_admitting(&mut self) -> Option<(TraceEvent, SimTime)> {
        self.admitting.take()
    }

    /// Admission refused the viewing of `video`.
    pub fn refuse(&mut self, video: u32) {
        self.refused = Some(video);
    }

    /// Admission admitted its viewing.
    pub fn admit(&mut self) {
        self.refused = None;
        self.admitted = true;
    }

    /// Its admitted viewing is over: whether there was one (to tell admission).
    pub fn release(&mut self) -> bool {
        std::mem::replace(&mut self.admitted, false)
    }
}
