//! `[server.network]`: the interconnect between terminals and nodes, a plugin (SPIFFI §6.2,
//! Table 1), and the size of a terminal's request message.

use crate::scenario::slots::{SlotField, TableMut};
use crate::units::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `[server.network]`: the interconnect between terminals and nodes, a plugin. Without
/// `name` it is the binary's default interconnect (in vodbench `ideal`: SPIFFI §6.2, Table
/// 1's bus of unlimited aggregate bandwidth with a per-message delay of `latency + per_byte ×
/// size`, 5 µs + 0.04 µs/byte) and the section's other keys are its parameters; `name =
/// "ports"` (say) chooses another. `request_bytes` belongs to the terminals' protocol, not to
/// the interconnect.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Network {
    /// The interconnect plugin (default: the binary's default interconnect).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The interconnect's parameters (`vodbench plugins` lists them).
    #[serde(flatten)]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub params: toml::Table,
    /// Size of a terminal's read request message (default 128 bytes).
    #[serde(default = "default_request_bytes")]
    pub request_bytes: Bytes,
}

fn default_request_bytes() -> Bytes {
    Bytes(128)
}

impl Default for Network {
    fn default() -> Self {
        Network {
            name: None,
            params: toml::Table::new(),
            request_bytes: default_request_bytes(),
        }
    }
}

/// The slot `[server.network]`: the interconnect's name, if given, and its parameters inline.
impl SlotField for Network {
    fn as_table(&mut self) -> TableMut<'_> {
        TableMut::Inline {
            name: &self.name,
            params: &mut self.params,
        }
    }
}
