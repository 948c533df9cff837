//! Client-side buffer management for periodic broadcast (Waldvogel et al. §IV–V).
//!
//! A broadcast receiver gets frames out of playout order and keeps them until they are
//! played: in a memory cache of `C` frames, spilling to its local disk. A [`ClientBuffer`]
//! decides only *which* frames go to disk together (one write, one seek) and *which* disk
//! extents come back together when a frame on disk is due. The receiver engine does the rest:
//! it tracks where every frame is, pins the frames due within the read-ahead window, times
//! every disk access with the disk model, and checks every answer.

/// A contiguous run of frames that went to disk in one write.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExtentId(pub u32);

/// Why a frame left the memory cache.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Removal {
    /// It was played.
    Played,
    /// It was written to disk.
    Written,
}

/// The receiver's memory cache as a policy sees it: which frames are in memory, and which of
/// them may be evicted (frames due within the read-ahead window are pinned).
///
/// Frames are numbered in playout order, so "most distant playout" is "highest number".
pub struct CacheView<'a> {
    words: &'a [u64],
    len: u32,
    capacity: u32,
    pin_limit: Option<u32>,
}

impl<'a> CacheView<'a> {
    /// A view over a bitset of cached frames (bit `i` of `words[i / 64]`), holding `len`
    /// frames, with room for `capacity`; frames `≤ pin_limit` may not be evicted.
    pub fn new(words: &'a [u64], len: u32, capacity: u32, pin_limit: Option<u32>) -> Self {
        CacheView {
            words,
            len,
            capacity,
            pin_limit,
        }
    }

    /// The bitset of cached frames (bit `i` of word `i / 64`).
    pub fn words(&self) -> &'a [u64] {
        self.words
    }

    /// The last pinned frame (frames up to it may not be evicted), if any.
    pub fn pin_limit(&self) -> Option<u32> {
        self.pin_limit
    }

    /// Frames in memory.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Cache capacity `C` in frames.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Whether frame `f` is in memory.
    pub fn contains(&self, f: u32) -> bool {
        let w = (f / 64) as usize;
        w < self.words.len() && self.words[w] & (1u64 << (f % 64)) != 0
    }

    /// Whether frame `f` is in memory and not pinned.
    pub fn is_evictable(&self, f: u32) -> bool {
        self.contains(f) && self.pin_limit.is_none_or(|p| f > p)
    }

    /// The first frame that may be evicted (frames below it are pinned).
    pub fn first_evictable(&self) -> u32 {
        self.pin_limit.map_or(0, |p| p + 1)
    }

    /// Evictable frames in increasing playout order.
    pub fn evictable(&self) -> impl Iterator<Item = u32> + '_ {
        self.evictable_from(0)
    }

    /// Evictable frames `≥ from`, in increasing playout order.
    pub fn evictable_from(&self, from: u32) -> impl Iterator<Item = u32> + '_ {
        let start = self.first_evictable().max(from);
        let mut word = (start / 64) as usize;
        let mut bits = self
            .words
            .get(word)
            .map_or(0, |w| w & (u64::MAX << (start % 64)));
        std::iter::from_fn(move || loop {
            if bits != 0 {
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                return Some(word as u32 * 64 + b);
            }
            word += 1;
            bits = *self.words.get(word)?;
        })
    }

    /// Evictable frames in decreasing playout order (most distant first).
    pub fn evictable_rev(&self) -> impl Iterator<Item = u32> + '_ {
        let start = self.first_evictable();
        let mut word = self.words.len();
        let mut bits = 0u64;
        std::iter::from_fn(move || loop {
            if bits != 0 {
                let b = 63 - bits.leading_zeros();
                bits &= !(1u64 << b);
                let f = word as u32 * 64 + b;
                return (f >= start).then_some(f);
            }
            if word == 0 {
                return None;
            }
            word -= 1;
            bits = self.words[word];
        })
    }
}

