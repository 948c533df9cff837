//! `elevator`: SCAN (SPIFFI §5.2.2). The head sweeps across the cylinders in one direction,
//! serving each request when it reaches that request's cylinder, and reverses when no request
//! remains ahead. Requests on the same cylinder are served in arrival order. Nearly minimal
//! seeks with bounded unfairness; SPIFFI's baseline scheduler.

use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// SCAN over the queued requests.
///
/// The queue is a vector sorted by cylinder, then arrival: a disk's queue is short (a few
/// requests, hundreds at most under overload), and a sorted vector finds the next request by
/// bisection and inserts with one small move, where a tree map allocated and freed a node
/// whenever the queue emptied and filled again.
#[derive(Debug, Default)]
pub struct Elevator {
    /// `(cylinder, arrival sequence, request)`, sorted.
    queue: Vec<(u32, u64, RequestId)>,
    seq: u64,
    upward: bool,
}

impl Elevator {
    /// An empty elevator sweeping outward (toward higher cylinders) first.
    pub fn new() -> Self {
        Elevator {
            queue: Vec::new(),
            seq: 0,
            upward: true,
        }
    }

    /// Position of the request served next in the current direction, if any lies ahead.
    fn ahead(&self, head: u32) -> Option<usize> {
        if self.upward {
            // the lowest cylinder at or above the head, oldest request first
            let i = self.queue.partition_point(|e| e.0 < head);
            (i < self.queue.len()).then_some(i)
        } else {
            // the highest cylinder at or below the head, oldest request first
            let j = self.queue.partition_point(|e| e.0 <= head);
            let c = self.queue[..j].last()?.0;
            Some(self.queue[..j].partition_point(|e| e.0 < c))
        }
    }
}

impl DiskScheduler for Elevator {
    fn enqueue(&mut self, r: QueuedRequest) {
        // after every request on the same cylinder: they all arrived earlier
        let i = self.queue.partition_point(|e| e.0 <= r.cylinder);
        self.queue.insert(i, (r.cylinder, self.seq, r.id));
        self.seq += 1;
    }

    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        if self.queue.is_empty() {
            return None;
        }
        let i = match self.ahead(head.cylinder) {
            Some(i) => i,
            None => {
                self.upward = !self.upward;
                self.ahead(head.cylinder)?
            }
        };
        Some(self.queue.remove(i).2)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for Elevator {
    type Kind = dyn DiskScheduler;
    type Params = NoParams;
    const NAME: &'static str = "elevator";
    const DESCRIPTION: &'static str =
        "SCAN: sweep the cylinders, reversing at the last request (SPIFFI §5.2.2)";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(Elevator::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::plugin::RequestClass;
    use vodbench_plugin_api::time::SimTime;

    fn req(id: u32, cylinder: u32) -> QueuedRequest {
        QueuedRequest {
            id: RequestId(id),
            cylinder,
            offset: 0,
            bytes: 1,
            terminal: None,
            class: RequestClass::Demand,
            deadline: None,
            arrival: SimTime::ZERO,
        }
    }

    fn head(cylinder: u32) -> HeadState {
        HeadState {
            now: SimTime::ZERO,
            cylinder,
            cylinders: 1000,
        }
    }

    #[test]
    fn sweeps_up_then_down() {
        let mut e = Elevator::new();
        for (id, c) in [(1, 50), (2, 10), (3, 70), (4, 30), (5, 50)] {
            e.enqueue(req(id, c));
        }
        // head at 40 going up: 50 (oldest first), 50, 70, then reverse: 30, 10
        let mut order = Vec::new();
        let mut h = 40;
        while let Some(RequestId(id)) = e.dequeue(&head(h)) {
            h = [0, 50, 10, 70, 30, 50][id as usize];
            order.push(id);
        }
        assert_eq!(order, vec![1, 5, 3, 4, 2]);
    }

    #[test]
    fn same_cylinder_in_arrival_order_when_sweeping_down() {
        let mut e = Elevator::new();
        e.upward = false;
        e.enqueue(req(1, 20));
        e.enqueue(req(2, 20));
        e.enqueue(req(3, 5));
        assert_eq!(e.dequeue(&head(30)), Some(RequestId(1)));
        assert_eq!(e.dequeue(&head(20)), Some(RequestId(2)));
        assert_eq!(e.dequeue(&head(20)), Some(RequestId(3)));
        assert_eq!(e.dequeue(&head(5)), None);
    }

    #[test]
    fn matches_the_sweep_rule_under_random_interleavings() {
        // the reference: the SCAN rule of `sweep`, by linear search over what is queued
        use crate::disk_scheduler::sweep::Sweep;
        use rand::{Rng, SeedableRng};
        let mut rng = vodbench_plugin_api::rng::SimRng::seed_from_u64(11);
        let mut e = Elevator::new();
        let mut sweep = Sweep::default();
        let mut queued: Vec<(u32, u32, u64)> = Vec::new(); // (id, cylinder, seq)
        let (mut seq, mut h) = (0u64, 500u32);
        for id in 0..20_000u32 {
            if rng.random_bool(0.5) {
                // few cylinders, so ties are common
                let c = rng.random_range(0..40u32) * 25;
                e.enqueue(req(id, c));
                queued.push((id, c, seq));
                seq += 1;
            } else {
                let want = sweep
                    .pick(h, queued.iter().enumerate().map(|(i, x)| (i, x.1, x.2)))
                    .map(|i| queued.remove(i));
                assert_eq!(e.dequeue(&head(h)), want.map(|w| RequestId(w.0)));
                assert_eq!(e.upward, sweep.upward);
                if let Some(w) = want {
                    h = w.1;
                }
            }
            assert_eq!(e.len(), queued.len());
        }
    }
}
