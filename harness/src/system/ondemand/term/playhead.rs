//! Where a terminal's display is (SPIFFI §5.1): the frame it plays, the session's first
//! frame, and the anchor its playout is timed from (frame `base_frame` is displayed at
//! `base_time`, every later frame at its own time after it).

use crate::time::{SimDuration, SimTime};

/// A terminal's display position and the anchor of its playout.
pub(in crate::system::ondemand) struct Playhead {
    play: u64,
    start: u64,
    base_frame: u64,
    base_time: SimTime,
}

impl Playhead {
    pub fn new() -> Playhead {
        Playhead {
            play: 0,
            start: 0,
            base_frame: 0,
            base_time: SimTime::ZERO,
        }
    }

    /// The frame being played (every frame before it has been displayed).
    #[inline]
    pub fn play(&self) -> u64 {
        self.play
    }

    /// The session's first frame.
    #[inline]
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The frame the playout is timed from.
    #[inline]
    pub fn base_frame(&self) -> u64 {
        self.base_frame
    }

    /// When [`Self::base_frame`] is displayed.
    #[inline]
    pub fn base_time(&self) -> SimTime {
        self.base_time
    }

    /// A session begins at `frame`.
    pub fn begin(&mut self, frame: u64) {
        self.play = frame;
        self.start = frame;
        self.base_frame = frame;
    }

    /// Display starts now from the frame being played.
    pub fn anchor(&mut self, now: SimTime) {
        self.base_frame = self.play;
        self.base_time = now;
    }

    /// Every frame's display time moves by `d` (a pause that ended).
    pub fn shift(&mut self, d: SimDuration) {
        self.base_time += d;
    }

    /// The frame being played is `frame`.
    pub fn set_play(&mut self, frame: u64) {
        self.play = frame;
    }

    /// Play has reached `frame`, if it had not already.
    pub fn reach(&mut self, frame: u64) {
        self.play = frame.max(self.play);
    }
}