/// A client buffer policy: MDP, MCS, Belady's optimum, a radix heap, or yours.
///
/// The engine's promises: [`inserted`](ClientBuffer::inserted) and
/// [`removed`](ClientBuffer::removed) report every change of the memory cache;
/// [`choose_victims`](ClientBuffer::choose_victims) is called when the cache is full and a
/// frame must come in; [`choose_reads`](ClientBuffer::choose_reads) when a frame on disk must be
/// read back now to reach memory before its playout (the receiver plans with the disk
/// model's worst-case service time and the read-ahead slack); frames due before it are
/// pinned. The policy's side: victims are distinct, evictable
/// ([`CacheView::is_evictable`]) and non-empty whenever anything is evictable; the extents to
/// read include the one holding the due frame, are all on disk and fit in the `room` given.
/// A broken answer stops the run with an error naming the plugin.
///
/// ```
/// use vodbench_plugin_api::plugin::{CacheView, ClientBuffer};
///
/// /// Writes the single most distant frame: Belady's choice, one seek per frame.
/// struct MostDistant;
/// impl ClientBuffer for MostDistant {
///     fn batch_frames(&self) -> u32 { 1 }
///     fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
///         out.extend(cache.evictable_rev().take(1));
///     }
/// }
/// let words = [0b1011_0000u64]; // frames 4, 5, 7 cached
/// let view = CacheView::new(&words, 3, 3, Some(4));
/// let mut v = Vec::new();
/// MostDistant.choose_victims(&view, &mut v);
/// assert_eq!(v, [7]);
/// assert_eq!(view.evictable().collect::<Vec<_>>(), [5, 7]);
/// ```
pub trait ClientBuffer: Send {
    /// Frames written per batch (κ), reported to schedules as a chunk-size hint.
    fn batch_frames(&self) -> u32;
    /// Frame `frame` entered memory (arrived, or was read back).
    fn inserted(&mut self, _frame: u32) {}
    /// Frame `frame` left memory.
    fn removed(&mut self, _frame: u32, _why: Removal) {}
    /// Frame `frame` arrived in its own playout instant and was played without entering
    /// memory.
    fn played_direct(&mut self, _frame: u32) {}
    /// The cache is full: push the frames to write to disk as one extent.
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>);
    /// The victims just chosen were written as `extent`.
    fn written(&mut self, _extent: ExtentId, _frames: &[u32]) {}
    /// The frame by whose playout `extent`, just written with `frames` (ascending), must be
    /// back in memory; called right after [`written`](ClientBuffer::written). The default,
    /// its first frame, reads an extent back when its earliest frame is due (the paper's
    /// rule for MDP and MCS). A policy that needs the frames sooner returns an earlier frame
    /// — a textbook radix heap reads a bucket when the bucket becomes the minimum. The
    /// receiver keeps the answer between the first frame it may write (past the pinned
    /// read-ahead window) and `frames[0]`.
    fn due_frame(&mut self, _extent: ExtentId, frames: &[u32]) -> u32 {
        frames[0]
    }
    /// `extent` must be back by the playout of frame `due` (its first frame, or the earlier
    /// frame [`due_frame`](ClientBuffer::due_frame) chose): push the extents to read back
    /// now (at least `extent`). `room` is how many frames memory can take without writing
    /// out a pinned frame (the cache size minus the pinned frames in memory): together the
    /// extents chosen may hold at most `max(room, frames of extent)` frames, so that a read
    /// never pushes the cache over its size. The default reads just `extent`.
    fn choose_reads(&mut self, _due: u32, extent: ExtentId, _room: u32, out: &mut Vec<ExtentId>) {
        out.push(extent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_crosses_words_both_ways() {
        let mut words = vec![0u64; 3];
        for f in [1u32, 63, 64, 100, 130, 191] {
            words[(f / 64) as usize] |= 1 << (f % 64);
        }
        let v = CacheView::new(&words, 6, 10, Some(63));
        assert_eq!(v.evictable().collect::<Vec<_>>(), [64, 100, 130, 191]);
        assert_eq!(v.evictable_rev().collect::<Vec<_>>(), [191, 130, 100, 64]);
        let all = CacheView::new(&words, 6, 10, None);
        assert_eq!(all.evictable().count(), 6);
        assert_eq!(all.evictable_rev().last(), Some(1));
        assert!(!v.is_evictable(63) && v.contains(63) && v.is_evictable(64));
    }
}
