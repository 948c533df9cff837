//! The clients at the end of the egress link (Pappas et al. §2.3, §5): each terminal with a
//! profile (`[[clients.profile]]`) receives the packets the transmission policy sends it
//! through its own access link and receive queue, with its CPU.
//!
//! A packet that leaves the egress crosses the client's access link (first come first
//! served at the link's rate; the switch in front of it buffers without bound), then enters
//! the receive queue (the socket buffer, `rx_queue` bytes: the packets arrived and not yet
//! taken by the client's CPU). A packet that does not fit whole is lost: Pappas et al.'s
//! small packets and bursts lose data this way. The CPU takes the queue's packets in order,
//! each for `rx_cpu_per_packet + bytes × rx_cpu_ns_per_byte`. Receiving comes before
//! decoding (the network stack runs at interrupt priority); the display decodes frames
//! with the CPU left, so its frame rate is `fps × min(1, (1 − receive share) /
//! (fps × decode_per_frame))` (the reading of §2.3's Figs. 5–7 this model takes: loss comes
//! from receiving alone, the frame rate from receiving and decoding together). A lost
//! packet costs the CPU its receive work too, unless the profile says otherwise
//! ([`lost_packet`](super::lost_packet)).
//!
//! Jitter is the deviation of a received packet's arrival from the smooth schedule at the
//! stream's rate r (§3.2: "the variations of the packet arrival times from the expected
//! ones for smooth transmission rate"): |a_k − e_k|, with the expected time
//! e_k = max(e_{k−1} + P_{k−1} / r, ready_k): the previous packet's P bytes (received or
//! lost) at the stream's rate r after the previous expected time, or when packet k's block
//! became ready at the server if that is later. A block the terminal asked for late thus
//! restarts the schedule instead of offsetting every later packet: what is measured is how
//! the transmission spreads the data it has, not when the terminal asked for it.
//!
//! Packets reach their client in the order they leave the egress (one FIFO access link per
//! client), so each one's whole fate is computed when it leaves the egress: no event per
//! packet at the client.

use super::interarrival::InterArrival;
use super::measure::Window;
use super::scenario::{ClientProfile, ClientsSection};
use super::stats::clip;
use crate::results::transmission::ClientFigures;
use crate::results::{Column, Table};
use crate::time::{SimDuration, SimTime};
use crate::units::Bandwidth;
use hdrhistogram::Histogram;
use std::collections::VecDeque;

/// What happened to a packet at its client.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Fate {
    /// When the client was done with it: its CPU took it, or dropped it (after its receive
    /// work, or on arrival if a lost packet costs none).
    pub done: SimTime,
    /// Whether it was lost.
    pub lost: bool,
}

/// A client's jitter: exact count, sum and maximum, and a histogram with 2 significant
/// digits for the 99th percentile (about 27 KiB at most, so thousands of clients fit).
struct Jitter {
    count: u64,
    sum: u128,
    max: u64,
    hist: Histogram<u64>,
}

impl Jitter {
    fn new() -> Self {
        Jitter {
            count: 0,
            sum: 0,
            max: 0,
            hist: Histogram::new(2).expect("2 significant digits is valid"),
        }
    }

    fn record(&mut self, ns: u64) {
        self.count += 1;
        self.sum += u128::from(ns);
        self.max = self.max.max(ns);
        // auto-resizing histogram: recording never fails for u64 values
        let _ = self.hist.record(ns.max(1));
    }

    /// (mean, p99, max) in nanoseconds.
    fn figures(&self) -> (u64, u64, u64) {
        if self.count == 0 {
            return (0, 0, 0);
        }
        (
            (self.sum / u128::from(self.count)) as u64,
            self.hist.value_at_quantile(0.99).min(self.max),
            self.max,
        )
    }
}

/// One client's state and counters.
struct Client {
    profile: Option<usize>,
    /// When its access link is free.
    link_free: SimTime,
    /// Packets in its receive queue: (when its CPU is done with it, bytes).
    queue: VecDeque<(SimTime, u64)>,
    queued: u64,
    /// When its CPU is free.
    cpu_free: SimTime,
    // measured
    packets: u64,
    lost: u64,
    received_bytes: u64,
    rx_busy: u64,
    /// (first arrival in the period, bytes sent since it).
    /// Where the smooth schedule has reached: nanoseconds × the stream's rate (exact).
    expected: Option<u128>,
    jitter: Option<Jitter>,
    /// Whether it has been sent a packet.
    seen: bool,
}

