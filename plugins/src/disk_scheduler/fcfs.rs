//! `fcfs`: first come, first served — the baseline every other scheduler is measured against
//! (and DiskSim's default queueing).

use std::collections::VecDeque;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest,
};

/// Serves requests in arrival order.
#[derive(Debug, Default)]
pub struct Fcfs {
    queue: VecDeque<RequestId>,
}

impl DiskScheduler for Fcfs {
    fn enqueue(&mut self, r: QueuedRequest) {
        self.queue.push_back(r.id);
    }
    fn dequeue(&mut self, _head: &HeadState) -> Option<RequestId> {
        self.queue.pop_front()
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for Fcfs {
    type Kind = dyn DiskScheduler;
    type Params = NoParams;
    const NAME: &'static str = "fcfs";
    const DESCRIPTION: &'static str = "first come, first served";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(Fcfs::default()))
    }
}
