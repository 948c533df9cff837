//! Writing a run's output folder: `manifest.json`, `summary.json` and tables, atomically.
//!
//! Everything is first written into a hidden sibling folder and then renamed into place, so a
//! reader never sees a half-written output and a failed run never destroys the previous one.
//! Nothing volatile (wall-clock time, host, paths of temporary files) goes into these files:
//! the same scenario and seed give byte-identical folders.

use crate::results::{RunResults, Table};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Table file formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated values with a header row.
    Csv,
    /// Apache Parquet.
    Parquet,
}

impl TableFormat {
    /// File extension.
    pub fn extension(self) -> &'static str {
        match self {
            TableFormat::Csv => "csv",
            TableFormat::Parquet => "parquet",
        }
    }
}

/// Writes tables to files; implemented by `vodbench-reports` with polars and installed into
/// the [`crate::plugin::Registry`] by the binary.
pub trait TableWriter: Send + Sync {
    /// Writes `table` as `dir/<table.name>.<ext>`.
    fn write(&self, table: &Table, dir: &Path, format: TableFormat) -> Result<PathBuf, String>;
}

/// Errors while writing outputs.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct OutputError {
    /// The file or folder.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

fn oerr(path: &Path, e: impl std::fmt::Display) -> OutputError {
    OutputError {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Serialises `value` as pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("serialisable");
    s.push('\n');
    s
}

/// Writes `bytes` to `path` atomically (temporary file + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| oerr(dir, e))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let mut f = std::fs::File::create(&tmp).map_err(|e| oerr(&tmp, e))?;
    f.write_all(bytes).map_err(|e| oerr(&tmp, e))?;
    f.sync_all().map_err(|e| oerr(&tmp, e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| oerr(path, e))
}

/// Writes a whole output folder atomically: `files` (name, contents) and `tables`.
pub fn write_folder(
    dir: &Path,
    files: &[(&str, String)],
    tables: &[Table],
    writer: Option<&dyn TableWriter>,
    formats: &[TableFormat],
) -> Result<(), OutputError> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| oerr(parent, e))?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = parent.join(format!(".{name}.partial-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| oerr(&tmp, e))?;
    }
    std::fs::create_dir_all(&tmp).map_err(|e| oerr(&tmp, e))?;
    let result = (|| {
        for (file, contents) in files {
            std::fs::write(tmp.join(file), contents).map_err(|e| oerr(&tmp.join(file), e))?;
        }
        if let Some(w) = writer {
            for t in tables {
                for f in formats {
                    w.write(t, &tmp, *f)
                        .map_err(|e| oerr(&tmp.join(&t.name), e))?;
                }
            }
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    if dir.exists() {
        let old = parent.join(format!(".{name}.old-{}", std::process::id()));
        std::fs::rename(dir, &old).map_err(|e| oerr(dir, e))?;
        std::fs::rename(&tmp, dir).map_err(|e| oerr(dir, e))?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(&tmp, dir).map_err(|e| oerr(dir, e))?;
    }
    Ok(())
}

/// Writes `results` of one run with its manifest into `dir`.
pub fn write_run(
    dir: &Path,
    manifest: &serde_json::Value,
    results: &RunResults,
    writer: Option<&dyn TableWriter>,
) -> Result<(), OutputError> {
    write_folder(
        dir,
        &[
            ("manifest.json", to_json(manifest)),
            ("summary.json", to_json(&results.summary)),
        ],
        &results.tables,
        writer,
        &[TableFormat::Csv],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_replaces_old_contents_atomically() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        write_folder(&dir, &[("a.json", "1\n".into())], &[], None, &[]).unwrap();
        write_folder(&dir, &[("b.json", "2\n".into())], &[], None, &[]).unwrap();
        assert!(!dir.join("a.json").exists());
        assert_eq!(std::fs::read_to_string(dir.join("b.json")).unwrap(), "2\n");
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary folders left behind");
    }
}
