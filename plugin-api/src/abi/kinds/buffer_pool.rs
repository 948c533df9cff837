//! The C form of the `[buffer_pool]` kind, mirroring the [`BufferPool`] trait: its number
//! `VB_KIND_BUFFER_POOL`, its function table [`VbBufferPoolVtable`] (one function pointer per call
//! of the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry, and
//! its export: [`ExportKind`] for `dyn BufferPool`, the `extern "C"` functions through which a Rust
//! policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{opt, with_mut, ExportKind};
use crate::ids::PageId;
use crate::plugin::*;
use std::ffi::c_void;

/// `VbPolicy::kind` of a buffer pool (`[buffer_pool]`).
pub const VB_KIND_BUFFER_POOL: u32 = 3;

/// One request of a cache replay (`CacheRequest`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbCacheRequest {
    pub object: u64,
    pub bytes: u64,
    pub has_next_access: u8,
    pub next_access: u64,
}

/// `[buffer_pool]`: the `BufferPool` trait. `evict` and `evict_for_prefetch` set `*some` to 0
/// when no page is evictable, else 1 and `*page`.
#[repr(C)]
pub struct VbBufferPoolVtable {
    pub release: Option<unsafe extern "C" fn(state: *mut c_void, page: u32, referenced: u8) -> i32>,
    pub acquire: Option<unsafe extern "C" fn(state: *mut c_void, page: u32) -> i32>,
    pub evict:
        Option<unsafe extern "C" fn(state: *mut c_void, some: *mut u8, page: *mut u32) -> i32>,
    /// Optional (NULL: `evict`).
    pub evict_for_prefetch:
        Option<unsafe extern "C" fn(state: *mut c_void, some: *mut u8, page: *mut u32) -> i32>,
    /// Optional (NULL: ignored).
    pub set_capacity: Option<unsafe extern "C" fn(state: *mut c_void, bytes: u64) -> i32>,
    /// Optional (NULL: ignored).
    pub request: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            request: *const VbCacheRequest,
            has_page: u8,
            page: u32,
        ) -> i32,
    >,
    /// Optional (NULL: 0).
    pub needs_next_access: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u8) -> i32>,
}

impl ExportKind for dyn BufferPool {
    fn vtable() -> *const c_void {
        static V: VbBufferPoolVtable = VbBufferPoolVtable {
            release: Some(bp_release),
            acquire: Some(bp_acquire),
            evict: Some(bp_evict),
            evict_for_prefetch: Some(bp_evict_for_prefetch),
            set_capacity: Some(bp_set_capacity),
            request: Some(bp_request),
            needs_next_access: Some(bp_needs_next_access),
        };
        (&V as *const VbBufferPoolVtable).cast()
    }
}

unsafe extern "C" fn bp_release(s: *mut c_void, page: u32, referenced: u8) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| p.release(PageId(page), referenced != 0))
}
unsafe extern "C" fn bp_acquire(s: *mut c_void, page: u32) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| p.acquire(PageId(page)))
}
unsafe fn put_page(v: Option<PageId>, some: *mut u8, page: *mut u32) {
    match v {
        Some(p) => {
            *some = 1;
            *page = p.0;
        }
        None => *some = 0,
    }
}
unsafe extern "C" fn bp_evict(s: *mut c_void, some: *mut u8, page: *mut u32) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| put_page(p.evict(), some, page))
}
unsafe extern "C" fn bp_evict_for_prefetch(s: *mut c_void, some: *mut u8, page: *mut u32) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| put_page(p.evict_for_prefetch(), some, page))
}
unsafe extern "C" fn bp_set_capacity(s: *mut c_void, bytes: u64) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| p.set_capacity(bytes))
}
unsafe extern "C" fn bp_request(
    s: *mut c_void,
    r: *const VbCacheRequest,
    has_page: u8,
    page: u32,
) -> i32 {
    let r = &*r;
    let req = CacheRequest {
        object: r.object,
        bytes: r.bytes,
        next_access: opt(r.has_next_access, r.next_access),
    };
    with_mut::<dyn BufferPool>(s, |p| p.request(&req, opt(has_page, PageId(page))))
}
unsafe extern "C" fn bp_needs_next_access(s: *mut c_void, out: *mut u8) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| *out = p.needs_next_access() as u8)
}
