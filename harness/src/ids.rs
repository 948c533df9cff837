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

/// One stripe block of a video: the unit of every terminal read, disk read and buffer page.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BlockId {
    /// The video.
    pub video: VideoId,
    /// The block's index within the video (block `i` holds bytes `[i·B, (i+1)·B)`).
    pub index: u32,
}
