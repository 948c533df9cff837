//! Visual search (SPIFFI §8.1): fast-forward and rewind as segments shown at a skip, or as
//! the search versions of a video; the hint the prefetcher is given.

use super::*;

impl<'a> Terminals<'a> {
    /// Starts a search of the terminal's video from frame `pos` (the terminal is detached).
    pub(super) fn start_search(&mut self, t: usize, pos: u64, forward: bool, p: &mut Ports) {
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
    pub(super) fn next_segment(&mut self, t: usize, from: u64, forward: bool, p: &mut Ports) {
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
        tm.read.limit_to(limit);
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
    pub(super) fn segment_check(&mut self, t: usize, p: &mut Ports) {
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
        let done = tm.read.frontier() >= tm.read.limit()
            || tm.read.frontier() >= self.blocks[tm.read.video() as usize]
            || (tm.read.outstanding() == 0 && !pl.can_request(tm));
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
    pub(super) fn segment_wake(&mut self, t: usize, p: &mut Ports) {
        let Search::Skip {
            forward,
            seg_start,
            seg_end,
            showing: true,
        } = self.terms[t].search
        else {
            return;
        };
        self.terms[t].play.set_play(seg_end);
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
}
