//! Writing a run's output folder: `manifest.json`, `summary.json` and tables, atomically.
//!
//! Everything is first written into a hidden sibling folder, marked as vodbench's
//! ([`crate::ownership`]) and then renamed into place, so a reader never sees a half-written
//! output, a failed run never destroys the previous one, and only a folder vodbench wrote is
//! ever replaced.
//! Nothing volatile (wall-clock time, paths of temporary files) goes into the results files;
//! only `manifest.json` records where and from what the run was built (host, git commit), so
//! the same scenario and seed give byte-identical folders on one machine and byte-identical
//! results files (everything but `manifest.json`) anywhere.
//!
//! Two hooks, handed to the command line by the binary ([`Outputs`]), turn saved results
//! into files without the harness knowing how: a [`TableWriter`] (CSV/Parquet) and a
//! [`Reporter`] (`report.html`, comparisons, exports). Reporters read only saved folders; they
//! never simulate.

pub use crate::ownership::Writer;
use crate::results::{RunResults, Table};
use serde::Serialize;
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

/// Writes tables to files; implemented by `vodbench-reports` with polars and handed to the
/// command line in [`Outputs`] by the binary.
pub trait TableWriter: Send + Sync {
    /// Writes `table` as `dir/<table.name>.<ext>`.
    fn write(&self, table: &Table, dir: &Path, format: TableFormat) -> Result<PathBuf, String>;
}

/// Formats of `vodbench export`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// One CSV file per table.
    Csv,
    /// One Parquet file per table.
    Parquet,
    /// One JSON file with the summary and every table as an array of row objects.
    Json,
}

impl ExportFormat {
    /// Every format with its name, as the command line spells it.
    pub const ALL: [(&'static str, ExportFormat); 3] = [
        ("csv", ExportFormat::Csv),
        ("parquet", ExportFormat::Parquet),
        ("json", ExportFormat::Json),
    ];

    /// The format named `s` (`csv`, `parquet`, `json`).
    pub fn parse(s: &str) -> Option<ExportFormat> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|(_, f)| *f)
    }

    /// The name of the format.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("csv", |(n, _)| n)
    }
}

/// Why a report or export could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The input is unusable: a missing folder, not a vodbench output folder (exit code 2).
    #[error("{0}")]
    Input(String),
    /// Reading or writing failed otherwise (exit code 1).
    #[error("{0}")]
    Failure(String),
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRun {
    /// Name shown in the report.
    pub label: String,
    /// A saved run output folder (its tables are drawn; its summary is the run's values).
    pub dir: PathBuf,
    /// `replications.json` ([`crate::results::Replications`]) when the side was replicated:
    /// its means are shown and its spreads decide whether a difference stands out.
    pub replications: Option<PathBuf>,
}

/// Turns saved output folders into reports; implemented by `vodbench-reports` and handed to
/// the command line in [`Outputs`].
pub trait Reporter: Send + Sync {
    /// Files derived from the saved output folder `dir` (e.g. `report.html`), as (file name,
    /// contents), to be published in the same folder. Reads only the files in `dir`.
    fn folder_report(&self, dir: &Path) -> Result<Vec<(String, Vec<u8>)>, String>;
    /// Writes one report laying `runs` side by side into the folder `out`; returns the
    /// files written.
    fn compare(&self, runs: &[CompareRun], out: &Path) -> Result<Vec<PathBuf>, ReportError>;
    /// Writes the summary and tables of the saved folder `dir` as `format` into the folder
    /// `out`; returns the files written.
    fn export(
        &self,
        dir: &Path,
        format: ExportFormat,
        out: &Path,
    ) -> Result<Vec<PathBuf>, ReportError>;
}

/// The hooks that turn saved results into files, as the binary installs them
/// (`vodbench_reports::outputs()` gives both); without them no table or report file is
/// written.
#[derive(Clone, Default)]
pub struct Outputs {
    /// Writes CSV/Parquet tables.
    pub tables: Option<std::sync::Arc<dyn TableWriter>>,
    /// Writes `report.html`, comparisons and exports.
    pub reporter: Option<std::sync::Arc<dyn Reporter>>,
}

