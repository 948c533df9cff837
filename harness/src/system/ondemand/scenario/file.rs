//! The scenario file's structure: every section, key, default and allowed range.

use crate::scenario::slots::PluginTable;
use crate::trace::GeneratorParams;
use crate::units::{Bandwidth, BitRate, Bytes, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Largest terminal count a scenario may ask for.
pub const MAX_TERMINALS: u32 = 1_000_000;
/// Largest terminal buffer, in stripe blocks (of which at most 128 are asked for and not
/// yet arrived at any time).
pub const MAX_TERMINAL_BLOCKS: u64 = 1 << 20;

/// A whole scenario file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Name used for the output folder and reports (default: the file name without `.toml`).
    #[serde(default)]
    pub name: Option<String>,
    /// Free text shown in reports.
    #[serde(default)]
    pub description: String,
    /// Seed from which every random stream of the run is derived.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Plugin libraries this scenario loads (`[plugins] load`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<crate::scenario::libraries::PluginsSection>,
    /// Warm-up and measured duration.
    pub run: RunSection,
    /// The video library.
    pub videos: VideoSection,
    /// Server topology: nodes, disks, memory, CPU, network.
    pub server: ServerSection,
    /// Disk timing model and disk scheduler.
    #[serde(default)]
    pub disk: DiskSection,
    /// Data layout plugin (default: the binary's; `striped` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<PluginTable>,
    /// Buffer-pool page replacement plugin (default: the binary's; `global-lru` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pool: Option<PluginTable>,
    /// Prefetching plugin (default: the binary's; `standard` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefetcher: Option<PluginTable>,
    /// Admission control: which new streams are served (default: the binary's; in vodbench
    /// `accept-all`, every stream, as SPIFFI). Recorded in manifests only when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<PluginTable>,
    /// Transmission scheduling on the egress link (Pappas et al. §3.2; no default: without
    /// it a block goes to its terminal as one message over `[server.network]`). Needs
    /// `[server.egress]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transmission: Option<PluginTable>,
    /// Client profiles (Pappas et al. §2.3; with `[transmission]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<super::ClientsSection>,
    /// The video terminals (clients).
    pub terminals: TerminalSection,
    /// Where the viewers' events come from: a trace file or a generator.
    pub workload: WorkloadSection,
    /// How `ff`/`rewind` searches work (SPIFFI §8.1; default: skip, 1s of every 8s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interactive: Option<super::InteractiveSection>,
    /// Start delays for piggybacking viewers of the same video (SPIFFI §8.2; default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piggyback: Option<super::PiggybackSection>,
    /// Published figures for this configuration (shown as "paper" beside vodbench's values).
    #[serde(default)]
    pub paper: BTreeMap<String, f64>,
    /// Prices of the server's storage, for the cost per terminal `vodbench sweep` reports
    /// (SPIFFI §7.6, Table 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostSection>,
    /// The analytic model `vodbench analyze` evaluates at this configuration (no default:
    /// e.g. `wu-blocksize`; `vodbench plugins` lists them). It changes nothing a run
    /// simulates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analytic: Option<PluginTable>,
}

/// `[cost]`: storage prices (SPIFFI §7.6: "9 Gbyte disks are available for approximately
/// $4,000, and memory costs about $40/Mbyte"). Cost = disks × `disk` + server memory in MiB
/// × `memory_per_mib`; cost per terminal divides it by the maximum glitch-free terminals.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CostSection {
    /// Price of one disk (default 0).
    #[serde(default)]
    pub disk: f64,
    /// Price of one MiB of server buffer memory (default 0: disks only, as in Table 3).
    #[serde(default)]
    pub memory_per_mib: f64,
}

