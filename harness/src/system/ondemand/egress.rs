//! The server's egress link and its transmission policy (Pappas et al. §3.2, the
//! Xmt-Server; `[transmission]`, `[server.egress]`).
//!
//! A block read for a terminal becomes ready here instead of going to the terminal as one
//! message: the [`Transmission`] plugin cuts it into packets and says which to send when.
//! The egress sends one packet at a time; a packet holds it for the longer of its time on
//! the link (`bytes / rate`) and the server CPU time that sends it (`cpu_per_packet +
//! bytes × cpu_ns_per_byte`: the CPU prepares the next packet while the card sends this
//! one, so the transmit capacity is the smaller of the link's and the CPU's rates, §2.2).
//! When a packet leaves, [`Clients`](super::clients::Clients) works out its fate at its
//! client; when a block's last packet is done there, the block reaches its terminal.
//!
//! The engine checks the policy's answers: a packet must name a ready block and carry
//! between 1 byte and what is left of it, and a wake-up must be in the future; otherwise
//! the run stops with an error naming the policy.

use super::measure::Window;
use super::stats::clip;
use crate::plugin::{Packet, ReadyBlock, Transmission, TxPoll};
use crate::time::{SimDuration, SimTime};
use crate::units::Bandwidth;
use std::collections::BTreeMap;

/// A block being sent: what is left of it and when its packets were done at the client.
#[derive(Copy, Clone, Debug)]
pub(super) struct Sending {
    pub terminal: u32,
    pub left: u64,
    pub rate_bps: u64,
    /// When it became ready.
    pub ready: SimTime,
    /// The latest time a packet of it was done at the client.
    pub done: SimTime,
}

/// What the egress asks of the engine after a poll.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Next {
    /// A packet is on the link until this time (schedule the end).
    Busy(SimTime),
    /// Wake the policy at this time.
    Wake(SimTime),
    /// Nothing.
    Idle,
    /// The policy broke its contract (the message says how).
    Broken(String),
}

/// The egress link, the policy, and what it measures.
pub(super) struct Egress {
    policy: Box<dyn Transmission>,
    /// The policy's name, for errors and the summary.
    pub name: &'static str,
    rate: Bandwidth,
    cpu_per_packet: u64,
    cpu_ns_per_byte: f64,
    /// The share of the CPU the transmitter gets while it wants it (1: all of it;
    /// `server.egress.priority = "timeshare"` beside a `background` process: less).
    cpu_share: f64,
    /// Ready blocks by token.
    blocks: BTreeMap<u32, Sending>,
    /// The packet on the link.
    current: Option<Packet>,
    /// The wake-up asked for and scheduled (a later poll may make it stale).
    pub wake: Option<SimTime>,
    // measured
    packets: u64,
    bytes: u64,
    busy: u64,
    cpu: u64,
}

impl Egress {
    /// An idle egress of `rate` driven by `policy`.
    pub fn new(
        policy: Box<dyn Transmission>,
        name: &'static str,
        rate: Bandwidth,
        cpu_per_packet: SimDuration,
        cpu_ns_per_byte: f64,
    ) -> Self {
        Egress {
            policy,
            name,
            rate,
            cpu_per_packet: cpu_per_packet.as_nanos(),
            cpu_ns_per_byte,
            cpu_share: 1.0,
            blocks: BTreeMap::new(),
            current: None,
            wake: None,
            packets: 0,
            bytes: 0,
            busy: 0,
            cpu: 0,
        }
    }

    /// The transmitter gets `share` (0 < share ≤ 1) of the CPU while it wants it: a
    /// packet's CPU time stretches to `cpu / share` of elapsed time (P14's time-shared
    /// class beside a CPU-heavy process).
    pub fn with_cpu_share(mut self, share: f64) -> Self {
        self.cpu_share = share;
        self
    }

    /// Block `b` (read slot `b.token`) is ready at `now`.
    pub fn ready(&mut self, b: ReadyBlock, now: SimTime) {
        self.blocks.insert(
            b.token,
            Sending {
                terminal: b.client.0,
                left: b.bytes,
                rate_bps: b.stream_rate_bps,
                ready: now,
                done: now,
            },
        );
        self.policy.block_ready(b, now);
    }

    /// Whether a packet is on the link.
    pub fn busy(&self) -> bool {
        self.current.is_some()
    }

