//! Scenario files: one video-on-demand system plus a workload, in TOML.
//!
//! A scenario names the server topology (SPIFFI §5–6: nodes × disks, memory per node, stripe
//! size, CPU costs, network), the video library, the terminals, the workload (a trace file or a
//! generator) and each policy by name with its parameters. Parsing is strict: an unknown key,
//! a wrong type or an out-of-range value is a [`ScenarioError`] naming the file, the line, the
//! key path and what is allowed. `vodbench schema` prints the JSON Schema of the format.
//!
//! ```toml
//! name = "tiny"
//! seed = 7
//! [run]
//! duration = "2min"
//! [videos]
//! count = 4
//! length = "10min"
//! bit_rate = "4Mbit/s"
//! [server]
//! nodes = 1
//! disks_per_node = 2
//! memory_per_node = "64MiB"
//! stripe = "512KiB"
//! [disk.model]
//! name = "analytic"
//! spec = "st15150n"
//! [terminals]
//! count = 10
//! memory = "2MiB"
//! [workload.generate]
//! popularity = "zipf"
//! z = 1.0
//! ```

mod file;
mod interactive;
mod piggyback;
pub mod suite;

pub use crate::spec::ScenarioError;
pub use file::*;
pub use interactive::{InteractiveSection, SearchMode};
pub use piggyback::PiggybackSection;
pub use suite::{has_sweep, SweepPoint, SweepSuite};

use crate::plugin::{
    BufferPool, DiskModel, DiskScheduler, Layout, PluginError, PluginKind, Prefetcher, Registry,
    Resolved,
};
use crate::trace::{self, TraceEvent, TraceHeader};
use std::path::{Path, PathBuf};

/// A scenario whose file parsed and validated, with every plugin resolved.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file it came from (or a display name).
    pub path: PathBuf,
    /// Directory against which relative paths resolve.
    pub base_dir: PathBuf,
    /// The parsed file, defaults filled in.
    pub file: ScenarioFile,
    /// The chosen plugins.
    pub plugins: Plugins,
}

/// The plugins a scenario chose, resolved against a registry.
#[derive(Debug, Clone)]
pub struct Plugins {
    /// `[disk.model]`
    pub disk_model: Resolved<dyn DiskModel>,
    /// `[disk.scheduler]`
    pub scheduler: Resolved<dyn DiskScheduler>,
    /// `[buffer_pool]`
    pub buffer_pool: Resolved<dyn BufferPool>,
    /// `[prefetcher]`
    pub prefetcher: Resolved<dyn Prefetcher>,
    /// `[layout]`
    pub layout: Resolved<dyn Layout>,
}

impl Scenario {
    /// Reads, parses and validates a scenario file.
    pub fn load(path: &Path, registry: &Registry) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Io {
            file: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Self::parse(&text, path, registry)
    }

