//! What an event does to its terminal: start, pause, resume, seek, stop, visual search; a
//! viewing's session begun and ended (SPIFFI §5.1, §6).

use super::*;

impl<'a> Terminals<'a> {
    /// Applies workload event `e` to its terminal. An event of a viewing admission refused
    /// is dropped; one naming another video than the terminal's, or making no sense in its
    /// state, is counted in `events_ignored`.
    pub(super) fn apply(&mut self, e: TraceEvent, p: &mut Ports) {
        let t = e.terminal.index();
        let state = self.terms[t].state;
        if e.kind != EventKind::Start
            && state == TState::Idle
            && self.terms[t].events.refused() == Some(e.video.0)
        {
            // an event of a viewing admission refused
            p.admission.dropped(&p.period.w);
            return;
        }
        let same_video = state != TState::Idle && self.terms[t].title == e.video.0;
        match e.kind {
            EventKind::Start => {
                debug_assert_eq!(state, TState::Idle);
                self.start(e, p);
            }
            _ if !same_video => self.events_ignored += 1,
            EventKind::Pause => self.pause(t, p),
            EventKind::Resume => self.resume(t, p),
            EventKind::Seek | EventKind::Stop => self.seek_or_stop(e, p),
            EventKind::FastForward | EventKind::Rewind => {
                self.search_event(t, e.kind == EventKind::FastForward, p)
            }
        }
    }

    /// Whether terminal `t` is in a search or a piggyback group, which it leaves for any
    /// event but its own kind.
    fn in_search_or_group(&self, t: usize) -> bool {
        let tm = &self.terms[t];
        matches!(
            tm.state,
            TState::Searching | TState::Waiting | TState::Following
        ) || matches!(tm.search, Search::Version { .. })
    }

    /// `start`: put to admission control, or first delegated by the object manager node.
    fn start(&mut self, e: TraceEvent, p: &mut Ports) {
        let t = e.terminal.index();
        let now = p.now();
        if p.net.manager_endpoint().is_some() {
            // the request reaches the object manager node, which delegates it; the start
            // waits for the interface node's answer ([`super::super::manager`])
            self.terms[t].events.wait_for_admission(e, now);
            let terminals = self.terms.len() as u32;
            super::super::manager::delegate(
                p,
                t as u32,
                e.video.0,
                terminals,
                self.cfg.request_bytes,
            );
            return;
        }
        if let Some(rep) = p.repl.as_mut() {
            // the object manager logs the request and delegates the viewing, before its
            // interface node is asked to admit it (as a manager node does:
            // [`super::super::manager::delegate`])
            let i = rep.viewing(t as u32, e.video.0, now);
            p.net.assign(t as u32, i, self.terms.len() as u32);
        }
        match self.ask_admission(e, p) {
            Decision::Admit => self.start_decided(e, now, true, p),
            Decision::Refuse => self.start_decided(e, now, false, p),
            Decision::Probing => {
                self.terms[t].events.wait_for_admission(e, now);
                self.send_probes(t, p);
            }
        }
    }

