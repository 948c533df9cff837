//! Broadcast scenario files: a movie, a broadcast schedule, receivers, and an optional sweep.
//!
//! A file is a broadcast scenario when it has a top-level `[broadcast]` table. Parsing is as
//! strict as for on-demand scenarios: unknown keys, wrong types and out-of-range values name
//! the file, the line and the key path. A `[sweep]` table turns one file into a grid of runs:
//! each key is a dotted path into the scenario, each value the list of settings to try (the
//! same `[sweep]` as on-demand scenarios, [`crate::scenario::grid`], series axes included).
//!
//! ```toml
//! name = "mcs-1pct"
//! [broadcast]
//! frames = 216000        # a two-hour movie at 30 frames/s
//! frame_rate = 30
//! delay = "30s"           # the initial wait w
//! [broadcast.schedule]
//! name = "ideal"
//! [receiver]
//! cache = "1%"            # of the movie's frames
//! [receiver.buffer]
//! name = "mcs"
//! kappa = "2.5%"          # of the cache
//! [sweep]
//! "receiver.cache" = ["0.5%", "1%", "2%"]
//! ```

use crate::plugin::{
    slot_keys, Analysis, AnalyticModel, BroadcastSchedule, BuildContext, ClientBuffer, DiskModel,
    ModelInput, Registry,
};
use crate::scenario::slots::{slot_tables, PluginTable, Resolution, SlotOf};
use crate::scenario::{ScenarioError, Source};
use crate::units::{BitRate, Duration, Portion};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most frames a movie may have.
pub const MAX_FRAMES: u32 = 50_000_000;
/// Most receivers per run.
pub const MAX_CLIENTS: u32 = 100_000;
pub use crate::scenario::grid::MAX_SWEEP_POINTS;

/// The top level of a broadcast scenario file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BroadcastFile {
    /// Scenario name (default: the file name without extension).
    pub name: Option<String>,
    /// What the scenario reproduces.
    pub description: Option<String>,
    /// Seed of every random stream (receivers' join instants).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Plugin libraries this scenario loads (`[plugins] load`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<crate::scenario::libraries::PluginsSection>,
    /// The movie and its broadcast schedule.
    pub broadcast: BroadcastSection,
    /// The receivers (clients).
    pub receiver: ReceiverSection,
    /// A grid of runs: dotted key → list of values (see the module docs).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Vec<serde_json::Value>>")]
    pub sweep: toml::Table,
    /// Published figures for this configuration (shown beside vodbench's values).
    #[serde(default)]
    pub paper: BTreeMap<String, f64>,
}

fn default_seed() -> u64 {
    1
}

/// `[broadcast]`: the movie and the server's schedule.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BroadcastSection {
    /// Frames in the movie (`n`).
    pub frames: u32,
    /// Frames per second; one *instant* is one frame's playout time (default 30).
    #[serde(default = "default_rate")]
    pub frame_rate: u32,
    /// The movie's bit rate, which sets the frame size (default 4Mbit/s).
    #[serde(default = "default_bit_rate")]
    pub bit_rate: BitRate,
    /// Initial delay `w` before playout starts, at least one instant (e.g. "30s").
    pub delay: Duration,
    /// Broadcast schedule plugin (default: the binary's; `ideal` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<PluginTable>,
    /// The analytic model of the broadcast, whose values a run prints beside the measured
    /// ones and `vodbench analyze` evaluates (default: the binary's; `waldvogel-bandwidth`,
    /// eq. 1-2, in vodbench). Recorded in manifests only when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analytic: Option<PluginTable>,
}

fn default_rate() -> u32 {
    30
}
fn default_bit_rate() -> BitRate {
    BitRate(4_000_000)
}
fn default_clients() -> u32 {
    1
}
fn default_read_ahead() -> Duration {
    Duration(1_000_000_000)
}

