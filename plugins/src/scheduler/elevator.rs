//! `elevator`: SCAN (SPIFFI §5.2.2). The head sweeps across the cylinders in one direction,
//! serving each request when it reaches that request's cylinder, and reverses when no request
//! remains ahead. Requests on the same cylinder are served in arrival order. Nearly minimal
//! seeks with bounded unfairness; SPIFFI's baseline scheduler.

use crate::NoParams;
use std::collections::BTreeMap;
use vodbench_harness::ids::RequestId;
use vodbench_harness::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// SCAN over cylinders, O(log n) per operation.
#[derive(Debug, Default)]
pub struct Elevator {
    queue: BTreeMap<(u32, u64), RequestId>,
    seq: u64,
    upward: bool,
}

impl Elevator {
    /// An empty elevator sweeping outward (toward higher cylinders) first.
    pub fn new() -> Self {
        Elevator {
            queue: BTreeMap::new(),
            seq: 0,
            upward: true,
        }
    }

    fn ahead(&self, head: u32) -> Option<(u32, u64)> {
        if self.upward {
            self.queue.range((head, 0)..).next().map(|(k, _)| *k)
        } else {
            // the highest cylinder at or below the head, oldest request first
            let (&(c, _), _) = self
                .queue
                .range(..(head.saturating_add(1), 0))
                .next_back()?;
            self.queue.range((c, 0)..).next().map(|(k, _)| *k)
        }
    }
}

impl DiskScheduler for Elevator {
    fn enqueue(&mut self, r: QueuedRequest) {
        self.queue.insert((r.cylinder, self.seq), r.id);
        self.seq += 1;
    }

    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        if self.queue.is_empty() {
            return None;
        }
        let key = match self.ahead(head.cylinder) {
            Some(k) => k,
            None => {
                self.upward = !self.upward;
                self.ahead(head.cylinder)?
            }
        };
        self.queue.remove(&key)
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
    use vodbench_harness::plugin::RequestClass;
    use vodbench_harness::time::SimTime;

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
}
