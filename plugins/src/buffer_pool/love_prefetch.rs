//! `love-prefetch`: SPIFFI's page replacement for video (§5.2.1, Fig. 4, after \[Teng84\]).
//! The global LRU chain is split in two: one LRU chain of prefetched pages that no terminal
//! has referenced yet, and one of referenced pages. A page joins the prefetched chain when
//! it is released unreferenced (its prefetch completed) and the referenced chain when it is
//! released after a reference (moving there on its first reference). Victims come from the
//! head of the referenced chain; only when that chain is empty from the head of the
//! prefetched chain. Video blocks are rarely referenced twice, so a referenced page is worth
//! less than a prefetched one still waiting for its reader: fewer prefetches are wasted and
//! far less server memory is needed (SPIFFI Figs. 11 and 12).
//!
//! Whether a *prefetch* may take a prefetched page is one of the paper's open details
//! (`prefetch_victims`). Fig. 4 says only that "when a new page is needed" the pool falls
//! back to the prefetched chain. Read literally for prefetches too (`any`), a node with
//! fewer pages than its terminals have prefetched blocks waiting lets each new prefetch
//! evict the oldest prefetched page — the one due soonest — so that prefetch is wasted
//! (63 % of them at 125 terminals with SPIFFI's 512 MB elevator configuration). §7.3 says
//! instead that "the love prefetch and delayed prefetching algorithms prevent wasted
//! prefetches", so the default, `referenced`, lets a prefetch displace only referenced
//! pages and drops it otherwise: prefetched pages are given up only for demand reads
//! (scenarios/spiffi/README.md, "Low-load glitches").
//!
//! Two intrusive doubly linked lists over page numbers: every operation is O(1) and
//! allocation-free.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::{BufferPool, BuildContext, Plugin, PluginError};

const NIL: u32 = u32::MAX;

/// Parameters of `love-prefetch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LovePrefetchParams {
    /// Pages a prefetch may evict: `referenced` (default; else the prefetch is dropped) or `any`.
    pub prefetch_victims: PrefetchVictims,
}

/// Which pages a prefetch may evict under `love-prefetch`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PrefetchVictims {
    /// Like a demand read: the referenced chain first, then the prefetched chain (Fig. 4).
    Any,
    /// Only the referenced chain; a prefetch that would need a prefetched page is dropped
    /// (§7.3: love prefetch "prevent\[s\] wasted prefetches").
    #[default]
    Referenced,
}

/// Which chain a page is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chain {
    None,
    Prefetched,
    Referenced,
}

/// Love prefetch: two LRU chains, referenced pages evicted first.
#[derive(Debug)]
pub struct LovePrefetch {
    prev: Vec<u32>,
    next: Vec<u32>,
    chain: Vec<Chain>,
    /// (head, tail) of the prefetched chain.
    prefetched: (u32, u32),
    /// (head, tail) of the referenced chain.
    referenced: (u32, u32),
    victims: PrefetchVictims,
}

impl LovePrefetch {
    /// A pool of `pages` pages, none evictable, with the default parameters.
    pub fn new(pages: u32) -> Self {
        Self::with_params(pages, &LovePrefetchParams::default())
    }

    /// A pool of `pages` pages, none evictable.
    pub fn with_params(pages: u32, p: &LovePrefetchParams) -> Self {
        let n = pages as usize;
        LovePrefetch {
            prev: vec![NIL; n],
            next: vec![NIL; n],
            chain: vec![Chain::None; n],
            prefetched: (NIL, NIL),
            referenced: (NIL, NIL),
            victims: p.prefetch_victims,
        }
    }

    /// Unlinks and returns the head of `c`'s chain.
    fn pop_head(&mut self, c: Chain) -> Option<PageId> {
        let h = self.ends(c).0;
        if h == NIL {
            return None;
        }
        self.unlink(h);
        Some(PageId(h))
    }

    fn ends(&mut self, c: Chain) -> &mut (u32, u32) {
        match c {
            Chain::Referenced => &mut self.referenced,
            _ => &mut self.prefetched,
        }
    }

    fn unlink(&mut self, p: u32) {
        let c = self.chain[p as usize];
        if c == Chain::None {
            return;
        }
        let (pr, nx) = (self.prev[p as usize], self.next[p as usize]);
        if pr == NIL {
            self.ends(c).0 = nx;
        } else {
            self.next[pr as usize] = nx;
        }
        if nx == NIL {
            self.ends(c).1 = pr;
        } else {
            self.prev[nx as usize] = pr;
        }
        self.chain[p as usize] = Chain::None;
    }

