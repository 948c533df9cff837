//! The C form of the `[disk.scheduler]` kind, mirroring the [`DiskScheduler`] trait: its number
//! `VB_KIND_DISK_SCHEDULER`, its function table [`VbDiskSchedulerVtable`] (one function pointer per
//! call of the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry,
//! and its export: [`ExportKind`] for `dyn DiskScheduler`, the `extern "C"` functions through which
//! a Rust policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{opt, time, with_mut, ExportKind};
use crate::ids::{RequestId, TerminalId};
use crate::plugin::*;
use std::ffi::c_void;

/// `VbPolicy::kind` of a disk scheduler (`[disk.scheduler]`).
pub const VB_KIND_DISK_SCHEDULER: u32 = 2;

/// A queued disk request (`QueuedRequest`). `class`: 0 demand, 1 prefetch.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbQueuedRequest {
    pub id: u32,
    pub cylinder: u32,
    pub offset: u64,
    pub bytes: u64,
    pub has_terminal: u8,
    pub terminal: u32,
    pub class: u8,
    pub has_deadline: u8,
    pub deadline_ns: u64,
    pub arrival_ns: u64,
}

/// The disk's state when the scheduler chooses (`HeadState`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbHeadState {
    pub now_ns: u64,
    pub cylinder: u32,
    pub cylinders: u32,
}

/// `[disk.scheduler]`: the `DiskScheduler` trait. `dequeue` sets `*some` to 0 when it holds
/// no request, else 1 and `*id` to a request it was given and has not returned.
#[repr(C)]
pub struct VbDiskSchedulerVtable {
    pub enqueue:
        Option<unsafe extern "C" fn(state: *mut c_void, request: *const VbQueuedRequest) -> i32>,
    pub dequeue: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            head: *const VbHeadState,
            some: *mut u8,
            id: *mut u32,
        ) -> i32,
    >,
    pub len: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u64) -> i32>,
}

impl ExportKind for dyn DiskScheduler {
    fn vtable() -> *const c_void {
        static V: VbDiskSchedulerVtable = VbDiskSchedulerVtable {
            enqueue: Some(ds_enqueue),
            dequeue: Some(ds_dequeue),
            len: Some(ds_len),
        };
        (&V as *const VbDiskSchedulerVtable).cast()
    }
}

unsafe extern "C" fn ds_enqueue(s: *mut c_void, r: *const VbQueuedRequest) -> i32 {
    let r = &*r;
    let q = QueuedRequest {
        id: RequestId(r.id),
        cylinder: r.cylinder,
        offset: r.offset,
        bytes: r.bytes,
        terminal: opt(r.has_terminal, TerminalId(r.terminal)),
        class: if r.class == 0 {
            RequestClass::Demand
        } else {
            RequestClass::Prefetch
        },
        deadline: opt(r.has_deadline, time(r.deadline_ns)),
        arrival: time(r.arrival_ns),
    };
    with_mut::<dyn DiskScheduler>(s, |d| d.enqueue(q))
}
unsafe extern "C" fn ds_dequeue(
    s: *mut c_void,
    h: *const VbHeadState,
    some: *mut u8,
    id: *mut u32,
) -> i32 {
    let h = &*h;
    let head = HeadState {
        now: time(h.now_ns),
        cylinder: h.cylinder,
        cylinders: h.cylinders,
    };
    with_mut::<dyn DiskScheduler>(s, |d| match d.dequeue(&head) {
        Some(r) => {
            *some = 1;
            *id = r.0;
        }
        None => *some = 0,
    })
}
unsafe extern "C" fn ds_len(s: *mut c_void, out: *mut u64) -> i32 {
    with_mut::<dyn DiskScheduler>(s, |d| *out = d.len() as u64)
}
