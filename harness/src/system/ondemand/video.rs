//! The video library: frame structure of every video (SPIFFI §6.1).
//!
//! A video is a sequence of frames shown at a fixed frame rate. Under `cbr` every frame has the
//! same size (exactly, in integer bytes, so the bit rate is met exactly). Under `mpeg` the
//! frames follow a group-of-pictures pattern (default `IBBPBBPBBPBBPBB`, I:P:B frequency
//! 1:4:10) with mean sizes in the ratio 10:5:2 scaled to the bit rate, and each frame's size is
//! exponentially distributed around its type's mean. A video's frame sizes are a pure function
//! of the scenario seed, the video and the GOP index, so the same video plays the same frame
//! sequence every time, and any GOP can be regenerated on demand: the library stores only the
//! byte offset of each GOP (8 bytes per 15 frames), not every frame.
//!
//! A library may also hold *search versions* (SPIFFI §8.1, \[Özde94\]): for a speed-up factor
//! k, each video v gets a fast-forward version (id `count + v`) and a rewind version (id
//! `2·count + v`), each 1/k of the length at the same bit rate and frame structure, stored and
//! read like any other video ([`VideoLibrary::with_search_versions`]).

use crate::rng::{mix64, stream_seed, SimRng};
use crate::system::ondemand::scenario::{FrameModel, VideoSection};
use crate::time::{mul_div_ceil, mul_div_floor, SimDuration, NANOS_PER_SEC};
use rand::SeedableRng;
use rand_distr::{Distribution, Exp1};
use std::cell::RefCell;
use std::sync::Arc;

mod memo;

pub use memo::LibraryMemo;

/// Decoded GOPs kept per library: (video, gop) → cumulative byte offsets within the GOP.
/// Direct-mapped; terminals walk GOPs in order, so nearly every look-up hits.
#[derive(Debug, Clone)]
struct GopCache {
    keys: Vec<u64>,
    cum: Vec<u64>,
    stride: usize,
}

const CACHE_SLOTS: usize = 16384;

/// Frames per video for `v`.
pub fn frames_per_video(v: &VideoSection) -> u64 {
    ((u128::from(v.length.0) * u128::from(v.fps)) / u128::from(NANOS_PER_SEC)) as u64
}

/// Nominal blocks per video (at the mean bit rate), for range checks before generation.
pub fn blocks_per_video(v: &VideoSection, stripe: u64) -> u64 {
    v.nominal_blocks(stripe)
}

/// The frame that needs the most terminal memory ([`VideoLibrary::memory_needed`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameNeed {
    /// Bytes a terminal must hold at once to display the frame.
    pub bytes: u64,
    /// The video.
    pub video: u32,
    /// The frame (0-based).
    pub frame: u64,
    /// The frame's own size.
    pub frame_bytes: u64,
}

/// Every video's frame structure.
#[derive(Debug, Clone)]
pub struct VideoLibrary {
    fps: u64,
    frames: u64,
    model: FrameModel,
    /// Bytes per second × 1 (CBR arithmetic uses bit_rate / 8 exactly).
    bit_rate: u64,
    /// Frame type index (0 = I, 1 = P, 2 = B) per GOP position.
    pattern: Vec<u8>,
    /// Mean size in bytes of each frame type.
    means: [f64; 3],
    /// Shared by clones ([`LibraryMemo`]): never changed once built.
    videos: Arc<[VideoFrames]>,
    cache: RefCell<GopCache>,
    /// [`VideoLibrary::memory_needed`] for one block size, found while building.
    need: Option<(u64, FrameNeed)>,
    /// The block size of every video's `boundaries` table (0: no tables).
    block: u64,
    /// `log2(block)` when `block` is a power of two (the usual case), so that the hot
    /// boundary lookups shift and mask instead of dividing; `u32::MAX` otherwise.
    block_shift: u32,
}

#[derive(Debug, Clone)]
struct VideoFrames {
    seed: u64,
    /// Frames of this video.
    frames: u64,
    /// Bytes of this video (the last of `gop_offsets`, kept apart: asked on every block).
    total: u64,
    /// Byte offset of the first frame of each GOP, plus the total at the end.
    gop_offsets: Vec<u64>,
    /// With a block size (MPEG, [`VideoLibrary::with_block`]): for each block boundary
    /// `k × block` below the total, the frames held entirely within it (see
    /// [`BoundaryFrames`]).
    boundaries: Vec<u32>,
}

/// Frame positions at block boundaries. Terminals ask about block boundaries far more than
/// about any other byte (how many frames the blocks received so far hold; which frame needs
/// a block), and answering those from a table instead of decoding a GOP removes two of the
/// three GOPs a terminal decodes per block. Entry `k` is `n | EXACT` or `n`, where `n` is the
/// largest frame count with `offset(n) <= k × block` and `EXACT` says `offset(n)` equals it.
struct BoundaryFrames;

impl BoundaryFrames {
    const EXACT: u32 = 1 << 31;

    /// The table for one video whose frame sizes are `sizes`, summing to `total`.
    fn table(block: u64, sizes: &[u32], total: u64) -> Vec<u32> {
        let mut out = Vec::with_capacity(total.div_ceil(block) as usize);
        let (mut n, mut offset) = (0usize, 0u64);
        let mut boundary = 0u64;
        while boundary < total {
            while n < sizes.len() && offset + u64::from(sizes[n]) <= boundary {
                offset += u64::from(sizes[n]);
                n += 1;
            }
            let exact = if offset == boundary { Self::EXACT } else { 0 };
            out.push(n as u32 | exact);
            boundary += block;
        }
        out
    }
}

