//! What a plugin may know when it is built.

use super::DiskGeometry;
use crate::rng::{stream, SimRng};
use std::path::Path;

/// Everything a plugin may know when it is built.
///
/// Made with [`new`](Self::new) (what a system passes) or [`for_test`](Self::for_test) (plain
/// values for a plugin's own tests), then the `with_*` setters; it cannot be written as a
/// struct literal outside this crate (`#[non_exhaustive]`), so a field added here changes
/// [`new`](Self::new) and gets a setter, and no caller has to change.
///
/// ```
/// use vodbench_plugin_api::plugin::{BuildContext, DiskGeometry};
/// use std::path::Path;
///
/// // what a system passes to the layout of a 4-node server
/// let blocks = [120, 80];
/// let ctx = BuildContext::new(7, "layout", 0, Path::new("scenarios"))
///     .with_nodes(4)
///     .with_disks_per_node(2)
///     .with_block_bytes(512 * 1024)
///     .with_video_blocks(&blocks);
/// assert_eq!((ctx.disks(), ctx.video_blocks.len()), (8, 2));
///
/// // a plugin's test: plain values, then what the test is about
/// let ctx = BuildContext::for_test()
///     .with_pages(64)
///     .with_geometry(Some(DiskGeometry { capacity_bytes: 1 << 30, cylinders: 100 }));
/// assert_eq!((ctx.seed, ctx.component, ctx.nodes, ctx.pages), (1, "test", 1, 64));
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
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

impl<'a> BuildContext<'a> {
    /// The context of component `component` number `index` (its random stream's name and
    /// index) in a run of seed `seed` whose scenario file is in `base_dir`: one storage node
    /// with one disk, no interface nodes, no manager, no terminals, blocks of one byte, no
    /// videos, no geometry and no pages until the setters below say otherwise.
    pub fn new(seed: u64, component: &'static str, index: u64, base_dir: &'a Path) -> Self {
        BuildContext {
            seed,
            component,
            index,
            nodes: 1,
            interfaces: 0,
            managers: 0,
            disks_per_node: 1,
            terminals: 0,
            block_bytes: 1,
            video_blocks: &[],
            geometry: None,
            pages: 0,
            base_dir,
        }
    }

    /// Plain values for a plugin's tests: [`new`](Self::new) with seed 1, component `test`,
    /// index 0 and the current folder; the setters give what a test needs.
    pub fn for_test() -> BuildContext<'static> {
        BuildContext::new(1, "test", 0, Path::new("."))
    }

    /// With the scenario seed `seed`.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// With component `component` number `index` (the random stream's name and index).
    pub fn with_component(mut self, component: &'static str, index: u64) -> Self {
        self.component = component;
        self.index = index;
        self
    }
    /// With `nodes` storage nodes.
    pub fn with_nodes(mut self, nodes: u32) -> Self {
        self.nodes = nodes;
        self
    }
    /// With `interfaces` interface nodes.
    pub fn with_interfaces(mut self, interfaces: u32) -> Self {
        self.interfaces = interfaces;
        self
    }
    /// With `managers` object managers (0 or 1).
    pub fn with_managers(mut self, managers: u32) -> Self {
        self.managers = managers;
        self
    }
    /// With `disks_per_node` disks per storage node.
    pub fn with_disks_per_node(mut self, disks_per_node: u32) -> Self {
        self.disks_per_node = disks_per_node;
        self
    }
    /// With `terminals` terminals.
    pub fn with_terminals(mut self, terminals: u32) -> Self {
        self.terminals = terminals;
        self
    }
    /// With blocks of `block_bytes` bytes.
    pub fn with_block_bytes(mut self, block_bytes: u64) -> Self {
        self.block_bytes = block_bytes;
        self
    }
    /// With the videos' block counts, indexed by video id.
    pub fn with_video_blocks(mut self, video_blocks: &'a [u32]) -> Self {
        self.video_blocks = video_blocks;
        self
    }
    /// With the disk's geometry (`None`: unknown, as while the disk model is built).
    pub fn with_geometry(mut self, geometry: Option<DiskGeometry>) -> Self {
        self.geometry = geometry;
        self
    }
    /// With `pages` pages (a node's buffer pool, a broadcast receiver's memory cache).
    pub fn with_pages(mut self, pages: u32) -> Self {
        self.pages = pages;
        self
    }
    /// With the scenario file's folder `base_dir`.
    pub fn with_base_dir(mut self, base_dir: &'a Path) -> Self {
        self.base_dir = base_dir;
        self
    }
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
