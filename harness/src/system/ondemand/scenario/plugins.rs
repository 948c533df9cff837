//! The plugins an on-demand scenario chose at its slots ([`SLOTS`], declared beside the
//! file's fields in `file.rs`), resolved against a registry: what the components build their
//! plugins from, each asking for its slot's (`plugins.required(&DISK_SCHEDULER)`), and what
//! the manifest records.

use super::{ScenarioError, ScenarioFile, DISK_MODEL, SLOTS};
use crate::plugin::{PluginKind, Registry, Resolved};
use crate::scenario::slots::{Chosen, Resolution, SlotOf};
use std::sync::Arc;

/// The plugins a scenario chose, resolved against a registry.
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
    pub(super) fn resolve(
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
