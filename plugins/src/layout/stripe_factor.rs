//! `stripe-factor`: every video striped round-robin over `factor` consecutive disks (Jadav et
//! al. §3.2 and §6's RDSS: an object's fragments on S of the storage nodes, S the stripe
//! factor), not over all of them as `striped` does.
//!
//! Disk positions are numbered node first, as in `striped`: position p is node p mod N, local
//! disk p / N, so consecutive positions are different nodes (with one disk per node, position
//! = node). Video v starts at position (v·S) mod D (`start = "round-robin"`, the reading of
//! `../shared/papers/notes/jadav.md` §4.6: balanced whenever gcd(S, D) = 1, and six disjoint
//! groups for 24 nodes and S = 4) or at a position drawn from the layout's own random stream
//! (`"random"`); its block i is on position (start + i) mod D.
//!
//! Where a block lies on its disk: `placement = "random"` (default) scatters the blocks over
//! the whole disk, as the paper's simulated disks placed them ("random placement", §5,
//! [KJ+84]): the k-th block a disk holds goes to block slot π(k) of the disk, π a
//! pseudo-random permutation of the disk's slots keyed by the seed (a four-round Feistel
//! network with cycle walking), so no two blocks share a slot and nothing per block is
//! stored; `"contiguous"` lays a video's blocks on a disk back to back, videos one after
//! another (slot k), as `striped` does. Either way the blocks a disk holds must fit on it.
//! Read-ahead continues with block i + S.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::{BlockId, DiskId, NodeId};
use vodbench_plugin_api::plugin::{BuildContext, Layout, Location, Plugin, PluginError};
use vodbench_plugin_api::rng::{mix64, stream_seed};

/// Where each video's first block goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Start {
    /// Video v at position (v · factor) mod D.
    #[default]
    RoundRobin,
    /// A position drawn from the layout's random stream, video by video.
    Random,
}

/// Where a block lies on its disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// A uniformly random block-aligned offset over the disk, block by block.
    #[default]
    Random,
    /// A video's blocks on a disk back to back, videos one after another.
    Contiguous,
}

/// Parameters of `stripe-factor`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StripeFactorParams {
    /// Disks each video is striped over, 1..=all disks (Jadav's stripe factor S; default:
    /// all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factor: Option<u32>,
    /// `round-robin` (default) or `random`.
    #[serde(default)]
    pub start: Start,
    /// `random` (default) or `contiguous`.
    #[serde(default)]
    pub placement: Placement,
}

/// Striping over `factor` disks per video.
#[derive(Debug)]
pub struct StripeFactor {
    factor: u32,
    nodes: u32,
    disks_per_node: u32,
    disks: u32,
    block: u64,
    /// Each video's first position.
    start: Vec<u32>,
    /// `base[v * factor + j]`: the slot of video v's first block on its j-th disk, counting
    /// the blocks that disk holds in order.
    base: Vec<u64>,
    /// `random`: the permutation of each disk's block slots.
    shuffle: Option<Permutation>,
}

impl StripeFactor {
    /// (node, disk) of position `p`.
    fn disk_of_position(&self, p: u32) -> (u32, u32) {
        let node = p % self.nodes;
        (node, node * self.disks_per_node + p / self.nodes)
    }
}

impl Layout for StripeFactor {
    fn locate(&self, b: BlockId) -> Location {
        let v = b.video.index();
        let j = b.index % self.factor;
        let p = ((u64::from(self.start[v]) + u64::from(j)) % u64::from(self.disks)) as u32;
        let (node, disk) = self.disk_of_position(p);
        let k = self.base[v * self.factor as usize + j as usize] + u64::from(b.index / self.factor);
        let slot = match &self.shuffle {
            Some(p) => p.apply(k, u64::from(disk)),
            None => k,
        };
        let offset = slot * self.block;
        Location {
            node: NodeId(node),
            disk: DiskId(disk),
            offset,
        }
    }

    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        Some(BlockId {
            index: b.index.checked_add(self.factor)?,
            ..b
        })
    }
}

impl Plugin for StripeFactor {
    type Kind = dyn Layout;
    type Params = StripeFactorParams;
    const NAME: &'static str = "stripe-factor";
    const DESCRIPTION: &'static str =
        "every video striped round-robin over `factor` disks, blocks \
         at random offsets or contiguous (Jadav et al.'s RDSS, stripe factor S)";

