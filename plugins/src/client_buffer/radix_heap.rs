//! `radix-heap`: an external-memory radix heap, the paper's baseline (Waldvogel et al. §II,
//! §VI; Brengel et al. 1999, Brodal & Katajainen 1998).
//!
//! Keys are frame numbers (playout order). With `last` the last key deleted, a key `k` lives
//! in bucket `msb(k XOR last) + 1` (bucket 0 holds `last` itself); when the smallest key is
//! deleted it becomes `last` and only its own bucket — the smallest non-empty one — is
//! redistributed into lower buckets, the classic monotone radix heap. As in the paper's
//! improved variant, buckets stay in memory until the memory is full; then the highest bucket
//! holding evictable frames is written to disk, one block of at most `block` frames per
//! access (its most distant frames first).
//!
//! What a bucket on disk costs when it becomes the minimum is the parameter `redistribute`:
//!
//! * `read` (default) — the textbook heap, which cannot move frames it has not read: an
//!   extent written from bucket `b` must be back in memory when `b`'s first key is due
//!   ([`ClientBuffer::due_frame`]), and when its read is issued (ahead of that delete-min,
//!   by the receiver's lead) the heap redistributes every bucket up to it around that key,
//!   so the frames read land in lower buckets; frames below the new `last` wait in front,
//!   due first. Memory being full, the lower buckets are written out again — a frame cycles
//!   once per level it descends, which is what puts the paper's radix heap at ≈ 40 % I/O
//!   time at C = 1 % (vodbench 35 %, `scenarios/waldvogel/radix_model.py` 37–38 %).
//! * `refile` — the extents stay on disk, re-filed under the bucket of their smallest key
//!   (known without reading); when a frame on disk is due, its extent comes back with the
//!   other extents of its bucket, smallest keys first, as many as memory can take without
//!   writing out pinned frames (the `room` the receiver offers). About half the I/O of `read`.
//!
//! Either way frames far apart that share a bucket travel together, the weakness the paper
//! points out. Reading a whole bucket at once regardless of memory (an early `refile`
//! version did) overflows a small cache; `read` takes it one extent at a time, each read
//! making room first (issue 6).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    BuildContext, CacheView, ClientBuffer, ExtentId, Plugin, PluginError, Removal,
};
use vodbench_plugin_api::units::Portion;

const BUCKETS: usize = 33;
/// Frames below `last` still in memory (read mode: the bucket was redistributed around a
/// later key ahead of their playout); they are due before anything else.
const FRONT: usize = BUCKETS;
const NONE: u8 = u8::MAX;

/// What happens to a bucket's extents on disk when the bucket becomes the minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Redistribute {
    /// The textbook heap: they are read back by then, their frames moved into lower
    /// buckets (and written again as memory fills), once per level a frame descends.
    Read,
    /// They stay on disk, re-filed under the bucket of their smallest key (whose keys the
    /// heap knows without reading), and come back when their smallest frame is due.
    Refile,
}

/// Parameters of `radix-heap`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RadixHeapParams {
    /// Most frames written per access: a count or a share of the cache (default "25%").
    pub block: Portion,
    /// A redistributed bucket's extents: "read" (default, the textbook heap) or "refile".
    pub redistribute: Redistribute,
}

impl Default for RadixHeapParams {
    fn default() -> Self {
        RadixHeapParams {
            block: Portion::Ppm(250_000),
            redistribute: Redistribute::Read,
        }
    }
}

/// An extent on disk, filed under the bucket of its smallest key.
#[derive(Debug, Clone, Copy)]
struct OnDisk {
    id: u32,
    min: u32,
    len: u32,
}

/// The `radix-heap` policy.
#[derive(Debug, Clone)]
pub struct RadixHeap {
    block: u32,
    redistribute: Redistribute,
    last: u32,
    mem: Vec<Vec<u32>>,
    bucket_of: Vec<u8>,
    pos: Vec<u32>,
    disk: Vec<Vec<OnDisk>>,
    extent_bucket: Vec<u8>,
    scratch: Vec<u32>,
}