impl CostSection {
    /// Each price is 0 or more.
    fn validate(&self) -> Result<(), (String, String)> {
        for (k, v) in [
            ("cost.disk", self.disk),
            ("cost.memory_per_mib", self.memory_per_mib),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err((k.into(), format!("must be a price of 0 or more, got {v}")));
            }
        }
        Ok(())
    }

    /// The storage cost of a server with `disks` disks and `memory_bytes` of buffer memory.
    pub fn total(&self, disks: u64, memory_bytes: u64) -> f64 {
        disks as f64 * self.disk + memory_bytes as f64 / (1u64 << 20) as f64 * self.memory_per_mib
    }
}

fn default_seed() -> u64 {
    1
}

/// `[run]`: how long to simulate.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// `"auto"` (default): measurement starts once every terminal has begun displaying its
    /// first video (SPIFFI §6). Or a fixed duration such as `"5min"`.
    #[serde(default)]
    pub warmup: Warmup,
    /// Length of the measured period after warm-up.
    pub duration: Duration,
    /// Interval between samples of the time series (`timeseries.csv`: buffer occupancy,
    /// server memory, disk utilization, queue lengths) during the measured period.
    #[serde(default = "default_sample_interval")]
    pub sample_interval: Duration,
    /// Keep every n-th disk request of the measured period, with its I/O time parts, in
    /// `requests.csv` (0: none).
    #[serde(default = "default_request_sample_every")]
    pub request_sample_every: u32,
    /// Split the delay of every fragment request into Jadav et al.'s components (N_C, D_T,
    /// D_S, D_R, N_Q, S_Q, R_tot: `summary.json`'s `request_delays`, `delays.csv`, the
    /// report's stacked charts). Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub request_delays: bool,
    /// Measure continuity as Wu et al. define it (§4.2, eq. 9–10): for each buffer length
    /// l = 1…`continuity`, the share of windows of l consecutive block arrivals of a
    /// continuously served stream that arrived in less time than they play
    /// (`summary.json`'s `continuity`, `continuity.csv`). 0 (default) measures nothing; at
    /// most 100.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub continuity: u32,
}

impl RunSection {
    /// `[run]`: the durations and counts in range.
    fn validate(&self) -> Result<(), (String, String)> {
        range(
            "run.duration",
            self.duration.0,
            1_000_000_000,
            1000 * HOUR,
            &dur,
        )?;
        if let Warmup::Fixed(w) = self.warmup {
            range("run.warmup", w.0, 0, 1000 * HOUR, &dur)?;
        }
        range(
            "run.sample_interval",
            self.sample_interval.0,
            1_000_000,
            1000 * HOUR,
            &dur,
        )?;
        // 0 would keep no request at all: an empty requests table that looks measured
        range(
            "run.request_sample_every",
            u64::from(self.request_sample_every),
            1,
            u64::from(u32::MAX),
            &plain,
        )?;
        // windows of 0 … 100 blocks (0: not measured)
        range(
            "run.continuity",
            u64::from(self.continuity),
            0,
            u64::from(super::super::continuity::MAX_WINDOW),
            &plain,
        )
    }
}

fn default_sample_interval() -> Duration {
    Duration(1_000_000_000)
}

fn default_request_sample_every() -> u32 {
    16
}

/// When measurement starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Warmup {
    /// When every terminal with a start event has begun display.
    #[default]
    Auto,
    /// After a fixed simulated time.
    Fixed(Duration),
}

impl Serialize for Warmup {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Warmup::Auto => s.serialize_str("auto"),
            Warmup::Fixed(d) => d.serialize(s),
        }
    }
}

impl JsonSchema for Warmup {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Warmup".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        auto_or_duration_schema("5min")
    }
}

impl<'de> Deserialize<'de> for Warmup {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(auto_or_duration(d, "5min")?.map_or(Warmup::Auto, Warmup::Fixed))
    }
}

/// The schema of a key that takes `"auto"` or a duration (`example` is one), as
/// [`auto_or_duration`] takes it: "auto", nanoseconds, or a duration string.
pub(super) fn auto_or_duration_schema(example: &str) -> schemars::Schema {
    schemars::json_schema!({
        "description": format!("\"auto\" or a duration such as \"{example}\" (or nanoseconds)"),
        "anyOf": [
            { "const": "auto" },
            { "type": "integer", "minimum": 0 },
            { "type": "string" }
        ]
    })
}

