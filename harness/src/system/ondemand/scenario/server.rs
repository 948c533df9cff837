//! `[server]`: the shared-nothing server (SPIFFI §5.2, Table 1): its nodes (with Jadav et
//! al. §3.2's interface nodes and object manager), disks, memory, stripe, threading and CPU
//! costs (`[server.cpu]`), with its section checks.

use super::values::{is_false, is_zero, plain, range, size};
use super::{BusSection, InterfaceCpuSection, Network};
use crate::units::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[server] storage_threading`: whether a storage node's disk access runs beside its
/// messaging (`multi`) or blocks it (`single`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StorageThreading {
    /// The disk is a device: requests are received and replies sent during an access.
    #[default]
    Multi,
    /// One thread: during a disk access, and while a reply is being sent, the node neither
    /// receives nor sends nor starts another access.
    Single,
}

impl StorageThreading {
    /// Whether this is the default, `multi` (left out of the resolved scenario).
    pub fn is_multi(&self) -> bool {
        *self == StorageThreading::Multi
    }
}

/// `[server]`: the shared-nothing server (SPIFFI §5.2, Table 1).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// Number of nodes (1..=4096).
    pub nodes: u32,
    /// Disks attached to each node (1..=1024).
    pub disks_per_node: u32,
    /// Interface nodes (Jadav et al. §3.2's I nodes; default 0, none): network nodes without
    /// disks through which the terminals' messages pass, terminal t through interface t mod
    /// `interface_nodes`, so a stream's requests leave, and its fragments arrive, through its
    /// interface node's links; they are network nodes `nodes ..` (`vodbench net calibrate`
    /// numbers them so). The `nodes` above are then the storage nodes. 0..=4096.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub interface_nodes: u32,
    /// Whether the object manager (Jadav et al. §3.2's A node) is a node of the interconnect
    /// (default false: its routing and admission decisions cost no messages). With `true`
    /// (needs `interface_nodes`), it is network node `nodes + interface_nodes`, without
    /// disks, and each viewing's start costs two messages of `network.request_bytes`: its
    /// delegation from the manager to the chosen interface node, which decides admission when
    /// it arrives, and the answer back; the stream starts when the manager has the answer
    /// (see `harness/src/system/ondemand/manager.rs`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub manager_node: bool,
    /// The interface nodes' CPUs (with `interface_nodes`; absent: their work per message is
    /// not modelled beyond the interconnect's `send_cost` and `receive_cost`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_cpu: Option<InterfaceCpuSection>,
    /// Each node's message handler, at the interface and the storage nodes (with
    /// `interface_nodes`; absent: a message's software work is not modelled beyond the
    /// interconnect's `send_cost` and `receive_cost`; see
    /// `harness/src/system/ondemand/message_work.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_work: Option<super::MessageWorkSection>,
    /// How a storage node's software drives its disk (Jadav et al. §5: the disk access was
    /// "simulated by elapsing the system timer on each server node"): `"multi"` (default),
    /// the disk a device of its own, the node receiving and sending while it reads; or
    /// `"single"`, one thread that receives nothing and sends nothing while an access is under
    /// way and is held by each reply until it is delivered (the notes' §4.2 variant; see
    /// `harness/src/system/ondemand/storage_thread.rs`).
    #[serde(default, skip_serializing_if = "StorageThreading::is_multi")]
    pub storage_threading: StorageThreading,
    /// Buffer-pool memory per node; it holds `memory_per_node / stripe` pages. With
    /// `interface_nodes`, the storage nodes' memory.
    pub memory_per_node: Bytes,
    /// The memory of each interface node for its streams' buffers (Jadav et al. §7.1's
    /// B_I_tot; a stream's buffer is `terminals.memory`), with `interface_nodes` (default:
    /// not declared). The `buffer` admission policy (eq. 4) takes it as B_I_tot when its own
    /// `total` is not given. With `[admission]`, a stream any policy admits is still refused
    /// (reason `interface_memory`) when its buffer does not fit beside those its interface
    /// node holds; without it every stream of the load is served, so the buffers of the
    /// streams dealt to one interface node must fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_memory: Option<Bytes>,
    /// Stripe block size: the unit of layout, of every read, and the buffer page size (4KiB..=64MiB).
    pub stripe: Bytes,
    /// CPU speed in MIPS (default 40, SPIFFI Table 1).
    #[serde(default = "default_mips")]
    pub cpu_mips: u32,
    /// CPU cost of each operation, in instructions.
    #[serde(default)]
    pub cpu: CpuCosts,
    /// Network between terminals and nodes.
    #[serde(default)]
    pub network: Network,
    /// SCSI buses between each node and its disks (default: none, each disk's model alone
    /// times its accesses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus: Option<BusSection>,
    /// The egress link the transmission policy sends packets on (with `[transmission]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egress: Option<super::EgressSection>,
    /// Server-push retrieval in rounds and the release policy (Pappas et al. §4; with
    /// `[transmission]`). Without it each terminal asks for blocks while its buffer has room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<super::ServerRoundsSection>,
    /// A cap on the server's stream memory (with `[server.rounds]`, `release = "dblbuf"` or
    /// `"clbuf"`): a stream is admitted only if its reservation (2 stripe blocks under
    /// `dblbuf`, 1 under `clbuf`) fits beside the admitted streams' (Pappas et al. §4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_memory: Option<Bytes>,
    /// Jadav et al. §6's schemes for a popular object, RDSS, LDSS and LMSS, with the object
    /// manager's popularity detection (default: none, RDSS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replication: Option<super::ReplicationSection>,
}

