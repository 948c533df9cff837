//! A terminal's display: the measured period opened, the wake-ups at the earliest of a
//! glitch, room for a block and the video's end; glitches, stalls and re-priming (SPIFFI
//! §5.1).

use super::*;

impl<'a> Terminals<'a> {
    /// Opens the measured period now (once): every component starts counting, and the
    /// terminals' own counts restart.
    pub fn open_window(&mut self, p: &mut Ports) {
        if !p.open_window() {
            return;
        }
        let now = p.now();
        for t in &mut self.terms {
            t.counts.restart();
            if t.state == TState::Stalled {
                t.stops.stalled_since(now);
            }
        }
    }

    pub(super) fn schedule_wake(&mut self, t: usize, p: &mut Ports) {
        let pl = self.playout();
        let tm = &self.terms[t];
        let v = tm.read.video() as usize;
        let frames = self.lib.frames_of(v);
        let avail = pl.frames_available(tm);
        let need = if avail < frames {
            pl.disp(tm, avail)
        } else {
            pl.disp(tm, frames)
        };
        let mut wake = need;
        if tm.read.next() < self.blocks[v] && tm.read.next() - tm.read.frontier() < 128 {
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
    pub(super) fn wake_at(&mut self, t: usize, at: SimTime, p: &mut Ports) {
        if let Some(gen) = self.terms[t].wake.set(at) {
            p.q.schedule(at, Ev::Wake(t as u32, gen));
        }
    }

    /// Starts showing frames from `play_frame` now (a skip-search segment); returns when
    /// frame `end` would be displayed.
    pub(super) fn show_now(&mut self, t: usize, end: u64, now: SimTime) -> SimTime {
        self.terms[t].play.anchor(now);
        self.playout().disp(&self.terms[t], end)
    }

    /// A `Wake` event of generation `gen` for terminal `t` (stale generations are ignored).
    pub fn woken(&mut self, t: usize, gen: u32, p: &mut Ports) {
        if !self.terms[t].wake.fired(gen) {
            return;
        }
        match self.terms[t].state {
            TState::Playing => self.advance(t, p),
            TState::Searching => self.segment_wake(t, p),
            _ => {}
        }
    }

    /// Consumes frames up to now; detects a glitch or the end of the video.
    pub(super) fn advance(&mut self, t: usize, p: &mut Ports) {
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
        let play = taken.min(frames).max(tm.play.play());
        self.terms[t].play.set_play(play);
        if play >= frames && now >= self.playout().disp(&self.terms[t], frames) {
            self.end_video(t, p);
            return;
        }
        self.fill(t, p);
        self.schedule_wake(t, p);
    }

    pub(super) fn glitch(&mut self, t: usize, frame: u64, p: &mut Ports) {
        let now = p.now();
        let measuring = p.w().measuring;
        let tm = &mut self.terms[t];
        tm.play.reach(frame);
        tm.state = TState::Stalled;
        tm.stops.glitch(now);
        tm.cancel_wake();
        if measuring {
            // a piggyback stream's glitch is a glitch at every member's screen
            let n = if t < self.cfg.count {
                self.terms[t].counts.glitch();
                1
            } else {
                for i in 0..self.terms[t].group.members().len() {
                    let m = self.terms[t].group.members()[i] as usize;
                    self.terms[m].counts.glitch();
                }
                self.terms[t].group.members().len() as u64
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
    pub(super) fn end_video(&mut self, t: usize, p: &mut Ports) {
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
    pub(super) fn position_now(&self, t: usize, now: SimTime) -> u64 {
        let pl = self.playout();
        let tm = &self.terms[t];
        match tm.state {
            TState::Idle | TState::Waiting => 0,
            TState::Following => self.position_now(tm.group.index() as usize, now),
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
                _ => tm.play.play(),
            },
            _ => {
                let f = if tm.state == TState::Playing {
                    pl.frames_started_by(tm, now)
                        .min(pl.frames_available(tm))
                        .max(tm.play.play())
                } else {
                    tm.play.play()
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
    pub(super) fn detach(&mut self, t: usize, p: &mut Ports) -> u64 {
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
                    self.terms[t].play.reach(f);
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
    pub(super) fn play_from(&mut self, t: usize, pos: u64, p: &mut Ports) {
        let title = self.terms[t].title;
        if !self.begin_at(t, title, pos, PrimeKind::Seek, p) {
            self.terms[t].state = TState::Idle;
            self.drain(t, p);
        }
    }

    // ----- visual search (SPIFFI §8.1) ---------------------------------------------------
}
