//! `s3-fifo`: S3-FIFO (Yang et al., SOSP '23): three FIFO queues. New objects enter a small
//! queue (`small_ratio` of the capacity); one referenced at least `move_to_main_threshold`
//! times while there moves to the main queue when it reaches the small queue's end,
//! otherwise it is evicted and its id remembered in a ghost queue (ids only, as many bytes'
//! worth as the main queue holds). An object whose id is in the ghost queue enters the main
//! queue directly. The main queue is a CLOCK with two-bit counters: a page referenced since
//! it was last passed is spared and its counter lowered. Evictions come from the small
//! queue while it holds at least its share, from the main queue otherwise.

use super::chain::{Chains, Ghosts, Pages, NIL};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::{BufferPool, BuildContext, CacheRequest, Plugin, PluginError};

const SMALL: u8 = 1;
const MAIN: u8 = 2;
const GHOST: u8 = 1;
const MAX_FREQ: u8 = 3;

/// Parameters of `s3-fifo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct S3FifoParams {
    /// Share of the capacity the small queue holds (0 < small_ratio < 1).
    pub small_ratio: f64,
    /// References while in the small queue that move an object to the main queue (1..=3).
    pub move_to_main_threshold: u8,
}

impl Default for S3FifoParams {
    fn default() -> Self {
        S3FifoParams {
            small_ratio: 0.1,
            move_to_main_threshold: 1,
        }
    }
}

/// S3-FIFO replacement.
#[derive(Debug)]
pub struct S3Fifo {
    queues: Chains,
    pages: Pages,
    freq: Vec<u8>,
    ghosts: Ghosts,
    params: S3FifoParams,
}

impl S3Fifo {
    /// A pool of `pages` pages, none held.
    pub fn new(pages: u32, params: &S3FifoParams) -> Self {
        S3Fifo {
            queues: Chains::new(pages as usize, 2),
            pages: Pages::new(pages),
            freq: vec![0; pages as usize],
            ghosts: Ghosts::new(1),
            params: params.clone(),
        }
    }

    fn small_capacity(&self) -> u64 {
        ((self.pages.capacity as f64 * self.params.small_ratio) as u64).max(1)
    }

    fn ghost_capacity(&self) -> u64 {
        self.pages
            .capacity
            .saturating_sub(self.small_capacity())
            .max(1)
    }

    /// Moves page `p` from wherever it is to the tail of `list`.
    fn requeue(&mut self, p: u32, list: u8) {
        self.queues.unlink(p);
        self.queues.push_tail(list, p, self.pages.bytes[p as usize]);
    }

    /// The oldest page of `list` not in use.
    fn oldest_free(&self, list: u8) -> u32 {
        let mut p = self.queues.head(list);
        while p != NIL && self.pages.pinned[p as usize] {
            p = self.queues.next(p);
        }
        p
    }

    fn remove(&mut self, p: u32) -> PageId {
        self.queues.unlink(p);
        self.pages.forget(p);
        PageId(p)
    }
}

impl BufferPool for S3Fifo {
    fn release(&mut self, page: PageId, _referenced: bool) {
        let p = page.index();
        if self.pages.release(page) {
            self.freq[p] = 0;
            let object = self.pages.object[p];
            let list = if self.ghosts.list_of(object) == GHOST {
                self.ghosts.remove(object);
                MAIN
            } else {
                SMALL
            };
            self.queues.push_tail(list, page.0, self.pages.bytes[p]);
        } else {
            self.freq[p] = (self.freq[p] + 1).min(MAX_FREQ);
        }
    }

    fn acquire(&mut self, page: PageId) {
        self.pages.acquire(page);
    }

