//! Continuity measured, as Wu et al. define it (§4.2, eq. 9–10): with `[run] continuity =
//! L`, the run records every stream's block arrival times and reports, for each buffer
//! length l = 1…L, the share of windows of l consecutive arrivals that came in time — the
//! l blocks collected in less time than they take to play:
//!
//! ```text
//! x_1 + … + x_l < 8·(B_1 + … + B_l)/a          (eq. 9 with the blocks' own sizes)
//! ```
//!
//! where `x_i` is the time between the arrivals of a stream's consecutive blocks and `a` the
//! videos' bit rate. This is the frequency whose probability eq. 10 computes, so the run's
//! `continuity.p_c[l − 1]` and `vodbench analyze`'s P_c(l) (model `wu-continuity`) are
//! directly comparable.
//!
//! **Which inter-arrivals count.** Eq. 8 describes a stream the server reads for
//! continuously: its next block is already asked for when a block arrives. A terminal whose
//! buffer is full asks for its next block only when playout frees room, so the gap before
//! that block measures its playout, not the server. Such an arrival — and one that is not
//! the stream's next block (a seek, a new video, a block that overtook an earlier one) —
//! ends the stream's chain: it is counted in `held_back`, and windows never span it. To
//! measure P_c, give the terminals more memory than they fill (`terminals.memory` large,
//! `terminals.prime` the buffer that starts display), as `scenarios/wu/fig12-*.toml` do;
//! with a buffer that fills, the windows counted are the ones after slow arrivals, which
//! biases the share downward.
//!
//! A window counts in the measured period when all its arrivals do. The cost is O(L) per
//! arrival, and nothing at all without `[run] continuity`.

use crate::results::{Column, ContinuitySummary, Table};
use crate::time::SimTime;

/// The largest window `[run] continuity` may ask for.
pub const MAX_WINDOW: u32 = 100;

/// One stream's chain of counted inter-arrivals.
#[derive(Clone, Default)]
struct Chain {
    /// The session epoch and block index of the last arrival, and when it came (`None`
    /// before the first, or when the last arrival was outside the measured period).
    last: Option<(u32, u32, SimTime)>,
    /// The most recent inter-arrivals (ns) and their blocks' bytes, newest last, at most
    /// `max_l` of them.
    recent: std::collections::VecDeque<(u64, u64)>,
}

/// The accumulators of `[run] continuity`.
pub(super) struct Continuity {
    max_l: u32,
    bit_rate: u64,
    chains: Vec<Chain>,
    inter_arrivals: u64,
    held_back: u64,
    /// Per l − 1: windows counted, and of them the ones in time.
    windows: Vec<u64>,
    in_time: Vec<u64>,
}

/// What the engine knows of a block's arrival.
#[derive(Copy, Clone, Debug)]
pub(super) struct Arrival {
    /// The stream (terminal).
    pub terminal: u32,
    /// The terminal's session epoch when it asked (a seek or a new video starts another).
    pub epoch: u32,
    /// The block's index in its video.
    pub block: u32,
    /// Its bytes.
    pub bytes: u64,
    /// When the terminal asked for it.
    pub sent: SimTime,
}

impl Continuity {
    /// Accumulators for windows up to `max_l` (0: off) of `terminals` streams whose videos
    /// play at `bit_rate` bit/s.
    pub fn new(max_l: u32, terminals: u32, bit_rate: u64) -> Self {
        let on = max_l > 0;
        Continuity {
            max_l,
            bit_rate,
            chains: if on {
                vec![Chain::default(); terminals as usize]
            } else {
                Vec::new()
            },
            inter_arrivals: 0,
            held_back: 0,
            windows: vec![0; max_l as usize],
            in_time: vec![0; max_l as usize],
        }
    }

