//! The C form of the `[broadcast.schedule]` kind, mirroring the [`BroadcastSchedule`] trait: its
//! number `VB_KIND_BROADCAST_SCHEDULE`, its function table [`VbBroadcastScheduleVtable`] (one
//! function pointer per call of the trait, over the policy's opaque state), the `#[repr(C)]` types
//! only its calls carry, and its export: [`ExportKind`] for `dyn BroadcastSchedule`, the `extern
//! "C"` functions through which a Rust policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{fail, with_ref, ExportKind};
use crate::abi::types::VB_OK;
use crate::plugin::*;
use std::ffi::c_void;

/// `VbPolicy::kind` of a broadcast schedule (`[broadcast.schedule]`).
pub const VB_KIND_BROADCAST_SCHEDULE: u32 = 9;

/// What a schedule must cover (`ScheduleSpec`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbScheduleSpec {
    pub frames: u32,
    pub delay: u32,
    pub horizon: u32,
    pub chunk_hint: u32,
}

/// Receives a schedule frame by frame, in order: frame `i`'s transmission instants.
#[repr(C)]
pub struct VbFrameSink {
    pub ctx: *mut c_void,
    /// Returns `VB_ERROR` (and the schedule fails) for an instant outside `1..=horizon` or a
    /// frame too many.
    pub push_frame:
        unsafe extern "C" fn(ctx: *mut c_void, instants: *const u32, count: usize) -> i32,
}

/// `[broadcast.schedule]`: the `BroadcastSchedule` trait. Its calls only read the state.
#[repr(C)]
pub struct VbBroadcastScheduleVtable {
    pub schedule: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            spec: *const VbScheduleSpec,
            frames: *mut VbFrameSink,
        ) -> i32,
    >,
    /// Optional (NULL: 1).
    pub uses_chunk_hint: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u8) -> i32>,
}

impl ExportKind for dyn BroadcastSchedule {
    fn vtable() -> *const c_void {
        static V: VbBroadcastScheduleVtable = VbBroadcastScheduleVtable {
            schedule: Some(bs_schedule),
            uses_chunk_hint: Some(bs_uses_chunk_hint),
        };
        (&V as *const VbBroadcastScheduleVtable).cast()
    }
}

unsafe extern "C" fn bs_schedule(
    s: *mut c_void,
    spec: *const VbScheduleSpec,
    frames: *mut VbFrameSink,
) -> i32 {
    let sp = &*spec;
    let spec = ScheduleSpec {
        frames: sp.frames,
        delay: sp.delay,
        horizon: sp.horizon,
        chunk_hint: sp.chunk_hint,
    };
    let mut result = Ok(());
    let status = with_ref::<dyn BroadcastSchedule>(s, |b| {
        result = b.schedule(&spec).map(|sched| {
            for f in 0..sched.frames_pushed() {
                let t = sched.transmissions(f);
                if ((*frames).push_frame)((*frames).ctx, t.as_ptr(), t.len()) != VB_OK {
                    break;
                }
            }
        });
    });
    match result {
        Err(e) if status == VB_OK => fail::<dyn BroadcastSchedule>(s, &e.to_string()),
        _ => status,
    }
}
unsafe extern "C" fn bs_uses_chunk_hint(s: *mut c_void, out: *mut u8) -> i32 {
    with_ref::<dyn BroadcastSchedule>(s, |b| *out = b.uses_chunk_hint() as u8)
}
