//! What each component of the on-demand engine builds itself from: the resolved scenario,
//! the videos' lengths in stripe blocks, and the plugins' build context. Each component
//! reads its own section of the scenario (`Disks::build` the `[disk.*]` tables and
//! `[server.bus]`, `Network::build` `[server.network]`, …); a plugin it cannot build is a
//! scenario error at that plugin's table ([`Setup::plugin_error`]).

use super::scenario::{Scenario, ScenarioError, LAYOUT};
use super::video::VideoLibrary;
use crate::plugin::{BuildContext, DiskGeometry, Layout, PluginError};

/// The scenario a run is built from, with what several components derive from it.
pub(super) struct Setup<'a> {
    /// The resolved scenario (every plugin chosen).
    pub scenario: &'a Scenario,
    /// Each video's length in stripe blocks.
    pub blocks: Vec<u32>,
    /// `server.stripe` in bytes.
    pub block_bytes: u64,
    /// Buffer-pool pages per node.
    pub pages: u32,
}

impl<'a> Setup<'a> {
    /// The setup of `scenario` over the video library `lib`.
    pub fn new(scenario: &'a Scenario, lib: &VideoLibrary) -> Self {
        let block_bytes = scenario.block_bytes();
        Setup {
            scenario,
            blocks: (0..lib.len())
                .map(|v| lib.total_bytes(v).div_ceil(block_bytes) as u32)
                .collect(),
            block_bytes,
            pages: scenario.pages_per_node(),
        }
    }

    /// `[layout]`, the layout seeing the disks' `geometry`; the search versions
    /// (`[interactive] search = "version"`) are extra videos it places.
    pub fn layout(&self, geometry: Option<DiskGeometry>) -> Result<Box<dyn Layout>, ScenarioError> {
        let chosen = self.scenario.plugins.required(&LAYOUT);
        let mut c = self.context(LAYOUT.key, 0);
        c.geometry = geometry;
        let versions = self
            .scenario
            .file
            .interactive
            .clone()
            .unwrap_or_default()
            .search_versions();
        chosen.build(&c).map_err(|e| {
            // the search versions are extra videos the layout places; say so
            let e = match (e, versions) {
                (PluginError::Build(m), Some(k)) => PluginError::Build(format!(
                    "{m} (the videos include a fast-forward and a rewind version of each, \
                     1/{k} of its length each: [interactive] search = \"version\")"
                )),
                (e, _) => e,
            };
            self.plugin_error(LAYOUT.key, chosen.name)(e)
        })
    }

    /// The build context of the plugin serving `component` (its table) at `index` (a disk,
    /// a node; 0 for one-of-a-kind plugins): each gets a random stream of its own.
    pub fn context(&self, component: &'static str, index: u64) -> BuildContext<'_> {
        self.scenario
            .server_context(component, index)
            .with_block_bytes(self.block_bytes)
            .with_video_blocks(&self.blocks)
            .with_pages(self.pages)
    }

    /// A plugin of `kind` named `name` that cannot be built for this scenario, as a scenario
    /// error at its table: the parameter at fault when the plugin names one, else the table's
    /// header, else where the plugin is named in a dotted table.
    pub fn plugin_error(
        &self,
        kind: &'static str,
        name: &str,
    ) -> impl Fn(PluginError) -> ScenarioError + '_ {
        let name = name.to_string();
        move |error: PluginError| {
            let scenario = self.scenario;
            let line = |key: &str| scenario.source.line_of_key(key);
            let key = error.key_in(kind);
            ScenarioError::Invalid {
                file: scenario.path.clone(),
                line: line(&key)
                    .or_else(|| line(kind))
                    .or_else(|| line(&format!("{kind}.name"))),
                key,
                message: format!("cannot build {kind} `{name}`: {error}"),
            }
        }
    }
}
