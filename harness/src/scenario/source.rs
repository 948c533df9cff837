//! A scenario file read once: its path, its text, and — parsed at most once, when first
//! needed — the spans of its keys, from which every error message takes its line.
//!
//! Commands read a file into a [`Source`] once and hand it on: the system it declares, its
//! sweep, its points and every error about it come from the same text, so a file that
//! changes while a command runs cannot give a run one reading and a message another.

use super::{locate, ScenarioError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use toml_edit::Document;

/// A scenario file's text, with the spans of its keys.
pub struct Source {
    path: PathBuf,
    text: String,
    spans: OnceLock<Option<Document<String>>>,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Source({})", self.path.display())
    }
}

impl Source {
    /// Reads the file at `path`.
    pub fn read(path: &Path) -> Result<Arc<Source>, ScenarioError> {
        let text = crate::input::read_text(path).map_err(|message| ScenarioError::Io {
            file: path.to_path_buf(),
            message,
        })?;
        Ok(Self::from_text(path, text))
    }

    /// A file whose text is already in memory (`path` names it in messages and anchors
    /// its relative paths).
    pub fn from_text(path: &Path, text: impl Into<String>) -> Arc<Source> {
        Arc::new(Source {
            path: path.to_path_buf(),
            text: text.into(),
            spans: OnceLock::new(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The folder relative paths in the file are resolved against.
    pub fn base_dir(&self) -> PathBuf {
        self.path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// The file's name without its extension (a scenario's default name).
    pub fn stem(&self) -> String {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".into())
    }

    /// The parsed document with spans (`None` for text that is not TOML), parsed once.
    fn spans(&self) -> Option<&Document<String>> {
        self.spans
            .get_or_init(|| locate::document(&self.text))
            .as_ref()
    }

    /// The 1-based line where the dotted `key` is set, or failing that of the deepest table
    /// on its path ([`locate::line_of_key`]).
    pub fn line_of_key(&self, key: &str) -> Option<usize> {
        locate::line_in(self.spans()?, &self.text, key)
    }

    /// Whether the file has a top-level table (or key) `key`: what a file declares, such as
    /// `[broadcast]` or `[sweep]`.
    pub fn declares(&self, key: &str) -> bool {
        self.spans().is_some_and(|d| d.contains_key(key))
    }

    /// The error for `key` of this file, at its line.
    pub fn at(&self, key: &str, message: String) -> ScenarioError {
        ScenarioError::Invalid {
            file: self.path.clone(),
            line: self.line_of_key(key),
            key: key.to_string(),
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_declared_tables_come_from_one_parse() {
        let s = Source::from_text(
            Path::new("dir/x.toml"),
            "seed = 13702643148169166723\n[broadcast]\nframes = 3\n[sweep]\n\"a\" = [1]\n",
        );
        assert!(s.declares("broadcast") && s.declares("sweep") && !s.declares("server"));
        assert_eq!(s.line_of_key("broadcast.frames"), Some(3));
        assert_eq!(s.line_of_key("seed"), Some(1));
        assert_eq!(s.stem(), "x");
        assert_eq!(s.base_dir(), PathBuf::from("dir"));
        let e = s.at("broadcast.frames", "too few".into()).to_string();
        assert_eq!(e, "dir/x.toml:3: key `broadcast.frames`: too few");
        let bad = Source::from_text(Path::new("y.toml"), "[[[");
        assert!(!bad.declares("broadcast") && bad.line_of_key("a").is_none());
    }
}
