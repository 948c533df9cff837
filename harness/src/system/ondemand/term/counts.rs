//! What one terminal measured: its glitches and stalled time in the measured period, the
//! videos it started, the bytes it received, its start-up latencies, and whether it has
//! displayed (for the automatic warm-up and `never_displayed`).

use crate::time::SimTime;

/// One terminal's own counts.
pub(in crate::system::ondemand) struct Counts {
    glitches: u64,
    stalled: u64,
    videos_started: u64,
    bytes_received: u64,
    startup_sum: u64,
    startups: u64,
    has_displayed: bool,
    /// Counted by the automatic warm-up: it displayed, or admission refused its first
    /// viewing (it will show nothing to wait for).
    warmed: bool,
    /// When the terminal first asked for a video (`SimTime::MAX`: not yet).
    first_request: SimTime,
}

impl Counts {
    pub fn new() -> Counts {
        Counts {
            glitches: 0,
            stalled: 0,
            videos_started: 0,
            bytes_received: 0,
            startup_sum: 0,
            startups: 0,
            has_displayed: false,
            warmed: false,
            first_request: SimTime::MAX,
        }
    }

    /// Glitches in the measured period.
    #[inline]
    pub fn glitches(&self) -> u64 {
        self.glitches
    }

    /// Stalled nanoseconds in the measured period.
    #[inline]
    pub fn stalled(&self) -> u64 {
        self.stalled
    }

    /// Videos started.
    #[inline]
    pub fn videos_started(&self) -> u64 {
        self.videos_started
    }

    /// Bytes received.
    #[inline]
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received
    }

    /// The mean start-up latency in the measured period (0 without one).
    pub fn startup_mean(&self) -> u64 {
        self.startup_sum.checked_div(self.startups).unwrap_or(0)
    }

    /// Whether it has displayed a frame.
    #[inline]
    pub fn has_displayed(&self) -> bool {
        self.has_displayed
    }

    /// When it first asked for a video (`SimTime::MAX`: not yet).
    #[inline]
    pub fn first_request(&self) -> SimTime {
        self.first_request
    }

    /// The measured period opened: its glitches and stalls count from now.
    pub fn restart(&mut self) {
        self.glitches = 0;
        self.stalled = 0;
    }

    /// A glitch in the measured period.
    pub fn glitch(&mut self) {
        self.glitches += 1;
    }

    /// `s` nanoseconds stalled in the measured period.
    pub fn stall(&mut self, s: u64) {
        self.stalled += s;
    }

    /// A video started, asked for at `asked`.
    pub fn started(&mut self, asked: SimTime) {
        self.videos_started += 1;
        self.first_request = self.first_request.min(asked);
    }

    /// The video started last did not begin after all.
    pub fn unstarted(&mut self) {
        self.videos_started -= 1;
    }

    /// `bytes` arrived.
    pub fn received(&mut self, bytes: u64) {
        self.bytes_received += bytes;
    }

    /// A start-up latency of `lat` nanoseconds in the measured period.
    pub fn startup(&mut self, lat: u64) {
        self.startup_sum += lat;
        self.startups += 1;
    }

    /// It displayed a frame.
    pub fn displayed(&mut self) {
        self.has_displayed = true;
    }

    /// Counts it for the warm-up: whether it was not counted yet.
    pub fn warm(&mut self) -> bool {
        !std::mem::replace(&mut self.warmed, true)
    }
}
