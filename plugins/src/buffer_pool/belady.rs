//! `belady`: Belady's optimum (MIN): evict the page whose object is requested again
//! farthest in the future, or never. An offline policy: it needs each request's next
//! access, which a cache replay computes from the trace itself in one backward pass (it
//! never trusts the column libCacheSim's `oracleGeneral` traces record, and says how many of
//! its values were wrong). In a server simulation, which tells a pool no next access,
//! every page counts as never requested again and the highest-numbered evictable page goes.
//! An ordered set of evictable pages by next access: O(log n).

use super::chain::Pages;
use std::collections::BTreeSet;
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{BufferPool, BuildContext, CacheRequest, Plugin, PluginError};

/// Belady's MIN.
#[derive(Debug)]
pub struct Belady {
    pages: Pages,
    next: Vec<u64>,
    /// Evictable pages by (next access, page); never = `u64::MAX`.
    order: BTreeSet<(u64, u32)>,
}

impl Belady {
    /// A pool of `pages` pages, none held.
    pub fn new(pages: u32) -> Self {
        Belady {
            pages: Pages::new(pages),
            next: vec![u64::MAX; pages as usize],
            order: BTreeSet::new(),
        }
    }
}

impl BufferPool for Belady {
    fn release(&mut self, page: PageId, _referenced: bool) {
        let p = page.index();
        let told = if self.pages.held[p] {
            self.pages.hit.take()
        } else {
            self.pages.pending
        };
        self.order.remove(&(self.next[p], page.0));
        self.pages.release(page);
        self.next[p] = told.and_then(|r| r.next_access).unwrap_or(u64::MAX);
        self.order.insert((self.next[p], page.0));
    }

    fn acquire(&mut self, page: PageId) {
        self.order.remove(&(self.next[page.index()], page.0));
        self.pages.acquire(page);
    }

    fn evict(&mut self) -> Option<PageId> {
        let (_, p) = self.order.pop_last()?;
        self.pages.forget(p);
        Some(PageId(p))
    }

    fn request(&mut self, request: &CacheRequest, page: Option<PageId>) {
        self.pages.request(request, page);
    }

    fn needs_next_access(&self) -> bool {
        true
    }
}

impl Plugin for Belady {
    type Kind = dyn BufferPool;
    type Params = NoParams;
    const NAME: &'static str = "belady";
    const DESCRIPTION: &'static str =
        "Belady's optimum: evict what is requested again farthest ahead (needs next accesses)";
    fn build(_: &NoParams, ctx: &BuildContext<'_>) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(Belady::new(ctx.pages)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(object: u64, next: Option<u64>) -> CacheRequest {
        CacheRequest {
            object,
            bytes: 1,
            next_access: next,
        }
    }

    #[test]
    fn evicts_the_farthest_next_access() {
        let mut b = Belady::new(4);
        for (p, next) in [(0, Some(10)), (1, None), (2, Some(5))] {
            b.request(&req(p, next), None);
            b.release(PageId(p as u32), true);
        }
        // object 2 is requested (a hit); its next access is now 20
        b.request(&req(2, Some(20)), Some(PageId(2)));
        b.acquire(PageId(2));
        b.release(PageId(2), true);
        assert_eq!(b.evict(), Some(PageId(1)), "never again");
        assert_eq!(b.evict(), Some(PageId(2)), "at 20");
        assert_eq!(b.evict(), Some(PageId(0)));
        assert_eq!(b.evict(), None);
    }
}
