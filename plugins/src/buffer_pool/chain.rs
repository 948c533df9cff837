//! Bookkeeping the replacement policies share (not a policy): intrusive doubly linked lists
//! over page numbers, per-page state (held, pinned, size, object), and ghost lists of
//! objects no longer cached. Every list operation is O(1) and allocation-free.

use rustc_hash::FxHashMap;
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::CacheRequest;

/// No page.
pub(crate) const NIL: u32 = u32::MAX;

/// Up to 255 doubly linked lists over nodes `0..n`; each node is on at most one list.
#[derive(Debug, Clone)]
pub(crate) struct Chains {
    prev: Vec<u32>,
    next: Vec<u32>,
    /// The list each node is on, 0 for none (lists are numbered from 1).
    on: Vec<u8>,
    /// (head, tail, total weight) of each list, index 0 unused.
    ends: Vec<(u32, u32, u64)>,
    weight: Vec<u64>,
}

impl Chains {
    pub(crate) fn new(nodes: usize, lists: u8) -> Self {
        Chains {
            prev: vec![NIL; nodes],
            next: vec![NIL; nodes],
            on: vec![0; nodes],
            ends: vec![(NIL, NIL, 0); usize::from(lists) + 1],
            weight: vec![0; nodes],
        }
    }

    /// Adds node `n` (for lists that grow: ghost arenas).
    pub(crate) fn grow(&mut self) -> u32 {
        self.prev.push(NIL);
        self.next.push(NIL);
        self.on.push(0);
        self.weight.push(0);
        (self.prev.len() - 1) as u32
    }

    pub(crate) fn list_of(&self, n: u32) -> u8 {
        self.on[n as usize]
    }

    pub(crate) fn head(&self, list: u8) -> u32 {
        self.ends[usize::from(list)].0
    }

    /// The node after `n` on its list (towards the tail).
    pub(crate) fn next(&self, n: u32) -> u32 {
        self.next[n as usize]
    }

    /// Total weight of the nodes on `list`.
    pub(crate) fn weight(&self, list: u8) -> u64 {
        self.ends[usize::from(list)].2
    }

    pub(crate) fn is_empty(&self, list: u8) -> bool {
        self.head(list) == NIL
    }

    /// Appends `n` (on no list) at the tail of `list` with weight `w`.
    pub(crate) fn push_tail(&mut self, list: u8, n: u32, w: u64) {
        debug_assert_eq!(self.on[n as usize], 0);
        let l = usize::from(list);
        let tail = self.ends[l].1;
        self.prev[n as usize] = tail;
        self.next[n as usize] = NIL;
        if tail == NIL {
            self.ends[l].0 = n;
        } else {
            self.next[tail as usize] = n;
        }
        self.ends[l].1 = n;
        self.ends[l].2 += w;
        self.weight[n as usize] = w;
        self.on[n as usize] = list;
    }

    /// Takes `n` off its list (nothing when it is on none).
    pub(crate) fn unlink(&mut self, n: u32) {
        let l = usize::from(self.on[n as usize]);
        if l == 0 {
            return;
        }
        let (pr, nx) = (self.prev[n as usize], self.next[n as usize]);
        if pr == NIL {
            self.ends[l].0 = nx;
        } else {
            self.next[pr as usize] = nx;
        }
        if nx == NIL {
            self.ends[l].1 = pr;
        } else {
            self.prev[nx as usize] = pr;
        }
        self.ends[l].2 -= self.weight[n as usize];
        self.on[n as usize] = 0;
    }
}

/// What a pool knows of each page: whether it holds it, whether it is in use (acquired,
/// not evictable), its size and object (from [`CacheRequest`]s in a cache replay; one unit
/// and unknown in a server simulation), and the request a miss is about to place.
#[derive(Debug, Clone)]
pub(crate) struct Pages {
    pub(crate) held: Vec<bool>,
    pub(crate) pinned: Vec<bool>,
    pub(crate) bytes: Vec<u64>,
    pub(crate) object: Vec<u64>,
    /// The request of the last miss, for the next page released that the pool does not hold.
    pub(crate) pending: Option<CacheRequest>,
    /// The request of the last hit.
    pub(crate) hit: Option<CacheRequest>,
    /// Bytes the pool may hold (pages, one unit each, unless a replay sets it).
    pub(crate) capacity: u64,
}

