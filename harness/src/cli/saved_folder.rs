//! What a saved output folder is, as the commands on saved folders (`compare`, `export`,
//! `run --save-baseline`) need to know it: a run's (and its scenario's name), the runs of a
//! sweep file's points, or a folder of vodbench's that is not a run (a search's, a sweep's).

use crate::ownership::Writer;
use std::path::{Path, PathBuf};

/// The JSON file at `path`, or why it cannot be read.
pub(crate) fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    // a regular file read up to its size: a FIFO or a kernel file never blocks
    let text = crate::input::read_text(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not valid JSON: {e}", path.display()))
}

/// What a saved folder holds when it is vodbench's but not one run's: a search's, a
/// sweep's, or an interrupted sweep's. The commands on runs say so instead of calling it "not
/// a vodbench output folder".
pub(crate) fn not_a_run(dir: &Path) -> Option<String> {
    let kind = read_json(&dir.join("manifest.json"))
        .ok()
        .and_then(|m| m["kind"].as_str().map(str::to_string));
    let what = match kind.as_deref() {
        Some("search") => "a `vodbench search` folder, not a run: its results are search.json \
                           and curve.csv, and its report.html shows them"
            .to_string(),
        Some("sweep") => "a `vodbench sweep` folder, not a run: its results are sweep.json, \
                          sweep.csv, sweep.md and curve-NNN.csv (`vodbench sweep-table` prints \
                          its tables); to compare the runs of a sweep file's points, `vodbench \
                          run FILE --out DIR`, then `vodbench compare DIR`"
            .to_string(),
        None if dir.join("points").is_dir() && !dir.join("summary.json").is_file() => {
            "an interrupted `vodbench sweep` (it holds only points/): `vodbench sweep FILE \
             --out DIR --resume` finishes it"
                .to_string()
        }
        // any other command's output, as its mark records it (a comparison, an export, …)
        _ => match crate::ownership::written_by(dir) {
            Some(w) if !matches!(w, Writer::Run | Writer::Baseline) => {
                format!("the output of `vodbench {}`, not a run", w.command())
            }
            _ => return None,
        },
    };
    Some(format!("{}: {what}", dir.display()))
}

/// The scenario name of a saved on-demand output folder; an input error when `dir` is not one.
pub(crate) fn output_folder_scenario(dir: &Path) -> Result<String, String> {
    if !dir.exists() {
        return Err(format!("{}: no such folder", dir.display()));
    }
    if !dir.is_dir() {
        return Err(format!(
            "{}: not a folder (expected a vodbench output folder or a .toml scenario)",
            dir.display()
        ));
    }
    if let Some(what) = not_a_run(dir) {
        return Err(what);
    }
    if !dir.join("summary.json").is_file() || !dir.join("manifest.json").is_file() {
        return Err(format!(
            "{}: not a vodbench output folder (it has no summary.json and manifest.json; \
             `vodbench run SCENARIO --out DIR` writes one)",
            dir.display()
        ));
    }
    let m = read_json(&dir.join("manifest.json"))?;
    m["scenario"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{}: manifest.json names no scenario", dir.display()))
}

/// The runs of a `vodbench run` of a sweep file (manifest kind `sweep-run`), each with its
/// point's label: its values, `/`-separated, in axis order (`elevator / 512KiB`). `None` for
/// any other folder.
pub(crate) fn sweep_run_points(dir: &Path) -> Option<Result<Vec<(String, PathBuf)>, String>> {
    let m = read_json(&dir.join("manifest.json")).ok()?;
    if m["kind"].as_str() != Some("sweep-run") {
        return None;
    }
    let bad = || format!("{}: manifest.json lists no sweep points", dir.display());
    let Some(points) = m["points"].as_array().filter(|p| !p.is_empty()) else {
        return Some(Err(bad()));
    };
    let axes: Vec<&str> = m["sweep"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for p in points {
        let Some(folder) = p["folder"].as_str() else {
            return Some(Err(bad()));
        };
        let label = axes
            .iter()
            .filter_map(|a| p["values"].get(*a))
            .map(|v| match serde_json::from_value::<toml::Value>(v.clone()) {
                Ok(t) => crate::scenario::grid::value_text(&t),
                Err(_) => v.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" / ");
        out.push((label, dir.join(folder)));
    }
    Some(Ok(out))
}

/// The names of the folders in `dir` (none if it cannot be read), sorted, hidden ones left
/// out.
pub(crate) fn list_dirs(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
