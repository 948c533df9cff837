//! `fine-striped`: fine-grained striping, every block split across all the disks of its
//! node (Wu et al. §3.2, Fig. 3, "multi-disk single-bus", configuration 2: "the file is
//! striped … the scheduler issues a read command for each disk to send the required portion
//! of the block").
//!
//! With N nodes of Dn disks, block i of a video goes to node (s + i) mod N, where s is the
//! video's starting node (v mod N with `stagger`, else 0), and is split into Dn pieces:
//! piece j on the node's disk j. Every piece slot is `⌈block / Dn⌉` bytes; the pieces of a
//! video's blocks on one node lie back to back on each of its disks, videos one after the
//! other. The engine issues a block's pieces together and counts the block read when its last
//! piece is ([`Layout::pieces`]); with a SCSI bus (`[server.bus]`) the disks position in
//! parallel and take turns on the bus, the overlap Wu's D2 = 0 assumes. Each piece is a disk
//! access of its own: it costs the node's CPU a `start_io` (a command per disk, as Wu's
//! scheduler issues), and the disks' request counts and I/O times are per piece. Read-ahead
//! of the next block on the same disk is the next block on the same node (i + N).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::{BlockId, DiskId, NodeId};
use vodbench_plugin_api::plugin::{BuildContext, Layout, Location, Plugin, PluginError};

/// Parameters of `fine-striped`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FineStripedParams {
    /// Start video v on node v mod N, spreading first blocks over the nodes (default true).
    pub stagger: bool,
}

impl Default for FineStripedParams {
    fn default() -> Self {
        FineStripedParams { stagger: true }
    }
}

/// Fine-grained striping: blocks over nodes, each block's pieces over the node's disks.
#[derive(Debug)]
pub struct FineStriped {
    nodes: u32,
    disks_per_node: u32,
    /// Bytes of one piece slot.
    piece: u64,
    stagger: bool,
    /// `base[v * N + n]`: byte address of video v's pieces on each disk of node n.
    base: Vec<u64>,
}

impl FineStriped {
    fn node_of(&self, b: BlockId) -> u32 {
        let s = if self.stagger {
            b.video.0 % self.nodes
        } else {
            0
        };
        ((u64::from(s) + u64::from(b.index)) % u64::from(self.nodes)) as u32
    }
}

impl Layout for FineStriped {
    fn locate(&self, b: BlockId) -> Location {
        self.locate_piece(b, 0)
    }

    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        Some(BlockId {
            index: b.index.checked_add(self.nodes)?,
            ..b
        })
    }

    fn pieces(&self) -> u32 {
        self.disks_per_node
    }

    fn locate_piece(&self, b: BlockId, piece: u32) -> Location {
        let node = self.node_of(b);
        let slot = u64::from(b.index / self.nodes);
        Location {
            node: NodeId(node),
            disk: DiskId(node * self.disks_per_node + piece.min(self.disks_per_node - 1)),
            offset: self.base[b.video.index() * self.nodes as usize + node as usize]
                + slot * self.piece,
        }
    }
}

impl Plugin for FineStriped {
    type Kind = dyn Layout;
    type Params = FineStripedParams;
    const NAME: &'static str = "fine-striped";
    const DESCRIPTION: &'static str =
        "every block split across all disks of its node, pieces read together (Wu Fig. 3)";

    fn build(
        p: &FineStripedParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn Layout>, PluginError> {
        let nodes = ctx.nodes.max(1);
        let dn = ctx.disks_per_node.max(1);
        let piece = ctx.block_bytes.div_ceil(u64::from(dn));
        let mut l = FineStriped {
            nodes,
            disks_per_node: dn,
            piece,
            stagger: p.stagger,
            base: Vec::with_capacity(ctx.video_blocks.len() * nodes as usize),
        };
        let mut used = vec![0u64; nodes as usize];
        for (v, &blocks) in ctx.video_blocks.iter().enumerate() {
            let s = if p.stagger { v as u32 % nodes } else { 0 };
            for (n, u) in used.iter_mut().enumerate() {
                // blocks i with (s + i) mod N == n
                let first = (n as u32 + nodes - s) % nodes;
                let count = if blocks > first {
                    (blocks - first).div_ceil(nodes)
                } else {
                    0
                };
                l.base.push(*u);
                *u += u64::from(count) * piece;
            }
        }
        for (n, u) in used.iter().enumerate() {
            super::check_fits(ctx, n as u32 * dn, *u)?;
        }
        Ok(Box::new(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::VideoId;

    fn fine(nodes: u32, disks_per_node: u32, videos: &[u32]) -> Box<dyn Layout> {
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
        FineStriped::build(&FineStripedParams { stagger: true }, &ctx).unwrap()
    }

    fn block(video: u32, index: u32) -> BlockId {
        BlockId {
            video: VideoId(video),
            index,
        }
    }

    #[test]
    fn every_block_is_split_over_the_disks_of_its_node() {
        // one node of 4 disks (Wu's configuration 2): pieces of 250 bytes, piece j on disk j
        let l = fine(1, 4, &[3, 2]);
        assert_eq!(l.pieces(), 4);
        let at = |v, i, j| {
            let x = l.locate_piece(block(v, i), j);
            (x.node.0, x.disk.0, x.offset)
        };
        assert_eq!(at(0, 0, 0), (0, 0, 0));
        assert_eq!(at(0, 0, 3), (0, 3, 0));
        assert_eq!(at(0, 2, 1), (0, 1, 500));
        // video 1 after video 0's three slots
        assert_eq!(at(1, 0, 2), (0, 2, 750));
        assert_eq!(l.locate(block(1, 1)), l.locate_piece(block(1, 1), 0));
        assert_eq!(l.next_on_same_disk(block(0, 1)), Some(block(0, 2)));
    }

    #[test]
    fn blocks_go_round_the_nodes() {
        // 2 nodes of 2 disks, staggered: video 1 starts on node 1
        let l = fine(2, 2, &[4, 4]);
        let at = |v, i, j| {
            let x = l.locate_piece(block(v, i), j);
            (x.node.0, x.disk.0, x.offset)
        };
        assert_eq!(at(0, 0, 1), (0, 1, 0));
        assert_eq!(at(0, 1, 0), (1, 2, 0));
        assert_eq!(at(0, 2, 0), (0, 0, 500));
        assert_eq!(at(1, 0, 0), (1, 2, 1000));
        assert_eq!(at(1, 1, 1), (0, 1, 1000));
        assert_eq!(l.next_on_same_disk(block(0, 1)), Some(block(0, 3)));
    }
}
