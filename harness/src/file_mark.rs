//! Which single files are vodbench's: a mark beside the file.
//!
//! A file vodbench generates for the user to keep — a workload trace (`vodbench trace
//! zipf --out`), a request trace (`vodbench cache generate`) — carries nothing a file of the
//! user's could not carry too: a hand-written workload trace begins with the same
//! `# vodbench-trace v1` header, and a request trace is libCacheSim's format unchanged. So
//! the mark is beside it: `.NAME.vodbench.json` in the same folder, holding a format tag
//! naming what wrote the file and the size and SHA-256 of its bytes as written. vodbench
//! replaces such a file only while the mark matches its bytes ([`check_replaceable`]): a
//! file of the user's, or one of vodbench's edited since, is refused, never overwritten.

use crate::output::{oerr, OutputError};
use std::path::{Path, PathBuf};

/// What wrote a marked file: the format tag of its mark and the file's description in
/// messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FileKind {
    /// The mark's format tag (`vodbench-request-trace/1`).
    pub format: &'static str,
    /// What the file is, as messages name it (`a request trace `vodbench cache generate`
    /// wrote`).
    pub what: &'static str,
}

/// The mark of the file `path`: `.NAME.vodbench.json` beside it.
pub fn mark_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.vodbench.json"))
}

/// Marks the file `path`, as now written, as `kind`'s (hashing it as it is on disk).
pub fn mark(path: &Path, kind: FileKind) -> Result<(), OutputError> {
    let size = std::fs::metadata(path).map_err(|e| oerr(path, e))?.len();
    let sha256 = crate::digest::sha256_file(path).map_err(|e| oerr(path, e))?;
    let text = crate::output::to_json(&serde_json::json!({
        "format": kind.format,
        "size": size,
        "sha256": sha256,
    }));
    crate::output::write_atomic(&mark_path(path), text.as_bytes())
}

/// Whether the file `path` is the very file of `kind` vodbench wrote there: a regular file
/// whose size and SHA-256 are those its mark records.
pub fn is_marked(path: &Path, kind: FileKind) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    meta.is_file()
        && crate::input::read_text(&mark_path(path))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|m| {
                m["format"] == kind.format
                    && m["size"].as_u64() == Some(meta.len())
                    && m["sha256"].as_str().is_some_and(|h| {
                        crate::digest::sha256_file(path).is_ok_and(|actual| actual == h)
                    })
            })
}

/// Refuses to replace `path` unless it is absent or the file of `kind` vodbench wrote there
/// ([`is_marked`]); the message names the file, its mark and what to do.
pub fn check_replaceable(path: &Path, kind: FileKind) -> Result<(), String> {
    if std::fs::symlink_metadata(path).is_err() || is_marked(path, kind) {
        return Ok(());
    }
    Err(format!(
        "{}: exists and is not {} (its mark {} is missing or does not match the file's \
         bytes); writing there would overwrite it: choose another file, or remove this one",
        path.display(),
        kind.what,
        mark_path(path).display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIND: FileKind = FileKind {
        format: "vodbench-test-file/1",
        what: "a test file vodbench wrote",
    };

    #[test]
    fn a_file_is_replaceable_while_its_mark_matches_its_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("w.trace");
        assert!(check_replaceable(&f, KIND).is_ok(), "absent");
        std::fs::write(&f, "# vodbench-trace v1\n0 0 start 0 0\n").unwrap();
        let e = check_replaceable(&f, KIND).unwrap_err();
        assert!(e.contains("is not a test file vodbench wrote"), "{e}");
        assert!(e.contains(".w.trace.vodbench.json"), "{e}");
        mark(&f, KIND).unwrap();
        assert!(check_replaceable(&f, KIND).is_ok());
        // another kind's mark does not make it this kind's
        let other = FileKind {
            format: "vodbench-other/1",
            ..KIND
        };
        assert!(check_replaceable(&f, other).is_err());
        // edited since: the user's now
        std::fs::write(&f, "# vodbench-trace v1\n0 0 start 1 0\n").unwrap();
        assert!(check_replaceable(&f, KIND).is_err());
    }
}
