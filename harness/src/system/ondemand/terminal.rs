//! Video terminals (SPIFFI §5.1): prime, play, request whenever there is room, glitch, re-prime.
//!
//! A terminal reads one stripe block at a time and reserves memory for a block when it asks for
//! it. A frame leaves the buffer when its display starts; display needs all of the frame's
//! bytes, and the blocks before it, to have arrived. When a frame's display time comes before
//! its data, that is a glitch: the terminal stops and re-primes (fills its buffer, or
//! `terminals.prime` bytes) before resuming, as SPIFFI's terminals do.
//!
//! Trace events: `start` waits while the terminal is still playing (the closed loop of SPIFFI
//! §6); later events of that terminal wait behind it and keep their spacing (the terminal's
//! accumulated delay, `lag`, is added to them). `pause` stops display but not reading;
//! `resume` continues; `seek` drops the buffer and re-primes at the new position; `stop` ends
//! the video. `ff`/`rewind` start a visual search (SPIFFI §8.1, [`super::visual_search`]);
//! a start may wait for others to piggyback on it (SPIFFI §8.2, [`super::piggyback`]). Events
//! that make no sense in the terminal's state (a pause while idle, an event naming another
//! video) are counted in `events_ignored`.

use super::engine::{Ev, Req, Sim, NONE};
use super::stats::clip;
use crate::ids::{BlockId, TerminalId, VideoId};
use crate::plugin::Endpoint;
use crate::time::{mul_div_ceil, SimDuration, SimTime, NANOS_PER_SEC};
use crate::trace::EventKind;
use std::collections::VecDeque;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum TState {
    Idle,
    Priming,
    Playing,
    Paused,
    Stalled,
    /// Skip search: reading (or showing) one segment ([`super::visual_search`]).
    Searching,
    /// Piggyback: waiting for its group to start ([`super::piggyback`]).
    Waiting,
    /// Piggyback: watching its group's stream, reading nothing itself.
    Following,
}

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

pub(super) struct Term {
    pub state: TState,
    paused_from: TState,
    /// The object being read: the video itself or one of its search versions.
    pub(super) video: u32,
    /// The video as the trace names it.
    pub(super) title: u32,
    pub(super) search: Search,
    /// Piggyback: the pending group (`Waiting`) or the stream slot (`Following`).
    pub(super) group: u32,
    /// Piggyback: when this terminal asked for its video.
    pub(super) requested_at: SimTime,
    /// Piggyback stream slot: the terminals watching it (empty for real terminals).
    pub(super) members: Vec<u32>,
    epoch: u32,
    pub(super) first_block: u32,
    pub(super) next_block: u32,
    pub(super) frontier_block: u32,
    mask: u128,
    outstanding: u32,
    /// Skip search: no block at or past this one is requested (`u32::MAX` otherwise).
    pub(super) limit_block: u32,
    pub(super) play_frame: u64,
    start_frame: u64,
    base_frame: u64,
    base_time: SimTime,
    pub(super) prime_since: SimTime,
    prime_kind: PrimeKind,
    /// Generation of the terminal's pending wake-up: a `Wake` event carrying another one
    /// is stale and ignored.
    pub gen: u32,
    /// When the pending wake-up of generation `gen` fires (`SimTime::MAX`: none pending).
    pub wake_time: SimTime,
    deferred: VecDeque<u32>,
    lag: SimDuration,
    has_displayed: bool,
    /// When the terminal first asked for a video (`SimTime::MAX`: not yet).
    first_request: SimTime,
    pub stall_since: SimTime,
    pub(super) session_received: u64,
    pub glitches_measured: u64,
    pub stalled_measured: u64,
    pub videos_started: u64,
    pub bytes_received: u64,
    pub startup_sum: u64,
    pub startups: u64,
}