    /// Block `a` arrived at its terminal at `now` (in the measured period when `measuring`).
    #[inline]
    pub fn arrived(&mut self, a: Arrival, now: SimTime, measuring: bool) {
        if self.max_l == 0 {
            return;
        }
        let chain = &mut self.chains[a.terminal as usize];
        let prev = chain.last.take();
        if !measuring {
            chain.recent.clear();
            return;
        }
        chain.last = Some((a.epoch, a.block, now));
        let Some((epoch, block, at)) = prev else {
            return;
        };
        // continuously served: the same session's next block, asked for before the last
        // one arrived
        if epoch != a.epoch || block.checked_add(1) != Some(a.block) || a.sent > at {
            chain.recent.clear();
            self.held_back += 1;
            return;
        }
        self.inter_arrivals += 1;
        if chain.recent.len() == self.max_l as usize {
            chain.recent.pop_front();
        }
        chain
            .recent
            .push_back((now.saturating_since(at).as_nanos(), a.bytes));
        // windows ending here: the last l inter-arrivals, l = 1…
        let (mut took, mut bytes) = (0u128, 0u128);
        for (l, &(x, b)) in chain.recent.iter().rev().enumerate() {
            took += u128::from(x);
            bytes += u128::from(b);
            self.windows[l] += 1;
            // took/1e9 s < 8·bytes/a s, exactly
            if took * u128::from(self.bit_rate) < bytes * 8 * 1_000_000_000 {
                self.in_time[l] += 1;
            }
        }
    }

