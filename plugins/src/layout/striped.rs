//! `striped`: full striping, node then disk (SPIFFI §5.2, Fig. 3). With N nodes of Dn disks
//! (D = N·Dn in all), block i of a video goes to stripe position p = (s + i) mod D, where s is
//! the video's starting position (v mod D with `stagger`, else 0); position p is node p mod N,
//! local disk p / N. So block 0 is on node 0 disk 0, block 1 on node 1 disk 0, and so on.
//! The blocks of a video on one disk form a contiguous *fragment*; fragments of successive
//! videos lie back to back from the start of each disk.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::{BlockId, DiskId, NodeId};
use vodbench_plugin_api::plugin::{BuildContext, Layout, Location, Plugin, PluginError};

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
    nodes: Divisor,
    disks_per_node: u32,
    disks: Divisor,
    block: u64,
    stagger: bool,
    /// `base[v * D + d]`: byte address of video v's fragment on disk d.
    base: Vec<u64>,
}

/// Division by a fixed count, by shifting and masking when it is a power of two (SPIFFI's
/// 4 nodes of 4, 8 or 16 disks): `locate` runs for every reference and prefetch, and its
/// four divisions were 5 % of a search's time.
#[derive(Debug, Clone, Copy)]
struct Divisor {
    n: u64,
    /// `log2(n)` when `n` is a power of two.
    shift: Option<u32>,
}

impl Divisor {
    fn new(n: u32) -> Self {
        Divisor {
            n: u64::from(n),
            shift: n.is_power_of_two().then(|| n.trailing_zeros()),
        }
    }

    #[inline]
    fn div(self, x: u64) -> u64 {
        match self.shift {
            Some(k) => x >> k,
            None => x / self.n,
        }
    }

    #[inline]
    fn rem(self, x: u64) -> u64 {
        match self.shift {
            Some(_) => x & (self.n - 1),
            None => x % self.n,
        }
    }
}

impl Striped {
    fn position(&self, b: BlockId) -> u32 {
        let s = if self.stagger {
            self.disks.rem(u64::from(b.video.0))
        } else {
            0
        };
        self.disks.rem(s + u64::from(b.index)) as u32
    }

    fn disk_of_position(&self, p: u32) -> (u32, u32) {
        let node = self.nodes.rem(u64::from(p)) as u32;
        (
            node,
            node * self.disks_per_node + self.nodes.div(u64::from(p)) as u32,
        )
    }
}

impl Layout for Striped {
    fn locate(&self, b: BlockId) -> Location {
        let (node, disk) = self.disk_of_position(self.position(b));
        let frag = self.disks.div(u64::from(b.index));
        Location {
            node: NodeId(node),
            disk: DiskId(disk),
            offset: self.base[b.video.index() * self.disks.n as usize + disk as usize]
                + frag * self.block,
        }
    }

    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        Some(BlockId {
            index: b.index.checked_add(self.disks.n as u32)?,
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
            nodes: Divisor::new(ctx.nodes),
            disks_per_node: ctx.disks_per_node,
            disks: Divisor::new(disks),
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

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::VideoId;

    fn striped(nodes: u32, disks_per_node: u32, stagger: bool, videos: &[u32]) -> Box<dyn Layout> {
        let ctx = BuildContext::new(1, "layout", 0, std::path::Path::new("."))
            .with_nodes(nodes)
            .with_disks_per_node(disks_per_node)
            .with_terminals(1)
            .with_block_bytes(1000)
            .with_video_blocks(videos)
            .with_geometry(Some(vodbench_plugin_api::plugin::DiskGeometry {
                capacity_bytes: 1 << 30,
                cylinders: 100,
            }));
        Striped::build(&StripedParams { stagger }, &ctx).unwrap()
    }

    fn block(video: u32, index: u32) -> BlockId {
        BlockId {
            video: VideoId(video),
            index,
        }
    }

    #[test]
    fn node_then_disk_as_in_fig_3() {
        // 2 nodes of 2 disks: A.0 node 0 disk 0, A.1 node 1 disk 0, A.2 node 0 disk 1, ...
        let l = striped(2, 2, false, &[8, 8]);
        let at = |v, i| {
            let x = l.locate(block(v, i));
            (x.node.0, x.disk.0, x.offset)
        };
        assert_eq!(at(0, 0), (0, 0, 0));
        assert_eq!(at(0, 1), (1, 2, 0));
        assert_eq!(at(0, 2), (0, 1, 0));
        assert_eq!(at(0, 3), (1, 3, 0));
        // the fragment on one disk is contiguous; the next video's follows it
        assert_eq!(at(0, 4), (0, 0, 1000));
        assert_eq!(at(1, 0), (0, 0, 2000));
    }

    #[test]
    fn every_shape_places_blocks_as_the_formula_says_and_fragments_are_contiguous() {
        // the formula with plain division, over counts that are and are not powers of two
        for nodes in 1..=5u32 {
            for dpn in [1, 2, 3, 4, 6, 8, 16] {
                for stagger in [false, true] {
                    let videos = [7, 40, 1, 33];
                    let l = striped(nodes, dpn, stagger, &videos);
                    let d = nodes * dpn;
                    let mut next = vec![None; d as usize];
                    for (v, &n) in videos.iter().enumerate() {
                        let s = if stagger { v as u32 % d } else { 0 };
                        for i in 0..n {
                            let p = (s + i) % d;
                            let x = l.locate(block(v as u32, i));
                            assert_eq!(x.node.0, p % nodes, "{nodes} {dpn} {stagger} {v} {i}");
                            assert_eq!(x.disk.0, (p % nodes) * dpn + p / nodes);
                            let slot = &mut next[x.disk.0 as usize];
                            if let Some(o) = *slot {
                                assert_eq!(x.offset, o, "contiguous on disk {}", x.disk.0);
                            }
                            *slot = Some(x.offset + 1000);
                            assert_eq!(
                                l.next_on_same_disk(block(v as u32, i)),
                                Some(block(v as u32, i + d))
                            );
                        }
                    }
                }
            }
        }
    }
}
