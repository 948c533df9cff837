//! Interconnects ([`Interconnect`](vodbench_plugin_api::plugin::Interconnect)): the network
//! between terminals and server nodes, and between nodes.

pub mod ideal;
pub mod mesh2d;
pub mod ports;

use vodbench_plugin_api::plugin::{Interconnect, Kind, PluginError, Registry};
use vodbench_plugin_api::units::{fmt_duration_ns, Bandwidth};

/// Registers the built-in interconnects; `ideal` is `[server.network]`'s default.
pub fn register(r: &mut Registry) {
    r.add::<ideal::Ideal>();
    r.add::<ports::Ports>();
    r.add::<mesh2d::Mesh2d>();
    r.set_default::<dyn Interconnect>(Kind::Interconnect.key(), "ideal", toml::Table::new());
}

/// A link's `bandwidth` within what every interconnect allows (1 kbit/s to 10 Tbit/s).
pub(crate) fn check_bandwidth(b: Bandwidth) -> Result<(), PluginError> {
    if b.0 < 1_000 || b.0 > 10_000_000_000_000 {
        return Err(PluginError::param(
            "bandwidth",
            format!("must be in 1kbit/s..=10Tbit/s, got {b}"),
        ));
    }
    Ok(())
}

/// Each per-message time `(key, ns)` within 0 s..=10 s.
pub(crate) fn check_times(times: &[(&str, u64)]) -> Result<(), PluginError> {
    for &(key, v) in times {
        if v > 10_000_000_000 {
            return Err(PluginError::param(
                key,
                format!("must be in 0s..=10s, got {}", fmt_duration_ns(v)),
            ));
        }
    }
    Ok(())
}

/// The roles of the network's nodes (numbered storage nodes first, then the interface nodes,
/// then the object manager), for link names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Roles {
    /// Storage nodes: network nodes `0 .. storage`.
    pub storage: u32,
    /// Interface nodes: network nodes `storage .. storage + interfaces`.
    pub interfaces: u32,
    /// The object manager (0 or 1): network node `storage + interfaces`.
    pub managers: u32,
}

impl Roles {
    /// Storage nodes only.
    #[cfg(test)]
    pub fn storage(nodes: u32) -> Self {
        Roles {
            storage: nodes,
            interfaces: 0,
            managers: 0,
        }
    }

    /// The roles a plugin is built for.
    pub fn of(ctx: &vodbench_plugin_api::plugin::BuildContext<'_>) -> Self {
        Roles {
            storage: ctx.nodes,
            interfaces: ctx.interfaces,
            managers: ctx.managers,
        }
    }

    /// Every node of the network.
    pub fn nodes(&self) -> u32 {
        self.storage + self.interfaces + self.managers
    }

    /// The name of network node `n` in link names: `node n` for the storage nodes,
    /// `interface i` for the interface nodes numbered after them, `manager` for the object
    /// manager after those.
    pub fn name(&self, n: u32) -> String {
        if n < self.storage {
            format!("node {n}")
        } else if n < self.storage + self.interfaces {
            format!("interface {}", n - self.storage)
        } else {
            "manager".to_string()
        }
    }

    /// How many nodes of each role, for errors about the node count: `42 nodes (35
    /// storage, 6 interface, 1 manager)`, or `35 nodes` when there are storage nodes only.
    pub fn count(&self) -> String {
        let n = self.nodes();
        if self.interfaces == 0 && self.managers == 0 {
            return format!("{n} nodes");
        }
        let mut parts = vec![format!("{} storage", self.storage)];
        if self.interfaces > 0 {
            parts.push(format!("{} interface", self.interfaces));
        }
        if self.managers > 0 {
            parts.push(format!("{} manager", self.managers));
        }
        format!("{n} nodes ({})", parts.join(", "))
    }
}

/// The build context of an interconnect's unit tests: `nodes` storage nodes, `interfaces`
/// interface nodes and `managers` manager nodes, nothing else.
#[cfg(test)]
pub(crate) fn test_context(
    nodes: u32,
    interfaces: u32,
    managers: u32,
) -> vodbench_plugin_api::plugin::BuildContext<'static> {
    vodbench_plugin_api::plugin::BuildContext::for_test()
        .with_component("server.network", 0)
        .with_nodes(nodes)
        .with_interfaces(interfaces)
        .with_managers(managers)
        .with_block_bytes(65_536)
}
