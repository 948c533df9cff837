//! Packets with deadlines from each client's rate (Pappas et al. §3.2: "each packet gets a
//! deadline from its client's bit rate"), shared by `edf` and `rate-edf`.
//!
//! Each client has a clock: the time its stream has been sent up to at its pacing rate r.
//! When a block becomes ready the clock moves up to now if it is behind (a client whose data
//! came late gets no catch-up burst), and the block is cut into packets; packet k of the
//! block gets deadline clock + (bytes before it)/r — eq. R4 of the reading notes,
//! d = t₀ + (bytes before packet k)/r — and the clock moves on by the block's bytes at r.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use vodbench_plugin_api::plugin::{Packet, ReadyBlock};
use vodbench_plugin_api::time::SimTime;

/// Which rate the deadlines follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Pace {
    /// The stream's own rate (the video's bit rate): smooth transmission.
    #[default]
    Stream,
    /// The client's maximum receive rate from its profile (Pappas et al. §4's ClBufRate:
    /// "every block is sent at the client's maximum receive rate").
    Max,
}

/// Every packet cut and not yet sent, earliest deadline first (ties in the order cut).
#[derive(Debug, Default)]
pub struct Paced {
    /// Client → the time its stream has been paced up to.
    clocks: BTreeMap<u32, u128>,
    /// (deadline, order cut, token, bytes).
    heap: BinaryHeap<Reverse<(SimTime, u64, u32, u32)>>,
    cut: u64,
}

impl Paced {
    /// Cuts `b` into packets of `packet` bytes (its profile's, if it has one) with
    /// deadlines at the `pace` rate.
    pub fn add(&mut self, b: &ReadyBlock, now: SimTime, packet: u64, pace: Pace) {
        let rate = match pace {
            Pace::Stream => b.stream_rate_bps,
            Pace::Max => b.max_rate_bps,
        }
        .max(1);
        let packet = b.packet_bytes.map_or(packet, u64::from).max(1);
        // the clock in nanoseconds × rate (exact: bytes × 8 × 10⁹ added per byte)
        let scale = u128::from(rate);
        let clock = self.clocks.entry(b.client.0).or_insert(0);
        let start = (*clock).max(u128::from(now.as_nanos()) * scale);
        let mut done = 0u64;
        while done < b.bytes {
            let bytes = (b.bytes - done).min(packet);
            let at = start + u128::from(done) * 8 * 1_000_000_000;
            let deadline = SimTime::from_nanos(u64::try_from(at / scale).unwrap_or(u64::MAX));
            self.heap
                .push(Reverse((deadline, self.cut, b.token, bytes as u32)));
            self.cut += 1;
            done += bytes;
        }
        *clock = start + u128::from(b.bytes) * 8 * 1_000_000_000;
    }

    /// The earliest deadline waiting.
    pub fn next_deadline(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(p)| p.0)
    }

    /// Takes the packet with the earliest deadline.
    pub fn pop(&mut self) -> Option<Packet> {
        self.heap
            .pop()
            .map(|Reverse((deadline, _, token, bytes))| Packet {
                token,
                bytes,
                deadline,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::TerminalId;

    fn block(token: u32, client: u32, bytes: u64, rate: u64) -> ReadyBlock {
        ReadyBlock {
            token,
            client: TerminalId(client),
            bytes,
            stream_rate_bps: rate,
            max_rate_bps: 10 * rate,
            packet_bytes: None,
        }
    }

    #[test]
    fn deadlines_follow_the_rate_and_the_clock_never_runs_back() {
        let mut p = Paced::default();
        // 8 kbit/s = 1000 B/s: 1000-byte packets are 1 s apart
        p.add(
            &block(1, 0, 2500, 8000),
            SimTime::from_nanos(0),
            1000,
            Pace::Stream,
        );
        let s = 1_000_000_000;
        let got: Vec<_> = std::iter::from_fn(|| p.pop())
            .map(|k| (k.bytes, k.deadline.as_nanos()))
            .collect();
        assert_eq!(got, vec![(1000, 0), (1000, s), (500, 2 * s)]);
        // the next block, ready at 1 s, continues from 2.5 s (its clock), not from now
        p.add(
            &block(2, 0, 1000, 8000),
            SimTime::from_nanos(s),
            1000,
            Pace::Stream,
        );
        assert_eq!(p.next_deadline(), Some(SimTime::from_nanos(2_500_000_000)));
        p.pop();
        // a block ready after the clock starts at now
        p.add(
            &block(3, 0, 1000, 8000),
            SimTime::from_nanos(9 * s),
            1000,
            Pace::Stream,
        );
        assert_eq!(p.next_deadline(), Some(SimTime::from_nanos(9 * s)));
    }

    #[test]
    fn max_pace_and_profile_packets() {
        let mut p = Paced::default();
        let mut b = block(1, 0, 3000, 8000);
        b.packet_bytes = Some(1500);
        p.add(&b, SimTime::ZERO, 1000, Pace::Max);
        let got: Vec<_> = std::iter::from_fn(|| p.pop())
            .map(|k| (k.bytes, k.deadline.as_nanos()))
            .collect();
        // 80 kbit/s = 10 000 B/s: 1500 B is 150 ms
        assert_eq!(got, vec![(1500, 0), (1500, 150_000_000)]);
    }
}