impl RadixHeap {
    /// A radix heap writing at most `block` frames per access.
    pub fn new(block: u32, redistribute: Redistribute) -> Self {
        RadixHeap {
            block: block.max(1),
            redistribute,
            last: 0,
            mem: vec![Vec::new(); BUCKETS + 1],
            bucket_of: Vec::new(),
            pos: Vec::new(),
            disk: vec![Vec::new(); BUCKETS],
            extent_bucket: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn bucket(&self, k: u32) -> usize {
        if k == self.last {
            0
        } else if k < self.last {
            FRONT
        } else {
            (32 - (k ^ self.last).leading_zeros()) as usize
        }
    }

    /// The smallest key bucket `b` can hold: the bucket becomes the minimum when it is due.
    fn bucket_start(&self, b: usize) -> u32 {
        match b {
            0 => self.last,
            FRONT => 0,
            b => ((self.last >> (b - 1)) | 1) << (b - 1),
        }
    }

    /// Read mode, a bucket's extents being read ahead of its delete-min: redistribute every
    /// bucket up to `to`'s around `to` now, as the delete-min will, so that the frames read
    /// land in lower buckets (not in the old one, whose write would be due at once).
    fn rebase(&mut self, to: u32) {
        if to <= self.last {
            return;
        }
        let top = self.bucket(to);
        let mut moved = std::mem::take(&mut self.scratch);
        moved.clear();
        for b in 0..=top {
            moved.append(&mut self.mem[b]);
        }
        self.last = to;
        for &k in &moved {
            self.bucket_of[k as usize] = NONE;
            self.put(k);
        }
        self.scratch = moved;
        for b in 0..=top {
            for x in std::mem::take(&mut self.disk[b]) {
                self.file_extent(x);
            }
        }
    }

    fn put(&mut self, f: u32) {
        let b = self.bucket(f);
        let i = f as usize;
        if i >= self.bucket_of.len() {
            self.bucket_of.resize(i + 1, NONE);
            self.pos.resize(i + 1, 0);
        }
        self.bucket_of[i] = b as u8;
        self.pos[i] = self.mem[b].len() as u32;
        self.mem[b].push(f);
    }

    fn take(&mut self, f: u32) -> Option<usize> {
        let i = f as usize;
        let b = *self.bucket_of.get(i)?;
        if b == NONE {
            return None;
        }
        let b = b as usize;
        let p = self.pos[i] as usize;
        self.mem[b].swap_remove(p);
        if let Some(&moved) = self.mem[b].get(p) {
            self.pos[moved as usize] = p as u32;
        }
        self.bucket_of[i] = NONE;
        Some(b)
    }

    fn file_extent(&mut self, x: OnDisk) {
        let b = match self.bucket(x.min) {
            FRONT => 0, // due before anything in the buckets
            b => b,
        };
        let i = x.id as usize;
        if i >= self.extent_bucket.len() {
            self.extent_bucket.resize(i + 1, NONE);
        }
        self.extent_bucket[i] = b as u8;
        self.disk[b].push(x);
    }

    /// The bucket extent `e` is filed under (`NONE` if it is not on disk).
    fn bucket_of_extent(&self, e: ExtentId) -> u8 {
        self.extent_bucket
            .get(e.0 as usize)
            .copied()
            .unwrap_or(NONE)
    }

    /// `e` is being read: it leaves its bucket's list.
    fn forget_extent(&mut self, e: ExtentId) {
        let b = self.bucket_of_extent(e);
        if b == NONE {
            return;
        }
        self.extent_bucket[e.0 as usize] = NONE;
        let list = &mut self.disk[b as usize];
        if let Some(p) = list.iter().position(|x| x.id == e.0) {
            list.swap_remove(p);
        }
    }

    /// `f`, the smallest key, was played: it becomes `last`, and its bucket is redistributed.
    fn delete_min(&mut self, f: u32, b: usize) {
        if b == FRONT {
            return; // played after its bucket was redistributed around a later key
        }
        self.last = f;
        let mut moved = std::mem::take(&mut self.scratch);
        moved.clear();
        moved.append(&mut self.mem[b]);
        for &k in &moved {
            self.bucket_of[k as usize] = NONE;
            self.put(k);
        }
        self.scratch = moved;
        let extents = std::mem::take(&mut self.disk[b]);
        for x in extents {
            self.file_extent(x);
        }
    }
}

impl ClientBuffer for RadixHeap {
    fn batch_frames(&self) -> u32 {
        1
    }
    fn inserted(&mut self, frame: u32) {
        self.put(frame);
    }
    fn removed(&mut self, frame: u32, why: Removal) {
        if let Some(b) = self.take(frame) {
            if why == Removal::Played {
                self.delete_min(frame, b);
            }
        }
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        // the highest bucket first; frames below `last` (due soonest) only as a last resort
        for b in (0..BUCKETS).rev().chain([FRONT]) {
            let before = out.len();
            out.extend(
                self.mem[b]
                    .iter()
                    .copied()
                    .filter(|&f| cache.is_evictable(f)),
            );
            if out.len() > before {
                if out.len() - before > self.block as usize {
                    // the most distant frames of the bucket first
                    out[before..].sort_unstable_by(|a, b| b.cmp(a));
                    out.truncate(before + self.block as usize);
                }
                return;
            }
        }
    }
    fn written(&mut self, extent: ExtentId, frames: &[u32]) {
        if let Some(&min) = frames.iter().min() {
            self.file_extent(OnDisk {
                id: extent.0,
                min,
                len: frames.len() as u32,
            });
        }
    }
    fn due_frame(&mut self, extent: ExtentId, frames: &[u32]) -> u32 {
        match self.redistribute {
            Redistribute::Refile => frames[0],
            Redistribute::Read => {
                let b = self.bucket_of_extent(extent);
                if b == NONE {
                    frames[0]
                } else {
                    self.bucket_start(b as usize).min(frames[0])
                }
            }
        }
    }
    fn choose_reads(&mut self, due: u32, extent: ExtentId, room: u32, out: &mut Vec<ExtentId>) {
        if self.redistribute == Redistribute::Read {
            // The whole bucket is due at `due` (each of its extents is queued for it): read
            // this one, with the buckets up to it redistributed around `due` already.
            self.rebase(due);
            self.forget_extent(extent);
            out.push(extent);
            return;
        }
        let b = self.bucket_of_extent(extent);
        out.push(extent);
        if b == NONE {
            return;
        }
        let b = b as usize;
        let mut all = std::mem::take(&mut self.disk[b]);
        all.sort_unstable_by_key(|x| x.min);
        let mut used = all.iter().find(|x| x.id == extent.0).map_or(0, |x| x.len);
        self.extent_bucket[extent.0 as usize] = NONE;
        for x in all {
            if x.id == extent.0 {
                continue;
            }
            if used + x.len <= room {
                used += x.len;
                out.push(ExtentId(x.id));
                self.extent_bucket[x.id as usize] = NONE;
            } else {
                self.disk[b].push(x); // stays on disk, in the same bucket
            }
        }
    }
}

impl Plugin for RadixHeap {
    type Kind = dyn ClientBuffer;
    type Params = RadixHeapParams;
    const NAME: &'static str = "radix-heap";
    const DESCRIPTION: &'static str =
        "external radix heap spilling its highest bucket only when memory is full (the paper's baseline)";

    fn validate(p: &RadixHeapParams) -> Result<(), PluginError> {
        match p.block {
            Portion::Count(0) | Portion::Ppm(0) => {
                Err(PluginError::param("block", "must be at least one frame"))
            }
            Portion::Ppm(x) if x > 1_000_000 => Err(PluginError::param(
                "block",
                format!("must be at most 100% of the cache, got {}", p.block),
            )),
            _ => Ok(()),
        }
    }

    fn build(
        p: &RadixHeapParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn ClientBuffer>, PluginError> {
        let block = p.block.of(u64::from(ctx.pages)).min(u64::from(u32::MAX)) as u32;
        Ok(Box::new(RadixHeap::new(block, p.redistribute)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_the_most_significant_differing_bit() {
        let mut h = RadixHeap::new(100, Redistribute::Refile);
        for f in [1, 2, 3, 8, 100] {
            h.inserted(f);
        }
        assert_eq!(h.mem[1], [1]);
        assert_eq!(h.mem[2], [2, 3]);
        assert_eq!(h.mem[4], [8]);
        assert_eq!(h.mem[7], [100]);
        // Playing 1, then 2: bucket 2 (2, 3) is redistributed around last = 2.
        h.removed(1, Removal::Played);
        h.removed(2, Removal::Played);
        assert_eq!(h.last, 2);
        assert_eq!(h.mem[1], [3]);
        assert_eq!(h.mem[4], [8]);
    }

    /// A heap holding `low` and 40, 41, 60 (bucket 6 = 32..63 while `last` = 0) in a full
    /// five-frame cache pinned up to frame 5: the frames it writes (bucket 6, whole).
    fn spill_bucket_6(h: &mut RadixHeap, low: [u32; 2]) -> Vec<u32> {
        let mut words = vec![0u64; 1];
        for f in low.into_iter().chain([40, 41, 60]) {
            h.inserted(f);
            words[0] |= 1 << f;
        }
        let view = CacheView::new(&words, 5, 5, Some(5));
        let mut out = Vec::new();
        h.choose_victims(&view, &mut out);
        out.sort_unstable();
        for &f in &out {
            h.removed(f, Removal::Written);
        }
        out
    }

    #[test]
    fn spills_the_highest_bucket_and_reads_it_back_whole() {
        let mut h = RadixHeap::new(100, Redistribute::Refile);
        let out = spill_bucket_6(&mut h, [5, 6]);
        assert_eq!(out, [40, 41, 60], "bucket 6 (32..63) goes out whole");
        h.written(ExtentId(0), &[40, 41]);
        h.written(ExtentId(1), &[60]);
        let mut reads = Vec::new();
        h.choose_reads(40, ExtentId(0), 8, &mut reads);
        assert_eq!(reads, [ExtentId(0), ExtentId(1)]);
    }

    #[test]
    fn read_mode_wants_a_bucket_back_when_it_becomes_the_minimum() {
        let mut h = RadixHeap::new(100, Redistribute::Read);
        // last = 0: bucket 6 holds 32..63 and is due when frame 32 is
        let out = spill_bucket_6(&mut h, [3, 5]);
        assert_eq!(out, [40, 41, 60]);
        h.written(ExtentId(0), &out);
        assert_eq!(h.due_frame(ExtentId(0), &out), 32);
        // Read ahead of frame 32's delete-min (3 and 5 still to play): the buckets up to
        // bucket 6 are redistributed around 32, so 3 and 5 wait in front of `last`, and the
        // frames read land in lower buckets (40, 41: bucket 4 = 40..47; 60: bucket 5).
        let mut reads = Vec::new();
        h.choose_reads(32, ExtentId(0), 2, &mut reads);
        assert_eq!(reads, [ExtentId(0)]);
        for f in [40, 41, 60] {
            h.inserted(f);
        }
        assert_eq!(h.last, 32);
        assert_eq!(h.mem[4], [40, 41]);
        assert_eq!(h.mem[5], [60]);
        let mut front = h.mem[FRONT].clone();
        front.sort_unstable();
        assert_eq!(front, [3, 5]);
        // A write from bucket 5 now is due when that bucket (48..63) is.
        h.removed(60, Removal::Written);
        h.written(ExtentId(1), &[60]);
        assert_eq!(h.due_frame(ExtentId(1), &[60]), 48);
        // Playing the frames in front leaves `last` alone; the next key is played as usual.
        h.removed(3, Removal::Played);
        h.removed(5, Removal::Played);
        assert_eq!(h.last, 32);
        h.removed(40, Removal::Played);
        assert_eq!((h.last, h.mem[1].clone()), (40, vec![41]));
    }
}
