//! `mesh2d`: the server nodes on a two-dimensional mesh with dimension-order (XY) routing and
//! wormhole switching, as on the Intel Paragon of Jadav et al. (§5: "a 2-D mesh with wormhole
//! routing"; `../shared/papers/notes/jadav.md`, reading 4).
//!
//! Each node sits on one cell of a `rows × cols` mesh (row-major by node number unless
//! `positions` places them) and has an injection link into the mesh and an ejection link out of
//! it; neighbouring cells are joined by one link each way. A message from node a to node b
//! travels along a's row to b's column, then along that column to b's row (XY routing), and —
//! a worm — holds every link of its path at once: the injection link, each mesh link, the
//! ejection link, acquired in that order (each first come first served, keeping those it has
//! while it waits for the next), for `per_message + hops × hop_delay + bytes / bandwidth`, then
//! releases them all. So two messages whose paths share any link, even one in the middle of
//! the mesh, wait for each other; messages on disjoint paths do not. The sender's software
//! cost (`send_cost`) is paid before the message asks for its first link and the receiver's
//! (`receive_cost`) after it releases them, off the links.
//!
//! Interface nodes (`[server] interface_nodes`) sit on the mesh after the storage nodes
//! (cells and `positions` count them too): a stream's messages then travel between its
//! interface node and a storage node through the mesh. The object manager, when it is a node
//! (`[server] manager_node`, Jadav et al. §3.2's A), sits after the interface nodes, with
//! links `manager inject` and `manager eject`: `positions` then gives one more cell, its own,
//! and its delegations and the interface nodes' answers cross the mesh like fragments.
//!
//! Terminals are outside the mesh: a message between a node and a terminal holds only that
//! node's injection (sending) or ejection (receiving) link, as with `ports`, and one between
//! terminals holds nothing.
//!
//! The links are numbered injection links first, then the eastward, westward, southward and
//! northward mesh links, each group in the order a path crosses it, then the ejection links:
//! every XY path acquires its links in increasing number, so no set of messages can deadlock
//! (the engine's contract for [`Interconnect`]).
//!
//! The paper gives neither the mesh's shape nor where its nodes sit. Jadav's 56 nodes fit
//! `rows = 4, cols = 14`; its measured point-to-point bandwidth, 13.8 MB/s (§5.1), includes
//! the software costs it does not break down: set `bandwidth = "13.8MB/s"` with zero costs to
//! reproduce it, or a link bandwidth and per-message costs to study them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::LinkId;
use vodbench_plugin_api::plugin::{
    BuildContext, Endpoint, Interconnect, Plugin, PluginError, Transfer,
};
use vodbench_plugin_api::time::SimDuration;
use vodbench_plugin_api::units::{Bandwidth, Duration};

/// `mesh2d`'s parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Mesh2dParams {
    /// Rows of the mesh (0: chosen with `cols` so that the mesh is as square as it can be
    /// and holds every node).
    pub rows: u32,
    /// Columns of the mesh (0: chosen as for `rows`).
    pub cols: u32,
    /// The cell of each node, by node number (cell = row × cols + column); empty: node n on
    /// cell n (row-major). Cells must be distinct and inside the mesh.
    pub positions: Vec<u32>,
    /// Bandwidth of every link (default 25MB/s, SPIFFI's 0.04 µs/byte, as `ports`).
    pub bandwidth: Bandwidth,
    /// Time the path is held for each message beyond its bytes (default 5us, as `ports`).
    pub per_message: Duration,
    /// Time the worm's head spends in each router it crosses (per mesh link; default 0).
    pub hop_delay: Duration,
    /// The sender's software cost, paid before the message asks for its first link
    /// (default 0).
    pub send_cost: Duration,
    /// The receiver's software cost, paid after the links are released (default 0).
    pub receive_cost: Duration,
}

impl Default for Mesh2dParams {
    fn default() -> Self {
        Mesh2dParams {
            rows: 0,
            cols: 0,
            positions: Vec::new(),
            bandwidth: Bandwidth(200_000_000),
            per_message: Duration(5_000),
            hop_delay: Duration(0),
            send_cost: Duration(0),
            receive_cost: Duration(0),
        }
    }
}

/// Nodes on a 2-D mesh, XY routing, wormhole switching.
#[derive(Debug, Clone)]
pub struct Mesh2d {
    /// Every node on the mesh: the storage nodes, the interface nodes, the manager.
    nodes: u32,
    /// Which node is which, for the links' names and the errors.
    roles: super::Roles,
    rows: u32,
    cols: u32,
    /// (row, column) of each node.
    cell: Vec<(u32, u32)>,
    bandwidth: Bandwidth,
    per_message: SimDuration,
    hop_delay: SimDuration,
    send_cost: SimDuration,
    receive_cost: SimDuration,
}

