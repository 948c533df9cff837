//! `round-robin`: serve the terminals in turn (SPIFFI §5.2.2, §7.2). Terminals are visited
//! in cyclic order of their ids, starting after the terminal served last; each visit serves
//! that terminal's oldest queued request. Requests without a terminal count as one extra
//! terminal after every real one. Fair and simple, but it makes no attempt to shorten seeks —
//! the baseline that analytic designs assume and that SPIFFI's Fig. 10 shows losing to every
//! other scheduler.

use std::collections::BTreeMap;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// Terminal-by-terminal service, oldest request first; O(log n) per operation.
#[derive(Debug, Default)]
pub struct RoundRobin {
    queue: BTreeMap<(u32, u64), RequestId>,
    seq: u64,
    last: Option<u32>,
}

/// The key of a request's terminal (`None` sorts after every real terminal).
pub(crate) fn terminal_key(r: &QueuedRequest) -> u32 {
    r.terminal.map_or(u32::MAX, |t| t.0)
}

impl DiskScheduler for RoundRobin {
    fn enqueue(&mut self, r: QueuedRequest) {
        self.queue.insert((terminal_key(&r), self.seq), r.id);
        self.seq += 1;
    }

    fn dequeue(&mut self, _head: &HeadState) -> Option<RequestId> {
        let after = self
            .last
            .and_then(|t| t.checked_add(1))
            .and_then(|t| self.queue.range((t, 0)..).next());
        let key = match after {
            Some((k, _)) => *k,
            None => *self.queue.keys().next()?,
        };
        self.last = Some(key.0);
        self.queue.remove(&key)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for RoundRobin {
    type Kind = dyn DiskScheduler;
    type Params = NoParams;
    const NAME: &'static str = "round-robin";
    const DESCRIPTION: &'static str =
        "serve the terminals in turn, oldest request first, ignoring seeks (SPIFFI §5.2.2)";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(RoundRobin::default()))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use vodbench_plugin_api::ids::TerminalId;
    use vodbench_plugin_api::plugin::RequestClass;
    use vodbench_plugin_api::time::SimTime;

    /// A demand request `id` of `terminal` at `cylinder`.
    pub(crate) fn req(id: u32, terminal: u32, cylinder: u32) -> QueuedRequest {
        QueuedRequest {
            id: RequestId(id),
            cylinder,
            offset: 0,
            bytes: 1,
            terminal: Some(TerminalId(terminal)),
            class: RequestClass::Demand,
            deadline: None,
            arrival: SimTime::ZERO,
        }
    }

    pub(crate) fn head(cylinder: u32) -> HeadState {
        HeadState {
            now: SimTime::ZERO,
            cylinder,
            cylinders: 1000,
        }
    }

    #[test]
    fn visits_terminals_cyclically_oldest_first() {
        let mut s = RoundRobin::default();
        // (id, terminal, cylinder)
        for (id, t, c) in [(1, 2, 10), (2, 0, 900), (3, 2, 11), (4, 1, 500), (5, 0, 5)] {
            s.enqueue(req(id, t, c));
        }
        let mut order = Vec::new();
        while let Some(RequestId(id)) = s.dequeue(&head(0)) {
            order.push(id);
            if id == 4 {
                // terminal 1 asks again while terminal 2 is next: it waits its turn
                s.enqueue(req(6, 1, 0));
            }
        }
        // T0, T1, T2, then T0 again, T1's new request, T2's second
        assert_eq!(order, vec![2, 4, 1, 5, 6, 3]);
    }
}
