//! `lfu`: least frequently used. Each page counts its references while the pool holds it
//! (a page new to the pool starts at one); the victim is the evictable page with the fewest,
//! the least recently referenced of those on a tie. Counts are forgotten with the page
//! (in-cache LFU, as libCacheSim's `LFU`). An ordered set of evictable pages: O(log n).

use super::chain::Pages;
use std::collections::BTreeSet;
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{BufferPool, BuildContext, CacheRequest, Plugin, PluginError};

/// LFU replacement.
#[derive(Debug)]
pub struct Lfu {
    pages: Pages,
    count: Vec<u64>,
    stamp: Vec<u64>,
    clock: u64,
    /// Evictable pages by (count, last reference, page).
    order: BTreeSet<(u64, u64, u32)>,
}

impl Lfu {
    /// A pool of `pages` pages, none held.
    pub fn new(pages: u32) -> Self {
        Lfu {
            pages: Pages::new(pages),
            count: vec![0; pages as usize],
            stamp: vec![0; pages as usize],
            clock: 0,
            order: BTreeSet::new(),
        }
    }

    fn key(&self, p: usize) -> (u64, u64, u32) {
        (self.count[p], self.stamp[p], p as u32)
    }
}

impl BufferPool for Lfu {
    fn release(&mut self, page: PageId, _referenced: bool) {
        let p = page.index();
        if self.pages.release(page) {
            self.count[p] = 1;
        } else {
            self.order.remove(&self.key(p));
            self.count[p] += 1;
        }
        self.clock += 1;
        self.stamp[p] = self.clock;
        self.order.insert(self.key(p));
    }

    fn acquire(&mut self, page: PageId) {
        self.order.remove(&self.key(page.index()));
        self.pages.acquire(page);
    }

    fn evict(&mut self) -> Option<PageId> {
        let (_, _, p) = self.order.pop_first()?;
        self.pages.forget(p);
        Some(PageId(p))
    }

    fn request(&mut self, request: &CacheRequest, page: Option<PageId>) {
        self.pages.request(request, page);
    }
}

impl Plugin for Lfu {
    type Kind = dyn BufferPool;
    type Params = NoParams;
    const NAME: &'static str = "lfu";
    const DESCRIPTION: &'static str =
        "least frequently used (references while held; least recent first on a tie)";
    fn build(_: &NoParams, ctx: &BuildContext<'_>) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(Lfu::new(ctx.pages)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_referenced_page_goes_first() {
        let mut l = Lfu::new(4);
        for p in [0, 1, 2] {
            l.release(PageId(p), true);
        }
        for _ in 0..2 {
            l.acquire(PageId(0));
            l.release(PageId(0), true);
        }
        l.acquire(PageId(2));
        l.release(PageId(2), true);
        assert_eq!(l.evict(), Some(PageId(1)));
        assert_eq!(l.evict(), Some(PageId(2)));
        assert_eq!(l.evict(), Some(PageId(0)));
        assert_eq!(l.evict(), None);
    }
}