impl Term {
    /// Whether the terminal asked for a video before `t` and is still waiting for its first
    /// frame, having shown none (see `Glitches::never_displayed`).
    pub(super) fn never_displayed_since(&self, t: SimTime) -> bool {
        !self.has_displayed
            && self.first_request < t
            && matches!(
                self.state,
                TState::Priming | TState::Waiting | TState::Following
            )
    }

    /// Makes the pending wake-up, if any, stale.
    pub(super) fn cancel_wake(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        self.wake_time = SimTime::MAX;
    }

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
            first_request: SimTime::MAX,
            stall_since: SimTime::ZERO,
            session_received: 0,
            glitches_measured: 0,
            stalled_measured: 0,
            videos_started: 0,
            bytes_received: 0,
            startup_sum: 0,
            startups: 0,
        }
    }
}

impl Sim<'_> {
    // ----- byte/frame bookkeeping -------------------------------------------------------

    fn frontier_bytes(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        (u64::from(tm.frontier_block) * self.block_bytes)
            .min(self.lib.total_bytes(tm.video as usize))
    }

    fn freed_bytes(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        self.lib
            .offset(tm.video as usize, tm.play_frame)
            .max(u64::from(tm.first_block) * self.block_bytes)
    }

    /// Whether the bytes the terminal has freed (played, or skipped before its first block)
    /// reach `threshold`. Asked as "has play reached the first frame that ends at or past
    /// it" rather than by the play frame's byte offset: the threshold is usually a block
    /// boundary (memory is a whole number of blocks), which the library answers from a table,
    /// while the play frame's offset needs its GOP decoded — once per wake-up otherwise.
    fn freed_reach(&self, t: usize, threshold: u64) -> bool {
        let tm = &self.terms[t];
        u64::from(tm.first_block) * self.block_bytes >= threshold
            || tm.play_frame >= self.lib.first_frame_reaching(tm.video as usize, threshold)
    }

    fn requested_bytes(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        (u64::from(tm.next_block) * self.block_bytes).min(self.lib.total_bytes(tm.video as usize))
    }

    /// Frames of the object terminal `t` reads.
    pub(super) fn frames_of_term(&self, t: usize) -> u64 {
        self.lib.frames_of(self.terms[t].video as usize)
    }

    /// Display instant of frame `f` in the current playout.
    fn disp(&self, t: usize, f: u64) -> SimTime {
        let tm = &self.terms[t];
        tm.base_time + (self.lib.frame_time(f) - self.lib.frame_time(tm.base_frame))
    }

    /// Frames whose display has started by `now` in the current playout.
    pub(super) fn frames_started_by(&self, t: usize, now: SimTime) -> u64 {
        let tm = &self.terms[t];
        let target = self.lib.frame_time(tm.base_frame).as_nanos()
            + now.saturating_since(tm.base_time).as_nanos();
        let n = match target.checked_add(1) {
            Some(x) => mul_div_ceil(x, self.lib.fps(), NANOS_PER_SEC),
            None => (u128::from(target) + 1)
                .saturating_mul(u128::from(self.lib.fps()))
                .div_ceil(u128::from(NANOS_PER_SEC)) as u64,
        };
        n.min(self.frames_of_term(t))
    }

    /// Frames held entirely in the terminal's contiguous data.
    pub(super) fn frames_available(&self, t: usize) -> u64 {
        self.lib
            .frames_within(self.terms[t].video as usize, self.frontier_bytes(t))
    }

    /// Bytes a terminal holds right now (for sampling).
    pub(super) fn buffered_now(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        match tm.state {
            TState::Idle | TState::Waiting => return 0,
            TState::Following => return self.buffered_now(tm.group as usize),
            _ => {}
        }
        let frame = if tm.state == TState::Playing {
            self.frames_started_by(t, self.q.now())
                .min(self.frames_available(t))
                .max(tm.play_frame)
        } else {
            tm.play_frame
        };
        let freed = self
            .lib
            .offset(tm.video as usize, frame)
            .max(u64::from(tm.first_block) * self.block_bytes);
        let contiguous = self.frontier_bytes(t).saturating_sub(freed);
        // blocks past the frontier, each whole but the video's last, which may be short
        let mut ahead = u64::from(tm.mask.count_ones()) * self.block_bytes;
        let last = self.blocks[tm.video as usize].saturating_sub(1);
        if let Some(i) = last.checked_sub(tm.frontier_block) {
            if i < 128 && tm.mask >> i & 1 == 1 {
                ahead -= self.block_bytes - self.block_len(tm.video, last);
            }
        }
        contiguous + ahead
    }

    /// Bytes of the current session not yet consumed (end-of-run conservation).
    pub(super) fn session_buffered(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        if matches!(tm.state, TState::Idle | TState::Waiting | TState::Following) {
            return 0;
        }
        tm.session_received - self.session_consumed(t)
    }

    /// Bytes of the current session displayed so far (0 when idle).
    pub(super) fn session_consumed(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        if matches!(tm.state, TState::Idle | TState::Waiting | TState::Following) {
            return 0;
        }
        let v = tm.video as usize;
        self.lib.offset(v, tm.play_frame) - self.lib.offset(v, tm.start_frame)
    }

    /// Adds stalled time `s` to the terminal, or to every member of a piggyback stream.
    fn add_stall(&mut self, t: usize, s: u64) {
        if s == 0 {
            return;
        }
        if t < self.n_real {
            self.terms[t].stalled_measured += s;
            self.acc.stalled += s;
        } else {
            for i in 0..self.terms[t].members.len() {
                let m = self.terms[t].members[i] as usize;
                self.terms[m].stalled_measured += s;
                self.acc.stalled += s;
            }
        }
    }

    /// Closes the current session's byte accounting.
    pub(super) fn end_session(&mut self, t: usize) {
        if self.terms[t].state == TState::Idle {
            return;
        }
        let consumed = self.session_consumed(t);
        let tm = &mut self.terms[t];
        self.cons.consumed_bytes += consumed;
        self.cons.discarded_bytes += tm.session_received - consumed;
        tm.session_received = 0;
        tm.epoch = tm.epoch.wrapping_add(1);
        tm.outstanding = 0;
        tm.cancel_wake();
        if tm.state == TState::Stalled {
            let s = clip(tm.stall_since, self.q.now(), self.acc.window);
            self.add_stall(t, s);
        }
    }

    /// Starts a new session at `position` of (normal) `video`; `false` if the position is
    /// past the end.
    pub(super) fn begin_session(
        &mut self,
        t: usize,
        video: u32,
        position: SimDuration,
        kind: PrimeKind,
    ) -> bool {
        self.terms[t].title = video;
        self.begin_at(t, video, self.lib.frame_at(position), kind)
    }

    /// Starts a new session at frame `frame` of object `video` (a video or a search
    /// version); `false` if the frame is past its end.
    pub(super) fn begin_at(&mut self, t: usize, video: u32, frame: u64, kind: PrimeKind) -> bool {
        if !self.setup_session(t, video, frame, kind) {
            return false;
        }
        self.fill(t);
        self.check_prime(t);
        true
    }

    /// [`Self::begin_at`] without requesting anything yet: the caller adjusts the session
    /// (a read limit, a start-up time) and then fills.
    pub(super) fn setup_session(
        &mut self,
        t: usize,
        video: u32,
        frame: u64,
        kind: PrimeKind,
    ) -> bool {
        if frame >= self.lib.frames_of(video as usize) {
            return false;
        }
        let now = self.q.now();
        let block = (self.lib.offset(video as usize, frame) / self.block_bytes) as u32;
        let tm = &mut self.terms[t];
        tm.video = video;
        tm.search = Search::None;
        tm.limit_block = u32::MAX;
        tm.first_block = block;
        tm.next_block = block;
        tm.frontier_block = block;
        tm.mask = 0;
        tm.outstanding = 0;
        tm.play_frame = frame;
        tm.start_frame = frame;
        tm.base_frame = frame;
        tm.state = TState::Priming;
        tm.prime_kind = kind;
        tm.prime_since = now;
        tm.session_received = 0;
        tm.cancel_wake();
        true
    }

    // ----- requests -------------------------------------------------------------------

    pub(super) fn can_request(&self, t: usize) -> bool {
        let tm = &self.terms[t];
        if matches!(tm.state, TState::Idle | TState::Waiting | TState::Following)
            || tm.next_block >= self.blocks[tm.video as usize]
            || tm.next_block >= tm.limit_block
        {
            return false;
        }
        if tm.next_block - tm.frontier_block >= 128 {
            return false;
        }
        self.freed_reach(t, self.room_threshold(t))
    }

    /// The bytes the terminal must have freed before the next block fits in its memory
    /// (requested − freed + the block's length <= memory).
    fn room_threshold(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        (self.requested_bytes(t) + self.block_len(tm.video, tm.next_block))
            .saturating_sub(self.term_memory)
    }

    pub(super) fn fill(&mut self, t: usize) {
        while self.can_request(t) {
            self.issue(t);
        }
    }

    fn issue(&mut self, t: usize) {
        let now = self.q.now();
        let tm = &self.terms[t];
        let video = tm.video;
        let index = tm.next_block;
        let block = BlockId {
            video: VideoId(video),
            index,
        };
        // first frame that needs this block
        let f0 = self
            .lib
            .first_frame_reaching(video as usize, u64::from(index) * self.block_bytes + 1)
            .saturating_sub(1)
            .max(tm.play_frame);
        let deadline = if tm.state == TState::Playing {
            self.disp(t, f0)
        } else {
            now + (self.lib.frame_time(f0) - self.lib.frame_time(tm.play_frame))
        };
        let loc = self.layout.locate(block);
        let bytes = self.block_len(video, index);
        let req = Req {
            terminal: t as u32,
            epoch: tm.epoch,
            block,
            node: loc.node.0,
            disk: loc.disk.0,
            page: NONE,
            bytes,
            deadline,
            next_waiter: NONE,
            counted: false,
            stage: 0,
        };
        if loc.node.index() >= self.nodes.len() || loc.disk.index() >= self.disks.len() {
            let name = self.scenario.plugins.layout.name;
            self.fail(
                "layout",
                name,
                format!(
                    "placed block {index} of video {video} on node {} disk {}, which do not exist",
                    loc.node, loc.disk
                ),
            );
            self.terms[t].next_block += 1;
            return;
        }
        let r = if let Some(i) = self.free_reqs.pop() {
            self.reqs[i as usize] = req;
            i
        } else {
            self.reqs.push(req);
            (self.reqs.len() - 1) as u32
        };
        let tm = &mut self.terms[t];
        tm.next_block += 1;
        tm.outstanding += 1;
        self.cons.issued += 1;
        let request_bytes = self.scenario.file.server.network.request_bytes.0;
        let (from, to) = (
            Endpoint::Terminal(TerminalId(t as u32)),
            Endpoint::Node(loc.node),
        );
        let at = now + self.wire(from, to, request_bytes);
        self.q.schedule(at, Ev::ReqAtNode(r));
    }

    /// Data for request `r` reached its terminal.
    pub(super) fn arrive(&mut self, r: u32) {
        self.unpin(r);
        let req = self.reqs[r as usize];
        self.free_reqs.push(r);
        self.in_transit_bytes -= req.bytes;
        self.cons.delivered += 1;
        self.cons.received_bytes += req.bytes;
        let t = req.terminal as usize;
        let tm = &mut self.terms[t];
        tm.bytes_received += req.bytes;
        if req.epoch != tm.epoch || tm.state == TState::Idle {
            self.cons.discarded_bytes += req.bytes;
            return;
        }
        tm.outstanding -= 1;
        tm.session_received += req.bytes;
        let i = req.block.index - tm.frontier_block;
        tm.mask |= 1u128 << i;
        while tm.mask & 1 == 1 {
            tm.mask >>= 1;
            tm.frontier_block += 1;
        }
        match tm.state {
            TState::Priming | TState::Stalled | TState::Searching => self.check_prime(t),
            TState::Playing => self.schedule_wake(t),
            TState::Paused | TState::Idle | TState::Waiting | TState::Following => {}
        }
        self.fill(t);
    }

    // ----- playout --------------------------------------------------------------------

    /// Whether the terminal has read all it must before display (the whole buffer, or
    /// `terminals.prime` bytes and the whole of the frame it shows first, or the rest of
    /// the video).
    ///
    /// `terminals.prime` can be smaller than a frame. Display cannot start without its
    /// first frame: it would glitch at once, re-prime at once and never let time advance.
    fn primed(&self, t: usize) -> bool {
        let tm = &self.terms[t];
        let at_end = tm.frontier_block >= self.blocks[tm.video as usize];
        at_end
            || match self.prime_bytes {
                Some(p) => {
                    self.frontier_bytes(t).saturating_sub(self.freed_bytes(t)) >= p
                        && self.frames_available(t) > tm.play_frame
                }
                None => tm.outstanding == 0 && !self.can_request(t),
            }
    }

    pub(super) fn check_prime(&mut self, t: usize) {
        let tm = &self.terms[t];
        if tm.state == TState::Searching {
            self.segment_check(t);
            return;
        }
        if !matches!(tm.state, TState::Priming | TState::Stalled) {
            return;
        }
        if self.primed(t) {
            self.start_display(t);
        }
    }

    /// Records a start-up latency (display start after a start, a seek or a search).
    fn record_startup(&mut self, t: usize, lat: u64) {
        if self.acc.measuring {
            self.acc.startup.record(lat);
            self.terms[t].startup_sum += lat;
            self.terms[t].startups += 1;
        }
    }

    fn start_display(&mut self, t: usize) {
        let now = self.q.now();
        let window = self.acc.window;
        let tm = &mut self.terms[t];
        match tm.prime_kind {
            PrimeKind::Glitch => {
                let s = clip(tm.stall_since, now, window);
                self.add_stall(t, s);
            }
            PrimeKind::Start | PrimeKind::Seek if t >= self.n_real => {
                // a piggyback stream: every member waited since its own request
                for i in 0..self.terms[t].members.len() {
                    let m = self.terms[t].members[i] as usize;
                    let lat = now.saturating_since(self.terms[m].requested_at).as_nanos();
                    self.record_startup(m, lat);
                }
            }
            PrimeKind::Start | PrimeKind::Seek => {
                let lat = now.saturating_since(tm.prime_since).as_nanos();
                self.record_startup(t, lat);
            }
        }
        let tm = &mut self.terms[t];
        tm.state = TState::Playing;
        tm.base_frame = tm.play_frame;
        tm.base_time = now;
        let first = !tm.has_displayed;
        tm.has_displayed = true;
        self.schedule_wake(t);
        if t >= self.n_real {
            for i in 0..self.terms[t].members.len() {
                let m = self.terms[t].members[i] as usize;
                if !self.terms[m].has_displayed {
                    self.terms[m].has_displayed = true;
                    self.first_display();
                }
            }
        } else if first {
            self.first_display();
        }
    }

    fn schedule_wake(&mut self, t: usize) {
        let tm = &self.terms[t];
        let v = tm.video as usize;
        let frames = self.lib.frames_of(v);
        let avail = self.frames_available(t);
        let need = if avail < frames {
            self.disp(t, avail)
        } else {
            self.disp(t, frames)
        };
        let mut wake = need;
        if tm.next_block < self.blocks[v] && tm.next_block - tm.frontier_block < 128 {
            let threshold = self.room_threshold(t);
            if !self.freed_reach(t, threshold) {
                let n = self.lib.first_frame_reaching(v, threshold);
                if n >= 1 {
                    wake = wake.min(self.disp(t, n - 1));
                }
            }
        }
        let now = self.q.now();
        self.wake_at(t, wake.max(now));
    }

    /// Schedules a wake-up of terminal `t` at `at` (cancelling earlier ones). When the
    /// pending wake-up is already at `at` it stays, so no stale event is queued.
    pub(super) fn wake_at(&mut self, t: usize, at: SimTime) {
        let tm = &mut self.terms[t];
        if tm.wake_time == at {
            return;
        }
        tm.cancel_wake();
        tm.wake_time = at;
        self.q.schedule(at, Ev::Wake(t as u32, tm.gen));
    }

    /// Starts showing frames from `play_frame` now (a skip-search segment); returns when
    /// frame `end` would be displayed.
    pub(super) fn show_now(&mut self, t: usize, end: u64) -> SimTime {
        let now = self.q.now();
        let tm = &mut self.terms[t];
        tm.base_frame = tm.play_frame;
        tm.base_time = now;
        self.disp(t, end)
    }

    /// Whether every request of the session has arrived.
    pub(super) fn all_arrived(&self, t: usize) -> bool {
        self.terms[t].outstanding == 0
    }

    pub(super) fn wake(&mut self, t: usize) {
        match self.terms[t].state {
            TState::Playing => self.advance(t),
            TState::Searching => self.segment_wake(t),
            _ => {}
        }
    }

    /// Consumes frames up to now; detects a glitch or the end of the video.
    fn advance(&mut self, t: usize) {
        let now = self.q.now();
        let frames = self.frames_of_term(t);
        let taken = self.frames_started_by(t, now);
        let avail = self.frames_available(t);
        if taken > avail && avail < frames {
            self.glitch(t, avail);
            return;
        }
        self.terms[t].play_frame = taken.min(frames).max(self.terms[t].play_frame);
        if self.terms[t].play_frame >= frames && now >= self.disp(t, frames) {
            self.end_video(t);
            return;
        }
        self.fill(t);
        self.schedule_wake(t);
    }

    fn glitch(&mut self, t: usize, frame: u64) {
        let now = self.q.now();
        let measuring = self.acc.measuring;
        let tm = &mut self.terms[t];
        tm.play_frame = frame.max(tm.play_frame);
        tm.state = TState::Stalled;
        tm.prime_kind = PrimeKind::Glitch;
        tm.stall_since = now;
        tm.cancel_wake();
        if measuring {
            // a piggyback stream's glitch is a glitch at every member's screen
            let n = if t < self.n_real {
                self.terms[t].glitches_measured += 1;
                1
            } else {
                for i in 0..self.terms[t].members.len() {
                    let m = self.terms[t].members[i] as usize;
                    self.terms[m].glitches_measured += 1;
                }
                self.terms[t].members.len() as u64
            };
            self.acc.glitches += n;
            if n > 0 {
                self.acc.first_glitch.get_or_insert(now);
            }
        }
        self.fill(t);
        self.check_prime(t);
    }

    /// The object being read ran out.
    fn end_video(&mut self, t: usize) {
        if t >= self.n_real {
            self.end_stream(t);
            return;
        }
        if let Search::Version { forward } = self.terms[t].search {
            self.end_session(t);
            if !forward {
                // the rewind version ran out: the movie's beginning; play from there
                let title = self.terms[t].title;
                self.begin_at(t, title, 0, PrimeKind::Seek);
                return;
            }
        } else {
            self.end_session(t);
        }
        self.terms[t].state = TState::Idle;
        self.terms[t].search = Search::None;
        self.drain(t);
    }

    /// The terminal's position in its (normal) video now, as a frame.
    pub(super) fn position_now(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        match tm.state {
            TState::Idle | TState::Waiting => 0,
            TState::Following => self.position_now(tm.group as usize),
            TState::Searching => match tm.search {
                Search::Skip {
                    seg_start,
                    seg_end,
                    showing,
                    ..
                } => {
                    if showing {
                        self.frames_started_by(t, self.q.now())
                            .min(seg_end)
                            .max(seg_start)
                    } else {
                        seg_start
                    }
                }
                _ => tm.play_frame,
            },
            _ => {
                let f = if tm.state == TState::Playing {
                    self.frames_started_by(t, self.q.now())
                        .min(self.frames_available(t))
                        .max(tm.play_frame)
                } else {
                    tm.play_frame
                };
                match tm.search {
                    Search::Version { forward } => self.movie_position(forward, f),
                    _ => f,
                }
            }
        }
    }

    /// Ends whatever terminal `t` is doing (a session, a search, a piggyback group) at
    /// its current position, which it returns, leaving it idle without running its
    /// deferred events. Frames shown up to now count as consumed.
    fn detach(&mut self, t: usize) -> u64 {
        let pos = self.position_now(t);
        match self.terms[t].state {
            TState::Idle => {}
            TState::Waiting | TState::Following => self.leave_group(t),
            _ => {
                let shown = match (self.terms[t].state, self.terms[t].search) {
                    (TState::Playing, _) => Some(
                        self.frames_started_by(t, self.q.now())
                            .min(self.frames_available(t)),
                    ),
                    (
                        TState::Searching,
                        Search::Skip {
                            showing: true,
                            seg_end,
                            ..
                        },
                    ) => Some(self.frames_started_by(t, self.q.now()).min(seg_end)),
                    _ => None,
                };
                if let Some(f) = shown {
                    let tm = &mut self.terms[t];
                    tm.play_frame = f.max(tm.play_frame);
                }
                self.end_session(t);
            }
        }
        let tm = &mut self.terms[t];
        tm.state = TState::Idle;
        tm.search = Search::None;
        tm.cancel_wake();
        pos
    }

    /// Starts normal play of the terminal's video at frame `pos` (after a search or on
    /// leaving a group); past the end, the video ends.
    pub(super) fn play_from(&mut self, t: usize, pos: u64) {
        let title = self.terms[t].title;
        if !self.begin_at(t, title, pos, PrimeKind::Seek) {
            self.terms[t].state = TState::Idle;
            self.drain(t);
        }
    }

    // ----- trace events ---------------------------------------------------------------

    pub(super) fn trace_event(&mut self, i: usize, delayed: bool) {
        let e = self.events[i];
        let t = e.terminal.index();
        let tm = &mut self.terms[t];
        if !tm.deferred.is_empty() || (e.kind == EventKind::Start && tm.state != TState::Idle) {
            tm.deferred.push_back(i as u32);
            return;
        }
        if !delayed && tm.lag > SimDuration::ZERO {
            self.q.schedule(e.time + tm.lag, Ev::Delayed(i as u32));
            return;
        }
        self.apply(i);
    }

    /// Runs deferred events of an idle terminal.
    pub(super) fn drain(&mut self, t: usize) {
        let now = self.q.now();
        while let Some(&i) = self.terms[t].deferred.front() {
            let e = self.events[i as usize];
            if e.kind == EventKind::Start && self.terms[t].state != TState::Idle {
                return;
            }
            let due = e.time + self.terms[t].lag;
            if e.kind == EventKind::Start && due <= now {
                // the start waited: everything after it shifts by the same delay
                self.terms[t].lag = now.saturating_since(e.time);
            } else if due > now {
                // the rest keep their trace spacing
                let rest: Vec<u32> = self.terms[t].deferred.drain(..).collect();
                for j in rest {
                    let due = self.events[j as usize].time + self.terms[t].lag;
                    self.q.schedule(due.max(now), Ev::Delayed(j));
                }
                return;
            }
            self.terms[t].deferred.pop_front();
            self.apply(i as usize);
        }
    }

    fn apply(&mut self, i: usize) {
        let e = self.events[i];
        let t = e.terminal.index();
        let now = self.q.now();
        let state = self.terms[t].state;
        let same_video = state != TState::Idle && self.terms[t].title == e.video.0;
        // a search, or a piggyback group, is left for any event but its own kind
        let special = state == TState::Searching
            || matches!(self.terms[t].search, Search::Version { .. })
            || matches!(state, TState::Waiting | TState::Following);
        match e.kind {
            EventKind::Start => {
                debug_assert_eq!(state, TState::Idle);
                if self.acc.measuring {
                    self.acc.videos_started += 1;
                }
                self.terms[t].videos_started += 1;
                let first = &mut self.terms[t].first_request;
                *first = (*first).min(now);
                if self.piggyback_start(t, e.video.0, e.position) {
                    return;
                }
                if !self.begin_session(t, e.video.0, e.position, PrimeKind::Start) {
                    self.terms[t].videos_started -= 1;
                    if self.acc.measuring {
                        self.acc.videos_started -= 1;
                    }
                    self.acc.events_ignored += 1;
                    self.terms[t].state = TState::Idle;
                }
            }
            EventKind::Pause => {
                if !same_video || state == TState::Paused {
                    self.acc.events_ignored += 1;
                    return;
                }
                if special {
                    // stop searching (or leave the group) and pause where it got to
                    let pos = self.detach(t);
                    self.play_from(t, pos);
                    if self.terms[t].state == TState::Idle {
                        return;
                    }
                }
                if self.terms[t].state == TState::Playing {
                    self.advance(t);
                    if self.terms[t].state == TState::Idle {
                        return; // the video ended at this very instant
                    }
                }
                let tm = &mut self.terms[t];
                if tm.state == TState::Stalled {
                    let s = clip(tm.stall_since, now, self.acc.window);
                    tm.stalled_measured += s;
                    self.acc.stalled += s;
                }
                tm.paused_from = tm.state;
                tm.state = TState::Paused;
                tm.cancel_wake();
            }
            EventKind::Resume => {
                if same_video
                    && (state == TState::Searching
                        || matches!(self.terms[t].search, Search::Version { .. }))
                {
                    // end of a search: re-prime normal play where it got to
                    let pos = self.detach(t);
                    self.play_from(t, pos);
                    return;
                }
                if !same_video || state != TState::Paused {
                    self.acc.events_ignored += 1;
                    return;
                }
                let tm = &mut self.terms[t];
                tm.state = tm.paused_from;
                match tm.state {
                    TState::Playing => {
                        tm.base_frame = tm.play_frame;
                        tm.base_time = now;
                        self.schedule_wake(t);
                    }
                    TState::Stalled => {
                        tm.stall_since = now;
                        self.fill(t);
                        self.check_prime(t);
                    }
                    _ => {
                        self.fill(t);
                        self.check_prime(t);
                    }
                }
            }
            EventKind::Seek => {
                if !same_video {
                    self.acc.events_ignored += 1;
                    return;
                }
                if special {
                    self.detach(t);
                } else {
                    self.end_session(t);
                }
                if !self.begin_session(t, e.video.0, e.position, PrimeKind::Seek) {
                    self.acc.events_ignored += 1;
                    self.terms[t].state = TState::Idle;
                    self.drain(t);
                }
            }
            EventKind::Stop => {
                if !same_video {
                    self.acc.events_ignored += 1;
                    return;
                }
                if special {
                    self.detach(t);
                } else {
                    self.end_session(t);
                }
                self.terms[t].state = TState::Idle;
                self.drain(t);
            }
            EventKind::FastForward | EventKind::Rewind => {
                let forward = e.kind == EventKind::FastForward;
                let already = match self.terms[t].search {
                    Search::Skip { forward: f, .. } | Search::Version { forward: f } => Some(f),
                    Search::None => None,
                };
                if !same_video || already == Some(forward) {
                    self.acc.events_ignored += 1;
                    return;
                }
                let pos = self.detach(t);
                self.acc.searches += u64::from(self.acc.measuring);
                self.start_search(t, pos, forward);
            }
        }
    }
}