/// `[receiver]`: the clients' memory, disk and buffer policy.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReceiverSection {
    /// Number of receivers, each joining at its own random instant (default 1). Receivers
    /// join in the schedule's steady state: at `n + w + phase`, once every frame's broadcast
    /// cycle is under way, with the phase drawn uniformly from `0..n + w`.
    #[serde(default = "default_clients")]
    pub clients: u32,
    /// A fixed phase `0 ≤ join < n + w` for a single receiver instead of a random one.
    pub join: Option<u32>,
    /// Memory cache `C`: frames, or a share of the movie such as "1%".
    pub cache: Portion,
    /// Slack kept between a read-back's worst-case completion and the frame's playout
    /// (default "1s"): a frame on disk is read back once `now + worst-case time to make
    /// room and read its extent + read_ahead` reaches its playout time. Frames due within
    /// `read_ahead` are pinned in memory.
    #[serde(default = "default_read_ahead")]
    pub read_ahead: Duration,
    /// Occupancy sampling interval (default: the movie length / 500).
    pub sample: Option<Duration>,
    /// Client buffer policy plugin.
    pub buffer: PluginTable,
    /// The receiver's local disk: any disk model (default: the binary's; `linear` in
    /// vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk: Option<PluginTable>,
}

slot_tables! {
    /// The tables of a broadcast scenario that choose a plugin.
    pub const SLOTS for BroadcastFile;
    /// `[broadcast.schedule]`
    pub const SCHEDULE: dyn BroadcastSchedule = SlotOf::own() => broadcast.schedule;
    /// `[receiver.buffer]` (a table every file gives).
    pub const BUFFER: dyn ClientBuffer = SlotOf::own() => receiver.buffer;
    /// `[receiver.disk]`
    pub const DISK: dyn DiskModel = SlotOf::at(slot_keys::RECEIVER_DISK) => receiver.disk;
    /// `[broadcast.analytic]`: the default is not written into the file (a scenario without
    /// it is recorded as it was written).
    pub const ANALYTIC: dyn AnalyticModel =
        SlotOf::at(slot_keys::BROADCAST_ANALYTIC).recorded_when_chosen() => broadcast.analytic;
}

/// One point of a scenario, parsed and validated, with its plugins resolved.
#[derive(Debug, Clone)]
pub struct BroadcastScenario {
    /// The parsed file for this point (sweep removed).
    pub file: BroadcastFile,
    /// The swept keys and this point's values (empty without a sweep).
    pub point: Vec<(String, toml::Value)>,
    /// The plugins at its [`SLOTS`] (`plugins.required(&SCHEDULE)`), and each as the manifest
    /// records it (`plugins.chosen`, in [`SLOTS`] order).
    pub plugins: Resolution,
    /// What the analytic model predicts at this point (evaluated once, when the point is
    /// loaded).
    pub analysis: Analysis,
    /// Every plugin library loaded when the point was (`--plugin`, `[plugins] load`).
    pub libraries: Vec<std::sync::Arc<crate::plugin::Origin>>,
    /// Frames the receiver's buffer takes at a time (`ClientBuffer::batch_frames`, at least
    /// 1), as built when the point was loaded: the schedule's chunk hint.
    pub batch: u32,
    /// Whether the schedule depends on that hint (`BroadcastSchedule::uses_chunk_hint`): if
    /// not, points that batch differently share one schedule.
    pub chunk_hint_used: bool,
}

/// What may refuse a point of a broadcast file before its plugins are built: the key and the
/// message, or `None` to go on.
pub type Budget = dyn Fn(&BroadcastScenario, &Derived) -> Option<(&'static str, String)>;

/// A broadcast scenario file: every point of its sweep (one point without a sweep).
#[derive(Debug, Clone)]
pub struct BroadcastSuite {
    /// The file.
    pub path: PathBuf,
    /// Directory against which relative paths resolve.
    pub base_dir: PathBuf,
    /// Scenario name.
    pub name: String,
    /// The swept keys, in grid order (the last varies fastest).
    pub sweep_keys: Vec<String>,
    /// Every scenario key an axis sets at some point, sorted (`Grid::swept_keys`).
    pub swept: Vec<String>,
    /// The points.
    pub points: Vec<BroadcastScenario>,
    /// The file as read (for the lines of errors found after loading).
    pub source: Arc<Source>,
}

/// Derived quantities of a point, in instants and frames.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Derived {
    /// Frames `n`.
    pub frames: u32,
    /// Initial delay `w` in instants.
    pub delay: u32,
    /// One instant in nanoseconds.
    pub instant_ns: u64,
    /// Bytes per frame.
    pub frame_bytes: u64,
    /// Cache `C` in frames.
    pub cache: u32,
    /// Read-ahead in instants.
    pub read_ahead: u32,
    /// Occupancy sampling interval in instants.
    pub sample: u32,
}