    /// The time `bytes` hold the egress: the longer of link and CPU time (the CPU time
    /// stretched by the transmitter's share of the CPU), and the CPU time.
    fn hold(&self, bytes: u64) -> (SimDuration, u64) {
        let link = self.rate.time_for(bytes);
        let cpu = self.cpu_per_packet + (bytes as f64 * self.cpu_ns_per_byte).round() as u64;
        let elapsed = if self.cpu_share < 1.0 {
            (cpu as f64 / self.cpu_share).round() as u64
        } else {
            cpu
        };
        (link.max(SimDuration::from_nanos(elapsed)), cpu)
    }

    /// The link is free at `now`: asks the policy what to send.
    pub fn poll(&mut self, now: SimTime, w: &Window) -> Next {
        debug_assert!(self.current.is_none());
        match self.policy.poll(now) {
            TxPoll::Idle => Next::Idle,
            TxPoll::WaitUntil(t) => {
                if t <= now {
                    return Next::Broken(format!(
                        "asked to wait until {t:?}, which is not after now ({now:?})"
                    ));
                }
                Next::Wake(t)
            }
            TxPoll::Send(p) => {
                let Some(b) = self.blocks.get(&p.token) else {
                    return Next::Broken(format!(
                        "sent a packet of block {}, which is not ready",
                        p.token
                    ));
                };
                if p.bytes == 0 || u64::from(p.bytes) > b.left {
                    return Next::Broken(format!(
                        "sent a packet of {} bytes of a block with {} bytes left",
                        p.bytes, b.left
                    ));
                }
                let (hold, cpu) = self.hold(u64::from(p.bytes));
                let end = now + hold;
                if w.measuring {
                    self.busy += clip(now, end, w.span);
                    self.cpu += clip(now, now + SimDuration::from_nanos(cpu), w.span);
                }
                self.current = Some(p);
                Next::Busy(end)
            }
        }
    }

    /// The packet on the link is done at `now`: (its block's state after it, its bytes,
    /// its token). The block is forgotten when its last byte is sent.
    pub fn done(&mut self, now: SimTime, w: &Window) -> (u32, u64, Sending) {
        let p = self.current.take().expect("EgressDone without a packet");
        let bytes = u64::from(p.bytes);
        if w.measuring && now > w.span.0 && now <= w.span.1 {
            self.packets += 1;
            self.bytes += bytes;
        }
        let b = self.blocks.get_mut(&p.token).expect("checked when sent");
        b.left -= bytes;
        (p.token, bytes, *b)
    }

    /// Records when the client was done with the last packet of `token`; forgets it when
    /// nothing is left. Returns the block's state.
    pub fn client_done(&mut self, token: u32, at: SimTime) -> Sending {
        let b = self.blocks.get_mut(&token).expect("a block being sent");
        b.done = b.done.max(at);
        let s = *b;
        if s.left == 0 {
            self.blocks.remove(&token);
        }
        s
    }

    /// (packets, bytes, link busy ns, CPU ns) over the period.
    pub fn counters(&self) -> (u64, u64, u64, u64) {
        (self.packets, self.bytes, self.busy, self.cpu)
    }

    /// The link's rate in bits per second.
    pub fn rate_bps(&self) -> u64 {
        self.rate.0
    }
}

