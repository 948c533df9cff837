//! `[plugins]`: the plugin libraries a scenario loads itself, so that a file choosing a
//! loaded policy runs with a plain `vodbench run FILE`.
//!
//! ```toml
//! [plugins]
//! load = ["../plugins/libmy_scheduler.so"]   # relative to this file's folder
//!
//! [disk.scheduler]
//! name = "my-sstf"
//! ```
//!
//! Each library is loaded as `--plugin` loads one ([`crate::plugin_library::load`]); its
//! policies join a copy of the registry the command was given, for this file only. A library
//! the command already loaded (same file, same bytes) is taken as it is.

use super::ScenarioError;
use crate::plugin::{Origin, Registry};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `[plugins]`: plugin libraries to load.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginsSection {
    /// Shared libraries of plugins (made with `export_plugins!` or against
    /// vodbench_plugin.h), relative to the scenario's folder; their policies are chosen by
    /// name like the built-ins.
    #[serde(default)]
    pub load: Vec<PathBuf>,
}

/// `registry` with the libraries `section` names (resolved against `base_dir`) loaded; the
/// first that cannot be loaded is an error at `plugins.load`.
pub fn registry_for<'r>(
    registry: &'r Registry,
    section: Option<&PluginsSection>,
    base_dir: &Path,
    at: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<Cow<'r, Registry>, ScenarioError> {
    let Some(section) = section.filter(|s| !s.load.is_empty()) else {
        return Ok(Cow::Borrowed(registry));
    };
    let mut r = registry.clone();
    for (i, p) in section.load.iter().enumerate() {
        let path = base_dir.join(p);
        crate::plugin_library::load(&mut r, &path)
            .map_err(|e| at(&format!("plugins.load[{i}]"), e.to_string()))?;
    }
    Ok(Cow::Owned(r))
}

/// Every library `registry` holds plugins of, as manifests record them.
pub fn manifest_lines(libraries: &[Arc<Origin>]) -> serde_json::Value {
    serde_json::Value::Array(
        libraries
            .iter()
            .map(|o| serde_json::json!({"path": o.path, "sha256": o.sha256}))
            .collect(),
    )
}
