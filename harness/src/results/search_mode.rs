//! How a terminal searches (SPIFFI §8.1): a choice of the scenario's `[interactive]` table
//! that a run's summary reports beside its search figures.

/// How a terminal searches.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Show `show` out of every `every` seconds; the rest is not read.
    #[default]
    Skip,
    /// Switch to a separate fast-forward or rewind version of the video.
    Version,
}
