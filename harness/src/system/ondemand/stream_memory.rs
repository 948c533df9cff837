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
//!   `clbufrate` the buffer is taken when the disk starts the block's read (the notes'
//!   "reserved at retrieval start": the round's requests wait in the disk's SCAN queue
//!   without one) and freed packet by packet as the egress sends them.
//! * **used**: the bytes of data in memory, whatever the policy: a block's bytes from the
//!   end of its read until each of its packets leaves.
//!
//! **The cap** (`server.stream_memory`) under `clbuf` and `clbufrate`: a read whose buffer
//! does not fit beside the reserved ones waits, its disk idle and committed to it, until
//! enough is freed; waiting reads get their buffers first come, first served (a later read
//! that would fit waits behind an earlier one that does not), so reserved never exceeds
//! the cap. The waits are counted (reads that waited, total, mean and longest wait) over
//! the reads that started in the measured window after waiting a positive time (a buffer
//! freed in the same instant, by an event ordered just after the read's, is no wait). Under `dblbuf` the cap is admission only
//! (2S per stream, `admission.rs`).
//!
//! A late block is one whose read ends after the round boundary following its issue (under
//! `dblbuf`, after the start of its transmission round).

use super::stats::Level;
use crate::time::SimTime;
use std::collections::VecDeque;

/// Reserved and used stream memory, the late blocks, and the reads waiting under the cap.
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
    /// The cap reads wait under (`server.stream_memory` with `clbuf` / `clbufrate`).
    cap: Option<u64>,
    /// Reads waiting for a buffer, first come first served.
    waiting: VecDeque<Waiting>,
    /// Reads that waited and started in the measured window, and their waits.
    waits: u64,
    wait_total: u128,
    wait_max: u64,
}

/// A read waiting for its buffer under the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Waiting {
    /// The disk committed to it.
    pub disk: usize,
    /// The disk access (its slot).
    pub access: u32,
    pub bytes: u64,
    pub since: SimTime,
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
    /// With a cap reads wait under: (reads that waited, total wait ns, longest wait ns).
    pub waits: Option<(u64, u128, u64)>,
}

impl StreamMemory {
    /// Stream memory whose reads wait under `cap` (`None`: no cap to wait under).
    pub fn capped(cap: Option<u64>) -> Self {
        StreamMemory {
            cap,
            ..StreamMemory::default()
        }
    }

    /// A read of `bytes` by `access` at `disk` asks for its buffer at `now`: reserved and
    /// `true` if it fits under the cap and no read waits before it; otherwise it waits
    /// (`false`) until [`StreamMemory::wake`] gives it its buffer.
    pub fn take(
        &mut self,
        disk: usize,
        access: u32,
        bytes: u64,
        now: SimTime,
        window: (SimTime, SimTime),
    ) -> bool {
        let fits = self
            .cap
            .is_none_or(|cap| self.reserved.level() + bytes <= cap);
        if fits && self.waiting.is_empty() {
            self.reserve(bytes, now, window);
            return true;
        }
        self.waiting.push_back(Waiting {
            disk,
            access,
            bytes,
            since: now,
        });
        false
    }

    /// After a release at `now`: the waiting reads whose buffers now fit, in the order they
    /// came, each reserved; the first that does not fit keeps the rest waiting.
    pub fn wake(&mut self, now: SimTime, window: (SimTime, SimTime)) -> Vec<Waiting> {
        let mut woken = Vec::new();
        let Some(cap) = self.cap else {
            return woken;
        };
        while let Some(&w) = self.waiting.front() {
            if self.reserved.level() + w.bytes > cap {
                break;
            }
            self.waiting.pop_front();
            self.reserve(w.bytes, now, window);
            let waited = now.saturating_since(w.since).as_nanos();
            // a buffer freed in the instant it was asked for is no wait (the order of
            // simultaneous events)
            if waited > 0 && now >= window.0 && now < window.1 {
                self.waits += 1;
                self.wait_total += u128::from(waited);
                self.wait_max = self.wait_max.max(waited);
            }
            woken.push(w);
        }
        woken
    }

