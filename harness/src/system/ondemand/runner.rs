//! Running one on-demand scenario: how far its workload reaches, its workload events, the
//! simulation, and the manifest that lets `vodbench rerun` reproduce it (hashes of the
//! resolved scenario, its trace and every other file it reads, the host).

use super::engine::{check_buildable, simulate_with, ClockProgress, SimOptions};
use super::spec::{Scenario, ScenarioError};
use crate::results::RunResults;
use crate::system::RunError;
use crate::time::SimTime;
use crate::trace::TraceEvent;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How far a generated workload must reach: warm-up estimate + measured period + one video
/// ([`Scenario::horizon`]).
pub fn horizon(s: &Scenario) -> SimTime {
    s.horizon()
}

/// The workload events of a scenario (trace file or generator).
pub fn workload(s: &Scenario) -> Result<Vec<TraceEvent>, ScenarioError> {
    Ok(s.workload_events(horizon(s))?.1)
}

/// A stable 64-bit fingerprint of a workload (FNV-1a over the canonical fields).
pub fn workload_fingerprint(events: &[TraceEvent]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
    };
    for e in events {
        eat(e.time.as_nanos());
        eat(u64::from(e.terminal.0));
        eat(e.kind as u64);
        eat(u64::from(e.video.0));
        eat(e.position.as_nanos());
    }
    format!("{h:016x}")
}

/// Checks what can only be checked once the video library and the plugins are built (frame
/// sizes depend on the seed; a layout must fit the disks): that terminals have room for
/// every frame, that every plugin can be built for the scenario. `vodbench check` runs
/// this; a run does the same checks itself.
pub fn preflight(s: &Scenario) -> Result<(), ScenarioError> {
    super::memory::check(s)?;
    check_buildable(s)
}

/// Runs a scenario end to end.
pub fn run(
    s: &Scenario,
    progress: ClockProgress<'_>,
) -> Result<(RunResults, Vec<TraceEvent>), RunError> {
    run_with(s, progress, SimOptions::default())
}