impl Pages {
    pub(crate) fn new(pages: u32) -> Self {
        let n = pages as usize;
        Pages {
            held: vec![false; n],
            pinned: vec![false; n],
            bytes: vec![1; n],
            object: vec![u64::MAX; n],
            pending: None,
            hit: None,
            capacity: u64::from(pages),
        }
    }

    /// Records `request` (from [`BufferPool::request`](vodbench_plugin_api::plugin::BufferPool::request)).
    pub(crate) fn request(&mut self, request: &CacheRequest, page: Option<PageId>) {
        match page {
            Some(_) => self.hit = Some(*request),
            None => self.pending = Some(*request),
        }
    }

    /// `page` is released: whether it is new to the pool (then its size and object are
    /// taken from the pending miss, if any). Clears the pin.
    pub(crate) fn release(&mut self, page: PageId) -> bool {
        let p = page.index();
        self.pinned[p] = false;
        if self.held[p] {
            return false;
        }
        self.held[p] = true;
        match self.pending.take() {
            Some(r) => {
                self.bytes[p] = r.bytes.max(1);
                self.object[p] = r.object;
            }
            None => {
                self.bytes[p] = 1;
                // a page the pool was told nothing about: its own object, distinct from any
                // trace's (ids with the top bit set are left to pages)
                self.object[p] = u64::from(page.0) | 1 << 63;
            }
        }
        true
    }

    /// `page` is in use: not evictable until released.
    pub(crate) fn acquire(&mut self, page: PageId) {
        self.pinned[page.index()] = true;
    }

    /// The pool gives `page` up.
    pub(crate) fn forget(&mut self, page: u32) {
        self.held[page as usize] = false;
        self.pinned[page as usize] = false;
    }
}

/// Objects no longer cached, remembered in FIFO/LRU order by id (ARC's B1 and B2, S3-FIFO's
/// ghost queue), each with its size.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ghosts {
    chains: Option<Chains>,
    lists: u8,
    index: FxHashMap<u64, u32>,
    object: Vec<u64>,
    free: Vec<u32>,
}

impl Ghosts {
    pub(crate) fn new(lists: u8) -> Self {
        Ghosts {
            chains: Some(Chains::new(0, lists)),
            lists,
            ..Ghosts::default()
        }
    }

    fn chains(&mut self) -> &mut Chains {
        self.chains.get_or_insert_with(|| Chains::new(0, 1))
    }

    /// The list `object` is remembered on (0: none).
    pub(crate) fn list_of(&self, object: u64) -> u8 {
        match (self.index.get(&object), &self.chains) {
            (Some(&n), Some(c)) => c.list_of(n),
            _ => 0,
        }
    }

    /// Total bytes remembered on `list`.
    pub(crate) fn weight(&self, list: u8) -> u64 {
        self.chains.as_ref().map_or(0, |c| c.weight(list))
    }

    /// Remembers `object` of `bytes` at the tail of `list` (forgetting it elsewhere first).
    pub(crate) fn push(&mut self, list: u8, object: u64, bytes: u64) {
        debug_assert!(list >= 1 && list <= self.lists);
        self.remove(object);
        let n = match self.free.pop() {
            Some(n) => n,
            None => {
                self.object.push(object);
                self.chains().grow()
            }
        };
        self.object[n as usize] = object;
        self.index.insert(object, n);
        self.chains().push_tail(list, n, bytes);
    }

    /// Forgets `object`.
    pub(crate) fn remove(&mut self, object: u64) {
        if let Some(n) = self.index.remove(&object) {
            self.chains().unlink(n);
            self.free.push(n);
        }
    }

    /// Forgets the oldest object of `list`; false when it is empty.
    pub(crate) fn pop_oldest(&mut self, list: u8) -> bool {
        let h = self.chains.as_ref().map_or(NIL, |c| c.head(list));
        if h == NIL {
            return false;
        }
        let o = self.object[h as usize];
        self.remove(o);
        true
    }
}
