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
    write_with(path, |w| w.write_all(bytes))
}

/// [`write`] of what `fill` writes, streamed into the temporary file (buffered) instead of
/// held in memory. If `fill` or the write fails, the temporary file is removed and the
/// target is left as it was.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), (PathBuf, std::io::Error)> {
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
    let written = (|| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&tmp)?);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err((tmp, e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        (path.to_path_buf(), e)
    })
}
