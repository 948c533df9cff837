//! `transmission`: a loaded transmission schedule on the egress link ([`Transmission`]; its
//! required calls and how an instance is wrapped: [`ImportKind`]).

use super::{ns, req, ImportKind, Instance};
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimTime;

struct CTransmission(Instance);

impl ImportKind for dyn Transmission {
    type Table = VbTransmissionVtable;
    fn required(table: &VbTransmissionVtable) -> Vec<(&'static str, bool)> {
        vec![
            ("block_ready", table.block_ready.is_some()),
            ("poll", table.poll.is_some()),
        ]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CTransmission(instance))
    }
}

impl Transmission for CTransmission {
    fn block_ready(&mut self, b: ReadyBlock, now: SimTime) {
        let vt = self.0.vt::<VbTransmissionVtable>();
        let r = VbReadyBlock {
            token: b.token,
            client: b.client.0,
            bytes: b.bytes,
            stream_rate_bps: b.stream_rate_bps,
            max_rate_bps: b.max_rate_bps,
            has_packet_bytes: b.packet_bytes.is_some() as u8,
            packet_bytes: b.packet_bytes.unwrap_or(0),
        };
        self.0.ok("block_ready", unsafe {
            req(vt.block_ready)(self.0.state, &r, ns(now))
        });
    }
    fn poll(&mut self, now: SimTime) -> TxPoll {
        let vt = self.0.vt::<VbTransmissionVtable>();
        let mut out = VbTxPoll::default();
        self.0.ok("poll", unsafe {
            req(vt.poll)(self.0.state, ns(now), &mut out)
        });
        match out.tag {
            VB_POLL_IDLE => TxPoll::Idle,
            VB_POLL_WAIT => TxPoll::WaitUntil(SimTime::from_nanos(out.wait_until_ns)),
            VB_POLL_ACT => TxPoll::Send(Packet {
                token: out.packet.token,
                bytes: out.packet.bytes,
                deadline: SimTime::from_nanos(out.packet.deadline_ns),
            }),
            t => self.0.fail(
                "poll",
                format!("answered tag {t}; the tags are 0 (idle), 1 (send) and 2 (wait)"),
            ),
        }
    }
}
