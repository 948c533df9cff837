//! `fifo-blocks`: each block is sent whole, in fixed-size packets one after another, blocks
//! in the order they became ready (Pappas et al. §3.2, the first policy tried: "each
//! retrieved block is sent continuously in 48 KB packets"). Work-conserving: the link never
//! idles while a block waits, so a client gets each block as a burst at the link's rate.

use super::check_packet;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use vodbench_plugin_api::plugin::{
    BuildContext, Packet, Plugin, PluginError, ReadyBlock, Transmission, TxPoll,
};
use vodbench_plugin_api::time::SimTime;
use vodbench_plugin_api::units::Bytes;

/// `fifo-blocks`'s parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FifoBlocksParams {
    /// Packet size (default 48KiB, Pappas et al. §3.2; 64B..=64KiB). A block's last packet
    /// carries what is left. A client profile's `packet` is not used: this policy sends
    /// every block alike.
    pub packet: Bytes,
}

impl Default for FifoBlocksParams {
    fn default() -> Self {
        FifoBlocksParams {
            packet: Bytes(48 << 10),
        }
    }
}

/// Blocks in ready order, each cut into `packet`-sized packets.
#[derive(Debug)]
pub struct FifoBlocks {
    packet: u64,
    /// (token, bytes left, when it became ready).
    blocks: VecDeque<(u32, u64, SimTime)>,
}

impl Transmission for FifoBlocks {
    fn block_ready(&mut self, b: ReadyBlock, now: SimTime) {
        if b.bytes > 0 {
            self.blocks.push_back((b.token, b.bytes, now));
        }
    }

    fn poll(&mut self, _now: SimTime) -> TxPoll {
        let Some(front) = self.blocks.front_mut() else {
            return TxPoll::Idle;
        };
        let bytes = front.1.min(self.packet);
        front.1 -= bytes;
        let p = Packet {
            token: front.0,
            bytes: bytes as u32,
            deadline: front.2,
        };
        if front.1 == 0 {
            self.blocks.pop_front();
        }
        TxPoll::Send(p)
    }
}

impl Plugin for FifoBlocks {
    type Kind = dyn Transmission;
    type Params = FifoBlocksParams;
    const NAME: &'static str = "fifo-blocks";
    const DESCRIPTION: &'static str =
        "whole blocks in fixed packets, in the order they became ready (work-conserving)";

    fn validate(p: &FifoBlocksParams) -> Result<(), PluginError> {
        check_packet(p.packet)
    }

    fn build(
        p: &FifoBlocksParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn Transmission>, PluginError> {
        Ok(Box::new(FifoBlocks {
            packet: p.packet.0,
            blocks: VecDeque::new(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::TerminalId;

    fn block(token: u32, client: u32, bytes: u64) -> ReadyBlock {
        ReadyBlock {
            token,
            client: TerminalId(client),
            bytes,
            stream_rate_bps: 1_500_000,
            max_rate_bps: 1_500_000,
            packet_bytes: Some(1000),
        }
    }

    #[test]
    fn sends_whole_blocks_in_ready_order() {
        let mut f = FifoBlocks {
            packet: 48 << 10,
            blocks: VecDeque::new(),
        };
        let t = SimTime::from_nanos(5);
        f.block_ready(block(7, 0, 100 << 10), t);
        f.block_ready(block(3, 1, 10 << 10), t);
        let mut got = Vec::new();
        while let TxPoll::Send(p) = f.poll(t) {
            got.push((p.token, p.bytes));
        }
        // block 7 in 48 + 48 + 4 KiB (the profile's packet is not used), then block 3
        assert_eq!(
            got,
            vec![(7, 48 << 10), (7, 48 << 10), (7, 4 << 10), (3, 10 << 10)]
        );
        assert_eq!(f.poll(t), TxPoll::Idle);
    }

    #[test]
    fn packet_size_is_checked() {
        assert!(FifoBlocks::validate(&FifoBlocksParams { packet: Bytes(10) }).is_err());
        assert!(FifoBlocks::validate(&FifoBlocksParams {
            packet: Bytes(1 << 20)
        })
        .is_err());
        assert!(FifoBlocks::validate(&FifoBlocksParams::default()).is_ok());
    }
}
