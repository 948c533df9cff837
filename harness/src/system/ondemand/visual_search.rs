//! Fast-forward and rewind visual searches (SPIFFI §8.1), in the two ways the paper names.
//!
//! **Skip** (`[interactive] search = "skip"`): "the terminal can skip forward or backward
//! through the movie showing one or two seconds out of every several seconds of video data.
//! Since the skipped video segments need not be read, this scheme will not significantly
//! increase the load on the video server." A search from position p shows the segments
//! starting at p ± every, p ± 2·every, …, each `show` long. For each segment the terminal
//! drops its buffer and re-primes at the segment's start, reading only the stripe blocks that
//! hold the segment (through the normal server path: network, CPU, buffer pool, disk
//! scheduler), shows it once it is all in, and jumps again. "The prefetching algorithm at
//! the server can take hints from the terminals so that the appropriate blocks of video are
//! always prefetched next": with `[interactive] hints` (the default) each reference of a
//! searching terminal carries the first block of a later segment that lies on the same disk,
//! due one `show` later per segment in between, and the prefetcher reads that instead of the
//! sequential next block, which the search skips. A fast-forward whose next segment would start past the end
//! ends the video; a rewind that has shown the segment at the start resumes normal play from
//! the start. The position reached is the segment's start plus what has been shown of it.
//!
//! **Version** (`search = "version"`, [Özde94]): each video v has a fast-forward version
//! (object `count + v`) and a rewind version (`2·count + v`), `1/speedup` of its frames, laid
//! out on the disks like any video. On `ff` at frame p the terminal drops its buffer and
//! re-primes the fast-forward version at frame ⌊p / k⌋; on `rewind`, the rewind version
//! (the frames in reverse, read forward) at ⌊(F − p) / k⌋, F being the video's frames. It then
//! plays that version at the normal rate (with glitches counted as in any playback), covering
//! k frames of the movie per frame. On `resume` it switches back to frame r·k (ff) or
//! F − r·k (rewind) of the movie, r being the version's frame reached. The fast-forward
//! version running out ends the video; the rewind version running out resumes normal play
//! from the start.
//!
//! A search lasts until the terminal's next event: `resume` re-primes normal play at the
//! position reached, `pause` does the same and pauses, `seek`/`stop` behave as usual, and
//! the other direction's search starts from the position reached (the same direction again
//! is ignored).
//!
//! This file holds the search's settings and arithmetic (segment bounds, version positions,
//! prefetch hints); the terminals (`terminal.rs`) run the search as part of their state.

use super::playout::Playout;
use super::term::{Search, TState, Term};
use crate::ids::{BlockId, DiskId};
use crate::plugin::{Layout, PrefetchHint};
use crate::system::ondemand::scenario::{InteractiveSection, SearchMode};
use crate::time::{SimDuration, SimTime};

/// Later segments a skip-search hint looks through for a block on the reference's disk.
const HINT_SEGMENTS: u64 = 64;

/// Blocks a hint looks through from the start of the video once a rewind reaches it (normal
/// play follows from there).
const HINT_BLOCKS_FROM_START: u32 = 4096;

/// How searches work (`[interactive]`), in frames where the library has them.
pub(super) struct VisualSearch {
    /// Skip or version.
    pub mode: SearchMode,
    /// Versions: frames of the movie per frame of a version.
    pub speedup: u64,
    /// Skip: a segment is shown every `every`, for `show`.
    pub every: SimDuration,
    pub show: SimDuration,
    /// Skip: references carry prefetch hints.
    pub hints: bool,
    /// Videos of the library (the versions of video `v` are objects `count + v` and
    /// `2·count + v`).
    pub videos: u32,
}

/// What a skip search does after the segment starting at `from`.
pub(super) enum NextSegment {
    /// The rewind reached the beginning: normal play from there.
    PlayFromStart,
    /// Show frames `[start, end)`, reading blocks up to (not including) `limit_block`.
    Show { start: u64, end: u64 },
    /// The fast-forward ran past the end: the video ends.
    End,
}

impl VisualSearch {
    pub fn new(i: &InteractiveSection, videos: u32) -> Self {
        VisualSearch {
            mode: i.search,
            speedup: u64::from(i.speedup),
            every: i.every.sim(),
            show: i.show.sim(),
            hints: i.hints,
            videos,
        }
    }

    /// The search version of `title` for the direction and its frame matching movie frame
    /// `pos`, for movies of `frames` frames.
    pub fn version_position(&self, frames: u64, title: u32, forward: bool, pos: u64) -> (u32, u64) {
        let object = if forward {
            self.videos
        } else {
            2 * self.videos
        } + title;
        (object, version_frame(frames, self.speedup, forward, pos))
    }

    /// The movie frame matching frame `r` of a search version.
    pub fn movie_position(&self, frames: u64, forward: bool, r: u64) -> u64 {
        movie_frame(frames, self.speedup, forward, r)
    }

