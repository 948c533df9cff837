//! What a run produces: the summary (every metric, units in the field names) and tables.
//!
//! These are plain data, serialised to `summary.json` and to CSV/Parquet tables; reports read
//! them back and never re-simulate (DESIGN §5–6). An on-demand run's results are here; a
//! search's ([`search`]), a sweep's ([`sweep`]), a broadcast run's ([`broadcast`]) and an
//! analysis's ([`analysis`]) have a file each.

pub mod analysis;
pub mod broadcast;
pub mod search;
pub mod search_mode;
pub mod stream_memory;
pub mod sweep;
pub mod transmission;

pub use search_mode::SearchMode;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Distribution of one duration-valued quantity (nanoseconds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Number of samples.
    pub count: u64,
    /// Mean, rounded down.
    pub mean_ns: u64,
    /// Maximum.
    pub max_ns: u64,
    /// 99th percentile (from a histogram with 3 significant digits).
    pub p99_ns: u64,
}

/// Distribution of one delay component over fragment requests (nanoseconds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct DelayStat {
    /// Mean, rounded down.
    pub mean_ns: u64,
    /// Maximum.
    pub max_ns: u64,
    /// 99th percentile (histogram with 3 significant digits).
    pub p99_ns: u64,
    /// 99.9th percentile (histogram with 3 significant digits).
    pub p999_ns: u64,
}

/// The delay of every fragment request of the measured period split into Jadav et al.'s
/// components (§5, §5.1): `summary.json`'s `request_delays` (with `[run] request_delays =
/// true`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestDelays {
    /// Requests served by a disk access made for them: the ones decomposed.
    pub requests: u64,
    /// Requests served otherwise (a buffer-pool hit, a read already in progress, read-ahead):
    /// counted, not decomposed.
    pub other_requests: u64,
    /// N_C: the request's and the data's messages on an idle network.
    pub n_c: DelayStat,
    /// D_T: disk transfer.
    pub d_t: DelayStat,
    /// D_S: seek.
    pub d_s: DelayStat,
    /// D_R: rotational latency.
    pub d_r: DelayStat,
    /// N_Q: the rest of the round trip (blocking at links, the nodes' CPUs, disk controller
    /// overhead), R_tot − (N_C + S_Q + D_S + D_R + D_T), as the paper defines it.
    pub n_q: DelayStat,
    /// S_Q: wait in the storage node's disk queue.
    pub s_q: DelayStat,
    /// R_tot: from the request's sending to its data's arrival.
    pub r_tot: DelayStat,
    /// The sum of the six components' maxima: the height of the paper's stacked maximum
    /// figures (not a delay any one request had).
    pub sum_of_max_ns: u64,
}

/// Continuity measured as Wu et al. define it (§4.2, eq. 9–10): `summary.json`'s
/// `continuity` (with `[run] continuity = L`). Index `l − 1` of each list is for windows of
/// `l` consecutive inter-arrivals of a continuously served stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContinuitySummary {
    /// The longest window, L.
    pub max_l: u32,
    /// Inter-arrivals counted: a stream's next block, asked for before the previous one
    /// arrived.
    pub inter_arrivals: u64,
    /// Arrivals that ended a stream's chain instead: the block was asked for only after the
    /// previous one arrived (a full buffer), or it is not the stream's next block (a seek, a
    /// new video, an overtaking read).
    pub held_back: u64,
    /// Windows of l inter-arrivals counted.
    pub windows: Vec<u64>,
    /// Of them, the windows whose l blocks arrived in less time than they play (eq. 9).
    pub in_time: Vec<u64>,
    /// `in_time / windows`: the measured P_c(l), directly comparable with eq. 10 (`null`
    /// without windows).
    pub p_c: Vec<Option<f64>>,
}