impl VideoLibrary {
    /// Builds the library for `count` videos from the scenario's `[videos]` section.
    pub fn new(v: &VideoSection, seed: u64) -> VideoLibrary {
        Self::build(v, seed, None, None)
    }

    /// Builds the library and, with `Some(k)`, a fast-forward and a rewind version of every
    /// video, 1/k of its frames each (at least one): ids `count..2·count` are the
    /// fast-forward versions and `2·count..3·count` the rewind versions (the rewind version is
    /// the video's frames in reverse order, so it is read forward; its frame sizes, like any
    /// video's, are drawn from its own stream). The normal videos are the same as without.
    pub fn with_search_versions(v: &VideoSection, seed: u64, speedup: Option<u32>) -> VideoLibrary {
        Self::build(v, seed, None, speedup)
    }

    /// [`VideoLibrary::new`], also finding [`VideoLibrary::memory_needed`] for `block` in the
    /// same pass over every frame (building draws every frame's size once; the check would
    /// otherwise draw them all again), so that call then costs nothing.
    pub fn with_block(v: &VideoSection, seed: u64, block: u64) -> VideoLibrary {
        Self::build(v, seed, Some(block), None)
    }

    /// The library a run uses: search versions as in
    /// [`VideoLibrary::with_search_versions`], and with a `block` size the memory check and
    /// block-boundary tables of [`VideoLibrary::with_block`].
    pub fn build(
        v: &VideoSection,
        seed: u64,
        block: Option<u64>,
        speedup: Option<u32>,
    ) -> VideoLibrary {
        let pattern: Vec<u8> = v
            .gop
            .bytes()
            .map(|c| match c {
                b'I' => 0,
                b'P' => 1,
                _ => 2,
            })
            .collect();
        let mean_frame = v.bit_rate.0 as f64 / 8.0 / f64::from(v.fps);
        let weight: f64 = pattern.iter().map(|t| v.size_ratio[*t as usize]).sum();
        let x = mean_frame * pattern.len() as f64 / weight;
        let means = [
            v.size_ratio[0] * x,
            v.size_ratio[1] * x,
            v.size_ratio[2] * x,
        ];
        let mut lib = VideoLibrary {
            fps: u64::from(v.fps),
            frames: frames_per_video(v),
            model: v.frames,
            bit_rate: v.bit_rate.0,
            pattern,
            means,
            videos: Arc::from(Vec::new()),
            cache: RefCell::new(GopCache {
                keys: Vec::new(),
                cum: Vec::new(),
                stride: 0,
            }),
            need: None,
            block: 0,
            block_shift: u32::MAX,
        };
        let mut worst = FrameNeed::default();
        let mut frame_sizes: Vec<u32> = Vec::new();
        let mut boundaries: Vec<u32> = Vec::new();
        let count = match speedup {
            Some(_) => 3 * v.count,
            None => v.count,
        };
        let mut videos = Vec::with_capacity(count as usize);
        for video in 0..count {
            let frames = match speedup {
                Some(k) if video >= v.count => (lib.frames / u64::from(k.max(1))).max(1),
                _ => lib.frames,
            };
            let gops = frames.div_ceil(lib.gop_len());
            let vseed = stream_seed(seed, "video", u64::from(video));
            let mut offsets = Vec::with_capacity(gops as usize + 1);
            match lib.model {
                FrameModel::Cbr => {
                    for g in 0..gops {
                        offsets.push(lib.cbr_offset(g * lib.gop_len()));
                    }
                    offsets.push(lib.cbr_offset(frames));
                }
                FrameModel::Mpeg => {
                    lib.video_frame_sizes(vseed, frames, &mut frame_sizes);
                    let mut acc = 0u64;
                    for gop in frame_sizes.chunks(lib.pattern.len()) {
                        offsets.push(acc);
                        acc += gop.iter().map(|s| u64::from(*s)).sum::<u64>();
                    }
                    offsets.push(acc);
                    if let Some(block) = block {
                        scan_need(&mut worst, block, video as usize, &frame_sizes, acc);
                        // only where the table is no larger than the GOP offsets
                        if acc.div_ceil(block.max(1)) <= 2 * gops {
                            boundaries = BoundaryFrames::table(block.max(1), &frame_sizes, acc);
                        }
                    }
                }
            }
            videos.push(VideoFrames {
                seed: vseed,
                frames,
                total: *offsets.last().unwrap_or(&0),
                gop_offsets: offsets,
                boundaries: std::mem::take(&mut boundaries),
            });
        }
        lib.videos = videos.into();
        if let Some(block) = block {
            if lib.model == FrameModel::Mpeg {
                lib.need = Some((block, worst));
                lib.block = block.max(1);
                if lib.block.is_power_of_two() {
                    lib.block_shift = lib.block.trailing_zeros();
                }
            }
        }
        if lib.model == FrameModel::Mpeg {
            let stride = lib.pattern.len() + 1;
            lib.cache = RefCell::new(GopCache {
                keys: vec![u64::MAX; CACHE_SLOTS],
                cum: vec![0; CACHE_SLOTS * stride],
                stride,
            });
        }
        lib
    }

