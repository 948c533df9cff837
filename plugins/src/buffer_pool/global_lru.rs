//! `global-lru`: one least-recently-used chain per node (SPIFFI §5.2.1). Pages join the tail
//! of the chain when they are released; the victim is the head. Prefetched and referenced
//! pages are not distinguished. An intrusive doubly linked list over page numbers: every
//! operation is O(1) and allocation-free.

use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{BufferPool, BuildContext, Plugin, PluginError};

const NIL: u32 = u32::MAX;

/// Global LRU.
#[derive(Debug)]
pub struct GlobalLru {
    prev: Vec<u32>,
    next: Vec<u32>,
    listed: Vec<bool>,
    head: u32,
    tail: u32,
}

impl GlobalLru {
    /// A pool of `pages` pages, none evictable.
    pub fn new(pages: u32) -> Self {
        let n = pages as usize;
        GlobalLru {
            prev: vec![NIL; n],
            next: vec![NIL; n],
            listed: vec![false; n],
            head: NIL,
            tail: NIL,
        }
    }

    fn unlink(&mut self, p: u32) {
        let (pr, nx) = (self.prev[p as usize], self.next[p as usize]);
        if pr == NIL {
            self.head = nx;
        } else {
            self.next[pr as usize] = nx;
        }
        if nx == NIL {
            self.tail = pr;
        } else {
            self.prev[nx as usize] = pr;
        }
        self.listed[p as usize] = false;
    }
}

impl BufferPool for GlobalLru {
    fn release(&mut self, page: PageId, _referenced: bool) {
        let p = page.0;
        debug_assert!(!self.listed[p as usize], "page {p} released twice");
        if self.listed[p as usize] {
            self.unlink(p);
        }
        self.prev[p as usize] = self.tail;
        self.next[p as usize] = NIL;
        if self.tail == NIL {
            self.head = p;
        } else {
            self.next[self.tail as usize] = p;
        }
        self.tail = p;
        self.listed[p as usize] = true;
    }

    fn acquire(&mut self, page: PageId) {
        if self.listed[page.index()] {
            self.unlink(page.0);
        }
    }

    fn evict(&mut self) -> Option<PageId> {
        let h = self.head;
        if h == NIL {
            return None;
        }
        self.unlink(h);
        Some(PageId(h))
    }
}

impl Plugin for GlobalLru {
    type Kind = dyn BufferPool;
    type Params = NoParams;
    const NAME: &'static str = "global-lru";
    const DESCRIPTION: &'static str =
        "one LRU chain per node for prefetched and referenced pages alike (SPIFFI §5.2.1)";
    fn build(_: &NoParams, ctx: &BuildContext<'_>) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(GlobalLru::new(ctx.pages)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_released() {
        let mut l = GlobalLru::new(4);
        for p in [2, 0, 3] {
            l.release(PageId(p), true);
        }
        l.acquire(PageId(0)); // hit: no longer evictable
        l.release(PageId(0), true); // released again: most recent
        assert_eq!(l.evict(), Some(PageId(2)));
        assert_eq!(l.evict(), Some(PageId(3)));
        assert_eq!(l.evict(), Some(PageId(0)));
        assert_eq!(l.evict(), None);
    }
}
