//! The C form of the `[admission]` kind, mirroring the [`Admission`] trait: its number
//! `VB_KIND_ADMISSION`, its function table [`VbAdmissionVtable`] (one function pointer per call of
//! the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry, and its
//! export: [`ExportKind`] for `dyn Admission`, the `extern "C"` functions through which a Rust
//! policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{leak, opt, push_all, span, time, with_mut, ExportKind};
use crate::abi::types::VbU32Sink;
use crate::ids::{NodeId, TerminalId, VideoId};
use crate::plugin::*;
use std::collections::BTreeMap;
use std::ffi::{c_char, c_void};
use std::sync::{Mutex, OnceLock};

/// `VbPolicy::kind` of an admission policy (`[admission]`).
pub const VB_KIND_ADMISSION: u32 = 7;

/// A request to start a stream (`StreamRequest`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbStreamRequest {
    pub terminal: u32,
    pub video: u32,
    pub bit_rate: u64,
    pub buffer_bytes: u64,
    pub has_interface: u8,
    pub interface: u32,
    pub now_ns: u64,
}

/// The server's load (`ServerLoad`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbServerLoad {
    pub active_streams: u32,
    pub terminals: u32,
    pub interface_memory: u64,
}

/// An admission answer (`Verdict`): `admit` 1, or 0 with a short `reason`.
#[repr(C)]
pub struct VbVerdict {
    pub admit: u8,
    pub reason: *const c_char,
}

/// Where a video lives (`Placement`).
#[repr(C)]
pub struct VbPlacement {
    pub holders: *const u32,
    pub holder_count: usize,
    pub round_ns: u64,
    pub fragment_bytes: u64,
}

/// One fragment fetched (`Fetch`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbFetch {
    pub has_interface: u8,
    pub interface: u32,
    pub storage: u32,
    pub round_trip_ns: u64,
    pub has_at_storage: u8,
    pub at_storage_ns: u64,
    pub now_ns: u64,
}

/// `[admission]`: the `Admission` trait.
#[repr(C)]
pub struct VbAdmissionVtable {
    pub admit: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            request: *const VbStreamRequest,
            load: *const VbServerLoad,
            out: *mut VbVerdict,
        ) -> i32,
    >,
    /// Optional (NULL: ignored).
    pub ended: Option<unsafe extern "C" fn(state: *mut c_void, terminal: u32, now_ns: u64) -> i32>,
    /// Optional (NULL: 0, and the three calls below are never made).
    pub observes: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u8) -> i32>,
    /// Optional: pushes the nodes to probe.
    pub probe: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            request: *const VbStreamRequest,
            placement: *const VbPlacement,
            nodes: *mut VbU32Sink,
        ) -> i32,
    >,
    /// Optional.
    pub probed: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            request: *const VbStreamRequest,
            node: u32,
            round_trip_ns: u64,
        ) -> i32,
    >,
    /// Optional.
    pub fetched: Option<unsafe extern "C" fn(state: *mut c_void, fetch: *const VbFetch) -> i32>,
}

impl ExportKind for dyn Admission {
    fn vtable() -> *const c_void {
        static V: VbAdmissionVtable = VbAdmissionVtable {
            admit: Some(ad_admit),
            ended: Some(ad_ended),
            observes: Some(ad_observes),
            probe: Some(ad_probe),
            probed: Some(ad_probed),
            fetched: Some(ad_fetched),
        };
        (&V as *const VbAdmissionVtable).cast()
    }
}

fn stream_request(r: &VbStreamRequest) -> StreamRequest {
    StreamRequest {
        terminal: TerminalId(r.terminal),
        video: VideoId(r.video),
        bit_rate: r.bit_rate,
        buffer_bytes: r.buffer_bytes,
        interface: opt(r.has_interface, r.interface),
        now: time(r.now_ns),
    }
}

unsafe extern "C" fn ad_admit(
    s: *mut c_void,
    r: *const VbStreamRequest,
    load: *const VbServerLoad,
    out: *mut VbVerdict,
) -> i32 {
    let req = stream_request(&*r);
    let l = &*load;
    let load = ServerLoad {
        active_streams: l.active_streams,
        terminals: l.terminals,
        interface_memory: l.interface_memory,
    };
    with_mut::<dyn Admission>(s, |a| {
        *out = match a.admit(&req, &load) {
            Verdict::Admit => VbVerdict {
                admit: 1,
                reason: std::ptr::null(),
            },
            Verdict::Refuse { reason } => VbVerdict {
                admit: 0,
                reason: leak_reason(reason),
            },
        }
    })
}

/// A refusal reason as a C string that outlives the call (one per distinct reason).
fn leak_reason(reason: &'static str) -> *const c_char {
    static TABLE: OnceLock<Mutex<BTreeMap<&'static str, usize>>> = OnceLock::new();
    let mut t = TABLE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    *t.entry(reason).or_insert_with(|| leak(reason) as usize) as *const c_char
}

unsafe extern "C" fn ad_ended(s: *mut c_void, terminal: u32, now: u64) -> i32 {
    with_mut::<dyn Admission>(s, |a| a.ended(TerminalId(terminal), time(now)))
}
unsafe extern "C" fn ad_observes(s: *mut c_void, out: *mut u8) -> i32 {
    with_mut::<dyn Admission>(s, |a| *out = a.observes() as u8)
}
unsafe extern "C" fn ad_probe(
    s: *mut c_void,
    r: *const VbStreamRequest,
    p: *const VbPlacement,
    nodes: *mut VbU32Sink,
) -> i32 {
    let req = stream_request(&*r);
    let p = &*p;
    let holders: Vec<NodeId> = if p.holders.is_null() {
        Vec::new()
    } else {
        std::slice::from_raw_parts(p.holders, p.holder_count)
            .iter()
            .map(|&n| NodeId(n))
            .collect()
    };
    let placement = Placement::new(&holders, span(p.round_ns), p.fragment_bytes);
    let mut probe = Vec::new();
    with_mut::<dyn Admission>(s, |a| {
        a.probe(&req, &placement, &mut probe);
        push_all(nodes, probe.iter().map(|n| n.0));
    })
}
unsafe extern "C" fn ad_probed(
    s: *mut c_void,
    r: *const VbStreamRequest,
    node: u32,
    rtt: u64,
) -> i32 {
    let req = stream_request(&*r);
    with_mut::<dyn Admission>(s, |a| a.probed(&req, NodeId(node), span(rtt)))
}
unsafe extern "C" fn ad_fetched(s: *mut c_void, f: *const VbFetch) -> i32 {
    let f = &*f;
    let fetch = Fetch::new(
        opt(f.has_interface, f.interface),
        NodeId(f.storage),
        span(f.round_trip_ns),
        opt(f.has_at_storage, span(f.at_storage_ns)),
        time(f.now_ns),
    );
    with_mut::<dyn Admission>(s, |a| a.fetched(&fetch))
}
