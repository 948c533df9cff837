//! The interface nodes' CPUs (`[server.interface_cpu]`, Jadav et al. §5 and §5.2): the
//! scheduling, processing and buffering (copying) work an interface node does for every
//! message of its streams, as work that queues — one CPU per interface node, one job at a
//! time, first come first served — rather than as a fixed latency (the interconnect's
//! `send_cost`, `receive_cost`).
//!
//! A stream's request waits for its interface node's CPU to `send` it before it enters the
//! network; a fragment that reaches the interface node waits for the CPU to `receive` it and
//! copy it into the stream's buffer (`copy_rate`) before the stream has it. The paper
//! counts such overheads in the blocking delay N_Q ("the buffering and copying overheads
//! associated with messages, when multiple messages contend for the network", §5), and so
//! does [`super::delays`]: the CPU's queueing and work lie in the round trip and in none of
//! the other components. With `client_packet`, the CPU also sends every playing client a
//! packet of P_I bytes every δ_I, the packet's playout time (§3.2, eq. 1), for
//! `client_send` plus its bytes at `copy_rate`: work that delays the streams' requests and
//! fragments behind it. The CPUs' busy fractions are reported with the network
//! (`summary.json`'s `network.interface_cpu_*`).

use super::measure::{fmax, mean, utilization, Window};
use super::stats::Level;
use crate::time::{SimDuration, SimTime};
use crate::units::Bandwidth;
use std::collections::VecDeque;

/// A job of an interface node's CPU.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum IfaceJob {
    /// Send terminal read `r`'s request into the network.
    Send(u32),
    /// Receive terminal read `r`'s fragment (`bytes` of it) and copy it to its stream.
    Receive(u32, u64),
    /// Send a playing client its next packet of `bytes` (every δ_I, Jadav §3.2).
    Packet(u64),
}

struct Cpu {
    queue: VecDeque<IfaceJob>,
    current: Option<IfaceJob>,
    busy: Level,
}

/// Every interface node's CPU.
pub(super) struct InterfaceCpus {
    cpus: Vec<Cpu>,
    send: SimDuration,
    receive: SimDuration,
    copy_rate: Option<Bandwidth>,
    client_send: SimDuration,
}

impl InterfaceCpus {
    /// `count` CPUs spending `send` per request, `receive` per fragment and `client_send`
    /// per client packet, plus the fragment's or packet's bytes at `copy_rate` when given.
    pub fn new(
        count: u32,
        send: SimDuration,
        receive: SimDuration,
        copy_rate: Option<Bandwidth>,
        client_send: SimDuration,
    ) -> Self {
        InterfaceCpus {
            cpus: (0..count)
                .map(|_| Cpu {
                    queue: VecDeque::new(),
                    current: None,
                    busy: Level::default(),
                })
                .collect(),
            send,
            receive,
            copy_rate,
            client_send,
        }
    }

    /// What `job` costs its CPU.
    pub fn cost(&self, job: IfaceJob) -> SimDuration {
        let copy = |bytes| {
            self.copy_rate
                .map_or(SimDuration::ZERO, |r: Bandwidth| r.time_for(bytes))
        };
        match job {
            IfaceJob::Send(_) => self.send,
            IfaceJob::Receive(_, bytes) => self.receive + copy(bytes),
            IfaceJob::Packet(bytes) => self.client_send + copy(bytes),
        }
    }

    /// Queues `job` at interface `i`'s CPU; when the job it starts (if it was idle) ends.
    pub fn push(&mut self, i: usize, job: IfaceJob, now: SimTime, w: &Window) -> Option<SimTime> {
        self.cpus[i].queue.push_back(job);
        self.kick(i, now, w)
    }

    /// Starts interface `i`'s next job if its CPU is idle; when it ends.
    pub fn kick(&mut self, i: usize, now: SimTime, w: &Window) -> Option<SimTime> {
        if self.cpus[i].current.is_some() {
            return None;
        }
        let job = self.cpus[i].queue.pop_front()?;
        let end = now + self.cost(job);
        let cpu = &mut self.cpus[i];
        cpu.current = Some(job);
        cpu.busy.set(now, 1, w.span);
        Some(end)
    }

