//! SCSI buses between a node and its disks (Wu et al. §3, eq. 1–2; `[server.bus]`).
//!
//! Wu's read waits `d_m = D1 + D2 + D3` before its data moves: D1 the command issued over the
//! bus, D2 the disk's positioning (seek, rotation), D3 the contention for the bus when the
//! disk reconnects. With a bus, the disk station ([`super::disk`]) serves an access in these
//! phases:
//!
//! 1. **command**: the host adapter arbitrates for the bus and holds it for `command` (D1);
//! 2. **positioning**: the disk model's overhead, seek and rotation (D2). A disk that
//!    disconnects (`disconnect = true`, the default) releases the bus meanwhile; one that
//!    does not keeps it held;
//! 3. **arbitration**: a disconnected disk asks for the bus again to reconnect; what it
//!    waits is D3, reported as the I/O time part `bus_wait` (with the wait for the command);
//! 4. **transfer**, holding the bus. Unbuffered (default) the data goes to the bus as it
//!    comes off the media, so the bus is held for the longer of the model's transfer time
//!    and `bytes / rate`: the transfer runs at the slower of the media and the bus rate, Wu's
//!    r_s = min(r_raw, r_bus). Buffered (`buffered = true`), the disk first reads the media
//!    into its own buffer as part of positioning (off the bus if it disconnected) and then
//!    sends the data at the bus rate.
//!
//! The I/O time parts stay additive: `overhead` is the model's overhead plus the command,
//! `seek` and `rotation` the model's, `transfer` the time the transfer held the bus (plus the
//! media read when buffered), `bus_wait` the arbitration waits; their sum is the service
//! time, from the scheduler's choice to the end of the transfer. The disk model is asked for
//! the access's times when the command ends, the instant the disk starts positioning.
//!
//! **Arbitration.** `priority` (default) is SCSI's: the highest ID wins. The host adapter
//! (SCSI ID 7, the highest) issues the commands, so a waiting command wins over every
//! reconnection; among disks, disk j of its bus (0-based, in disk order) has ID j, so the
//! bus's last disk wins. Equal priorities (commands) go in the order they asked. `fifo`
//! serves every request in the order it asked. A request asked at the same instant as
//! another is ordered by the event order, which is the same on every run.
//!
//! **Measured.** Per bus, the share of the measured period it was held (`utilization`:
//! commands, transfers, and positioning of disks that do not disconnect) and the share of
//! its bandwidth used (`bandwidth`: bytes moved / (rate × period), Wu's μ of eq. 5, since a
//! transfer slower than the bus holds it longer than its bytes need). Beside them, eq. 5 for
//! the scenario: μ = n·a / r_bus per bus, terminals × bit rate spread over the buses, every
//! byte read from disk (a buffer pool that serves hits lowers the measured value).

use super::measure::{utilization, Window};
use super::stats::{clip, DurStat, Level};
use crate::results::{BusSummary, Column, Table};
use crate::time::{SimDuration, SimTime};
use crate::units::Bandwidth;

pub(super) use super::scenario::Arbitration;

/// What the disk stations need to know of `[server.bus]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct BusConfig {
    pub rate: Bandwidth,
    pub command: SimDuration,
    pub disconnect: bool,
    pub buffered: bool,
    pub arbitration: Arbitration,
}

/// Priority of the host adapter's requests (the commands): above every disk's.
pub(super) const HOST: u32 = u32::MAX;

/// A request waiting for a bus.
#[derive(Clone, Copy, Debug)]
struct Waiter {
    disk: u32,
    priority: u32,
    seq: u64,
    since: SimTime,
}

/// One bus: who holds it, who waits, what it measured.
pub(super) struct Bus {
    /// The node whose disks it connects.
    pub node: u32,
    /// Disks on it.
    pub disks: u32,
    holder: Option<u32>,
    waiting: Vec<Waiter>,
    seq: u64,
    busy: Level,
    /// Time at the bus rate of the bytes transferred, clipped to the measured window.
    data_ns: u64,
    commands: u64,
    transfers: u64,
    bytes: u64,
    wait: DurStat,
}

impl Bus {
    pub fn new(node: u32, disks: u32) -> Self {
        Bus {
            node,
            disks,
            holder: None,
            waiting: Vec::new(),
            seq: 0,
            busy: Level::default(),
            data_ns: 0,
            commands: 0,
            transfers: 0,
            bytes: 0,
            wait: DurStat::new(),
        }
    }

