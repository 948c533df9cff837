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

mod bus;
mod clients;
mod cost;
mod disk;
mod egress;
mod file;
mod interactive;
mod interface_cpu;
mod message_work;
mod network;
mod piggyback;
mod replication;
mod run;
mod server;
mod server_rounds;
pub mod suite;
mod terminals;
mod values;
mod videos;
mod workload;

pub use super::lost_packet::LostPacketCpu;
pub use crate::scenario::ScenarioError;
pub use bus::{Arbitration, BusSection};
pub use clients::{ClientProfile, ClientsSection};
pub use cost::CostSection;
pub use disk::DiskSection;
pub use egress::EgressSection;
pub use file::*;
pub use interactive::{InteractiveSection, SearchMode};
pub use interface_cpu::InterfaceCpuSection;
pub use message_work::MessageWorkSection;
pub use network::Network;
pub use piggyback::PiggybackSection;
pub use replication::{ReplicationSection, Scheme};
pub use run::{RunSection, Warmup};
pub use server::{CpuCosts, ServerSection, StorageThreading};
pub use server_rounds::{Release, RoundLength, ServerRoundsSection};
pub use suite::{has_sweep, SweepPoint, SweepSuite};
pub use terminals::{
    RoundIssue, RoundsSection, TerminalSection, MAX_TERMINALS, MAX_TERMINAL_BLOCKS,
};
pub use videos::{FrameModel, VideoSection};
pub use workload::WorkloadSection;

use crate::plugin::{Analysis, BuildContext, ModelInput, PluginKind, Registry, Resolved};
use crate::scenario::slots::{Chosen, Resolution, SlotOf};
use crate::scenario::Source;
use crate::system::OverrideError;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// The file's text, for the lines of errors found later (building the run).
    pub source: Arc<Source>,
}

/// The plugins a scenario chose at its [`SLOTS`] (declared beside the file's fields, in
/// `file.rs`), resolved against a registry: what the components build their plugins from,
/// each asking for its slot's (`plugins.required(&DISK_SCHEDULER)`), and what the manifest
/// records.
#[derive(Debug, Clone)]
pub struct Plugins {
    /// Every slot's plugin, in [`SLOTS`] order.
    resolution: Resolution,
    /// Every plugin library loaded when the scenario was (`--plugin`, `[plugins] load`):
    /// inputs of its results, as its files are.
    pub libraries: Vec<Arc<crate::plugin::Origin>>,
}

impl Plugins {
    /// Resolves every slot of `file`, filling in the defaults it left out.
    fn resolve(
        file: &mut ScenarioFile,
        registry: &Registry,
        at: &dyn Fn(&str, String) -> ScenarioError,
    ) -> Result<Plugins, ScenarioError> {
        // the disk model first (its errors before the others'), then the others in order
        let order =
            std::iter::once(&*DISK_MODEL).chain(SLOTS.iter().filter(|s| **s != *DISK_MODEL));
        let mut resolution = Resolution::resolve(order, file, registry, at)?;
        resolution.sort_as(SLOTS);
        Ok(Plugins {
            resolution,
            libraries: registry.origins(),
        })
    }

    /// The plugin at `slot`, one of [`SLOTS`], when the scenario has one there (a slot
    /// without a default, `[transmission]`, may be empty).
    pub fn get<K: PluginKind + ?Sized>(&self, slot: &SlotOf<K>) -> Option<&Resolved<K>> {
        self.resolution.get(slot)
    }

    /// The plugin at `slot`, one of [`SLOTS`] with a default (`[disk.scheduler]`).
    ///
    /// # Panics
    /// If the slot is empty (a slot without a default: a wiring bug).
    pub fn required<K: PluginKind + ?Sized>(&self, slot: &SlotOf<K>) -> &Resolved<K> {
        self.resolution.required(slot)
    }

    /// Each slot's plugin as the manifest records it, in [`SLOTS`] order.
    pub fn chosen(&self) -> &[Chosen] {
        &self.resolution.chosen
    }

    /// The manifest's `plugins` object.
    pub fn manifest_lines(&self) -> serde_json::Value {
        crate::scenario::slots::manifest_lines(SLOTS, &self.resolution.chosen)
    }
}

/// The JSON Schema of on-demand scenario files (`vodbench schema`).
pub fn json_schema(registry: &Registry) -> serde_json::Value {
    let root = serde_json::to_value(schemars::schema_for!(ScenarioFile)).expect("schema");
    crate::scenario::json_schema::with_slots(root, registry, SLOTS)
}

impl Scenario {
    /// How far a generated workload must reach: warm-up estimate + measured period + one
    /// video.
    pub fn horizon(&self) -> crate::time::SimTime {
        let f = &self.file;
        let warm = match f.run.warmup {
            Warmup::Fixed(d) => d.0,
            Warmup::Auto => f.workload.generate.as_ref().map_or(0, |g| g.start_spread.0),
        };
        crate::time::SimTime::from_nanos(
            warm.saturating_add(f.run.duration.0)
                .saturating_add(f.videos.length.0),
        )
    }

    /// Reads, parses and validates a scenario file.
    pub fn load(path: &Path, registry: &Registry) -> Result<Scenario, ScenarioError> {
        Self::from_source(&Source::read(path)?, registry)
    }

    /// Parses and validates scenario text; `path` is used for messages and relative paths.
    pub fn parse(text: &str, path: &Path, registry: &Registry) -> Result<Scenario, ScenarioError> {
        Self::from_source(&Source::from_text(path, text), registry)
    }