/// Reads `"auto"` (`None`), a duration string or nanoseconds; an error names `example` as
/// what is allowed.
pub(super) fn auto_or_duration<'de, D: serde::Deserializer<'de>>(
    d: D,
    example: &str,
) -> Result<Option<Duration>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        S(String),
        N(u64),
    }
    let expected = format!("expected \"auto\" or a duration such as \"{example}\"");
    match Raw::deserialize(d).map_err(|_| serde::de::Error::custom(&expected))? {
        Raw::S(s) if s == "auto" => Ok(None),
        Raw::S(s) => crate::units::parse_duration_ns(&s)
            .map(|n| Some(Duration(n)))
            .ok_or_else(|| serde::de::Error::custom(format!("invalid value \"{s}\", {expected}"))),
        Raw::N(n) => Ok(Some(Duration(n))),
    }
}

/// `[videos]`: the library. Every video has the same length and bit rate.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VideoSection {
    /// Number of videos (1..=100000).
    pub count: u32,
    /// Length of each video (1s..=100h).
    pub length: Duration,
    /// Mean bit rate (1kbit/s..=10Gbit/s).
    pub bit_rate: BitRate,
    /// Frames per second (1..=240; default 30).
    #[serde(default = "default_fps")]
    pub fps: u32,
    /// Frame sizes: `"mpeg"` (SPIFFI §6.1 VBR, default) or `"cbr"` (all frames equal).
    #[serde(default)]
    pub frames: FrameModel,
    /// MPEG group-of-pictures pattern (default `IBBPBBPBBPBBPBB`: I:P:B frequency 1:4:10).
    #[serde(default = "default_gop")]
    pub gop: String,
    /// Mean I:P:B frame size ratio (default `[10, 5, 2]`).
    #[serde(default = "default_ratio")]
    pub size_ratio: [f64; 3],
}

impl VideoSection {
    /// Nominal stripe blocks per video of `stripe` bytes (at the mean bit rate, twice over
    /// for the frames' spread), for range checks before the library is generated.
    pub fn nominal_blocks(&self, stripe: u64) -> u64 {
        let bytes = u128::from(self.length.0) * u128::from(self.bit_rate.0) / 8 / 1_000_000_000;
        (bytes as u64).div_ceil(stripe.max(1)) * 2
    }

    /// `[videos]`: counts, lengths and rates in range, a GOP pattern, frame size ratios.
    fn validate(&self) -> Result<(), (String, String)> {
        let v = self;
        range("videos.count", u64::from(v.count), 1, 100_000, &plain)?;
        range("videos.length", v.length.0, 1_000_000_000, 100 * HOUR, &dur)?;
        range(
            "videos.bit_rate",
            v.bit_rate.0,
            1_000,
            10_000_000_000,
            &rate,
        )?;
        range("videos.fps", u64::from(v.fps), 1, 240, &plain)?;
        if v.gop.is_empty()
            || !v.gop.starts_with('I')
            || !v.gop.chars().all(|c| matches!(c, 'I' | 'P' | 'B'))
            || v.gop.len() > 1000
        {
            return Err((
                "videos.gop".into(),
                format!(
                    "must be a pattern of I, P and B frames starting with I (at most 1000), got {:?}",
                    v.gop
                ),
            ));
        }
        if v.size_ratio
            .iter()
            .any(|r| !r.is_finite() || *r <= 0.0 || *r > 1e6)
        {
            return Err((
                "videos.size_ratio".into(),
                format!(
                    "must be three positive finite numbers (I, P, B), got {:?}",
                    v.size_ratio
                ),
            ));
        }
        Ok(())
    }
}

fn default_fps() -> u32 {
    30
}
fn default_gop() -> String {
    "IBBPBBPBBPBBPBB".into()
}
fn default_ratio() -> [f64; 3] {
    [10.0, 5.0, 2.0]
}

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

