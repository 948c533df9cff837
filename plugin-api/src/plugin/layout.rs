use crate::ids::{BlockId, DiskId, NodeId};

/// Where one stripe block lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The node that owns the disk.
    pub node: NodeId,
    /// The disk, numbered globally (`node * disks_per_node + local`).
    pub disk: DiskId,
    /// Byte address of the block's first byte on that disk.
    pub offset: u64,
}

/// Data layout: maps every stripe block of every video to a disk address (SPIFFI §5.2, Fig. 3).
///
/// Built once per run from the server shape and the video sizes
/// ([`BuildContext`](super::BuildContext)); must be a pure function of them (and its random
/// stream). Two blocks never share a byte range on the same disk.
///
/// ```
/// use vodbench_plugin_api::ids::{BlockId, DiskId, NodeId};
/// use vodbench_plugin_api::plugin::{Layout, Location};
///
/// /// Everything on disk 0 of node 0, videos back to back (1000 blocks each).
/// struct OneDisk { block: u64 }
/// impl Layout for OneDisk {
///     fn locate(&self, b: BlockId) -> Location {
///         let n = u64::from(b.video.0) * 1000 + u64::from(b.index);
///         Location { node: NodeId(0), disk: DiskId(0), offset: n * self.block }
///     }
///     fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
///         Some(BlockId { index: b.index + 1, ..b })
///     }
/// }
/// ```
pub trait Layout: Send + Sync {
    /// Where `block` lives.
    fn locate(&self, block: BlockId) -> Location;
    /// The next block of the same video stored on the same disk as `block` (what SPIFFI's
    /// prefetcher reads ahead), or `None` if there is none. The engine drops answers past the
    /// video's end.
    fn next_on_same_disk(&self, block: BlockId) -> Option<BlockId>;
}