/// Glitches during the measured period (SPIFFI §5.1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Glitches {
    /// Frames whose display time came before their data (each starts a re-prime).
    pub count: u64,
    /// Display time lost while re-priming after glitches, within the measured period.
    pub stalled_ns: u64,
    /// Terminals with at least one glitch.
    pub terminals_affected: u64,
    /// Time of the first glitch after measurement started, if any.
    pub first_glitch_ns: Option<u64>,
    /// Terminals that asked for a video before the measured period began and were still
    /// waiting for its first frame when the period ended (priming, or waiting for a
    /// piggyback stream to start): never served. Not glitches, but `vodbench search` counts
    /// each one as a glitch. Written only when not zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub never_displayed: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// Disk I/O time and its parts, over all disks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IoTime {
    /// Waiting in the disk queue.
    pub queue: Stat,
    /// Controller/bus overhead.
    pub overhead: Stat,
    /// Seek.
    pub seek: Stat,
    /// Rotational latency.
    pub rotation: Stat,
    /// Media transfer.
    pub transfer: Stat,
    /// Waiting for a SCSI bus (to send the command, to reconnect for the transfer): present
    /// when the scenario has `[server.bus]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus_wait: Option<Stat>,
    /// Service (overhead + seek + rotation + transfer, + bus wait with a bus).
    pub service: Stat,
    /// Queue + service.
    pub total: Stat,
}

/// Disk metrics over the measured period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Disks {
    /// Number of disks.
    pub count: u64,
    /// Mean busy fraction over disks.
    pub utilization_mean_ratio: f64,
    /// Least busy disk.
    pub utilization_min_ratio: f64,
    /// Busiest disk.
    pub utilization_max_ratio: f64,
    /// Requests served (started) in the period.
    pub requests: u64,
    /// Of which demand reads.
    pub demand_requests: u64,
    /// Of which prefetches.
    pub prefetch_requests: u64,
    /// Served by the on-board cache.
    pub cache_hits: u64,
    /// Time per request by part.
    pub io_time: IoTime,
}

/// Node CPUs over the measured period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cpus {
    /// Mean busy fraction over nodes.
    pub utilization_mean_ratio: f64,
    /// Busiest node.
    pub utilization_max_ratio: f64,
}

/// Buffer pools, summed over nodes, over the measured period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BufferPools {
    /// Pages per node (memory_per_node / stripe).
    pub pages_per_node: u64,
    /// Terminal reads that reached a buffer pool.
    pub references: u64,
    /// Served from a resident page.
    pub hits: u64,
    /// Joined a read already in progress (prefetch or another terminal's miss).
    pub joins: u64,
    /// Needed a disk read.
    pub misses: u64,
    /// hits / references.
    pub hit_ratio: f64,
    /// References to a page last referenced by another terminal (SPIFFI Fig. 16).
    pub shared_references: u64,
    /// shared_references / references.
    pub shared_ratio: f64,
    /// Reads that had to wait for a free page.
    pub page_waits: u64,
    /// Prefetch reads issued.
    pub prefetches_issued: u64,
    /// Prefetched pages evicted before any reference.
    pub prefetches_wasted: u64,
    /// Disk reads (demand or prefetch) of a block whose prefetched page had been evicted
    /// unreferenced since it was last read: the cost of wasted prefetches (SPIFFI §7.3).
    #[serde(default)]
    pub prefetches_reread: u64,
    /// Prefetch candidates dropped for lack of a page: none free or evictable, or the buffer
    /// pool declined to evict one for a prefetch (`love-prefetch`'s `prefetch_victims`).
    pub prefetches_dropped: u64,
    /// Mean server memory holding data (resident or being read), all nodes.
    pub memory_in_use_mean_bytes: u64,
    /// Peak server memory holding data, all nodes.
    pub memory_in_use_peak_bytes: u64,
}

/// Terminal buffers over the measured period (sampled).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TerminalBuffers {
    /// Buffer memory of each terminal.
    pub memory_bytes: u64,
    /// Mean bytes buffered per terminal.
    pub occupancy_mean_bytes: u64,
    /// Largest bytes buffered by any terminal at a sample.
    pub occupancy_peak_bytes: u64,
    /// Interval between samples.
    pub sample_interval_ns: u64,
}

