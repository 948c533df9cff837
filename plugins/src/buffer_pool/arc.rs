//! `arc`: Adaptive Replacement Cache (Megiddo & Modha, FAST '03), in bytes. Pages seen once
//! recently are on T1, pages referenced again on T2, both in LRU order; ghost lists B1 and B2
//! remember the ids of objects evicted from each. A miss on an object remembered in B1 raises
//! the target size `p` of T1, one remembered in B2 lowers it, each by the object's size times
//! the ratio of the other ghost list's bytes to its own (at least one). The victim is T1's
//! least recent page while T1 holds more than `p` bytes (or exactly `p` on a B2 miss), T2's
//! otherwise. The ghost lists are trimmed so that T1 + B1 stay within the capacity and all
//! four lists within twice it.

use super::chain::{Chains, Ghosts, Pages, NIL};
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{BufferPool, BuildContext, CacheRequest, Plugin, PluginError};

const T1: u8 = 1;
const T2: u8 = 2;
const B1: u8 = 1;
const B2: u8 = 2;

/// ARC replacement.
#[derive(Debug)]
pub struct Arc {
    lists: Chains,
    pages: Pages,
    ghosts: Ghosts,
    /// Target bytes of T1.
    p: u64,
    /// The miss being served was remembered in B2.
    miss_in_b2: bool,
}

impl Arc {
    /// A pool of `pages` pages, none held.
    pub fn new(pages: u32) -> Self {
        Arc {
            lists: Chains::new(pages as usize, 2),
            pages: Pages::new(pages),
            ghosts: Ghosts::new(2),
            p: 0,
            miss_in_b2: false,
        }
    }

    /// The least recent page of `list` not in use.
    fn oldest_free(&self, list: u8) -> u32 {
        let mut p = self.lists.head(list);
        while p != NIL && self.pages.pinned[p as usize] {
            p = self.lists.next(p);
        }
        p
    }

    fn trim_ghosts(&mut self) {
        let c = self.pages.capacity;
        while self.lists.weight(T1) + self.ghosts.weight(B1) > c && self.ghosts.pop_oldest(B1) {}
        let all = |a: &Arc| {
            a.lists.weight(T1) + a.lists.weight(T2) + a.ghosts.weight(B1) + a.ghosts.weight(B2)
        };
        while all(self) > 2 * c && self.ghosts.pop_oldest(B2) {}
    }
}

impl BufferPool for Arc {
    fn release(&mut self, page: PageId, _referenced: bool) {
        let p = page.index();
        let bytes = self.pages.bytes[p];
        if self.pages.release(page) {
            let object = self.pages.object[p];
            let bytes = self.pages.bytes[p];
            let list = if self.ghosts.list_of(object) != 0 {
                self.ghosts.remove(object);
                T2
            } else {
                T1
            };
            self.lists.push_tail(list, page.0, bytes);
            self.miss_in_b2 = false;
            self.trim_ghosts();
        } else {
            self.lists.unlink(page.0);
            self.lists.push_tail(T2, page.0, bytes);
        }
    }

    fn acquire(&mut self, page: PageId) {
        self.pages.acquire(page);
    }

    fn evict(&mut self) -> Option<PageId> {
        let t1 = self.lists.weight(T1);
        let from_t1 = t1 > self.p || (self.miss_in_b2 && t1 == self.p);
        let (first, second) = if from_t1 { (T1, T2) } else { (T2, T1) };
        let (list, p) = match self.oldest_free(first) {
            NIL => (second, self.oldest_free(second)),
            p => (first, p),
        };
        if p == NIL {
            return None;
        }
        let ghost = if list == T1 { B1 } else { B2 };
        self.ghosts.push(
            ghost,
            self.pages.object[p as usize],
            self.pages.bytes[p as usize],
        );
        self.lists.unlink(p);
        self.pages.forget(p);
        self.trim_ghosts();
        Some(PageId(p))
    }

    fn set_capacity(&mut self, bytes: u64) {
        self.pages.capacity = bytes;
    }

    fn request(&mut self, request: &CacheRequest, page: Option<PageId>) {
        self.pages.request(request, page);
        if page.is_some() {
            return;
        }
        let (b1, b2) = (self.ghosts.weight(B1), self.ghosts.weight(B2));
        let size = request.bytes.max(1);
        match self.ghosts.list_of(request.object) {
            B1 => {
                let delta = (b2 / b1.max(1)).max(1).saturating_mul(size);
                self.p = self.p.saturating_add(delta).min(self.pages.capacity);
                self.miss_in_b2 = false;
            }
            B2 => {
                let delta = (b1 / b2.max(1)).max(1).saturating_mul(size);
                self.p = self.p.saturating_sub(delta);
                self.miss_in_b2 = true;
            }
            _ => self.miss_in_b2 = false,
        }
    }
}

impl Plugin for Arc {
    type Kind = dyn BufferPool;
    type Params = NoParams;
    const NAME: &'static str = "arc";
    const DESCRIPTION: &'static str =
        "ARC: recency and frequency lists balanced by ghost hits (Megiddo & Modha, FAST '03)";
    fn build(_: &NoParams, ctx: &BuildContext<'_>) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(Arc::new(ctx.pages)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn miss(a: &mut Arc, page: u32, object: u64) {
        a.request(
            &CacheRequest {
                object,
                bytes: 1,
                next_access: None,
            },
            None,
        );
        a.release(PageId(page), true);
    }

    #[test]
    fn a_ghost_hit_in_b1_grows_the_recency_target() {
        let mut a = Arc::new(4);
        a.set_capacity(2);
        miss(&mut a, 0, 10);
        miss(&mut a, 1, 11);
        a.acquire(PageId(1));
        a.release(PageId(1), true); // 11 on T2
        assert_eq!(a.evict(), Some(PageId(0)), "T1 holds more than p = 0");
        assert_eq!(a.ghosts.list_of(10), B1);
        a.request(
            &CacheRequest {
                object: 10,
                bytes: 1,
                next_access: None,
            },
            None,
        );
        assert_eq!(a.p, 1);
        a.release(PageId(0), true);
        assert_eq!(a.lists.list_of(0), T2, "a ghost hit goes to T2");
    }
}