/// The monitored client's (terminal 0's, the paper's first client) figures since the last
/// sample, and the rows sampled so far (`monitored.csv`: Pappas et al. Figs. 11–19 plot its
/// arrival rate and jitter against the clients inserted).
#[derive(Default)]
struct Monitor {
    bytes: u64,
    packets: u64,
    lost: u64,
    jitter_sum: u128,
    jitter_n: u64,
    jitter_max: u64,
    /// Its inter-arrival deviations (kept across samples: the previous packet).
    spread: InterArrival,
    /// Clients sent a packet so far.
    started: u64,
    last: Option<SimTime>,
    rows: Vec<[u64; 8]>,
}

/// Every terminal as a client of the egress link.
pub(super) struct Clients {
    profiles: Vec<ClientProfile>,
    clients: Vec<Client>,
    monitor: Monitor,
}

impl Clients {
    /// `terminals` clients, with the profiles of `section` (none: every client ideal).
    pub fn new(section: Option<&ClientsSection>, terminals: u32) -> Self {
        Clients {
            profiles: section.map_or_else(Vec::new, |s| s.profile.clone()),
            clients: (0..terminals)
                .map(|t| Client {
                    profile: section.and_then(|s| s.profile_of(t)),
                    link_free: SimTime::ZERO,
                    queue: VecDeque::new(),
                    queued: 0,
                    cpu_free: SimTime::ZERO,
                    packets: 0,
                    lost: 0,
                    received_bytes: 0,
                    rx_busy: 0,
                    expected: None,
                    jitter: None,
                    seen: false,
                })
                .collect(),
            monitor: Monitor::default(),
        }
    }

    /// The profile of terminal `t`.
    pub fn profile(&self, t: u32) -> Option<&ClientProfile> {
        self.clients[t as usize].profile.map(|i| &self.profiles[i])
    }

    /// A packet of `bytes` for terminal `t` left the egress at `left`; its block became
    /// ready at the server at `ready`; `rate_bps` is its stream's rate (for jitter).
    pub fn packet(
        &mut self,
        t: u32,
        bytes: u64,
        (ready, left): (SimTime, SimTime),
        rate_bps: u64,
        w: &Window,
    ) -> Fate {
        let c = &mut self.clients[t as usize];
        // the smooth schedule: the packet is expected when the previous one's bytes have
        // passed at the stream's rate, or when its block became ready if that is later
        let rate = u128::from(rate_bps.max(1));
        let expected = c
            .expected
            .unwrap_or(0)
            .max(u128::from(ready.as_nanos()) * rate);
        c.expected = Some(expected + u128::from(bytes) * 8 * 1_000_000_000);
        if !c.seen {
            c.seen = true;
            self.monitor.started += 1;
        }
        let (arrival, fate) = match c.profile.map(|i| &self.profiles[i]) {
            None => (
                left,
                Fate {
                    done: left,
                    lost: false,
                },
            ),
            Some(p) => {
                let start = left.max(c.link_free);
                let arrival = start + Bandwidth(p.link.0).time_for(bytes);
                c.link_free = arrival;
                // the CPU has taken every packet it finished by now
                while let Some(&(done, b)) = c.queue.front() {
                    if done > arrival {
                        break;
                    }
                    c.queue.pop_front();
                    c.queued -= b;
                }
                let cost =
                    p.rx_cpu_per_packet.0 + (bytes as f64 * p.rx_cpu_ns_per_byte).round() as u64;
                if c.queued + bytes > p.rx_queue.0 {
                    // lost; its receive work (if any) done in arrival order (lost_packet.rs)
                    let work = p.lost_packet_cpu.cost(cost);
                    let mut done = arrival;
                    if work > 0 {
                        let begin = arrival.max(c.cpu_free);
                        done = begin + SimDuration::from_nanos(work);
                        c.cpu_free = done;
                        if w.measuring {
                            c.rx_busy += clip(begin, done, w.span);
                        }
                    }
                    (arrival, Fate { done, lost: true })
                } else {
                    let begin = arrival.max(c.cpu_free);
                    let done = begin + SimDuration::from_nanos(cost);
                    c.cpu_free = done;
                    c.queue.push_back((done, bytes));
                    c.queued += bytes;
                    if w.measuring {
                        c.rx_busy += clip(begin, done, w.span);
                    }
                    (arrival, Fate { done, lost: false })
                }
            }
        };
        let in_window = w.measuring && arrival >= w.span.0 && arrival < w.span.1;
        if t == 0 && !fate.lost {
            let a = arrival.as_nanos();
            self.monitor.spread.record(a, expected, rate, in_window);
        }
        if in_window {
            let m = &mut self.monitor;
            if t == 0 {
                m.packets += 1;
                if fate.lost {
                    m.lost += 1;
                } else {
                    m.bytes += bytes;
                }
            }
            c.packets += 1;
            if fate.lost {
                c.lost += 1;
            } else {
                c.received_bytes += bytes;
            }
            if !fate.lost {
                let dev = u64::try_from(
                    (u128::from(arrival.as_nanos()) * rate).abs_diff(expected) / rate,
                )
                .unwrap_or(u64::MAX);
                c.jitter.get_or_insert_with(Jitter::new).record(dev);
                if t == 0 {
                    m.jitter_n += 1;
                    m.jitter_sum += u128::from(dev);
                    m.jitter_max = m.jitter_max.max(dev);
                }
            }
        }
        fate
    }

