//! Interconnects ([`Interconnect`](vodbench_plugin_api::plugin::Interconnect)): the network
//! between terminals and server nodes, and between nodes.

pub mod ideal;
pub mod mesh2d;
pub mod ports;

use vodbench_plugin_api::plugin::Registry;

/// Registers the built-in interconnects.
pub fn register(r: &mut Registry) {
    r.add::<ideal::Ideal>();
    r.add::<ports::Ports>();
    r.add::<mesh2d::Mesh2d>();
}
