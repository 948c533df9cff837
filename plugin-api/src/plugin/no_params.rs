//! The parameters of a plugin that takes none: its table may name it and nothing else
//! (`deny_unknown_fields`), so a misspelt parameter is an error, not a silent default.

/// Parameters of plugins that take none.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}
