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
    /// Into how many pieces every block is split across disks: fine-grained striping (Wu et
    /// al. §3.2, "a read command for each disk to send the required portion of the block").
    /// 1 (the default): a block is read whole from [`locate`](Layout::locate)'s disk.
    ///
    /// With `k > 1` pieces, the engine reads a block of `b` bytes as `k` accesses of `b / k`
    /// bytes (the first `b mod k` one byte more; none of 0 bytes), issued together, each at
    /// [`locate_piece`](Layout::locate_piece); the block is read when its last piece is.
    fn pieces(&self) -> u32 {
        1
    }
    /// Where piece `piece` (below [`pieces`](Layout::pieces)) of `block` lives, on a disk of
    /// the block's node. Piece 0 must be [`locate`](Layout::locate)`(block)`, which the
    /// default returns for every piece.
    fn locate_piece(&self, block: BlockId, piece: u32) -> Location {
        let _ = piece;
        self.locate(block)
    }
}
