//! `mcs`: Most Compact Sequence replacement (Waldvogel et al. §V-C).
//!
//! Among all runs of κ consecutive cached (evictable) frames, with playout times
//! `P₁ < … < P_κ`, MCS writes the one with the smallest *sparseness* `S = Σ (P_i − P₁)`, the
//! rightmost on ties. Compact runs drag few far-future frames back into memory when their
//! first frame is due, so fewer frames cycle; in the best case the run is κ consecutive
//! frames. The scan is one pass with a sliding window: `S = Σ P_i − κ·P₁`.

use super::BatchParams;
use std::collections::VecDeque;
use vodbench_plugin_api::plugin::{BuildContext, CacheView, ClientBuffer, Plugin, PluginError};

/// The `mcs` policy.
#[derive(Debug, Clone)]
pub struct Mcs {
    kappa: u32,
    window: VecDeque<u32>,
}

impl Mcs {
    /// MCS writing `kappa` frames per batch.
    pub fn new(kappa: u32) -> Self {
        Mcs {
            kappa: kappa.max(1),
            window: VecDeque::new(),
        }
    }
}

/// Sparseness of a run of playout times (sorted ascending): `Σ (P_i − P₁)`.
pub fn sparseness(run: &[u32]) -> u64 {
    run.first()
        .map_or(0, |&p1| run.iter().map(|&p| u64::from(p - p1)).sum())
}

impl ClientBuffer for Mcs {
    fn batch_frames(&self) -> u32 {
        self.kappa
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        let k = self.kappa as usize;
        let w = &mut self.window;
        w.clear();
        let mut sum: u64 = 0;
        let mut best: Option<(u64, u32)> = None; // (sparseness, first frame of the run)
        for f in cache.evictable() {
            w.push_back(f);
            sum += u64::from(f);
            if w.len() > k {
                sum -= u64::from(w.pop_front().expect("non-empty"));
            }
            if w.len() == k {
                let first = w[0];
                let s = sum - k as u64 * u64::from(first);
                if best.is_none_or(|(b, _)| s <= b) {
                    best = Some((s, first));
                }
            }
        }
        match best {
            Some((_, first)) => out.extend(cache.evictable_from(first).take(k)),
            None => out.extend(cache.evictable()), // fewer than κ evictable: all of them
        }
    }
}

impl Plugin for Mcs {
    type Kind = dyn ClientBuffer;
    type Params = BatchParams;
    const NAME: &'static str = "mcs";
    const DESCRIPTION: &'static str =
        "write the rightmost κ-run of cached frames with minimum sparseness Σ(P_i − P_1)";

    fn validate(p: &BatchParams) -> Result<(), PluginError> {
        p.check()
    }

    fn build(
        p: &BatchParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn ClientBuffer>, PluginError> {
        Ok(Box::new(Mcs::new(p.frames(ctx)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(frames: &[u32]) -> Vec<u64> {
        let mut w = vec![0u64; 4];
        for &f in frames {
            w[(f / 64) as usize] |= 1 << (f % 64);
        }
        w
    }

    #[test]
    fn sparseness_by_hand() {
        assert_eq!(sparseness(&[10, 11, 12]), 3);
        // Fig. 4's point: the same span, frames nearer the head are better.
        assert_eq!(sparseness(&[10, 11, 15]), 6);
        assert_eq!(sparseness(&[10, 14, 15]), 9);
        assert_eq!(sparseness(&[7]), 0);
    }

    #[test]
    fn picks_the_most_compact_run() {
        // runs of 3: (20,21,30)=11, (21,30,40)=28, (30,40,41)=21, (40,41,42)=3, (41,42,90)=50
        let frames = [20, 21, 30, 40, 41, 42, 90];
        let w = bits(&frames);
        let v = CacheView::new(&w, 7, 7, None);
        let mut out = Vec::new();
        Mcs::new(3).choose_victims(&v, &mut out);
        assert_eq!(out, [40, 41, 42]);
    }

    #[test]
    fn ties_go_to_the_rightmost_run() {
        let frames = [5, 6, 7, 50, 51, 52, 100];
        let w = bits(&frames);
        let v = CacheView::new(&w, 7, 7, None);
        let mut out = Vec::new();
        Mcs::new(3).choose_victims(&v, &mut out);
        assert_eq!(out, [50, 51, 52]);
    }

    #[test]
    fn pinned_frames_are_never_chosen() {
        let frames = [1, 2, 3, 40, 60, 80];
        let w = bits(&frames);
        let v = CacheView::new(&w, 6, 6, Some(3));
        let mut out = Vec::new();
        Mcs::new(3).choose_victims(&v, &mut out);
        assert_eq!(out, [40, 60, 80]);
        let mut out = Vec::new();
        Mcs::new(5).choose_victims(&v, &mut out);
        assert_eq!(out, [40, 60, 80], "fewer than κ evictable: all of them");
    }
}
