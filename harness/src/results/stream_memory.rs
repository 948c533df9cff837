//! `summary.json`'s `stream_memory`: the server's stream buffers under round-based
//! retrieval (Pappas et al. §4, Fig. 20–22), present when the scenario has
//! `[server.rounds]`. What reserved and used mean: `system/ondemand/stream_memory.rs`.

use serde::{Deserialize, Serialize};

/// Server stream memory over the measured period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StreamMemorySummary {
    /// The release policy (`dblbuf`, `clbuf`, `clbufrate`).
    pub release: String,
    /// The round length.
    pub round_ns: u64,
    /// Peak reserved stream memory (`dblbuf`: 2NS at steady state, M1).
    pub reserved_peak_bytes: u64,
    /// Time-weighted mean reserved stream memory.
    pub reserved_mean_bytes: u64,
    /// Peak bytes of data held (read and not yet sent).
    pub used_peak_bytes: u64,
    /// Time-weighted mean bytes of data held.
    pub used_mean_bytes: u64,
    /// Blocks whose read ended in the period.
    pub blocks_read: u64,
    /// Of them, the blocks read after the round boundary following their issue.
    pub late_blocks: u64,
    /// With `server.stream_memory` under `clbuf` or `clbufrate`: the reads that waited for
    /// a buffer under the cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_waits: Option<BufferWaits>,
    /// Starts refused because their reservation did not fit under `server.stream_memory`
    /// (`dblbuf`, `clbuf`) over the whole run, warm-up included (`admission` counts the
    /// measured period's); absent when none was. `vodbench search` counts them as failures.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub refused_starts: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// Reads that waited for a stream-memory buffer under the cap (those that started in the
/// measured period after waiting).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BufferWaits {
    /// The cap (`server.stream_memory`).
    pub cap_bytes: u64,
    /// Reads that waited.
    pub reads: u64,
    /// Their waits, summed.
    pub total_ns: u64,
    /// Mean wait of a read that waited (0 when none did).
    pub mean_ns: u64,
    /// The longest wait.
    pub max_ns: u64,
}
