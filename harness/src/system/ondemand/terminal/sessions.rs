//! What an event does to its terminal: start, pause, resume, seek, stop, visual search; a
//! viewing's session begun and ended (SPIFFI §5.1, §6).

use super::*;

impl<'a> Terminals<'a> {
    pub(super) fn apply(&mut self, e: TraceEvent, p: &mut Ports) {
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
                    // start waits for the interface node's answer ([`super::super::manager`])
                    self.terms[t].admitting = Some((e, now));
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
                    // the object manager logs the request and delegates the viewing, before
                    // its interface node is asked to admit it (as a manager node does:
                    // [`super::super::manager::delegate`])
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
            EventKind::Seek | EventKind::Stop => {
                if !same_video {
                    self.events_ignored += 1;
                    return;
                }
                if special {
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
    pub(super) fn add_stall(&mut self, t: usize, s: u64) {
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
    pub(super) fn end_session(&mut self, t: usize, p: &mut Ports) {
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
}
