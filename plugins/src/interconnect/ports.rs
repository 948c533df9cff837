//! `ports`: every server node has a send port and a receive port of a given bandwidth, each
//! serving one message at a time, first come first served, so concurrent transfers out of or
//! into one node wait for each other. A message from a node holds that node's send port; one
//! to a node holds its receive port; a node-to-node message holds both (the send port
//! first, kept while it waits for the receive port, as a cut-through transfer does).
//! Terminals have no ports: their side of the network never contends — unless they reach
//! the server through interface nodes (`[server] interface_nodes`, Jadav et al.'s I nodes),
//! which have ports like every node (numbered after the storage nodes): a stream's request
//! then holds its interface node's send port and its fragment that node's receive port.
//! The object manager, when it is a node (`[server] manager_node`), has ports too, numbered
//! after the interface nodes and named `manager send` / `manager receive`: its delegation of a
//! viewing to an interface node holds its send port and that node's receive port, the answer
//! the other way round.
//!
//! A message holds its ports for `per_message + size / bandwidth` and is delivered
//! `latency` after releasing them. The sender's and the receiver's software costs
//! (`send_cost`, `receive_cost`, default 0) are paid off the ports: before the message asks
//! for its first port, and after it releases them. The defaults (25 MB/s, 5 µs per message, no latency) make
//! an idle network time every message exactly as `ideal` does (5 µs + 0.04 µs/byte, SPIFFI
//! Table 1), so the difference between the two is the contention alone. This is the
//! shared-nothing node's network interface that Jadav et al. §3 measure point to point
//! (13.8 MB/s on the Paragon) and that Pappas et al. §2.2's egress link bounds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::LinkId;
use vodbench_plugin_api::plugin::{
    BuildContext, Endpoint, Interconnect, Plugin, PluginError, Transfer,
};
use vodbench_plugin_api::time::SimDuration;
use vodbench_plugin_api::units::{Bandwidth, Duration};

/// `ports`'s parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PortsParams {
    /// Bandwidth of each port (default 25MB/s, SPIFFI's 0.04 µs/byte).
    pub bandwidth: Bandwidth,
    /// Time a port spends on each message beyond its bytes (default 5us).
    pub per_message: Duration,
    /// Propagation delay after the ports are released (default 0).
    pub latency: Duration,
    /// The sender's software cost, paid before the message asks for a port (default 0).
    pub send_cost: Duration,
    /// The receiver's software cost, paid after the ports are released (default 0).
    pub receive_cost: Duration,
}

impl Default for PortsParams {
    fn default() -> Self {
        PortsParams {
            bandwidth: Bandwidth(200_000_000),
            per_message: Duration(5_000),
            latency: Duration(0),
            send_cost: Duration(0),
            receive_cost: Duration(0),
        }
    }
}

/// Send and receive ports per node.
#[derive(Debug, Clone)]
pub struct Ports {
    /// Every node of the network: the storage nodes, the interface nodes, the manager.
    nodes: u32,
    /// Which node is which, for the links' names.
    roles: super::Roles,
    bandwidth: Bandwidth,
    per_message: SimDuration,
    latency: SimDuration,
    send_cost: SimDuration,
    receive_cost: SimDuration,
}

impl Ports {
    /// Link of node `n`'s send port: the send ports come first, so that every path takes
    /// its links in increasing order (no deadlock).
    fn send(&self, n: u32) -> LinkId {
        LinkId(n)
    }
    fn receive(&self, n: u32) -> LinkId {
        LinkId(self.nodes + n)
    }
}

impl Interconnect for Ports {
    fn links(&self) -> Vec<String> {
        let name = |n: u32| self.roles.name(n);
        (0..self.nodes)
            .map(|n| format!("{} send", name(n)))
            .chain((0..self.nodes).map(|n| format!("{} receive", name(n))))
            .collect()
    }

    fn route(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        path: &mut Vec<LinkId>,
    ) -> Transfer {
        if let Endpoint::Node(n) = from {
            path.push(self.send(n.0));
        }
        if let Endpoint::Node(n) = to {
            path.push(self.receive(n.0));
        }
        Transfer {
            setup: self.send_cost,
            hold: self.per_message + self.bandwidth.time_for(bytes),
            delivery: self.latency + self.receive_cost,
        }
    }
}

impl Plugin for Ports {
    type Kind = dyn Interconnect;
    type Params = PortsParams;
    const NAME: &'static str = "ports";
    const DESCRIPTION: &'static str =
        "a send and a receive port per node, first come first served: transfers into or out of one node wait";

    fn validate(p: &PortsParams) -> Result<(), PluginError> {
        super::check_bandwidth(p.bandwidth)?;
        super::check_times(&[
            ("per_message", p.per_message.0),
            ("latency", p.latency.0),
            ("send_cost", p.send_cost.0),
            ("receive_cost", p.receive_cost.0),
        ])?;
        Ok(())
    }