/// Whole-run bookkeeping that must balance (checked by tests).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Conservation {
    /// Terminal read requests issued.
    pub requests_issued: u64,
    /// Requests whose data reached the terminal.
    pub requests_delivered: u64,
    /// Requests still in the system when the run ended.
    pub requests_in_system: u64,
    /// Bytes of demand reads from disk (misses).
    pub disk_demand_bytes: u64,
    /// Bytes served from resident pages.
    pub hit_bytes: u64,
    /// Bytes served by joining reads in progress.
    pub join_bytes: u64,
    /// Bytes of requests served by a pool but not yet handed to the network.
    pub serving_bytes: u64,
    /// Bytes handed to the network for terminals.
    pub sent_bytes: u64,
    /// Bytes in transit when the run ended.
    pub in_transit_bytes: u64,
    /// Bytes terminals received.
    pub received_bytes: u64,
    /// Bytes terminals displayed (consumed).
    pub consumed_bytes: u64,
    /// Bytes terminals dropped (seek, stop, partial first block).
    pub discarded_bytes: u64,
    /// Bytes in terminal buffers when the run ended.
    pub buffered_bytes: u64,
}

/// Every metric of one run (`summary.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Scenario name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Terminals simulated.
    pub terminals: u64,
    /// Start of the measured period.
    pub warmup_ns: u64,
    /// Length of the measured period actually simulated.
    pub measured_ns: u64,
    /// Simulated time at the end of the run.
    pub simulated_ns: u64,
    /// Whether the measured period ended early because the workload ran out.
    pub ended_early: bool,
    /// Glitches.
    pub glitches: Glitches,
    /// From a start or seek to display, for displays starting in the measured period.
    pub startup_latency: Stat,
    /// Videos started in the measured period.
    pub videos_started: u64,
    /// Trace events ignored (pause/resume/seek/stop for an idle terminal or another video).
    pub events_ignored: u64,
    /// Disks.
    pub disks: Disks,
    /// CPUs.
    pub cpu: Cpus,
    /// Buffer pools.
    pub buffer_pool: BufferPools,
    /// Terminal buffers.
    pub terminal_buffer: TerminalBuffers,
    /// Balances.
    pub conservation: Conservation,
    /// Simulation events processed.
    pub events: u64,
    /// Published values the scenario carries.
    pub paper: BTreeMap<String, f64>,
    /// Fast-forward/rewind searches (SPIFFI §8.1): present when the scenario has
    /// `[interactive]` or its workload has `ff`/`rewind` events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchSummary>,
    /// Piggybacking (SPIFFI §8.2): present when the scenario has `[piggyback]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piggyback: Option<PiggybackSummary>,
    /// The interconnect's links: present when the interconnect has any (a network with
    /// contention, such as `ports`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkSummary>,
    /// Admission control: present when the scenario has `[admission]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<AdmissionSummary>,
    /// The delay components of fragment requests (`[run] request_delays = true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_delays: Option<RequestDelays>,
    /// SCSI buses: present when the scenario has `[server.bus]` (per bus in the `buses`
    /// table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buses: Option<BusSummary>,
    /// Continuity measured: the share of windows of l consecutive block arrivals that came in
    /// time (`[run] continuity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuity: Option<ContinuitySummary>,
    /// The egress link and the clients (Pappas et al.): present when the scenario has
    /// `[transmission]` (per client in the `clients` table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transmission: Option<transmission::TransmissionSummary>,
    /// The server's stream memory under round-based retrieval: present when the scenario
    /// has `[server.rounds]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_memory: Option<stream_memory::StreamMemorySummary>,
    /// Jadav et al.'s schemes for a popular object: present when the scenario has
    /// `[server.replication]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replication: Option<ReplicationSummary>,
}

