//! When the bus has carried each sector of the request being served, kept as runs of evenly
//! spaced times rather than one time per sector.
//!
//! Within a stretch the bus moves one sector every bus-sector time (or, behind a slower
//! media, every media-sector time), so a request of a thousand sectors is a handful of runs:
//! recording and reading them costs a few operations per track, not one per sector. The
//! media model ([`super::disk`]) asks for a sector's time only to know whether the segment
//! has room for the sector it is about to read (DiskSim 4.0's buffer full stall) and for the
//! request's last.

/// `time(i) = base + (i − start + 1)·step` for `i` from `start` up to the next run's start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Run {
    start: usize,
    base: u64,
    step: u64,
}

impl Run {
    #[inline]
    fn at(&self, i: usize) -> u64 {
        self.base + (i - self.start + 1) as u64 * self.step
    }
}

/// Bus times of sectors `0..len()`, recorded in order.
#[derive(Clone, Debug, Default)]
pub struct BusTimes {
    runs: Vec<Run>,
    len: usize,
}

impl BusTimes {
    /// Forgets every time.
    #[inline]
    pub fn clear(&mut self) {
        self.runs.clear();
        self.len = 0;
    }

    /// Sectors recorded.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no sector is recorded.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Records the next `count` sectors: the `k`-th of them (from 1) at `base + k·step`.
    #[inline]
    pub fn push(&mut self, count: usize, base: u64, step: u64) {
        if count == 0 {
            return;
        }
        let start = self.len;
        match self.runs.last() {
            // one more stretch of the same line: extend the run
            Some(r) if r.step == step && r.at(start - 1) == base => {}
            _ => self.runs.push(Run { start, base, step }),
        }
        self.len += count;
    }

    /// The time of sector `i` (recorded).
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        debug_assert!(i < self.len);
        let k = self.runs.partition_point(|r| r.start <= i) - 1;
        self.runs[k].at(i)
    }

    /// The time of the last sector recorded.
    #[inline]
    pub fn last(&self) -> Option<u64> {
        self.runs.last().map(|r| r.at(self.len - 1))
    }

    /// The first `i` in `from..to` (recorded sectors) with `time(i) > t0 + (i − from)·w`,
    /// if any: the first sector whose bus time is behind a line rising `w` per sector.
    pub fn first_above(&self, from: usize, to: usize, t0: u64, w: u64) -> Option<usize> {
        if from >= to {
            return None;
        }
        let mut k = self.runs.partition_point(|r| r.start <= from) - 1;
        let mut i = from;
        while i < to {
            let r = self.runs[k];
            let end = self.runs.get(k + 1).map_or(self.len, |n| n.start).min(to);
            // within the run time(i) − line(i) changes by step − w per sector: monotone, so
            // the first crossing is found by a binary search on the side that rises
            let above = |i: usize| r.at(i) > t0 + (i - from) as u64 * w;
            if r.step >= w {
                if above(end - 1) {
                    let (mut a, mut b) = (i, end - 1);
                    while a < b {
                        let mid = (a + b) / 2;
                        if above(mid) {
                            b = mid;
                        } else {
                            a = mid + 1;
                        }
                    }
                    return Some(a);
                }
            } else if above(i) {
                return Some(i);
            }
            i = end;
            k += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(b: &BusTimes) -> Vec<u64> {
        (0..b.len()).map(|i| b.get(i)).collect()
    }

    #[test]
    fn runs_hold_every_sector_and_merge_on_one_line() {
        let mut b = BusTimes::default();
        b.push(3, 100, 10); // 110 120 130
        b.push(2, 130, 10); // the same line: merged
        b.push(0, 999, 1); // nothing
        b.push(2, 200, 7); // 207 214
        assert_eq!(plain(&b), [110, 120, 130, 140, 150, 207, 214]);
        assert_eq!(b.runs.len(), 2);
        assert_eq!(b.last(), Some(214));
        b.clear();
        assert!(b.is_empty() && b.last().is_none());
    }

    /// `first_above` is a linear scan's answer, over random runs and lines.
    #[test]
    fn first_above_is_the_scan() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..3_000 {
            let mut b = BusTimes::default();
            let mut t = rnd(1000);
            for _ in 0..1 + rnd(5) {
                let n = 1 + rnd(20) as usize;
                let step = 1 + rnd(30);
                t += rnd(50);
                b.push(n, t, step);
                t += n as u64 * step;
            }
            let v = plain(&b);
            let from = rnd(v.len() as u64) as usize;
            let to = from + rnd((v.len() - from) as u64 + 1) as usize;
            let (t0, w) = (rnd(1500), rnd(40));
            let scan = (from..to).find(|&i| v[i] > t0 + (i - from) as u64 * w);
            assert_eq!(
                b.first_above(from, to, t0, w),
                scan,
                "{v:?} {from}..{to} {t0} {w}"
            );
        }
    }
}
