//! An example third-party vodbench plugin: a shortest-seek-time-first disk scheduler.
//!
//! The plugin depends on `vodbench-plugin-api` alone; the `cli` feature (on by default) adds
//! the simulator, the built-in plugins and the report writers to assemble a full binary. It
//! shows the whole recipe:
//!
//! 1. implement the policy trait ([`DiskScheduler`]) on your type;
//! 2. implement [`Plugin`] for it: a name, a one-line description, a serde `Params` type and a
//!    constructor;
//! 3. in your binary, add it to a registry with one line and hand the registry to
//!    `vodbench_harness::cli::main_with` with the report writers (see `src/main.rs`).
//!
//! Scenarios then select it with `[disk.scheduler] name = "sstf"`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// Shortest seek time first: always serve the queued request whose cylinder is nearest the
/// head (ties: the lower cylinder, then arrival order). Minimal seeks, but requests far from
/// a busy region can starve — which is why video servers prefer SCAN-like schedulers.
#[derive(Debug, Default)]
pub struct Sstf {
    queue: BTreeMap<(u32, u64), RequestId>,
    seq: u64,
}

/// `sstf` takes no parameters.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SstfParams {}

impl DiskScheduler for Sstf {
    fn enqueue(&mut self, r: QueuedRequest) {
        self.queue.insert((r.cylinder, self.seq), r.id);
        self.seq += 1;
    }

    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        let h = head.cylinder;
        let above = self.queue.range((h, 0)..).next().map(|(k, _)| *k);
        let below = self
            .queue
            .range(..(h, 0))
            .next_back()
            .map(|(&(c, _), _)| c)
            .and_then(|c| self.queue.range((c, 0)..).next().map(|(k, _)| *k));
        let key = match (below, above) {
            (Some(b), Some(a)) => {
                if h - b.0 <= a.0 - h {
                    b
                } else {
                    a
                }
            }
            (Some(k), None) | (None, Some(k)) => k,
            (None, None) => return None,
        };
        self.queue.remove(&key)
    }

    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for Sstf {
    type Kind = dyn DiskScheduler;
    type Params = SstfParams;
    const NAME: &'static str = "sstf";
    const DESCRIPTION: &'static str = "shortest seek time first (example third-party plugin)";

    fn build(_: &SstfParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(Sstf::default()))
    }
}

// The C ABI's one symbol, for `vodbench --plugin libvodbench_sstf_example.so`.
vodbench_plugin_api::export_plugins!(Sstf);

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

    #[test]
    fn serves_the_nearest_cylinder_first() {
        let mut s = Sstf::default();
        for (id, c) in [(1, 100), (2, 45), (3, 60), (4, 45)] {
            s.enqueue(req(id, c));
        }
        let mut head = 50;
        let mut order = Vec::new();
        while let Some(RequestId(id)) = s.dequeue(&HeadState {
            now: SimTime::ZERO,
            cylinder: head,
            cylinders: 200,
        }) {
            head = [0, 100, 45, 60, 45][id as usize];
            order.push(id);
        }
        // 45 (oldest of the two), 45, then 60, then 100
        assert_eq!(order, vec![2, 4, 3, 1]);
        assert_eq!(s.len(), 0);
    }
}
