//! Per-point checkpoints of `vodbench sweep`: a sweep of SPIFFI's Table 2 searches for a
//! quarter of an hour, and stopping it (or a crash) must not lose the points already done.
//!
//! As each point's search finishes, its replications and simulations are saved as
//! `points/NNN.json` in the output folder (`NNN` = the point's index in grid order), written
//! to a temporary file and renamed, so a file is whole or absent. The final folder keeps them.
//! `vodbench sweep --resume` takes every point whose file matches — same resolved scenario,
//! same files read (by content), same search limits, same vodbench executable — from its
//! file instead of searching it again, and rebuilds its result exactly as the search would
//! have: the file holds integers only
//! (the measured ratios at each replication's answer as their `f64` bit patterns), so the
//! resumed `sweep.json` is byte-identical to an uninterrupted one.

use super::search::{assemble, SearchOptions, CONFIDENCE, PRECISION};
use crate::output::{oerr, write_atomic, OutputError};
use crate::results::search::{AnswerStats, Probe, ReplicationResult, SearchResult};
use crate::system::ondemand::runner;
use crate::system::ondemand::spec::{Scenario, ScenarioError};
use crate::system::ondemand::OnDemand;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Subfolder of the output folder holding the checkpoints.
pub const FOLDER: &str = "points";

/// What identifies a point's search: the vodbench build (its version, and a hash of the
/// executable's bytes, as the run cache keys its entries), the resolved scenario, the content
/// of every file it reads (its trace, its disk specifications and what they include:
/// [`runner::input_files`]) and the search limits. A checkpoint is used only when its key is
/// exactly this; an executable that cannot be read gets a key no other process shares.
pub fn point_key(s: &Scenario, opts: &SearchOptions) -> Result<String, ScenarioError> {
    let build = super::cache::build_hash()
        .unwrap_or_else(|e| format!("unidentified build, process {} ({e})", std::process::id()));
    let mut key = serde_json::json!({
        "vodbench_version": env!("CARGO_PKG_VERSION"),
        "git_commit": option_env!("VODBENCH_GIT_COMMIT"),
        "build": build,
        "input_files": runner::input_files(s)?,
        "trace_sha256": runner::trace_sha256(s)?,
        "resolved_scenario": s.file,
        "min_replications": opts.replication_limits().0,
        "max_replications": opts.max_replications,
        "max_terminals": opts.max_terminals,
        "stop_at_glitch": opts.stop_at_glitch,
        "confidence": CONFIDENCE,
        "precision": PRECISION,
    });
    opts.record_method(&mut key);
    Ok(key.to_string())
}

/// Path of point `grid_index`'s checkpoint inside the output folder.
pub fn relative_path(grid_index: usize) -> String {
    format!("{FOLDER}/{grid_index:03}.json")
}

/// One replication, with its measured ratios as bit patterns.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SavedReplication {
    replication: u32,
    seed: u64,
    max_terminals: u32,
    capped: bool,
    runs: u32,
    /// `AnswerStats` as `[disk utilization, shared ratio, hit ratio]` `f64::to_bits`.
    at_answer: Option<[u64; 3]>,
}

/// The file's contents.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Saved {
    key: String,
    converged: bool,
    replications: Vec<SavedReplication>,
    probes: Vec<(u32, u64, u32, u64)>,
}

/// The checkpoint text of a finished search.
pub fn to_text(key: &str, r: &SearchResult) -> String {
    let saved = Saved {
        key: key.to_string(),
        converged: r.converged,
        replications: r
            .per_replication
            .iter()
            .map(|x| SavedReplication {
                replication: x.replication,
                seed: x.seed,
                max_terminals: x.max_terminals,
                capped: x.capped,
                runs: x.runs,
                at_answer: x.at_answer.map(|a| {
                    [
                        a.disk_utilization_mean_ratio.to_bits(),
                        a.shared_ratio.to_bits(),
                        a.hit_ratio.to_bits(),
                    ]
                }),
            })
            .collect(),
        probes: r
            .probes
            .iter()
            .map(|p| (p.replication, p.seed, p.terminals, p.glitches))
            .collect(),
    };
    serde_json::to_string(&saved).expect("plain data serializes")
}

