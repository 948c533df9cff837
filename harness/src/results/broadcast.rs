//! What a broadcast run produces (Waldvogel et al.): per point, the schedule's bandwidth,
//! the receivers' disk I/O and buffer occupancy, and what each receiver did — the data
//! behind a broadcast folder's `summary.json` and tables.
//!
//! The run that fills them in is [`crate::system::broadcast::run`]; the tables and manifest
//! made of them are methods there.

use serde::Serialize;
use std::collections::BTreeMap;

/// The broadcast schedule's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScheduleSummary {
    /// Plugin name.
    pub name: String,
    /// Mean frames sent per instant in the steady state, in multiples of the playout rate.
    pub mean_bandwidth_ratio: f64,
    /// Most frames sent in one instant.
    pub peak_bandwidth_ratio: f64,
    /// Eq. 1 exactly: `Σ 1/(w + f)`.
    pub ideal_bandwidth_ratio: f64,
    /// Eq. 1's approximation `ln((n + w)/w)`.
    pub ideal_bandwidth_approx_ratio: f64,
    /// Mean over eq. 1: the schedule's bandwidth overhead.
    pub mean_over_ideal_ratio: f64,
    /// Frame transmissions in the whole schedule.
    pub transmissions: u64,
    /// Instants the schedule covers.
    pub horizon_instants: u32,
}

/// The receivers' figures, summed (counts) or maximal (peaks) over receivers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReceiverSummary {
    /// Total disk time over total playout time (the paper's I/O time metric).
    pub client_io_time_ratio: f64,
    /// Smallest per-receiver ratio.
    pub client_io_time_min_ratio: f64,
    /// Largest per-receiver ratio.
    pub client_io_time_max_ratio: f64,
    /// Total playout time.
    pub playout_ns: u64,
    /// Total disk time.
    pub io_time_ns: u64,
    /// Seek part.
    pub io_seek_ns: u64,
    /// Rotation part.
    pub io_rotation_ns: u64,
    /// Transfer part.
    pub io_transfer_ns: u64,
    /// Controller overhead part.
    pub io_overhead_ns: u64,
    /// Disk accesses.
    pub disk_accesses: u64,
    /// Accesses with a non-zero seek.
    pub seeks: u64,
    /// Read accesses.
    pub reads: u64,
    /// Write accesses.
    pub writes: u64,
    /// Frames written (counting repeats).
    pub frames_written: u64,
    /// Frames read.
    pub frames_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Distinct frames that went to disk.
    pub frames_spilled: u64,
    /// Distinct frames written more than once.
    pub frames_cycled_more_than_once: u64,
    /// Frames not in memory at their playout instant.
    pub glitches: u64,
    /// Their total lateness.
    pub stalled_ns: u64,
    /// Frames that arrived exactly at their playout instant.
    pub frames_direct: u64,
    /// Most frames in memory.
    pub peak_memory_frames: u32,
    /// Most frames over the cache size.
    pub memory_overflow_frames: u32,
    /// Most frames on disk.
    pub peak_disk_frames: u32,
    /// Most frames buffered (memory + disk).
    pub peak_buffered_frames: u32,
    /// Peak buffered as a share of the movie.
    pub peak_buffered_ratio: f64,
    /// Eq. 2's peak `(n + w)/e` in frames.
    pub peak_buffered_theory_frames: f64,
    /// Instants after joining when receiver 0's buffer peaked.
    pub peak_buffered_instant: u32,
    /// Eq. 2: the peak's instant, `(n + w)/e`.
    pub peak_buffered_theory_instant: f64,
}

/// Everything one point measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BroadcastSummary {
    /// Scenario name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Frames `n`.
    pub frames: u32,
    /// Initial delay `w` in instants.
    pub delay_instants: u32,
    /// One instant.
    pub instant_ns: u64,
    /// Bytes per frame.
    pub frame_bytes: u64,
    /// Cache `C` in frames.
    pub cache_frames: u32,
    /// `C / n`.
    pub cache_ratio: f64,
    /// Frames written per batch (κ).
    pub batch_frames: u32,
    /// `κ / C`.
    pub batch_ratio: f64,
    /// Read-ahead window in instants.
    pub read_ahead_instants: u32,
    /// Receivers.
    pub clients: u32,
    /// Broadcast schedule.
    pub schedule: ScheduleSummary,
    /// Receivers.
    pub receivers: ReceiverSummary,
    /// Published values carried by the scenario.
    pub paper: BTreeMap<String, f64>,
}

/// Occupancy at one instant after joining, averaged over receivers.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MeanSample {
    /// Instants since joining.
    pub instant: u32,
    /// Mean frames in memory.
    pub memory: f64,
    /// Mean frames on disk.
    pub disk: f64,
}

/// One point's results.
#[derive(Clone, Debug)]
pub struct PointResult {
    /// Swept keys and values.
    pub point: Vec<(String, toml::Value)>,
    /// The summary.
    pub summary: BroadcastSummary,
    /// Per receiver.
    pub clients: Vec<ClientOutcome>,
    /// Occupancy samples, averaged over the receivers.
    pub samples: Vec<MeanSample>,
    /// Histogram of frames per instant over the steady state: (frames, instants).
    pub bandwidth_histogram: Vec<(u32, u64)>,
}

/// All points of a suite.
#[derive(Clone, Debug)]
pub struct SuiteResults {
    /// Scenario name.
    pub name: String,
    /// Swept keys.
    pub sweep_keys: Vec<String>,
    /// Points in grid order.
    pub points: Vec<PointResult>,
}

/// What one receiver did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClientOutcome {
    /// Join instant.
    pub join: u32,
    /// Playout time `(n + w)` instants, in ns.
    pub playout_ns: u64,
    /// Total disk busy time.
    pub io_time_ns: u64,
    /// Its parts.
    pub io_seek_ns: u64,
    /// Rotational latency part.
    pub io_rotation_ns: u64,
    /// Transfer part.
    pub io_transfer_ns: u64,
    /// Controller overhead part.
    pub io_overhead_ns: u64,
    /// Disk accesses (reads + writes).
    pub disk_accesses: u64,
    /// Accesses that moved the head (a non-zero seek part).
    pub seeks: u64,
    /// Read accesses.
    pub reads: u64,
    /// Write accesses.
    pub writes: u64,
    /// Frames written (counting repeats).
    pub frames_written: u64,
    /// Frames read back.
    pub frames_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Distinct frames that went to disk at least once.
    pub frames_spilled: u64,
    /// Distinct frames written to disk more than once.
    pub frames_cycled: u64,
    /// Frames whose data was not in memory at their playout instant.
    pub glitches: u64,
    /// Total lateness of those frames.
    pub stalled_ns: u64,
    /// Frames that arrived in their own playout instant.
    pub frames_direct: u64,
    /// Frames played (from memory or directly); `n` for every complete run.
    pub frames_played: u64,
    /// Most frames in memory.
    pub peak_memory_frames: u32,
    /// Most frames beyond the cache size (when everything in memory was pinned).
    pub memory_overflow_frames: u32,
    /// Most frames buffered (memory + disk).
    pub peak_buffered_frames: u32,
    /// Instant after joining at which that peak occurred.
    pub peak_buffered_instant: u32,
    /// Most frames on disk.
    pub peak_disk_frames: u32,
    /// Time the last disk access finished, after the join, in ns.
    pub disk_busy_until_ns: u64,
}

impl ClientOutcome {
    /// Disk time as a fraction of playout time.
    pub fn io_time_ratio(&self) -> f64 {
        self.io_time_ns as f64 / self.playout_ns.max(1) as f64
    }
}