    /// Interface `i`'s CPU finished its job at `now`: the job.
    pub fn done(&mut self, i: usize, now: SimTime, w: &Window) -> IfaceJob {
        let cpu = &mut self.cpus[i];
        cpu.busy.set(now, 0, w.span);
        cpu.current.take().expect("IfaceDone without a job")
    }

    /// Opens the measured window.
    pub fn open(&mut self, now: SimTime) {
        for c in &mut self.cpus {
            c.busy.open(now);
        }
    }

    /// The CPUs' mean and largest busy fractions over the window closed at `w1`.
    pub fn report(&mut self, w1: SimTime, window: (SimTime, SimTime), measured: u64) -> (f64, f64) {
        let u: Vec<f64> = self
            .cpus
            .iter_mut()
            .map(|c| utilization(&mut c.busy, w1, window, measured))
            .collect();
        (mean(&u), fmax(&u))
    }
}

/// The interface nodes' CPUs, when the scenario has `[server.interface_cpu]`, or their
/// message handlers under `[server.message_work]` (which sends requests and receives
/// fragments at the section's costs).
pub(super) fn build(scenario: &super::scenario::Scenario) -> Option<InterfaceCpus> {
    let s = &scenario.file.server;
    match (&s.interface_cpu, &s.message_work) {
        (Some(c), _) => Some(InterfaceCpus::new(
            s.interface_nodes,
            c.send.sim(),
            c.receive.sim(),
            c.copy_rate,
            c.client_send.sim(),
        )),
        (None, Some(m)) => Some(InterfaceCpus::new(
            s.interface_nodes,
            super::message_work::message_cost(m).of(s.network.request_bytes.0),
            m.per_message.sim(),
            m.copy_rate,
            SimDuration::ZERO,
        )),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_queue_first_come_first_served_and_cost_their_bytes() {
        let w = Window {
            span: (SimTime::ZERO, SimTime::MAX),
            measuring: true,
        };
        let mut c = InterfaceCpus::new(
            2,
            SimDuration::from_micros(50),
            SimDuration::from_micros(20),
            Some(Bandwidth(8_000_000)),
            SimDuration::from_micros(30),
        );
        let t0 = SimTime::ZERO;
        // a receive of 1000 bytes: 20 µs + 1 ms at 1 MB/s
        assert_eq!(
            c.push(0, IfaceJob::Receive(7, 1000), t0, &w),
            Some(SimTime::from_nanos(1_020_000))
        );
        // the second waits; the other interface's CPU is free
        assert_eq!(c.push(0, IfaceJob::Send(8), t0, &w), None);
        assert_eq!(
            c.push(1, IfaceJob::Send(9), t0, &w),
            Some(SimTime::from_nanos(50_000))
        );
        let t1 = SimTime::from_nanos(1_020_000);
        assert_eq!(c.done(0, t1, &w), IfaceJob::Receive(7, 1000));
        assert_eq!(c.kick(0, t1, &w), Some(SimTime::from_nanos(1_070_000)));
        assert_eq!(
            c.done(0, SimTime::from_nanos(1_070_000), &w),
            IfaceJob::Send(8)
        );
        assert_eq!(c.kick(0, SimTime::from_nanos(1_070_000), &w), None);
        // a client packet of 500 bytes: 30 µs + 0.5 ms at 1 MB/s
        let t2 = SimTime::from_nanos(2_000_000);
        assert_eq!(
            c.push(1, IfaceJob::Packet(500), t2, &w),
            None,
            "interface 1 is still sending"
        );
        assert_eq!(
            c.done(1, SimTime::from_nanos(50_000), &w),
            IfaceJob::Send(9)
        );
        assert_eq!(c.kick(1, t2, &w), Some(SimTime::from_nanos(2_530_000)));
    }
}