/// [`run`] with [`SimOptions`] (a memo of video libraries, stopping at the first glitch).
pub fn run_with(
    s: &Scenario,
    progress: ClockProgress<'_>,
    opts: SimOptions<'_>,
) -> Result<(RunResults, Vec<TraceEvent>), RunError> {
    let events = workload(s)?;
    let results = simulate_with(s, &events, progress, opts)?;
    Ok((results, events))
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The SHA-256 of a resolved scenario: of its compact JSON form (the `resolved_scenario` of
/// the manifest), so two files that resolve to the same scenario hash alike.
pub fn scenario_sha256(s: &Scenario) -> String {
    sha256_hex(
        serde_json::to_string(&s.file)
            .expect("serialisable")
            .as_bytes(),
    )
}

/// The SHA-256 of the scenario's trace file, if its workload is a trace.
pub fn trace_sha256(s: &Scenario) -> Result<Option<String>, ScenarioError> {
    let Some(t) = &s.file.workload.trace else {
        return Ok(None);
    };
    let path = s.resolve_path(t);
    crate::input::regular_file_size(&path, u64::MAX).map_err(|message| ScenarioError::Io {
        file: path.clone(),
        message,
    })?;
    let bytes = std::fs::read(&path).map_err(|e| ScenarioError::Io {
        file: path.clone(),
        message: e.to_string(),
    })?;
    Ok(Some(sha256_hex(&bytes)))
}

/// Includes deeper than this are not followed (this also stops a file naming itself).
const MAX_INCLUDE_DEPTH: u32 = 16;

/// Every file the scenario names outside its workload — a disk specification, say — and,
/// in turn, every file those name (a DiskSim `source` include, a seek table: any word of the
/// file naming an existing file beside it), as (path as named, resolved against the file
/// naming it; lower-case hex SHA-256), sorted by path. With the trace's hash, these are the
/// contents a run reads besides the scenario: a checkpoint is keyed by them and a manifest
/// records them, so a changed disk file is never taken for the one a result was made with.
pub fn input_files(s: &Scenario) -> Result<BTreeMap<String, String>, ScenarioError> {
    let mut found = BTreeMap::new();
    let value = serde_json::to_value(&s.file).expect("serialisable");
    if let serde_json::Value::Object(top) = value {
        for (k, v) in top {
            // what only labels the scenario, and the workload (its trace has a hash of its own)
            if matches!(
                k.as_str(),
                "name" | "description" | "paper" | "cost" | "workload"
            ) {
                continue;
            }
            named_files(s, &v, &mut found)?;
        }
    }
    Ok(found)
}

fn named_files(
    s: &Scenario,
    v: &serde_json::Value,
    found: &mut BTreeMap<String, String>,
) -> Result<(), ScenarioError> {
    match v {
        serde_json::Value::String(name) if !name.is_empty() && name.len() < 4096 => {
            let path = s.resolve_path(Path::new(name));
            if path.is_file() {
                hash_with_includes(Path::new(name), &path, 0, found)?;
            }
        }
        serde_json::Value::Array(xs) => {
            for x in xs {
                named_files(s, x, found)?;
            }
        }
        serde_json::Value::Object(m) => {
            for x in m.values() {
                named_files(s, x, found)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Hashes the file `path` (recorded as `named`) and the files its words name beside it.
fn hash_with_includes(
    named: &Path,
    path: &Path,
    depth: u32,
    found: &mut BTreeMap<String, String>,
) -> Result<(), ScenarioError> {
    let key = named.display().to_string();
    if found.contains_key(&key) || depth > MAX_INCLUDE_DEPTH {
        return Ok(());
    }
    let bytes = match crate::input::read_regular(path) {
        Ok(b) => b,
        // a word that only happens to name a file (too large, unreadable) is recorded as such
        Err(message) if depth > 0 => {
            found.insert(key, format!("unread: {message}"));
            return Ok(());
        }
        Err(message) => {
            return Err(ScenarioError::Io {
                file: path.to_path_buf(),
                message,
            })
        }
    };
    found.insert(key, sha256_hex(&bytes));
    let text = String::from_utf8_lossy(&bytes);
    let words: std::collections::BTreeSet<&str> = text
        .split(|c: char| c.is_whitespace() || "=,[]{}()\"'".contains(c))
        .filter(|w| {
            !w.is_empty() && w.len() < 4096 && !w.starts_with('#') && w.parse::<f64>().is_err()
        })
        .collect();
    let (named_dir, dir) = (
        named.parent().unwrap_or(Path::new("")),
        path.parent().unwrap_or(Path::new(".")),
    );
    let mut next: Vec<(PathBuf, PathBuf)> = Vec::new();
    for w in words {
        let p = dir.join(w);
        if p != path && p.is_file() {
            next.push((named_dir.join(w), p));
        }
    }
    for (n, p) in next {
        hash_with_includes(&n, &p, depth + 1, found)?;
    }
    Ok(())
}

/// The machine the run was made on: host name (from `HOSTNAME` or `/etc/hostname`), OS and
/// CPU architecture. Recorded in the manifest only, never in results.
pub fn host() -> serde_json::Value {
    let name = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown".into());
    json!({ "name": name, "os": std::env::consts::OS, "arch": std::env::consts::ARCH })
}

/// The manifest of a run: everything needed to reproduce it (`vodbench rerun`), plus where it
/// was made (`host`, `git_commit`: the only fields that differ between machines or builds).
pub fn manifest(s: &Scenario, events: &[TraceEvent]) -> serde_json::Value {
    let mut m = json!({
        "vodbench_version": env!("CARGO_PKG_VERSION"),
        "git_commit": option_env!("VODBENCH_GIT_COMMIT"),
        "host": host(),
        "scenario": s.name(),
        "scenario_file": s.path.display().to_string(),
        "scenario_sha256": scenario_sha256(s),
        "seed": s.file.seed,
        "terminals": s.file.terminals.count,
        "workload": {
            "source": match &s.file.workload.trace {
                Some(t) => format!("trace {}", t.display()),
                None => "generator".to_string(),
            },
            "trace_sha256": trace_sha256(s).ok().flatten(),
            "events": events.len(),
            "fingerprint": workload_fingerprint(events),
        },
        "plugins": s.plugins.manifest_lines(),
        "resolved_scenario": s.file,
    });
    // the files it reads besides its trace (disk specifications), only when it reads some,
    // so manifests of scenarios that name none stay as they were
    if let Ok(files) = input_files(s) {
        if !files.is_empty() {
            m["input_files"] = json!(files);
        }
    }
    m
}