impl BroadcastFile {
    /// The derived quantities; errors name the key.
    pub fn derive(&self) -> Result<Derived, (String, String)> {
        let b = &self.broadcast;
        let r = &self.receiver;
        let bad = |k: &str, m: String| Err((k.to_string(), m));
        if !(2..=MAX_FRAMES).contains(&b.frames) {
            return bad(
                "broadcast.frames",
                format!("must be in 2..={MAX_FRAMES}, got {}", b.frames),
            );
        }
        if !(1..=1000).contains(&b.frame_rate) {
            return bad(
                "broadcast.frame_rate",
                format!("must be in 1..=1000 frames/s, got {}", b.frame_rate),
            );
        }
        if b.bit_rate.0 < 8 * u64::from(b.frame_rate) {
            return bad(
                "broadcast.bit_rate",
                format!("{} gives frames under one byte", b.bit_rate),
            );
        }
        let instant_ns = 1_000_000_000 / u64::from(b.frame_rate);
        let delay = (b.delay.0 + instant_ns / 2) / instant_ns;
        if delay == 0 || delay > u64::from(MAX_FRAMES) {
            return bad(
                "broadcast.delay",
                format!(
                    "must be at least one frame time ({}) and at most {MAX_FRAMES} frames, got {}",
                    crate::units::fmt_duration_ns(instant_ns),
                    b.delay
                ),
            );
        }
        let delay = delay as u32;
        if !(1..=MAX_CLIENTS).contains(&r.clients) {
            return bad(
                "receiver.clients",
                format!("must be in 1..={MAX_CLIENTS}, got {}", r.clients),
            );
        }
        if let Some(j) = r.join {
            if r.clients != 1 {
                return bad(
                    "receiver.join",
                    "a fixed join instant needs receiver.clients = 1".into(),
                );
            }
            if j >= b.frames + delay {
                return bad(
                    "receiver.join",
                    format!(
                        "must be in 0..{} (a phase within one period n + w), got {j}",
                        b.frames + delay
                    ),
                );
            }
        }
        let read_ahead = r.read_ahead.0.div_ceil(instant_ns).min(u64::from(b.frames)) as u32;
        let cache = r.cache.of(u64::from(b.frames));
        if cache < u64::from(read_ahead) + 2 || cache > u64::from(b.frames) {
            return bad(
                "receiver.cache",
                format!(
                    "must hold more than the read-ahead window ({read_ahead} frames) + 1 and at \
                     most the movie ({} frames); got {} = {cache} frames",
                    b.frames, r.cache
                ),
            );
        }
        let movie_ns = instant_ns * u64::from(b.frames);
        let sample = r.sample.map_or(movie_ns / 500, |d| d.0);
        let sample = (sample / instant_ns).max(1).min(u64::from(b.frames)) as u32;
        Ok(Derived {
            frames: b.frames,
            delay,
            instant_ns,
            frame_bytes: b.bit_rate.0 / 8 / u64::from(b.frame_rate),
            cache: cache as u32,
            read_ahead,
            sample,
        })
    }
}

/// The context a broadcast plugin is built with (`component`: `broadcast` for the schedule,
/// `receiver` for the client buffer and, renamed `receiver.disk`, its disk).
pub(super) fn build_context<'a>(
    s: &BroadcastScenario,
    d: &Derived,
    component: &'static str,
    index: u64,
    base_dir: &'a Path,
) -> BuildContext<'a> {
    BuildContext::new(s.file.seed, component, index, base_dir)
        .with_terminals(s.file.receiver.clients)
        .with_block_bytes(d.frame_bytes)
        .with_pages(d.cache)
}

