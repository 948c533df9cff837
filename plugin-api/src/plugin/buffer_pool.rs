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
}
