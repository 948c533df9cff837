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
//! the video. Events that make no sense in the terminal's state (a pause while idle, an event
//! naming another video) are counted in `events_ignored`.

use super::engine::{Ev, Req, Sim, NONE};
use super::stats::clip;
use crate::ids::{BlockId, VideoId};
use crate::time::{SimDuration, SimTime, NANOS_PER_SEC};
use crate::trace::EventKind;
use std::collections::VecDeque;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum TState {
    Idle,
    Priming,
    Playing,
    Paused,
    Stalled,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum PrimeKind {
    Start,
    Seek,
    Glitch,
}

pub(super) struct Term {
    pub state: TState,
    paused_from: TState,
    video: u32,
    epoch: u32,
    first_block: u32,
    next_block: u32,
    frontier_block: u32,
    mask: u128,
    outstanding: u32,
    play_frame: u64,
    start_frame: u64,
    base_frame: u64,
    base_time: SimTime,
    prime_since: SimTime,
    prime_kind: PrimeKind,
    pub gen: u32,
    deferred: VecDeque<u32>,
    lag: SimDuration,
    has_displayed: bool,
    pub stall_since: SimTime,
    session_received: u64,
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
            epoch: 0,
            first_block: 0,
            next_block: 0,
            frontier_block: 0,
            mask: 0,
            outstanding: 0,
            play_frame: 0,
            start_frame: 0,
            base_frame: 0,
            base_time: SimTime::ZERO,
            prime_since: SimTime::ZERO,
            prime_kind: PrimeKind::Start,
            gen: 0,
            deferred: VecDeque::new(),
            lag: SimDuration::ZERO,
            has_displayed: false,
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

    /// Display instant of frame `f` in the current playout.
    fn disp(&self, t: usize, f: u64) -> SimTime {
        let tm = &self.terms[t];
        tm.base_time + (self.lib.frame_time(f) - self.lib.frame_time(tm.base_frame))
    }

    /// Frames whose display has started by `now` in the current playout.
    fn frames_started_by(&self, t: usize, now: SimTime) -> u64 {
        let tm = &self.terms[t];
        let target = self.lib.frame_time(tm.base_frame).as_nanos()
            + now.saturating_since(tm.base_time).as_nanos();
        let n = ((u128::from(target) + 1) * u128::from(self.lib.fps()))
            .div_ceil(u128::from(NANOS_PER_SEC));
        (n as u64).min(self.lib.frames())
    }

    /// Bytes a terminal holds right now (for sampling).
    pub(super) fn buffered_now(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        if tm.state == TState::Idle {
            return 0;
        }
        let frame = if tm.state == TState::Playing {
            self.frames_started_by(t, self.q.now())
                .min(
                    self.lib
                        .frames_within(tm.video as usize, self.frontier_bytes(t)),
                )
                .max(tm.play_frame)
        } else {
            tm.play_frame
        };
        let freed = self
            .lib
            .offset(tm.video as usize, frame)
            .max(u64::from(tm.first_block) * self.block_bytes);
        let contiguous = self.frontier_bytes(t).saturating_sub(freed);
        contiguous + u64::from(tm.mask.count_ones()) * self.block_bytes
    }

    /// Bytes of the current session not yet consumed (end-of-run conservation).
    pub(super) fn session_buffered(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        if tm.state == TState::Idle {
            return 0;
        }
        tm.session_received - self.session_consumed(t)
    }

    /// Bytes of the current session displayed so far (0 when idle).
    pub(super) fn session_consumed(&self, t: usize) -> u64 {
        let tm = &self.terms[t];
        if tm.state == TState::Idle {
            return 0;
        }
        let v = tm.video as usize;
        self.lib.offset(v, tm.play_frame) - self.lib.offset(v, tm.start_frame)
    }

    /// Closes the current session's byte accounting.
    fn end_session(&mut self, t: usize) {
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
        tm.gen = tm.gen.wrapping_add(1);
        if tm.state == TState::Stalled {
            let s = clip(tm.stall_since, self.q.now(), self.acc.window);
            tm.stalled_measured += s;
            self.acc.stalled += s;
        }
    }

    /// Starts a new session at `position` of `video`; `false` if the position is past the end.
    fn begin_session(
        &mut self,
        t: usize,
        video: u32,
        position: SimDuration,
        kind: PrimeKind,
    ) -> bool {
        let frame = self.lib.frame_at(position);
        if frame >= self.lib.frames() {
            return false;
        }
        let now = self.q.now();
        let block = (self.lib.offset(video as usize, frame) / self.block_bytes) as u32;
        let tm = &mut self.terms[t];
        tm.video = video;
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
        tm.gen = tm.gen.wrapping_add(1);
        self.fill(t);
        self.check_prime(t);
        true
    }

    // ----- requests -------------------------------------------------------------------

    fn can_request(&self, t: usize) -> bool {
        let tm = &self.terms[t];
        if tm.state == TState::Idle || tm.next_block >= self.blocks[tm.video as usize] {
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

    fn fill(&mut self, t: usize) {
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
        let at = now + self.wire(self.scenario.file.server.network.request_bytes.0);
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
            TState::Priming | TState::Stalled => self.check_prime(t),
            TState::Playing => self.schedule_wake(t),
            TState::Paused | TState::Idle => {}
        }
        self.fill(t);
    }

    // ----- playout --------------------------------------------------------------------

    fn check_prime(&mut self, t: usize) {
        let tm = &self.terms[t];
        if !matches!(tm.state, TState::Priming | TState::Stalled) {
            return;
        }
        let at_end = tm.frontier_block >= self.blocks[tm.video as usize];
        let ready = at_end
            || match self.prime_bytes {
                Some(p) => self.frontier_bytes(t).saturating_sub(self.freed_bytes(t)) >= p,
                None => tm.outstanding == 0 && !self.can_request(t),
            };
        if ready {
            self.start_display(t);
        }
    }

    fn start_display(&mut self, t: usize) {
        let now = self.q.now();
        let window = self.acc.window;
        let measuring = self.acc.measuring;
        let tm = &mut self.terms[t];
        match tm.prime_kind {
            PrimeKind::Glitch => {
                let s = clip(tm.stall_since, now, window);
                tm.stalled_measured += s;
                self.acc.stalled += s;
            }
            PrimeKind::Start | PrimeKind::Seek => {
                let lat = now.saturating_since(tm.prime_since).as_nanos();
                if measuring {
                    self.acc.startup.record(lat);
                    tm.startup_sum += lat;
                    tm.startups += 1;
                }
            }
        }
        tm.state = TState::Playing;
        tm.base_frame = tm.play_frame;
        tm.base_time = now;
        let first = !tm.has_displayed;
        tm.has_displayed = true;
        self.schedule_wake(t);
        if first {
            self.first_display();
        }
    }

    fn schedule_wake(&mut self, t: usize) {
        let tm = &self.terms[t];
        let v = tm.video as usize;
        let frames = self.lib.frames();
        let avail = self.lib.frames_within(v, self.frontier_bytes(t));
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
        let tm = &mut self.terms[t];
        tm.gen = tm.gen.wrapping_add(1);
        self.q.schedule(wake.max(now), Ev::Wake(t as u32, tm.gen));
    }

    pub(super) fn wake(&mut self, t: usize) {
        if self.terms[t].state != TState::Playing {
            return;
        }
        self.advance(t);
    }

    /// Consumes frames up to now; detects a glitch or the end of the video.
    fn advance(&mut self, t: usize) {
        let now = self.q.now();
        let v = self.terms[t].video as usize;
        let frames = self.lib.frames();
        let taken = self.frames_started_by(t, now);
        let avail = self.lib.frames_within(v, self.frontier_bytes(t));
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
        tm.gen = tm.gen.wrapping_add(1);
        if measuring {
            tm.glitches_measured += 1;
            self.acc.glitches += 1;
            self.acc.first_glitch.get_or_insert(now);
        }
        self.fill(t);
        self.check_prime(t);
    }

    fn end_video(&mut self, t: usize) {
        self.end_session(t);
        self.terms[t].state = TState::Idle;
        self.drain(t);
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
    fn drain(&mut self, t: usize) {
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
        let same_video = state != TState::Idle && self.terms[t].video == e.video.0;
        match e.kind {
            EventKind::Start => {
                debug_assert_eq!(state, TState::Idle);
                if self.begin_session(t, e.video.0, e.position, PrimeKind::Start) {
                    self.terms[t].videos_started += 1;
                    if self.acc.measuring {
                        self.acc.videos_started += 1;
                    }
                } else {
                    self.acc.events_ignored += 1;
                    self.terms[t].state = TState::Idle;
                }
            }
            EventKind::Pause => {
                if !same_video || state == TState::Paused {
                    self.acc.events_ignored += 1;
                    return;
                }
                if state == TState::Playing {
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
                tm.gen = tm.gen.wrapping_add(1);
            }
            EventKind::Resume => {
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
                self.end_session(t);
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
                self.end_session(t);
                self.terms[t].state = TState::Idle;
                self.drain(t);
            }
        }
    }
}
