//! `fifo`: first in, first out. A page joins the queue when the pool first holds it and
//! keeps its place however often it is referenced again; the victim is the oldest page
//! that is not in use. In a cache replay this is libCacheSim's FIFO.

use super::chain::{Chains, Pages, NIL};
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{BufferPool, BuildContext, CacheRequest, Plugin, PluginError};

const QUEUE: u8 = 1;

/// FIFO replacement.
#[derive(Debug)]
pub struct Fifo {
    queue: Chains,
    pages: Pages,
}

impl Fifo {
    /// A pool of `pages` pages, none held.
    pub fn new(pages: u32) -> Self {
        Fifo {
            queue: Chains::new(pages as usize, 1),
            pages: Pages::new(pages),
        }
    }
}

impl BufferPool for Fifo {
    fn release(&mut self, page: PageId, _referenced: bool) {
        if self.pages.release(page) {
            self.queue.push_tail(QUEUE, page.0, 1);
        }
    }

    fn acquire(&mut self, page: PageId) {
        self.pages.acquire(page);
    }

    fn evict(&mut self) -> Option<PageId> {
        let mut p = self.queue.head(QUEUE);
        while p != NIL && self.pages.pinned[p as usize] {
            p = self.queue.next(p);
        }
        if p == NIL {
            return None;
        }
        self.queue.unlink(p);
        self.pages.forget(p);
        Some(PageId(p))
    }

    fn request(&mut self, request: &CacheRequest, page: Option<PageId>) {
        self.pages.request(request, page);
    }
}

impl Plugin for Fifo {
    type Kind = dyn BufferPool;
    type Params = NoParams;
    const NAME: &'static str = "fifo";
    const DESCRIPTION: &'static str =
        "first in, first out: evict the page held longest, references do not matter";
    fn build(_: &NoParams, ctx: &BuildContext<'_>) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(Fifo::new(ctx.pages)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_in_arrival_order_skipping_pages_in_use() {
        let mut f = Fifo::new(4);
        for p in [2, 0, 3] {
            f.release(PageId(p), true);
        }
        f.acquire(PageId(2)); // a hit: in use, keeps its place
        assert_eq!(f.evict(), Some(PageId(0)));
        f.release(PageId(2), true);
        assert_eq!(f.evict(), Some(PageId(2)), "still the oldest");
        assert_eq!(f.evict(), Some(PageId(3)));
        assert_eq!(f.evict(), None);
    }
}
