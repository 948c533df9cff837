//! `mdp`: Most Distant Playout replacement (Waldvogel et al. §V-B).
//!
//! When the cache is full, the κ cached frames with the most distant playout (the highest
//! frame numbers) are written to disk as one chunk, amortising one seek over κ frames; the
//! chunk is read back whole when its earliest frame is due. Some frames cycle between memory
//! and disk more than once — MDP trades extra transfers for fewer seeks.

use super::BatchParams;
use vodbench_plugin_api::plugin::{BuildContext, CacheView, ClientBuffer, Plugin, PluginError};

/// The `mdp` policy.
#[derive(Debug, Clone)]
pub struct Mdp {
    kappa: u32,
}

impl Mdp {
    /// MDP writing `kappa` frames per batch.
    pub fn new(kappa: u32) -> Self {
        Mdp {
            kappa: kappa.max(1),
        }
    }
}

impl ClientBuffer for Mdp {
    fn batch_frames(&self) -> u32 {
        self.kappa
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        out.extend(cache.evictable_rev().take(self.kappa as usize));
    }
}

impl Plugin for Mdp {
    type Kind = dyn ClientBuffer;
    type Params = BatchParams;
    const NAME: &'static str = "mdp";
    const DESCRIPTION: &'static str =
        "write the κ most-distant-playout frames as one chunk; read it back when its first frame is due";

    fn validate(p: &BatchParams) -> Result<(), PluginError> {
        p.check()
    }

    fn build(
        p: &BatchParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn ClientBuffer>, PluginError> {
        Ok(Box::new(Mdp::new(p.frames(ctx)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_highest_unpinned_frames() {
        let words = [0b1111_0110_1100u64];
        let view = CacheView::new(&words, 8, 8, Some(3));
        let mut out = Vec::new();
        Mdp::new(3).choose_victims(&view, &mut out);
        assert_eq!(out, [11, 10, 9]);
    }
}
