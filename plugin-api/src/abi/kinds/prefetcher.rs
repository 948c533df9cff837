//! The C form of the `[prefetcher]` kind, mirroring the [`Prefetcher`] trait: its number
//! `VB_KIND_PREFETCHER`, its function table [`VbPrefetcherVtable`] (one function pointer per call
//! of the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry, and
//! its export: [`ExportKind`] for `dyn Prefetcher`, the `extern "C"` functions through which a Rust
//! policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{block, opt, span, time, vb_block, with_mut, ExportKind};
use crate::abi::types::{VbBlockId, VbLocation, VB_POLL_ACT, VB_POLL_WAIT};
use crate::ids::{BlockId, DiskId, NodeId, TerminalId};
use crate::plugin::*;
use crate::time::SimTime;
use std::ffi::c_void;

/// `VbPolicy::kind` of a prefetcher (`[prefetcher]`).
pub const VB_KIND_PREFETCHER: u32 = 4;

/// The run's layout, as a prefetcher may ask it (host functions).
#[repr(C)]
pub struct VbLayoutView {
    pub ctx: *const c_void,
    pub locate:
        unsafe extern "C" fn(ctx: *const c_void, block: *const VbBlockId, out: *mut VbLocation),
    /// Returns 1 and sets `*out` when there is a next block on the same disk, else 0.
    pub next_on_same_disk: unsafe extern "C" fn(
        ctx: *const c_void,
        block: *const VbBlockId,
        out: *mut VbBlockId,
    ) -> u8,
}

/// A terminal's reference to a block (`Reference`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbReference {
    pub terminal: u32,
    pub block: VbBlockId,
    pub disk: u32,
    pub deadline_ns: u64,
    pub block_playout_ns: u64,
    pub now_ns: u64,
    pub has_hint: u8,
    pub hint_block: VbBlockId,
    pub hint_deadline_ns: u64,
}

/// A block to read ahead (`PrefetchCandidate`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbPrefetchCandidate {
    pub block: VbBlockId,
    pub terminal: u32,
    pub has_deadline: u8,
    pub deadline_ns: u64,
}

/// A prefetcher's answer (`PrefetchPoll`): `tag` is `VB_POLL_IDLE`, `VB_POLL_ACT` (issue
/// `candidate`) or `VB_POLL_WAIT` (until `wait_until_ns`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbPrefetchPoll {
    pub tag: u8,
    pub candidate: VbPrefetchCandidate,
    pub wait_until_ns: u64,
}

/// `[prefetcher]`: the `Prefetcher` trait.
#[repr(C)]
pub struct VbPrefetcherVtable {
    pub on_reference: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            reference: *const VbReference,
            layout: *const VbLayoutView,
            some: *mut u8,
            disk: *mut u32,
        ) -> i32,
    >,
    pub poll: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            disk: u32,
            in_flight: u32,
            now_ns: u64,
            out: *mut VbPrefetchPoll,
        ) -> i32,
    >,
}

impl ExportKind for dyn Prefetcher {
    fn vtable() -> *const c_void {
        static V: VbPrefetcherVtable = VbPrefetcherVtable {
            on_reference: Some(pf_on_reference),
            poll: Some(pf_poll),
        };
        (&V as *const VbPrefetcherVtable).cast()
    }
}

unsafe extern "C" fn pf_on_reference(
    s: *mut c_void,
    r: *const VbReference,
    layout: *const VbLayoutView,
    some: *mut u8,
    disk: *mut u32,
) -> i32 {
    let r = &*r;
    let reference = Reference {
        terminal: TerminalId(r.terminal),
        block: block(&r.block),
        disk: DiskId(r.disk),
        deadline: time(r.deadline_ns),
        block_playout: span(r.block_playout_ns),
        now: time(r.now_ns),
        hint: opt(r.has_hint, ()).map(|()| PrefetchHint {
            block: block(&r.hint_block),
            deadline: time(r.hint_deadline_ns),
        }),
    };
    let view = ViewLayout(&*layout);
    with_mut::<dyn Prefetcher>(s, |p| match p.on_reference(&reference, &view) {
        Some(d) => {
            *some = 1;
            *disk = d.0;
        }
        None => *some = 0,
    })
}
unsafe extern "C" fn pf_poll(
    s: *mut c_void,
    disk: u32,
    in_flight: u32,
    now: u64,
    out: *mut VbPrefetchPoll,
) -> i32 {
    with_mut::<dyn Prefetcher>(s, |p| {
        *out = match p.poll(DiskId(disk), in_flight, time(now)) {
            PrefetchPoll::Idle => VbPrefetchPoll::default(),
            PrefetchPoll::WaitUntil(t) => VbPrefetchPoll {
                tag: VB_POLL_WAIT,
                wait_until_ns: t.as_nanos(),
                ..VbPrefetchPoll::default()
            },
            PrefetchPoll::Issue(c) => VbPrefetchPoll {
                tag: VB_POLL_ACT,
                candidate: VbPrefetchCandidate {
                    block: vb_block(c.block),
                    terminal: c.terminal.0,
                    has_deadline: c.deadline.is_some() as u8,
                    deadline_ns: c.deadline.map_or(0, SimTime::as_nanos),
                },
                wait_until_ns: 0,
            },
        }
    })
}

/// The host's layout, as a loaded prefetcher sees it through a [`VbLayoutView`].
struct ViewLayout<'a>(&'a VbLayoutView);

impl Layout for ViewLayout<'_> {
    fn locate(&self, b: BlockId) -> Location {
        let mut out = VbLocation::default();
        // SAFETY: the host's view is valid for the duration of the call it was passed to.
        unsafe { (self.0.locate)(self.0.ctx, &vb_block(b), &mut out) };
        Location {
            node: NodeId(out.node),
            disk: DiskId(out.disk),
            offset: out.offset,
        }
    }
    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        let mut out = VbBlockId::default();
        // SAFETY: as above.
        let some = unsafe { (self.0.next_on_same_disk)(self.0.ctx, &vb_block(b), &mut out) };
        (some != 0).then(|| block(&out))
    }
}

// SAFETY: a view is only used during the call it was passed to, on the calling thread.
unsafe impl Send for ViewLayout<'_> {}
unsafe impl Sync for ViewLayout<'_> {}