/// `[server.replication]` (Jadav et al. §6): what the object manager detected and where the
/// fragments came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReplicationSummary {
    /// `rdss`, `ldss` or `lmss`.
    pub scheme: String,
    /// The first object the manager found popular, if any.
    pub popular_video: Option<u64>,
    /// When it did.
    pub detected_ns: Option<u64>,
    /// The interface node dedicated to it (an index among the interface nodes; LDSS, LMSS;
    /// the first dedicated node when no object was found popular).
    pub dedicated_interface: Option<u64>,
    /// Viewings the manager delegated (the whole run).
    pub viewings: u64,
    /// Of them, viewings of a popular object sent to its dedicated node (the whole run).
    pub viewings_dedicated: u64,
    /// Fragments the dedicated nodes keep at the end of the run (of each one's copy).
    pub kept_fragments: u64,
    /// Fragments of the first popular object's prefix held in memory (LMSS).
    pub prefix_fragments: u64,
    /// Fragments read from the dedicated node's local disks (measured period).
    pub local_disk_reads: u64,
    /// Fragments served from its memory (measured period).
    pub memory_reads: u64,
    /// Fragments the dedicated node fetched from the storage nodes (measured period).
    pub dedicated_remote_reads: u64,
    /// Interface nodes dedicated to popular objects, the last ones (0 under RDSS).
    #[serde(default)]
    pub dedicated_interfaces: u64,
    /// Each object made popular at a dedicated node, in time order (the whole run; the first
    /// 1000 listed).
    #[serde(default)]
    pub promotions: Vec<PopularityChange>,
    /// Each popular object demoted, its requests within the window having fallen below the
    /// threshold, in time order (the whole run, up to its end; the first 1000 listed).
    #[serde(default)]
    pub demotions: Vec<PopularityChange>,
    /// All the promotions, listed or not.
    #[serde(default)]
    pub promotion_count: u64,
    /// All the demotions, listed or not.
    #[serde(default)]
    pub demotion_count: u64,
    /// Requests that brought their object to the threshold while every dedicated node held
    /// another popular object (the object stayed unpopular).
    #[serde(default)]
    pub waiting_requests: u64,
}

/// A popular object's promotion to, or demotion from, a dedicated interface node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PopularityChange {
    /// The object.
    pub video: u64,
    /// The dedicated interface node (an index among the interface nodes).
    pub interface: u64,
    /// When, in nanoseconds of simulated time.
    pub at_ns: u64,
}

/// The SCSI buses over the measured period (Wu et al. §3, eq. 5).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BusSummary {
    /// Buses.
    pub count: u64,
    /// Each bus's bandwidth.
    pub rate_bytes_per_s: u64,
    /// Mean share of the period a bus was held (commands, transfers, and the positioning of
    /// disks that do not disconnect).
    pub utilization_mean_ratio: f64,
    /// The most held bus's share.
    pub utilization_max_ratio: f64,
    /// Mean share of a bus's bandwidth used: bytes moved / (rate × period), Wu's μ measured.
    pub bandwidth_mean_ratio: f64,
    /// The most used bus's share of its bandwidth.
    pub bandwidth_max_ratio: f64,
    /// Wu's eq. 5 for the scenario: μ = n·a / r_bus per bus (terminals × bit rate over the
    /// buses' bandwidth), as if every byte played came from disk.
    pub model_eq5_ratio: f64,
    /// Commands sent in the period.
    pub commands: u64,
    /// Transfers started in the period.
    pub transfers: u64,
    /// Bytes of those transfers.
    pub bytes: u64,
    /// Each arbitration's wait for a bus (commands and reconnections; 0 when it was free).
    pub wait: Stat,
}