/// How frame sizes vary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FrameModel {
    /// Exponentially distributed I/P/B frame sizes (SPIFFI §6.1).
    #[default]
    Mpeg,
    /// Constant bit rate: every frame the same size.
    Cbr,
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
    fn validate_nodes(&self) -> Result<(), (String, String)> {
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
    fn validate_storage(&self, transmission: bool) -> Result<(), (String, String)> {
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
    fn validate(&self) -> Result<(), (String, String)> {
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

/// `[server.interface_cpu]`: each interface node's CPU, one job at a time, first come first
/// served (Jadav et al. §5.2's "scheduling, processing and buffering (copying) overhead" per
/// message): `send` for each stream request it sends, `receive` for each fragment it
/// receives plus the fragment's bytes at `copy_rate` (copied into the stream's buffer), and,
/// with `client_packet`, the packets it sends each playing client: one of `client_packet`
/// bytes every δ_I (the packet's playout time, eq. 1), costing `client_send` plus its bytes
/// at `copy_rate`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InterfaceCpuSection {
    /// CPU time to send a request (default 0).
    #[serde(default)]
    pub send: Duration,
    /// CPU time to receive a fragment (default 0).
    #[serde(default)]
    pub receive: Duration,
    /// The rate a fragment (and a client packet) is copied at (default: no copy time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_rate: Option<crate::units::Bandwidth>,
    /// P_I, the packet the interface node sends each playing client every δ_I, its playout
    /// time (Jadav et al. §3.2, eq. 1: 64KB in the paper; default: no packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_packet: Option<Bytes>,
    /// CPU time to send one client packet, besides its bytes at `copy_rate` (default 0).
    #[serde(default, skip_serializing_if = "is_zero_duration")]
    pub client_send: Duration,
}

impl InterfaceCpuSection {
    /// `[server.interface_cpu]` with `interfaces` interface nodes and videos of `bit_rate`.
    fn validate(&self, interfaces: u32, bit_rate: u64) -> Result<(), (String, String)> {
        let c = self;
        if interfaces == 0 {
            return Err((
                "server.interface_cpu".into(),
                "describes the interface nodes' CPUs, but there are none: set \
                 server.interface_nodes, or remove this table"
                    .into(),
            ));
        }
        range(
            "server.interface_cpu.send",
            c.send.0,
            0,
            10_000_000_000,
            &dur,
        )?;
        range(
            "server.interface_cpu.receive",
            c.receive.0,
            0,
            10_000_000_000,
            &dur,
        )?;
        if let Some(r) = c.copy_rate {
            if r.0 == 0 {
                return Err((
                    "server.interface_cpu.copy_rate".into(),
                    "must be above 0 (leave it out for no copy time)".into(),
                ));
            }
        }
        range(
            "server.interface_cpu.client_send",
            c.client_send.0,
            0,
            10_000_000_000,
            &dur,
        )?;
        if let Some(p) = c.client_packet {
            // one packet per playout time δ_I: at least 1 ms of video, so that packets
            // cannot flood the event queue
            let play_ns = u128::from(p.0) * 8 * 1_000_000_000 / u128::from(bit_rate.max(1));
            if p.0 == 0 || play_ns < 1_000_000 {
                return Err((
                    "server.interface_cpu.client_packet".into(),
                    format!(
                        "must hold at least 1 ms of video (at {} that is {} bytes), got {}",
                        crate::units::fmt_bit_rate(bit_rate),
                        (bit_rate / 8_000).max(1),
                        size(&p.0)
                    ),
                ));
            }
        } else if c.client_send.0 > 0 {
            return Err((
                "server.interface_cpu.client_send".into(),
                "is the cost of a client packet, but client_packet is not set: set \
                 server.interface_cpu.client_packet (e.g. \"64KB\")"
                    .into(),
            ));
        }
        Ok(())
    }
}

fn is_zero_duration(d: &Duration) -> bool {
    d.0 == 0
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
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

/// `[disk]`: the disk timing model and the scheduler, both plugins.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiskSection {
    /// Disk model (default: the binary's; in vodbench `analytic` with the SPIFFI ST15150N
    /// spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<PluginTable>,
    /// Disk scheduler (default: the binary's; `elevator` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<PluginTable>,
}

/// `[terminals]`: the clients (SPIFFI §5.1).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerminalSection {
    /// Number of terminals (1..=1000000; `--terminals` overrides).
    pub count: u32,
    /// Buffer memory of each terminal (at least one stripe block, at most 2^20; a terminal
    /// has at most 128 blocks asked for and not yet arrived at a time).
    pub memory: Bytes,
    /// Data to buffer before display starts or resumes after a glitch (and at least the
    /// whole of the first frame to show). Default: fill the whole buffer (SPIFFI's priming).
    #[serde(default)]
    pub prime: Option<Bytes>,
    /// Read in rounds of several blocks requested together (Jadav et al. §3.2, eq. 1–3: an
    /// interface node fetches a stream's next fragment set, one fragment from each of the S
    /// nodes holding the object, every round); absent: one block at a time whenever there is
    /// room (SPIFFI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundsSection>,
}

impl TerminalSection {
    /// `[terminals]` against the stripe (`stripe`): the count, the memory (at least a
    /// block, at most [`MAX_TERMINAL_BLOCKS`]), the priming, `[terminals.rounds]`.
    fn validate(&self, stripe: u64) -> Result<(), (String, String)> {
        let t = self;
        range(
            "terminals.count",
            u64::from(t.count),
            1,
            u64::from(MAX_TERMINALS),
            &plain,
        )?;
        range(
            "terminals.memory",
            t.memory.0,
            stripe,
            MAX_TERMINAL_BLOCKS * stripe,
            &|v| format!("{} ({} stripe blocks)", size(v), *v as f64 / stripe as f64),
        )?;
        if let Some(p) = t.prime {
            range("terminals.prime", p.0, 1, t.memory.0, &size)?;
        }
        if let Some(r) = &t.rounds {
            r.validate(t.memory.0, stripe)?;
        }
        Ok(())
    }
}

/// `[terminals.rounds]`: a terminal reads `blocks` blocks at a time (a fragment set): it asks
/// for a set only when its memory has room for all of it, and asks for the set's blocks
/// together.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoundsSection {
    /// Blocks per round (Jadav's stripe factor S: one fragment from each node holding the
    /// object), 1..=32; `terminals.memory` must hold at least one round.
    pub blocks: u32,
    /// When a set is asked for while the terminal plays: `eager` (default: as soon as there
    /// is room for it — with memory for two sets, at the start of the previous set's
    /// playout, the paper's double-buffered variant) or `latest` (`lead` before its first
    /// frame is due, eq. 3's t_max = t + δ_S − δ_io, and not before there is room). While
    /// priming, sets are asked for as soon as there is room.
    #[serde(default)]
    pub issue: RoundIssue,
    /// With `issue = "latest"`: how long before its first frame is due a set is asked for
    /// (eq. 2's δ_io, the expected time to fetch a fragment; `vodbench analyze` with the
    /// `jadav-timing` model prints it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead: Option<Duration>,
}