    /// Parses and validates a scenario file already read.
    pub fn from_source(
        source: &Arc<Source>,
        registry: &Registry,
    ) -> Result<Scenario, ScenarioError> {
        let text = source.text();
        let path = source.path();
        let at = |key: &str, message: String| source.at(key, message);
        let de = toml::de::Deserializer::parse(text).map_err(|e| ScenarioError::Syntax {
            file: path.to_path_buf(),
            line: e
                .span()
                .map(|s| crate::scenario::locate::line_of(text, s.start)),
            message: e.message().to_string(),
        })?;
        let file: ScenarioFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let (key, message) =
                crate::scenario::error::key_and_message(&path, e.into_inner().message());
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
        Self::from_file(file, source, registry, &at)
    }

    /// Validates a parsed file and resolves its plugins; `at(key, message)` builds the
    /// error for a key (a sweep point names the sweep entry that set it).
    pub fn from_file(
        mut file: ScenarioFile,
        source: &Arc<Source>,
        registry: &Registry,
        at: &dyn Fn(&str, String) -> ScenarioError,
    ) -> Result<Scenario, ScenarioError> {
        if file.name.is_none() {
            file.name = Some(source.stem());
        }
        file.validate().map_err(|(key, msg)| at(&key, msg))?;
        let registry = crate::scenario::libraries::registry_for(
            registry,
            file.plugins.as_ref(),
            &source.base_dir(),
            at,
        )?;
        let plugins = Plugins::resolve(&mut file, &registry, at)?;
        let scenario = Scenario {
            path: source.path().to_path_buf(),
            base_dir: source.base_dir(),
            file,
            plugins,
            source: Arc::clone(source),
        };
        if let Some(trace) = &scenario.file.workload.trace {
            let p = scenario.resolve_path(trace);
            // a folder, a device or a FIFO is not a trace: say which, not "does not exist"
            if let Err(why) = crate::input::regular_file_size(&p, u64::MAX) {
                return Err(at(
                    "workload.trace",
                    format!("trace file {}: {why}", p.display()),
                ));
            }
        }
        Ok(scenario)
    }

    /// The stripe block size in bytes: the unit of layout, of every read and of a buffer page.
    pub fn block_bytes(&self) -> u64 {
        self.file.server.stripe.0
    }

    /// Pages in each node's buffer pool.
    pub fn pages_per_node(&self) -> u32 {
        (self.file.server.memory_per_node.0 / self.block_bytes()) as u32
    }

    /// The build context of the plugin serving `component` (its table) at `index` (a disk,
    /// a node; 0 for one-of-a-kind plugins), with the server's shape: its nodes, interface
    /// and manager nodes, disks, terminals and block size. The caller adds what its plugin
    /// needs beyond that (the videos' blocks, a disk's geometry, the pages).
    pub fn server_context(&self, component: &'static str, index: u64) -> BuildContext<'_> {
        let s = &self.file.server;
        BuildContext::new(self.file.seed, component, index, &self.base_dir)
            .with_nodes(s.nodes)
            .with_interfaces(s.interface_nodes)
            .with_managers(u32::from(s.manager_node))
            .with_disks_per_node(s.disks_per_node)
            .with_terminals(self.terminals())
            .with_block_bytes(self.block_bytes())
    }

    /// Every disk of the server.
    pub fn disks(&self) -> u32 {
        self.file.server.nodes * self.file.server.disks_per_node
    }

    /// The scenario as an analytic model sees it (`[analytic]`): its quantities in SI
    /// units, each with its key.
    pub fn model_input(&self) -> ModelInput {
        let f = &self.file;
        let mut i = ModelInput::new("on-demand", ANALYTIC.key);
        i.set("block_bytes", f.server.stripe.0 as f64, "server.stripe")
            .set(
                "bit_rate_bps",
                f.videos.bit_rate.0 as f64,
                "videos.bit_rate",
            )
            .set("terminals", f64::from(self.terminals()), "terminals.count")
            .set(
                "terminal_memory_bytes",
                f.terminals.memory.0 as f64,
                "terminals.memory",
            )
            .set("nodes", f64::from(f.server.nodes), "server.nodes")
            .set(
                "disks_per_node",
                f64::from(f.server.disks_per_node),
                "server.disks_per_node",
            )
            .set("disks", f64::from(self.disks()), "server.disks_per_node")
            .set(
                "memory_per_node_bytes",
                f.server.memory_per_node.0 as f64,
                "server.memory_per_node",
            );
        i
    }

    /// The scenario's analytic model evaluated (`None` when it names none); errors at the
    /// key the model cannot take.
    pub fn analysis(&self) -> Result<Option<Analysis>, ScenarioError> {
        let Some(model) = self.plugins.get(&ANALYTIC) else {
            return Ok(None);
        };
        let f = &self.file;
        let ctx = BuildContext::new(f.seed, ANALYTIC.key, 0, &self.base_dir)
            .with_nodes(f.server.nodes)
            .with_disks_per_node(f.server.disks_per_node)
            .with_terminals(self.terminals())
            .with_block_bytes(self.block_bytes());
        let at = |key: &str, message: String| self.source.at(key, message);
        crate::system::evaluate_model(model, ANALYTIC.key, &ctx, &self.model_input(), &at).map(Some)
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

    /// The number of terminals (`terminals.count`, or the value that replaced it).
    #[inline]
    pub fn terminals(&self) -> u32 {
        self.file.terminals.count
    }

    /// Replaces the number of terminals (the command line's override, a search's probe): an
    /// error when `n` is outside 1..=[`MAX_TERMINALS`].
    pub fn set_terminals(&mut self, n: u32) -> Result<(), OverrideError> {
        if !(1..=MAX_TERMINALS).contains(&n) {
            return Err(OverrideError::OutOfRange {
                path: self.path.clone(),
                key: "terminals.count",
                max: MAX_TERMINALS,
                got: n,
            });
        }
        self.file.terminals.count = n;
        Ok(())
    }
}