    fn push_tail(&mut self, p: u32, c: Chain) {
        let tail = self.ends(c).1;
        self.prev[p as usize] = tail;
        self.next[p as usize] = NIL;
        if tail == NIL {
            self.ends(c).0 = p;
        } else {
            self.next[tail as usize] = p;
        }
        self.ends(c).1 = p;
        self.chain[p as usize] = c;
    }
}

impl BufferPool for LovePrefetch {
    fn release(&mut self, page: PageId, referenced: bool) {
        debug_assert!(
            self.chain[page.index()] == Chain::None,
            "page {page:?} released twice"
        );
        self.unlink(page.0);
        let c = if referenced {
            Chain::Referenced
        } else {
            Chain::Prefetched
        };
        self.push_tail(page.0, c);
    }

    fn acquire(&mut self, page: PageId) {
        self.unlink(page.0);
    }

    fn evict(&mut self) -> Option<PageId> {
        self.pop_head(Chain::Referenced)
            .or_else(|| self.pop_head(Chain::Prefetched))
    }

    fn evict_for_prefetch(&mut self) -> Option<PageId> {
        match self.victims {
            PrefetchVictims::Any => self.evict(),
            PrefetchVictims::Referenced => self.pop_head(Chain::Referenced),
        }
    }
}

impl Plugin for LovePrefetch {
    type Kind = dyn BufferPool;
    type Params = LovePrefetchParams;
    const NAME: &'static str = "love-prefetch";
    const DESCRIPTION: &'static str =
        "two LRU chains; evict referenced pages before prefetched, unreferenced ones (SPIFFI §5.2.1)";
    fn build(
        p: &LovePrefetchParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(LovePrefetch::with_params(ctx.pages, p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referenced_pages_go_first_then_prefetched_in_lru_order() {
        let mut l = LovePrefetch::new(8);
        l.release(PageId(5), false); // prefetched, oldest
        l.release(PageId(1), true); // referenced
        l.release(PageId(6), false); // prefetched
        l.release(PageId(2), true); // referenced
        l.release(PageId(7), false); // prefetched, newest
        assert_eq!(l.evict(), Some(PageId(1)));
        assert_eq!(l.evict(), Some(PageId(2)));
        assert_eq!(l.evict(), Some(PageId(5)));
        assert_eq!(l.evict(), Some(PageId(6)));
        assert_eq!(l.evict(), Some(PageId(7)));
        assert_eq!(l.evict(), None);
    }

    #[test]
    fn a_referenced_prefetch_moves_to_the_referenced_chain() {
        let mut l = LovePrefetch::new(4);
        l.release(PageId(0), false); // prefetch completed
        l.release(PageId(1), false);
        l.release(PageId(3), true);
        l.acquire(PageId(0)); // a terminal references the prefetched page
        l.release(PageId(0), true); // ... and is done with it: most recent referenced page
        assert_eq!(l.evict(), Some(PageId(3)));
        assert_eq!(l.evict(), Some(PageId(0)));
        assert_eq!(l.evict(), Some(PageId(1)));
        assert_eq!(l.evict(), None);
    }

    #[test]
    fn prefetches_do_not_evict_prefetched_pages_unless_any() {
        let mut l = LovePrefetch::new(4); // default: prefetch_victims = "referenced"
        l.release(PageId(0), false); // prefetched, due soonest
        l.release(PageId(2), true); // referenced
        l.release(PageId(1), false);
        assert_eq!(l.evict_for_prefetch(), Some(PageId(2)), "a referenced page");
        assert_eq!(l.evict_for_prefetch(), None, "only prefetched pages left");
        assert_eq!(l.evict(), Some(PageId(0)), "a demand read still gets one");
        assert_eq!(l.evict_for_prefetch(), None);
        let any = LovePrefetchParams {
            prefetch_victims: PrefetchVictims::Any,
        };
        let mut any = LovePrefetch::with_params(2, &any);
        any.release(PageId(0), false);
        assert_eq!(any.evict_for_prefetch(), Some(PageId(0)), "`any`: as evict");
    }

    #[test]
    fn global_lru_would_have_evicted_the_unreferenced_prefetch() {
        use crate::buffer_pool::global_lru::GlobalLru;
        let (mut g, mut l) = (GlobalLru::new(2), LovePrefetch::new(2));
        for pool in [&mut g as &mut dyn BufferPool, &mut l] {
            pool.release(PageId(0), false);
            pool.release(PageId(1), true);
        }
        assert_eq!(g.evict(), Some(PageId(0)), "LRU: the oldest page");
        assert_eq!(
            l.evict(),
            Some(PageId(1)),
            "love prefetch keeps the prefetch"
        );
    }
}