    /// A sample of the monitored client at `now` (each `run.sample_interval` of the
    /// measured period): its figures since the previous sample, which it then forgets.
    pub fn sample(&mut self, now: SimTime, w: &Window) {
        if !w.measuring {
            return;
        }
        let m = &mut self.monitor;
        let since = m.last.unwrap_or(w.span.0);
        let span = now.saturating_since(since).as_nanos();
        if span > 0 {
            let goodput = (u128::from(m.bytes) * 8 * 1_000_000_000 / u128::from(span)) as u64;
            let mean = if m.jitter_n > 0 {
                (m.jitter_sum / u128::from(m.jitter_n)) as u64
            } else {
                0
            };
            m.rows.push([
                now.as_nanos(),
                m.started,
                goodput,
                m.packets,
                m.lost,
                mean,
                m.jitter_max,
                m.spread.take_std_ns(),
            ]);
        }
        let started = m.started;
        let rows = std::mem::take(&mut m.rows);
        let spread = std::mem::take(&mut m.spread);
        *m = Monitor {
            spread,
            started,
            last: Some(now),
            rows,
            ..Monitor::default()
        };
    }

    /// `monitored.csv`: the monitored client per sample.
    pub fn monitored_table(&self) -> Table {
        let col = |i: usize| Column::U64(self.monitor.rows.iter().map(|r| r[i]).collect());
        Table {
            name: "monitored".into(),
            columns: vec![
                ("time_ns".into(), col(0)),
                ("clients".into(), col(1)),
                ("goodput_bps".into(), col(2)),
                ("packets".into(), col(3)),
                ("packets_lost".into(), col(4)),
                ("jitter_mean_ns".into(), col(5)),
                ("jitter_max_ns".into(), col(6)),
                ("interarrival_std_ns".into(), col(7)),
            ],
        }
    }

    /// Each client's figures over a period of `measured` ns (clients that were sent
    /// nothing are left out).
    pub fn figures(&self, measured: u64) -> Vec<ClientFigures> {
        let secs = measured as f64 / 1e9;
        self.clients
            .iter()
            .enumerate()
            .filter(|(_, c)| c.packets > 0)
            .map(|(t, c)| {
                let p = c.profile.map(|i| &self.profiles[i]);
                let rx = if measured > 0 {
                    c.rx_busy as f64 / measured as f64
                } else {
                    0.0
                };
                let (jitter_mean_ns, jitter_p99_ns, jitter_max_ns) =
                    c.jitter.as_ref().map_or((0, 0, 0), Jitter::figures);
                ClientFigures {
                    terminal: t as u64,
                    profile: p.map_or_else(|| "ideal".to_string(), |p| p.name.clone()),
                    packets: c.packets,
                    packets_lost: c.lost,
                    loss_ratio: c.lost as f64 / c.packets as f64,
                    goodput_bps: if secs > 0.0 {
                        c.received_bytes as f64 * 8.0 / secs
                    } else {
                        0.0
                    },
                    jitter_mean_ns,
                    jitter_p99_ns,
                    jitter_max_ns,
                    rx_cpu_ratio: rx,
                    frame_rate_fps: p.map_or(30.0, |p| frame_rate(p, rx)),
                }
            })
            .collect()
    }
}

/// The frames per second a client of profile `p` displays when receiving takes `rx` of
/// its CPU.
pub(super) fn frame_rate(p: &ClientProfile, rx: f64) -> f64 {
    let fps = f64::from(p.fps);
    let decode = fps * p.decode_per_frame.0 as f64 / 1e9;
    if decode <= 0.0 {
        return fps;
    }
    fps * ((1.0 - rx).max(0.0) / decode).min(1.0)
}