impl RoundsSection {
    /// `[terminals.rounds]` with terminals of `memory` bytes and a stripe of `stripe`: one
    /// round's blocks fit, `lead` given exactly with `issue = "latest"`.
    fn validate(&self, memory: u64, stripe: u64) -> Result<(), (String, String)> {
        let r = self;
        range(
            "terminals.rounds.blocks",
            u64::from(r.blocks),
            1,
            32,
            &plain,
        )?;
        let set = u64::from(r.blocks) * stripe;
        if memory < set {
            return Err((
                "terminals.memory".into(),
                format!(
                    "{} cannot hold one round of terminals.rounds.blocks = {} stripe blocks \
                     of {} ({}): give at least that",
                    size(&memory),
                    r.blocks,
                    size(&stripe),
                    size(&set)
                ),
            ));
        }
        match (r.issue, r.lead) {
            (RoundIssue::Latest, None) => Err((
                "terminals.rounds.lead".into(),
                "issue = \"latest\" needs `lead`, how long before its first frame \
                 is due a set is asked for (eq. 2's δ_io), such as \"60ms\""
                    .into(),
            )),
            (RoundIssue::Eager, Some(_)) => Err((
                "terminals.rounds.lead".into(),
                "is used only with issue = \"latest\"; remove it, or set issue = \
                 \"latest\""
                    .into(),
            )),
            (_, Some(l)) => range("terminals.rounds.lead", l.0, 0, 3_600_000_000_000, &dur),
            _ => Ok(()),
        }
    }
}

