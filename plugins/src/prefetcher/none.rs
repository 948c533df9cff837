//! `none`: no read-ahead; every block is read when a terminal asks for it.

use vodbench_plugin_api::ids::DiskId;
use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    BuildContext, Layout, Plugin, PluginError, PrefetchPoll, Prefetcher, Reference,
};
use vodbench_plugin_api::time::SimTime;

/// Never prefetches.
#[derive(Debug, Default)]
pub struct NoPrefetch;

impl Prefetcher for NoPrefetch {
    fn on_reference(&mut self, _r: &Reference, _l: &dyn Layout) -> Option<DiskId> {
        None
    }
    fn poll(&mut self, _d: DiskId, _in_flight: u32, _now: SimTime) -> PrefetchPoll {
        PrefetchPoll::Idle
    }
}

impl Plugin for NoPrefetch {
    type Kind = dyn Prefetcher;
    type Params = NoParams;
    const NAME: &'static str = "none";
    const DESCRIPTION: &'static str = "no read-ahead";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn Prefetcher>, PluginError> {
        Ok(Box::new(NoPrefetch))
    }
}