/// `clients.csv`: one row per client that was sent packets.
pub(super) fn table(rows: &[ClientFigures]) -> Table {
    let u = |f: fn(&ClientFigures) -> u64| Column::U64(rows.iter().map(f).collect());
    let x = |f: fn(&ClientFigures) -> f64| Column::F64(rows.iter().map(f).collect());
    Table {
        name: "clients".into(),
        columns: vec![
            ("terminal".into(), u(|r| r.terminal)),
            (
                "profile".into(),
                Column::Str(rows.iter().map(|r| r.profile.clone()).collect()),
            ),
            ("packets".into(), u(|r| r.packets)),
            ("packets_lost".into(), u(|r| r.packets_lost)),
            ("loss_ratio".into(), x(|r| r.loss_ratio)),
            ("goodput_bps".into(), x(|r| r.goodput_bps)),
            ("jitter_mean_ns".into(), u(|r| r.jitter_mean_ns)),
            ("jitter_p99_ns".into(), u(|r| r.jitter_p99_ns)),
            ("jitter_max_ns".into(), u(|r| r.jitter_max_ns)),
            ("rx_cpu_ratio".into(), x(|r| r.rx_cpu_ratio)),
            ("frame_rate_fps".into(), x(|r| r.frame_rate_fps)),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::super::lost_packet::LostPacketCpu;
    use super::*;
    use crate::units::{Bytes, Duration};

    fn section(rx_queue: u64, per_packet_ns: u64) -> ClientsSection {
        ClientsSection {
            profile: vec![ClientProfile {
                name: "c".into(),
                count: None,
                link: Bandwidth(8_000_000_000), // 1 byte per ns
                max_rate: Bandwidth(8_000_000_000),
                rx_queue: Bytes(rx_queue),
                rx_cpu_per_packet: Duration(per_packet_ns),
                rx_cpu_ns_per_byte: 0.0,
                lost_packet_cpu: LostPacketCpu::None,
                decode_per_frame: Duration(0),
                fps: 30,
                packet: None,
            }],
        }
    }

    fn open() -> Window {
        Window {
            span: (SimTime::ZERO, SimTime::from_nanos(1_000_000_000_000)),
            measuring: true,
        }
    }

    #[test]
    fn a_full_queue_loses_exactly_the_excess() {
        // queue of 3 packets of 100 B, CPU 1 ms per packet; 10 packets leave the egress at
        // once: the link spaces them 100 ns apart, far faster than the CPU takes them, so
        // the queue fills with 3 and the other 7 are lost
        let s = section(300, 1_000_000);
        let mut c = Clients::new(Some(&s), 1);
        let w = open();
        let fates: Vec<Fate> = (0..10)
            .map(|_| c.packet(0, 100, (SimTime::ZERO, SimTime::ZERO), 1_000_000, &w))
            .collect();
        assert_eq!(fates.iter().filter(|f| f.lost).count(), 7);
        assert!(fates[..3].iter().all(|f| !f.lost));
        // the third is done three CPU times after the first arrival (100 ns)
        assert_eq!(fates[2].done.as_nanos(), 100 + 3_000_000);
        let f = &c.figures(1_000_000_000)[0];
        assert_eq!((f.packets, f.packets_lost), (10, 7));
        // once the CPU has taken them, there is room again
        let at = SimTime::from_nanos(10_000_000);
        let later = c.packet(0, 100, (at, at), 1_000_000, &w);
        assert!(!later.lost);
    }

    #[test]
    fn a_lost_packet_costs_its_receive_work_in_arrival_order() {
        // as above, but a lost packet is received, then dropped: each of the 7 lost costs
        // 1 ms after the work queued before it, without taking room in the queue
        let mut s = section(300, 1_000_000);
        s.profile[0].lost_packet_cpu = LostPacketCpu::Full;
        let mut c = Clients::new(Some(&s), 1);
        let w = open();
        let fates: Vec<Fate> = (0..10)
            .map(|_| c.packet(0, 100, (SimTime::ZERO, SimTime::ZERO), 1_000_000, &w))
            .collect();
        assert_eq!(fates.iter().filter(|f| f.lost).count(), 7);
        assert_eq!(fates[2].done.as_nanos(), 100 + 3_000_000);
        // the fourth (lost) is dropped when its 1 ms after the third's is done
        assert!(fates[3].lost);
        assert_eq!(fates[3].done.as_nanos(), 100 + 4_000_000);
        assert_eq!(fates[9].done.as_nanos(), 100 + 10_000_000);
        // 10 ms of receive work in a second
        let f = &c.figures(1_000_000_000)[0];
        assert!((f.rx_cpu_ratio - 0.01).abs() < 1e-12, "{}", f.rx_cpu_ratio);
        // at 10 ms the queue has room (the three were taken by 3 ms), but the CPU is busy
        // with the lost packets' work until 10.0001 ms
        let at = SimTime::from_nanos(10_000_000);
        let later = c.packet(0, 100, (at, at), 1_000_000, &w);
        assert!(!later.lost);
        assert_eq!(later.done.as_nanos(), 100 + 11_000_000);
    }

    #[test]
    fn smooth_arrivals_have_no_jitter_and_ideal_clients_lose_nothing() {
        let mut c = Clients::new(None, 2);
        let w = open();
        // 8 Mbit/s = 1 byte per µs: 1000-byte packets every ms are on schedule
        // (the block is ready at 0)
        for k in 0..5u64 {
            let at = SimTime::from_nanos(k * 1_000_000);
            let f = c.packet(1, 1000, (SimTime::ZERO, at), 8_000_000, &w);
            assert!(!f.lost);
        }
        // one 2 ms late
        let at = SimTime::from_nanos(7_000_000);
        c.packet(1, 1000, (SimTime::ZERO, at), 8_000_000, &w);
        // a block ready only at 20 ms restarts the schedule: its first packet, at 20.5 ms,
        // is 0.5 ms late, not 14.5
        let at = SimTime::from_nanos(20_500_000);
        c.packet(
            1,
            1000,
            (SimTime::from_nanos(20_000_000), at),
            8_000_000,
            &w,
        );
        let f = &c.figures(1_000_000_000)[0];
        assert_eq!(f.terminal, 1);
        assert_eq!(f.profile, "ideal");
        assert_eq!(f.packets_lost, 0);
        assert_eq!(f.jitter_max_ns, 2_000_000);
    }

    #[test]
    fn frame_rate_falls_when_receiving_leaves_too_little_cpu() {
        let mut p = section(1, 0).profile.remove(0);
        p.decode_per_frame = Duration(20_000_000); // 30 × 20 ms = 60 % of the CPU
        assert_eq!(frame_rate(&p, 0.3), 30.0);
        assert!((frame_rate(&p, 0.7) - 15.0).abs() < 1e-9);
        assert_eq!(frame_rate(&p, 1.0), 0.0);
    }

    proptest::proptest! {
        /// Every packet that reaches a client is received or counted lost, its bytes once;
        /// a lost packet is one that did not fit (the queue never holds more than
        /// `rx_queue`), and the CPU takes the received ones in order, never before they
        /// arrive.
        #[test]
        fn every_packet_is_received_or_counted_lost(
            packets in proptest::collection::vec((0u32..3, 1u64..20_000, 0u64..50_000_000), 1..200),
            queue in 1u64..60_000,
            per_packet in 0u64..2_000_000,
            lost_cost in proptest::bool::ANY,
        ) {
            let mut s = section(queue, per_packet);
            if lost_cost {
                s.profile[0].lost_packet_cpu = LostPacketCpu::Full;
            }
            let mut c = Clients::new(Some(&s), 3);
            let w = open();
            let mut left = packets.clone();
            left.sort_by_key(|p| p.2);
            let (mut sent, mut lost, mut bytes_in) = ([0u64; 3], [0u64; 3], [0u64; 3]);
            let mut last_done = [SimTime::ZERO; 3];
            for (t, bytes, at) in left {
                let at = SimTime::from_nanos(at);
                let f = c.packet(t, bytes, (at, at), 1_500_000, &w);
                sent[t as usize] += 1;
                proptest::prop_assert!(f.done >= at);
                if f.lost {
                    lost[t as usize] += 1;
                } else {
                    bytes_in[t as usize] += bytes;
                    proptest::prop_assert!(f.done >= last_done[t as usize]);
                    last_done[t as usize] = f.done;
                    proptest::prop_assert!(bytes <= queue);
                }
                let q = &c.clients[t as usize];
                proptest::prop_assert!(q.queued <= queue);
                proptest::prop_assert_eq!(q.queued, q.queue.iter().map(|e| e.1).sum::<u64>());
            }
            let figures = c.figures(1_000_000_000_000);
            for f in &figures {
                let t = f.terminal as usize;
                proptest::prop_assert_eq!(f.packets, sent[t]);
                proptest::prop_assert_eq!(f.packets_lost, lost[t]);
                proptest::prop_assert_eq!(c.clients[t].received_bytes, bytes_in[t]);
            }
            proptest::prop_assert_eq!(figures.len(), sent.iter().filter(|n| **n > 0).count());
        }
    }
}
