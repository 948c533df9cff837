//! `[server.bus]`: the SCSI buses between each node and its disks (Wu et al. §3, eq. 1–2),
//! with its section check.

use super::values::{dur, plain, range, HOUR};
use crate::units::{Bandwidth, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[server.bus]`: SCSI buses between each node and its disks (Wu et al. §3, eq. 1–2). A
/// disk access becomes: the command on the bus (`command`, Wu's D1), positioning off the bus
/// when the disk disconnects (D2), arbitration for the bus to reconnect (D3), and the data
/// transfer holding the bus. Each node's disks are grouped in order, `disks_per_bus` to a
/// bus (Pappas et al.'s 4 disks on 2 controllers: `disks_per_bus = 2`). Where the phases,
/// the arbitration and the transfer rate are defined: `harness/src/system/ondemand/bus.rs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BusSection {
    /// Bus bandwidth, e.g. `"10MB/s"` (Fast SCSI-2, Wu's r_bus); more than 0.
    pub rate: Bandwidth,
    /// Time a command holds the bus (Wu's D1; default 1ms).
    #[serde(default = "default_bus_command")]
    pub command: Duration,
    /// Disks on each bus (default: every disk of the node on one bus; 1..=1024).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disks_per_bus: Option<u32>,
    /// Whether a disk releases the bus while it positions (SCSI disconnect; default true).
    /// Without, the bus stays held from the command to the end of the transfer.
    #[serde(default = "default_true")]
    pub disconnect: bool,
    /// Whether a disk reads the media into its own buffer first and then sends the data at
    /// the bus rate (true), or sends it as it comes off the media, holding the bus at the
    /// slower of the media and the bus rate (false, default).
    #[serde(default)]
    pub buffered: bool,
    /// Which waiting request gets a free bus: `"priority"` (default: SCSI arbitration, the
    /// highest ID wins; the host adapter's commands above every disk, disk j of a bus has ID
    /// j, so the bus's last disk first) or `"fifo"` (in the order they asked).
    #[serde(default)]
    pub arbitration: Arbitration,
}

impl BusSection {
    /// `[server.bus]`: a bandwidth above 0, the command overhead and bus sizes in range.
    pub(super) fn validate(&self) -> Result<(), (String, String)> {
        if self.rate.0 == 0 {
            return Err((
                "server.bus.rate".into(),
                "must be more than 0 (a bandwidth such as \"10MB/s\"): a bus at 0 moves no \
                 data"
                    .into(),
            ));
        }
        range("server.bus.command", self.command.0, 0, HOUR, &dur)?;
        if let Some(n) = self.disks_per_bus {
            range("server.bus.disks_per_bus", u64::from(n), 1, 1024, &plain)?;
        }
        Ok(())
    }
}

/// How a free bus chooses among the requests waiting for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Arbitration {
    /// SCSI priority by ID: the host adapter's commands, then the disk with the highest
    /// position on the bus; equal priorities in the order they asked.
    #[default]
    Priority,
    /// In the order they asked.
    Fifo,
}

fn default_bus_command() -> Duration {
    Duration(1_000_000)
}

fn default_true() -> bool {
    true
}
