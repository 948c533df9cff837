//! Reading a user's input file safely: only a regular file is read, and only up to a size
//! limit, so a FIFO named as a file never hangs a command, `/dev/zero` never fills the
//! memory, and a folder is not reported as a missing file. A kernel file (`/proc/kmsg`,
//! `/sys/...`: regular by its kind, size 0, and a read that may block or never end) is refused
//! by where it lives, and every file is read only up to the size it had when it was checked
//! ([`open_regular`]), so no read waits for data a size did not announce.

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
    if meta.len() == 0 {
        if let Some(fs) = kernel_file_system(path) {
            return Err(format!(
                "is a kernel file (on {fs}), not a regular file: its size (0) says nothing of \
                 what reading it gives, and reading it may block or never end; copy what you \
                 need into a file"
            ));
        }
    }
    Ok(meta.len())
}

/// The name of the kernel's pseudo file system `path` lies on (`proc`, `sysfs`, …), whose
/// files report size 0 whatever reading them gives; `None` elsewhere (and off Linux).
#[cfg(target_os = "linux")]
fn kernel_file_system(path: &Path) -> Option<&'static str> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a statfs the call fills
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    // the magic numbers of linux/magic.h
    #[allow(clippy::unnecessary_cast)]
    let magic = st.f_type as i64;
    [
        (0x9fa0, "proc"),
        (0x6265_6572, "sysfs"),
        (0x6462_6720, "debugfs"),
        (0x7472_6163, "tracefs"),
        (0x7363_6673, "securityfs"),
        (0x0027_e0eb, "cgroup"),
        (0x6367_7270, "cgroup2"),
        (0x6e73_6673, "nsfs"),
        (0x6267_6d6b, "bpf"),
        (0x5041_4950, "pipefs"),
        (0x6c6f_6f70, "configfs"),
        (0x4245_5321, "efivarfs"),
    ]
    .into_iter()
    .find(|(m, _)| *m == magic)
    .map(|(_, name)| name)
}

#[cfg(not(target_os = "linux"))]
fn kernel_file_system(_path: &Path) -> Option<&'static str> {
    None
}

/// Opens the regular file at `path` ([`regular_file_size`] says why not) to be read up to
/// the size it has now, never more: the reader ends there even if the file grows or is a
/// kernel file that [`regular_file_size`] did not recognise, so no read blocks. The file is
/// opened non-blocking, so a FIFO put in its place after the check does not hang the open;
/// what was opened is checked again. Its size and the bounded reader.
pub fn open_regular(
    path: &Path,
    limit: u64,
) -> Result<(u64, std::io::Take<std::fs::File>), String> {
    regular_file_size(path, limit)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let f = options.open(path).map_err(|e| e.to_string())?;
    let meta = f.metadata().map_err(|e| e.to_string())?;
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
    Ok((meta.len(), f.take(meta.len())))
}

/// The bytes of the regular file at `path`, of at most [`MAX_TEXT_BYTES`]
/// ([`regular_file_size`] says why not), read up to the size it had when opened
/// ([`open_regular`]).
pub fn read_regular(path: &Path) -> Result<Vec<u8>, String> {
    let (size, mut f) = open_regular(path, MAX_TEXT_BYTES)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    f.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// The text of the regular file at `path` ([`read_regular`]); invalid UTF-8 is an error.
pub fn read_text(path: &Path) -> Result<String, String> {
    String::from_utf8(read_regular(path)?).map_err(|_| "is not UTF-8 text".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

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

    /// Issue 49, item 8: a FIFO is refused without opening it, and a kernel file (regular by
    /// its kind, size 0, its read blocking or endless: `/proc/kmsg`) by where it lives, before
    /// any read; an empty file of the user's is still an empty file.
    #[cfg(target_os = "linux")]
    #[test]
    fn issue49_fifos_and_kernel_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for e in [
            open_regular(&fifo, u64::MAX).err().unwrap(),
            read_regular(&fifo).unwrap_err(),
        ] {
            assert!(e.contains("not a regular file"), "{e}");
        }
        // /proc/self/status: regular, size 0, yet it holds text, as /proc/kmsg (which blocks)
        let status = Path::new("/proc/self/status");
        if status.exists() {
            let meta = std::fs::metadata(status).unwrap();
            assert!(meta.is_file() && meta.len() == 0);
            for e in [
                regular_file_size(status, u64::MAX).unwrap_err(),
                read_regular(status).unwrap_err(),
            ] {
                assert!(e.contains("is a kernel file (on proc)"), "{e}");
            }
        }
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(read_regular(&empty).unwrap(), Vec::<u8>::new());
        // a read never goes past the size the file had when opened
        let f = dir.path().join("grows");
        std::fs::write(&f, "abc").unwrap();
        let (size, mut r) = open_regular(&f, u64::MAX).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&f)
            .unwrap()
            .write_all(b"def")
            .unwrap();
        let mut got = String::new();
        r.read_to_string(&mut got).unwrap();
        assert_eq!((size, got.as_str()), (3, "abc"));
    }
}