    /// Skip search: the segment after (or before) the one starting at frame `from`.
    pub fn next_segment(&self, p: &Playout, from: u64, forward: bool) -> NextSegment {
        let frames = p.lib.frames();
        let every = p.lib.frame_at(self.every).max(1);
        let show = p.lib.frame_at(self.show).max(1);
        let start = if forward {
            from + every
        } else if from == 0 {
            return NextSegment::PlayFromStart;
        } else {
            from.saturating_sub(every)
        };
        if start >= frames {
            return NextSegment::End;
        }
        NextSegment::Show {
            start,
            end: (start + show).min(frames),
        }
    }

    /// Skip search: the prefetch hint for `tm`'s reference to `block` on `disk`, needed at
    /// `deadline` — the first block of a later segment (in the search's direction) on the
    /// same disk, due one `show` later per segment in between; after a rewind's segment at
    /// the start, the first such block of the normal play that follows. `None` unless hints
    /// are on and the terminal is in a skip search of that video.
    pub fn hint(
        &self,
        p: &Playout,
        layout: &dyn Layout,
        tm: &Term,
        block: BlockId,
        disk: DiskId,
        deadline: SimTime,
    ) -> Option<PrefetchHint> {
        let Search::Skip {
            forward, seg_start, ..
        } = tm.search
        else {
            return None;
        };
        if !self.hints || tm.state != TState::Searching || block.video.0 != tm.read.video() {
            return None;
        }
        let v = tm.read.video() as usize;
        let frames = p.lib.frames_of(v);
        let every = p.lib.frame_at(self.every).max(1);
        let show = p.lib.frame_at(self.show).max(1);
        let show_time = self.show;
        let on_disk = |index: u32| {
            let b = BlockId {
                video: block.video,
                index,
            };
            (index != block.index && layout.locate(b).disk == disk).then_some(b)
        };
        for k in 1..=HINT_SEGMENTS {
            let start = if forward {
                seg_start.saturating_add(k.saturating_mul(every))
            } else {
                seg_start.saturating_sub(k.saturating_mul(every))
            };
            if start >= frames {
                return None; // the fast-forward ends the video first
            }
            let first = (p.lib.offset(v, start) / p.block_bytes) as u32;
            let last = if !forward && start == 0 {
                // the rewind reaches the start; normal play follows
                first.saturating_add(HINT_BLOCKS_FROM_START)
            } else {
                p.lib
                    .offset(v, (start + show).min(frames))
                    .div_ceil(p.block_bytes) as u32
            };
            let hit = (first..last.min(p.blocks[v])).find_map(on_disk);
            if let Some(b) = hit {
                return Some(PrefetchHint {
                    block: b,
                    deadline: deadline + show_time.saturating_mul(k),
                });
            }
            if !forward && start == 0 {
                return None;
            }
        }
        None
    }
}

/// Frame of the fast-forward (`forward`) or rewind version matching frame `pos` of a movie of
/// `frames` frames, for speed-up `k`: ⌊pos / k⌋, or ⌊(frames − pos) / k⌋ for the rewind
/// version (stored in reverse).
pub(super) fn version_frame(frames: u64, k: u64, forward: bool, pos: u64) -> u64 {
    if forward {
        pos / k
    } else {
        frames.saturating_sub(pos) / k
    }
}

/// Movie frame matching frame `r` of a search version (the inverse of [`version_frame`] up to
/// its rounding: within `k − 1` frames, never past the position searched to).
pub(super) fn movie_frame(frames: u64, k: u64, forward: bool, r: u64) -> u64 {
    if forward {
        r.saturating_mul(k).min(frames)
    } else {
        frames.saturating_sub(r.saturating_mul(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_positions_map_both_ways() {
        // a one-hour movie at 30 fps, speed-up 8: versions of 13 500 frames
        let (frames, k) = (108_000, 8);
        // 30 minutes in: frame 54 000 is frame 6 750 of both versions (the middle)
        assert_eq!(version_frame(frames, k, true, 54_000), 6_750);
        assert_eq!(version_frame(frames, k, false, 54_000), 6_750);
        // 10 minutes in: 2 250 frames into the ff version, 11 250 into the rewind version
        assert_eq!(version_frame(frames, k, true, 18_000), 2_250);
        assert_eq!(version_frame(frames, k, false, 18_000), 11_250);
        // playing 10 s (300 frames) of a version covers 80 s (2 400 frames) of the movie,
        // forward in the ff version and backward in the rewind version
        assert_eq!(movie_frame(frames, k, true, 2_250 + 300), 18_000 + 2_400);
        assert_eq!(movie_frame(frames, k, false, 11_250 + 300), 18_000 - 2_400);
        // a round trip lands within k − 1 frames, on the side already searched
        for pos in [0, 1, 7, 8, 9, 54_001, 107_999] {
            let f = movie_frame(frames, k, true, version_frame(frames, k, true, pos));
            assert!(f <= pos && pos - f < k, "ff {pos} -> {f}");
            let r = movie_frame(frames, k, false, version_frame(frames, k, false, pos));
            assert!(r >= pos && r - pos < k, "rewind {pos} -> {r}");
        }
        // the ends: ff from the last frame is the version's end; rewind from 0 too
        assert_eq!(version_frame(frames, k, true, frames), 13_500);
        assert_eq!(version_frame(frames, k, false, 0), 13_500);
        assert_eq!(movie_frame(frames, k, false, 13_500), 0);
        assert_eq!(movie_frame(frames, k, true, 13_500), frames);
    }
}
