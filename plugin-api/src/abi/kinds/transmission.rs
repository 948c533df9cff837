//! The C form of the `[transmission]` kind, mirroring the [`Transmission`] trait: its number
//! `VB_KIND_TRANSMISSION`, its function table [`VbTransmissionVtable`] (one function pointer per
//! call of the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry,
//! and its export: [`ExportKind`] for `dyn Transmission`, the `extern "C"` functions through which
//! a Rust policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{opt, time, with_mut, ExportKind};
use crate::abi::types::{VB_POLL_ACT, VB_POLL_WAIT};
use crate::ids::TerminalId;
use crate::plugin::*;
use std::ffi::c_void;

/// `VbPolicy::kind` of a transmission scheduler (`[transmission]`).
pub const VB_KIND_TRANSMISSION: u32 = 8;

/// A block ready to send (`ReadyBlock`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbReadyBlock {
    pub token: u32,
    pub client: u32,
    pub bytes: u64,
    pub stream_rate_bps: u64,
    pub max_rate_bps: u64,
    pub has_packet_bytes: u8,
    pub packet_bytes: u32,
}

/// A packet to send now (`Packet`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbPacket {
    pub token: u32,
    pub bytes: u32,
    pub deadline_ns: u64,
}

/// A transmission answer (`TxPoll`): `tag` is `VB_POLL_IDLE`, `VB_POLL_ACT` (send `packet`)
/// or `VB_POLL_WAIT` (until `wait_until_ns`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbTxPoll {
    pub tag: u8,
    pub packet: VbPacket,
    pub wait_until_ns: u64,
}

/// `[transmission]`: the `Transmission` trait.
#[repr(C)]
pub struct VbTransmissionVtable {
    pub block_ready: Option<
        unsafe extern "C" fn(state: *mut c_void, block: *const VbReadyBlock, now_ns: u64) -> i32,
    >,
    pub poll:
        Option<unsafe extern "C" fn(state: *mut c_void, now_ns: u64, out: *mut VbTxPoll) -> i32>,
}

impl ExportKind for dyn Transmission {
    fn vtable() -> *const c_void {
        static V: VbTransmissionVtable = VbTransmissionVtable {
            block_ready: Some(tx_block_ready),
            poll: Some(tx_poll),
        };
        (&V as *const VbTransmissionVtable).cast()
    }
}

unsafe extern "C" fn tx_block_ready(s: *mut c_void, b: *const VbReadyBlock, now: u64) -> i32 {
    let b = &*b;
    let block = ReadyBlock {
        token: b.token,
        client: TerminalId(b.client),
        bytes: b.bytes,
        stream_rate_bps: b.stream_rate_bps,
        max_rate_bps: b.max_rate_bps,
        packet_bytes: opt(b.has_packet_bytes, b.packet_bytes),
    };
    with_mut::<dyn Transmission>(s, |t| t.block_ready(block, time(now)))
}
unsafe extern "C" fn tx_poll(s: *mut c_void, now: u64, out: *mut VbTxPoll) -> i32 {
    with_mut::<dyn Transmission>(s, |t| {
        *out = match t.poll(time(now)) {
            TxPoll::Idle => VbTxPoll::default(),
            TxPoll::WaitUntil(w) => VbTxPoll {
                tag: VB_POLL_WAIT,
                wait_until_ns: w.as_nanos(),
                ..VbTxPoll::default()
            },
            TxPoll::Send(p) => VbTxPoll {
                tag: VB_POLL_ACT,
                packet: VbPacket {
                    token: p.token,
                    bytes: p.bytes,
                    deadline_ns: p.deadline.as_nanos(),
                },
                wait_until_ns: 0,
            },
        }
    })
}