    /// Runs `f` with the cumulative offsets of GOP `g` of video `v` (`cum[i]` = bytes of the
    /// GOP's first `i` frames).
    fn with_gop<R>(&self, v: usize, g: u64, f: impl FnOnce(&[u64]) -> R) -> R {
        let (key, slot) = cache_slot(v, g);
        let mut c = self.cache.borrow_mut();
        let stride = c.stride;
        let range = slot * stride..(slot + 1) * stride;
        if c.keys[slot] != key {
            let cum = &mut c.cum[range.clone()];
            cum[0] = 0;
            let mut acc = 0u64;
            self.for_each_gop_size(self.videos[v].seed, g, self.pattern.len(), |i, size| {
                acc += u64::from(size);
                cum[i + 1] = acc;
            });
            c.keys[slot] = key;
        }
        f(&c.cum[range])
    }

    /// Bytes of the first `n` frames of GOP `g` of video `v`: from the cache when it holds
    /// the GOP, else drawn without filling it (only those `n` frames). Offsets of arbitrary
    /// frames — the buffer samples' play positions — rarely hit the cache, and filling it
    /// would draw the whole GOP for nothing.
    fn gop_prefix(&self, v: usize, g: u64, n: usize) -> u64 {
        let (key, slot) = cache_slot(v, g);
        {
            let c = self.cache.borrow();
            if c.keys[slot] == key {
                return c.cum[slot * c.stride + n];
            }
        }
        let mut acc = 0u64;
        self.for_each_gop_size(self.videos[v].seed, g, n, |_, size| acc += u64::from(size));
        acc
    }

    fn gop_len(&self) -> u64 {
        self.pattern.len() as u64
    }

    fn cbr_offset(&self, f: u64) -> u64 {
        mul_div_floor(f, self.bit_rate, 8 * self.fps)
    }

    /// Calls `f(i, size)` for each frame `i` of GOP `g`, in order: the frame's type mean times
    /// an exponential draw, rounded half away from zero, at least 1 byte. Decoding a GOP is
    /// the simulator's most frequent computation (every GOP cache miss), so the rounding is
    /// done with an integer conversion instead of `f64::round`, which compiles to a library
    /// call on baseline x86-64; both give the same integer for every non-negative input.
    #[inline]
    fn for_each_gop_size(&self, vseed: u64, g: u64, n: usize, mut f: impl FnMut(usize, u32)) {
        let mut rng = SimRng::seed_from_u64(vseed ^ mix64(g));
        for (i, t) in self.pattern[..n].iter().enumerate() {
            let e: f64 = Exp1.sample(&mut rng);
            f(i, round_size(self.means[*t as usize] * e));
        }
    }

    /// Number of videos.
    pub fn len(&self) -> usize {
        self.videos.len()
    }

    /// Whether the library is empty.
    pub fn is_empty(&self) -> bool {
        self.videos.is_empty()
    }

    /// Frames per (normal) video.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Frames of video `v` (a search version has fewer).
    pub fn frames_of(&self, v: usize) -> u64 {
        self.videos[v].frames
    }

    /// Frames per second.
    pub fn fps(&self) -> u64 {
        self.fps
    }

    /// Total bytes of video `v`.
    #[inline]
    pub fn total_bytes(&self, v: usize) -> u64 {
        self.videos[v].total
    }

    /// Display time of frame `f` relative to frame 0 (exact: `f × 10⁹ / fps`, rounded down).
    pub fn frame_time(&self, f: u64) -> SimDuration {
        SimDuration::from_nanos(mul_div_floor(f, NANOS_PER_SEC, self.fps))
    }

    /// The first frame whose display time is at or after `d` from frame 0.
    pub fn frame_at(&self, d: SimDuration) -> u64 {
        mul_div_ceil(d.as_nanos(), self.fps, NANOS_PER_SEC).min(self.frames)
    }

    /// Byte offset of frame `f` in video `v` (`offset(frames)` is the total size).
    pub fn offset(&self, v: usize, f: u64) -> u64 {
        let f = f.min(self.videos[v].frames);
        match self.model {
            FrameModel::Cbr => self.cbr_offset(f),
            FrameModel::Mpeg => {
                let vid = &self.videos[v];
                let g = f / self.gop_len();
                let within = (f % self.gop_len()) as usize;
                let base = vid.gop_offsets[g as usize];
                if within == 0 {
                    return base;
                }
                base + self.gop_prefix(v, g, within)
            }
        }
    }

    /// The smallest frame index `n` with `offset(n) >= bytes` (or `frames` if none):
    /// once `n` frames are consumed, at least `bytes` bytes have been.
    #[inline]
    pub fn first_frame_reaching(&self, v: usize, bytes: u64) -> u64 {
        // the boundary table answers most calls; only MPEG libraries have one
        if let Some(n) = self.at_boundary(&self.videos[v], bytes) {
            return n;
        }
        self.first_frame_reaching_decoded(v, bytes)
    }

