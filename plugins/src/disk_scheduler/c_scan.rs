//! `c-scan`: circular SCAN \[Silb94\], the one-directional variant of the elevator (SPIFFI
//! §5.2.2 describes the two-way elevator). The head serves requests in increasing cylinder
//! order; when none remains at or above it, it returns to the lowest requested cylinder and
//! sweeps up again. Requests on one cylinder are served in arrival order. Waiting times are
//! more uniform than the elevator's, which favours the middle cylinders.

use std::collections::BTreeMap;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// Circular SCAN, O(log n) per operation.
#[derive(Debug, Default)]
pub struct CScan {
    queue: BTreeMap<(u32, u64), RequestId>,
    seq: u64,
}

impl DiskScheduler for CScan {
    fn enqueue(&mut self, r: QueuedRequest) {
        self.queue.insert((r.cylinder, self.seq), r.id);
        self.seq += 1;
    }

    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        let key = match self.queue.range((head.cylinder, 0)..).next() {
            Some((k, _)) => *k,
            None => *self.queue.keys().next()?,
        };
        self.queue.remove(&key)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for CScan {
    type Kind = dyn DiskScheduler;
    type Params = NoParams;
    const NAME: &'static str = "c-scan";
    const DESCRIPTION: &'static str =
        "circular SCAN: sweep upward only, then return to the lowest request";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(CScan::default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::plugin::RequestClass;
    use vodbench_plugin_api::time::SimTime;

    #[test]
    fn sweeps_up_then_wraps_to_the_lowest() {
        let mut s = CScan::default();
        let cyl = [0, 50, 10, 70, 30, 50];
        for (id, &c) in cyl.iter().enumerate().skip(1) {
            s.enqueue(QueuedRequest {
                id: RequestId(id as u32),
                cylinder: c,
                offset: 0,
                bytes: 1,
                terminal: None,
                class: RequestClass::Demand,
                deadline: None,
                arrival: SimTime::ZERO,
            });
        }
        let mut h = 40;
        let mut order = Vec::new();
        while let Some(RequestId(id)) = s.dequeue(&HeadState {
            now: SimTime::ZERO,
            cylinder: h,
            cylinders: 100,
        }) {
            h = cyl[id as usize];
            order.push(id);
        }
        // 50, 50 (arrival order), 70, wrap: 10, 30
        assert_eq!(order, vec![1, 5, 3, 2, 4]);
    }
}