impl Outputs {
    /// No hooks: results are saved as JSON only.
    pub fn none() -> Self {
        Self::default()
    }

    /// The installed table writer, if any.
    pub fn table_writer(&self) -> Option<&dyn TableWriter> {
        self.tables.as_deref()
    }

    /// The installed reporter, if any.
    pub fn reporter(&self) -> Option<&dyn Reporter> {
        self.reporter.as_deref()
    }

    /// The hooks as [`write_folder`] takes them.
    pub fn writers(&self) -> Writers<'_> {
        Writers {
            tables: self.table_writer(),
            reporter: self.reporter(),
        }
    }
}

/// The hooks [`write_folder`] uses, borrowed from [`Outputs`].
#[derive(Clone, Copy, Default)]
pub struct Writers<'a> {
    /// Writes CSV/Parquet tables; without it no table files are written.
    pub tables: Option<&'a dyn TableWriter>,
    /// Writes `report.html` from the written folder; without it no report is written.
    pub reporter: Option<&'a dyn Reporter>,
}

/// Errors while writing outputs.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct OutputError {
    /// The file or folder.
    pub path: String,
    /// What went wrong.
    pub message: String,
    /// Whether the output was refused before anything was written (the user's choice of
    /// output is at fault: a folder that is not vodbench's, one another command is writing,
    /// `/`), rather than a write that failed.
    pub refused: bool,
}

pub(crate) fn oerr(path: &Path, e: impl std::fmt::Display) -> OutputError {
    OutputError {
        path: path.display().to_string(),
        message: e.to_string(),
        refused: false,
    }
}

/// Serialises `value` as pretty JSON with a trailing newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("serialisable");
    s.push('\n');
    s
}

/// Writes `bytes` to `path` atomically (temporary file + rename). Safe to call for the same
/// path from several threads and processes at once: each writes its own temporary file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    crate::atomic_write::write(path, bytes).map_err(|(p, e)| oerr(&p, e))
}

/// [`write_atomic`] of what `fill` writes, streamed to the file instead of held in memory;
/// on failure the target is left as it was.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), OutputError> {
    crate::atomic_write::write_with(path, fill).map_err(|(p, e)| oerr(&p, e))
}

/// A name usable as one folder name: characters other than letters, digits, `.`, `_` and
/// `-` (path separators among them) become `_`, and leading dots are dropped, so a scenario
/// named `../src` cannot put its output outside `out/`.
pub fn folder_name(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_start_matches('.').to_string();
    if s.is_empty() {
        "scenario".into()
    } else {
        s
    }
}

/// `out/<name>`, a command's default output folder, `name` made a folder name
/// ([`folder_name`]).
pub fn default_dir(name: &str) -> PathBuf {
    Path::new("out").join(folder_name(name))
}

impl From<crate::ownership::OwnershipError> for OutputError {
    fn from(e: crate::ownership::OwnershipError) -> Self {
        use crate::ownership::OwnershipError as E;
        match e {
            E::Io { path, message } => oerr(&path, message),
            E::NotAFolder(ref dir)
            | E::Root(ref dir)
            | E::Foreign { ref dir, .. }
            | E::OtherCommand { ref dir, .. } => {
                let text = e.to_string();
                let prefix = format!("{}: ", dir.display());
                OutputError {
                    path: dir.display().to_string(),
                    message: text.strip_prefix(&prefix).unwrap_or(&text).to_string(),
                    refused: true,
                }
            }
        }
    }
}

/// Checks, before a command works, that its output folder `dir` can be written by
/// `writer`: absent, or a folder vodbench may replace ([`crate::ownership::check_owned`])
/// that holds no other command's output ([`crate::ownership::check_writer`]). A search's
/// hours are not spent only to find that its results cannot be saved.
pub fn check_output_dir(dir: &Path, writer: Writer) -> Result<(), OutputError> {
    crate::ownership::check_owned(dir)?;
    Ok(crate::ownership::check_writer(dir, writer)?)
}

