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
use crate::system::ondemand::spec::{ScenarioError, SearchMode, Warmup};
use crate::time::{SimDuration, SimTime};
use crate::trace::{EventKind, TraceEvent};

/// What the terminals are configured with.
pub(super) struct TerminalConfig {
    /// Real terminals (`terminals.count`).
    pub count: usize,
    /// `[terminals.rounds]`: blocks per set, and with `issue = "latest"` the lead.
    pub rounds: Option<(u32, Option<SimDuration>)>,
    /// Each terminal's buffer memory.
    pub memory: u64,
    /// `terminals.prime`.
    pub prime: Option<u64>,
    /// A read request message's size (`server.network.request_bytes`).
    pub request_bytes: u64,
    /// The videos' mean bit rate (what admission is told).
    pub bit_rate: u64,
    /// Stripe block size.
    pub block_bytes: u64,
    /// How the measured period starts.
    pub warmup: Warmup,
    /// Whether the summary reports searches (`[interactive]` present, or `ff`/`rewind`
    /// events in the workload).
    pub report_searches: bool,
    /// `[server.interface_cpu] client_packet`: the packet's bytes and δ_I, its playout time.
    pub client_packet: Option<(u64, SimDuration)>,
    /// `[server.rounds]`: the round clock, not the buffer's room, drives the requests.
    pub server_rounds: bool,
}

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
    pub fn new(
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

    // ----- the workload ------------------------------------------------------------------

    /// Takes the next workload event from the stream, if any, and schedules it at its time.
    /// An error reading it ends the workload and is kept for the engine
    /// ([`Terminals::take_read_error`]).
    pub fn schedule_next_trace(&mut self, p: &mut Ports) {
        if self.read_error.is_some() {
            return;
        }
        match self.events.next() {
            Some(Ok(e)) => {
                let slot = self.pending.put(e);
                p.q.schedule(e.time, Ev::Trace(slot));
            }
            Some(Err(e)) => self.read_error = Some(e),
            None => {}
        }
    }

    /// The error that ended the workload's stream, if one did (taken once).
    pub fn take_read_error(&mut self) -> Option<ScenarioError> {
        self.read_error.take()
    }

    /// The pending workload event in `slot`.
    #[inline]
    fn event(&self, slot: u32) -> TraceEvent {
        self.pending.slots[slot as usize]
    }

    /// Applies the pending workload event in `slot` and frees the slot.
    fn apply_slot(&mut self, slot: u32, p: &mut Ports) {
        let e = self.event(slot);
        self.pending.release(slot);
        self.apply(e, p);
    }

    /// The workload event in `slot` is due (`delayed`: after waiting for its terminal).
    pub fn trace_event(&mut self, slot: u32, delayed: bool, p: &mut Ports) {
        let e = self.event(slot);
        let t = e.terminal.index();
        let tm = &mut self.terms[t];
        if !tm.deferred.is_empty()
            || tm.admitting.is_some()
            || (e.kind == EventKind::Start && tm.state != TState::Idle)
        {
            tm.deferred.push_back(slot);
            return;
        }
        if !delayed && tm.lag > SimDuration::ZERO {
            p.q.schedule(e.time + tm.lag, Ev::Delayed(slot));
            return;
        }
        self.apply_slot(slot, p);
    }

    /// Runs deferred events of an idle terminal (its viewing, if admission counted one, is
    /// over).
    fn drain(&mut self, t: usize, p: &mut Ports) {
        let now = p.now();
        if self.terms[t].admitted && self.terms[t].state == TState::Idle {
            self.terms[t].admitted = false;
            p.admission.ended(t as u32, now, &p.period.w);
        }
        while let Some(&i) = self.terms[t].deferred.front() {
            let e = self.event(i);
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
                    let due = self.event(j).time + self.terms[t].lag;
                    p.q.schedule(due.max(now), Ev::Delayed(j));
                }
                return;
            }
            self.terms[t].deferred.pop_front();
            self.apply_slot(i, p);
        }
    }

    /// Admission decided on terminal `e.terminal`'s `start` `e`, asked for at `asked` (now,
    /// or earlier when the decision waited for probes): a refused viewing shows nothing, an
    /// admitted one begins, its start-up latency counted from `asked`.
    fn start_decided(&mut self, e: TraceEvent, asked: SimTime, admitted: bool, p: &mut Ports) {
        let t = e.terminal.index();
        let now = p.now();
        let measuring = p.w().measuring;
        if !admitted {
            self.terms[t].refused = Some(e.video.0);
            if !self.terms[t].warmed {
                // nothing to wait for: the warm-up counts it as started
                self.terms[t].warmed = true;
                self.first_display(p);
            }
            return;
        }
        self.terms[t].refused = None;
        self.terms[t].admitted = true;
        if measuring {
            self.videos_started += 1;
        }
        self.terms[t].videos_started += 1;
        let first = &mut self.terms[t].first_request;
        *first = (*first).min(asked);
        if self.piggyback_start(t, e.video.0, e.position, p) {
            self.terms[t].requested_at = asked;
            return;
        }
        let begun = self.begin_session(t, e.video.0, e.position, PrimeKind::Start, p);
        if begun && self.terms[t].state == TState::Priming {
            // the wait for admission's probes is part of the start-up
            self.terms[t].prime_since = asked;
        }
        if !begun {
            self.terms[t].videos_started -= 1;
            if measuring {
                self.videos_started -= 1;
            }
            self.events_ignored += 1;
            self.terms[t].state = TState::Idle;
            self.terms[t].admitted = false;
            p.admission.ended(t as u32, now, &p.period.w);
        }
    }

    /// Admission probe `m`'s reply is back: when it was its request's last, the `start`
    /// waiting for it is decided and the terminal's events that waited behind it run.
    pub fn probe_back(&mut self, m: u32, p: &mut Ports) {
        let now = p.now();
        let Some((t, admitted)) = p.admission.probe_back(m, now, &p.period.w) else {
            return;
        };
        if p.net.manager_endpoint().is_some() {
            // the interface node decided: it answers the object manager
            super::manager::answer(p, t, admitted, self.cfg.request_bytes);
            return;
        }
        self.decided(t as usize, admitted, p);
    }

    /// Terminal `t`'s `start`, waiting for admission, is decided now (`admitted` or not): it
    /// begins or is refused, and the terminal's events that waited behind it run.
    fn decided(&mut self, t: usize, admitted: bool, p: &mut Ports) {
        let (e, asked) = self.terms[t]
            .admitting
            .take()
            .expect("a terminal waiting for admission");
        self.start_decided(e, asked, admitted, p);
        self.drain(t, p);
    }

    /// The object manager's delegation of terminal `t`'s viewing reached its interface node
    /// (`[server] manager_node`), which decides admission now, or sends its probes; once
    /// decided, it answers the manager ([`super::manager`]).
    pub fn delegation(&mut self, t: usize, p: &mut Ports) {
        let (e, _) = self.terms[t]
            .admitting
            .expect("a delegation of a viewing waiting for admission");
        match self.ask_admission(e, p) {
            Decision::Admit => super::manager::answer(p, t as u32, true, self.cfg.request_bytes),
            Decision::Refuse => super::manager::answer(p, t as u32, false, self.cfg.request_bytes),
            Decision::Probing => self.send_probes(t, p),
        }
    }

    /// The interface node's answer for terminal `t`'s viewing reached the object manager
    /// (`[server] manager_node`): the viewing begins, or is refused, now.
    pub fn answer(&mut self, t: usize, admitted: bool, p: &mut Ports) {
        self.decided(t, admitted, p);
    }

    /// Puts terminal `e.terminal`'s `start` `e` to admission control now.
    fn ask_admission(&mut self, e: TraceEvent, p: &mut Ports) -> Decision {
        let blocks = self.blocks.get(e.video.index()).copied().unwrap_or(0);
        p.admission.request(
            e.terminal.0,
            p.net.interface_of(e.terminal.0) as u32,
            e.video.0,
            self.cfg.bit_rate,
            blocks,
            p.layout,
            p.q.now(),
            &p.period.w,
        )
    }

    /// Sends the admission probes named for terminal `t`'s start, from its interface node to
    /// the storage nodes.
    fn send_probes(&mut self, t: usize, p: &mut Ports) {
        let from = p.net.terminal_endpoint(t as u32);
        for &(slot, node) in p.admission.probes_to_send() {
            p.net.send(
                from,
                Endpoint::Node(crate::ids::NodeId(node)),
                self.cfg.request_bytes,
                Ev::ProbeAtStorage(slot),
                p.q,
                &p.period.w,
                p.faults,
            );
        }
    }

    fn apply(&mut self, e: TraceEvent, p: &mut Ports) {
        let t = e.terminal.index();
        let now = p.now();
        let measuring = p.w().measuring;
        let state = self.terms[t].state;
        if e.kind != EventKind::Start
            && state == TState::Idle
            && self.terms[t].refused == Some(e.video.0)
        {
            // an event of a viewing admission refused
            p.admission.dropped(&p.period.w);
            return;
        }
        let same_video = state != TState::Idle && self.terms[t].title == e.video.0;
        // a search, or a piggyback group, is left for any event but its own kind
        let special = state == TState::Searching
            || matches!(self.terms[t].search, Search::Version { .. })
            || matches!(state, TState::Waiting | TState::Following);
        match e.kind {
            EventKind::Start => {
                debug_assert_eq!(state, TState::Idle);
                if p.net.manager_endpoint().is_some() {
                    // the request reaches the object manager node, which delegates it; the
                    // start waits for the interface node's answer ([`super::manager`])
                    self.terms[t].admitting = Some((e, now));
                    let terminals = self.terms.len() as u32;
                    super::manager::delegate(
                        p,
                        t as u32,
                        e.video.0,
                        terminals,
                        self.cfg.request_bytes,
                    );
                    return;
                }
                if let Some(rep) = p.repl.as_mut() {
                    // the object manager logs the request and delegates the viewing, before
                    // its interface node is asked to admit it (as a manager node does:
                    // [`super::manager::delegate`])
                    let i = rep.viewing(t as u32, e.video.0, now);
                    p.net.assign(t as u32, i, self.terms.len() as u32);
                }
                match self.ask_admission(e, p) {
                    Decision::Admit => self.start_decided(e, now, true, p),
                    Decision::Refuse => self.start_decided(e, now, false, p),
                    Decision::Probing => {
                        self.terms[t].admitting = Some((e, now));
                        self.send_probes(t, p);
                    }
                }
            }
            EventKind::Pause => {
                if !same_video || state == TState::Paused {
                    self.events_ignored += 1;
                    return;
                }
                if special {
                    // stop searching (or leave the group) and pause where it got to
                    let pos = self.detach(t, p);
                    self.play_from(t, pos, p);
                    if self.terms[t].state == TState::Idle {
                        return;
                    }
                }
                if self.terms[t].state == TState::Playing {
                    self.advance(t, p);
                    if self.terms[t].state == TState::Idle {
                        return; // the video ended at this very instant
                    }
                }
                let window = p.w().span;
                let tm = &mut self.terms[t];
                if tm.state == TState::Stalled {
                    let s = clip(tm.stall_since, now, window);
                    tm.stalled_measured += s;
                    self.stalled += s;
                }
                tm.paused_from = tm.state;
                tm.state = TState::Paused;
                tm.paused_at = now;
                tm.cancel_wake();
            }
            EventKind::Resume => {
                if same_video
                    && (state == TState::Searching
                        || matches!(self.terms[t].search, Search::Version { .. }))
                {
                    // end of a search: re-prime normal play where it got to
                    let pos = self.detach(t, p);
                    self.play_from(t, pos, p);
                    return;
                }
                if !same_video || state != TState::Paused {
                    self.events_ignored += 1;
                    return;
                }
                let tm = &mut self.terms[t];
                tm.state = tm.paused_from;
                match tm.state {
                    TState::Playing => {
                        // the playout goes on where it stopped, within the frame on display:
                        // every frame's display time moves by the pause
                        tm.base_time += now.saturating_since(tm.paused_at);
                        self.schedule_wake(t, p);
                    }
                    TState::Stalled => {
                        tm.stall_since = now;
                        self.fill(t, p);
                        self.check_prime(t, p);
                    }
                    _ => {
                        self.fill(t, p);
                        self.check_prime(t, p);
                    }
                }
            }
            EventKind::Seek => {
                if !same_video {
                    self.events_ignored += 1;
                    return;
                }
                if special {
                    self.detach(t, p);
                } else {
                    self.end_session(t, p);
                }
                if !self.begin_session(t, e.video.0, e.position, PrimeKind::Seek, p) {
                    self.events_ignored += 1;
                    self.terms[t].state = TState::Idle;
                    self.drain(t, p);
                }
            }
            EventKind::Stop => {
                if !same_video {
                    self.events_ignored += 1;
                    return;
                }
                if special {
                    self.detach(t, p);
                } else {
                    self.end_session(t, p);
                }
                self.terms[t].state = TState::Idle;
                self.drain(t, p);
            }
            EventKind::FastForward | EventKind::Rewind => {
                let forward = e.kind == EventKind::FastForward;
                let already = match self.terms[t].search {
                    Search::Skip { forward: f, .. } | Search::Version { forward: f } => Some(f),
                    Search::None => None,
                };
                if !same_video || already == Some(forward) {
                    self.events_ignored += 1;
                    return;
                }
                let pos = self.detach(t, p);
                self.searches += u64::from(measuring);
                self.start_search(t, pos, forward, p);
            }
        }
    }

    // ----- sessions ----------------------------------------------------------------------

    /// Adds stalled time `s` to the terminal, or to every member of a piggyback stream.
    fn add_stall(&mut self, t: usize, s: u64) {
        if s == 0 {
            return;
        }
        if t < self.cfg.count {
            self.terms[t].stalled_measured += s;
            self.stalled += s;
        } else {
            for i in 0..self.terms[t].members.len() {
                let m = self.terms[t].members[i] as usize;
                self.terms[m].stalled_measured += s;
                self.stalled += s;
            }
        }
    }

    /// Closes the current session's byte accounting.
    fn end_session(&mut self, t: usize, p: &mut Ports) {
        if self.terms[t].state == TState::Idle {
            return;
        }
        let consumed = self.playout().session_consumed(&self.terms[t]);
        let tm = &mut self.terms[t];
        self.consumed_bytes += consumed;
        self.discarded_bytes += tm.session_received - consumed;
        tm.session_received = 0;
        tm.epoch = tm.epoch.wrapping_add(1);
        tm.outstanding = 0;
        tm.cancel_wake();
        if tm.state == TState::Stalled {
            let s = clip(tm.stall_since, p.now(), p.w().span);
            self.add_stall(t, s);
        }
    }

    /// Starts a new session at `position` of (normal) `video`; `false` if the position is
    /// past the end.
    fn begin_session(
        &mut self,
        t: usize,
        video: u32,
        position: SimDuration,
        kind: PrimeKind,
        p: &mut Ports,
    ) -> bool {
        self.terms[t].title = video;
        let frame = self.lib.frame_at(position);
        self.begin_at(t, video, frame, kind, p)
    }

    /// Starts a new session at frame `frame` of object `video` (a video or a search
    /// version); `false` if the frame is past its end.
    fn begin_at(
        &mut self,
        t: usize,
        video: u32,
        frame: u64,
        kind: PrimeKind,
        p: &mut Ports,
    ) -> bool {
        if !self.setup_session(t, video, frame, kind, p.now()) {
            return false;
        }
        self.fill(t, p);
        self.check_prime(t, p);
        true
    }

    /// [`Self::begin_at`] without requesting anything yet: the caller adjusts the session
    /// (a read limit, a start-up time) and then fills.
    fn setup_session(
        &mut self,
        t: usize,
        video: u32,
        frame: u64,
        kind: PrimeKind,
        now: SimTime,
    ) -> bool {
        if frame >= self.lib.frames_of(video as usize) {
            return false;
        }
        let block = (self.lib.offset(video as usize, frame) / self.cfg.block_bytes) as u32;
        let tm = &mut self.terms[t];
        tm.video = video;
        tm.search = Search::None;
        tm.limit_block = u32::MAX;
        tm.first_block = block;
        tm.next_block = block;
        tm.frontier_block = block;
        tm.mask = 0;
        tm.outstanding = 0;
        tm.set_left = 0;
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

    // ----- requests ----------------------------------------------------------------------

    /// Requests blocks while there is room (reading in rounds with `issue = "latest"`, a
    /// playing terminal's next set waits until `lead` before its first frame is due).
    fn fill(&mut self, t: usize, p: &mut Ports) {
        if self.cfg.server_rounds {
            return;
        }
        while self.playout().can_request(&self.terms[t]) {
            if self.set_due(t).is_some_and(|due| due > p.now()) {
                return;
            }
            self.issue(t, p);
        }
    }

    /// A round boundary of `[server.rounds]` (Pappas et al. §4): every terminal that is
    /// priming, playing or stalled and has blocks left asks for its next block now, in
    /// terminal order. Returns the bytes asked for.
    pub fn round(&mut self, p: &mut Ports) -> u64 {
        let mut bytes = 0;
        for t in 0..self.terms.len() {
            let tm = &self.terms[t];
            if !matches!(
                tm.state,
                TState::Priming | TState::Playing | TState::Stalled
            ) || tm.next_block >= self.blocks[tm.video as usize]
                || tm.next_block >= tm.limit_block
                || tm.next_block - tm.frontier_block >= 128
            {
                continue;
            }
            bytes += self.playout().block_len(tm.video, tm.next_block);
            self.issue(t, p);
        }
        bytes
    }

    /// Reading in rounds with `issue = "latest"`, a playing terminal about to open a set:
    /// when it may (`lead` before the set's first frame is due; eq. 3's t_max).
    fn set_due(&self, t: usize) -> Option<SimTime> {
        let (_, lead) = self.cfg.rounds?;
        let lead = lead?;
        let tm = &self.terms[t];
        if tm.set_left > 0 || tm.state != TState::Playing {
            return None;
        }
        let f0 = self.first_frame_of_block(tm)?;
        let due = self.playout().disp(tm, f0).as_nanos();
        Some(SimTime::from_nanos(due.saturating_sub(lead.as_nanos())))
    }

    /// The first frame that needs the terminal's next block (at least its play frame).
    fn first_frame_of_block(&self, tm: &Term) -> Option<u64> {
        let video = tm.video as usize;
        Some(
            self.lib
                .first_frame_reaching(video, u64::from(tm.next_block) * self.cfg.block_bytes + 1)
                .saturating_sub(1)
                .max(tm.play_frame),
        )
    }

    /// Requests the terminal's next block from the node that holds it.
    fn issue(&mut self, t: usize, p: &mut Ports) {
        let now = p.now();
        let pl = self.playout();
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
            .first_frame_reaching(video as usize, u64::from(index) * self.cfg.block_bytes + 1)
            .saturating_sub(1)
            .max(tm.play_frame);
        let deadline = if tm.state == TState::Playing {
            pl.disp(tm, f0)
        } else {
            now + (self.lib.frame_time(f0) - self.lib.frame_time(tm.play_frame))
        };
        let loc = p.layout.locate(block);
        let bytes = pl.block_len(video, index);
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
            own_io: false,
            sent: now,
            net_unloaded: SimDuration::ZERO,
            io: [0; 4],
            buffered: 0,
        };
        if loc.node.index() >= p.nodes.nodes.len() || loc.disk.index() >= p.disks.len() {
            p.faults.plugin(
                "layout",
                p.layout_name,
                now,
                format!(
                    "placed block {index} of video {video} on node {} disk {}, which do not exist",
                    loc.node, loc.disk
                ),
            );
            self.terms[t].next_block += 1;
            return;
        }
        let r = p.reqs.new_read(req);
        let set = self.cfg.rounds.map_or(1, |r| r.0);
        let tm = &mut self.terms[t];
        if set > 1 {
            // the first block of a set opens it (its room is reserved for all of it)
            tm.set_left = if tm.set_left == 0 {
                set - 1
            } else {
                tm.set_left - 1
            };
        }
        tm.next_block += 1;
        tm.outstanding += 1;
        self.issued += 1;
        if let Some(rep) = p.repl.as_ref() {
            let source = rep.source(t as u32, block);
            if source != Source::Remote {
                p.read_locally(r, source);
                return;
            }
        }
        let (from, to) = (p.net.terminal_endpoint(t as u32), Endpoint::Node(loc.node));
        let w = p.period.w;
        if let Some(cpus) = p.iface_cpu.as_mut() {
            // the interface node's CPU sends it when it comes to it
            let i = p.net.interface_of(t as u32);
            if let Some(at) = cpus.push(i, IfaceJob::Send(r), p.q.now(), &w) {
                p.q.schedule(at, Ev::IfaceDone(i as u32));
            }
            return;
        }
        let unloaded = p.net.send(
            from,
            to,
            self.cfg.request_bytes,
            Ev::ReqAtNode(r),
            p.q,
            &w,
            p.faults,
        );
        p.reqs.read_mut(r).net_unloaded = unloaded;
    }

    /// Data for read `req` reached its terminal (the node has released its page).
    pub fn arrive(&mut self, req: &Req, p: &mut Ports) {
        self.delivered += 1;
        self.received_bytes += req.bytes;
        let t = req.terminal as usize;
        let tm = &mut self.terms[t];
        tm.bytes_received += req.bytes;
        if req.epoch != tm.epoch || tm.state == TState::Idle {
            self.discarded_bytes += req.bytes;
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
            TState::Priming | TState::Stalled | TState::Searching => self.check_prime(t, p),
            TState::Playing => self.schedule_wake(t, p),
            TState::Paused | TState::Idle | TState::Waiting | TState::Following => {}
        }
        self.fill(t, p);
    }

    // ----- playout -----------------------------------------------------------------------

    fn check_prime(&mut self, t: usize, p: &mut Ports) {
        let tm = &self.terms[t];
        if tm.state == TState::Searching {
            self.segment_check(t, p);
            return;
        }
        if !matches!(tm.state, TState::Priming | TState::Stalled) {
            return;
        }
        if self.playout().primed(tm) {
            self.start_display(t, p);
        }
    }

    /// Records a start-up latency (display start after a start, a seek or a search).
    fn record_startup(&mut self, t: usize, lat: u64, w: bool) {
        if w {
            self.startup.record(lat);
            self.terms[t].startup_sum += lat;
            self.terms[t].startups += 1;
        }
    }

    fn start_display(&mut self, t: usize, p: &mut Ports) {
        let now = p.now();
        let window = p.w().span;
        let measuring = p.w().measuring;
        let tm = &self.terms[t];
        match tm.prime_kind {
            PrimeKind::Glitch => {
                let s = clip(tm.stall_since, now, window);
                self.add_stall(t, s);
            }
            PrimeKind::Start | PrimeKind::Seek if t >= self.cfg.count => {
                // a piggyback stream: every member waited since its own request
                for i in 0..self.terms[t].members.len() {
                    let m = self.terms[t].members[i] as usize;
                    let lat = now.saturating_since(self.terms[m].requested_at).as_nanos();
                    self.record_startup(m, lat, measuring);
                }
            }
            PrimeKind::Start | PrimeKind::Seek => {
                let lat = now.saturating_since(tm.prime_since).as_nanos();
                self.record_startup(t, lat, measuring);
            }
        }
        let tm = &mut self.terms[t];
        tm.state = TState::Playing;
        tm.base_frame = tm.play_frame;
        tm.base_time = now;
        if t < self.cfg.count {
            self.arm_packets(t, p);
        } else {
            for i in 0..self.terms[t].members.len() {
                let m = self.terms[t].members[i] as usize;
                self.arm_packets(m, p);
            }
        }
        let tm = &mut self.terms[t];
        let first = !tm.warmed;
        tm.has_displayed = true;
        tm.warmed = true;
        self.schedule_wake(t, p);
        if t >= self.cfg.count {
            for i in 0..self.terms[t].members.len() {
                let m = self.terms[t].members[i] as usize;
                self.terms[m].has_displayed = true;
                if !self.terms[m].warmed {
                    self.terms[m].warmed = true;
                    self.first_display(p);
                }
            }
        } else if first {
            self.first_display(p);
        }
    }

    /// Starts sending real terminal `t`'s client its packets, one now and one every δ_I
    /// (`client_packet`), unless they are already being sent.
    fn arm_packets(&mut self, t: usize, p: &mut Ports) {
        if self.cfg.client_packet.is_none() || self.terms[t].packets_armed {
            return;
        }
        self.terms[t].packets_armed = true;
        p.q.schedule(p.now(), Ev::ClientPacket(t as u32));
    }

    /// Terminal `t`'s next client packet is due: while its display runs, its interface node's
    /// CPU sends it (Jadav §3.2: a packet of P_I bytes at least every δ_I) and the next is
    /// due δ_I later; otherwise the packets stop until display starts again.
    pub fn client_packet(&mut self, t: usize, p: &mut Ports) {
        let Some((bytes, every)) = self.cfg.client_packet else {
            return;
        };
        let tm = &self.terms[t];
        let playing = match tm.state {
            TState::Playing => true,
            TState::Following => self.terms[tm.group as usize].state == TState::Playing,
            _ => false,
        };
        if !playing {
            self.terms[t].packets_armed = false;
            return;
        }
        let now = p.now();
        let w = p.period.w;
        if let Some(cpus) = p.iface_cpu.as_mut() {
            let i = p.net.interface_of(t as u32);
            if let Some(at) = cpus.push(i, IfaceJob::Packet(bytes), now, &w) {
                p.q.schedule(at, Ev::IfaceDone(i as u32));
            }
        }
        p.q.schedule(now + every, Ev::ClientPacket(t as u32));
    }

    /// A terminal began display for the first time (auto warm-up bookkeeping).
    fn first_display(&mut self, p: &mut Ports) {
        self.started_display += 1;
        if self.started_display >= self.to_start && self.cfg.warmup == Warmup::Auto {
            self.open_window(p);
        }
    }

    /// Opens the measured period now (once): every component starts counting, and the
    /// terminals' own counts restart.
    pub fn open_window(&mut self, p: &mut Ports) {
        if !p.open_window() {
            return;
        }
        let now = p.now();
        for t in &mut self.terms {
            t.glitches_measured = 0;
            t.stalled_measured = 0;
            if t.state == TState::Stalled {
                t.stall_since = now;
            }
        }
    }

    fn schedule_wake(&mut self, t: usize, p: &mut Ports) {
        let pl = self.playout();
        let tm = &self.terms[t];
        let v = tm.video as usize;
        let frames = self.lib.frames_of(v);
        let avail = pl.frames_available(tm);
        let need = if avail < frames {
            pl.disp(tm, avail)
        } else {
            pl.disp(tm, frames)
        };
        let mut wake = need;
        if tm.next_block < self.blocks[v] && tm.next_block - tm.frontier_block < 128 {
            let threshold = pl.room_threshold(tm);
            if pl.freed_reach(tm, threshold) {
                // room already: a set waiting for its time (`issue = "latest"`)
                if let Some(due) = self.set_due(t) {
                    wake = wake.min(due);
                }
            } else {
                let n = self.lib.first_frame_reaching(v, threshold);
                if n >= 1 {
                    wake = wake.min(pl.disp(tm, n - 1));
                }
            }
        }
        let now = p.now();
        self.wake_at(t, wake.max(now), p);
    }

    /// Schedules a wake-up of terminal `t` at `at` (cancelling earlier ones). When the
    /// pending wake-up is already at `at` it stays, so no stale event is queued.
    fn wake_at(&mut self, t: usize, at: SimTime, p: &mut Ports) {
        let tm = &mut self.terms[t];
        if tm.wake_time == at {
            return;
        }
        tm.cancel_wake();
        tm.wake_time = at;
        p.q.schedule(at, Ev::Wake(t as u32, tm.gen));
    }

    /// Starts showing frames from `play_frame` now (a skip-search segment); returns when
    /// frame `end` would be displayed.
    fn show_now(&mut self, t: usize, end: u64, now: SimTime) -> SimTime {
        let tm = &mut self.terms[t];
        tm.base_frame = tm.play_frame;
        tm.base_time = now;
        self.playout().disp(&self.terms[t], end)
    }

    /// A `Wake` event of generation `gen` for terminal `t` (stale generations are ignored).
    pub fn woken(&mut self, t: usize, gen: u32, p: &mut Ports) {
        if self.terms[t].gen != gen {
            return;
        }
        self.terms[t].wake_time = SimTime::MAX;
        match self.terms[t].state {
            TState::Playing => self.advance(t, p),
            TState::Searching => self.segment_wake(t, p),
            _ => {}
        }
    }

    /// Consumes frames up to now; detects a glitch or the end of the video.
    fn advance(&mut self, t: usize, p: &mut Ports) {
        let now = p.now();
        let pl = self.playout();
        let tm = &self.terms[t];
        let frames = pl.frames_of(tm);
        let taken = pl.frames_started_by(tm, now);
        let avail = pl.frames_available(tm);
        if taken > avail && avail < frames {
            self.glitch(t, avail, p);
            return;
        }
        let play = taken.min(frames).max(tm.play_frame);
        self.terms[t].play_frame = play;
        if play >= frames && now >= self.playout().disp(&self.terms[t], frames) {
            self.end_video(t, p);
            return;
        }
        self.fill(t, p);
        self.schedule_wake(t, p);
    }

    fn glitch(&mut self, t: usize, frame: u64, p: &mut Ports) {
        let now = p.now();
        let measuring = p.w().measuring;
        let tm = &mut self.terms[t];
        tm.play_frame = frame.max(tm.play_frame);
        tm.state = TState::Stalled;
        tm.prime_kind = PrimeKind::Glitch;
        tm.stall_since = now;
        tm.cancel_wake();
        if measuring {
            // a piggyback stream's glitch is a glitch at every member's screen
            let n = if t < self.cfg.count {
                self.terms[t].glitches_measured += 1;
                1
            } else {
                for i in 0..self.terms[t].members.len() {
                    let m = self.terms[t].members[i] as usize;
                    self.terms[m].glitches_measured += 1;
                }
                self.terms[t].members.len() as u64
            };
            self.glitches += n;
            if n > 0 {
                self.first_glitch.get_or_insert(now);
            }
        }
        self.fill(t, p);
        self.check_prime(t, p);
    }

    /// The object being read ran out.
    fn end_video(&mut self, t: usize, p: &mut Ports) {
        if t >= self.cfg.count {
            self.end_stream(t, p);
            return;
        }
        if let Search::Version { forward } = self.terms[t].search {
            self.end_session(t, p);
            if !forward {
                // the rewind version ran out: the movie's beginning; play from there
                let title = self.terms[t].title;
                self.begin_at(t, title, 0, PrimeKind::Seek, p);
                return;
            }
        } else {
            self.end_session(t, p);
        }
        self.terms[t].state = TState::Idle;
        self.terms[t].search = Search::None;
        self.drain(t, p);
    }

    /// The terminal's position in its (normal) video now, as a frame.
    fn position_now(&self, t: usize, now: SimTime) -> u64 {
        let pl = self.playout();
        let tm = &self.terms[t];
        match tm.state {
            TState::Idle | TState::Waiting => 0,
            TState::Following => self.position_now(tm.group as usize, now),
            TState::Searching => match tm.search {
                Search::Skip {
                    seg_start,
                    seg_end,
                    showing,
                    ..
                } => {
                    if showing {
                        pl.frames_started_by(tm, now).min(seg_end).max(seg_start)
                    } else {
                        seg_start
                    }
                }
                _ => tm.play_frame,
            },
            _ => {
                let f = if tm.state == TState::Playing {
                    pl.frames_started_by(tm, now)
                        .min(pl.frames_available(tm))
                        .max(tm.play_frame)
                } else {
                    tm.play_frame
                };
                match tm.search {
                    Search::Version { forward } => {
                        self.search.movie_position(self.lib.frames(), forward, f)
                    }
                    _ => f,
                }
            }
        }
    }

    /// Ends whatever terminal `t` is doing (a session, a search, a piggyback group) at
    /// its current position, which it returns, leaving it idle without running its
    /// deferred events. Frames shown up to now count as consumed.
    fn detach(&mut self, t: usize, p: &mut Ports) -> u64 {
        let now = p.now();
        let pos = self.position_now(t, now);
        match self.terms[t].state {
            TState::Idle => {}
            TState::Waiting | TState::Following => self.leave_group(t, p),
            _ => {
                let pl = self.playout();
                let tm = &self.terms[t];
                let shown = match (tm.state, tm.search) {
                    (TState::Playing, _) => {
                        Some(pl.frames_started_by(tm, now).min(pl.frames_available(tm)))
                    }
                    (
                        TState::Searching,
                        Search::Skip {
                            showing: true,
                            seg_end,
                            ..
                        },
                    ) => Some(pl.frames_started_by(tm, now).min(seg_end)),
                    _ => None,
                };
                if let Some(f) = shown {
                    let tm = &mut self.terms[t];
                    tm.play_frame = f.max(tm.play_frame);
                }
                self.end_session(t, p);
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
    fn play_from(&mut self, t: usize, pos: u64, p: &mut Ports) {
        let title = self.terms[t].title;
        if !self.begin_at(t, title, pos, PrimeKind::Seek, p) {
            self.terms[t].state = TState::Idle;
            self.drain(t, p);
        }
    }

    // ----- visual search (SPIFFI §8.1) ---------------------------------------------------

    /// Starts a search of the terminal's video from frame `pos` (the terminal is detached).
    fn start_search(&mut self, t: usize, pos: u64, forward: bool, p: &mut Ports) {
        match self.search.mode {
            SearchMode::Skip => self.next_segment(t, pos, forward, p),
            SearchMode::Version => {
                let title = self.terms[t].title;
                let (object, frame) =
                    self.search
                        .version_position(self.lib.frames(), title, forward, pos);
                if frame < self.lib.frames_of(object as usize) {
                    self.begin_at(t, object, frame, PrimeKind::Seek, p);
                    self.terms[t].search = Search::Version { forward };
                } else if forward {
                    // nothing left to search through: the video ends
                    self.terms[t].state = TState::Idle;
                    self.drain(t, p);
                } else {
                    self.play_from(t, 0, p);
                }
            }
        }
    }

    /// Skip search: reads the next segment after (or before) the one starting at `from`.
    fn next_segment(&mut self, t: usize, from: u64, forward: bool, p: &mut Ports) {
        let (start, end) = match self.search.next_segment(&self.playout(), from, forward) {
            NextSegment::PlayFromStart => {
                self.play_from(t, 0, p);
                return;
            }
            NextSegment::End => (u64::MAX, 0),
            NextSegment::Show { start, end } => (start, end),
        };
        let title = self.terms[t].title;
        if start == u64::MAX || !self.setup_session(t, title, start, PrimeKind::Seek, p.now()) {
            // the fast-forward ran past the end: the video ends
            self.terms[t].state = TState::Idle;
            self.drain(t, p);
            return;
        }
        let limit = self
            .lib
            .offset(title as usize, end)
            .div_ceil(self.cfg.block_bytes) as u32;
        let tm = &mut self.terms[t];
        tm.state = TState::Searching;
        tm.limit_block = limit;
        tm.search = Search::Skip {
            forward,
            seg_start: start,
            seg_end: end,
            showing: false,
        };
        self.fill(t, p);
        self.segment_check(t, p);
    }

    /// Skip search: shows the segment once all of it that fits has arrived.
    fn segment_check(&mut self, t: usize, p: &mut Ports) {
        let Search::Skip {
            forward,
            seg_start,
            seg_end,
            showing: false,
        } = self.terms[t].search
        else {
            return;
        };
        let pl = self.playout();
        let tm = &self.terms[t];
        let done = tm.frontier_block >= tm.limit_block
            || tm.frontier_block >= self.blocks[tm.video as usize]
            || (tm.outstanding == 0 && !pl.can_request(tm));
        if !done {
            return;
        }
        // what is held of the segment (all of it unless the terminal's memory is smaller)
        let end = seg_end.min(pl.frames_available(tm)).max(seg_start + 1);
        self.terms[t].search = Search::Skip {
            forward,
            seg_start,
            seg_end: end,
            showing: true,
        };
        if p.w().measuring {
            self.segments += 1;
        }
        let at = self.show_now(t, end, p.now());
        self.wake_at(t, at, p);
    }

    /// Skip search: the segment has been shown; on to the next.
    fn segment_wake(&mut self, t: usize, p: &mut Ports) {
        let Search::Skip {
            forward,
            seg_start,
            seg_end,
            showing: true,
        } = self.terms[t].search
        else {
            return;
        };
        self.terms[t].play_frame = seg_end;
        self.end_session(t, p);
        self.next_segment(t, seg_start, forward, p);
    }

    /// Skip search: the prefetch hint that terminal `t`'s reference to `block` on `disk`,
    /// needed at `deadline`, carries (counted when it carries one).
    pub fn search_hint(
        &mut self,
        t: usize,
        block: BlockId,
        disk: DiskId,
        deadline: SimTime,
        layout: &dyn Layout,
        measuring: bool,
    ) -> Option<PrefetchHint> {
        let tm = self.terms.get(t)?;
        let hint = self
            .search
            .hint(&self.playout(), layout, tm, block, disk, deadline);
        if hint.is_some() && measuring {
            self.prefetch_hints += 1;
        }
        hint
    }

    // ----- piggybacking (SPIFFI §8.2) ----------------------------------------------------

    /// A `start` of `video` at `position` for idle terminal `t`: joins or opens a group when
    /// the video has a start delay (returns `true`), else leaves the start to the caller.
    fn piggyback_start(
        &mut self,
        t: usize,
        video: u32,
        position: SimDuration,
        p: &mut Ports,
    ) -> bool {
        let now = p.now();
        let Some((g, opens)) = self
            .pig
            .join(t as u32, video, position, now, p.w().measuring)
        else {
            return false;
        };
        if let Some(at) = opens {
            p.q.schedule(at, Ev::GroupStart(g));
        }
        let tm = &mut self.terms[t];
        tm.state = TState::Waiting;
        tm.group = g;
        tm.title = video;
        tm.video = video;
        tm.requested_at = now;
        tm.play_frame = 0;
        tm.first_block = 0;
        tm.frontier_block = 0;
        tm.next_block = 0;
        true
    }

    /// The delay of group `g` has passed: its members start, as one stream if several.
    pub fn group_start(&mut self, g: u32, p: &mut Ports) {
        let now = p.now();
        let terms = &self.terms;
        let started = self
            .pig
            .start(g, now, p.w().measuring, |m| terms[m as usize].requested_at);
        let video = started.video;
        let members = started.members;
        match members.len() {
            0 => {}
            1 => {
                let m = members[0] as usize;
                self.terms[m].title = video;
                self.setup_session(m, video, 0, PrimeKind::Start, now);
                // the start-up latency includes the wait
                self.terms[m].prime_since = self.terms[m].requested_at;
                self.fill(m, p);
                self.check_prime(m, p);
            }
            _ => {
                let s = match self.pig.free_stream() {
                    Some(s) => s as usize,
                    None => {
                        self.terms.push(Term::new());
                        self.terms.len() - 1
                    }
                };
                for &m in &members {
                    let tm = &mut self.terms[m as usize];
                    tm.state = TState::Following;
                    tm.group = s as u32;
                }
                self.terms[s].members = members;
                self.terms[s].title = video;
                self.setup_session(s, video, 0, PrimeKind::Start, now);
                self.fill(s, p);
                self.check_prime(s, p);
            }
        }
    }

    /// Takes waiting or following terminal `t` out of its group (the caller decides what
    /// it does next); a stream left without members stops.
    fn leave_group(&mut self, t: usize, p: &mut Ports) {
        let g = self.terms[t].group as usize;
        match self.terms[t].state {
            TState::Waiting => self.pig.leave(g as u32, t as u32),
            TState::Following => {
                self.terms[g].members.retain(|&m| m as usize != t);
                if self.terms[g].members.is_empty() {
                    self.end_session(g, p);
                    self.terms[g].state = TState::Idle;
                    self.pig.stream_stopped(g as u32);
                }
            }
            _ => {}
        }
    }

    /// Stream `s` reached the end of its video: so did every member.
    fn end_stream(&mut self, s: usize, p: &mut Ports) {
        self.end_session(s, p);
        self.terms[s].state = TState::Idle;
        let members = std::mem::take(&mut self.terms[s].members);
        self.pig.stream_stopped(s as u32);
        for m in members {
            let m = m as usize;
            self.terms[m].state = TState::Idle;
            self.drain(m, p);
        }
    }

    // ----- measurements ------------------------------------------------------------------

    /// Samples the real terminals' buffers at `now`: their sum (for the time series).
    pub fn sample(&mut self, now: SimTime) -> u128 {
        let pl = self.playout();
        let mut sum: u128 = 0;
        let mut peak = self.buffer_peak;
        for i in 0..self.cfg.count {
            let b = pl.buffered_now(&self.terms, i, now);
            sum += u128::from(b);
            peak = peak.max(b);
        }
        self.buffer_peak = peak;
        self.buffer_sum += sum;
        self.buffer_samples += 1;
        sum
    }

    /// Closes stalls still in progress at `w1` (streams first: their stall is their
    /// members'), when the window is open.
    pub fn close_stalls(&mut self, w1: SimTime, window: (SimTime, SimTime), measuring: bool) {
        for i in (0..self.terms.len()).rev() {
            let t = &self.terms[i];
            if t.state == TState::Stalled && measuring {
                let s = clip(t.stall_since, w1, window);
                let members: Vec<usize> = if i < self.cfg.count {
                    vec![i]
                } else {
                    t.members.iter().map(|&m| m as usize).collect()
                };
                for m in members {
                    self.terms[m].stalled_measured += s;
                    self.stalled += s;
                }
            }
        }
    }

    /// The summary's `glitches` section, the `terminals` table, and the start-up latency,
    /// videos started and ignored events, with the window opened at `w0` (`measuring`).
    pub fn report(&self, w0: SimTime, measuring: bool) -> (Glitches, Stat, u64, u64, Table) {
        let mut affected = 0u64;
        let mut never_displayed = 0u64;
        let mut rows = TermRows::default();
        for (i, t) in self.terms[..self.cfg.count].iter().enumerate() {
            if t.glitches_measured > 0 {
                affected += 1;
            }
            if measuring && t.never_displayed_since(w0) {
                never_displayed += 1;
            }
            rows.push(i, t);
        }
        let glitches = Glitches {
            count: self.glitches,
            stalled_ns: self.stalled,
            terminals_affected: affected,
            first_glitch_ns: self.first_glitch.map(|g| g.saturating_since(w0).as_nanos()),
            never_displayed,
        };
        (
            glitches,
            self.startup.stat(),
            self.videos_started,
            self.events_ignored,
            rows.table(),
        )
    }

    /// Mean bytes buffered per real terminal over the samples.
    pub fn occupancy_mean(&self) -> u64 {
        if self.buffer_samples == 0 || self.cfg.count == 0 {
            0
        } else {
            (self.buffer_sum / u128::from(self.buffer_samples) / self.cfg.count as u128) as u64
        }
    }

    /// Most bytes a real terminal buffered at a sample.
    pub fn occupancy_peak(&self) -> u64 {
        self.buffer_peak
    }

    /// The terminals' side of the byte balance: (issued, delivered, received, consumed
    /// (live sessions' shown frames included), discarded, buffered in live sessions).
    pub fn conservation(&self) -> (u64, u64, u64, u64, u64, u64) {
        let pl = self.playout();
        let mut buffered = 0u64;
        let mut consumed_live = 0u64;
        for t in &self.terms {
            buffered += pl.session_buffered(t);
            consumed_live += pl.session_consumed(t);
        }
        (
            self.issued,
            self.delivered,
            self.received_bytes,
            self.consumed_bytes + consumed_live,
            self.discarded_bytes,
            buffered,
        )
    }

    /// The summary's `search` section: when the scenario has `[interactive]` or its
    /// workload has `ff`/`rewind` events.
    pub fn search_summary(&self) -> Option<SearchSummary> {
        if !self.cfg.report_searches {
            return None;
        }
        let count = self.search.videos as usize;
        let stored = |range: std::ops::Range<usize>| -> u64 {
            range
                .map(|v| u64::from(self.blocks[v]) * self.cfg.block_bytes)
                .sum()
        };
        Some(SearchSummary {
            mode: self.search.mode,
            searches: self.searches,
            segments_shown: self.segments,
            prefetch_hints: self.prefetch_hints,
            video_bytes: stored(0..count),
            search_version_bytes: stored(count..self.blocks.len()),
        })
    }

    /// The summary's `piggyback` section.
    pub fn piggyback_summary(&self) -> Option<PiggybackSummary> {
        self.pig.summary()
    }
}

#[derive(Default)]
struct TermRows {
    id: Vec<u64>,
    videos: Vec<u64>,
    glitches: Vec<u64>,
    stalled: Vec<u64>,
    received: Vec<u64>,
    startup_mean: Vec<u64>,
}

impl TermRows {
    fn push(&mut self, i: usize, t: &Term) {
        self.id.push(i as u64);
        self.videos.push(t.videos_started);
        self.glitches.push(t.glitches_measured);
        self.stalled.push(t.stalled_measured);
        self.received.push(t.bytes_received);
        self.startup_mean
            .push(t.startup_sum.checked_div(t.startups).unwrap_or(0));
    }

    fn table(self) -> Table {
        Table {
            name: "terminals".into(),
            columns: vec![
                ("terminal".into(), Column::U64(self.id)),
                ("videos_started".into(), Column::U64(self.videos)),
                ("glitches".into(), Column::U64(self.glitches)),
                ("stalled_ns".into(), Column::U64(self.stalled)),
                ("bytes_received".into(), Column::U64(self.received)),
                (
                    "startup_latency_mean_ns".into(),
                    Column::U64(self.startup_mean),
                ),
            ],
        }
    }
}
