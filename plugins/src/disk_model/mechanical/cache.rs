//! The on-board cache: a few segments, each holding one contiguous LBN range.
//!
//! A read that finds its whole range in a segment is a hit. A miss takes the least recently
//! used segment, which then holds the request and whatever read-ahead follows it. Written
//! data is kept for later reads when the spec allows read hits on write data; any older copy
//! of written LBNs in another segment is dropped.

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
}

impl Cache {
    /// `n` empty segments.
    pub fn new(n: u32, enabled: bool) -> Cache {
        Cache {
            segs: vec![Segment::default(); n.max(1) as usize],
            clock: 0,
            enabled,
        }
    }

    /// The segment holding all of `lbn..lbn+n`, marked used.
    pub fn lookup(&mut self, lbn: u64, n: u64) -> Option<usize> {
        if !self.enabled {
            return None;
        }
        let i = self
            .segs
            .iter()
            .position(|s| s.start <= lbn && lbn + n <= s.end && s.start < s.end)?;
        self.clock += 1;
        self.segs[i].used = self.clock;
        Some(i)
    }

    /// Takes a segment for the write of `lbn..lbn+n`: one already holding some of those LBNs
    /// (the most recently used of them, its old contents dropped; DiskSim 4.0 prefers a clean
    /// segment the write overlaps), else as [`Cache::fill`].
    pub fn fill_write(&mut self, lbn: u64, n: u64) -> usize {
        let overlapping = self
            .segs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.start < s.end && s.start < lbn + n && lbn < s.end)
            .max_by_key(|(_, s)| s.used)
            .map(|(i, _)| i);
        match overlapping {
            Some(i) => {
                self.segs[i] = Segment::default();
                self.take(i, lbn, n)
            }
            None => self.fill(lbn, n),
        }
    }

    /// Takes the least recently used segment for `lbn..lbn+n` (dropping other copies of those
    /// LBNs) and returns its index.
    pub fn fill(&mut self, lbn: u64, n: u64) -> usize {
        let i = self
            .segs
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| s.used)
            .map(|(i, _)| i)
            .unwrap_or(0);
        self.take(i, lbn, n)
    }

    /// Segment `i` now holds `lbn..lbn+n`; other copies of those LBNs are dropped.
    fn take(&mut self, i: usize, lbn: u64, n: u64) -> usize {
        for s in &mut self.segs {
            if s.start < lbn + n && lbn < s.end {
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
            .position(|s| s.start <= lbn && lbn < s.end && s.end < lbn + n)
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
        let mut c = Cache::new(2, true);
        let a = c.fill(0, 8);
        c.extend(a, 100, 1000);
        assert_eq!(c.lookup(50, 50), Some(a));
        assert_eq!(c.lookup(50, 51), None);
        let b = c.fill(1000, 8);
        assert_ne!(a, b);
        // a was used more recently than b's fill? no: b is newest, so a is evicted next
        let d = c.fill(2000, 8);
        assert_eq!(d, a);
        assert_eq!(c.lookup(0, 8), None);
        // a write over part of b's range truncates it
        c.invalidate(1004, 2);
        assert_eq!(c.segment(b).end, 1004);
        // read-ahead past the segment's size drops its front
        c.extend(b, 1100, 64);
        assert_eq!((c.segment(b).start, c.segment(b).end), (1036, 1100));
    }
}
