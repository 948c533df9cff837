//! Why a loaded suite's seed or load cannot be replaced ([`System::set_seed`],
//! [`System::set_load`], [`Scenario::set_terminals`]): typed, in the scenario's own terms.
//! The command line words them with the name of its flag.
//!
//! [`System::set_seed`]: super::System::set_seed
//! [`System::set_load`]: super::System::set_load
//! [`Scenario::set_terminals`]: super::ondemand::scenario::Scenario::set_terminals

use crate::scenario::ScenarioError;
use std::fmt;
use std::path::{Path, PathBuf};

/// A value that cannot replace every point's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverrideError {
    /// A sweep axis sets the key: every point would run with the same value under a label
    /// naming another.
    Swept {
        /// The scenario file.
        path: PathBuf,
        /// The key the value would replace (`terminals.count`, `seed`).
        key: &'static str,
        /// The swept key that sets it (the key itself, or a table holding it).
        axis: String,
    },
    /// The system's scenarios have no load to replace.
    NoLoad {
        /// The scenario file.
        path: PathBuf,
        /// The system, as messages call it (`broadcast`).
        system: &'static str,
        /// The key that sets its load instead (`receiver.clients`).
        instead: &'static str,
    },
    /// The value is outside what the key allows.
    OutOfRange {
        /// The scenario file.
        path: PathBuf,
        /// The key (`terminals.count`).
        key: &'static str,
        /// The largest value allowed (the smallest is 1).
        max: u32,
        /// The value given.
        got: u32,
    },
}

impl OverrideError {
    /// Whether a sweep axis sets `key` (`swept`: the sweep's keys): the error that says so.
    pub fn swept(path: &Path, swept: &[String], key: &'static str) -> Option<Self> {
        crate::scenario::grid::swept_key_covering(swept, key).map(|axis| OverrideError::Swept {
            path: path.to_path_buf(),
            key,
            axis: axis.to_string(),
        })
    }

    /// The scenario file.
    pub fn path(&self) -> &Path {
        match self {
            OverrideError::Swept { path, .. }
            | OverrideError::NoLoad { path, .. }
            | OverrideError::OutOfRange { path, .. } => path,
        }
    }
}

impl From<OverrideError> for ScenarioError {
    /// The error at its key (no line: the value came from outside the file).
    fn from(e: OverrideError) -> Self {
        let (key, message) = match &e {
            OverrideError::Swept { key, axis, .. } => (
                *key,
                format!(
                    "set by the sweep (`{axis}`); one value for every point would run each \
                     under a label naming another"
                ),
            ),
            OverrideError::NoLoad {
                system, instead, ..
            } => (
                "",
                format!("a {system} scenario has no number of terminals; {instead} is its load"),
            ),
            OverrideError::OutOfRange { key, max, got, .. } => {
                (*key, format!("must be in 1..={max}, got {got}"))
            }
        };
        ScenarioError::Invalid {
            file: e.path().to_path_buf(),
            line: None,
            key: key.to_string(),
            message,
        }
    }
}

impl fmt::Display for OverrideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", ScenarioError::from(self.clone()))
    }
}

impl std::error::Error for OverrideError {}

#[cfg(test)]
mod tests {
    use super::OverrideError;
    use std::path::PathBuf;

    #[test]
    fn an_override_error_names_the_key_without_a_flag() {
        let path = PathBuf::from("s.toml");
        assert_eq!(
            OverrideError::swept(&path, &["seed.x".into()], "seed"),
            None
        );
        let e = OverrideError::swept(&path, &["seed".into()], "seed").expect("swept");
        assert_eq!(
            e.to_string(),
            "s.toml: key `seed`: set by the sweep (`seed`); one value for every point would \
             run each under a label naming another"
        );
        let e = OverrideError::OutOfRange {
            path: path.clone(),
            key: "terminals.count",
            max: 9,
            got: 10,
        };
        assert_eq!(
            e.to_string(),
            "s.toml: key `terminals.count`: must be in 1..=9, got 10"
        );
        let e = OverrideError::NoLoad {
            path,
            system: "broadcast",
            instead: "receiver.clients",
        };
        assert_eq!(
            e.to_string(),
            "s.toml: a broadcast scenario has no number of terminals; receiver.clients is its \
             load"
        );
        assert!(!e.to_string().contains("--"));
    }
}
