//! A word per block of the video library, for tables the simulation consults at every
//! reference.
//!
//! With hundreds of terminals, a hash map keyed by block spreads each terminal's consecutive
//! blocks over random slots and misses the processor's caches on nearly every access. A
//! vector indexed by the block's [`BlockNumbering`] number keeps them side by side, and one
//! load answers. The words are allocated zeroed, so the operating system provides them as
//! they are first touched. A library of more than the caller's limit gets no words at all
//! (every lookup answers `None`, and the caller keeps its blocks in a map instead), so the
//! memory stays bounded. The engine's page table of a large node and the `standard`
//! prefetcher's index of queued blocks are built on it.
//!
//! ```
//! use vodbench_harness::block_words::BlockWords;
//! use vodbench_harness::ids::BlockId;
//! let mut w: BlockWords<u32> = BlockWords::new(&[3, 2], 100);
//! *w.word_mut(BlockId::new(1, 1)).unwrap() = 7;
//! assert_eq!(w.word(BlockId::new(1, 1)), Some(7));
//! assert_eq!(w.word(BlockId::new(0, 1)), Some(0));
//! // past a video's end, or a library over the limit: no word
//! assert_eq!(w.word(BlockId::new(1, 2)), None);
//! assert_eq!(BlockWords::<u32>::new(&[3, 2], 4).word(BlockId::new(0, 0)), None);
//! ```

use crate::ids::{BlockId, BlockNumbering};

/// One word of type `W` per library block (initially `W::default()`), or none.
#[derive(Debug, Default)]
pub struct BlockWords<W> {
    numbers: BlockNumbering,
    words: Vec<W>,
}

impl<W: Copy + Default> BlockWords<W> {
    /// Words for videos of `blocks[v]` blocks, if they number at most `limit` (else none).
    pub fn new(blocks: &[u32], limit: u64) -> Self {
        let numbers = BlockNumbering::new(blocks);
        let words = if numbers.total() <= limit {
            vec![W::default(); numbers.total() as usize]
        } else {
            Vec::new()
        };
        BlockWords { numbers, words }
    }

    /// Whether there are any words (a non-empty library within the limit).
    #[inline]
    pub fn has_words(&self) -> bool {
        !self.words.is_empty()
    }

    /// The index of `b`'s word, if it has one.
    #[inline]
    fn slot(&self, b: BlockId) -> Option<usize> {
        if self.words.is_empty() {
            return None;
        }
        self.numbers.number(b).map(|n| n as usize)
    }

    /// `b`'s word, if it has one.
    #[inline]
    pub fn word(&self, b: BlockId) -> Option<W> {
        self.slot(b).map(|i| self.words[i])
    }

    /// `b`'s word to change, if it has one.
    #[inline]
    pub fn word_mut(&mut self, b: BlockId) -> Option<&mut W> {
        self.slot(b).map(|i| &mut self.words[i])
    }
}