/// The mesh's shape for `nodes` nodes when `rows` and `cols` may be 0 (chosen): as square as
/// possible, wider than tall.
fn shape(nodes: u32, rows: u32, cols: u32) -> (u32, u32) {
    let n = nodes.max(1);
    match (rows, cols) {
        (0, 0) => {
            let mut c = 1;
            while c * c < n {
                c += 1;
            }
            (n.div_ceil(c), c)
        }
        (0, c) => (n.div_ceil(c), c),
        (r, 0) => (r, n.div_ceil(r)),
        (r, c) => (r, c),
    }
}

impl Mesh2d {
    /// The mesh of `p` for `nodes` storage nodes, or which parameter cannot hold them.
    pub fn new(p: &Mesh2dParams, nodes: u32) -> Result<Self, PluginError> {
        Self::with_roles(
            p,
            super::Roles {
                storage: nodes,
                interfaces: 0,
                managers: 0,
            },
        )
    }

    /// The mesh of `p` for the nodes of `roles`, or which parameter cannot hold them.
    fn with_roles(p: &Mesh2dParams, roles: super::Roles) -> Result<Self, PluginError> {
        let nodes = roles.nodes();
        let (rows, cols) = shape(nodes, p.rows, p.cols);
        let cells = u64::from(rows) * u64::from(cols);
        if cells < u64::from(nodes) {
            return Err(PluginError::param(
                if p.rows == 0 { "cols" } else { "rows" },
                format!(
                    "a {rows} × {cols} mesh has {cells} cells for {}",
                    roles.count()
                ),
            ));
        }
        let cell: Vec<(u32, u32)> = if p.positions.is_empty() {
            (0..nodes).map(|n| (n / cols, n % cols)).collect()
        } else {
            if p.positions.len() != nodes as usize {
                return Err(PluginError::param(
                    "positions",
                    format!(
                        "`positions` gives {} cells for {}: give one per node{}",
                        p.positions.len(),
                        roles.count(),
                        if roles.managers > 0 {
                            ", the manager's last"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            let mut seen = std::collections::BTreeSet::new();
            for (n, &c) in p.positions.iter().enumerate() {
                if u64::from(c) >= cells {
                    return Err(PluginError::param(
                        "positions",
                        format!(
                            "node {n} on cell {c}, outside the {rows} × {cols} mesh (cells \
                             0..{cells})"
                        ),
                    ));
                }
                if !seen.insert(c) {
                    return Err(PluginError::param(
                        "positions",
                        format!("cell {c} holds two nodes (node {n} and an earlier one)"),
                    ));
                }
            }
            p.positions.iter().map(|&c| (c / cols, c % cols)).collect()
        };
        Ok(Mesh2d {
            nodes,
            roles,
            rows,
            cols,
            cell,
            bandwidth: p.bandwidth,
            per_message: p.per_message.sim(),
            hop_delay: p.hop_delay.sim(),
            send_cost: p.send_cost.sim(),
            receive_cost: p.receive_cost.sim(),
        })
    }

    fn inject(&self, n: u32) -> u32 {
        n
    }
    /// The eastward link out of (r, c), c < cols − 1.
    fn east(&self, r: u32, c: u32) -> u32 {
        self.nodes + c * self.rows + r
    }
    /// The westward link out of (r, c), c > 0.
    fn west(&self, r: u32, c: u32) -> u32 {
        self.nodes + (self.cols - 1) * self.rows + (self.cols - 1 - c) * self.rows + r
    }
    /// The southward link out of (r, c), r < rows − 1.
    fn south(&self, r: u32, c: u32) -> u32 {
        self.nodes + 2 * (self.cols - 1) * self.rows + r * self.cols + c
    }
    /// The northward link out of (r, c), r > 0.
    fn north(&self, r: u32, c: u32) -> u32 {
        self.nodes
            + 2 * (self.cols - 1) * self.rows
            + (self.rows - 1) * self.cols
            + (self.rows - 1 - r) * self.cols
            + c
    }
    fn eject(&self, n: u32) -> u32 {
        self.nodes + 2 * (self.cols - 1) * self.rows + 2 * (self.rows - 1) * self.cols + n
    }
}

impl Interconnect for Mesh2d {
    fn links(&self) -> Vec<String> {
        let mut names = vec![String::new(); self.eject(self.nodes) as usize];
        for n in 0..self.nodes {
            let node = self.roles.name(n);
            names[self.inject(n) as usize] = format!("{node} inject");
            names[self.eject(n) as usize] = format!("{node} eject");
        }
        for r in 0..self.rows {
            for c in 0..self.cols {
                if c + 1 < self.cols {
                    names[self.east(r, c) as usize] = format!("({r},{c})→({r},{})", c + 1);
                }
                if c > 0 {
                    names[self.west(r, c) as usize] = format!("({r},{c})→({r},{})", c - 1);
                }
                if r + 1 < self.rows {
                    names[self.south(r, c) as usize] = format!("({r},{c})→({},{c})", r + 1);
                }
                if r > 0 {
                    names[self.north(r, c) as usize] = format!("({r},{c})→({},{c})", r - 1);
                }
            }
        }
        names
    }

    fn route(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        path: &mut Vec<LinkId>,
    ) -> Transfer {
        let mut hops = 0u64;
        if let Endpoint::Node(a) = from {
            path.push(LinkId(self.inject(a.0)));
        }
        if let (Endpoint::Node(a), Endpoint::Node(b)) = (from, to) {
            let ((r0, c0), (r1, c1)) = (self.cell[a.index()], self.cell[b.index()]);
            // along the sender's row to the receiver's column, then along that column
            let mut c = c0;
            while c < c1 {
                path.push(LinkId(self.east(r0, c)));
                c += 1;
            }
            while c > c1 {
                path.push(LinkId(self.west(r0, c)));
                c -= 1;
            }
            let mut r = r0;
            while r < r1 {
                path.push(LinkId(self.south(r, c1)));
                r += 1;
            }
            while r > r1 {
                path.push(LinkId(self.north(r, c1)));
                r -= 1;
            }
            hops = u64::from(r0.abs_diff(r1) + c0.abs_diff(c1));
        }
        if let Endpoint::Node(b) = to {
            path.push(LinkId(self.eject(b.0)));
        }
        Transfer {
            setup: self.send_cost,
            hold: self.per_message
                + SimDuration::from_nanos(self.hop_delay.as_nanos().saturating_mul(hops))
                + self.bandwidth.time_for(bytes),
            delivery: self.receive_cost,
        }
    }
}

impl Plugin for Mesh2d {
    type Kind = dyn Interconnect;
    type Params = Mesh2dParams;
    const NAME: &'static str = "mesh2d";
    const DESCRIPTION: &'static str = "nodes on a 2-D mesh, XY routing, wormhole switching: a message holds every link of its path (Jadav et al.'s Paragon)";

    fn validate(p: &Mesh2dParams) -> Result<(), PluginError> {
        super::check_bandwidth(p.bandwidth)?;
        for (key, v) in [("rows", p.rows), ("cols", p.cols)] {
            if v > 4096 {
                return Err(PluginError::param(
                    key,
                    format!("must be in 0..=4096 (0: chosen), got {v}"),
                ));
            }
        }
        super::check_times(&[
            ("per_message", p.per_message.0),
            ("hop_delay", p.hop_delay.0),
            ("send_cost", p.send_cost.0),
            ("receive_cost", p.receive_cost.0),
        ])?;
        Ok(())
    }

    fn build(
        p: &Mesh2dParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn Interconnect>, PluginError> {
        Ok(Box::new(Mesh2d::with_roles(p, super::Roles::of(ctx))?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use vodbench_plugin_api::ids::{NodeId, TerminalId};

    fn mesh(nodes: u32, rows: u32, cols: u32) -> Mesh2d {
        Mesh2d::new(
            &Mesh2dParams {
                rows,
                cols,
                ..Mesh2dParams::default()
            },
            nodes,
        )
        .unwrap()
    }

    fn path(m: &mut Mesh2d, a: Endpoint, b: Endpoint) -> Vec<String> {
        let names = m.links();
        let mut p = Vec::new();
        m.route(a, b, 1, &mut p);
        p.iter().map(|l| names[l.index()].clone()).collect()
    }

    fn node(n: u32) -> Endpoint {
        Endpoint::Node(NodeId(n))
    }

    /// A 3 × 3 mesh, worked by hand:
    ///
    /// ```text
    ///  0 — 1 — 2
    ///  |   |   |
    ///  3 — 4 — 5
    ///  |   |   |
    ///  6 — 7 — 8
    /// ```
    #[test]
    fn xy_paths_on_a_hand_worked_mesh() {
        let mut m = mesh(9, 3, 3);
        assert_eq!(
            path(&mut m, node(0), node(8)),
            [
                "node 0 inject",
                "(0,0)→(0,1)",
                "(0,1)→(0,2)",
                "(0,2)→(1,2)",
                "(1,2)→(2,2)",
                "node 8 eject"
            ]
        );
        // back: west along row 2, then north along column 0
        assert_eq!(
            path(&mut m, node(8), node(0)),
            [
                "node 8 inject",
                "(2,2)→(2,1)",
                "(2,1)→(2,0)",
                "(2,0)→(1,0)",
                "(1,0)→(0,0)",
                "node 0 eject"
            ]
        );
        // X first: 3 → 1 goes east in row 1, then north in column 1
        assert_eq!(
            path(&mut m, node(3), node(1)),
            [
                "node 3 inject",
                "(1,0)→(1,1)",
                "(1,1)→(0,1)",
                "node 1 eject"
            ]
        );
        // 0 → 2 and 1 → 5 share the link (0,1)→(0,2): the engine makes them wait for each
        // other; 3 → 4 shares nothing with 0 → 2
        let ids = |m: &mut Mesh2d, a, b| {
            let mut p = Vec::new();
            m.route(node(a), node(b), 1, &mut p);
            p
        };
        let (p02, p15, p34) = (ids(&mut m, 0, 2), ids(&mut m, 1, 5), ids(&mut m, 3, 4));
        assert!(p02.iter().any(|l| p15.contains(l)));
        assert!(!p02.iter().any(|l| p34.contains(l)));
        // terminals are outside the mesh
        let t = Endpoint::Terminal(TerminalId(4));
        assert_eq!(path(&mut m, node(4), t), ["node 4 inject"]);
        assert_eq!(path(&mut m, t, node(4)), ["node 4 eject"]);
        assert!(path(&mut m, t, t).is_empty());
        // 2 × 9 injection/ejection + 2 × 2 × 3 per direction pair = 42 links, all named
        let names = m.links();
        assert_eq!(names.len(), 9 + 12 + 12 + 9);
        assert!(names.iter().all(|n| !n.is_empty()));
    }

    #[test]
    fn an_idle_transfer_takes_its_costs_its_hops_and_its_bytes() {
        let p = Mesh2dParams {
            rows: 4,
            cols: 14,
            bandwidth: Bandwidth(110_400_000), // 13.8 MB/s
            per_message: Duration(1_000),
            hop_delay: Duration(40),
            send_cost: Duration(50_000),
            receive_cost: Duration(30_000),
            ..Mesh2dParams::default()
        };
        let mut m = Mesh2d::new(&p, 56).unwrap();
        let mut path = Vec::new();
        // node 0 (0,0) → node 55 (3,13): 16 hops
        let t = m.route(node(0), node(55), 138_000, &mut path);
        assert_eq!(path.len(), 16 + 2);
        assert_eq!(t.setup, SimDuration::from_micros(50));
        assert_eq!(t.delivery, SimDuration::from_micros(30));
        // 138,000 bytes at 13.8 MB/s = 10 ms, + 1 µs + 16 × 40 ns
        assert_eq!(t.hold, SimDuration::from_nanos(10_000_000 + 1_000 + 640));
        // the defaults time an idle message as `ports` and `ideal` do: 5 µs + 0.04 µs/byte
        let mut d = Mesh2d::new(&Mesh2dParams::default(), 4).unwrap();
        let t = d.route(node(0), node(3), 1000, &mut Vec::new());
        assert_eq!(t.unloaded(), SimDuration::from_nanos(5_000 + 40_000));
    }

    #[test]
    fn shapes_and_placements_and_their_errors() {
        assert_eq!(shape(56, 0, 0), (7, 8));
        assert_eq!(shape(56, 4, 0), (4, 14));
        assert_eq!(shape(56, 0, 14), (4, 14));
        assert_eq!(shape(1, 0, 0), (1, 1));
        let e = |p: Mesh2dParams, n| Mesh2d::new(&p, n).unwrap_err().to_string();
        let small = Mesh2d::new(
            &Mesh2dParams {
                rows: 2,
                cols: 2,
                ..Mesh2dParams::default()
            },
            5,
        )
        .unwrap_err();
        assert_eq!(
            small,
            PluginError::param("rows", "a 2 × 2 mesh has 4 cells for 5 nodes")
        );
        let placed = |positions: Vec<u32>| Mesh2dParams {
            rows: 2,
            cols: 2,
            positions,
            ..Mesh2dParams::default()
        };
        assert!(e(placed(vec![0, 1]), 3).contains("gives 2 cells for 3 nodes"));
        assert!(e(placed(vec![0, 4]), 2).contains("node 1 on cell 4, outside"));
        assert!(e(placed(vec![3, 3]), 2).contains("cell 3 holds two nodes"));
        // node 0 placed on cell 3 = (1,1), node 1 on cell 0 = (0,0)
        let mut m = Mesh2d::new(&placed(vec![3, 0]), 2).unwrap();
        assert_eq!(
            path(&mut m, node(0), node(1)),
            [
                "node 0 inject",
                "(1,1)→(1,0)",
                "(1,0)→(0,0)",
                "node 1 eject"
            ]
        );
    }

    #[test]
    fn the_manager_is_placed_after_the_interface_nodes_and_named() {
        // 2 storage nodes, 1 interface node and the manager on a 2 × 2 mesh, the manager on
        // cell 0 = (0,0), interface 0 on cell 3 = (1,1):
        //
        //  manager — node 0
        //     |         |
        //  node 1 — interface 0
        let ctx = |positions: Vec<u32>| {
            let p = Mesh2dParams {
                rows: 2,
                cols: 2,
                positions,
                ..Mesh2dParams::default()
            };
            let c = super::super::test_context(2, 1, 1);
            Mesh2d::build(&p, &c)
        };
        let mut m = ctx(vec![1, 2, 3, 0]).unwrap();
        let names = m.links();
        // 4 injection + 2 × 2 east/west + 2 × 2 south/north + 4 ejection links
        assert_eq!(names.len(), 4 + 4 + 4 + 4);
        assert_eq!(names[3], "manager inject");
        assert_eq!(names[2], "interface 0 inject");
        assert_eq!(names[names.len() - 1], "manager eject");
        let route = |m: &mut Box<dyn Interconnect>, a: u32, b: u32| {
            let mut p = Vec::new();
            m.route(node(a), node(b), 128, &mut p);
            p.iter()
                .map(|l| names[l.index()].clone())
                .collect::<Vec<_>>()
        };
        // the delegation: east along row 0, then south along column 1
        assert_eq!(
            route(&mut m, 3, 2),
            [
                "manager inject",
                "(0,0)→(0,1)",
                "(0,1)→(1,1)",
                "interface 0 eject"
            ]
        );
        // the answer: west along row 1, then north along column 0
        assert_eq!(
            route(&mut m, 2, 3),
            [
                "interface 0 inject",
                "(1,1)→(1,0)",
                "(1,0)→(0,0)",
                "manager eject"
            ]
        );
        // `positions` must place the manager too, and the error says so
        let e = ctx(vec![1, 2, 3]).err().unwrap().to_string();
        assert!(
            e.contains(
                "gives 3 cells for 4 nodes (2 storage, 1 interface, 1 manager): give one per \
                 node, the manager's last"
            ),
            "{e}"
        );
        // and the mesh must hold it
        let e = Mesh2d::with_roles(
            &Mesh2dParams {
                rows: 1,
                cols: 3,
                ..Mesh2dParams::default()
            },
            super::super::Roles {
                storage: 2,
                interfaces: 1,
                managers: 1,
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("a 1 × 3 mesh has 3 cells for 4 nodes (2 storage, 1 interface, 1 manager)"),
            "{e}"
        );
    }

    proptest! {
        /// Every path acquires its links in increasing number (no deadlock), names no link
        /// twice, and crosses exactly the Manhattan distance between its nodes.
        #[test]
        fn paths_increase_and_cross_the_manhattan_distance(
            rows in 1u32..6, cols in 1u32..7, a in 0u32..42, b in 0u32..42
        ) {
            let nodes = rows * cols;
            let (a, b) = (a % nodes, b % nodes);
            let mut m = mesh(nodes, rows, cols);
            let links = m.links().len() as u32;
            let mut p = Vec::new();
            m.route(node(a), node(b), 1, &mut p);
            prop_assert!(p.windows(2).all(|w| w[0] < w[1]), "{:?}", p);
            prop_assert!(p.iter().all(|l| l.0 < links));
            let ((r0, c0), (r1, c1)) = ((a / cols, a % cols), (b / cols, b % cols));
            prop_assert_eq!(p.len() as u32, r0.abs_diff(r1) + c0.abs_diff(c1) + 2);
        }
    }
}
