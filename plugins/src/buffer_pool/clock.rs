//! `clock`: CLOCK (second chance), as libCacheSim implements it: a FIFO queue in which every
//! page carries a counter of references, raised on each reference up to `2^bits − 1`. The
//! victim is sought from the oldest page: a page whose counter is above zero has it lowered
//! and goes back to the newest end; the first page found at zero is evicted. With `bits = 1`
//! this is the classic one-reference-bit clock.

use super::chain::{Chains, Pages, NIL};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::{BufferPool, BuildContext, CacheRequest, Plugin, PluginError};

const QUEUE: u8 = 1;

/// Parameters of `clock`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ClockParams {
    /// Bits of each page's reference counter (1..=8); 1 is the classic clock.
    pub bits: u32,
}

impl Default for ClockParams {
    fn default() -> Self {
        ClockParams { bits: 1 }
    }
}

/// CLOCK replacement.
#[derive(Debug)]
pub struct Clock {
    queue: Chains,
    pages: Pages,
    count: Vec<u8>,
    max: u8,
}

impl Clock {
    /// A pool of `pages` pages with `bits`-bit reference counters (1..=8).
    pub fn new(pages: u32, bits: u32) -> Self {
        Clock {
            queue: Chains::new(pages as usize, 1),
            pages: Pages::new(pages),
            count: vec![0; pages as usize],
            max: ((1u32 << bits.clamp(1, 8)) - 1) as u8,
        }
    }
}

impl BufferPool for Clock {
    fn release(&mut self, page: PageId, _referenced: bool) {
        if self.pages.release(page) {
            self.count[page.index()] = 0;
            self.queue.push_tail(QUEUE, page.0, 1);
        } else {
            let c = &mut self.count[page.index()];
            *c = (*c + 1).min(self.max);
        }
    }

    fn acquire(&mut self, page: PageId) {
        self.pages.acquire(page);
    }

    fn evict(&mut self) -> Option<PageId> {
        // each page is passed over at most `max` times and pages in use are skipped:
        // bounded by (max + 1) rounds of the queue
        let mut budget = (self.queue.weight(QUEUE) + 1) * (u64::from(self.max) + 1);
        let mut p = self.queue.head(QUEUE);
        while p != NIL && budget > 0 {
            budget -= 1;
            let next = self.queue.next(p);
            if self.pages.pinned[p as usize] {
                p = next;
                continue;
            }
            if self.count[p as usize] == 0 {
                self.queue.unlink(p);
                self.pages.forget(p);
                return Some(PageId(p));
            }
            self.count[p as usize] -= 1;
            self.queue.unlink(p);
            self.queue.push_tail(QUEUE, p, 1);
            if next == NIL {
                p = self.queue.head(QUEUE);
            } else {
                p = next;
            }
        }
        None
    }

    fn request(&mut self, request: &CacheRequest, page: Option<PageId>) {
        self.pages.request(request, page);
    }
}

impl Plugin for Clock {
    type Kind = dyn BufferPool;
    type Params = ClockParams;
    const NAME: &'static str = "clock";
    const DESCRIPTION: &'static str =
        "CLOCK (second chance): FIFO that spares a referenced page once per reference";
    fn validate(p: &ClockParams) -> Result<(), PluginError> {
        if !(1..=8).contains(&p.bits) {
            return Err(PluginError::InvalidParam {
                path: "bits".into(),
                message: format!("must be 1..=8, not {}", p.bits),
            });
        }
        Ok(())
    }
    fn build(p: &ClockParams, ctx: &BuildContext<'_>) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(Clock::new(ctx.pages, p.bits)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_referenced_page_gets_a_second_chance() {
        let mut c = Clock::new(4, 1);
        for p in [0, 1, 2] {
            c.release(PageId(p), true);
        }
        c.acquire(PageId(0));
        c.release(PageId(0), true); // referenced again: its bit is set
        assert_eq!(c.evict(), Some(PageId(1)), "0 is spared once");
        assert_eq!(c.evict(), Some(PageId(2)));
        assert_eq!(c.evict(), Some(PageId(0)));
        assert_eq!(c.evict(), None);
    }

    #[test]
    fn pages_in_use_are_never_chosen() {
        let mut c = Clock::new(2, 2);
        c.release(PageId(0), true);
        c.acquire(PageId(0));
        assert_eq!(c.evict(), None);
    }
}