/// The egress and its clients, when the scenario sends through one: `[transmission]` (the
/// policy), `[server.egress]` (the link and its CPU costs) and `[[clients.profile]]`.
pub(super) fn build(
    setup: &super::setup::Setup<'_>,
) -> Result<Option<(Egress, super::clients::Clients)>, super::scenario::ScenarioError> {
    let f = &setup.scenario.file;
    let (Some(t), Some(e)) = (
        setup.scenario.plugins.get(&super::scenario::TRANSMISSION),
        &f.server.egress,
    ) else {
        return Ok(None);
    };
    let policy = t
        .build(&setup.context(super::scenario::TRANSMISSION.key, 0))
        .map_err(setup.plugin_error(super::scenario::TRANSMISSION.key, t.name))?;
    Ok(Some((
        Egress::new(
            policy,
            t.name,
            e.rate,
            e.cpu_per_packet.sim(),
            e.cpu_ns_per_byte,
        )
        .with_cpu_share(e.cpu_share()),
        super::clients::Clients::new(f.clients.as_ref(), setup.scenario.terminals()),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TerminalId;

    /// Sends whatever it is told to.
    struct Scripted(Vec<TxPoll>);
    impl Transmission for Scripted {
        fn block_ready(&mut self, _: ReadyBlock, _: SimTime) {}
        fn poll(&mut self, _: SimTime) -> TxPoll {
            self.0.remove(0)
        }
    }

    fn block(token: u32, bytes: u64) -> ReadyBlock {
        ReadyBlock {
            token,
            client: TerminalId(0),
            bytes,
            stream_rate_bps: 1_000_000,
            max_rate_bps: 1_000_000,
            packet_bytes: None,
        }
    }

    #[test]
    fn a_packet_holds_the_longer_of_link_and_cpu_time() {
        let p = |token, bytes| {
            TxPoll::Send(Packet {
                token,
                bytes,
                deadline: SimTime::ZERO,
            })
        };
        // 8 Mbit/s: 1000 B = 1 ms on the link; CPU 0.1 ms + 2 µs/B = 2.1 ms
        let mut e = Egress::new(
            Box::new(Scripted(vec![p(1, 1000), p(1, 1000)])),
            "scripted",
            Bandwidth(8_000_000),
            SimDuration::from_micros(100),
            2000.0,
        );
        let w = Window {
            span: (SimTime::ZERO, SimTime::from_nanos(u64::MAX / 2)),
            measuring: true,
        };
        e.ready(block(1, 1500), SimTime::ZERO);
        assert_eq!(
            e.poll(SimTime::ZERO, &w),
            Next::Busy(SimTime::from_nanos(2_100_000))
        );
        let (token, bytes, s) = e.done(SimTime::from_nanos(2_100_000), &w);
        assert_eq!((token, bytes, s.left), (1, 1000, 500));
        // a second packet of 1000 B: only 500 are left
        assert!(
            matches!(e.poll(SimTime::from_nanos(2_100_000), &w), Next::Broken(m) if m.contains("500 bytes left"))
        );
    }

    #[test]
    fn waits_must_be_in_the_future_and_blocks_must_be_ready() {
        let t = SimTime::from_nanos(5);
        let mut e = Egress::new(
            Box::new(Scripted(vec![
                TxPoll::WaitUntil(t),
                TxPoll::Send(Packet {
                    token: 9,
                    bytes: 1,
                    deadline: t,
                }),
            ])),
            "scripted",
            Bandwidth(8_000_000),
            SimDuration::ZERO,
            0.0,
        );
        let w = Window::closed();
        assert!(matches!(e.poll(t, &w), Next::Broken(_)));
        assert!(matches!(e.poll(t, &w), Next::Broken(m) if m.contains("not ready")));
    }

    /// P14's time-shared transmitter beside a background process: with half the CPU the
    /// 2.1 ms of CPU a 1000 B packet costs takes 4.2 ms, and holds the egress that long;
    /// the CPU time counted stays 2.1 ms. A share that leaves the CPU time under the link
    /// time changes nothing.
    #[test]
    fn a_timeshared_transmitter_stretches_its_cpu_time() {
        let packet = TxPoll::Send(Packet {
            token: 1,
            bytes: 1000,
            deadline: SimTime::ZERO,
        });
        let w = Window {
            span: (SimTime::ZERO, SimTime::from_nanos(u64::MAX / 2)),
            measuring: true,
        };
        let egress = |cpu_ns_per_byte: f64, share: f64| {
            let mut e = Egress::new(
                Box::new(Scripted(vec![packet])),
                "scripted",
                Bandwidth(8_000_000),
                SimDuration::from_micros(100),
                cpu_ns_per_byte,
            )
            .with_cpu_share(share);
            e.ready(block(1, 1000), SimTime::ZERO);
            e
        };
        let mut e = egress(2000.0, 0.5);
        assert_eq!(
            e.poll(SimTime::ZERO, &w),
            Next::Busy(SimTime::from_nanos(4_200_000))
        );
        assert_eq!(
            e.hold(1000),
            (SimDuration::from_nanos(4_200_000), 2_100_000)
        );
        // 0.1 ms + 0.2 ms of CPU at 3/4 of the CPU: 0.4 ms, under the link's 1 ms
        let mut e = egress(200.0, 0.75);
        assert_eq!(
            e.poll(SimTime::ZERO, &w),
            Next::Busy(SimTime::from_nanos(1_000_000))
        );
    }
}