/// The interconnect over the measured period: its links' busy time and the messages' waits
/// for them (per link in the `links` table).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkSummary {
    /// The interconnect plugin.
    pub interconnect: String,
    /// Links.
    pub links: u64,
    /// Messages delivered in the measured period.
    pub messages: u64,
    /// Payload bytes of those messages.
    pub bytes: u64,
    /// Each message's wait for its path: from asking for its first link to holding all of
    /// them (0 for a message that never waits).
    pub wait: Stat,
    /// Each message's time from sending to delivery.
    pub delivery: Stat,
    /// Mean busy fraction of the links.
    pub utilization_mean_ratio: f64,
    /// Busy fraction of the busiest link.
    pub utilization_max_ratio: f64,
    /// The busiest link's name.
    pub busiest_link: String,
    /// Mean busy fraction of the interface nodes' CPUs (`[server.interface_cpu]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_cpu_utilization_mean_ratio: Option<f64>,
    /// Busy fraction of the busiest interface node's CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_cpu_utilization_max_ratio: Option<f64>,
    /// Mean busy fraction of the storage nodes' message handlers
    /// (`[server.message_work]`; the interface nodes' are the `interface_cpu_*` fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_message_utilization_mean_ratio: Option<f64>,
    /// Busy fraction of the busiest storage node's message handler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_message_utilization_max_ratio: Option<f64>,
    /// Of `messages`, the admission probes (Jadav §7.2's dummy requests and their P_S-byte
    /// replies; only with an admission policy that probes, such as `retrieval`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_messages: Option<u64>,
    /// Of `bytes`, the admission probes'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_bytes: Option<u64>,
    /// Of `messages`, the object manager's control messages (with `[server] manager_node`):
    /// its delegations of viewings to interface nodes and their answers (Jadav §3.2, §7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_messages: Option<u64>,
    /// Of `bytes`, the control messages'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_bytes: Option<u64>,
    /// Each control message's time from sending to delivery, its waits for links included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_delivery: Option<Stat>,
}

/// Admission control over the measured period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AdmissionSummary {
    /// The admission plugin.
    pub policy: String,
    /// Streams asked for (workload `start`s).
    pub requests: u64,
    /// Streams admitted.
    pub admitted: u64,
    /// Streams refused.
    pub refused: u64,
    /// Refusals by the reason the policy gave.
    pub refused_by_reason: BTreeMap<String, u64>,
    /// Workload events of refused viewings, dropped (their pauses, seeks and stop).
    pub events_dropped: u64,
    /// Streams active at once: the time-weighted mean over the measured period.
    pub active_streams_mean: f64,
    /// Streams active at once: the most.
    pub active_streams_peak: u64,
    /// With a policy that probes storage nodes before it decides (`retrieval`): the probes
    /// answered in the measured period and their round trips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<ProbeSummary>,
}

/// Admission probes (Jadav §7.2): a dummy request from the interface node to a storage node
/// holding the requested stream and a dummy reply of one fragment back.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeSummary {
    /// Probes whose reply came back in the measured period.
    pub probes: u64,
    /// Their round trips: from sending the request to the reply's arrival.
    pub round_trip: Stat,
}

/// Visual searches over the measured period, and the storage they need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchSummary {
    /// `skip` or `version`.
    pub mode: SearchMode,
    /// `ff`/`rewind` searches started.
    pub searches: u64,
    /// Skip search: segments read and shown.
    pub segments_shown: u64,
    /// Skip search: references that carried a prefetch hint (`[interactive] hints`).
    #[serde(default)]
    pub prefetch_hints: u64,
    /// Disk space of the videos (whole stripe blocks).
    pub video_bytes: u64,
    /// Disk space of the fast-forward and rewind versions (0 unless `search = "version"`).
    pub search_version_bytes: u64,
}

/// Piggybacking over the measured period (groups whose start delay ended in it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PiggybackSummary {
    /// Groups of two or more terminals served as one stream.
    pub groups_formed: u64,
    /// Starts that joined a group already open for their video.
    pub members_joined: u64,
    /// Streams the server did not have to serve: members beyond the first of each group.
    pub streams_saved: u64,
    /// Wait from a delayed start's request to its group's start (mean = the mean wait).
    pub wait: Stat,
}

/// One column of a [`Table`].
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// Unsigned integers.
    U64(Vec<u64>),
    /// Floats.
    F64(Vec<f64>),
    /// Text.
    Str(Vec<String>),
}

/// A named table of equally long columns (per disk, per terminal, per node, time series).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// File stem (`disks` → `disks.csv`).
    pub name: String,
    /// Columns in order.
    pub columns: Vec<(String, Column)>,
}

