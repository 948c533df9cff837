//! `optimum`: Belady's optimal cache replacement (Waldvogel et al. §II, §VI).
//!
//! Evicts the single cached frame with the most distant playout: the fewest frames ever go to
//! disk, but every frame written or read costs its own access (one seek per frame), which is
//! why the paper finds it far from optimal in disk time.

use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{BuildContext, CacheView, ClientBuffer, Plugin, PluginError};

/// The `optimum` policy.
#[derive(Debug, Clone, Copy, Default)]
pub struct Optimum;

impl ClientBuffer for Optimum {
    fn batch_frames(&self) -> u32 {
        1
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        out.extend(cache.evictable_rev().take(1));
    }
}

impl Plugin for Optimum {
    type Kind = dyn ClientBuffer;
    type Params = NoParams;
    const NAME: &'static str = "optimum";
    const DESCRIPTION: &'static str =
        "Belady: evict the single most distant frame (fewest frames to disk, one seek each)";

    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn ClientBuffer>, PluginError> {
        Ok(Box::new(Optimum))
    }
}
