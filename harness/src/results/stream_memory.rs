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
}
