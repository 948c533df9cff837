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

use super::search::{
    assemble, check_replication, check_saved_search, SearchOptions, CONFIDENCE, PRECISION,
};
use crate::output::{oerr, write_atomic, OutputError};
use crate::results::search::{AnswerStats, Probe, ReplicationResult, SearchResult};
use crate::system::ondemand::runner;
use crate::system::ondemand::scenario::{Scenario, ScenarioError};
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
        replications: r.per_replication.iter().map(saved_replication).collect(),
        probes: saved_probes(&r.probes),
    };
    serde_json::to_string(&saved).expect("plain data serializes")
}

/// Why a checkpoint file was not used.
#[derive(Debug, PartialEq, Eq)]
pub enum Unused {
    /// No file (the point was not finished).
    Absent,
    /// Written for another scenario, other limits, other input files or by another vodbench
    /// build: what differs, in words ([`key_difference`]).
    Stale(String),
    /// Unreadable or not a checkpoint (the message says why).
    Invalid(String),
    /// Saved under this search's key, but its content is not what the search makes: its
    /// answers disagree with its own simulations or limits (an edited file; the message
    /// says where).
    Inconsistent(String),
}

impl Unused {
    /// Why the checkpoint file `file` is not used, in words ("DIR/points/001.json is
    /// missing", "… was saved by another vodbench build (…)", "… is unreadable (…)").
    pub fn describe(&self, file: &Path) -> String {
        match self {
            Unused::Absent => format!("{} is missing", file.display()),
            Unused::Stale(why) => format!("{} was saved {why}", file.display()),
            Unused::Invalid(m) => format!("{} is unreadable ({m})", file.display()),
            Unused::Inconsistent(m) => format!(
                "{} does not hold what its search makes ({m}); was it edited?",
                file.display()
            ),
        }
    }
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
        return Err(Unused::Stale(key_difference(&saved.key, key)));
    }
    if saved.replications.is_empty() {
        return Err(Unused::Invalid("no replications".into()));
    }
    let reps: Vec<ReplicationResult> = saved
        .replications
        .into_iter()
        .map(replication_result)
        .collect();
    let probes = probes_of(saved.probes);
    check_saved_search::<OnDemand>(scenario, opts, &reps, &probes, saved.converged)
        .map_err(Unused::Inconsistent)?;
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
    save_in(
        dir,
        FOLDER,
        grid_index,
        text,
        crate::ownership::Writer::Sweep,
    )
}

/// Writes checkpoint `index` as `dir/folder/NNN.json` (whole or not at all), in a `folder`
/// marked as a folder of `writer`'s checkpoints.
fn save_in(
    dir: &Path,
    folder: &str,
    index: usize,
    text: &str,
    writer: crate::ownership::Writer,
) -> Result<(), OutputError> {
    let sub = dir.join(folder);
    std::fs::create_dir_all(&sub).map_err(|e| oerr(&sub, e))?;
    crate::ownership::mark_checkpoints(&sub, writer)?;
    write_atomic(&sub.join(format!("{index:03}.json")), text.as_bytes())
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
    saved_in_except(dir, FOLDER, except)
}

/// Every checkpoint in `dir/folder` but those numbered in `except`, as (relative path, text)
/// sorted by path.
pub fn saved_in_except(dir: &Path, folder: &str, except: &[usize]) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
        return Vec::new();
    };
    let mut kept: Vec<(String, String)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let index: usize = name.strip_suffix(".json")?.parse().ok()?;
            // only the names this module writes (not `3.json`, not temporary files)
            let rel = format!("{folder}/{index:03}.json");
            if except.contains(&index) || rel != format!("{folder}/{name}") {
                return None;
            }
            Some((rel, std::fs::read_to_string(e.path()).ok()?))
        })
        .collect();
    kept.sort();
    kept
}