impl BroadcastSuite {
    /// Reads and validates a broadcast scenario file, expanding its sweep.
    pub fn load(path: &Path, registry: &Registry) -> Result<BroadcastSuite, ScenarioError> {
        Self::from_source(&Source::read(path)?, registry)
    }

    /// Parses scenario text; `path` is used in messages and for relative paths.
    pub fn parse(
        text: &str,
        path: &Path,
        registry: &Registry,
    ) -> Result<BroadcastSuite, ScenarioError> {
        Self::from_source(&Source::from_text(path, text), registry)
    }

    /// Validates a broadcast scenario file already read, expanding its sweep.
    pub fn from_source(
        source: &Arc<Source>,
        registry: &Registry,
    ) -> Result<BroadcastSuite, ScenarioError> {
        Self::from_source_within(source, registry, &|_, _| None)
    }

    /// [`from_source`](Self::from_source), refusing a point for which `budget` gives a key
    /// and a message (the memory budget: `broadcast::memory::refusal_of_point`) before its
    /// plugins are built.
    pub fn from_source_within(
        source: &Arc<Source>,
        registry: &Registry,
        budget: &Budget,
    ) -> Result<BroadcastSuite, ScenarioError> {
        let (text, path) = (source.text(), source.path());
        let mut base = crate::scenario::grid::parse_table(text, path)?;
        let grid = crate::scenario::Grid::expand(&mut base, text, path)?;
        let name = base
            .get("name")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| {
                path.file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "scenario".into())
            });
        let base_dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let mut out = Vec::with_capacity(grid.points.len());
        for p in &grid.points {
            let in_point = |key: &str, message: String| p.error(&grid, text, path, key, message);
            out.push(Self::point(
                p.table.clone(),
                p.values.clone(),
                registry,
                &base_dir,
                &in_point,
                budget,
            )?);
        }
        if let Some(table) = grid.base_check(&base) {
            let at = |key: &str, message: String| {
                crate::system::ondemand::scenario::suite::base_value_error(path, text, key, message)
            };
            Self::point(table, Vec::new(), registry, &base_dir, &at, budget)?;
        }
        Ok(BroadcastSuite {
            path: path.to_path_buf(),
            base_dir,
            name,
            sweep_keys: grid.axes.iter().map(|a| a.name().to_string()).collect(),
            swept: grid.swept_keys(),
            points: out,
            source: source.clone(),
        })
    }

    /// One point, its plugins resolved and built once as a run builds them, so that what
    /// cannot be built for it (a κ larger than the cache, a missing disk file) is an error
    /// here, at its key, and not only when it runs.
    fn point(
        table: toml::Table,
        point: Vec<(String, toml::Value)>,
        registry: &Registry,
        base_dir: &Path,
        at: &dyn Fn(&str, String) -> ScenarioError,
        budget: &Budget,
    ) -> Result<BroadcastScenario, ScenarioError> {
        let mut file: BroadcastFile = serde_path_to_error::deserialize(toml::Value::Table(table))
            .map_err(|e| {
            let path = e.path().to_string();
            let (key, message) =
                crate::scenario::error::key_and_message(&path, &e.into_inner().to_string());
            at(&key, message)
        })?;
        let d = file.derive().map_err(|(k, m)| at(&k, m))?;
        let registry = &*crate::scenario::libraries::registry_for(
            registry,
            file.plugins.as_ref(),
            base_dir,
            at,
        )?;
        let libraries = registry.origins();
        let plugins = Resolution::resolve(SLOTS, &mut file, registry, at)?;
        let s = BroadcastScenario {
            file,
            point,
            plugins,
            analysis: Analysis::default(),
            libraries,
            batch: 1,
            chunk_hint_used: true,
        };
        // the budget first: building the schedule and the buffer is what may not fit
        if let Some((key, message)) = budget(&s, &d) {
            return Err(at(key, message));
        }
        let cannot = |key: &str, name: &str, e: crate::plugin::PluginError| {
            // the parameter at fault when the plugin names one
            at(&e.key_in(key), format!("cannot build {key} `{name}`: {e}"))
        };
        let p = &s.plugins;
        let (schedule, buffer, disk) = (
            p.required(&SCHEDULE),
            p.required(&BUFFER),
            p.required(&DISK),
        );
        let c = build_context(&s, &d, "broadcast", 0, base_dir);
        let chunk_hint_used = schedule
            .build(&c)
            .map_err(|e| cannot(SCHEDULE.key, schedule.name, e))?
            .uses_chunk_hint();
        let c = build_context(&s, &d, "receiver", 0, base_dir);
        let batch = buffer
            .build(&c)
            .map_err(|e| cannot(BUFFER.key, buffer.name, e))?
            .batch_frames()
            .max(1);
        let c = c.with_component(DISK.key, 0);
        disk.build(&c).map_err(|e| cannot(DISK.key, disk.name, e))?;
        let c = build_context(&s, &d, "analytic", 0, base_dir);
        let analytic = p.required(&ANALYTIC);
        let analysis = crate::system::evaluate_model(
            analytic,
            ANALYTIC.key,
            &c,
            &model_input(&s.file, &d),
            at,
        )?;
        if let Some(k) = THEORY_KEYS
            .iter()
            .find(|k| !analysis.values.contains_key(**k))
        {
            return Err(at(
                ANALYTIC.key,
                format!(
                    "analytic model `{}` gives no `{k}`, which a broadcast run reports beside \
                     what it measures; choose a model that gives {} (e.g. waldvogel-bandwidth)",
                    analytic.name,
                    THEORY_KEYS.join(", ")
                ),
            ));
        }
        Ok(BroadcastScenario {
            analysis,
            batch,
            chunk_hint_used,
            ..s
        })
    }
}

