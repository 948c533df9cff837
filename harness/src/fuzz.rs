//! Fuzz targets: one function per parser of the harness, each taking arbitrary bytes and
//! returning normally whatever they hold. Rejecting the input with an error is the expected
//! answer to most of them; a panic, a hang or an allocation beyond the memory budget is a
//! finding.
//!
//! They are called over the committed corpus (`tests/fuzz-corpus/TARGET/`) and mutations of
//! it by the stable test `tests/fuzz_corpus.rs`, and, for longer runs, by the cargo-fuzz
//! targets in `fuzz/` (not part of the workspace nor of CI). The DiskSim parameter-file target
//! lives with them, as it parses with the plugins crate.

use crate::experiment::disk_replay::parse_trace;
use crate::plugin::Registry;
use crate::scenario::Source;
use crate::system::broadcast::Broadcast;
use crate::system::ondemand::scenario::{Scenario, ScenarioFile, SweepSuite};
use crate::system::ondemand::{memory, OnDemand};
use crate::system::{declared, Declared, System};
use crate::trace::requests::{BlockModel, CsvLayout, RequestFormat, RequestReader};
use crate::trace::TraceReader;
use std::path::Path;

/// The names of the targets, as the corpus folders are named.
pub const TARGETS: [&str; 7] = [
    "scenario",
    "sweep",
    "trace",
    "manifest",
    "disk-replay",
    "request-trace",
    "slurm-options",
];

/// Runs the target named `name` on `bytes`; `false` for an unknown name.
pub fn run(name: &str, registry: &Registry, bytes: &[u8]) -> bool {
    match name {
        "scenario" => scenario(registry, bytes),
        "sweep" => sweep(registry, bytes),
        "trace" => trace(bytes),
        "manifest" => manifest(registry, bytes),
        "disk-replay" => disk_replay(bytes),
        "request-trace" => request_trace(bytes),
        "slurm-options" => slurm_options(bytes),
        _ => return false,
    }
    true
}

/// A scenario file of either system, loaded as `vodbench check` loads it (every point
/// parsed and checked, plugins resolved) and, for an on-demand one, its memory estimated;
/// nothing is built or run.
pub fn scenario(registry: &Registry, bytes: &[u8]) {
    let source = Source::from_text(
        Path::new("fuzz.toml"),
        String::from_utf8_lossy(bytes).into_owned(),
    );
    match declared(&source) {
        Declared::OnDemand => {
            if let Ok(suite) = OnDemand::load(&source, registry) {
                for p in &suite.points {
                    let _ = memory::estimate(&p.scenario);
                }
            }
        }
        Declared::Broadcast => {
            let _ = Broadcast::load(&source, registry);
        }
    }
}

/// An on-demand file as a sweep (`[sweep]` grid and its series).
pub fn sweep(registry: &Registry, bytes: &[u8]) {
    let source = Source::from_text(
        Path::new("fuzz.toml"),
        String::from_utf8_lossy(bytes).into_owned(),
    );
    let _ = SweepSuite::from_source(&source, registry);
}

/// A workload trace, read event by event to its end or its first error.
pub fn trace(bytes: &[u8]) {
    let mut reader = TraceReader::new(bytes, "fuzz.trace");
    for event in reader.by_ref() {
        if event.is_err() {
            break;
        }
    }
    let _ = reader.header();
}

/// A run's `manifest.json`, as `vodbench rerun` reads it: JSON, its `resolved_scenario` as a
/// scenario, written back as TOML and loaded.
pub fn manifest(registry: &Registry, bytes: &[u8]) {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return;
    };
    let Ok(file) = serde_json::from_value::<ScenarioFile>(value["resolved_scenario"].clone())
    else {
        return;
    };
    let Ok(text) = toml::to_string(&file) else {
        return;
    };
    let source = Source::from_text(Path::new("fuzz.toml"), text);
    let _ = Scenario::from_source(&source, registry);
}

/// A DiskSim ASCII trace for `vodbench disk replay`.
pub fn disk_replay(bytes: &[u8]) {
    let _ = parse_trace(&String::from_utf8_lossy(bytes));
}

/// A request trace for `vodbench cache replay`, read in every format (`oracleGeneral`, CSV
/// with the default layout and with a header, `;` and hashed ids, a vodbench trace's block
/// reads), each to its end, its first error or 100,000 requests.
pub fn request_trace(bytes: &[u8]) {
    let formats = [
        RequestFormat::OracleGeneral,
        RequestFormat::Csv(CsvLayout::default()),
        RequestFormat::Csv(CsvLayout {
            time_col: None,
            id_col: 2,
            size_col: Some(1),
            delimiter: b';',
            header: true,
            hashed_ids: true,
        }),
        RequestFormat::Vodbench(BlockModel {
            block_bytes: 1 << 19,
            bit_rate: 4_000_000,
            video_blocks: 100,
        }),
    ];
    for format in &formats {
        let input = Box::new(std::io::Cursor::new(bytes.to_vec()));
        let mut reader = RequestReader::new(input, "fuzz.trace", format);
        for _ in 0..100_000 {
            if !matches!(reader.next_request(), Ok(Some(_))) {
                break;
            }
        }
    }
}

/// `vodbench slurm`'s values (issue 49): the input's lines as a partition, a time limit and
/// a path, checked as `vodbench slurm` checks them; when all three pass, the scripts' lines
/// made from them. Panics (a finding) when a value that passed gives a script with a line of
/// its own, or a time limit out of Slurm's range.
pub fn slurm_options(bytes: &[u8]) {
    use crate::experiment::slurm;
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.splitn(3, '\n');
    let partition = lines.next().unwrap_or_default();
    let time = lines.next().unwrap_or_default();
    let path = lines.next().unwrap_or_default();
    let p = slurm::check_partition(partition);
    let t = slurm::parse_time(time);
    if let Ok(Some(seconds)) = t {
        assert!(seconds.div_ceil(60) <= slurm::MAX_TIME_MINUTES, "{time:?}");
    }
    let d = slurm::script_text("--out", std::ffi::OsStr::new(path));
    let options = vec![
        format!("--partition={partition}"),
        format!("--time={time}"),
        format!(
            "--output={}",
            slurm::sbatch_quote(&slurm::output_pattern(path, "task-%A_%a.out"))
        ),
    ];
    let command = vec!["vodbench".to_string(), "--out".into(), path.to_string()];
    let script = slurm::script("fuzz", &options, &command);
    if p.is_ok() && t.is_ok() && d.is_ok() {
        let script = script.unwrap_or_else(|e| panic!("checked values refused: {e}"));
        // the shebang, the comment, one line per option, `set`, `exec`
        assert_eq!(script.lines().count(), 2 + options.len() + 2, "{script}");
    }
}