/// When a round's set is asked for ([`RoundsSection::issue`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RoundIssue {
    /// As soon as there is room for it.
    #[default]
    Eager,
    /// `lead` before its first frame is due.
    Latest,
}

/// `[workload]`: exactly one of `trace` or `[workload.generate]`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    /// A trace file (format: `traces/README.md`), relative to the scenario file.
    #[serde(default)]
    pub trace: Option<PathBuf>,
    /// Generate the workload instead (Zipf or uniform popularity, pauses, seeks).
    #[serde(default)]
    pub generate: Option<GeneratorParams>,
}

impl WorkloadSection {
    /// `[workload]`: a trace or a generator, exactly one.
    fn validate(&self) -> Result<(), (String, String)> {
        match (&self.trace, &self.generate) {
            (Some(_), None) => Ok(()),
            (None, Some(g)) => g
                .validate()
                .map_err(|(k, m)| (format!("workload.generate.{k}"), m)),
            (Some(_), Some(_)) => Err((
                "workload".into(),
                "give either `trace` or `[workload.generate]`, not both".into(),
            )),
            (None, None) => Err((
                "workload".into(),
                "missing: give `trace = \"file.trace\"` or a `[workload.generate]` table".into(),
            )),
        }
    }
}

/// The longest `description` a scenario may have (64 KiB).
pub const MAX_DESCRIPTION_BYTES: usize = 64 << 10;

fn range<T: PartialOrd + std::fmt::Display>(
    key: &str,
    v: T,
    lo: T,
    hi: T,
    shown: &dyn Fn(&T) -> String,
) -> Result<(), (String, String)> {
    if v < lo || v > hi {
        Err((
            key.to_string(),
            format!(
                "must be in {}..={}, got {}",
                shown(&lo),
                shown(&hi),
                shown(&v)
            ),
        ))
    } else {
        Ok(())
    }
}

const HOUR: u64 = 3_600_000_000_000;

fn plain(v: &u64) -> String {
    v.to_string()
}

fn dur(v: &u64) -> String {
    crate::units::fmt_duration_ns(*v)
}

fn size(v: &u64) -> String {
    crate::units::fmt_bytes(*v)
}

fn rate(v: &u64) -> String {
    crate::units::fmt_bit_rate(*v)
}

