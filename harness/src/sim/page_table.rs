//! A node's page table: which of its pages holds (or is reading) a block.
//!
//! SPIFFI's buffer pool (§5.2.1) looks a block up at every reference and every prefetch, and
//! forgets it at every eviction. With server memory enough that memory does not limit
//! performance (Fig. 10's 1 GB per node at a 128 KB stripe: 8,192 pages per node) a hash map
//! of the resident blocks spreads consecutive blocks over random slots: in a profile of a
//! Fig. 10 search, removing evicted blocks from it took 8 % of the time and a reference's
//! lookup another 9 %, mostly waiting on the processor's caches.
//!
//! So a node of at least [`DENSE_FROM_PAGES`] pages gives each block of the library a word
//! of its own ([`BlockWords`]) holding its page + 1 (0: not resident): a terminal's
//! consecutive blocks share cache lines, and a lookup is one load. Blocks outside the
//! library, every block of a library larger than [`DENSE_LIMIT`] blocks, and every block of a
//! smaller node (whose map stays in the caches) are kept in a map instead.
//!
//! Measured with three replications of a search, one thread, both builds side by side and
//! alternating which starts first (the machine's speed varied by about ±5 % between pairs):
//! at Fig. 10's 128 KB stripe (8,192 pages per node) the words took 6–10 % off in four
//! pairs; at 256 KB (4,096 pages) two pairs were even (−2.5 %, +2.7 %); at 512 KB (2,048
//! pages) five pairs ranged from −7 % to +8 %; at 1,024 and 512 pages (Fig. 11's love
//! prefetch at 2 GB and 1 GB) they were even, and at 64–256 pages (Table 2's 128 MB points)
//! the map was about 1 % quicker. So the words start at 4,096 pages.

use crate::block_words::BlockWords;
use crate::ids::BlockId;
use rustc_hash::FxHashMap;

/// Most library blocks given a word each (16 MB of words per node).
const DENSE_LIMIT: u64 = 1 << 22;

/// Fewest pages for which a node gives blocks words.
const DENSE_FROM_PAGES: u32 = 4096;

/// Block → page of one node.
pub(super) struct PageTable {
    /// Page + 1 of each library block (0: none), or no words at all.
    words: BlockWords<u32>,
    other: FxHashMap<BlockId, u32>,
}

impl PageTable {
    /// An empty table for a node of `pages` pages over videos of `blocks[v]` blocks.
    pub fn new(blocks: &[u32], pages: u32) -> Self {
        let limit = if pages >= DENSE_FROM_PAGES {
            DENSE_LIMIT
        } else {
            0
        };
        Self::with_limit(blocks, limit)
    }

    /// An empty table giving words to a library of at most `limit` blocks.
    fn with_limit(blocks: &[u32], limit: u64) -> Self {
        PageTable {
            words: BlockWords::new(blocks, limit),
            other: FxHashMap::default(),
        }
    }

    /// The page holding `b`.
    #[inline]
    pub fn get(&self, b: BlockId) -> Option<u32> {
        match self.words.word(b) {
            Some(w) => w.checked_sub(1),
            None => self.other.get(&b).copied(),
        }
    }

    /// Whether a page holds `b`.
    #[inline]
    pub fn contains(&self, b: BlockId) -> bool {
        self.get(b).is_some()
    }

    /// `b` is now in page `p` (`p < u32::MAX`: pages are counted in `u32`).
    #[inline]
    pub fn insert(&mut self, b: BlockId, p: u32) {
        match self.words.word_mut(b) {
            Some(w) => *w = p + 1,
            None => {
                self.other.insert(b, p);
            }
        }
    }

    /// `b` is no longer in any page.
    #[inline]
    pub fn remove(&mut self, b: BlockId) {
        match self.words.word_mut(b) {
            Some(w) => *w = 0,
            None => {
                self.other.remove(&b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn behaves_as_a_map_inside_and_outside_the_library_with_and_without_words() {
        use crate::rng::SimRng;
        use rand::{Rng, SeedableRng};
        let sizes = [50u32, 0, 3, 70];
        for limit in [DENSE_LIMIT, 10, 0] {
            let mut t = PageTable::with_limit(&sizes, limit);
            let mut reference: HashMap<BlockId, u32> = HashMap::new();
            let mut rng = SimRng::seed_from_u64(limit);
            for _ in 0..20_000 {
                // blocks past a video's end and videos outside the library too
                let b = BlockId::new(rng.random_range(0..5), rng.random_range(0..80));
                match rng.random_range(0..3) {
                    0 => {
                        let p = rng.random_range(0..1000);
                        t.insert(b, p);
                        reference.insert(b, p);
                    }
                    1 => {
                        t.remove(b);
                        reference.remove(&b);
                    }
                    _ => {}
                }
                assert_eq!(t.get(b), reference.get(&b).copied(), "{b:?}");
                assert_eq!(t.contains(b), reference.contains_key(&b), "{b:?}");
            }
        }
    }

    #[test]
    fn only_large_nodes_give_words() {
        assert!(!PageTable::new(&[4, 5], DENSE_FROM_PAGES - 1)
            .words
            .has_words());
        assert!(PageTable::new(&[4, 5], DENSE_FROM_PAGES).words.has_words());
    }

    #[test]
    fn page_zero_is_a_page() {
        let mut t = PageTable::new(&[4], DENSE_FROM_PAGES);
        t.insert(BlockId::new(0, 2), 0);
        assert_eq!(t.get(BlockId::new(0, 2)), Some(0));
        assert_eq!(t.get(BlockId::new(0, 1)), None);
        t.remove(BlockId::new(0, 2));
        assert!(!t.contains(BlockId::new(0, 2)));
    }
}