/// What differs between the identity `saved` a checkpoint was written under and `key`, the
/// one it is looked up with (both [`point_key`]s), in words: "by another vodbench build",
/// "for another scenario (`server.stripe` differs)", "other input files (…)", "other search
/// limits (…)". Keys that are not JSON are only said to differ.
pub fn key_difference(saved: &str, key: &str) -> String {
    let (Ok(a), Ok(b)) = (
        serde_json::from_str::<serde_json::Value>(saved),
        serde_json::from_str::<serde_json::Value>(key),
    ) else {
        return "saved under another identity".into();
    };
    let differs = |k: &str| a.get(k) != b.get(k);
    let mut why = Vec::new();
    if ["vodbench_version", "git_commit", "build"]
        .iter()
        .any(|k| differs(k))
    {
        let short = |v: &serde_json::Value| {
            let s = v["build"].as_str().unwrap_or("?");
            s.chars().take(12).collect::<String>()
        };
        why.push(format!(
            "by another vodbench build ({} {}, this is {} {})",
            a["vodbench_version"].as_str().unwrap_or("?"),
            short(&a),
            b["vodbench_version"].as_str().unwrap_or("?"),
            short(&b)
        ));
    }
    if differs("resolved_scenario") {
        let at = first_difference(&a["resolved_scenario"], &b["resolved_scenario"], "")
            .map_or_else(String::new, |p| format!(" (`{p}` differs)"));
        why.push(format!("for another scenario{at}"));
    }
    if differs("input_files") || differs("trace_sha256") {
        why.push(
            "with other input files (a disk specification, trace or plugin library changed \
             since)"
                .to_string(),
        );
    }
    let limits: Vec<String> = a
        .as_object()
        .into_iter()
        .flatten()
        .chain(b.as_object().into_iter().flatten())
        .map(|(k, _)| k.clone())
        .filter(|k| {
            ![
                "vodbench_version",
                "git_commit",
                "build",
                "resolved_scenario",
                "input_files",
                "trace_sha256",
            ]
            .contains(&k.as_str())
                && differs(k)
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|k| {
            let show = |v: Option<&serde_json::Value>| v.map_or("none".into(), |v| v.to_string());
            format!("{k} {} there, {} here", show(a.get(&k)), show(b.get(&k)))
        })
        .collect();
    if !limits.is_empty() {
        why.push(format!("with other search limits ({})", limits.join(", ")));
    }
    if why.is_empty() {
        "saved under another identity".into()
    } else {
        why.join("; ")
    }
}

/// The dotted path of the first place where `a` and `b` differ (`server.stripe`), if any.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    if a == b {
        return None;
    }
    let join = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (u, v) = (x.get(k), y.get(k));
                match (u, v) {
                    (Some(u), Some(v)) => first_difference(u, v, &join(k)),
                    _ => Some(join(k)),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| first_difference(u, v, &join(&i.to_string()))),
        _ => Some(if at.is_empty() {
            "(all)".into()
        } else {
            at.to_string()
        }),
    }
}

/// Subfolder of a search's output folder holding its replications made by `vodbench search
/// --task` (each as `NNN.json`, `NNN` = the replication's index).
pub const REPLICATIONS: &str = "replications";

/// Path of replication `index`'s checkpoint inside a search's output folder.
pub fn replication_path(index: u32) -> String {
    format!("{REPLICATIONS}/{index:03}.json")
}

/// The file of one replication of a search.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SavedRun {
    key: String,
    replication: SavedReplication,
    probes: Vec<(u32, u64, u32, u64)>,
}

fn saved_replication(x: &ReplicationResult) -> SavedReplication {
    SavedReplication {
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
    }
}

fn replication_result(x: SavedReplication) -> ReplicationResult {
    ReplicationResult {
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
    }
}

/// Simulations as a checkpoint keeps them: (replication, seed, terminals, glitches).
fn saved_probes(probes: &[Probe]) -> Vec<(u32, u64, u32, u64)> {
    probes
        .iter()
        .map(|p| (p.replication, p.seed, p.terminals, p.glitches))
        .collect()
}

/// Simulations back from [`saved_probes`].
fn probes_of(saved: Vec<(u32, u64, u32, u64)>) -> Vec<Probe> {
    saved
        .into_iter()
        .map(|(replication, seed, terminals, glitches)| Probe {
            replication,
            seed,
            terminals,
            glitches,
        })
        .collect()
}

/// The checkpoint text of one replication (`rep`, with its simulations `probes`) of the
/// search whose [`point_key`] is `key`.
pub fn replication_to_text(key: &str, rep: &ReplicationResult, probes: &[Probe]) -> String {
    let saved = SavedRun {
        key: key.to_string(),
        replication: saved_replication(rep),
        probes: saved_probes(probes),
    };
    serde_json::to_string(&saved).expect("plain data serializes")
}

/// Writes replication `index`'s checkpoint into the search folder `dir` (whole or not at all).
pub fn save_replication(dir: &Path, index: u32, text: &str) -> Result<(), OutputError> {
    save_in(
        dir,
        REPLICATIONS,
        index as usize,
        text,
        crate::ownership::Writer::Search,
    )
}

/// Replication `index` saved in the search folder `dir` under `key`, checked against the
/// search of `scenario` under `opts` ([`check_replication`]).
pub fn load_replication(
    dir: &Path,
    index: u32,
    key: &str,
    scenario: &Scenario,
    opts: &SearchOptions,
) -> Result<(ReplicationResult, Vec<Probe>), Unused> {
    let (rep, probes) = read_replication(dir, index, key)?;
    // a later replication starts around replication 0's answer: checked against it
    let first = if opts.needs_first(index) {
        let (r0, p0) = read_replication(dir, 0, key).map_err(|why| {
            Unused::Inconsistent(format!(
                "replication {index} starts around replication 0's answer, and replication 0 \
                 is not usable: {}",
                why.describe(&dir.join(replication_path(0)))
            ))
        })?;
        check_replication::<OnDemand>(scenario, opts, &r0, &p0, None)
            .map_err(Unused::Inconsistent)?;
        Some((r0.max_terminals, r0.capped))
    } else {
        None
    };
    check_replication::<OnDemand>(scenario, opts, &rep, &probes, first)
        .map_err(Unused::Inconsistent)?;
    Ok((rep, probes))
}