impl ServerSection {
    /// `[server]`'s nodes: how many, and the object manager's node only with interface nodes
    /// to delegate to.
    pub(super) fn validate_nodes(&self) -> Result<(), (String, String)> {
        let s = self;
        range("server.nodes", u64::from(s.nodes), 1, 4096, &plain)?;
        range(
            "server.interface_nodes",
            u64::from(s.interface_nodes),
            0,
            4096,
            &plain,
        )?;
        if s.manager_node && s.interface_nodes == 0 {
            return Err((
                "server.manager_node".into(),
                "makes the object manager a node that delegates each viewing to an interface \
                 node, but there are none: set server.interface_nodes (1..=4096), or \
                 manager_node = false"
                    .into(),
            ));
        }
        Ok(())
    }

    /// `[server]`'s storage: disks, stripe, memory, threading (`transmission`: whether the
    /// scenario has `[transmission]`), CPUs, `[server.bus]`, `[server.network]`.
    pub(super) fn validate_storage(&self, transmission: bool) -> Result<(), (String, String)> {
        let s = self;
        range(
            "server.disks_per_node",
            u64::from(s.disks_per_node),
            1,
            1024,
            &plain,
        )?;
        range("server.stripe", s.stripe.0, 4096, 64 << 20, &size)?;
        range(
            "server.memory_per_node",
            s.memory_per_node.0,
            2 * s.stripe.0,
            1 << 50,
            &|v| format!("{} ({} pages)", size(v), v / s.stripe.0),
        )?;
        if s.memory_per_node.0 / s.stripe.0 > u64::from(u32::MAX / 2) {
            return Err(("server.memory_per_node".into(), "too many pages".into()));
        }
        if s.storage_threading == StorageThreading::Single {
            let key = "server.storage_threading";
            if s.disks_per_node != 1 {
                return Err((
                    key.into(),
                    format!(
                        "= \"single\" is one thread driving one disk per storage node: it needs \
                         server.disks_per_node = 1 (got {}); use \"multi\" for several disks",
                        s.disks_per_node
                    ),
                ));
            }
            let other = if s.bus.is_some() {
                Some("[server.bus]")
            } else if transmission {
                Some("[transmission]")
            } else {
                None
            };
            if let Some(other) = other {
                return Err((
                    key.into(),
                    format!(
                        "= \"single\" models the storage node sending each fragment itself; it \
                         cannot be combined with {other} (use \"multi\")"
                    ),
                ));
            }
        }
        range(
            "server.cpu_mips",
            u64::from(s.cpu_mips),
            1,
            10_000_000,
            &plain,
        )?;
        for (k, val) in [
            ("server.cpu.start_io", s.cpu.start_io),
            ("server.cpu.send", s.cpu.send),
            ("server.cpu.receive", s.cpu.receive),
        ] {
            range(k, val, 0, 1_000_000_000, &plain)?;
        }
        if let Some(b) = &s.bus {
            b.validate()?;
        }
        range(
            "server.network.request_bytes",
            s.network.request_bytes.0,
            1,
            1 << 20,
            &size,
        )
    }
}

fn default_mips() -> u32 {
    40
}

/// `[server.cpu]`: instructions per operation (defaults from SPIFFI Table 1).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CpuCosts {
    /// Start a disk I/O (default 20000).
    pub start_io: u64,
    /// Send a message (default 6800).
    pub send: u64,
    /// Receive a message (default 2200).
    pub receive: u64,
}

impl Default for CpuCosts {
    fn default() -> Self {
        CpuCosts {
            start_io: 20_000,
            send: 6_800,
            receive: 2_200,
        }
    }
}
