//! Writing one file atomically: a temporary file beside it (`.NAME.tmp-PID-N`), written,
//! synced and renamed over the target, so a reader never sees half a file and a crash
//! leaves at most the temporary file (which [`crate::ownership`] recognises as vodbench's).
//! The lowest layer of the output code: [`crate::output::write_atomic`] and the ownership
//! mark both write through it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically (temporary file + rename), creating the folder. Safe
/// to call for the same path from several threads and processes at once: each writes its
/// own temporary file. On failure, the path that failed and why.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), (PathBuf, std::io::Error)> {
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| (dir.to_path_buf(), e))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}-{}",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id(),
        WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let fail = |e| (tmp.clone(), e);
    let mut f = std::fs::File::create(&tmp).map_err(fail)?;
    f.write_all(bytes).map_err(fail)?;
    f.sync_all().map_err(fail)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| (path.to_path_buf(), e))
}
