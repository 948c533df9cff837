//! `edf`: every packet gets a deadline from its client's rate and the link always sends the
//! ready packet with the earliest deadline (Pappas et al. §3.2, the second policy: "the
//! Xmt-Server keeps a deadline min-heap"). Work-conserving: whenever a packet is ready the
//! link sends it, however far its deadline, so with few clients a client's packets still go
//! out back to back (the paper's Fig. 12, caption numbering: loss returns with few clients).

use super::check_packet;
use super::paced::{Pace, Paced};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    BuildContext, Plugin, PluginError, ReadyBlock, Transmission, TxPoll,
};
use vodbench_plugin_api::time::SimTime;
use vodbench_plugin_api::units::Bytes;

/// `edf`'s parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EdfParams {
    /// Packet size for clients whose profile gives none (default 48KiB; 64B..=64KiB).
    pub packet: Bytes,
    /// The rate deadlines follow: `"stream"` (default, the video's bit rate) or `"max"`
    /// (the client profile's `max_rate`).
    pub pace: Pace,
}

impl Default for EdfParams {
    fn default() -> Self {
        EdfParams {
            packet: Bytes(48 << 10),
            pace: Pace::Stream,
        }
    }
}

/// Earliest deadline first over every ready packet.
#[derive(Debug)]
pub struct Edf {
    packet: u64,
    pace: Pace,
    packets: Paced,
}

impl Transmission for Edf {
    fn block_ready(&mut self, b: ReadyBlock, now: SimTime) {
        self.packets.add(&b, now, self.packet, self.pace);
    }

    fn poll(&mut self, _now: SimTime) -> TxPoll {
        match self.packets.pop() {
            Some(p) => TxPoll::Send(p),
            None => TxPoll::Idle,
        }
    }
}

impl Plugin for Edf {
    type Kind = dyn Transmission;
    type Params = EdfParams;
    const NAME: &'static str = "edf";
    const DESCRIPTION: &'static str =
        "packets with deadlines from the client's rate, earliest first (work-conserving)";

    fn validate(p: &EdfParams) -> Result<(), PluginError> {
        check_packet(p.packet)
    }

    fn build(p: &EdfParams, _: &BuildContext<'_>) -> Result<Box<dyn Transmission>, PluginError> {
        Ok(Box::new(Edf {
            packet: p.packet.0,
            pace: p.pace,
            packets: Paced::default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::TerminalId;

    #[test]
    fn interleaves_clients_by_deadline_and_never_waits() {
        let mut e = Edf {
            packet: 1000,
            pace: Pace::Stream,
            packets: Paced::default(),
        };
        let b = |token, client, rate| ReadyBlock {
            token,
            client: TerminalId(client),
            bytes: 3000,
            stream_rate_bps: rate,
            max_rate_bps: rate,
            packet_bytes: None,
        };
        // client 0 at 8 kbit/s (1 s per packet), client 1 at 16 kbit/s (0.5 s per packet)
        e.block_ready(b(10, 0, 8000), SimTime::ZERO);
        e.block_ready(b(11, 1, 16000), SimTime::ZERO);
        let mut got = Vec::new();
        while let TxPoll::Send(p) = e.poll(SimTime::ZERO) {
            got.push((p.token, p.deadline.as_nanos() / 1_000_000));
        }
        // deadlines 0, 0 (ties in the order cut), 500, 1000, 1000, 2000 ms: all sent at once
        assert_eq!(
            got,
            vec![
                (10, 0),
                (11, 0),
                (11, 500),
                (10, 1000),
                (11, 1000),
                (10, 2000)
            ]
        );
        assert_eq!(e.poll(SimTime::ZERO), TxPoll::Idle);
    }
}