    fn build(
        p: &PortsParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn Interconnect>, PluginError> {
        let roles = super::Roles::of(ctx);
        Ok(Box::new(Ports {
            nodes: roles.nodes(),
            roles,
            bandwidth: p.bandwidth,
            per_message: p.per_message.sim(),
            latency: p.latency.sim(),
            send_cost: p.send_cost.sim(),
            receive_cost: p.receive_cost.sim(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::{NodeId, TerminalId};

    fn ports(nodes: u32) -> Ports {
        let p = PortsParams::default();
        Ports {
            nodes,
            roles: super::super::Roles::storage(nodes),
            bandwidth: p.bandwidth,
            per_message: p.per_message.sim(),
            latency: p.latency.sim(),
            send_cost: p.send_cost.sim(),
            receive_cost: p.receive_cost.sim(),
        }
    }

    #[test]
    fn paths_hold_the_ports_of_the_nodes_involved_sends_first() {
        let mut net = ports(3);
        assert_eq!(
            net.links(),
            [
                "node 0 send",
                "node 1 send",
                "node 2 send",
                "node 0 receive",
                "node 1 receive",
                "node 2 receive"
            ]
        );
        let mut path = Vec::new();
        net.route(
            Endpoint::Node(NodeId(2)),
            Endpoint::Terminal(TerminalId(7)),
            10,
            &mut path,
        );
        assert_eq!(path, [LinkId(2)]);
        path.clear();
        net.route(
            Endpoint::Terminal(TerminalId(7)),
            Endpoint::Node(NodeId(1)),
            10,
            &mut path,
        );
        assert_eq!(path, [LinkId(4)]);
        path.clear();
        net.route(
            Endpoint::Node(NodeId(2)),
            Endpoint::Node(NodeId(0)),
            10,
            &mut path,
        );
        assert_eq!(path, [LinkId(2), LinkId(3)]);
        assert!(
            path.windows(2).all(|w| w[0] < w[1]),
            "increasing: no deadlock"
        );
    }

    #[test]
    fn the_manager_has_ports_after_the_interface_nodes() {
        let ctx = super::super::test_context(2, 1, 1);
        let mut net = Ports::build(&PortsParams::default(), &ctx).unwrap();
        assert_eq!(
            net.links(),
            [
                "node 0 send",
                "node 1 send",
                "interface 0 send",
                "manager send",
                "node 0 receive",
                "node 1 receive",
                "interface 0 receive",
                "manager receive"
            ]
        );
        // the manager's delegation to interface 0 (network node 2), and the answer back
        let mut path = Vec::new();
        net.route(
            Endpoint::Node(NodeId(3)),
            Endpoint::Node(NodeId(2)),
            128,
            &mut path,
        );
        assert_eq!(path, [LinkId(3), LinkId(6)]);
        path.clear();
        net.route(
            Endpoint::Node(NodeId(2)),
            Endpoint::Node(NodeId(3)),
            128,
            &mut path,
        );
        assert_eq!(path, [LinkId(2), LinkId(7)]);
    }

    #[test]
    fn an_idle_transfer_takes_what_ideal_takes_by_default() {
        let mut net = ports(1);
        let mut path = Vec::new();
        let t = net.route(
            Endpoint::Node(NodeId(0)),
            Endpoint::Terminal(TerminalId(0)),
            524_288,
            &mut path,
        );
        // 5 µs + 0.04 µs/byte, as SPIFFI Table 1 and `ideal`
        assert_eq!(t.unloaded(), SimDuration::from_nanos(5_000 + 40 * 524_288));
        assert_eq!(t.hold, t.unloaded());
    }

    #[test]
    fn software_costs_are_paid_off_the_ports_at_both_ends() {
        let p = PortsParams {
            send_cost: Duration(50_000),
            receive_cost: Duration(20_000),
            latency: Duration(1_000),
            ..PortsParams::default()
        };
        let mut net = Ports {
            nodes: 2,
            roles: super::super::Roles::storage(2),
            bandwidth: p.bandwidth,
            per_message: p.per_message.sim(),
            latency: p.latency.sim(),
            send_cost: p.send_cost.sim(),
            receive_cost: p.receive_cost.sim(),
        };
        let t = net.route(
            Endpoint::Node(NodeId(0)),
            Endpoint::Node(NodeId(1)),
            1000,
            &mut Vec::new(),
        );
        assert_eq!(t.setup, SimDuration::from_micros(50));
        assert_eq!(t.hold, SimDuration::from_nanos(5_000 + 40_000));
        assert_eq!(t.delivery, SimDuration::from_micros(21));
        let bad = PortsParams {
            receive_cost: Duration(11_000_000_000),
            ..PortsParams::default()
        };
        assert!(matches!(
            Ports::validate(&bad),
            Err(PluginError::InvalidParam { path, .. }) if path == "receive_cost"
        ));
    }

    #[test]
    fn bandwidth_range_names_the_key() {
        let p = PortsParams {
            bandwidth: Bandwidth(10),
            ..PortsParams::default()
        };
        assert!(matches!(
            Ports::validate(&p),
            Err(PluginError::InvalidParam { path, .. }) if path == "bandwidth"
        ));
    }
}
