//! `striped`: full striping, node then disk (SPIFFI §5.2, Fig. 3). With N nodes of Dn disks
//! (D = N·Dn in all), block i of a video goes to stripe position p = (s + i) mod D, where s is
//! the video's starting position (v mod D with `stagger`, else 0); position p is node p mod N,
//! local disk p / N. So block 0 is on node 0 disk 0, block 1 on node 1 disk 0, and so on.
//! The blocks of a video on one disk form a contiguous *fragment*; fragments of successive
//! videos lie back to back from the start of each disk.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_harness::ids::{BlockId, DiskId, NodeId};
use vodbench_harness::plugin::{BuildContext, Layout, Location, Plugin, PluginError};

/// Parameters of `striped`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StripedParams {
    /// Start video v on stripe position v mod D, spreading first blocks over all disks (default true).
    pub stagger: bool,
}

impl Default for StripedParams {
    fn default() -> Self {
        StripedParams { stagger: true }
    }
}

/// Node-then-disk striping.
#[derive(Debug)]
pub struct Striped {
    nodes: u32,
    disks_per_node: u32,
    disks: u32,
    block: u64,
    stagger: bool,
    /// `base[v * D + d]`: byte address of video v's fragment on disk d.
    base: Vec<u64>,
}

impl Striped {
    fn position(&self, b: BlockId) -> u32 {
        let s = if self.stagger {
            b.video.0 % self.disks
        } else {
            0
        };
        ((u64::from(s) + u64::from(b.index)) % u64::from(self.disks)) as u32
    }

    fn disk_of_position(&self, p: u32) -> (u32, u32) {
        let node = p % self.nodes;
        (node, node * self.disks_per_node + p / self.nodes)
    }
}

impl Layout for Striped {
    fn locate(&self, b: BlockId) -> Location {
        let (node, disk) = self.disk_of_position(self.position(b));
        let frag = u64::from(b.index / self.disks);
        Location {
            node: NodeId(node),
            disk: DiskId(disk),
            offset: self.base[b.video.index() * self.disks as usize + disk as usize]
                + frag * self.block,
        }
    }

    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        Some(BlockId {
            index: b.index.checked_add(self.disks)?,
            ..b
        })
    }
}

impl Plugin for Striped {
    type Kind = dyn Layout;
    type Params = StripedParams;
    const NAME: &'static str = "striped";
    const DESCRIPTION: &'static str =
        "every video striped over all disks, node then disk (SPIFFI Fig. 3)";

    fn build(p: &StripedParams, ctx: &BuildContext<'_>) -> Result<Box<dyn Layout>, PluginError> {
        let disks = ctx.disks();
        let mut l = Striped {
            nodes: ctx.nodes,
            disks_per_node: ctx.disks_per_node,
            disks,
            block: ctx.block_bytes,
            stagger: p.stagger,
            base: Vec::with_capacity(ctx.video_blocks.len() * disks as usize),
        };
        let mut used = vec![0u64; disks as usize];
        for (v, &blocks) in ctx.video_blocks.iter().enumerate() {
            let s = if p.stagger { v as u32 % disks } else { 0 };
            let mut frag = vec![0u64; disks as usize];
            for pos in 0..disks {
                // blocks i with (s + i) mod D == pos: i ≡ pos - s (mod D)
                let first = (pos + disks - s) % disks;
                let count = if blocks > first {
                    (blocks - first).div_ceil(disks)
                } else {
                    0
                };
                let (_, disk) = l.disk_of_position(pos);
                frag[disk as usize] = u64::from(count) * ctx.block_bytes;
            }
            for d in 0..disks as usize {
                l.base.push(used[d]);
                used[d] += frag[d];
            }
        }
        for (d, u) in used.iter().enumerate() {
            super::check_fits(ctx, d as u32, *u)?;
        }
        Ok(Box::new(l))
    }
}
