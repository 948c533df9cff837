//! Server stream memory under round-based retrieval (Pappas et al. §4, Fig. 20–22;
//! `[server.rounds]`): the buffers the server holds for the streams' blocks between their
//! retrieval and their transmission, and the blocks whose retrieval ended too late.
//!
//! Two levels, integrated over the measured window (peak and time-weighted mean) and sampled
//! into `timeseries.csv`:
//!
//! * **reserved**: the buffer space set aside for blocks. Under `dblbuf` a buffer of the
//!   block's S bytes is reserved when its retrieval is issued at the round boundary and
//!   released whole when its last packet leaves the egress (reading notes §4.6): at a
//!   boundary every stream holds the block read in the round that ended (now being sent)
//!   and the one just asked for, so the peak is exactly 2NS (M1). Under `clbuf` and
//!   `clbufrate` the buffer is taken when the block's data is in memory (its read ended)
//!   and freed packet by packet as the egress sends them (the notes take it at retrieval
//!   start: the difference is at most the blocks being read, one per disk).
//! * **used**: the bytes of data in memory, whatever the policy: a block's bytes from the
//!   end of its read until each of its packets leaves.
//!
//! A late block is one whose read ends after the round boundary following its issue (under
//! `dblbuf`, after the start of its transmission round).

use super::stats::Level;
use crate::time::SimTime;

/// Reserved and used stream memory, and the late blocks.
#[derive(Default)]
pub(super) struct StreamMemory {
    reserved: Level,
    used: Level,
    /// Late blocks in the measured window.
    late: u64,
    /// Blocks whose read ended in the measured window.
    read: u64,
    /// Whether the levels were opened at the window's start.
    opened: bool,
}

/// What [`StreamMemory`] reports for a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MemoryFigures {
    pub reserved_peak: u64,
    pub reserved_mean: u64,
    pub used_peak: u64,
    pub used_mean: u64,
    pub late_blocks: u64,
    pub blocks_read: u64,
}

impl StreamMemory {
    /// `bytes` more reserved at `now`.
    pub fn reserve(&mut self, bytes: u64, now: SimTime, window: (SimTime, SimTime)) {
        self.at(now, window);
        let l = self.reserved.level() + bytes;
        self.reserved.set(now, l, window);
    }

    /// `bytes` of reservation given back at `now`.
    pub fn release(&mut self, bytes: u64, now: SimTime, window: (SimTime, SimTime)) {
        self.at(now, window);
        let l = self.reserved.level().checked_sub(bytes);
        debug_assert!(l.is_some(), "released more stream memory than reserved");
        self.reserved.set(now, l.unwrap_or(0), window);
    }

    /// A block of `bytes` is read into memory at `now` (`late`: after its round ended).
    pub fn read(&mut self, bytes: u64, late: bool, now: SimTime, window: (SimTime, SimTime)) {
        self.at(now, window);
        let l = self.used.level() + bytes;
        self.used.set(now, l, window);
        if now >= window.0 && now < window.1 {
            self.read += 1;
            self.late += u64::from(late);
        }
    }

    /// `bytes` of data left the egress at `now`.
    pub fn sent(&mut self, bytes: u64, now: SimTime, window: (SimTime, SimTime)) {
        self.at(now, window);
        let l = self.used.level().checked_sub(bytes);
        debug_assert!(l.is_some(), "sent more stream memory than was read");
        self.used.set(now, l.unwrap_or(0), window);
    }

    /// The levels now: (reserved, used).
    pub fn levels(&self) -> (u64, u64) {
        (self.reserved.level(), self.used.level())
    }

    /// Opens the levels at the window's start the first time a change (or the end) comes
    /// at or after it: the levels have not changed since, so the peak starts from them.
    fn at(&mut self, now: SimTime, window: (SimTime, SimTime)) {
        if !self.opened && now >= window.0 && window.0 < SimTime::MAX {
            self.opened = true;
            self.reserved.open(window.0);
            self.used.open(window.0);
        }
    }

    /// The figures over the window, closed at `end` after `measured` ns.
    pub fn figures(
        &mut self,
        end: SimTime,
        window: (SimTime, SimTime),
        measured: u64,
    ) -> MemoryFigures {
        self.at(end, window);
        let (ri, rp) = self.reserved.close(end, window);
        let (ui, up) = self.used.close(end, window);
        let mean = |i: u128| i.checked_div(u128::from(measured)).unwrap_or(0) as u64;
        MemoryFigures {
            reserved_peak: rp,
            reserved_mean: mean(ri),
            used_peak: up,
            used_mean: mean(ui),
            late_blocks: self.late,
            blocks_read: self.read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: u64) -> SimTime {
        SimTime::from_nanos(s * 1_000_000_000)
    }

    /// Double buffering by hand: 2 streams, S = 100, rounds of 1 s. At each boundary both
    /// streams reserve a block while the blocks read in the round before are being sent
    /// (released whole when their last packet leaves, 0.9 s into the round).
    #[test]
    fn double_buffering_peaks_at_two_n_s() {
        let w = (t(0), t(100));
        let mut m = StreamMemory::default();
        let ms = |x: u64| SimTime::from_nanos(x * 1_000_000);
        for k in 0..4u64 {
            m.reserve(200, t(k), w); // two streams' blocks asked for at boundary k
            m.read(100, false, ms(k * 1000 + 300), w);
            m.read(100, false, ms(k * 1000 + 600), w);
            if k > 0 {
                // round k-1's blocks sent during round k, done at 0.9 s
                m.sent(200, ms(k * 1000 + 900), w);
                m.release(200, ms(k * 1000 + 900), w);
            }
        }
        let f = m.figures(t(4), w, 4_000_000_000);
        assert_eq!(f.reserved_peak, 2 * 2 * 100);
        // reserved: 200 over [0,1), then 400 for 0.9 s and 200 for 0.1 s each round
        assert_eq!(
            f.reserved_mean,
            (200 * 1000 + 3 * (400 * 900 + 200 * 100)) / 4000
        );
        assert_eq!(f.used_peak, 400);
        assert_eq!((f.late_blocks, f.blocks_read), (0, 8));
    }

    #[test]
    fn late_blocks_and_the_window() {
        let w = (t(10), t(20));
        let mut m = StreamMemory::default();
        m.read(5, true, t(5), w); // before the window: not counted
        m.sent(5, t(6), w);
        m.read(5, false, t(7), w); // held when the window opens: counts in the peak
        m.read(5, true, t(12), w);
        m.read(5, false, t(13), w);
        m.sent(15, t(15), w);
        let f = m.figures(t(20), w, 10_000_000_000);
        assert_eq!((f.late_blocks, f.blocks_read), (1, 2));
        assert_eq!(f.used_peak, 15);
        // 5 over [10, 12), 10 over [12, 13), 15 over [13, 15), 0 after: 50 byte-s in 10 s
        assert_eq!(f.used_mean, 5);
        assert_eq!(m.levels(), (0, 0));
    }
}
