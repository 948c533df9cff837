//! A scenario that cannot be used: the file, the line and the key, and what is wrong.

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
    /// One point of a sweep cannot run, for a reason found only when building or running it.
    Point {
        /// The point's values (`elevator / 512KiB`).
        label: String,
        /// Why.
        error: Box<ScenarioError>,
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

/// Turns a `serde_path_to_error` failure into the dotted key it concerns and a message in
/// scenario vocabulary: an unknown key is named itself (not by its parent table), serde's
/// "unknown field ... expected one of" reads "unknown key ... allowed keys:", and the root
/// path `.` becomes the empty key.
pub(crate) fn key_and_message(path: &str, message: &str) -> (String, String) {
    let mut key = if path == "." {
        String::new()
    } else {
        path.to_string()
    };
    if let Some(unknown) = message
        .strip_prefix("unknown field `")
        .and_then(|m| m.split('`').next())
    {
        let named = key == unknown || key.ends_with(&format!(".{unknown}"));
        if !named {
            key = if key.is_empty() {
                unknown.to_string()
            } else {
                format!("{key}.{unknown}")
            };
        }
    }
    let message = message
        .trim_end()
        .replace("unknown field", "unknown key")
        .replace("expected one of", "allowed keys:");
    (key, message)
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
            ScenarioError::Point { label, error } => write!(f, "sweep point ({label}): {error}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::key_and_message;

    #[test]
    fn issue2_unknown_key_is_named_once() {
        let msg = "unknown field `colour`, expected one of `name`, `seed`";
        let (k, m) = key_and_message("colour", msg);
        assert_eq!(k, "colour");
        assert_eq!(m, "unknown key `colour`, allowed keys: `name`, `seed`");
        assert_eq!(key_and_message(".", msg).0, "colour");
        assert_eq!(key_and_message("server", msg).0, "server.colour");
        assert_eq!(key_and_message("server.colour", msg).0, "server.colour");
        assert_eq!(key_and_message(".", "missing field `workload`\n").0, "");
        assert_eq!(
            key_and_message(".", "missing field `workload`\n").1,
            "missing field `workload`"
        );
    }
}
