//! Which blocks a prefetcher has queued, and where: the index `standard` and the
//! deadline-ordered prefetchers (`real-time`, `delayed`) keep beside their per-disk queues
//! (SPIFFI §5.2.3: a queue never holds the same block twice, and a queued prefetch whose
//! block a terminal references first is dropped).
//!
//! Looking a block up is what a prefetcher does most, several times per reference, and with
//! hundreds of terminals a hash map of the queued blocks misses the processor's caches on
//! nearly every access (half of a prefetcher's `poll` time was one load of a map slot). Here
//! each block of the library has an entry of its own (by its [`BlockNumbering`] number): a
//! word holding `(position + 1) << 24 | disk` (0: not queued), followed by `EXTRA` words
//! the prefetcher stores with it (`real-time` keeps the entry's deadline there), so a
//! lookup is one load of neighbouring words and clearing an entry one store; the words are
//! allocated zeroed, so the operating system provides them as they are first touched. A
//! terminal's references walk its video's blocks in order, so the entries one terminal
//! touches lie side by side. Blocks outside the library (a hint or a layout's answer past a
//! video's end), disks from 2²⁴ on and positions from 2⁴⁰ on are kept in a map instead. A
//! library of more than [`DENSE_LIMIT`] blocks (tiny stripes on a long library) gets no
//! words at all and keeps every block in the map, so the index never costs more memory than
//! the queues it describes plus a fixed bound.

use rustc_hash::FxHashMap;
use vodbench_plugin_api::ids::{BlockId, BlockNumbering};

/// Most library blocks given an entry each (32 MB of words per word of the entry). SPIFFI's
/// largest library, Table 2's ×4 (256 one-hour videos at a 512 KB stripe), has about
/// 880,000 blocks; at a 128 KB stripe, about 3.5 million.
pub(crate) const DENSE_LIMIT: u64 = 1 << 22;

const DISK_BITS: u32 = 24;
pub(crate) const POSITION_LIMIT: u64 = (1 << (64 - DISK_BITS)) - 1;

/// A queued block's place: its disk, its position (what the prefetcher numbers its queue's
/// entries by) and `EXTRA` words of the prefetcher's own.
pub(crate) type Place<const EXTRA: usize> = (u32, u64, [u64; EXTRA]);

/// Queued block → [`Place`]: a map of blocks, kept as one entry of `1 + EXTRA` words per
/// library block where it can be (see the module's documentation).
#[derive(Debug, Default)]
pub(crate) struct QueuedIndex<const EXTRA: usize> {
    numbers: BlockNumbering,
    /// `1 + EXTRA` words per library block, or none (every block in `other`).
    words: Vec<u64>,
    other: FxHashMap<BlockId, Place<EXTRA>>,
}

impl<const EXTRA: usize> QueuedIndex<EXTRA> {
    /// An empty index over videos of `blocks[v]` blocks.
    pub(crate) fn new(blocks: &[u32]) -> Self {
        Self::with_limit(blocks, DENSE_LIMIT)
    }

    /// An empty index giving entries to a library of at most `limit` blocks.
    pub(crate) fn with_limit(blocks: &[u32], limit: u64) -> Self {
        let numbers = BlockNumbering::new(blocks);
        let words = if numbers.total() <= limit {
            vec![0; numbers.total() as usize * (1 + EXTRA)]
        } else {
            Vec::new()
        };
        QueuedIndex {
            words,
            numbers,
            other: FxHashMap::default(),
        }
    }

    /// The first word of `b`'s entry, if it is a block of the library and the library has
    /// entries.
    #[inline]
    fn word(&self, b: BlockId) -> Option<usize> {
        if self.words.is_empty() {
            return None;
        }
        self.numbers.number(b).map(|n| n as usize * (1 + EXTRA))
    }

    #[inline]
    pub(crate) fn contains_key(&self, b: &BlockId) -> bool {
        match self.word(*b) {
            Some(w) if self.words[w] != 0 => true,
            _ => !self.other.is_empty() && self.other.contains_key(b),
        }
    }

    #[inline]
    pub(crate) fn remove(&mut self, b: &BlockId) -> Option<Place<EXTRA>> {
        if let Some(w) = self.word(*b) {
            let x = std::mem::take(&mut self.words[w]);
            if x != 0 {
                let disk = (x & ((1 << DISK_BITS) - 1)) as u32;
                let mut extra = [0; EXTRA];
                extra.copy_from_slice(&self.words[w + 1..w + 1 + EXTRA]);
                return Some((disk, (x >> DISK_BITS) - 1, extra));
            }
        }
        if self.other.is_empty() {
            None
        } else {
            self.other.remove(b)
        }
    }

    #[inline]
    pub(crate) fn insert(&mut self, b: BlockId, (disk, position, extra): Place<EXTRA>) {
        match self.word(b) {
            Some(w) if disk < (1 << DISK_BITS) && position < POSITION_LIMIT => {
                self.words[w] = (position + 1) << DISK_BITS | u64::from(disk);
                self.words[w + 1..w + 1 + EXTRA].copy_from_slice(&extra);
                if !self.other.is_empty() {
                    self.other.remove(&b);
                }
            }
            w => {
                if let Some(w) = w {
                    self.words[w] = 0;
                }
                self.other.insert(b, (disk, position, extra));
            }
        }
    }

    /// Words held (for tests).
    #[cfg(test)]
    pub(crate) fn words(&self) -> usize {
        self.words.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::VideoId;

    #[test]
    fn the_queued_index_behaves_as_a_map() {
        let index = QueuedIndex::<0>::new(&[50, 0, 7]);
        assert_eq!(index.words(), 57);
        behaves_as_a_map(index);
        let index = QueuedIndex::<1>::new(&[50, 0, 7]);
        assert_eq!(index.words(), 114);
        behaves_as_a_map(index);
    }

    #[test]
    fn a_library_past_the_limit_gets_no_words_and_the_index_still_behaves_as_a_map() {
        let index = QueuedIndex::<0>::with_limit(&[50, 0, 7], 56);
        assert_eq!(index.words(), 0);
        behaves_as_a_map(index);
        assert_eq!(QueuedIndex::<0>::with_limit(&[50, 0, 7], 57).words(), 57);
        behaves_as_a_map(QueuedIndex::<1>::with_limit(&[50, 0, 7], 56));
    }

    fn behaves_as_a_map<const EXTRA: usize>(mut index: QueuedIndex<EXTRA>) {
        use rand::{Rng, SeedableRng};
        let mut rng = vodbench_plugin_api::rng::SimRng::seed_from_u64(9);
        let mut reference = FxHashMap::default();
        for _ in 0..50_000 {
            // blocks inside and outside the library, and values either way of the limits
            let b = BlockId {
                video: VideoId(rng.random_range(0..4)),
                index: rng.random_range(0..60),
            };
            match rng.random_range(0..3) {
                0 => {
                    let disk = if rng.random_bool(0.1) {
                        1 << 24
                    } else {
                        rng.random_range(0..64)
                    };
                    let position = if rng.random_bool(0.1) {
                        POSITION_LIMIT + rng.random_range(0..3)
                    } else {
                        rng.random_range(0..1000)
                    };
                    let extra = [(); EXTRA].map(|_| rng.random::<u64>());
                    index.insert(b, (disk, position, extra));
                    reference.insert(b, (disk, position, extra));
                }
                1 => assert_eq!(index.remove(&b), reference.remove(&b), "{b:?}"),
                _ => assert_eq!(index.contains_key(&b), reference.contains_key(&b), "{b:?}"),
            }
        }
    }
}
