//! The C form of the `[server.network]` kind, mirroring the [`Interconnect`] trait: its number
//! `VB_KIND_INTERCONNECT`, its function table [`VbInterconnectVtable`] (one function pointer per
//! call of the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry,
//! and its export: [`ExportKind`] for `dyn Interconnect`, the `extern "C"` functions through which
//! a Rust policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{push_all, with_mut, ExportKind};
use crate::abi::types::{VbStrSink, VbU32Sink};
use crate::ids::{LinkId, NodeId, TerminalId};
use crate::plugin::*;
use std::ffi::c_void;

/// `VbPolicy::kind` of an interconnect (`[server.network]`).
pub const VB_KIND_INTERCONNECT: u32 = 6;

/// One end of a message (`Endpoint`): `kind` 0 a node, 1 a terminal.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbEndpoint {
    pub kind: u8,
    pub id: u32,
}

/// A message's timing (`Transfer`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbTransfer {
    pub setup_ns: u64,
    pub hold_ns: u64,
    pub delivery_ns: u64,
}

/// `[server.network]`: the `Interconnect` trait. `links` pushes each link's name;
/// `route` pushes the path's link numbers into `path`.
#[repr(C)]
pub struct VbInterconnectVtable {
    pub links: Option<unsafe extern "C" fn(state: *mut c_void, names: *mut VbStrSink) -> i32>,
    pub route: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            from: VbEndpoint,
            to: VbEndpoint,
            bytes: u64,
            path: *mut VbU32Sink,
            out: *mut VbTransfer,
        ) -> i32,
    >,
}

impl ExportKind for dyn Interconnect {
    fn vtable() -> *const c_void {
        static V: VbInterconnectVtable = VbInterconnectVtable {
            links: Some(ic_links),
            route: Some(ic_route),
        };
        (&V as *const VbInterconnectVtable).cast()
    }
}

fn endpoint(e: VbEndpoint) -> Endpoint {
    if e.kind == 0 {
        Endpoint::Node(NodeId(e.id))
    } else {
        Endpoint::Terminal(TerminalId(e.id))
    }
}

unsafe extern "C" fn ic_links(s: *mut c_void, names: *mut VbStrSink) -> i32 {
    with_mut::<dyn Interconnect>(s, |n| {
        for name in n.links() {
            ((*names).push)((*names).ctx, name.as_ptr().cast(), name.len());
        }
    })
}
unsafe extern "C" fn ic_route(
    s: *mut c_void,
    from: VbEndpoint,
    to: VbEndpoint,
    bytes: u64,
    path: *mut VbU32Sink,
    out: *mut VbTransfer,
) -> i32 {
    let mut p: Vec<LinkId> = Vec::new();
    with_mut::<dyn Interconnect>(s, |n| {
        let t = n.route(endpoint(from), endpoint(to), bytes, &mut p);
        push_all(path, p.iter().map(|l| l.0));
        *out = VbTransfer {
            setup_ns: t.setup.as_nanos(),
            hold_ns: t.hold.as_nanos(),
            delivery_ns: t.delivery.as_nanos(),
        };
    })
}