impl Table {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| match c {
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(v) => v.len(),
        })
    }
}

/// Summary plus tables.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResults {
    /// `summary.json`.
    pub summary: Summary,
    /// Per-disk, per-node, per-terminal tables and time series.
    pub tables: Vec<Table>,
}

/// Every numeric leaf of a JSON document (`summary.json`) by its dotted path
/// (`disks.io_time.seek.mean_ns`); booleans count as 0/1, `null`, strings and the `paper`
/// table are left out.
pub fn flatten_metrics(v: &serde_json::Value) -> BTreeMap<String, f64> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, f64>) {
        let key = |k: &str| {
            if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            }
        };
        match v {
            serde_json::Value::Number(n) => {
                if let Some(x) = n.as_f64() {
                    out.insert(prefix.to_string(), x);
                }
            }
            serde_json::Value::Bool(b) => {
                out.insert(prefix.to_string(), f64::from(u8::from(*b)));
            }
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    if prefix.is_empty() && k == "paper" {
                        continue;
                    }
                    walk(&key(k), v, out);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    walk(&key(&i.to_string()), v, out);
                }
            }
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    walk("", v, &mut out);
    out
}

/// The run-to-run spread of one metric over replications.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Replications.
    pub n: u64,
    /// Mean over replications.
    pub mean: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Sample standard deviation (0 for one replication).
    pub stddev: f64,
}

/// Replications of one scenario with different seeds (`replications.json`): the seeds and
/// output folders, and the spread of every metric of their summaries. Computed by the harness
/// so that reports only read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replications {
    /// Scenario name.
    pub scenario: String,
    /// Seed of each replication.
    pub seeds: Vec<u64>,
    /// Output folder of each replication, relative to the folder of `replications.json`.
    pub runs: Vec<String>,
    /// Every metric of `summary.json` (dotted path) with its spread.
    pub metrics: BTreeMap<String, Spread>,
}

impl Replications {
    /// The spreads of `summaries` (one `summary.json` per replication, same order as `runs`).
    pub fn from_summaries(
        scenario: &str,
        seeds: Vec<u64>,
        runs: Vec<String>,
        summaries: &[serde_json::Value],
    ) -> Replications {
        let flat: Vec<BTreeMap<String, f64>> = summaries.iter().map(flatten_metrics).collect();
        let mut metrics = BTreeMap::new();
        if let Some(first) = flat.first() {
            for key in first.keys() {
                let xs: Vec<f64> = flat.iter().filter_map(|m| m.get(key).copied()).collect();
                let n = xs.len() as f64;
                let mean = xs.iter().sum::<f64>() / n;
                let var = if xs.len() > 1 {
                    xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)
                } else {
                    0.0
                };
                metrics.insert(
                    key.clone(),
                    Spread {
                        n: xs.len() as u64,
                        mean,
                        min: xs.iter().copied().fold(f64::INFINITY, f64::min),
                        max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                        stddev: var.sqrt(),
                    },
                );
            }
        }
        Replications {
            scenario: scenario.to_string(),
            seeds,
            runs,
            metrics,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replications_spread_of_every_numeric_leaf() {
        let a = serde_json::json!({"glitches": {"count": 2}, "ended_early": false, "scenario": "x", "paper": {"p": 1.0}});
        let b = serde_json::json!({"glitches": {"count": 4}, "ended_early": true, "scenario": "x", "paper": {"p": 1.0}});
        let r =
            Replications::from_summaries("x", vec![1, 2], vec!["a".into(), "b".into()], &[a, b]);
        let g = r.metrics["glitches.count"];
        assert_eq!((g.n, g.mean, g.min, g.max), (2, 3.0, 2.0, 4.0));
        assert!((g.stddev - 2f64.sqrt()).abs() < 1e-12);
        assert_eq!(r.metrics["ended_early"].mean, 0.5);
        assert!(!r.metrics.contains_key("paper.p") && !r.metrics.contains_key("scenario"));
    }
}