/// Replication `index` saved in the search folder `dir` under `key`, as the file says.
fn read_replication(
    dir: &Path,
    index: u32,
    key: &str,
) -> Result<(ReplicationResult, Vec<Probe>), Unused> {
    let path = dir.join(replication_path(index));
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unused::Absent),
        Err(e) => return Err(Unused::Invalid(e.to_string())),
    };
    let saved: SavedRun =
        serde_json::from_str(&text).map_err(|e| Unused::Invalid(e.to_string()))?;
    if saved.key != key {
        return Err(Unused::Stale(key_difference(&saved.key, key)));
    }
    if saved.replication.replication != index
        || saved.probes.len() != saved.replication.runs as usize
    {
        return Err(Unused::Invalid(format!(
            "holds replication {} with {} simulations, not replication {index} with {}",
            saved.replication.replication,
            saved.probes.len(),
            saved.replication.runs
        )));
    }
    let probes = probes_of(saved.probes);
    Ok((replication_result(saved.replication), probes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(build: &str, stripe: &str, max_terminals: u32) -> String {
        serde_json::json!({
            "vodbench_version": "0.1.0",
            "build": build,
            "input_files": {"a.diskspecs": "00"},
            "resolved_scenario": {"seed": 7, "server": {"stripe": stripe, "nodes": 1}},
            "max_terminals": max_terminals,
        })
        .to_string()
    }

    #[test]
    fn a_key_difference_names_what_differs() {
        let k = key("aaaaaaaaaaaaaaaa", "256KiB", 100);
        assert_eq!(key_difference(&k, &k), "saved under another identity");
        let build = key_difference(&key("bbbbbbbbbbbbbbbbbb", "256KiB", 100), &k);
        assert_eq!(
            build,
            "by another vodbench build (0.1.0 bbbbbbbbbbbb, this is 0.1.0 aaaaaaaaaaaa)"
        );
        assert_eq!(
            key_difference(&key("aaaaaaaaaaaaaaaa", "128KiB", 100), &k),
            "for another scenario (`server.stripe` differs)"
        );
        assert_eq!(
            key_difference(&key("aaaaaaaaaaaaaaaa", "256KiB", 50), &k),
            "with other search limits (max_terminals 50 there, 100 here)"
        );
        let all = key_difference(&key("b", "1KiB", 1), &k);
        assert!(
            all.starts_with("by another vodbench build")
                && all.contains("; for another scenario")
                && all.contains("; with other search limits"),
            "{all}"
        );
        assert_eq!(key_difference("x", &k), "saved under another identity");
    }

    #[test]
    fn a_replication_round_trips_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let rep = ReplicationResult {
            replication: 4,
            seed: 99,
            max_terminals: 17,
            capped: false,
            runs: 2,
            at_answer: Some(AnswerStats {
                disk_utilization_mean_ratio: 0.1 + 0.2,
                shared_ratio: 1.0 / 3.0,
                hit_ratio: 0.0,
            }),
        };
        let probes = vec![
            Probe {
                replication: 4,
                seed: 99,
                terminals: 17,
                glitches: 0,
            },
            Probe {
                replication: 4,
                seed: 99,
                terminals: 18,
                glitches: 3,
            },
        ];
        save_replication(dir.path(), 4, &replication_to_text("k", &rep, &probes)).unwrap();
        let (r, p) = read_replication(dir.path(), 4, "k").unwrap();
        assert_eq!((r, p), (rep, probes.clone()));
        assert!(matches!(
            read_replication(dir.path(), 4, "other"),
            Err(Unused::Stale(_))
        ));
        assert_eq!(read_replication(dir.path(), 5, "k"), Err(Unused::Absent));
        // a file renamed to another replication's number is not taken for it
        std::fs::copy(
            dir.path().join(replication_path(4)),
            dir.path().join(replication_path(6)),
        )
        .unwrap();
        assert!(matches!(
            read_replication(dir.path(), 6, "k"),
            Err(Unused::Invalid(m)) if m.contains("not replication 6")
        ));
        assert_eq!(
            saved_in_except(dir.path(), REPLICATIONS, &[6])
                .iter()
                .map(|(p, _)| p.as_str())
                .collect::<Vec<_>>(),
            ["replications/004.json"]
        );
    }
}
