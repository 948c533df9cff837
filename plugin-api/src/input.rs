//! Reading a user's input file safely: only a regular file is read, and only up to a size
//! limit, so a FIFO named as a file never hangs a command, `/dev/zero` never fills the
//! memory, and a folder is not reported as a missing file.

use std::io::Read;
use std::path::Path;

/// The largest scenario or parameter file read whole (256 MiB): larger inputs are refused
/// with a message rather than read until the memory runs out.
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// The size of the regular file at `path`, or why it is not one a command can read (absent, a
/// folder, a device, FIFO or socket, or larger than `limit` bytes). Never opens the file, so
/// it cannot block on a FIFO.
///
/// ```
/// use vodbench_plugin_api::input::regular_file_size;
/// let dir = tempfile::tempdir().unwrap();
/// let e = regular_file_size(dir.path(), u64::MAX).unwrap_err();
/// assert!(e.contains("a folder, not a file"), "{e}");
/// ```
pub fn regular_file_size(path: &Path, limit: u64) -> Result<u64, String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("no such file".into());
        }
        Err(e) => return Err(e.to_string()),
    };
    if meta.is_dir() {
        return Err("is a folder, not a file".into());
    }
    if !meta.is_file() {
        return Err(
            "is not a regular file (a device, FIFO or socket): give a file, which is read \
             whole"
                .into(),
        );
    }
    if meta.len() > limit {
        return Err(format!(
            "is {} bytes, more than the {limit} bytes an input file of this kind may have",
            meta.len()
        ));
    }
    Ok(meta.len())
}

/// The bytes of the regular file at `path`, of at most [`MAX_TEXT_BYTES`]
/// ([`regular_file_size`] says why not); a file that grows past the limit while it is read
/// is refused too.
pub fn read_regular(path: &Path) -> Result<Vec<u8>, String> {
    let size = regular_file_size(path, MAX_TEXT_BYTES)?;
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    f.take(MAX_TEXT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > MAX_TEXT_BYTES {
        return Err(format!(
            "grew past the {MAX_TEXT_BYTES} bytes an input file of this kind may have while \
             it was read"
        ));
    }
    Ok(bytes)
}

/// The text of the regular file at `path` ([`read_regular`]); invalid UTF-8 is an error.
pub fn read_text(path: &Path) -> Result<String, String> {
    String::from_utf8(read_regular(path)?).map_err(|_| "is not UTF-8 text".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_folders_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_regular(dir.path())
            .unwrap_err()
            .contains("is a folder"));
        assert!(read_regular(&dir.path().join("absent"))
            .unwrap_err()
            .contains("no such file"));
        if Path::new("/dev/zero").exists() {
            let e = read_regular(Path::new("/dev/zero")).unwrap_err();
            assert!(e.contains("not a regular file"), "{e}");
        }
        let f = dir.path().join("big");
        std::fs::write(&f, "0123456789").unwrap();
        assert_eq!(regular_file_size(&f, 10), Ok(10));
        assert!(regular_file_size(&f, 9).unwrap_err().contains("10 bytes"));
        assert_eq!(read_text(&f).unwrap(), "0123456789");
    }
}
