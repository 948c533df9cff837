//! Running one on-demand scenario: how far its workload reaches, its workload events, the
//! simulation, and the manifest that lets `vodbench rerun` reproduce it (hashes of the
//! resolved scenario, its trace and every other file it reads, the host).

use super::engine::{check_buildable, simulate_stream, ClockProgress, SimOptions};
use super::scenario::{Scenario, ScenarioError};
use super::workload::{Digest, Fingerprint, Workload};
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

/// Every workload event of a scenario (trace file or generator), held in memory: for tools
/// and tests that want them all. A run streams them instead ([`Workload`]).
pub fn workload(s: &Scenario) -> Result<Vec<TraceEvent>, ScenarioError> {
    Workload::of(s).collect()
}

/// A stable 64-bit fingerprint of a workload ([`Fingerprint`] over every event).
pub fn workload_fingerprint(events: &[TraceEvent]) -> String {
    let mut f = Fingerprint::default();
    for e in events {
        f.add(e);
    }
    f.hex()
}

/// Checks what can only be checked once the video library and the plugins are built (frame
/// sizes depend on the seed; a layout must fit the disks): that terminals have room for
/// every frame, that every plugin can be built for the scenario. `vodbench check` runs
/// this; a run does the same checks itself.
pub fn preflight(s: &Scenario) -> Result<(), ScenarioError> {
    super::memory::check(s)?;
    check_buildable(s)
}

/// Runs a scenario end to end: its results, and the digest of its workload (what the
/// manifest records of it).
pub fn run(s: &Scenario, progress: ClockProgress<'_>) -> Result<(RunResults, Digest), RunError> {
    run_with(s, progress, SimOptions::default())
}

/// [`run`] with [`SimOptions`] (a memo of video libraries, stopping at the first glitch).
///
/// The workload is read twice, never held: once to check it all and digest it, once as the
/// engine takes its events ([`Workload`]).
pub fn run_with(
    s: &Scenario,
    progress: ClockProgress<'_>,
    opts: SimOptions<'_>,
) -> Result<(RunResults, Digest), RunError> {
    // a stop requested meanwhile: no new simulation starts (short ones never reach the
    // engine loop's check)
    crate::interrupt::check();
    let workload = Workload::of(s);
    let digest = workload.digest()?;
    let results = simulate_stream(s, workload.events()?, &digest, progress, opts)?;
    Ok((results, digest))
}

pub use crate::digest::sha256_hex;

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
    // streamed: a trace may be far larger than memory should hold
    crate::digest::sha256_file(&path)
        .map(Some)
        .map_err(|e| ScenarioError::Io {
            file: path.clone(),
            message: e.to_string(),
        })
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
            // what only labels the scenario, and the workload (its trace has a hash of its own);
            // plugin libraries are hashed as they were loaded, below
            if matches!(
                k.as_str(),
                "name" | "description" | "paper" | "cost" | "workload" | "plugins"
            ) {
                continue;
            }
            named_files(s, &v, &mut found)?;
        }
    }
    for lib in &s.plugins.libraries {
        found.insert(lib.path.clone(), lib.sha256.clone());
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
///
/// `workload` is the digest of the workload it ran (`None` for a manifest of many runs, such
/// as a search's: then it records no event count or fingerprint).
pub fn manifest(s: &Scenario, workload: Option<&Digest>) -> serde_json::Value {
    let mut m = json!({
        "vodbench_version": env!("CARGO_PKG_VERSION"),
        "git_commit": option_env!("VODBENCH_GIT_COMMIT"),
        "host": host(),
        "scenario": s.name(),
        "scenario_file": s.path.display().to_string(),
        "scenario_sha256": scenario_sha256(s),
        "seed": s.file.seed,
        "terminals": s.terminals(),
        "workload": {
            "source": match &s.file.workload.trace {
                Some(t) => format!("trace {}", t.display()),
                None => "generator".to_string(),
            },
            "trace_sha256": trace_sha256(s).ok().flatten(),
        },
        "plugins": s.plugins.manifest_lines(),
        "resolved_scenario": s.file,
    });
    if let (Some(d), Some(w)) = (workload, m["workload"].as_object_mut()) {
        w.insert("events".into(), json!(d.events));
        w.insert("fingerprint".into(), json!(d.fingerprint));
    }
    // the files it reads besides its trace (disk specifications), only when it reads some,
    // so manifests of scenarios that name none stay as they were
    if let Ok(files) = input_files(s) {
        if !files.is_empty() {
            m["input_files"] = json!(files);
        }
    }
    // the plugin libraries loaded (`--plugin`, `[plugins] load`), only when some were, so
    // manifests of runs without stay as they were; `rerun` loads them again from here
    if !s.plugins.libraries.is_empty() {
        m["plugin_libraries"] = crate::scenario::libraries::manifest_lines(&s.plugins.libraries);
    }
    m
}
