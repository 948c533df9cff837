//! What can go wrong choosing, configuring or building a plugin.

/// Errors from choosing, configuring or running a plugin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    /// No plugin of that kind has that name.
    #[error("unknown {kind} `{name}`; registered: {known}")]
    Unknown {
        /// Scenario key of the kind.
        kind: &'static str,
        /// The name asked for.
        name: String,
        /// Comma-separated registered names.
        known: String,
    },
    /// A parameter is missing, unknown, of the wrong type or out of range.
    #[error("{message}")]
    InvalidParam {
        /// Dotted key path inside the plugin's table (empty for the table itself).
        path: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// The plugin could not be built for this scenario (for example a spec file is missing).
    #[error("{0}")]
    Build(String),
}

impl PluginError {
    /// An out-of-range or inconsistent parameter at `path`.
    pub fn param(path: impl Into<String>, message: impl Into<String>) -> Self {
        PluginError::InvalidParam {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The scenario key this error is about, for a plugin built from the table at `table`
    /// (`"layout"`, `"disk.model"`): the parameter's dotted key inside it when the error
    /// names one, else the table itself.
    ///
    /// ```
    /// use vodbench_plugin_api::plugin::PluginError;
    /// assert_eq!(PluginError::param("factor", "too big").key_in("layout"), "layout.factor");
    /// assert_eq!(PluginError::Build("no file".into()).key_in("layout"), "layout");
    /// ```
    pub fn key_in(&self, table: &str) -> String {
        match self {
            PluginError::InvalidParam { path, .. } if !path.is_empty() => format!("{table}.{path}"),
            _ => table.to_string(),
        }
    }
}
