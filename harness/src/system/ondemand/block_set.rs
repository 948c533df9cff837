//! A set of blocks of the video library, one bit per block.
//!
//! The engine remembers which blocks lost their prefetched page before anyone referenced it
//! (SPIFFI §5.2.2's wasted prefetches) to count the re-reads of those blocks. Over an hour of
//! a large server that set holds tens of thousands of blocks, and a hash set of that size
//! misses the processor's caches on every disk read that asks it. Here a block is the bit of
//! its [`BlockNumbering`] number; bits live in chunks of 2¹⁶ allocated when first set, so
//! the set costs memory only where blocks were ever inserted.

use crate::ids::{BlockId, BlockNumbering};

const CHUNK_BITS: usize = 1 << 16;
const CHUNK_WORDS: usize = CHUNK_BITS / 64;

/// A set of blocks of a library whose videos have `blocks[v]` blocks each.
pub(super) struct BlockSet {
    numbers: BlockNumbering,
    chunks: Vec<Option<Box<[u64]>>>,
}

impl BlockSet {
    /// An empty set over videos of `blocks[v]` blocks.
    pub fn new(blocks: &[u32]) -> Self {
        let numbers = BlockNumbering::new(blocks);
        let chunks = (numbers.total() as usize).div_ceil(CHUNK_BITS);
        BlockSet {
            numbers,
            chunks: (0..chunks).map(|_| None).collect(),
        }
    }

    /// The bit of `b`, or `None` for a block outside the library.
    fn bit(&self, b: BlockId) -> Option<usize> {
        self.numbers.number(b).map(|n| n as usize)
    }

    /// Adds `b` (blocks outside the library are ignored).
    pub fn insert(&mut self, b: BlockId) {
        if let Some(bit) = self.bit(b) {
            let chunk = self.chunks[bit / CHUNK_BITS]
                .get_or_insert_with(|| vec![0u64; CHUNK_WORDS].into_boxed_slice());
            chunk[(bit % CHUNK_BITS) / 64] |= 1 << (bit % 64);
        }
    }

    /// Removes `b`; whether it was in the set.
    pub fn remove(&mut self, b: BlockId) -> bool {
        let Some(bit) = self.bit(b) else {
            return false;
        };
        let Some(chunk) = self.chunks[bit / CHUNK_BITS].as_mut() else {
            return false;
        };
        let word = &mut chunk[(bit % CHUNK_BITS) / 64];
        let mask = 1 << (bit % 64);
        let was = *word & mask != 0;
        *word &= !mask;
        was
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VideoId;
    use std::collections::HashSet;

    fn block(v: u32, i: u32) -> BlockId {
        BlockId {
            video: VideoId(v),
            index: i,
        }
    }

    #[test]
    fn behaves_as_a_set_of_the_library_blocks() {
        use crate::rng::SimRng;
        use rand::{Rng, SeedableRng};
        // videos spanning chunk boundaries, and an empty one
        let sizes = [70_000u32, 0, 3, 130_000, 1];
        let mut set = BlockSet::new(&sizes);
        let mut reference = HashSet::new();
        let mut rng = SimRng::seed_from_u64(5);
        for _ in 0..50_000 {
            let v = rng.random_range(0..sizes.len() as u32);
            let i = rng.random_range(0..sizes[v as usize].max(1) + 2);
            let b = block(v, i);
            let inside = i < sizes[v as usize];
            if rng.random_bool(0.5) {
                set.insert(b);
                if inside {
                    reference.insert(b);
                }
            } else {
                assert_eq!(set.remove(b), reference.remove(&b), "{b:?}");
            }
        }
        // outside the library: never in the set
        set.insert(block(9, 0));
        assert!(!set.remove(block(9, 0)));
        assert!(!set.remove(block(0, 70_000)));
    }
}
