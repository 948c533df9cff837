use super::locate;
use std::fmt;
use std::path::{Path, PathBuf};

/// A scenario that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScenarioError {
    /// The file could not be read.
    Io {
        /// The file.
        file: PathBuf,
        /// The OS error.
        message: String,
    },
    /// The file is not valid TOML.
    Syntax {
        /// The file.
        file: PathBuf,
        /// 1-based line, when known.
        line: Option<usize>,
        /// The parser's message.
        message: String,
    },
    /// A key is unknown, of the wrong type, missing or out of range.
    Invalid {
        /// The file.
        file: PathBuf,
        /// 1-based line of the key (or of its table), when known.
        line: Option<usize>,
        /// Dotted key path (`server.disks_per_node`).
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// The workload's trace file is unusable (the message names file and line).
    Trace {
        /// The trace reader's message.
        message: String,
    },
}

impl ScenarioError {
    /// An [`Invalid`](ScenarioError::Invalid) error at `key`, with its line looked up in `text`.
    pub fn at(file: &Path, text: &str, key: &str, message: String) -> Self {
        ScenarioError::Invalid {
            file: file.to_path_buf(),
            line: locate::line_of_key(text, key),
            key: key.to_string(),
            message,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Io { file, message } => {
                write!(f, "{}: cannot read scenario: {message}", file.display())
            }
            ScenarioError::Syntax {
                file,
                line,
                message,
            } => {
                write!(f, "{}", file.display())?;
                if let Some(l) = line {
                    write!(f, ":{l}")?;
                }
                write!(f, ": invalid TOML: {}", message.trim())
            }
            ScenarioError::Invalid {
                file,
                line,
                key,
                message,
            } => {
                write!(f, "{}", file.display())?;
                if let Some(l) = line {
                    write!(f, ":{l}")?;
                }
                if key.is_empty() {
                    write!(f, ": {message}")
                } else {
                    write!(f, ": key `{key}`: {message}")
                }
            }
            ScenarioError::Trace { message } => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for ScenarioError {}