impl ScenarioFile {
    /// `[server] interface_memory` against the streams' buffers: it must hold one stream's
    /// (`terminals.memory`), and, when every stream of the load is served (no `[admission]`
    /// table), those of the streams dealt to one interface node: ⌈count / interface_nodes⌉
    /// of them, or every one under `[server.replication]`, whose object manager may send any
    /// share of the viewings to the dedicated interface node.
    fn check_interface_memory(&self, memory: u64) -> Result<(), (String, String)> {
        let s = &self.server;
        let key = "server.interface_memory";
        let size = |v: u64| crate::units::fmt_bytes(v);
        if s.interface_nodes == 0 {
            return Err((
                key.into(),
                "is the memory of each interface node, but there are none: set \
                 server.interface_nodes, or remove it"
                    .into(),
            ));
        }
        let b = self.terminals.memory.0;
        if memory < b {
            return Err((
                key.into(),
                format!(
                    "{} cannot hold even one stream's buffer (terminals.memory = {}): raise it \
                     to at least {}",
                    size(memory),
                    size(b),
                    size(b)
                ),
            ));
        }
        if self.admission.is_some() {
            // streams are admitted against it as the run goes (`buffer` takes this as B_I_tot,
            // and the engine refuses what the policy admits but the memory cannot hold)
            return Ok(());
        }
        let count = u64::from(self.terminals.count);
        let (per, how) = if s.replication.is_some() {
            (
                count,
                "every stream may go to the dedicated one under [server.replication]",
            )
        } else {
            (
                count.div_ceil(u64::from(s.interface_nodes)),
                "dealt round-robin",
            )
        };
        let need = per.saturating_mul(b);
        if need > memory {
            return Err((
                key.into(),
                format!(
                    "{} cannot hold the buffers of the {per} streams one interface node serves \
                     ({count} terminals over {} interface nodes, {how}): {per} × \
                     terminals.memory {} = {}. Raise it to at least {}, lower terminals.count \
                     or terminals.memory, or let admission control refuse streams \
                     ([admission] name = \"buffer\")",
                    size(memory),
                    s.interface_nodes,
                    size(b),
                    size(need),
                    size(need)
                ),
            ));
        }
        Ok(())
    }

    /// Checks every value's range and the consistency between sections, section by section
    /// (each section's own checks beside it). The error names the key path and what is
    /// allowed.
    pub fn validate(&self) -> Result<(), (String, String)> {
        self.validate_egress()?;
        self.validate_server_rounds()?;
        if let Some(c) = &self.clients {
            if self.transmission.is_none() {
                return Err((
                    "clients".into(),
                    "client profiles are used only with [transmission]".into(),
                ));
            }
            c.validate()?;
        }
        self.validate_paper()?;
        if let Some(c) = &self.cost {
            c.validate()?;
        }
        self.run.validate()?;
        self.validate_description()?;
        self.videos.validate()?;
        let s = &self.server;
        s.validate_nodes()?;
        if let Some(c) = &s.interface_cpu {
            c.validate(s.interface_nodes, self.videos.bit_rate.0)?;
        }
        if let Some(m) = &s.message_work {
            m.check(
                s.interface_nodes,
                s.interface_cpu.is_some(),
                s.storage_threading == StorageThreading::Single,
            )?;
        }
        if let Some(m) = s.interface_memory {
            self.check_interface_memory(m.0)?;
        }
        s.validate_storage(self.transmission.is_some())?;
        self.terminals.validate(s.stripe.0)?;
        let blocks = self.videos.nominal_blocks(s.stripe.0);
        if blocks > u64::from(u32::MAX) {
            return Err((
                "server.stripe".into(),
                format!(
                    "videos would have {blocks} stripe blocks; at most {}",
                    u32::MAX
                ),
            ));
        }
        self.workload.validate()?;
        if let Some(i) = &self.interactive {
            i.validate()?;
        }
        if let Some(p) = &self.piggyback {
            p.validate(self.videos.count)?;
        }
        if let Some(r) = &s.replication {
            r.validate(s.interface_nodes, blocks)?;
            self.validate_replication_scheme(r)?;
        }
        self.validate_name()
    }

    /// `[transmission]` and `[server.egress]` come together.
    fn validate_egress(&self) -> Result<(), (String, String)> {
        match (&self.transmission, &self.server.egress) {
            (Some(_), None) => Err((
                "transmission".into(),
                "needs [server.egress] (the link and CPU cost the packets are sent with)".into(),
            )),
            (None, Some(_)) => Err((
                "server.egress".into(),
                "is used only with [transmission] (the policy that sends on it)".into(),
            )),
            (Some(_), Some(e)) => e.validate(),
            (None, None) => Ok(()),
        }
    }