    /// Parses and validates scenario text; `path` is used for messages and relative paths.
    pub fn parse(text: &str, path: &Path, registry: &Registry) -> Result<Scenario, ScenarioError> {
        let at = |key: &str, message: String| ScenarioError::at(path, text, key, message);
        let de = toml::de::Deserializer::parse(text).map_err(|e| ScenarioError::Syntax {
            file: path.to_path_buf(),
            line: e
                .span()
                .map(|s| crate::spec::locate::line_of(text, s.start)),
            message: e.message().to_string(),
        })?;
        let file: ScenarioFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let (key, message) =
                crate::spec::error::key_and_message(&path, e.into_inner().message());
            if key == "sweep" {
                return at(
                    "sweep",
                    "a [sweep] makes this file a grid of scenarios: `vodbench run`, `check` \
                     and `sweep` take it point by point; this command needs one configuration"
                        .into(),
                );
            }
            at(&key, message)
        })?;
        Self::from_file(file, path, registry, &at)
    }

    /// Validates a parsed file and resolves its plugins; `at(key, message)` builds the
    /// error for a key (a sweep point names the sweep entry that set it).
    pub fn from_file(
        mut file: ScenarioFile,
        path: &Path,
        registry: &Registry,
        at: &dyn Fn(&str, String) -> ScenarioError,
    ) -> Result<Scenario, ScenarioError> {
        if file.name.is_none() {
            file.name = Some(
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "scenario".into()),
            );
        }
        file.validate().map_err(|(key, msg)| at(&key, msg))?;

        let plugins = Plugins {
            disk_model: resolve_plugin(registry, "disk.model", &file.disk.model, at)?,
            scheduler: resolve_plugin(registry, "disk.scheduler", &file.disk.scheduler, at)?,
            buffer_pool: resolve_plugin(registry, "buffer_pool", &file.buffer_pool, at)?,
            prefetcher: resolve_plugin(registry, "prefetcher", &file.prefetcher, at)?,
            layout: resolve_plugin(registry, "layout", &file.layout, at)?,
        };
        let base_dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let scenario = Scenario {
            path: path.to_path_buf(),
            base_dir,
            file,
            plugins,
        };
        if let Some(trace) = &scenario.file.workload.trace {
            let p = scenario.resolve_path(trace);
            if !p.is_file() {
                return Err(at(
                    "workload.trace",
                    format!("trace file {} does not exist", p.display()),
                ));
            }
        }
        Ok(scenario)
    }

    /// The scenario's name (the `name` key, or the file stem).
    pub fn name(&self) -> &str {
        self.file.name.as_deref().unwrap_or("scenario")
    }

    /// A path from the scenario, resolved against the scenario's directory.
    pub fn resolve_path(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base_dir.join(p)
        }
    }

    /// Overrides the number of terminals (`--terminals`).
    pub fn set_terminals(&mut self, n: u32) -> Result<(), ScenarioError> {
        if !(1..=MAX_TERMINALS).contains(&n) {
            return Err(ScenarioError::Invalid {
                file: self.path.clone(),
                line: None,
                key: "terminals.count".into(),
                message: format!("--terminals must be in 1..={MAX_TERMINALS}, got {n}"),
            });
        }
        self.file.terminals.count = n;
        Ok(())
    }

    /// The workload's events: read from the trace file or produced by the generator.
    ///
    /// `horizon` is how far the generator must cover. Trace events for terminals beyond
    /// `terminals.count` are an error, so that a trace and a scenario cannot silently disagree.
    pub fn workload_events(
        &self,
        horizon: crate::time::SimTime,
    ) -> Result<(TraceHeader, Vec<TraceEvent>), ScenarioError> {
        let f = &self.file;
        if let Some(tp) = &f.workload.trace {
            let path = self.resolve_path(tp);
            let (header, events) = trace::read_file(&path).map_err(|e| ScenarioError::Trace {
                message: e.to_string(),
            })?;
            if let Some(e) = events
                .iter()
                .find(|e| e.terminal.0 >= f.terminals.count || e.video.0 >= f.videos.count)
            {
                return Err(ScenarioError::Trace {
                    message: format!(
                        "{}: event at {} for terminal {} video {} is outside the scenario \
                         (terminals.count = {}, videos.count = {})",
                        path.display(),
                        e.time,
                        e.terminal,
                        e.video,
                        f.terminals.count,
                        f.videos.count
                    ),
                });
            }
            Ok((header, events))
        } else {
            let g = f
                .workload
                .generate
                .as_ref()
                .expect("validated: trace or generate");
            let events = trace::generate(
                g,
                f.terminals.count,
                f.videos.count,
                f.videos.length.sim(),
                horizon,
                f.seed,
            )
            .map_err(|message| ScenarioError::Trace { message })?;
            Ok((
                TraceHeader {
                    terminals: Some(f.terminals.count),
                    videos: Some(f.videos.count),
                },
                events,
            ))
        }
    }
}

/// The plugin of `table` (at scenario key `key`, e.g. `disk.scheduler`) resolved in
/// `registry`; its errors as scenario errors at that key or the parameter's key below it.
pub(crate) fn resolve_plugin<K: PluginKind + ?Sized>(
    registry: &Registry,
    key: &str,
    table: &PluginTable,
    at: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<Resolved<K>, ScenarioError> {
    registry
        .resolve::<K>(&table.name, &table.params)
        .map_err(|e| match e {
            PluginError::Unknown { .. } => at(&format!("{key}.name"), e.to_string()),
            PluginError::InvalidParam { path, message } => {
                let full = if path.is_empty() {
                    key.to_string()
                } else {
                    format!("{key}.{path}")
                };
                at(
                    &full,
                    format!("{} `{}`: {message}", K::KIND.key(), table.name),
                )
            }
            PluginError::Build(m) => at(key, m),
        })
}