    /// Opens the measured window.
    pub fn open(&mut self, now: SimTime) {
        self.busy.open(now);
    }

    /// The disk holding the bus.
    #[cfg(test)]
    pub fn holder(&self) -> Option<u32> {
        self.holder
    }

    /// `disk` asks for the bus at `now` with `priority`: true if it holds it now (the bus
    /// was free), false if it waits for [`release`](Bus::release) to grant it.
    pub fn request(&mut self, disk: u32, priority: u32, now: SimTime, w: &Window) -> bool {
        if self.holder.is_none() {
            if w.measuring {
                self.wait.record(0);
            }
            self.take(disk, now, w);
            return true;
        }
        self.seq += 1;
        self.waiting.push(Waiter {
            disk,
            priority,
            seq: self.seq,
            since: now,
        });
        false
    }

    /// The holder releases the bus at `now`; the request that wins the arbitration holds it
    /// from now: (its disk, how long it waited).
    pub fn release(
        &mut self,
        now: SimTime,
        arbitration: Arbitration,
        w: &Window,
    ) -> Option<(u32, SimDuration)> {
        self.holder = None;
        self.busy.set(now, 0, w.span);
        let won = match arbitration {
            Arbitration::Priority => self
                .waiting
                .iter()
                .enumerate()
                .max_by(|(_, a), (_, b)| a.priority.cmp(&b.priority).then(b.seq.cmp(&a.seq))),
            Arbitration::Fifo => self.waiting.iter().enumerate().min_by_key(|(_, x)| x.seq),
        }
        .map(|(i, _)| i)?;
        let x = self.waiting.remove(won);
        let waited = now.saturating_since(x.since);
        if w.measuring {
            self.wait.record(waited.as_nanos());
        }
        self.take(x.disk, now, w);
        Some((x.disk, waited))
    }

    fn take(&mut self, disk: u32, now: SimTime, w: &Window) {
        self.holder = Some(disk);
        self.busy.set(now, 1, w.span);
    }

    /// A command starts on the bus.
    pub fn command(&mut self, w: &Window) {
        if w.measuring {
            self.commands += 1;
        }
    }

    /// A transfer of `bytes` starts on the bus at `now`.
    pub fn transfer(&mut self, bytes: u64, rate: Bandwidth, now: SimTime, w: &Window) {
        self.data_ns += clip(now, now + rate.time_for(bytes), w.span);
        if w.measuring {
            self.transfers += 1;
            self.bytes += bytes;
        }
    }
}

/// Every bus's figures: the summary's `buses` section and the `buses` table. `model` is
/// eq. 5's μ for the scenario.
pub(super) fn report(
    buses: &mut [Bus],
    rate: Bandwidth,
    model: f64,
    w1: SimTime,
    window: (SimTime, SimTime),
    measured: u64,
) -> (BusSummary, Table) {
    let mut util = Vec::with_capacity(buses.len());
    let mut band = Vec::with_capacity(buses.len());
    let mut all_wait = DurStat::new();
    let mut t = BusRows::default();
    for (i, b) in buses.iter_mut().enumerate() {
        let u = utilization(&mut b.busy, w1, window, measured);
        let bw = if measured > 0 {
            b.data_ns as f64 / measured as f64
        } else {
            0.0
        };
        util.push(u);
        band.push(bw);
        all_wait.merge(&b.wait);
        let s = b.wait.stat();
        t.bus.push(i as u64);
        t.node.push(u64::from(b.node));
        t.disks.push(u64::from(b.disks));
        t.util.push(u);
        t.band.push(bw);
        t.commands.push(b.commands);
        t.transfers.push(b.transfers);
        t.bytes.push(b.bytes);
        t.wait_mean.push(s.mean_ns);
        t.wait_max.push(s.max_ns);
    }
    let mean = |v: &[f64]| super::measure::mean(v);
    let max = |v: &[f64]| super::measure::fmax(v);
    let summary = BusSummary {
        count: buses.len() as u64,
        rate_bytes_per_s: rate.0 / 8,
        utilization_mean_ratio: mean(&util),
        utilization_max_ratio: max(&util),
        bandwidth_mean_ratio: mean(&band),
        bandwidth_max_ratio: max(&band),
        model_eq5_ratio: model,
        commands: buses.iter().map(|b| b.commands).sum(),
        transfers: buses.iter().map(|b| b.transfers).sum(),
        bytes: buses.iter().map(|b| b.bytes).sum(),
        wait: all_wait.stat(),
    };
    (summary, t.table())
}

