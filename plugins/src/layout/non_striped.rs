//! `non-striped`: each video stored whole on one disk (SPIFFI §7.4, the layout striping is
//! compared against). With `balanced-random` (default) videos are dealt to disks in a random
//! order from the layout's own stream, so every disk holds the same number of videos (±1) —
//! SPIFFI's "each video on a single, randomly chosen disk and each disk held exactly 4
//! videos"; with `round-robin`, video v is on disk v mod D. Videos on a disk lie back to back.
//! Reads are still one stripe block each, so read-ahead continues with the next block.

use rand::seq::SliceRandom;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::{BlockId, DiskId, NodeId};
use vodbench_plugin_api::plugin::{BuildContext, Layout, Location, Plugin, PluginError};

/// How videos are assigned to disks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Assignment {
    /// A random permutation dealt round-robin: equal counts, random placement.
    #[default]
    BalancedRandom,
    /// Video v on disk v mod D.
    RoundRobin,
}

/// Parameters of `non-striped`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NonStripedParams {
    /// `balanced-random` (default) or `round-robin`.
    pub assignment: Assignment,
}

/// One disk per video.
#[derive(Debug)]
pub struct NonStriped {
    disks_per_node: u32,
    block: u64,
    /// (disk, base address) per video.
    place: Vec<(u32, u64)>,
}

impl Layout for NonStriped {
    fn locate(&self, b: BlockId) -> Location {
        let (disk, base) = self.place[b.video.index()];
        Location {
            node: NodeId(disk / self.disks_per_node),
            disk: DiskId(disk),
            offset: base + u64::from(b.index) * self.block,
        }
    }

    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        Some(BlockId {
            index: b.index.checked_add(1)?,
            ..b
        })
    }
}

impl Plugin for NonStriped {
    type Kind = dyn Layout;
    type Params = NonStripedParams;
    const NAME: &'static str = "non-striped";
    const DESCRIPTION: &'static str =
        "each video whole on one disk, balanced random or round-robin (SPIFFI §7.4)";

    fn build(p: &NonStripedParams, ctx: &BuildContext<'_>) -> Result<Box<dyn Layout>, PluginError> {
        let disks = ctx.disks();
        let n = ctx.video_blocks.len();
        let mut order: Vec<usize> = (0..n).collect();
        if p.assignment == Assignment::BalancedRandom {
            order.shuffle(&mut ctx.rng());
        }
        let mut disk_of = vec![0u32; n];
        for (slot, &v) in order.iter().enumerate() {
            disk_of[v] = (slot as u64 % u64::from(disks)) as u32;
        }
        let mut used = vec![0u64; disks as usize];
        let mut place = Vec::with_capacity(n);
        for (v, &blocks) in ctx.video_blocks.iter().enumerate() {
            let d = disk_of[v];
            place.push((d, used[d as usize]));
            used[d as usize] += u64::from(blocks) * ctx.block_bytes;
        }
        for (d, u) in used.iter().enumerate() {
            super::check_fits(ctx, d as u32, *u)?;
        }
        Ok(Box::new(NonStriped {
            disks_per_node: ctx.disks_per_node,
            block: ctx.block_bytes,
            place,
        }))
    }
}