    /// [`VideoLibrary::first_frame_reaching`] without the table's shortcut: by arithmetic
    /// (CBR) or by decoding the GOP that holds the byte (MPEG). Kept out of line so that
    /// the table lookup inlines into its callers.
    #[inline(never)]
    fn first_frame_reaching_decoded(&self, v: usize, bytes: u64) -> u64 {
        if bytes == 0 {
            return 0;
        }
        match self.model {
            FrameModel::Cbr => {
                let frames = self.videos[v].frames;
                // smallest n with n*rate/(8fps) >= bytes, i.e. n*rate >= bytes*8fps (floors aside)
                let num = u128::from(bytes) * 8 * u128::from(self.fps);
                let mut n = num.div_ceil(u128::from(self.bit_rate)) as u64;
                n = n.min(frames);
                while n > 0 && self.cbr_offset(n - 1) >= bytes {
                    n -= 1;
                }
                while n < frames && self.cbr_offset(n) < bytes {
                    n += 1;
                }
                n
            }
            FrameModel::Mpeg => {
                let vid = &self.videos[v];
                // last GOP start strictly below `bytes`
                let idx = count_below(&vid.gop_offsets, bytes);
                if idx == 0 {
                    return 0;
                }
                let g = (idx - 1) as u64;
                let first = g * self.gop_len();
                if first >= vid.frames {
                    return vid.frames;
                }
                let base = vid.gop_offsets[g as usize];
                let in_gop = (vid.frames - first).min(self.gop_len()) as usize;
                // smallest i with base + cum[i] >= bytes (cum is strictly increasing)
                let i = self.with_gop(v, g, |cum| {
                    cum[..=in_gop].partition_point(|c| base + c < bytes)
                });
                first + i as u64
            }
        }
    }

    /// `(bytes / block, bytes % block)` for the tables' block size (non-zero).
    #[inline]
    fn split_at_blocks(&self, bytes: u64) -> (u64, u64) {
        if self.block_shift != u32::MAX {
            (bytes >> self.block_shift, bytes & (self.block - 1))
        } else {
            (bytes / self.block, bytes % self.block)
        }
    }

    /// [`VideoLibrary::first_frame_reaching`] from the boundary table when `bytes` is a block
    /// boundary `k × block` or one byte past it (below the total).
    #[inline]
    fn at_boundary(&self, vid: &VideoFrames, bytes: u64) -> Option<u64> {
        if self.block == 0 {
            return None;
        }
        let (k, r) = self.split_at_blocks(bytes);
        let e = *vid.boundaries.get(k as usize)?;
        let n = u64::from(e & !BoundaryFrames::EXACT);
        match r {
            // the smallest n with offset(n) >= k × block
            0 if e & BoundaryFrames::EXACT != 0 => Some(n),
            0 => Some(n + 1),
            // the smallest n with offset(n) > k × block (offsets strictly increase)
            1 => Some(n + 1),
            _ => None,
        }
    }

    /// The least terminal memory that can display every frame of every video when reads are
    /// whole blocks of `block` bytes (see [`FrameNeed`]).
    ///
    /// A terminal frees a frame's bytes when its display starts and reserves a whole block
    /// when it requests one, so to show frame `f` it must hold, at once, everything from the
    /// start of `f` to the end of the block holding `f`'s last byte. A terminal with less
    /// memory than that can never display `f`: it would wait for a block it has no room to
    /// request.
    pub fn memory_needed(&self, block: u64) -> FrameNeed {
        if let Some((b, need)) = self.need {
            if b == block {
                return need;
            }
        }
        let mut worst = FrameNeed::default();
        match self.model {
            FrameModel::Cbr => {
                // every video has the same frame offsets; a shorter one (a search version)
                // only ends earlier, where the clamp to its total can only lower the need
                if !self.videos.is_empty() {
                    let total = self.total_bytes(0);
                    for f in 0..self.videos[0].frames {
                        let (start, end) = (self.cbr_offset(f), self.cbr_offset(f + 1));
                        consider_frame(&mut worst, block, total, 0, f, start, end);
                    }
                }
            }
            FrameModel::Mpeg => {
                let mut sizes = Vec::new();
                for (v, vid) in self.videos.iter().enumerate() {
                    self.video_frame_sizes(vid.seed, vid.frames, &mut sizes);
                    let total = self.total_bytes(v);
                    scan_need(&mut worst, block, v, &sizes, total);
                }
            }
        }
        worst
    }

    /// A lower bound of [`VideoLibrary::memory_needed`]`(block)` of the library
    /// [`VideoLibrary::build`] makes of `v`, found from the first `max_frames` frames of its
    /// first video alone, without building it (which, with many long videos, takes gigabytes
    /// and a minute): a terminal that cannot hold even these frames is refused at once. The
    /// frame it names truly needs that much.
    ///
    /// `None` for a library of at most `max_frames` frames in all, built at once anyway.
    pub fn memory_needed_at_least(
        v: &VideoSection,
        seed: u64,
        block: u64,
        max_frames: u64,
    ) -> Option<FrameNeed> {
        if u64::from(v.count).saturating_mul(frames_per_video(v)) <= max_frames {
            return None;
        }
        let shell = VideoLibrary::build(
            &VideoSection {
                count: 0,
                ..v.clone()
            },
            seed,
            None,
            None,
        );
        let frames = shell.frames.min(max_frames);
        let mut sizes: Vec<u32> = Vec::with_capacity(usize::try_from(frames).unwrap_or(0));
        match shell.model {
            FrameModel::Cbr => {
                for f in 0..frames {
                    let size = shell.cbr_offset(f + 1) - shell.cbr_offset(f);
                    sizes.push(u32::try_from(size).unwrap_or(u32::MAX));
                }
            }
            FrameModel::Mpeg => {
                let vseed = stream_seed(seed, "video", 0);
                let gop = shell.pattern.len().max(1);
                let mut g = 0u64;
                while (sizes.len() as u64) < frames {
                    let n = gop.min((frames - sizes.len() as u64) as usize);
                    shell.for_each_gop_size(vseed, g, n, |_, size| sizes.push(size));
                    g += 1;
                }
            }
        }
        // a prefix's total clamps the last blocks lower than the video's would: still a
        // lower bound
        let total: u64 = sizes.iter().map(|s| u64::from(*s)).sum();
        let mut worst = FrameNeed::default();
        scan_need(&mut worst, block, 0, &sizes, total);
        Some(worst)
    }