#[derive(Default)]
struct BusRows {
    bus: Vec<u64>,
    node: Vec<u64>,
    disks: Vec<u64>,
    util: Vec<f64>,
    band: Vec<f64>,
    commands: Vec<u64>,
    transfers: Vec<u64>,
    bytes: Vec<u64>,
    wait_mean: Vec<u64>,
    wait_max: Vec<u64>,
}

impl BusRows {
    fn table(self) -> Table {
        Table {
            name: "buses".into(),
            columns: vec![
                ("bus".into(), Column::U64(self.bus)),
                ("node".into(), Column::U64(self.node)),
                ("disks".into(), Column::U64(self.disks)),
                ("utilization_ratio".into(), Column::F64(self.util)),
                ("bandwidth_ratio".into(), Column::F64(self.band)),
                ("commands".into(), Column::U64(self.commands)),
                ("transfers".into(), Column::U64(self.transfers)),
                ("bytes".into(), Column::U64(self.bytes)),
                ("wait_mean_ns".into(), Column::U64(self.wait_mean)),
                ("wait_max_ns".into(), Column::U64(self.wait_max)),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open() -> Window {
        Window {
            span: (SimTime::ZERO, SimTime::MAX),
            measuring: true,
        }
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn priority_gives_the_bus_to_the_host_then_the_highest_disk() {
        let w = open();
        let mut b = Bus::new(0, 4);
        assert!(b.request(0, 0, at(0), &w));
        assert!(!b.request(1, 1, at(1), &w));
        assert!(!b.request(3, 3, at(2), &w));
        assert!(!b.request(2, HOST, at(3), &w));
        assert!(!b.request(0, HOST, at(4), &w));
        let order: Vec<(u32, u64)> = (5..9)
            .map(|t| {
                let (d, waited) = b.release(at(t), Arbitration::Priority, &w).unwrap();
                (d, waited.as_nanos() / 1_000_000)
            })
            .collect();
        // the host's commands first, in the order asked; then disk 3 over disk 1
        assert_eq!(order, vec![(2, 2), (0, 2), (3, 5), (1, 7)]);
        assert_eq!(b.release(at(9), Arbitration::Priority, &w), None);
        assert_eq!(b.holder(), None);
    }

    #[test]
    fn fifo_gives_the_bus_in_the_order_asked() {
        let w = open();
        let mut b = Bus::new(0, 4);
        assert!(b.request(0, 0, at(0), &w));
        assert!(!b.request(1, 1, at(1), &w));
        assert!(!b.request(3, 3, at(2), &w));
        assert!(!b.request(2, HOST, at(3), &w));
        let order: Vec<u32> = (0..3)
            .map(|_| b.release(at(5), Arbitration::Fifo, &w).unwrap().0)
            .collect();
        assert_eq!(order, vec![1, 3, 2]);
    }

    #[test]
    fn utilization_and_bandwidth_are_measured_apart() {
        // held 0-10 ms of a 20 ms window, 20 kB at 4 MB/s = 5 ms of data
        let w = Window {
            span: (SimTime::ZERO, at(20)),
            measuring: true,
        };
        let rate = Bandwidth(32_000_000);
        let mut b = vec![Bus::new(0, 1)];
        b[0].open(SimTime::ZERO);
        assert!(b[0].request(0, 0, at(0), &w));
        b[0].transfer(20_000, rate, at(0), &w);
        assert_eq!(b[0].release(at(10), Arbitration::Fifo, &w), None);
        let (s, t) = report(&mut b, rate, 0.1, at(20), w.span, 20_000_000);
        assert_eq!(s.utilization_mean_ratio, 0.5);
        assert_eq!(s.bandwidth_mean_ratio, 0.25);
        assert_eq!(
            (s.transfers, s.bytes, s.rate_bytes_per_s),
            (1, 20_000, 4_000_000)
        );
        assert_eq!(t.name, "buses");
    }
}
