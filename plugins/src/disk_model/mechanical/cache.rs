//! The on-board cache: a few segments, each holding one contiguous LBN range.
//!
//! A read that finds its whole range in a segment is a hit. A miss or a write takes a
//! segment by DiskSim 4.0's priorities (`disk_buffer_select_read_segment` and
//! `_write_segment`): a read miss an empty segment first, then a clean one, and the one
//! read-ahead is filling last; a write a clean segment holding some of its LBNs, then an
//! empty one, then a clean one, the read-ahead's last; among equals the least recently used.
//! With a separate write segment, writes always take it and reads never look at it. Written
//! data is kept for later reads when the spec allows read hits on write data; a write empties
//! every other clean segment holding some of its LBNs.

/// One segment's contents: LBNs `start..end`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// First LBN held.
    pub start: u64,
    /// One past the last LBN held (`start == end`: empty).
    pub end: u64,
    /// Last use, for LRU.
    pub used: u64,
}

/// The segments of one disk.
#[derive(Clone, Debug)]
pub struct Cache {
    segs: Vec<Segment>,
    clock: u64,
    enabled: bool,
    /// Segment 0 is for writes only.
    write_segment: bool,
}

impl Cache {
    /// `n` empty segments; with `write_segment` (and `n` ≥ 2) the first is kept for writes.
    pub fn new(n: u32, enabled: bool, write_segment: bool) -> Cache {
        Cache {
            segs: vec![Segment::default(); n.max(1) as usize],
            clock: 0,
            enabled,
            write_segment: write_segment && n >= 2,
        }
    }

    /// The segments reads may use.
    fn readable(&self) -> std::ops::Range<usize> {
        usize::from(self.write_segment)..self.segs.len()
    }

    /// The segment holding all of `lbn..lbn+n`, marked used.
    pub fn lookup(&mut self, lbn: u64, n: u64) -> Option<usize> {
        if !self.enabled {
            return None;
        }
        let i = self.readable().find(|&i| {
            let s = &self.segs[i];
            s.start <= lbn && lbn + n <= s.end && s.start < s.end
        })?;
        self.clock += 1;
        self.segs[i].used = self.clock;
        Some(i)
    }

    /// The segment in `range` of the highest `value`, the least recently used among equals
    /// (DiskSim keeps its segments in LRU order and takes the first best; segments never
    /// used are taken from the highest index down, an order as arbitrary as DiskSim's).
    fn best(&self, range: std::ops::Range<usize>, value: impl Fn(usize, &Segment) -> u8) -> usize {
        range
            .map(|i| (value(i, &self.segs[i]), self.segs[i].used, i))
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
            .map_or(0, |(_, _, i)| i)
    }

    /// Takes a segment for the write of `lbn..lbn+n`, `reading` being the one read-ahead was
    /// filling when the write came (if it had not finished): the separate write segment if
    /// there is one; else a clean segment holding some of those LBNs (4), an empty one (3),
    /// a clean one (2), the read-ahead's (1). Its old contents are dropped, and so is every
    /// other clean segment holding some of the LBNs (not the read-ahead's: DiskSim leaves an
    /// active segment as it is).
    pub fn fill_write(&mut self, lbn: u64, n: u64, reading: Option<usize>) -> usize {
        let overlaps = |s: &Segment| s.start < s.end && s.start < lbn + n && lbn < s.end;
        let i = if self.write_segment {
            0
        } else {
            self.best(0..self.segs.len(), |k, s| {
                if Some(k) == reading {
                    1
                } else if s.start == s.end {
                    3
                } else if overlaps(s) {
                    4
                } else {
                    2
                }
            })
        };
        for (k, s) in self.segs.iter_mut().enumerate() {
            if k != i && Some(k) != reading && overlaps(s) {
                s.end = s.start;
            }
        }
        self.segs[i].end = self.segs[i].start;
        self.take(i, lbn, n, reading.filter(|&r| r != i))
    }

    /// Takes a segment for the read miss of `lbn..lbn+n` (dropping other copies of those
    /// LBNs), `reading` as for [`Cache::fill_write`]: an empty segment (3), a clean one (2),
    /// the read-ahead's (1); returns its index.
    pub fn fill(&mut self, lbn: u64, n: u64, reading: Option<usize>) -> usize {
        let i = self.best(self.readable(), |k, s| {
            if Some(k) == reading {
                1
            } else if s.start == s.end {
                3
            } else {
                2
            }
        });
        self.take(i, lbn, n, None)
    }

    /// Segment `i` now holds `lbn..lbn+n`; other copies of those LBNs are dropped, but for
    /// segment `keep`.
    fn take(&mut self, i: usize, lbn: u64, n: u64, keep: Option<usize>) -> usize {
        for (k, s) in self.segs.iter_mut().enumerate() {
            if Some(k) != keep && s.start < lbn + n && lbn < s.end {
                // keep the part before the overwritten range
                s.end = s.end.min(lbn).max(s.start);
            }
        }
        self.clock += 1;
        self.segs[i] = Segment {
            start: lbn,
            end: if self.enabled { lbn + n } else { lbn },
            used: self.clock,
        };
        i
    }

