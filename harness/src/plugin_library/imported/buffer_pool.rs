//! `buffer_pool`: a loaded page replacement policy ([`BufferPool`]; its required calls and how
//! an instance is wrapped: [`ImportKind`]), for the server and for `vodbench cache replay`.

use super::{req, ImportKind, Instance};
use std::ffi::c_void;
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::*;

struct CPool(Instance);

type EvictFn = unsafe extern "C" fn(*mut c_void, *mut u8, *mut u32) -> i32;

impl CPool {
    fn page(&self, call: &'static str, f: EvictFn) -> Option<PageId> {
        let (mut some, mut page) = (0u8, 0u32);
        self.0
            .ok(call, unsafe { f(self.0.state, &mut some, &mut page) });
        (some != 0).then_some(PageId(page))
    }
}

impl ImportKind for dyn BufferPool {
    type Table = VbBufferPoolVtable;
    fn required(table: &VbBufferPoolVtable) -> Vec<(&'static str, bool)> {
        vec![
            ("release", table.release.is_some()),
            ("acquire", table.acquire.is_some()),
            ("evict", table.evict.is_some()),
        ]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CPool(instance))
    }
}

impl BufferPool for CPool {
    fn release(&mut self, page: PageId, referenced: bool) {
        let vt = self.0.vt::<VbBufferPoolVtable>();
        self.0.ok("release", unsafe {
            req(vt.release)(self.0.state, page.0, referenced as u8)
        });
    }
    fn acquire(&mut self, page: PageId) {
        let vt = self.0.vt::<VbBufferPoolVtable>();
        self.0
            .ok("acquire", unsafe { req(vt.acquire)(self.0.state, page.0) });
    }
    fn evict(&mut self) -> Option<PageId> {
        self.page("evict", req(self.0.vt::<VbBufferPoolVtable>().evict))
    }
    fn evict_for_prefetch(&mut self) -> Option<PageId> {
        match self.0.vt::<VbBufferPoolVtable>().evict_for_prefetch {
            Some(f) => self.page("evict_for_prefetch", f),
            None => self.evict(),
        }
    }
    fn set_capacity(&mut self, bytes: u64) {
        if let Some(f) = self.0.vt::<VbBufferPoolVtable>().set_capacity {
            self.0.ok("set_capacity", unsafe { f(self.0.state, bytes) });
        }
    }
    fn request(&mut self, r: &CacheRequest, page: Option<PageId>) {
        if let Some(f) = self.0.vt::<VbBufferPoolVtable>().request {
            let q = VbCacheRequest {
                object: r.object,
                bytes: r.bytes,
                has_next_access: r.next_access.is_some() as u8,
                next_access: r.next_access.unwrap_or(0),
            };
            self.0.ok("request", unsafe {
                f(
                    self.0.state,
                    &q,
                    page.is_some() as u8,
                    page.map_or(0, |p| p.0),
                )
            });
        }
    }
    fn needs_next_access(&self) -> bool {
        let Some(f) = self.0.vt::<VbBufferPoolVtable>().needs_next_access else {
            return false;
        };
        let mut out = 0u8;
        self.0
            .ok("needs_next_access", unsafe { f(self.0.state, &mut out) });
        out != 0
    }
}