    /// `pause` of the terminal's video: display stops where it got to (a search or a group
    /// left first), reading goes on.
    fn pause(&mut self, t: usize, p: &mut Ports) {
        if self.terms[t].state == TState::Paused {
            self.events_ignored += 1;
            return;
        }
        if self.in_search_or_group(t) {
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
        let now = p.now();
        let window = p.w().span;
        let tm = &mut self.terms[t];
        if tm.state == TState::Stalled {
            let s = clip(tm.stops.stall_since(), now, window);
            tm.counts.stall(s);
            self.stalled += s;
        }
        tm.stops.pause(tm.state, now);
        tm.state = TState::Paused;
        tm.cancel_wake();
    }

    /// `resume` of the terminal's video: the end of a search (normal play re-primes where it
    /// got to), or of a pause (display goes on within the frame it showed).
    fn resume(&mut self, t: usize, p: &mut Ports) {
        let state = self.terms[t].state;
        if state == TState::Searching || matches!(self.terms[t].search, Search::Version { .. }) {
            // end of a search: re-prime normal play where it got to
            let pos = self.detach(t, p);
            self.play_from(t, pos, p);
            return;
        }
        if state != TState::Paused {
            self.events_ignored += 1;
            return;
        }
        let now = p.now();
        let tm = &mut self.terms[t];
        tm.state = tm.stops.paused_from();
        match tm.state {
            TState::Playing => {
                // the playout goes on where it stopped, within the frame on display: every
                // frame's display time moves by the pause
                tm.play.shift(now.saturating_since(tm.stops.paused_at()));
                self.schedule_wake(t, p);
            }
            TState::Stalled => {
                tm.stops.stalled_since(now);
                self.fill(t, p);
                self.check_prime(t, p);
            }
            _ => {
                self.fill(t, p);
                self.check_prime(t, p);
            }
        }
    }

    /// `seek` or `stop` of the terminal's video: its session (or search, or group) ends; a
    /// seek begins again at its position, past the end it is ignored and the video ends.
    fn seek_or_stop(&mut self, e: TraceEvent, p: &mut Ports) {
        let t = e.terminal.index();
        if self.in_search_or_group(t) {
            self.detach(t, p);
        } else {
            self.end_session(t, p);
        }
        if e.kind == EventKind::Seek
            && self.begin_session(t, e.video.0, e.position, PrimeKind::Seek, p)
        {
            return;
        }
        if e.kind == EventKind::Seek {
            self.events_ignored += 1;
        }
        self.terms[t].state = TState::Idle;
        self.drain(t, p);
    }

    /// `ff` (`forward`) or `rewind` of the terminal's video: a search from where it is,
    /// unless it searches that way already.
    fn search_event(&mut self, t: usize, forward: bool, p: &mut Ports) {
        let already = match self.terms[t].search {
            Search::Skip { forward: f, .. } | Search::Version { forward: f } => Some(f),
            Search::None => None,
        };
        if already == Some(forward) {
            self.events_ignored += 1;
            return;
        }
        let measuring = p.w().measuring;
        let pos = self.detach(t, p);
        self.searches += u64::from(measuring);
        self.start_search(t, pos, forward, p);
    }

    // ----- sessions ----------------------------------------------------------------------

    /// Adds stalled time `s` to the terminal, or to every member of a piggyback stream.
    pub(super) fn add_stall(&mut self, t: usize, s: u64) {
        if s == 0 {
            return;
        }
        if t < self.cfg.count {
            self.terms[t].counts.stall(s);
            self.stalled += s;
        } else {
            for i in 0..self.terms[t].group.members().len() {
                let m = self.terms[t].group.members()[i] as usize;
                self.terms[m].counts.stall(s);
                self.stalled += s;
            }
        }
    }

    /// Closes the current session's byte accounting.
    pub(super) fn end_session(&mut self, t: usize, p: &mut Ports) {
        if self.terms[t].state == TState::Idle {
            return;
        }
        let consumed = self.playout().session_consumed(&self.terms[t]);
        let tm = &mut self.terms[t];
        self.consumed_bytes += consumed;
        self.discarded_bytes += tm.read.received() - consumed;
        tm.read.end();
        tm.cancel_wake();
        if tm.state == TState::Stalled {
            let s = clip(tm.stops.stall_since(), p.now(), p.w().span);
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
        p: &mut Ports,
    ) -> bool {
        self.terms[t].title = video;
        let frame = self.lib.frame_at(position);
        self.begin_at(t, video, frame, kind, p)
    }

    /// Starts a new session at frame `frame` of object `video` (a video or a search
    /// version); `false` if the frame is past its end.
    pub(super) fn begin_at(
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
    pub(super) fn setup_session(
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
        tm.read.begin(video, block);
        tm.search = Search::None;
        tm.play.begin(frame);
        tm.state = TState::Priming;
        tm.stops.prime(kind, now);
        tm.cancel_wake();
        true
    }

    // ----- requests ----------------------------------------------------------------------
}