    /// Every frame size of the video with seed `vseed` and `frames` frames, in order, into
    /// `out` (MPEG).
    fn video_frame_sizes(&self, vseed: u64, frames: u64, out: &mut Vec<u32>) {
        out.clear();
        out.resize(frames as usize, 0);
        for (g, gop) in out.chunks_mut(self.pattern.len()).enumerate() {
            self.for_each_gop_size(vseed, g as u64, gop.len(), |i, size| gop[i] = size);
        }
    }

    /// The number of leading frames held entirely within the first `bytes` bytes of video `v`:
    /// the largest `n` with `offset(n) <= bytes`.
    #[inline]
    pub fn frames_within(&self, v: usize, bytes: u64) -> u64 {
        if self.block != 0 {
            let (k, r) = self.split_at_blocks(bytes);
            if r == 0 {
                if let Some(&e) = self.videos[v].boundaries.get(k as usize) {
                    return u64::from(e & !BoundaryFrames::EXACT);
                }
            }
        }
        self.frames_within_decoded(v, bytes)
    }

    /// [`VideoLibrary::frames_within`] without the table's shortcut (out of line, like
    /// [`VideoLibrary::first_frame_reaching_decoded`]).
    #[inline(never)]
    fn frames_within_decoded(&self, v: usize, bytes: u64) -> u64 {
        let n = self.first_frame_reaching(v, bytes);
        if n < self.videos[v].frames && self.offset(v, n) == bytes {
            // frame n ends beyond `bytes` unless it is empty; offsets are strictly increasing
            n
        } else if n == 0 {
            0
        } else if self.offset(v, n) <= bytes {
            n
        } else {
            n - 1
        }
    }
}

/// Folds frame `f` of video `v`, spanning bytes `start..end` of a video of `total` bytes,
/// into `worst` (see [`VideoLibrary::memory_needed`]); the first frame of the greatest need
/// wins ties.
fn consider_frame(
    worst: &mut FrameNeed,
    block: u64,
    total: u64,
    v: usize,
    f: u64,
    start: u64,
    end: u64,
) {
    let block = block.max(1);
    let blocks_end = end.div_ceil(block).saturating_mul(block).min(total);
    let need = blocks_end - start;
    if need > worst.bytes {
        *worst = FrameNeed {
            bytes: need,
            video: v as u32,
            frame: f,
            frame_bytes: end - start,
        };
    }
}

/// Folds every frame of video `v`, whose frame sizes are `sizes` (summing to `total`), into
/// `worst`: [`consider_frame`] for each frame, with the block end found by stepping a
/// boundary forward instead of dividing (a 64-bit division per frame was a visible share of
/// building large libraries).
fn scan_need(worst: &mut FrameNeed, block: u64, v: usize, sizes: &[u32], total: u64) {
    let block = block.max(1);
    let mut start = 0u64;
    // the smallest multiple of `block` at or after `end`, saturating like `consider_frame`
    let mut boundary = 0u64;
    for (f, size) in sizes.iter().enumerate() {
        let end = start + u64::from(*size);
        while boundary < end {
            boundary = boundary.saturating_add(block);
        }
        let need = boundary.min(total) - start;
        if need > worst.bytes {
            *worst = FrameNeed {
                bytes: need,
                video: v as u32,
                frame: f as u64,
                frame_bytes: end - start,
            };
        }
        start = end;
    }
}

/// The GOP cache's key for GOP `g` of video `v`, and the slot it lives in.
#[inline]
fn cache_slot(v: usize, g: u64) -> (u64, usize) {
    let key = ((v as u64) << 40) | g;
    (key, (mix64(key) as usize) & (CACHE_SLOTS - 1))
}

/// `x.round()` (half away from zero) as a frame size clamped to `1..=u32::MAX`, for `x >= 0`.
/// Below 2³² the fraction `x − ⌊x⌋` is exact in `f64` and the signed conversion (a single
/// instruction on x86-64, where the unsigned one is a branchy sequence) truncates exactly
/// like the unsigned one for `x >= 0`, and to 0 or below (clamped to 0) for negative `x`, as
/// the unsigned one saturates; at or above 2³² every result clamps to `u32::MAX`, and NaN
/// gives 1, as `round` then the clamp would.
#[inline]
fn round_size(x: f64) -> u32 {
    if x < 4_294_967_296.0 {
        let t = (x as i64).max(0) as u64;
        let r = if x - t as f64 >= 0.5 { t + 1 } else { t };
        r.clamp(1, u64::from(u32::MAX)) as u32
    } else if x.is_nan() {
        1
    } else {
        u32::MAX
    }
}