/// How an output is claimed ([`lock_output`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// One command writes it: any other command writing it at the same time is refused.
    Exclusive,
    /// Several processes add to it together (`--task I/N` runs saving their points into one
    /// folder), while no command claims it exclusively.
    Shared,
}

/// A lock on an output (a folder or a file) held for as long as a command writes it:
/// `flock` on its lock file `.NAME.lock` beside it ([`crate::ownership::lock_path`]), which
/// is removed when the last holder lets go. The kernel releases the lock of a process that
/// dies; the file it leaves is recognised as vodbench's by its contents.
#[derive(Debug)]
pub struct OutputLock {
    file: Option<std::fs::File>,
    path: PathBuf,
    /// Folders created to hold the lock file, deepest last, removed again when still empty.
    created: Vec<PathBuf>,
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        if let Some(f) = self.file.take() {
            // the last holder (an exclusive lock, or a shared one that can become exclusive)
            // removes the file, while it still holds the lock on it
            if flock(&f, libc_lock(Claim::Exclusive)).is_ok() && same_file(&f, &self.path) {
                let _ = std::fs::remove_file(&self.path);
            }
        }
        for d in self.created.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

#[cfg(unix)]
fn libc_lock(claim: Claim) -> libc::c_int {
    libc::LOCK_NB
        | match claim {
            Claim::Exclusive => libc::LOCK_EX,
            Claim::Shared => libc::LOCK_SH,
        }
}

/// `flock(2)` on `f` with `op`.
#[cfg(unix)]
fn flock(f: &std::fs::File, op: libc::c_int) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: a valid open descriptor and a flock operation
    if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Whether `path` still names the open file `f` (not a file made after `f`'s was removed).
#[cfg(unix)]
fn same_file(f: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (f.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Claims the output `path` (a folder, or a file such as a generated trace) for this
/// process, before it does any work: a second command writing the same output at the same
/// time is refused, naming it (exit code 2), instead of both writing and the last one
/// winning. `path` is named as the user gave it; its lock file lies beside the folder it
/// resolves to (links followed), so two spellings of one output share one lock. Where the
/// file system has no locks (`flock` unsupported) the claim is granted unlocked.
#[cfg(unix)]
pub fn lock_output(path: &Path, claim: Claim) -> Result<OutputLock, OutputError> {
    use std::os::unix::fs::OpenOptionsExt;
    let target = resolved(path);
    let Some(lock) = crate::ownership::lock_path(&target) else {
        return Err(crate::ownership::OwnershipError::Root(path.to_path_buf()).into());
    };
    let parent = lock.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut created = Vec::new();
    let mut missing = parent.clone();
    while !missing.exists() {
        created.push(missing.clone());
        match missing.parent() {
            Some(p) => missing = p.to_path_buf(),
            None => break,
        }
    }
    created.reverse();
    std::fs::create_dir_all(&parent).map_err(|e| oerr(&parent, e))?;
    let mut held = OutputLock {
        file: None,
        path: lock.clone(),
        created,
    };
    for _ in 0..64 {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&lock)
            .map_err(|e| oerr(&lock, e))?;
        match flock(&f, libc_lock(claim)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                return Err(OutputError {
                    path: path.display().to_string(),
                    message: format!(
                        "is being written by another vodbench command right now (it holds {}); \
                         two commands writing one output would overwrite each other: wait \
                         for it to finish, or choose another output{}",
                        lock.display(),
                        match claim {
                            Claim::Shared => " (--task runs share a folder only with each other)",
                            Claim::Exclusive => "",
                        }
                    ),
                    refused: true,
                });
            }
            // a file system without locks (some network ones): granted unlocked
            Err(_) => return Ok(held),
        }
        // the holder before us may have removed the file after we opened it: lock the file
        // the path names now
        if !same_file(&f, &lock) {
            continue;
        }
        if f.metadata().is_ok_and(|m| m.len() == 0) {
            use std::io::Write;
            (&f).write_all(crate::ownership::LOCK_SIGNATURE.as_bytes())
                .map_err(|e| oerr(&lock, e))?;
        }
        held.file = Some(f);
        return Ok(held);
    }
    Err(oerr(
        &lock,
        "could not be locked (removed and created again 64 times)",
    ))
}

/// Claims the output `path` ([`lock_output`]): on a platform without `flock`, unlocked.
#[cfg(not(unix))]
pub fn lock_output(path: &Path, _claim: Claim) -> Result<OutputLock, OutputError> {
    let _ = path;
    Ok(OutputLock {
        file: None,
        path: PathBuf::new(),
        created: Vec::new(),
    })
}

/// Claims the output folder `dir` for `writer` ([`lock_output`]) and checks it may be
/// written ([`check_output_dir`]): what every command writing a folder does before its
/// work. The lock is held until the returned guard is dropped.
pub fn claim_output_dir(
    dir: &Path,
    claim: Claim,
    writer: Writer,
) -> Result<OutputLock, OutputError> {
    crate::ownership::check_owned(dir)?;
    let lock = lock_output(dir, claim)?;
    check_output_dir(dir, writer)?;
    Ok(lock)
}

/// Publishes the folder `dir` atomically: `fill` writes its contents into a hidden staging
/// sibling (`.NAME.partial-PID`, marked as one), which is then marked as `writer`'s
/// ([`crate::ownership::mark`]) and renamed into place. An existing `dir` is replaced only
/// when `writer` may replace it ([`check_output_dir`]); when `fill` fails, the staging
/// folder is removed and `dir` is left as it was. Staging folders of processes that died
/// are removed first. Returns what `fill` returns; `fill` is given the staging folder.
pub fn write_staged<T, E: From<OutputError>>(
    dir: &Path,
    writer: Writer,
    fill: impl FnOnce(&Path) -> Result<T, E>,
) -> Result<T, E> {
    check_output_dir(dir, writer)?;
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| oerr(parent, e))?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    crate::ownership::remove_stale(parent, &name);
    let tmp = parent.join(format!(".{name}.partial-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| oerr(&tmp, e))?;
    }
    std::fs::create_dir_all(&tmp).map_err(|e| oerr(&tmp, e))?;
    let staged: Result<T, E> = (|| {
        crate::ownership::mark_staging(&tmp).map_err(OutputError::from)?;
        let value = fill(&tmp)?;
        crate::ownership::mark(&tmp, writer).map_err(OutputError::from)?;
        Ok(value)
    })();
    let value = match staged {
        Ok(v) => v,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let swapped = if dir.exists() {
        let old = parent.join(format!(".{name}.old-{}", std::process::id()));
        std::fs::rename(dir, &old)
            .and_then(|()| std::fs::rename(&tmp, dir))
            .map(|()| {
                let _ = std::fs::remove_dir_all(&old);
            })
    } else {
        std::fs::rename(&tmp, dir)
    };
    if let Err(e) = swapped {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(oerr(dir, e).into());
    }
    Ok(value)
}

/// `p` made absolute, with its links resolved as far as it exists (the rest appended).
fn resolved(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut existing = abs.clone();
    let mut tail = Vec::new();
    loop {
        if let Ok(mut r) = existing.canonicalize() {
            r.extend(tail.iter().rev());
            return r;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(n), Some(parent)) => {
                tail.push(n);
                existing = parent.to_path_buf();
            }
            _ => return abs,
        }
    }
}

/// Whether `inner` is the folder `outer` or lies inside it (links resolved): replacing
/// `outer` would destroy `inner`.
pub fn within(inner: &Path, outer: &Path) -> bool {
    resolved(inner).starts_with(resolved(outer))
}

/// Whether the folders `a` and `b` are the same, or one lies inside the other (links
/// resolved): a command that reads one and replaces the other would destroy what it reads.
pub fn same_or_nested(a: &Path, b: &Path) -> bool {
    within(a, b) || within(b, a)
}

/// Writes a whole output folder of `writer`'s atomically ([`write_staged`]): `files` (name,
/// contents), `tables` in every format, then the reporter's files made from all of those.
/// An existing `dir` is replaced only when `writer` may replace it ([`check_output_dir`]).
pub fn write_folder(
    dir: &Path,
    writer: Writer,
    files: &[(&str, String)],
    tables: &[Table],
    writers: Writers<'_>,
    formats: &[TableFormat],
) -> Result<(), OutputError> {
    write_staged(dir, writer, |tmp| {
        for (file, contents) in files {
            let path = tmp.join(file);
            if let Some(sub) = path.parent().filter(|p| *p != tmp) {
                std::fs::create_dir_all(sub).map_err(|e| oerr(sub, e))?;
            }
            std::fs::write(&path, contents).map_err(|e| oerr(&path, e))?;
        }
        if let Some(w) = writers.tables {
            for t in tables {
                for f in formats {
                    w.write(t, tmp, *f)
                        .map_err(|e| oerr(&tmp.join(&t.name), e))?;
                }
            }
        }
        if let Some(r) = writers.reporter {
            for (file, contents) in r.folder_report(tmp).map_err(|e| oerr(dir, e))? {
                std::fs::write(tmp.join(&file), contents).map_err(|e| oerr(&tmp.join(&file), e))?;
            }
        }
        Ok(())
    })
}

/// An output folder's contents before it is written: what a system saves of a run
/// ([`crate::system::System::save`]).
#[derive(Clone, Debug, Default)]
pub struct Folder {
    /// Files: name (relative, may name a subfolder) and contents.
    pub files: Vec<(String, String)>,
    /// Tables, written in every one of `formats` by the table writer.
    pub tables: Vec<Table>,
    /// The formats of the tables.
    pub formats: Vec<TableFormat>,
    /// Whether the reporter draws this folder's `report.html`.
    pub report: bool,
    /// Complete output folders inside this one (relative path, contents), each written
    /// atomically after it.
    pub subfolders: Vec<(String, Folder)>,
}

impl Folder {
    /// One run's folder: `manifest.json`, `summary.json`, every table as CSV and Parquet,
    /// and the report.
    pub fn run(manifest: &serde_json::Value, results: RunResults) -> Folder {
        Folder {
            files: vec![
                ("manifest.json".into(), to_json(manifest)),
                ("summary.json".into(), to_json(&results.summary)),
            ],
            tables: results.tables,
            formats: vec![TableFormat::Csv, TableFormat::Parquet],
            report: true,
            subfolders: Vec::new(),
        }
    }
}

/// Writes `folder` into `dir` as `writer`'s output ([`write_folder`]), then each of its
/// subfolders into its path below `dir`.
pub fn write_tree(
    dir: &Path,
    writer: Writer,
    folder: &Folder,
    writers: Writers<'_>,
) -> Result<(), OutputError> {
    let files: Vec<(&str, String)> = folder
        .files
        .iter()
        .map(|(n, c)| (n.as_str(), c.clone()))
        .collect();
    let own = Writers {
        tables: writers.tables,
        reporter: writers.reporter.filter(|_| folder.report),
    };
    write_folder(dir, writer, &files, &folder.tables, own, &folder.formats)?;
    for (path, sub) in &folder.subfolders {
        write_tree(&dir.join(path), writer, sub, writers)?;
    }
    Ok(())
}

/// Writes `results` of one run with its manifest into `dir`: `manifest.json`,
/// `summary.json`, every table as CSV and Parquet, and the reporter's `report.html`.
pub fn write_run(
    dir: &Path,
    manifest: &serde_json::Value,
    results: &RunResults,
    writers: Writers<'_>,
) -> Result<(), OutputError> {
    write_folder(
        dir,
        Writer::Run,
        &[
            ("manifest.json", to_json(manifest)),
            ("summary.json", to_json(&results.summary)),
        ],
        &results.tables,
        writers,
        &[TableFormat::Csv, TableFormat::Parquet],
    )
}

/// Copies the files of the folder `from` (not its subfolders, nor hidden files such as its
/// mark) into a new folder `to` of `writer`'s, atomically ([`write_staged`]: replacing `to`
/// only when `writer` may).
pub fn copy_folder(from: &Path, to: &Path, writer: Writer) -> Result<(), OutputError> {
    check_output_dir(to, writer)?;
    let mut files = Vec::new();
    for e in std::fs::read_dir(from).map_err(|e| oerr(from, e))? {
        let e = e.map_err(|e| oerr(from, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().map_err(|x| oerr(&e.path(), x))?.is_file() && !name.starts_with('.') {
            let bytes = std::fs::read(e.path()).map_err(|x| oerr(&e.path(), x))?;
            files.push((name, bytes));
        }
    }
    write_staged(to, writer, |tmp| {
        for (name, bytes) in &files {
            std::fs::write(tmp.join(name), bytes).map_err(|e| oerr(&tmp.join(name), e))?;
        }
        Ok::<(), OutputError>(())
    })
}

/// `title` followed by `rows` as plain text, each column right-aligned to its widest cell,
/// columns two spaces apart (the tables `vodbench run` prints for a sweep).
pub fn aligned_text(title: String, rows: &[Vec<String>]) -> String {
    let cols = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = title;
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:>w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_replaces_old_contents_atomically() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("run");
        let w = Writers::default();
        let first = [("manifest.json", "{}\n".into()), ("a.json", "1\n".into())];
        write_folder(&dir, Writer::Run, &first, &[], w, &[]).unwrap();
        write_folder(&dir, Writer::Run, &[("b.json", "2\n".into())], &[], w, &[]).unwrap();
        assert!(!dir.join("a.json").exists());
        assert_eq!(std::fs::read_to_string(dir.join("b.json")).unwrap(), "2\n");
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary folders left behind");
    }

    #[test]
    fn only_an_empty_or_vodbench_folder_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let w = Writers::default();
        let files = [("summary.json", "{}\n".into())];
        // a folder of the user's: refused, and left as it was
        let mine = tmp.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("notes.txt"), "precious").unwrap();
        let e = write_folder(&mine, Writer::Run, &files, &[], w, &[]).unwrap_err();
        assert!(e.message.contains("not a vodbench output folder"), "{e}");
        assert_eq!(
            std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
            "precious"
        );
        let e = copy_folder(tmp.path(), &mine, Writer::Baseline).unwrap_err();
        assert!(e.message.contains("not a vodbench output folder"), "{e}");
        assert!(mine.join("notes.txt").exists());
        // a file where the folder would go
        let file = tmp.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let e = write_folder(&file, Writer::Run, &files, &[], w, &[]).unwrap_err();
        assert!(e.message.contains("is not a folder"), "{e}");
        // an empty folder, and folders vodbench wrote (a sweep's checkpoints alone too)
        let empty = tmp.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        write_folder(&empty, Writer::Run, &files, &[], w, &[]).unwrap();
        write_folder(&empty, Writer::Run, &files, &[], w, &[]).unwrap();
        let sweep = tmp.path().join("sweep");
        std::fs::create_dir_all(sweep.join("points")).unwrap();
        write_folder(&sweep, Writer::Run, &files, &[], w, &[]).unwrap();
        assert!(sweep.join("summary.json").exists());
    }

    #[test]
    fn a_folder_is_replaced_only_by_the_command_that_wrote_it() {
        let tmp = tempfile::tempdir().unwrap();
        let w = Writers::default();
        let files = [("summary.json", "{}\n".into())];
        let run = tmp.path().join("run");
        write_folder(&run, Writer::Run, &files, &[], w, &[]).unwrap();
        let report = [("report.html", "x".into())];
        let e = write_folder(&run, Writer::Report, &report, &[], w, &[]).unwrap_err();
        assert!(e.refused, "{e}");
        assert!(
            e.message.contains("holds the output of `vodbench run`"),
            "{e}"
        );
        assert!(e.message.contains("`vodbench report` replaces only"), "{e}");
        assert!(run.join("summary.json").exists());
        assert!(claim_output_dir(&run, Claim::Exclusive, Writer::Export).is_err());
        write_folder(&run, Writer::Run, &files, &[], w, &[]).unwrap();
        // an interrupted sweep, holding only its marked checkpoints
        let sweep = tmp.path().join("sweep");
        std::fs::create_dir_all(sweep.join("points")).unwrap();
        crate::ownership::mark_checkpoints(&sweep.join("points"), Writer::Sweep).unwrap();
        std::fs::write(sweep.join("points/000.json"), "{}\n").unwrap();
        let e = write_folder(&sweep, Writer::Run, &files, &[], w, &[]).unwrap_err();
        assert!(
            e.message.contains("holds the output of `vodbench sweep`"),
            "{e}"
        );
        assert!(sweep.join("points/000.json").exists());
        write_folder(&sweep, Writer::Sweep, &files, &[], w, &[]).unwrap();
        // a mark of an earlier build records no command: replaced as before
        let old = tmp.path().join("old");
        std::fs::create_dir(&old).unwrap();
        let mark = "{\"format\": \"vodbench-folder/1\", \"files\": {}}\n";
        std::fs::write(old.join(crate::ownership::MARK), mark).unwrap();
        write_folder(&old, Writer::Report, &report, &[], w, &[]).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn issue49_one_exclusive_or_many_shared_holders_and_the_lock_file_goes_with_the_last() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("new/deeper/out");
        let lock_file = tmp.path().join("new/deeper/.out.lock");
        let first = lock_output(&dir, Claim::Exclusive).unwrap();
        assert_eq!(
            std::fs::read_to_string(&lock_file).unwrap(),
            crate::ownership::LOCK_SIGNATURE
        );
        for claim in [Claim::Exclusive, Claim::Shared] {
            let e = lock_output(&dir, claim).unwrap_err();
            assert!(e.refused, "{e}");
            assert!(
                e.message
                    .contains("is being written by another vodbench command"),
                "{e}"
            );
        }
        // another spelling of the same folder shares the lock
        let e = lock_output(
            &tmp.path().join("new/./deeper/../deeper/out"),
            Claim::Exclusive,
        )
        .unwrap_err();
        assert!(e.refused, "{e}");
        drop(first);
        // the folders made to hold the lock file were empty: gone with it
        assert!(!tmp.path().join("new").exists());
        let a = lock_output(&dir, Claim::Shared).unwrap();
        let b = lock_output(&dir, Claim::Shared).unwrap();
        assert!(lock_output(&dir, Claim::Exclusive).is_err());
        drop(a);
        assert!(lock_file.exists(), "b still holds it");
        assert!(lock_output(&dir, Claim::Exclusive).is_err());
        drop(b);
        assert!(!lock_file.exists());
        let c = lock_output(&dir, Claim::Exclusive).unwrap();
        drop(c);
        // the root has no lock beside it, and is refused
        assert!(
            lock_output(Path::new("/"), Claim::Exclusive)
                .unwrap_err()
                .refused
        );
    }

    #[test]
    fn default_folders_stay_inside_out() {
        assert_eq!(default_dir("zipf1"), Path::new("out/zipf1"));
        assert_eq!(
            default_dir("spiffi-fig10-sweep"),
            Path::new("out/spiffi-fig10-sweep")
        );
        assert_eq!(default_dir("../src"), Path::new("out/_src"));
        assert_eq!(default_dir("../../x"), Path::new("out/_.._x"));
        assert_eq!(default_dir(".."), Path::new("out/scenario"));
        assert_eq!(default_dir("/etc"), Path::new("out/_etc"));
    }
}
