//! What a plugin may know when it is built.

use super::DiskGeometry;
use crate::rng::{stream, SimRng};
use std::path::Path;

/// Everything a plugin may know when it is built.
#[derive(Clone, Debug)]
pub struct BuildContext<'a> {
    /// The scenario seed.
    pub seed: u64,
    /// Component name for random streams (`"disk"`, `"node"`, `"layout"`, `"prefetcher"`).
    pub component: &'static str,
    /// Component index (disk or node number; 0 for singletons).
    pub index: u64,
    /// Number of server nodes (the storage nodes, which hold the disks).
    pub nodes: u32,
    /// Interface nodes (Jadav et al.'s I nodes, `[server] interface_nodes`): network nodes
    /// `nodes .. nodes + interfaces`, without disks, through which the terminals' messages
    /// pass (terminal t through interface t mod `interfaces`); 0 when terminals talk to the
    /// server nodes directly. An interconnect gives them links as it gives the other nodes.
    pub interfaces: u32,
    /// The object manager (Jadav et al.'s A node, `[server] manager_node`): 1 when it is a
    /// node of the network, numbered `nodes + interfaces`, after the interface nodes, without
    /// disks; 0 when its decisions cost no messages. An interconnect gives it links as it
    /// gives the other nodes.
    pub managers: u32,
    /// Disks per node.
    pub disks_per_node: u32,
    /// Number of terminals (clients) of the scenario; 0 where the system has none.
    pub terminals: u32,
    /// Stripe block size in bytes (the unit of every read).
    pub block_bytes: u64,
    /// Number of blocks of each video, indexed by video id.
    pub video_blocks: &'a [u32],
    /// The disk's geometry (for schedulers and layouts; `None` while building the disk model).
    pub geometry: Option<DiskGeometry>,
    /// Pages in this node's buffer pool (for buffer pools), or frames in a broadcast
    /// receiver's memory cache (for client buffers); 0 otherwise.
    pub pages: u32,
    /// Directory of the scenario file, for resolving relative paths in parameters.
    pub base_dir: &'a Path,
}

impl BuildContext<'_> {
    /// This component's own random stream, derived from the seed, name and index.
    pub fn rng(&self) -> SimRng {
        stream(self.seed, self.component, self.index)
    }
    /// Every node of the network: the storage nodes, the interface nodes and the manager.
    pub fn network_nodes(&self) -> u32 {
        self.nodes + self.interfaces + self.managers
    }
    /// Total number of disks.
    pub fn disks(&self) -> u32 {
        self.nodes * self.disks_per_node
    }
}