/// The values of a broadcast point's analytic model that its run reports beside the measured
/// ones (Waldvogel eq. 1 and 2 in vodbench).
pub const THEORY_KEYS: [&str; 4] = [
    "schedule.ideal_bandwidth_ratio",
    "schedule.ideal_bandwidth_approx_ratio",
    "receivers.peak_buffered_theory_frames",
    "receivers.peak_buffered_theory_instant",
];

/// A broadcast point as an analytic model sees it: the movie's frames, the delay in frame
/// times, the frame rate, the bit rate and the receivers.
pub fn model_input(file: &BroadcastFile, d: &Derived) -> ModelInput {
    let mut i = ModelInput::new("broadcast", ANALYTIC.key);
    i.set("frames", f64::from(d.frames), "broadcast.frames")
        .set("delay_instants", f64::from(d.delay), "broadcast.delay")
        .set(
            "frame_rate",
            f64::from(file.broadcast.frame_rate),
            "broadcast.frame_rate",
        )
        .set(
            "bit_rate_bps",
            file.broadcast.bit_rate.0 as f64,
            "broadcast.bit_rate",
        )
        .set(
            "clients",
            f64::from(file.receiver.clients),
            "receiver.clients",
        );
    i
}

/// The JSON Schema of broadcast scenario files (`vodbench schema --broadcast`).
pub fn json_schema(registry: &Registry) -> serde_json::Value {
    let root = serde_json::to_value(schemars::schema_for!(BroadcastFile)).expect("schema");
    crate::scenario::json_schema::with_slots(root, registry, SLOTS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_slot_is_the_table_at_its_key() {
        let base: toml::Table = toml::from_str(
            r#"
            [broadcast]
            frames = 1000
            delay = "30s"
            [receiver]
            cache = "10%"
            [receiver.buffer]
            name = "mcs"
            "#,
        )
        .unwrap();
        crate::scenario::slots::assert_tables_at_keys::<BroadcastFile>(&base, SLOTS);
    }
}
