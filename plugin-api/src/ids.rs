//! Small typed identifiers for the simulated components.

use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);
        impl $name {
            /// The identifier as an index into a dense array.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

id!(
    /// A server node (CPU + memory + disks), numbered from 0.
    NodeId
);
id!(
    /// A disk, numbered globally from 0: disk `d` of node `n` is `n * disks_per_node + d`.
    DiskId
);
id!(
    /// A terminal (client), numbered from 0.
    TerminalId
);
id!(
    /// A video of the library, numbered from 0 (0 is the most popular under Zipf).
    VideoId
);
id!(
    /// A page frame of one node's buffer pool.
    PageId
);
id!(
    /// A request slot held by the engine while a disk request is outstanding.
    RequestId
);
id!(
    /// A link of the interconnect (a port, a mesh channel), numbered from 0 in the order the
    /// interconnect lists them.
    LinkId
);

/// One stripe block of a video: the unit of every terminal read, disk read and buffer page.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BlockId {
    /// The video.
    pub video: VideoId,
    /// The block's index within the video (block `i` holds bytes `[i·B, (i+1)·B)`).
    pub index: u32,
}

/// Numbers the blocks of a library consecutively, video by video: block `i` of video `v` is
/// number `first[v] + i`, so a table with one entry per block of the library can be a plain
/// vector (as the engine's set of wasted prefetches and the `standard` prefetcher's index
/// are).
///
/// ```
/// use vodbench_plugin_api::ids::{BlockId, BlockNumbering, VideoId};
/// let n = BlockNumbering::new(&[3, 0, 2]);
/// assert_eq!(n.total(), 5);
/// assert_eq!(n.number(BlockId { video: VideoId(2), index: 1 }), Some(4));
/// // past a video's end, or a video outside the library
/// assert_eq!(n.number(BlockId { video: VideoId(0), index: 3 }), None);
/// assert_eq!(n.number(BlockId { video: VideoId(3), index: 0 }), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct BlockNumbering {
    /// Number of each video's block 0, and the total last.
    first: Vec<u64>,
}

impl BlockNumbering {
    /// The numbering of a library whose videos have `blocks[v]` blocks each.
    pub fn new(blocks: &[u32]) -> Self {
        let mut first = Vec::with_capacity(blocks.len() + 1);
        let mut acc = 0u64;
        for b in blocks {
            first.push(acc);
            acc += u64::from(*b);
        }
        first.push(acc);
        BlockNumbering { first }
    }

    /// Blocks in the library.
    pub fn total(&self) -> u64 {
        self.first.last().copied().unwrap_or(0)
    }

    /// The number of `b`, or `None` for a block outside the library.
    #[inline]
    pub fn number(&self, b: BlockId) -> Option<u64> {
        let v = b.video.index();
        let start = *self.first.get(v)?;
        let end = *self.first.get(v + 1)?;
        let n = start + u64::from(b.index);
        (n < end).then_some(n)
    }
}
