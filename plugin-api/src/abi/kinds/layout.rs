//! The C form of the `[layout]` kind, mirroring the [`Layout`] trait: its number `VB_KIND_LAYOUT`,
//! its function table [`VbLayoutVtable`] (one function pointer per call of the trait, over the
//! policy's opaque state), the `#[repr(C)]` types only its calls carry, and its export:
//! [`ExportKind`] for `dyn Layout`, the `extern "C"` functions through which a Rust policy of the
//! kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{block, vb_block, with_ref, ExportKind};
use crate::abi::types::{VbBlockId, VbLocation};
use crate::plugin::*;
use std::ffi::c_void;

/// `VbPolicy::kind` of a layout (`[layout]`).
pub const VB_KIND_LAYOUT: u32 = 5;

/// `[layout]`: the `Layout` trait. Its calls only read the state and may come from several
/// threads at once.
#[repr(C)]
pub struct VbLayoutVtable {
    pub locate: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            block: *const VbBlockId,
            out: *mut VbLocation,
        ) -> i32,
    >,
    pub next_on_same_disk: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            block: *const VbBlockId,
            some: *mut u8,
            out: *mut VbBlockId,
        ) -> i32,
    >,
    /// Optional (NULL: 1).
    pub pieces: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u32) -> i32>,
    /// Optional (NULL: `locate`).
    pub locate_piece: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            block: *const VbBlockId,
            piece: u32,
            out: *mut VbLocation,
        ) -> i32,
    >,
}

impl ExportKind for dyn Layout {
    fn vtable() -> *const c_void {
        static V: VbLayoutVtable = VbLayoutVtable {
            locate: Some(ly_locate),
            next_on_same_disk: Some(ly_next),
            pieces: Some(ly_pieces),
            locate_piece: Some(ly_locate_piece),
        };
        (&V as *const VbLayoutVtable).cast()
    }
}

unsafe extern "C" fn ly_locate(s: *mut c_void, b: *const VbBlockId, out: *mut VbLocation) -> i32 {
    let b = block(&*b);
    with_ref::<dyn Layout>(s, |l| *out = vb_location(l.locate(b)))
}
unsafe extern "C" fn ly_next(
    s: *mut c_void,
    b: *const VbBlockId,
    some: *mut u8,
    out: *mut VbBlockId,
) -> i32 {
    let b = block(&*b);
    with_ref::<dyn Layout>(s, |l| match l.next_on_same_disk(b) {
        Some(n) => {
            *some = 1;
            *out = vb_block(n);
        }
        None => *some = 0,
    })
}
unsafe extern "C" fn ly_pieces(s: *mut c_void, out: *mut u32) -> i32 {
    with_ref::<dyn Layout>(s, |l| *out = l.pieces())
}
unsafe extern "C" fn ly_locate_piece(
    s: *mut c_void,
    b: *const VbBlockId,
    piece: u32,
    out: *mut VbLocation,
) -> i32 {
    let b = block(&*b);
    with_ref::<dyn Layout>(s, |l| *out = vb_location(l.locate_piece(b, piece)))
}

fn vb_location(l: Location) -> VbLocation {
    VbLocation {
        node: l.node.0,
        disk: l.disk.0,
        offset: l.offset,
    }
}