    /// `[server.rounds]` (with `[transmission]`, without `[terminals.rounds]`) and the
    /// stream memory that caps it (`[server] stream_memory`).
    fn validate_server_rounds(&self) -> Result<(), (String, String)> {
        if let Some(r) = &self.server.rounds {
            if self.transmission.is_none() {
                return Err((
                    "server.rounds".into(),
                    "needs [transmission] (the blocks read in a round leave through the egress)"
                        .into(),
                ));
            }
            if self.terminals.rounds.is_some() {
                return Err((
                    "server.rounds".into(),
                    "cannot be combined with [terminals.rounds] (the server, not the terminals, \
                     sets the rounds)"
                        .into(),
                ));
            }
            r.validate(self.server.stripe, self.videos.bit_rate.0)?;
        }
        let Some(cap) = self.server.stream_memory else {
            return Ok(());
        };
        let Some(r) = &self.server.rounds else {
            return Err((
                "server.stream_memory".into(),
                "needs [server.rounds] (it caps the memory of round-based retrieval)".into(),
            ));
        };
        // dblbuf and clbuf admit a stream only if its reservation (2S, S) fits;
        // clbufrate admits every stream and its reads wait for a buffer of S
        let (per, what) = match r.release {
            super::Release::Dblbuf => (2 * self.server.stripe.0, "one stream's reservation"),
            super::Release::Clbuf => (self.server.stripe.0, "one stream's reservation"),
            super::Release::Clbufrate => (self.server.stripe.0, "one block's buffer"),
        };
        if cap.0 < per {
            return Err((
                "server.stream_memory".into(),
                format!(
                    "must hold at least {what} ({} under {}), got {}",
                    crate::units::fmt_bytes(per),
                    r.release.name(),
                    crate::units::fmt_bytes(cap.0)
                ),
            ));
        }
        Ok(())
    }

    /// `[paper]`: a published value is shown beside vodbench's and divided by: a number, no
    /// NaN or infinity.
    fn validate_paper(&self) -> Result<(), (String, String)> {
        match self.paper.iter().find(|(_, v)| !v.is_finite()) {
            Some((k, v)) => Err((
                format!("paper.{k}"),
                format!("must be a finite number (a published value), got {v}"),
            )),
            None => Ok(()),
        }
    }

    /// `description`, copied into the manifest and the report: at most
    /// [`MAX_DESCRIPTION_BYTES`].
    fn validate_description(&self) -> Result<(), (String, String)> {
        if self.description.len() > MAX_DESCRIPTION_BYTES {
            return Err((
                "description".into(),
                format!(
                    "is {} bytes; a description is copied into every manifest and report, so \
                     it may have at most {MAX_DESCRIPTION_BYTES} bytes",
                    self.description.len()
                ),
            ));
        }
        Ok(())
    }

    /// A replication scheme other than RDSS is not combined with the tables it was not built
    /// to work with.
    fn validate_replication_scheme(
        &self,
        r: &super::ReplicationSection,
    ) -> Result<(), (String, String)> {
        if r.scheme == super::Scheme::Rdss {
            return Ok(());
        }
        let s = &self.server;
        let other = [
            ("admission", self.admission.is_some()),
            ("piggyback", self.piggyback.is_some()),
            ("server.rounds", s.rounds.is_some()),
            ("server.bus", s.bus.is_some()),
            ("interactive", self.interactive.is_some()),
        ];
        match other.iter().find(|(_, on)| *on) {
            Some((table, _)) => Err((
                "server.replication.scheme".into(),
                format!(
                    "{} is not built to work with [{table}]: remove one of them",
                    r.scheme.name()
                ),
            )),
            None => Ok(()),
        }
    }

    /// `name`: 1 to 200 characters.
    fn validate_name(&self) -> Result<(), (String, String)> {
        if let Some(n) = &self.name {
            let chars = n.chars().count();
            if chars == 0 || chars > 200 {
                return Err((
                    "name".into(),
                    format!("must be 1..=200 characters, got {chars}"),
                ));
            }
        }
        Ok(())
    }
}
