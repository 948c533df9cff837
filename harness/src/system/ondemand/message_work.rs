//! The storage nodes' message handlers (`[server.message_work]`, Jadav et al. §5, §5.2,
//! §7.2, §8.2): the "scheduling, processing and buffering (copying) overhead" a node's
//! software spends on every message, as work that queues — one handler per node, one message
//! at a time, first come first served — beside the node's application (the Paragon's nodes
//! handled messages in software next to the program they ran).
//!
//! A fragment request that reaches its storage node waits for the node's handler to receive
//! it before the node's CPU sees it; a fragment the node's CPU hands over waits for the
//! handler to send it before it enters the interconnect. The interface nodes' side of the
//! same section (sending the requests, receiving the fragments) runs on
//! [`super::interface_cpu::InterfaceCpus`], built from the section's costs, so that a
//! message costs its handler at both ends. As the paper splits a message's delay (§5), a
//! message's own handler work at its two ends counts in its time without blocking, N_C (the
//! Paragon's 13.8 MB/s includes the messaging software, §5.1), and its waits for busy
//! handlers in the blocking, N_Q ("the buffering and copying overheads associated with
//! messages, when multiple messages contend for the network"): [`super::delays`] adds each
//! message's work to the request's unloaded time and leaves the queueing in what remains of
//! the round trip. Only the data path's
//! messages are charged (requests and fragments), not admission probes or the object
//! manager's control messages.

use super::measure::{fmax, mean, utilization, Window};
use super::stats::Level;
use crate::time::{SimDuration, SimTime};
use crate::units::Bandwidth;
use std::collections::VecDeque;

/// A job of a storage node's message handler.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum MessageJob {
    /// Receive terminal read `r`'s request (`bytes` of it).
    Receive(u32, u64),
    /// Send terminal read `r`'s fragment (`bytes` of it) into the interconnect.
    Send(u32, u64),
}

struct Handler {
    queue: VecDeque<MessageJob>,
    current: Option<MessageJob>,
    busy: Level,
}

/// The message work's costs: `per_message` plus the message's bytes at `copy_rate`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct MessageCost {
    pub per_message: SimDuration,
    pub copy_rate: Option<Bandwidth>,
}

impl MessageCost {
    /// A message of `bytes`' handler time at one end.
    pub fn of(&self, bytes: u64) -> SimDuration {
        self.per_message
            + self
                .copy_rate
                .map_or(SimDuration::ZERO, |r| r.time_for(bytes))
    }
}

/// Every storage node's message handler.
pub(super) struct MessageHandlers {
    handlers: Vec<Handler>,
    cost: MessageCost,
}

impl MessageHandlers {
    /// `count` handlers, each message costing `cost`.
    pub fn new(count: u32, cost: MessageCost) -> Self {
        MessageHandlers {
            handlers: (0..count)
                .map(|_| Handler {
                    queue: VecDeque::new(),
                    current: None,
                    busy: Level::default(),
                })
                .collect(),
            cost,
        }
    }

    /// A message of `bytes`' work at one end.
    pub fn cost(&self, bytes: u64) -> SimDuration {
        self.cost.of(bytes)
    }

    /// Queues `job` at node `n`'s handler; when the job it starts (if it was idle) ends.
    pub fn push(&mut self, n: usize, job: MessageJob, now: SimTime, w: &Window) -> Option<SimTime> {
        self.handlers[n].queue.push_back(job);
        self.kick(n, now, w)
    }

    /// Starts node `n`'s next job if its handler is idle; when it ends.
    pub fn kick(&mut self, n: usize, now: SimTime, w: &Window) -> Option<SimTime> {
        let h = &mut self.handlers[n];
        if h.current.is_some() {
            return None;
        }
        let job = h.queue.pop_front()?;
        let bytes = match job {
            MessageJob::Receive(_, b) | MessageJob::Send(_, b) => b,
        };
        h.current = Some(job);
        h.busy.set(now, 1, w.span);
        Some(now + self.cost.of(bytes))
    }

    /// Node `n`'s handler finished its job at `now`: the job.
    pub fn done(&mut self, n: usize, now: SimTime, w: &Window) -> MessageJob {
        let h = &mut self.handlers[n];
        h.busy.set(now, 0, w.span);
        h.current.take().expect("MessageDone without a job")
    }

    /// Opens the measured window.
    pub fn open(&mut self, now: SimTime) {
        for h in &mut self.handlers {
            h.busy.open(now);
        }
    }

    /// The handlers' mean and largest busy fractions over the window closed at `w1`.
    pub fn report(&mut self, w1: SimTime, window: (SimTime, SimTime), measured: u64) -> (f64, f64) {
        let u: Vec<f64> = self
            .handlers
            .iter_mut()
            .map(|h| utilization(&mut h.busy, w1, window, measured))
            .collect();
        (mean(&u), fmax(&u))
    }
}

/// `[server.message_work]`'s costs of one message at one end.
pub(super) fn message_cost(m: &super::scenario::MessageWorkSection) -> MessageCost {
    MessageCost {
        per_message: m.per_message.sim(),
        copy_rate: m.copy_rate,
    }
}

/// The storage nodes' message handlers, when the scenario has `[server.message_work]`.
pub(super) fn build(scenario: &super::scenario::Scenario) -> Option<MessageHandlers> {
    let s = &scenario.file.server;
    s.message_work
        .as_ref()
        .map(|m| MessageHandlers::new(s.nodes, message_cost(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_queue_first_come_first_served_and_cost_their_bytes() {
        let w = Window {
            span: (SimTime::ZERO, SimTime::MAX),
            measuring: true,
        };
        let cost = MessageCost {
            per_message: SimDuration::from_micros(10),
            copy_rate: Some(Bandwidth(8_000_000)),
        };
        let mut h = MessageHandlers::new(2, cost);
        let t0 = SimTime::ZERO;
        // a request of 1000 bytes: 10 µs + 1 ms at 1 MB/s
        let end = h.push(0, MessageJob::Receive(7, 1000), t0, &w).unwrap();
        assert_eq!(end, t0 + SimDuration::from_micros(1010));
        // a fragment queued behind it at the same node starts only when the handler is free
        assert_eq!(h.push(0, MessageJob::Send(8, 2000), t0, &w), None);
        // another node's handler is its own
        let other = h.push(1, MessageJob::Send(9, 0), t0, &w).unwrap();
        assert_eq!(other, t0 + SimDuration::from_micros(10));
        assert_eq!(h.done(0, end, &w), MessageJob::Receive(7, 1000));
        let next = h.kick(0, end, &w).unwrap();
        assert_eq!(next, end + SimDuration::from_micros(2010));
        assert_eq!(h.done(0, next, &w), MessageJob::Send(8, 2000));
        assert_eq!(h.kick(0, next, &w), None);
        // node 0 busy the whole 3.02 ms window, node 1 for 10 µs of it
        h.done(1, other, &w);
        let (m, max) = h.report(next, (t0, next), 3_020_000);
        assert!((max - 1.0).abs() < 1e-9, "{max}");
        assert!((m - (1.0 + 10.0 / 3020.0) / 2.0).abs() < 1e-9, "{m}");
    }
}