/// `offsets.partition_point(|o| *o < bytes)` for strictly increasing `offsets` starting at
/// 0, found near where the mean GOP size puts it and galloping from there: GOP sizes are
/// i.i.d., so the answer is within a few dozen GOPs of the guess and the search touches a
/// few neighbouring cache lines instead of a dozen scattered ones (a plain binary search over
/// every video's offsets was a quarter of the run time on large libraries).
fn count_below(offsets: &[u64], bytes: u64) -> usize {
    let n = offsets.len();
    let total = match offsets.last() {
        Some(&t) if t > 0 => t,
        _ => return offsets.partition_point(|o| *o < bytes),
    };
    let guess = ((u128::from(bytes) * (n as u128 - 1)) / u128::from(total)).min(n as u128 - 1);
    let g = guess as usize;
    let (lo, hi) = if offsets[g] < bytes {
        // the answer is above g: gallop up until an offset reaches `bytes`
        let (mut lo, mut hi, mut step) = (g + 1, g + 1, 1);
        while hi < n && offsets[hi] < bytes {
            lo = hi + 1;
            hi += step;
            step *= 2;
        }
        (lo, hi.min(n))
    } else {
        // the answer is at most g: gallop down until an offset is below `bytes`
        let (mut lo, mut hi, mut step) = (g.saturating_sub(1), g, 1);
        while lo > 0 && offsets[lo] >= bytes {
            hi = lo;
            lo = lo.saturating_sub(step);
            step *= 2;
        }
        (lo, hi)
    };
    lo + offsets[lo..hi].partition_point(|o| *o < bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{BitRate, Duration};

    #[test]
    fn round_size_matches_f64_round_and_clamp() {
        let old = |x: f64| (x.round() as u64).clamp(1, u64::from(u32::MAX)) as u32;
        let mut cases = vec![
            0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            4503599627370495.5,
            4503599627370496.0,
            9007199254740993.0,
            1e30,
            f64::INFINITY,
            f64::NAN,
            f64::from(u32::MAX) + 0.5,
            f64::from(u32::MAX) + 0.4,
            f64::from(u32::MAX) - 0.5,
            4_294_967_296.0,
            -0.3,
            -0.5,
            -5.0,
            f64::NEG_INFINITY,
        ];
        let mut rng = SimRng::seed_from_u64(7);
        for _ in 0..100_000 {
            let e: f64 = Exp1.sample(&mut rng);
            cases.push(e * 16_666.0);
            cases.push((e * 100.0).floor() + 0.5);
        }
        for x in cases {
            assert_eq!(round_size(x), old(x), "x = {x:?}");
        }
    }

    #[test]
    fn memo_builds_each_library_once_and_forgets_the_least_recent() {
        let v = section(FrameModel::Mpeg);
        let memo = LibraryMemo::new(2);
        let a = memo.build(&v, 1, Some(131_072), None);
        let again = memo.build(&v, 1, Some(131_072), None);
        assert!(a.shares_videos_with(&again));
        // the same as building afresh
        let fresh = VideoLibrary::build(&v, 1, Some(131_072), None);
        assert!(!fresh.shares_videos_with(&a));
        for video in 0..fresh.len() {
            for f in [0, 1, 100, fresh.frames_of(video)] {
                assert_eq!(a.offset(video, f), fresh.offset(video, f));
            }
        }
        assert_eq!(a.memory_needed(131_072), fresh.memory_needed(131_072));
        // another seed, another block size: other libraries; the first is then forgotten
        let b = memo.build(&v, 2, Some(131_072), None);
        assert!(!b.shares_videos_with(&a));
        assert_eq!(memo.len(), 2);
        let c = memo.build(&v, 1, Some(262_144), None);
        assert!(!c.shares_videos_with(&a));
        assert_eq!(memo.len(), 2);
        assert!(!memo
            .build(&v, 1, Some(131_072), None)
            .shares_videos_with(&a));
        assert!(memo
            .build(&v, 1, Some(262_144), None)
            .shares_videos_with(&c));
    }

    #[test]
    fn scan_need_matches_consider_frame() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        for _ in 0..200 {
            let sizes: Vec<u32> = (0..rng.random_range(1..60))
                .map(|_| rng.random_range(1..50))
                .collect();
            let total: u64 = sizes.iter().map(|s| u64::from(*s)).sum();
            let block = rng.random_range(1..80);
            let mut want = FrameNeed::default();
            let mut start = 0;
            for (f, size) in sizes.iter().enumerate() {
                let end = start + u64::from(*size);
                consider_frame(&mut want, block, total, 3, f as u64, start, end);
                start = end;
            }
            let mut got = FrameNeed::default();
            scan_need(&mut got, block, 3, &sizes, total);
            assert_eq!(got, want, "block {block}, sizes {sizes:?}");
        }
    }

    #[test]
    fn boundary_table_by_hand() {
        // frames of 3, 2, 5 and 4 bytes: offsets 0, 3, 5, 10, 14
        let t = BoundaryFrames::table(5, &[3, 2, 5, 4], 14);
        let x = BoundaryFrames::EXACT;
        // boundaries 0, 5, 10 (15 is past the total): 0 frames (exact), 2 (exact), 3 (exact)
        assert_eq!(t, vec![x, 2 | x, 3 | x]);
        let t = BoundaryFrames::table(4, &[3, 2, 5, 4], 14);
        // boundaries 0, 4, 8, 12: 0 exact, 1 (offset 3), 2 (offset 5), 3 (offset 10)
        assert_eq!(t, vec![x, 1, 2, 3]);
    }

    #[test]
    fn boundary_answers_match_the_gop_search() {
        for block in [131_072u64, 200_000, 262_144] {
            let plain = VideoLibrary::new(&section(FrameModel::Mpeg), 5);
            let fast = VideoLibrary::with_block(&section(FrameModel::Mpeg), 5, block);
            assert_eq!(fast.block, block, "tables built");
            for v in 0..plain.len() {
                let total = plain.total_bytes(v);
                let mut probes = vec![0, 1, total - 1, total, total + 1];
                for k in 0..=total / block + 1 {
                    let b = k * block;
                    probes.extend([b.saturating_sub(1), b, b + 1, b + 2]);
                }
                // and frame offsets themselves, where a boundary would be exact
                probes.extend((0..plain.frames()).step_by(3).map(|f| plain.offset(v, f)));
                for bytes in probes {
                    assert_eq!(
                        fast.first_frame_reaching(v, bytes),
                        plain.first_frame_reaching(v, bytes),
                        "first_frame_reaching({v}, {bytes}), block {block}"
                    );
                    assert_eq!(
                        fast.frames_within(v, bytes),
                        plain.frames_within(v, bytes),
                        "frames_within({v}, {bytes}), block {block}"
                    );
                }
            }
        }
        // a block boundary on a frame boundary: block = offset of frame 150 of video 0
        let plain = VideoLibrary::new(&section(FrameModel::Mpeg), 5);
        let block = plain.offset(0, 150);
        let fast = VideoLibrary::with_block(&section(FrameModel::Mpeg), 5, block);
        assert_eq!(fast.block, block, "tables built");
        assert_eq!(fast.first_frame_reaching(0, block), 150);
        assert_eq!(fast.frames_within(0, block), 150);
        assert_eq!(fast.first_frame_reaching(0, block + 1), 151);
        assert_eq!(plain.first_frame_reaching(0, block + 1), 151);
    }

    #[test]
    fn count_below_matches_a_binary_search() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for len in [1usize, 2, 3, 10, 500] {
            let mut offsets = vec![0u64];
            for _ in 1..len {
                // uneven steps, so the proportional guess is often off
                let step = if rng.random_bool(0.1) {
                    5000
                } else {
                    1 + rng.random_range(0..40)
                };
                offsets.push(offsets.last().unwrap() + step);
            }
            let last = *offsets.last().unwrap();
            for bytes in (0..=last + 2).step_by(1 + (last as usize / 3000)) {
                assert_eq!(
                    count_below(&offsets, bytes),
                    offsets.partition_point(|o| *o < bytes),
                    "len {len}, bytes {bytes}"
                );
            }
        }
    }

    fn section(model: FrameModel) -> VideoSection {
        VideoSection {
            count: 3,
            length: Duration(60 * NANOS_PER_SEC),
            bit_rate: BitRate(4_000_000),
            fps: 30,
            frames: model,
            gop: "IBBPBBPBBPBBPBB".into(),
            size_ratio: [10.0, 5.0, 2.0],
        }
    }

    #[test]
    fn cbr_is_exact() {
        let lib = VideoLibrary::new(&section(FrameModel::Cbr), 1);
        assert_eq!(lib.frames(), 1800);
        assert_eq!(lib.total_bytes(0), 30_000_000);
        assert_eq!(lib.offset(0, 30), 500_000);
        assert_eq!(lib.first_frame_reaching(0, 500_000), 30);
        assert_eq!(lib.first_frame_reaching(0, 500_001), 31);
        assert_eq!(lib.frames_within(0, 500_001), 30);
        assert_eq!(lib.frame_time(30), SimDuration::from_secs(1));
        assert_eq!(lib.frame_at(SimDuration::from_secs(1)), 30);
    }

    #[test]
    fn mpeg_matches_ratios_and_rate() {
        let lib = VideoLibrary::new(&section(FrameModel::Mpeg), 1);
        // mean bytes ≈ 30 MB over 60 s (exponential noise over 1800 frames: a few %)
        let total = lib.total_bytes(1) as f64;
        assert!((total / 30e6 - 1.0).abs() < 0.08, "total {total}");
        // I frames are on average 5x B frames
        let (mut i, mut b) = (0u64, 0u64);
        for f in 0..lib.frames() {
            let s = lib.offset(1, f + 1) - lib.offset(1, f);
            match f % 15 {
                0 => i += s,
                1 => b += s,
                _ => {}
            }
        }
        let ratio = i as f64 / b as f64;
        assert!((3.5..7.0).contains(&ratio), "I:B ratio {ratio}");
    }

    #[test]
    fn memory_needed_is_the_worst_frame_span() {
        // CBR: 16_666 or 16_667 bytes per frame. With 100_000-byte blocks (6 frames each)
        // no frame crosses a block boundary: one block is enough. With 96_000-byte blocks
        // the worst frame starts just before a boundary and needs that whole next block.
        let lib = VideoLibrary::new(&section(FrameModel::Cbr), 1);
        assert_eq!(lib.memory_needed(100_000).bytes, 100_000);
        let need = lib.memory_needed(96_000);
        let brute = (0..lib.frames())
            .map(|f| {
                let (s, e) = (lib.offset(0, f), lib.offset(0, f + 1));
                (e.div_ceil(96_000) * 96_000).min(lib.total_bytes(0)) - s
            })
            .max()
            .unwrap();
        assert_eq!(need.bytes, brute);
        assert!(
            need.bytes > 96_000 && need.bytes < 96_000 + 16_667,
            "{need:?}"
        );
        // MPEG: the same brute force over every video
        let lib = VideoLibrary::new(&section(FrameModel::Mpeg), 3);
        let block = 65_536;
        let need = lib.memory_needed(block);
        let mut brute = (0, 0, 0);
        for v in 0..lib.len() {
            let total = lib.total_bytes(v);
            for f in 0..lib.frames() {
                let (s, e) = (lib.offset(v, f), lib.offset(v, f + 1));
                let n = (e.div_ceil(block) * block).min(total) - s;
                if n > brute.0 {
                    brute = (n, v as u32, f);
                }
            }
        }
        assert_eq!((need.bytes, need.video, need.frame), brute);
        assert_eq!(
            need.frame_bytes,
            lib.offset(need.video as usize, need.frame + 1)
                - lib.offset(need.video as usize, need.frame)
        );
        // found while building: the same answer, and the same library
        let built = VideoLibrary::with_block(&section(FrameModel::Mpeg), 3, block);
        assert_eq!(built.memory_needed(block), need);
        assert_eq!(built.memory_needed(96_000), lib.memory_needed(96_000));
        for v in 0..lib.len() {
            assert_eq!(built.total_bytes(v), lib.total_bytes(v));
            for f in (0..lib.frames()).step_by(7) {
                assert_eq!(built.offset(v, f), lib.offset(v, f));
            }
        }
    }

    #[test]
    fn search_versions_are_shorter_videos_after_the_normal_ones() {
        for model in [FrameModel::Cbr, FrameModel::Mpeg] {
            let plain = VideoLibrary::new(&section(model), 4);
            let lib = VideoLibrary::with_search_versions(&section(model), 4, Some(8));
            assert_eq!(plain.len(), 3);
            assert_eq!(lib.len(), 9);
            for v in 0..3 {
                // the normal videos are unchanged
                assert_eq!(lib.frames_of(v), 1800);
                assert_eq!(lib.total_bytes(v), plain.total_bytes(v));
                // ff (3 + v) and rewind (6 + v) versions: 1/8 of the frames, same rate
                for sv in [3 + v, 6 + v] {
                    assert_eq!(lib.frames_of(sv), 225);
                    let ratio = lib.total_bytes(sv) as f64 / lib.total_bytes(v) as f64;
                    assert!((ratio - 0.125).abs() < 0.02, "{model:?} {sv}: {ratio}");
                    assert_eq!(lib.offset(sv, 10_000), lib.total_bytes(sv));
                    assert_eq!(lib.first_frame_reaching(sv, lib.total_bytes(sv)), 225);
                    assert_eq!(lib.frames_within(sv, u64::MAX), 225);
                }
            }
            // with the run's block-boundary tables: the same answers for every video
            let block = 262_144;
            let fast = VideoLibrary::build(&section(model), 4, Some(block), Some(8));
            for v in 0..9 {
                assert_eq!(fast.total_bytes(v), lib.total_bytes(v));
                for k in 0..=lib.total_bytes(v) / block + 1 {
                    for bytes in [k * block, k * block + 1] {
                        assert_eq!(
                            fast.first_frame_reaching(v, bytes),
                            lib.first_frame_reaching(v, bytes)
                        );
                        assert_eq!(fast.frames_within(v, bytes), lib.frames_within(v, bytes));
                    }
                }
            }
            if model == FrameModel::Cbr {
                assert_eq!(lib.total_bytes(3), 3_750_000);
            }
        }
    }

    #[test]
    fn mpeg_is_reproducible_and_offsets_consistent() {
        let a = VideoLibrary::new(&section(FrameModel::Mpeg), 9);
        let b = VideoLibrary::new(&section(FrameModel::Mpeg), 9);
        let c = VideoLibrary::new(&section(FrameModel::Mpeg), 10);
        assert_eq!(a.total_bytes(2), b.total_bytes(2));
        assert_ne!(a.total_bytes(2), c.total_bytes(2));
        let mut prev = 0;
        for f in 1..=a.frames() {
            let o = a.offset(2, f);
            assert!(o > prev);
            assert_eq!(a.first_frame_reaching(2, o), f);
            assert_eq!(a.frames_within(2, o), f);
            assert_eq!(a.frames_within(2, o - 1), f - 1);
            if o - 1 > prev {
                // (a frame can be 1 byte long; then o - 1 is the previous frame's end)
                assert_eq!(a.first_frame_reaching(2, o - 1), f);
            }
            prev = o;
        }
    }
}