    /// The summary's `continuity` and the `continuity` table (a row per l), or nothing
    /// when not asked for.
    pub fn report(&self) -> Option<(ContinuitySummary, Table)> {
        if self.max_l == 0 {
            return None;
        }
        let p_c: Vec<Option<f64>> = self
            .windows
            .iter()
            .zip(&self.in_time)
            .map(|(&w, &i)| (w > 0).then(|| i as f64 / w as f64))
            .collect();
        let summary = ContinuitySummary {
            max_l: self.max_l,
            inter_arrivals: self.inter_arrivals,
            held_back: self.held_back,
            windows: self.windows.clone(),
            in_time: self.in_time.clone(),
            p_c: p_c.clone(),
        };
        let table = Table {
            name: "continuity".into(),
            columns: vec![
                (
                    "l".into(),
                    Column::U64((1..=u64::from(self.max_l)).collect()),
                ),
                ("windows".into(), Column::U64(self.windows.clone())),
                ("in_time".into(), Column::U64(self.in_time.clone())),
                (
                    "p_c".into(),
                    Column::F64(p_c.iter().map(|p| p.unwrap_or(f64::NAN)).collect()),
                ),
            ],
        };
        Some((summary, table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn at(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * MS)
    }

    /// Blocks of 1,000 bytes at 8 kbit/s play for 1 s each.
    fn arrival(block: u32, sent_ms: u64) -> Arrival {
        Arrival {
            terminal: 0,
            epoch: 0,
            block,
            bytes: 1_000,
            sent: at(sent_ms),
        }
    }

    /// Inter-arrivals 900, 1200, 800 ms against 1 s of playout each: by hand, l = 1 has
    /// 2 of 3 in time, l = 2 has (2100: late, 2000: not below 2000) 0 of 2, l = 3 has
    /// 2900 < 3000: 1 of 1.
    #[test]
    fn windows_are_counted_by_hand() {
        let mut c = Continuity::new(3, 1, 8_000);
        let mut t = 0;
        c.arrived(arrival(0, 0), at(t), true);
        for (i, x) in [900, 1200, 800].into_iter().enumerate() {
            let sent = t; // asked for when the previous one arrived
            t += x;
            c.arrived(arrival(i as u32 + 1, sent), at(t), true);
        }
        let (s, _) = c.report().unwrap();
        assert_eq!(s.windows, vec![3, 2, 1]);
        assert_eq!(s.in_time, vec![2, 0, 1]);
        assert_eq!(s.p_c, vec![Some(2.0 / 3.0), Some(0.0), Some(1.0)]);
        assert_eq!((s.inter_arrivals, s.held_back), (3, 0));
    }

    /// A block asked for after the previous one arrived (a full buffer), a skipped block
    /// and a new session each break the chain; so does the end of the measured period.
    #[test]
    fn chains_break_where_the_stream_was_not_served_continuously() {
        let mut c = Continuity::new(2, 1, 8_000);
        c.arrived(arrival(0, 0), at(0), true);
        c.arrived(arrival(1, 0), at(500), true); // counted
        c.arrived(arrival(2, 600), at(1_000), true); // asked late: held back
        c.arrived(arrival(3, 900), at(1_500), true); // counted, a new chain
        c.arrived(arrival(5, 1_500), at(2_000), true); // skipped block 4: held back
        let mut other = arrival(6, 2_000);
        other.epoch = 1;
        c.arrived(other, at(2_500), true); // a new session: held back
        c.arrived(arrival(7, 2_500), at(3_000), false); // not measuring: nothing
        c.arrived(arrival(8, 3_000), at(3_500), true); // after a gap: starts a chain
        let (s, t) = c.report().unwrap();
        assert_eq!((s.inter_arrivals, s.held_back), (2, 3));
        // the two counted inter-arrivals were in different chains: no window of 2
        assert_eq!(s.windows, vec![2, 0]);
        assert_eq!(s.p_c, vec![Some(1.0), None]);
        assert_eq!(t.name, "continuity");
    }

    proptest::proptest! {
        /// Against a brute-force count over the same arrivals: every window of l
        /// consecutive counted inter-arrivals within one chain is counted once, and is in
        /// time exactly when its l gaps are shorter than its l blocks' playout; windows
        /// never grow with l and never hold more in time than counted.
        #[test]
        fn windows_match_a_brute_force_count(
            // (gap ms, asked late?, skips a block?, bytes in kB)
            steps in proptest::collection::vec((1u64..3_000, proptest::bool::weighted(0.1),
                proptest::bool::weighted(0.05), 1u64..4), 1..200),
            max_l in 1u32..8,
        ) {
            let mut c = Continuity::new(max_l, 1, 8_000);
            let (mut t, mut block) = (0u64, 0u32);
            c.arrived(arrival(0, 0), at(0), true);
            // the chains as the brute force sees them: (gap ns, bytes) runs
            let mut chains: Vec<Vec<(u64, u64)>> = vec![Vec::new()];
            for &(gap, late, skip, kb) in &steps {
                let sent = if late { t + gap / 2 + 1 } else { t };
                block += if skip { 2 } else { 1 };
                t += gap;
                let mut a = arrival(block, sent);
                a.bytes = kb * 1_000;
                c.arrived(a, at(t), true);
                if late || skip {
                    chains.push(Vec::new());
                } else {
                    chains.last_mut().unwrap().push((gap * MS, kb * 1_000));
                }
            }
            let (s, _) = c.report().unwrap();
            for l in 1..=max_l as usize {
                let (mut w, mut i) = (0u64, 0u64);
                for ch in &chains {
                    for win in ch.windows(l) {
                        w += 1;
                        let took: u64 = win.iter().map(|x| x.0).sum();
                        let bytes: u64 = win.iter().map(|x| x.1).sum();
                        // bytes·8 / 8000 bit/s = bytes ms
                        if took < bytes * MS {
                            i += 1;
                        }
                    }
                }
                proptest::prop_assert_eq!(s.windows[l - 1], w, "l = {}", l);
                proptest::prop_assert_eq!(s.in_time[l - 1], i, "l = {}", l);
                proptest::prop_assert!(s.in_time[l - 1] <= s.windows[l - 1]);
                if l > 1 {
                    proptest::prop_assert!(s.windows[l - 1] <= s.windows[l - 2]);
                }
            }
            let counted: usize = chains.iter().map(Vec::len).sum();
            proptest::prop_assert_eq!(s.inter_arrivals, counted as u64);
            proptest::prop_assert_eq!(s.held_back as usize, chains.len() - 1);
        }
    }

    #[test]
    fn off_records_nothing() {
        let mut c = Continuity::new(0, 4, 8_000);
        c.arrived(arrival(0, 0), at(0), true);
        assert!(c.report().is_none());
    }
}
