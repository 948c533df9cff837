//! What the terminals measured: buffer samples, stalls closed at the end of the measured
//! period, glitches, start-up latency, the byte balance, the per-terminal table.

use super::*;

impl<'a> Terminals<'a> {
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
                let s = clip(t.stops.stall_since(), w1, window);
                let members: Vec<usize> = if i < self.cfg.count {
                    vec![i]
                } else {
                    t.group.members().iter().map(|&m| m as usize).collect()
                };
                for m in members {
                    self.terms[m].counts.stall(s);
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
            if t.counts.glitches() > 0 {
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
pub(super) struct TermRows {
    id: Vec<u64>,
    videos: Vec<u64>,
    glitches: Vec<u64>,
    stalled: Vec<u64>,
    received: Vec<u64>,
    startup_mean: Vec<u64>,
}

impl TermRows {
    pub(super) fn push(&mut self, i: usize, t: &Term) {
        self.id.push(i as u64);
        self.videos.push(t.counts.videos_started());
        self.glitches.push(t.counts.glitches());
        self.stalled.push(t.counts.stalled());
        self.received.push(t.counts.bytes_received());
        self.startup_mean.push(t.counts.startup_mean());
    }

    pub(super) fn table(self) -> Table {
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
