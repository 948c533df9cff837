//! Interconnects ([`Interconnect`](vodbench_plugin_api::plugin::Interconnect)): the network
//! between terminals and server nodes, and between nodes.

pub mod ideal;
pub mod mesh2d;
pub mod ports;

use vodbench_plugin_api::plugin::{PluginError, Registry};
use vodbench_plugin_api::units::{fmt_duration_ns, Bandwidth};

/// Registers the built-in interconnects.
pub fn register(r: &mut Registry) {
    r.add::<ideal::Ideal>();
    r.add::<ports::Ports>();
    r.add::<mesh2d::Mesh2d>();
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

/// The name of network node `n` in link names: `node n` for the `storage` nodes, `interface
/// i` for the interface nodes numbered after them.
fn node_name(n: u32, storage: u32) -> String {
    if n < storage {
        format!("node {n}")
    } else {
        format!("interface {}", n - storage)
    }
}
