use crate::ids::PageId;

/// Page replacement at one server node (SPIFFI §5.2.1).
///
/// The engine owns the page table, pins and the data; the policy only ranks evictable pages.
/// A page is *evictable* between [`release`](BufferPool::release) (no request uses it any
/// more) and either [`acquire`](BufferPool::acquire) (a terminal hit it again) or
/// [`evict`](BufferPool::evict) (the policy gave it up for reuse). `evict` must return a page
/// that is evictable now, or `None` only when there is none; the engine checks this.
///
/// ```
/// use std::collections::VecDeque;
/// use vodbench_plugin_api::ids::PageId;
/// use vodbench_plugin_api::plugin::BufferPool;
///
/// /// Evicts pages in the order they were released (FIFO).
/// #[derive(Default)]
/// struct Fifo(VecDeque<PageId>);
/// impl BufferPool for Fifo {
///     fn release(&mut self, page: PageId, _referenced: bool) { self.0.push_back(page) }
///     fn acquire(&mut self, page: PageId) { self.0.retain(|p| *p != page) }
///     fn evict(&mut self) -> Option<PageId> { self.0.pop_front() }
/// }
/// let mut f = Fifo::default();
/// f.release(PageId(3), true);
/// f.release(PageId(1), false);
/// f.acquire(PageId(3));
/// assert_eq!(f.evict(), Some(PageId(1)));
/// assert_eq!(f.evict(), None);
/// ```
pub trait BufferPool: Send {
    /// `page` became evictable. `referenced` is `false` when it holds a prefetched block that
    /// no terminal has referenced yet.
    fn release(&mut self, page: PageId, referenced: bool);
    /// `page`, evictable until now, is in use again.
    fn acquire(&mut self, page: PageId);
    /// Chooses an evictable page to reuse and forgets it.
    fn evict(&mut self) -> Option<PageId>;
    /// Chooses an evictable page to reuse for a *prefetch* and forgets it, or declines with
    /// `None` (the engine then drops the prefetch, counted in `summary.json`'s
    /// `buffer_pool.prefetches_dropped`). Same contract as [`evict`](BufferPool::evict)
    /// otherwise; the default is `evict`. A pool that declines lets demand reads keep pages
    /// a prefetch would have taken.
    fn evict_for_prefetch(&mut self) -> Option<PageId> {
        self.evict()
    }

    /// Cache replay only (`vodbench cache replay`), called once before any other call: the
    /// pool's pages together hold at most `bytes` bytes. A server simulation never calls
    /// it: there a pool holds its node's pages, one unit each (`BuildContext::pages`).
    fn set_capacity(&mut self, bytes: u64) {
        let _ = bytes;
    }

    /// Cache replay only: the request about to be served, before the evictions it may
    /// cause. `page` holds the object on a hit (then [`acquire`](BufferPool::acquire) and
    /// [`release`](BufferPool::release) of that page follow); on a miss it is `None`, and
    /// the next page released that the pool does not hold will hold `request`'s object. A
    /// server simulation never calls it, so a pool must rank pages without it too (every
    /// page then one unit, its next access unknown). The default ignores it.
    fn request(&mut self, request: &CacheRequest, page: Option<PageId>) {
        let _ = (request, page);
    }

    /// Whether the pool needs each request's next access ([`CacheRequest::next_access`])
    /// (an offline policy such as Belady's): a cache replay then computes them from the
    /// trace (whatever the trace records) and tells them. Default `false`.
    fn needs_next_access(&self) -> bool {
        false
    }
}

/// One request of a cache replay, as [`BufferPool::request`] is told it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CacheRequest {
    /// The object's id in the trace.
    pub object: u64,
    /// The object's size in bytes (at least 1).
    pub bytes: u64,
    /// When the object is requested next, as a number that grows with the trace's order
    /// (libCacheSim's next-access virtual time); `None` when never again or not recorded.
    pub next_access: Option<u64>,
}