    fn evict(&mut self) -> Option<PageId> {
        // every page moves at most MAX_FREQ + 1 times before one is evicted: bounded
        let held = self.queues.weight(SMALL) + self.queues.weight(MAIN);
        let mut budget = 2 * (u64::from(MAX_FREQ) + 2) * (held + 1);
        while budget > 0 {
            budget -= 1;
            let small_first = !self.queues.is_empty(SMALL)
                && (self.queues.weight(SMALL) >= self.small_capacity()
                    || self.queues.is_empty(MAIN));
            let order = if small_first {
                [SMALL, MAIN]
            } else {
                [MAIN, SMALL]
            };
            // the oldest page not in use, from the other queue when all of this one's are
            let (list, p) = order
                .into_iter()
                .map(|l| (l, self.oldest_free(l)))
                .find(|(_, p)| *p != NIL)?;
            if list == SMALL {
                if self.freq[p as usize] >= self.params.move_to_main_threshold {
                    self.freq[p as usize] = 0;
                    self.requeue(p, MAIN);
                    continue;
                }
                let (object, bytes) = (self.pages.object[p as usize], self.pages.bytes[p as usize]);
                self.ghosts.push(GHOST, object, bytes);
                while self.ghosts.weight(GHOST) > self.ghost_capacity() {
                    self.ghosts.pop_oldest(GHOST);
                }
                return Some(self.remove(p));
            }
            if self.freq[p as usize] > 0 {
                self.freq[p as usize] -= 1;
                self.requeue(p, MAIN);
                continue;
            }
            return Some(self.remove(p));
        }
        None
    }

    fn set_capacity(&mut self, bytes: u64) {
        self.pages.capacity = bytes;
    }

    fn request(&mut self, request: &CacheRequest, page: Option<PageId>) {
        self.pages.request(request, page);
    }
}

impl Plugin for S3Fifo {
    type Kind = dyn BufferPool;
    type Params = S3FifoParams;
    const NAME: &'static str = "s3-fifo";
    const DESCRIPTION: &'static str =
        "S3-FIFO: small, main and ghost FIFO queues; one-hit objects leave quickly (SOSP '23)";
    fn validate(p: &S3FifoParams) -> Result<(), PluginError> {
        if !(p.small_ratio > 0.0 && p.small_ratio < 1.0) {
            return Err(PluginError::InvalidParam {
                path: "small_ratio".into(),
                message: format!("must be between 0 and 1 (exclusive), not {}", p.small_ratio),
            });
        }
        if !(1..=MAX_FREQ).contains(&p.move_to_main_threshold) {
            return Err(PluginError::InvalidParam {
                path: "move_to_main_threshold".into(),
                message: format!("must be 1..=3, not {}", p.move_to_main_threshold),
            });
        }
        Ok(())
    }
    fn build(p: &S3FifoParams, ctx: &BuildContext<'_>) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(S3Fifo::new(ctx.pages, p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn miss(s: &mut S3Fifo, page: u32, object: u64) {
        s.request(
            &CacheRequest {
                object,
                bytes: 1,
                next_access: None,
            },
            None,
        );
        s.release(PageId(page), true);
    }

    #[test]
    fn pages_in_use_in_the_small_queue_leave_the_main_queues_evictable() {
        // found by the conformance test: page 6 back from the ghost queue into main, while
        // the small queue holds only a page in use
        let mut s = S3Fifo::new(16, &S3FifoParams::default());
        s.release(PageId(12), false);
        s.acquire(PageId(12));
        s.release(PageId(6), false);
        assert_eq!(s.evict(), Some(PageId(6)));
        s.release(PageId(6), false);
        assert_eq!(s.queues.list_of(6), MAIN);
        assert_eq!(s.evict(), Some(PageId(6)));
        assert_eq!(s.evict(), None, "12 is in use");
    }

    #[test]
    fn one_hit_objects_leave_first_and_ghosts_return_to_main() {
        let mut s = S3Fifo::new(10, &S3FifoParams::default());
        s.set_capacity(10);
        miss(&mut s, 0, 100);
        miss(&mut s, 1, 101);
        s.acquire(PageId(0));
        s.release(PageId(0), true); // object 100 referenced again while small
                                    // the small queue holds 2 ≥ 1 (10 % of 10): 100 moves to main, 101 is evicted
        assert_eq!(s.evict(), Some(PageId(1)));
        assert_eq!(s.ghosts.list_of(101), GHOST);
        miss(&mut s, 1, 101); // back from the ghost queue: straight to main
        assert_eq!(s.queues.list_of(1), MAIN);
        assert_eq!(
            s.evict(),
            Some(PageId(0)),
            "main is FIFO with a second chance"
        );
    }
}
