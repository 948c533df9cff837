//! The arithmetic of a terminal's playout: which bytes it holds, which frames it can show,
//! when each is displayed, and when there is room for another block — computed exactly from
//! the video library's frame offsets (SPIFFI §5.1, §6.1), for one terminal's state at a time.
//!
//! A terminal reads one stripe block at a time and reserves memory for a block when it asks
//! for it. A frame leaves the buffer when its display starts; display needs all of the
//! frame's bytes, and the blocks before it, to have arrived.

use super::term::{TState, Term};
use super::video::VideoLibrary;
use crate::time::{mul_div_ceil, SimTime, NANOS_PER_SEC};

/// The library and the terminals' shared settings: everything playout arithmetic reads
/// besides one terminal's state.
pub(super) struct Playout<'a> {
    pub lib: &'a VideoLibrary,
    /// Stripe block size.
    pub block_bytes: u64,
    /// Blocks of each object of the library.
    pub blocks: &'a [u32],
    /// Each terminal's buffer memory.
    pub memory: u64,
    /// `terminals.prime`: bytes to buffer before display (`None`: the whole buffer).
    pub prime: Option<u64>,
    /// Blocks asked for together (`[terminals.rounds] blocks`; 1: one block at a time).
    pub set: u32,
}

impl Playout<'_> {
    /// Bytes of the object up to the terminal's frontier (every block before it arrived).
    #[inline]
    pub fn frontier_bytes(&self, tm: &Term) -> u64 {
        (u64::from(tm.read.frontier()) * self.block_bytes)
            .min(self.lib.total_bytes(tm.read.video() as usize))
    }

    /// Bytes the terminal has freed: played, or skipped before its first block.
    pub fn freed_bytes(&self, tm: &Term) -> u64 {
        self.lib
            .offset(tm.read.video() as usize, tm.play.play())
            .max(u64::from(tm.read.first()) * self.block_bytes)
    }

    /// Whether the bytes the terminal has freed (played, or skipped before its first block)
    /// reach `threshold`. Asked as "has play reached the first frame that ends at or past
    /// it" rather than by the play frame's byte offset: the threshold is usually a block
    /// boundary (memory is a whole number of blocks), which the library answers from a table,
    /// while the play frame's offset needs its GOP decoded — once per wake-up otherwise.
    #[inline]
    pub fn freed_reach(&self, tm: &Term, threshold: u64) -> bool {
        u64::from(tm.read.first()) * self.block_bytes >= threshold
            || tm.play.play()
                >= self
                    .lib
                    .first_frame_reaching(tm.read.video() as usize, threshold)
    }

    /// Bytes of the object up to the next block to request.
    #[inline]
    pub fn requested_bytes(&self, tm: &Term) -> u64 {
        (u64::from(tm.read.next()) * self.block_bytes)
            .min(self.lib.total_bytes(tm.read.video() as usize))
    }

    /// Frames of the object the terminal reads.
    #[inline]
    pub fn frames_of(&self, tm: &Term) -> u64 {
        self.lib.frames_of(tm.read.video() as usize)
    }

    /// Display instant of frame `f` in the current playout.
    #[inline]
    pub fn disp(&self, tm: &Term, f: u64) -> SimTime {
        tm.play.base_time() + (self.lib.frame_time(f) - self.lib.frame_time(tm.play.base_frame()))
    }

    /// Frames whose display has started by `now` in the current playout.
    #[inline]
    pub fn frames_started_by(&self, tm: &Term, now: SimTime) -> u64 {
        let target = self.lib.frame_time(tm.play.base_frame()).as_nanos()
            + now.saturating_since(tm.play.base_time()).as_nanos();
        let n = match target.checked_add(1) {
            Some(x) => mul_div_ceil(x, self.lib.fps(), NANOS_PER_SEC),
            None => (u128::from(target) + 1)
                .saturating_mul(u128::from(self.lib.fps()))
                .div_ceil(u128::from(NANOS_PER_SEC)) as u64,
        };
        n.min(self.frames_of(tm))
    }

    /// Frames held entirely in the terminal's contiguous data.
    #[inline]
    pub fn frames_available(&self, tm: &Term) -> u64 {
        self.lib
            .frames_within(tm.read.video() as usize, self.frontier_bytes(tm))
    }

    /// The first frame that needs the terminal's next block (at least its play frame).
    #[inline]
    pub fn first_frame_of_next(&self, tm: &Term) -> u64 {
        self.lib
            .first_frame_reaching(
                tm.read.video() as usize,
                u64::from(tm.read.next()) * self.block_bytes + 1,
            )
            .saturating_sub(1)
            .max(tm.play.play())
    }

    /// Length of block `index` of object `video` (the last may be short).
    #[inline]
    pub fn block_len(&self, video: u32, index: u32) -> u64 {
        let total = self.lib.total_bytes(video as usize);
        let start = u64::from(index) * self.block_bytes;
        total.saturating_sub(start).min(self.block_bytes)
    }

    /// The bytes the terminal must have freed before the next block fits in its memory
    /// (requested − freed + the block's length <= memory). Reading in rounds, the next block
    /// opens a set unless one is under way: then the whole set must fit (its room is reserved
    /// with its first block, so the set's later blocks need nothing more).
    #[inline]
    pub fn room_threshold(&self, tm: &Term) -> u64 {
        if self.set <= 1 {
            return (self.requested_bytes(tm) + self.block_len(tm.read.video(), tm.read.next()))
                .saturating_sub(self.memory);
        }
        let blocks = self.blocks[tm.read.video() as usize];
        let ahead = if tm.read.set_left() > 0 {
            tm.read.set_left()
        } else {
            self.set
        };
        let end = tm.read.next().saturating_add(ahead).min(blocks);
        let end_bytes =
            (u64::from(end) * self.block_bytes).min(self.lib.total_bytes(tm.read.video() as usize));
        end_bytes.saturating_sub(self.memory)
    }

    /// Whether the terminal may request its next block now: it reads a session, the block
    /// exists and is within its search limit, at most 128 blocks are past its frontier, and
    /// the block fits in its memory.
    #[inline]
    pub fn can_request(&self, tm: &Term) -> bool {
        if tm.without_session()
            || tm.read.next() >= self.blocks[tm.read.video() as usize]
            || tm.read.next() >= tm.read.limit()
        {
            return false;
        }
        if tm.read.next() - tm.read.frontier() >= 128 {
            return false;
        }
        self.freed_reach(tm, self.room_threshold(tm))
    }

    /// Whether the terminal has read all it must before display (the whole buffer, or
    /// `terminals.prime` bytes and the whole of the frame it shows first, or the rest of
    /// the video).
    ///
    /// `terminals.prime` can be smaller than a frame. Display cannot start without its
    /// first frame: it would glitch at once, re-prime at once and never let time advance.
    pub fn primed(&self, tm: &Term) -> bool {
        let at_end = tm.read.frontier() >= self.blocks[tm.read.video() as usize];
        at_end
            || match self.prime {
                Some(p) => {
                    self.frontier_bytes(tm).saturating_sub(self.freed_bytes(tm)) >= p
                        && self.frames_available(tm) > tm.play.play()
                }
                None => tm.read.outstanding() == 0 && !self.can_request(tm),
            }
    }

    /// Bytes terminal `t` holds at `now` (for sampling); a follower holds its stream's.
    pub fn buffered_now(&self, terms: &[Term], t: usize, now: SimTime) -> u64 {
        let tm = &terms[t];
        match tm.state {
            TState::Idle | TState::Waiting => return 0,
            TState::Following => return self.buffered_now(terms, tm.group.index() as usize, now),
            _ => {}
        }
        let frame = if tm.state == TState::Playing {
            self.frames_started_by(tm, now)
                .min(self.frames_available(tm))
                .max(tm.play.play())
        } else {
            tm.play.play()
        };
        let freed = self
            .lib
            .offset(tm.read.video() as usize, frame)
            .max(u64::from(tm.read.first()) * self.block_bytes);
        let contiguous = self.frontier_bytes(tm).saturating_sub(freed);
        // blocks past the frontier, each whole but the video's last, which may be short
        let mut ahead = u64::from(tm.read.mask().count_ones()) * self.block_bytes;
        let last = self.blocks[tm.read.video() as usize].saturating_sub(1);
        if let Some(i) = last.checked_sub(tm.read.frontier()) {
            if i < 128 && tm.read.mask() >> i & 1 == 1 {
                ahead -= self.block_bytes - self.block_len(tm.read.video(), last);
            }
        }
        contiguous + ahead
    }

    /// Bytes of the current session displayed so far (0 without a session).
    pub fn session_consumed(&self, tm: &Term) -> u64 {
        if tm.without_session() {
            return 0;
        }
        let v = tm.read.video() as usize;
        self.lib.offset(v, tm.play.play()) - self.lib.offset(v, tm.play.start())
    }

    /// Bytes of the current session not yet consumed (end-of-run conservation).
    pub fn session_buffered(&self, tm: &Term) -> u64 {
        if tm.without_session() {
            return 0;
        }
        tm.read.received() - self.session_consumed(tm)
    }
}