/// Why a checkpoint file was not used.
#[derive(Debug, PartialEq, Eq)]
pub enum Unused {
    /// No file (the point was not finished).
    Absent,
    /// Written for another scenario, other limits or another vodbench.
    Stale,
    /// Unreadable or not a checkpoint (the message says why).
    Invalid(String),
}

/// The search result saved in `text` for `scenario` searched with `opts` under `key`.
pub fn from_text(
    text: &str,
    key: &str,
    scenario: &Scenario,
    opts: &SearchOptions,
) -> Result<SearchResult, Unused> {
    let saved: Saved = serde_json::from_str(text).map_err(|e| Unused::Invalid(e.to_string()))?;
    if saved.key != key {
        return Err(Unused::Stale);
    }
    if saved.replications.is_empty() {
        return Err(Unused::Invalid("no replications".into()));
    }
    let reps = saved
        .replications
        .into_iter()
        .map(|x| ReplicationResult {
            replication: x.replication,
            seed: x.seed,
            max_terminals: x.max_terminals,
            capped: x.capped,
            runs: x.runs,
            at_answer: x.at_answer.map(|[u, s, h]| AnswerStats {
                disk_utilization_mean_ratio: f64::from_bits(u),
                shared_ratio: f64::from_bits(s),
                hit_ratio: f64::from_bits(h),
            }),
        })
        .collect();
    let probes = saved
        .probes
        .into_iter()
        .map(|(replication, seed, terminals, glitches)| Probe {
            replication,
            seed,
            terminals,
            glitches,
        })
        .collect();
    Ok(assemble::<OnDemand>(
        scenario,
        opts,
        reps,
        probes,
        saved.converged,
    ))
}

/// Writes point `grid_index`'s checkpoint into `dir` (whole or not at all), in a `points/`
/// marked as a folder of checkpoints ([`crate::ownership::mark_checkpoints`]), so that a
/// sweep stopped half-way leaves a folder vodbench knows as its own.
pub fn save(dir: &Path, grid_index: usize, text: &str) -> Result<(), OutputError> {
    let folder = dir.join(FOLDER);
    std::fs::create_dir_all(&folder).map_err(|e| oerr(&folder, e))?;
    crate::ownership::mark_checkpoints(&folder)?;
    write_atomic(&dir.join(relative_path(grid_index)), text.as_bytes())
}

/// Point `grid_index`'s checkpoint in `dir`, if it is one for `scenario` and `opts`, whose
/// [`point_key`] is `key`.
pub fn load(
    dir: &Path,
    grid_index: usize,
    key: &str,
    scenario: &Scenario,
    opts: &SearchOptions,
) -> Result<SearchResult, Unused> {
    let path: PathBuf = dir.join(relative_path(grid_index));
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unused::Absent),
        Err(e) => return Err(Unused::Invalid(e.to_string())),
    };
    from_text(&text, key, scenario, opts)
}

/// Every checkpoint in `dir` but those of the points in `except`, as (relative path, text)
/// sorted by path: a `--points` run keeps the other points' files in the folder it replaces.
pub fn saved_except(dir: &Path, except: &[usize]) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir.join(FOLDER)) else {
        return Vec::new();
    };
    let mut kept: Vec<(String, String)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let index: usize = name.strip_suffix(".json")?.parse().ok()?;
            // only the names this module writes (not `3.json`, not temporary files)
            let rel = relative_path(index);
            if except.contains(&index) || rel != format!("{FOLDER}/{name}") {
                return None;
            }
            Some((rel, std::fs::read_to_string(e.path()).ok()?))
        })
        .collect();
    kept.sort();
    kept
}
