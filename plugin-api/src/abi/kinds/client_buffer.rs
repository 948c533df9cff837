//! The C form of the `[receiver.buffer]` kind, mirroring the [`ClientBuffer`] trait: its number
//! `VB_KIND_CLIENT_BUFFER`, its function table [`VbClientBufferVtable`] (one function pointer per
//! call of the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry,
//! and its export: [`ExportKind`] for `dyn ClientBuffer`, the `extern "C"` functions through which
//! a Rust policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{opt, push_all, with_mut, ExportKind};
use crate::abi::types::VbU32Sink;
use crate::plugin::*;
use std::ffi::c_void;

/// `VbPolicy::kind` of a broadcast receiver's buffer (`[receiver.buffer]`).
pub const VB_KIND_CLIENT_BUFFER: u32 = 10;

/// A receiver's memory cache (`CacheView`): bit `f % 64` of `words[f / 64]` is frame `f`;
/// frames up to `pin_limit` (when `has_pin_limit`) may not be evicted.
#[repr(C)]
pub struct VbCacheView {
    pub words: *const u64,
    pub word_count: usize,
    pub len: u32,
    pub capacity: u32,
    pub has_pin_limit: u8,
    pub pin_limit: u32,
}

/// `[receiver.buffer]`: the `ClientBuffer` trait. `removed`'s `why`: 0 played, 1 written.
#[repr(C)]
pub struct VbClientBufferVtable {
    pub batch_frames: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u32) -> i32>,
    /// Optional.
    pub inserted: Option<unsafe extern "C" fn(state: *mut c_void, frame: u32) -> i32>,
    /// Optional.
    pub removed: Option<unsafe extern "C" fn(state: *mut c_void, frame: u32, why: u8) -> i32>,
    /// Optional.
    pub played_direct: Option<unsafe extern "C" fn(state: *mut c_void, frame: u32) -> i32>,
    pub choose_victims: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            cache: *const VbCacheView,
            victims: *mut VbU32Sink,
        ) -> i32,
    >,
    /// Optional.
    pub written: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            extent: u32,
            frames: *const u32,
            count: usize,
        ) -> i32,
    >,
    /// Optional (NULL: `frames[0]`).
    pub due_frame: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            extent: u32,
            frames: *const u32,
            count: usize,
            out: *mut u32,
        ) -> i32,
    >,
    /// Optional (NULL: just `extent`).
    pub choose_reads: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            due: u32,
            extent: u32,
            room: u32,
            extents: *mut VbU32Sink,
        ) -> i32,
    >,
}

impl ExportKind for dyn ClientBuffer {
    fn vtable() -> *const c_void {
        static V: VbClientBufferVtable = VbClientBufferVtable {
            batch_frames: Some(cb_batch_frames),
            inserted: Some(cb_inserted),
            removed: Some(cb_removed),
            played_direct: Some(cb_played_direct),
            choose_victims: Some(cb_choose_victims),
            written: Some(cb_written),
            due_frame: Some(cb_due_frame),
            choose_reads: Some(cb_choose_reads),
        };
        (&V as *const VbClientBufferVtable).cast()
    }
}

unsafe fn frames_of<'a>(p: *const u32, n: usize) -> &'a [u32] {
    if p.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

unsafe extern "C" fn cb_batch_frames(s: *mut c_void, out: *mut u32) -> i32 {
    with_mut::<dyn ClientBuffer>(s, |c| *out = c.batch_frames())
}
unsafe extern "C" fn cb_inserted(s: *mut c_void, frame: u32) -> i32 {
    with_mut::<dyn ClientBuffer>(s, |c| c.inserted(frame))
}
unsafe extern "C" fn cb_removed(s: *mut c_void, frame: u32, why: u8) -> i32 {
    let why = if why == 0 {
        Removal::Played
    } else {
        Removal::Written
    };
    with_mut::<dyn ClientBuffer>(s, |c| c.removed(frame, why))
}
unsafe extern "C" fn cb_played_direct(s: *mut c_void, frame: u32) -> i32 {
    with_mut::<dyn ClientBuffer>(s, |c| c.played_direct(frame))
}
unsafe extern "C" fn cb_choose_victims(
    s: *mut c_void,
    cache: *const VbCacheView,
    victims: *mut VbU32Sink,
) -> i32 {
    let v = &*cache;
    let words = if v.words.is_null() {
        &[][..]
    } else {
        std::slice::from_raw_parts(v.words, v.word_count)
    };
    let view = CacheView::new(words, v.len, v.capacity, opt(v.has_pin_limit, v.pin_limit));
    let mut out = Vec::new();
    with_mut::<dyn ClientBuffer>(s, |c| {
        c.choose_victims(&view, &mut out);
        push_all(victims, out.iter().copied());
    })
}
unsafe extern "C" fn cb_written(s: *mut c_void, extent: u32, frames: *const u32, n: usize) -> i32 {
    let f = frames_of(frames, n);
    with_mut::<dyn ClientBuffer>(s, |c| c.written(ExtentId(extent), f))
}
unsafe extern "C" fn cb_due_frame(
    s: *mut c_void,
    extent: u32,
    frames: *const u32,
    n: usize,
    out: *mut u32,
) -> i32 {
    let f = frames_of(frames, n);
    with_mut::<dyn ClientBuffer>(s, |c| *out = c.due_frame(ExtentId(extent), f))
}
unsafe extern "C" fn cb_choose_reads(
    s: *mut c_void,
    due: u32,
    extent: u32,
    room: u32,
    extents: *mut VbU32Sink,
) -> i32 {
    let mut out = Vec::new();
    with_mut::<dyn ClientBuffer>(s, |c| {
        c.choose_reads(due, ExtentId(extent), room, &mut out);
        push_all(extents, out.iter().map(|e| e.0));
    })
}