    /// Extends segment `i` (read-ahead) to end at `end`, keeping its last `size` sectors
    /// (DiskSim's segment wrap: read-ahead past the segment's size overwrites its front).
    pub fn extend(&mut self, i: usize, end: u64, size: u64) {
        let s = &mut self.segs[i];
        if self.enabled && s.end < end {
            s.end = end;
            s.start = s.start.max(end.saturating_sub(size));
        }
    }

    /// The segment holding the first LBNs of `lbn..lbn+n` but not all of them (a partial
    /// hit), if any.
    pub fn prefix(&self, lbn: u64, n: u64) -> Option<usize> {
        if !self.enabled {
            return None;
        }
        self.segs
            .iter()
            .enumerate()
            .skip(usize::from(self.write_segment))
            .find(|(_, s)| s.start <= lbn && lbn < s.end && s.end < lbn + n)
            .map(|(i, _)| i)
    }

    /// Segment `i`.
    pub fn segment(&self, i: usize) -> Segment {
        self.segs[i]
    }

    /// Forgets everything written to `lbn..lbn+n` (a write not kept for reads).
    pub fn invalidate(&mut self, lbn: u64, n: u64) {
        for s in &mut self.segs {
            if s.start < lbn + n && lbn < s.end {
                s.end = s.end.min(lbn).max(s.start);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_hits_and_overwrites() {
        let mut c = Cache::new(2, true, false);
        let a = c.fill(0, 8, None);
        c.extend(a, 100, 1000);
        assert_eq!(c.lookup(50, 50), Some(a));
        assert_eq!(c.lookup(50, 51), None);
        let b = c.fill(1000, 8, None);
        assert_ne!(a, b);
        // a was used more recently than b's fill? no: b is newest, so a is evicted next
        let d = c.fill(2000, 8, None);
        assert_eq!(d, a);
        assert_eq!(c.lookup(0, 8), None);
        // a write over part of b's range truncates it
        c.invalidate(1004, 2);
        assert_eq!(c.segment(b).end, 1004);
        // read-ahead past the segment's size drops its front
        c.extend(b, 1100, 64);
        assert_eq!((c.segment(b).start, c.segment(b).end), (1036, 1100));
    }

    /// DiskSim's priorities: a read miss takes an empty segment before the least recently
    /// used clean one, and the read-ahead's last; a write takes a clean segment it overlaps
    /// first and empties the other clean ones it overlaps.
    #[test]
    fn misses_and_writes_take_segments_by_disksim_priorities() {
        let mut c = Cache::new(3, true, false);
        let a = c.fill(0, 8, None);
        let b = c.fill(100, 8, None);
        let e = c.fill(200, 8, None);
        c.invalidate(200, 8); // e is empty now, and the most recently used
        assert_eq!(c.fill(300, 8, None), e, "empty before the LRU clean one");
        // a (LRU) is being read ahead into: b, the next least recently used, is taken
        assert_eq!(c.fill(400, 8, Some(a)), b);
        // a write overlapping a and e's data takes the LRU of them and empties the other
        let mut c = Cache::new(3, true, false);
        let a = c.fill(0, 8, None);
        let b = c.fill(4, 8, None); // holds 4..12; a keeps 0..4
        let other = c.fill(500, 8, None);
        let w = c.fill_write(2, 4, None);
        assert_eq!(w, a, "the least recently used clean segment it overlaps");
        assert_eq!(c.segment(w).start..c.segment(w).end, 2..6);
        assert_eq!(c.segment(b).start, c.segment(b).end, "overlapping, emptied");
        assert_eq!(c.segment(other).end, 508, "not overlapping, kept");
        // but not the segment read-ahead is filling
        let mut c = Cache::new(2, true, false);
        let r = c.fill(0, 8, None);
        c.fill(100, 8, None);
        let w = c.fill_write(4, 2, Some(r));
        assert_ne!(w, r);
        assert_eq!(c.segment(r).end, 8, "the active segment is left as it is");
    }

    /// A separate write segment: writes always take segment 0, reads never find it.
    #[test]
    fn a_separate_write_segment_is_for_writes_only() {
        let mut c = Cache::new(2, true, true);
        assert_eq!(c.fill_write(10, 4, None), 0);
        assert_eq!(
            c.lookup(10, 4),
            None,
            "reads do not look in the write segment"
        );
        assert_eq!(c.fill(10, 4, None), 1);
        assert_eq!(c.fill(50, 4, None), 1, "the only read segment");
        assert_eq!(c.prefix(50, 8), Some(1));
    }
}