    /// Reads waiting for a buffer now.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }
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
            waits: self
                .cap
                .map(|_| (self.waits, self.wait_total, self.wait_max)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

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

    /// The cap by hand: one disk of 10 ms reads, S = 100, a cap of one buffer, an egress
    /// that sends a block in 10 ms. Four reads queued at 0: the first takes the buffer and
    /// reads over [0, 10), is sent over [10, 20); the second, chosen at 10, waits for the
    /// buffer until 20, reads to 30, is sent to 40; the third waits [30, 40), the fourth
    /// [50, 60). Three waits of 10 ms, and reserved never above the cap.
    #[test]
    fn reads_wait_for_a_buffer_under_the_cap() {
        let ms = |x: u64| SimTime::from_nanos(x * 1_000_000);
        let w = (ms(0), ms(1000));
        let mut m = StreamMemory::capped(Some(100));
        assert!(m.take(0, 1, 100, ms(0), w));
        m.read(100, false, ms(10), w);
        for k in 0..3u64 {
            let chosen = ms(10 + 20 * k);
            assert!(!m.take(0, 2 + k as u32, 100, chosen, w), "read {}", k + 2);
            assert_eq!(m.waiting(), 1);
            assert_eq!(m.levels().0, 100);
            // the block before it leaves the egress 10 ms later: its buffer is free
            m.sent(100, chosen + SimDuration::from_millis(10), w);
            m.release(100, chosen + SimDuration::from_millis(10), w);
            let woken = m.wake(chosen + SimDuration::from_millis(10), w);
            assert_eq!(
                woken,
                vec![Waiting {
                    disk: 0,
                    access: 2 + k as u32,
                    bytes: 100,
                    since: chosen
                }]
            );
            m.read(100, false, chosen + SimDuration::from_millis(20), w);
        }
        m.sent(100, ms(80), w);
        m.release(100, ms(80), w);
        let f = m.figures(ms(1000), w, 1_000_000_000);
        assert_eq!(f.waits, Some((3, 30_000_000, 10_000_000)));
        assert_eq!(f.reserved_peak, 100);
        // each buffer is taken by the next read the instant it is freed: 100 over [0, 80)
        assert_eq!(f.reserved_mean, 100 * 80 / 1000);
        assert_eq!(m.levels(), (0, 0));
    }

    #[test]
    fn first_come_first_served_and_no_cap_never_waits() {
        let w = (t(0), t(10));
        let mut m = StreamMemory::capped(Some(300));
        assert!(m.take(0, 0, 200, t(0), w));
        assert!(!m.take(1, 1, 200, t(1), w)); // does not fit
        assert!(!m.take(2, 2, 50, t(1), w)); // would fit, but waits behind disk 1's
        m.release(100, t(2), w); // 100 + 200 fits, then 50 more does not
        let woken: Vec<usize> = m.wake(t(2), w).iter().map(|x| x.disk).collect();
        assert_eq!((woken, m.levels().0, m.waiting()), (vec![1], 300, 1));
        m.release(50, t(3), w);
        let woken: Vec<usize> = m.wake(t(3), w).iter().map(|x| x.disk).collect();
        assert_eq!((woken, m.levels().0, m.waiting()), (vec![2], 300, 0));
        let f = m.figures(t(10), w, 10_000_000_000);
        assert_eq!(f.waits, Some((2, 3_000_000_000, 2_000_000_000)));
        let mut free = StreamMemory::capped(None);
        for k in 0..100 {
            assert!(free.take(0, k, 1 << 40, t(0), w));
        }
        assert_eq!(free.figures(t(10), w, 1).waits, None);
    }

    proptest::proptest! {
        /// Whatever reads ask and whatever is freed, reserved never exceeds the cap and
        /// never goes negative, every read gets its buffer once enough is freed, and the
        /// waits counted are the reads that were made to wait.
        #[test]
        fn reserved_never_exceeds_the_cap(
            cap in 1u64..1_000,
            ops in proptest::collection::vec((0u64..1_000, proptest::bool::ANY), 1..200),
        ) {
            let w = (SimTime::ZERO, SimTime::MAX);
            let mut m = StreamMemory::capped(Some(cap));
            let mut held: Vec<u64> = Vec::new();
            let mut waited = 0u64;
            for (i, &(x, free)) in ops.iter().enumerate() {
                let now = SimTime::from_nanos(i as u64);
                if free && !held.is_empty() {
                    let b = held.remove(x as usize % held.len());
                    m.release(b, now, w);
                    held.extend(m.wake(now, w).iter().map(|r| r.bytes));
                } else {
                    let bytes = 1 + x % cap;
                    if m.take(0, i as u32, bytes, now, w) {
                        held.push(bytes);
                    } else {
                        waited += 1;
                    }
                }
                proptest::prop_assert!(m.levels().0 <= cap);
                proptest::prop_assert_eq!(m.levels().0, held.iter().sum::<u64>());
            }
            // free everything: every waiting read gets its buffer
            let end = SimTime::from_nanos(ops.len() as u64);
            while let Some(b) = held.pop() {
                m.release(b, end, w);
                held.extend(m.wake(end, w).iter().map(|r| r.bytes));
                proptest::prop_assert!(m.levels().0 <= cap);
            }
            proptest::prop_assert_eq!(m.waiting(), 0);
            proptest::prop_assert_eq!(m.figures(end, w, 1).waits.map(|x| x.0), Some(waited));
        }
    }
}
