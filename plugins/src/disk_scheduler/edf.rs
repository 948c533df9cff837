//! `edf`: earliest deadline first (Liu & Layland), the textbook real-time disk scheduler that
//! SPIFFI's real-time scheduler (§5.2.2) and SCAN-EDF refine. Serves the queued request with
//! the earliest deadline; equal deadlines in arrival order; requests without a deadline
//! (prefetches without an estimate) after all others, in arrival order. Ignores seeks.

use std::collections::BTreeMap;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// Earliest deadline first, O(log n) per operation.
#[derive(Debug, Default)]
pub struct Edf {
    /// (no deadline?, deadline ns, arrival) → request.
    queue: BTreeMap<(bool, u64, u64), RequestId>,
    seq: u64,
}

impl DiskScheduler for Edf {
    fn enqueue(&mut self, r: QueuedRequest) {
        let key = match r.deadline {
            Some(d) => (false, d.as_nanos(), self.seq),
            None => (true, 0, self.seq),
        };
        self.queue.insert(key, r.id);
        self.seq += 1;
    }

    fn dequeue(&mut self, _head: &HeadState) -> Option<RequestId> {
        self.queue.pop_first().map(|(_, id)| id)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for Edf {
    type Kind = dyn DiskScheduler;
    type Params = NoParams;
    const NAME: &'static str = "edf";
    const DESCRIPTION: &'static str =
        "earliest deadline first; requests without a deadline last, in arrival order";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(Edf::default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::plugin::RequestClass;
    use vodbench_plugin_api::time::SimTime;

    fn req(id: u32, cylinder: u32, deadline: Option<u64>) -> QueuedRequest {
        QueuedRequest {
            id: RequestId(id),
            cylinder,
            offset: 0,
            bytes: 1,
            terminal: None,
            class: RequestClass::Demand,
            deadline: deadline.map(SimTime::from_nanos),
            arrival: SimTime::ZERO,
        }
    }

    #[test]
    fn earliest_deadline_first_then_no_deadline_in_arrival_order() {
        let mut e = Edf::default();
        for (id, c, d) in [
            (1, 10, None),
            (2, 500, Some(30)),
            (3, 20, Some(10)),
            (4, 0, None),
            (5, 900, Some(30)),
            (6, 1, Some(u64::MAX)),
        ] {
            e.enqueue(req(id, c, d));
        }
        let h = HeadState {
            now: SimTime::ZERO,
            cylinder: 0,
            cylinders: 1000,
        };
        let order: Vec<u32> = std::iter::from_fn(|| e.dequeue(&h).map(|r| r.0)).collect();
        assert_eq!(order, vec![3, 2, 5, 6, 1, 4]);
    }
}