    fn build(
        p: &StripeFactorParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn Layout>, PluginError> {
        let disks = ctx.disks();
        let factor = p.factor.unwrap_or(disks);
        if !(1..=disks).contains(&factor) {
            return Err(PluginError::param(
                "factor",
                format!(
                    "must be in 1..={disks} (the disks there are: {} nodes × {} per node), got {}",
                    ctx.nodes, ctx.disks_per_node, factor
                ),
            ));
        }
        let cap = ctx
            .geometry
            .map(|g| g.capacity_bytes)
            .ok_or_else(|| PluginError::Build("layout built without a disk geometry".into()))?;
        let block = ctx.block_bytes.max(1);
        let n = ctx.video_blocks.len();
        let mut rng = ctx.rng();
        let start: Vec<u32> = (0..n)
            .map(|v| match p.start {
                Start::RoundRobin => ((v as u64 * u64::from(factor)) % u64::from(disks)) as u32,
                Start::Random => rand::Rng::random_range(&mut rng, 0..disks),
            })
            .collect();
        let mut l = StripeFactor {
            factor,
            nodes: ctx.nodes,
            disks_per_node: ctx.disks_per_node,
            disks,
            block,
            start,
            base: Vec::with_capacity(n * factor as usize),
            shuffle: (p.placement == Placement::Random).then(|| Permutation {
                slots: (cap / block).max(1),
                key: stream_seed(ctx.seed, "layout.stripe-factor", 0),
            }),
        };
        // the blocks each disk holds, which must fit on it, whatever the placement
        let mut used = vec![0u64; disks as usize];
        for (v, &blocks) in ctx.video_blocks.iter().enumerate() {
            for j in 0..factor {
                let count = if blocks > j {
                    u64::from((blocks - j).div_ceil(factor))
                } else {
                    0
                };
                let pos = ((u64::from(l.start[v]) + u64::from(j)) % u64::from(disks)) as u32;
                let (_, d) = l.disk_of_position(pos);
                l.base.push(used[d as usize] / block);
                used[d as usize] += count * block;
            }
        }
        for (d, u) in used.iter().enumerate() {
            super::check_fits(ctx, d as u32, *u)?;
        }
        Ok(Box::new(l))
    }
}

/// A pseudo-random permutation of `0..slots`, one per disk: a four-round Feistel network over
/// the smallest even number of bits that holds `slots`, walked until it lands inside (each
/// step is a bijection of the larger domain, so the walk is one of `0..slots`).
#[derive(Debug, Clone, Copy)]
struct Permutation {
    slots: u64,
    key: u64,
}

impl Permutation {
    fn apply(&self, k: u64, disk: u64) -> u64 {
        debug_assert!(k < self.slots);
        let bits = (64 - (self.slots - 1).max(1).leading_zeros())
            .div_ceil(2)
            .max(1);
        let mask = (1u64 << bits) - 1;
        let mut x = k;
        loop {
            let (mut l, mut r) = (x >> bits, x & mask);
            for round in 0..4u64 {
                let f = mix64(self.key ^ mix64(disk << 8 | round) ^ r) & mask;
                (l, r) = (r, l ^ f);
            }
            x = l << bits | r;
            if x < self.slots {
                return x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::VideoId;
    use vodbench_plugin_api::plugin::DiskGeometry;

    fn build(
        factor: u32,
        nodes: u32,
        disks_per_node: u32,
        placement: Placement,
        blocks: &[u32],
    ) -> Result<Box<dyn Layout>, PluginError> {
        let ctx = BuildContext::new(1, "layout", 0, std::path::Path::new("."))
            .with_nodes(nodes)
            .with_disks_per_node(disks_per_node)
            .with_terminals(1)
            .with_block_bytes(65_536)
            .with_video_blocks(blocks)
            .with_geometry(Some(DiskGeometry {
                capacity_bytes: 1 << 30,
                cylinders: 1000,
            }))
            .with_pages(16);
        StripeFactor::build(
            &StripeFactorParams {
                factor: Some(factor),
                start: Start::RoundRobin,
                placement,
            },
            &ctx,
        )
    }

    fn at(l: &dyn Layout, v: u32, i: u32) -> Location {
        l.locate(BlockId {
            video: VideoId(v),
            index: i,
        })
    }

    /// 35 nodes, S = 4 (Jadav Figs. 4–6): video v on nodes 4v … 4v+3 mod 35, block i on
    /// node (4v + i) mod 35; every node holds the same number of blocks of 35 videos.
    #[test]
    fn each_video_on_factor_consecutive_nodes_from_v_times_factor() {
        let blocks = vec![100u32; 35];
        for placement in [Placement::Random, Placement::Contiguous] {
            let l = build(4, 35, 1, placement, &blocks).unwrap();
            for v in 0..35u32 {
                for i in 0..100u32 {
                    let loc = at(l.as_ref(), v, i);
                    assert_eq!(loc.node.0, (4 * v + i % 4) % 35, "{v} {i}");
                    assert_eq!(loc.disk.0, loc.node.0);
                    assert_eq!(loc.offset % 65_536, 0);
                }
            }
            let mut per_node = [0u32; 35];
            for v in 0..35u32 {
                for i in 0..100u32 {
                    per_node[at(l.as_ref(), v, i).node.index()] += 1;
                }
            }
            assert!(per_node.iter().all(|&c| c == 100), "{per_node:?}");
            let b = BlockId {
                video: VideoId(3),
                index: 5,
            };
            assert_eq!(l.next_on_same_disk(b).unwrap().index, 9);
        }
    }

    #[test]
    fn contiguous_blocks_of_a_video_on_a_disk_lie_back_to_back_random_ones_spread() {
        let blocks = vec![40u32, 40];
        let l = build(2, 4, 1, Placement::Contiguous, &blocks).unwrap();
        // video 0 on disks 0, 1; video 1 on disks 2, 3
        assert_eq!(at(l.as_ref(), 0, 0).offset, 0);
        assert_eq!(at(l.as_ref(), 0, 2).offset, 65_536);
        assert_eq!(at(l.as_ref(), 0, 3).offset, 65_536);
        assert_eq!(at(l.as_ref(), 1, 0).disk.0, 2);
        let r = build(2, 4, 1, Placement::Random, &blocks).unwrap();
        let offsets: std::collections::BTreeSet<u64> =
            (0..40).map(|i| at(r.as_ref(), 0, i).offset).collect();
        assert!(
            offsets.len() >= 38,
            "random offsets collide rarely: {offsets:?}"
        );
        let mean = offsets.iter().map(|o| *o as f64).sum::<f64>() / offsets.len() as f64;
        let half = (1u64 << 29) as f64;
        assert!(
            (mean - half).abs() < 0.25 * half,
            "{mean} over a 1 GiB disk"
        );
        // the same every time: hashed from the seed, the video and the block
        let again = build(2, 4, 1, Placement::Random, &blocks).unwrap();
        assert_eq!(at(r.as_ref(), 1, 7), at(again.as_ref(), 1, 7));
    }

    #[test]
    fn random_placement_is_a_permutation_of_each_disks_slots() {
        for slots in [1u64, 2, 7, 1000, 4099] {
            for disk in 0..3 {
                let p = Permutation { slots, key: 42 };
                let image: std::collections::BTreeSet<u64> =
                    (0..slots).map(|k| p.apply(k, disk)).collect();
                assert_eq!(image.len() as u64, slots, "{slots} {disk}");
                assert!(image.iter().all(|&x| x < slots));
            }
        }
        // scattered: the first blocks of a 4099-slot disk are not in order
        let p = Permutation {
            slots: 4099,
            key: 42,
        };
        let first: Vec<u64> = (0..8).map(|k| p.apply(k, 0)).collect();
        assert!(first.windows(2).any(|w| w[0] > w[1]), "{first:?}");
    }

    #[test]
    fn several_disks_per_node_are_numbered_node_first() {
        let l = build(3, 2, 2, Placement::Contiguous, &[10]).unwrap();
        // positions 0, 1, 2 = node 0 disk 0, node 1 disk 2, node 0 disk 1
        let disks: Vec<(u32, u32)> = (0..3)
            .map(|i| {
                let loc = at(l.as_ref(), 0, i);
                (loc.node.0, loc.disk.0)
            })
            .collect();
        assert_eq!(disks, vec![(0, 0), (1, 2), (0, 1)]);
    }

    #[test]
    fn a_factor_beyond_the_disks_or_data_beyond_a_disk_is_refused() {
        let e = build(5, 4, 1, Placement::Random, &[10]).err().unwrap();
        assert!(e.to_string().contains("must be in 1..=4"), "{e}");
        assert!(build(0, 4, 1, Placement::Random, &[10]).is_err());
        // 20,000 blocks of 64 KiB on one disk of 1 GiB: too many
        let e = build(1, 1, 1, Placement::Random, &[20_000]).err().unwrap();
        assert!(e.to_string().contains("on disk 0"), "{e}");
    }
}
