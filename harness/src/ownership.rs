//! Which folders are vodbench's: ownership by signature, not by file names.
//!
//! Every folder vodbench publishes carries a mark, the file [`MARK`]: a format tag
//! ([`FORMAT`]) and the size and SHA-256 of every file vodbench wrote into it (subfolders
//! that carry a mark of their own are theirs). A folder is vodbench's to replace or write into
//! only when nothing in it would be lost: [`check_owned`] walks it and names every *foreign*
//! entry — a file no mark lists, a listed file whose bytes changed since (the user edited
//! it), a symbolic link or special file, an unreadable mark. A folder of the user's that
//! happens to hold `manifest.json`, `summary.json` or `points/` is foreign like any other.
//!
//! Besides the files a mark lists, three kinds of entries are vodbench's without being listed,
//! each recognised by a signature, never by a name alone:
//!
//! * a *staging* folder (`.NAME.partial-PID`) whose mark says it is one: a folder being
//!   written, its files vodbench's scratch ([`mark_staging`]);
//! * the sweep checkpoints (`NNN.json`) of a folder whose mark says it holds them
//!   ([`mark_checkpoints`]): they are saved one by one as points finish, by several threads
//!   at once, so no single list could name them;
//! * temporary files of an atomic write (`.NAME.tmp-PID-N`) inside a marked folder.
//!
//! An absent or empty folder is vodbench's (nothing in it can be lost); so is a folder whose
//! every entry is (an interrupted sweep's folder holds only its marked `points/`).
//!
//! Stale staging folders of processes that died ([`remove_stale`]) are removed by the next
//! write beside them; only those whose mark says they are staging folders (or, for a folder
//! moved aside while being replaced, that are owned as a whole).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The mark's file name, at the top of every folder vodbench publishes.
pub const MARK: &str = ".vodbench-folder.json";

/// The mark's format tag.
pub const FORMAT: &str = "vodbench-folder/1";

/// What a lock file beside an output holds ([`lock_path`]): a lock left by a process that
/// died (the kernel released its lock) is recognised as vodbench's by it.
pub const LOCK_SIGNATURE: &str =
    "vodbench-lock/1: a vodbench command writing the output beside this file holds it\n";

/// The lock file of the output (folder or file) at `path`: `.NAME.lock` beside it, where
/// `NAME` is its last component; `None` for a path without one (`/`).
pub fn lock_path(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(path.with_file_name(format!(".{name}.lock")))
}

/// Whether the regular file `path`, named `name`, of `size` bytes, is a lock file vodbench
/// left ([`LOCK_SIGNATURE`]).
fn is_lock_file(path: &Path, name: &str, size: u64) -> bool {
    name.starts_with('.')
        && name.ends_with(".lock")
        && size == LOCK_SIGNATURE.len() as u64
        && std::fs::read(path).is_ok_and(|b| b == LOCK_SIGNATURE.as_bytes())
}

/// How many foreign entries an error names before saying how many more there are.
const NAMED: usize = 10;

/// What vodbench recorded of one file it wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stamp {
    size: u64,
    sha256: String,
}

/// The command whose output a folder is, as its mark records it ([`check_writer`]): a
/// command replaces only a folder it wrote itself (or an empty one), never another
/// command's results — a `vodbench report --out` given a sweep's folder by mistake is
/// refused, not left holding one report.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Writer {
    /// `vodbench run` (and `rerun`).
    Run,
    /// `vodbench search`.
    Search,
    /// `vodbench sweep`.
    Sweep,
    /// `vodbench compare`.
    Compare,
    /// `vodbench compare --save-baseline`: a copy of a run in the baseline store.
    Baseline,
    /// `vodbench report --out`.
    Report,
    /// `vodbench export`.
    Export,
    /// `vodbench disk replay --out`.
    DiskReplay,
    /// `vodbench cache replay`.
    CacheReplay,
    /// `vodbench analyze`.
    Analyze,
    /// `vodbench net calibrate --out`.
    NetCalibrate,
}

impl Writer {
    /// The command, as typed (`cache replay`).
    pub fn command(self) -> &'static str {
        match self {
            Writer::Run => "run",
            Writer::Search => "search",
            Writer::Sweep => "sweep",
            Writer::Compare => "compare",
            Writer::Baseline => "compare --save-baseline",
            Writer::Report => "report",
            Writer::Export => "export",
            Writer::DiskReplay => "disk replay",
            Writer::CacheReplay => "cache replay",
            Writer::Analyze => "analyze",
            Writer::NetCalibrate => "net calibrate",
        }
    }
}

/// The contents of a mark.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Mark {
    format: String,
    /// The command that wrote the folder (absent in marks of earlier builds, and in a
    /// staging folder's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    written_by: Option<Writer>,
    /// The process writing this staging folder, when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    staging: Option<u32>,
    /// Whether sweep checkpoints (`NNN.json`) directly in this folder are vodbench's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    checkpoints: bool,
    /// Files vodbench wrote, by path relative to the marked folder (`/`-separated).
    #[serde(default)]
    files: BTreeMap<String, Stamp>,
}

/// Why an entry of a folder is not vodbench's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// No mark lists it.
    NotWritten,
    /// A mark lists it, but its bytes changed since vodbench wrote it.
    Changed,
    /// A symbolic link, a device, a FIFO or a socket.
    NotAFile,
    /// A mark that is not one vodbench wrote (unreadable, another format).
    BadMark(String),
}

/// An entry of a folder that vodbench did not write, by its path relative to the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Foreign {
    /// Path relative to the checked folder, `/`-separated.
    pub path: String,
    /// Why it is not vodbench's.
    pub why: Why,
}

impl std::fmt::Display for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.why {
            Why::NotWritten => write!(f, "{}", self.path),
            Why::Changed => write!(f, "{} (changed since vodbench wrote it)", self.path),
            Why::NotAFile => write!(f, "{} (not a regular file)", self.path),
            Why::BadMark(m) => write!(f, "{} (not a mark vodbench wrote: {m})", self.path),
        }
    }
}

/// Why a folder may not be replaced or written into.
#[derive(Debug, thiserror::Error)]
pub enum OwnershipError {
    /// The folder is the root of the file system (or has no name of its own): vodbench
    /// replaces an output folder whole, so it never writes one there.
    #[error(
        "{}: is the root of the file system (or a folder with no name of its own); vodbench \
         replaces an output folder whole and never writes one there: give a folder below it, \
         e.g. {}",
        .0.display(),
        .0.join("out").display()
    )]
    Root(PathBuf),
    /// Something other than a folder is where the folder would go.
    #[error("{}: exists and is not a folder; choose another output folder", .0.display())]
    NotAFolder(PathBuf),
    /// The folder holds entries vodbench did not write.
    #[error(
        "{}: exists and is not a vodbench output folder (vodbench marks each folder it writes \
         with .vodbench-folder.json, the checksums of its files); it holds files vodbench did not write: {}; \
         writing there could delete or overwrite them: choose another output folder, or move \
         those files away",
        dir.display(),
        list(foreign)
    )]
    Foreign {
        /// The folder.
        dir: PathBuf,
        /// Its foreign entries.
        foreign: Vec<Foreign>,
    },
    /// The folder holds another command's output.
    #[error(
        "{}: holds the output of `vodbench {}` (its mark .vodbench-folder.json says so); \
         `vodbench {}` replaces only a folder it wrote itself, so writing there would delete \
         those results: choose another output folder, or remove this one",
        dir.display(),
        wrote.command(),
        writing.command()
    )]
    OtherCommand {
        /// The folder.
        dir: PathBuf,
        /// The command that wrote it.
        wrote: Writer,
        /// The command that would replace it.
        writing: Writer,
    },
    /// The folder could not be read or written.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

fn list(foreign: &[Foreign]) -> String {
    let mut s: Vec<String> = foreign.iter().take(NAMED).map(|f| f.to_string()).collect();
    if foreign.len() > NAMED {
        s.push(format!("and {} more", foreign.len() - NAMED));
    }
    s.join(", ")
}

fn io(path: &Path, e: impl std::fmt::Display) -> OwnershipError {
    OwnershipError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Checks that `dir` is vodbench's to replace or to write into: absent, or a folder holding
/// nothing vodbench did not write (see the module docs). The one check every command that
/// writes a folder makes before it writes; the error names the folder and its foreign
/// entries.
///
/// ```
/// use vodbench_harness::ownership::{check_owned, OwnershipError};
/// let tmp = tempfile::tempdir().unwrap();
/// let mine = tmp.path().join("gis");
/// std::fs::create_dir_all(mine.join("points")).unwrap();
/// std::fs::write(mine.join("points/cities.csv"), "x").unwrap();
/// match check_owned(&mine) {
///     Err(OwnershipError::Foreign { foreign, .. }) => {
///         assert_eq!(foreign[0].path, "points/cities.csv")
///     }
///     other => panic!("{other:?}"),
/// }
/// assert!(check_owned(&tmp.path().join("absent")).is_ok());
/// ```
pub fn check_owned(dir: &Path) -> Result<(), OwnershipError> {
    // `/` (or `..` that is `/`): never walked, let alone replaced
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let resolved = absolute.canonicalize().unwrap_or(absolute);
    if resolved.parent().is_none() {
        return Err(OwnershipError::Root(dir.to_path_buf()));
    }
    // `dir` itself may be a link to a folder (what it links to is checked); links inside
    // it are foreign
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(dir, e)),
    };
    if !meta.is_dir() {
        return Err(OwnershipError::NotAFolder(dir.to_path_buf()));
    }
    let foreign = foreign_entries(dir)?;
    if foreign.is_empty() {
        Ok(())
    } else {
        Err(OwnershipError::Foreign {
            dir: dir.to_path_buf(),
            foreign,
        })
    }
}

/// Checks that `writer` may replace the folder `dir`: absent, or not recorded as another
/// command's output — neither by its mark nor, for an interrupted sweep or search that
/// holds only its checkpoints, by the mark of a folder of checkpoints directly in it.
/// Folders whose marks record no command (written by earlier builds) are left to
/// [`check_owned`] alone.
pub fn check_writer(dir: &Path, writer: Writer) -> Result<(), OwnershipError> {
    if !dir.is_dir() {
        return Ok(());
    }
    let other = |d: &Path| match read_mark(d) {
        Ok(Some(m)) => m.written_by.filter(|w| *w != writer),
        _ => None,
    };
    let mut wrote = other(dir);
    if wrote.is_none() {
        let entries = std::fs::read_dir(dir).map_err(|e| io(dir, e))?;
        for e in entries.flatten() {
            let sub = e.path();
            let checkpoints = matches!(read_mark(&sub), Ok(Some(ref m)) if m.checkpoints);
            if checkpoints && sub.is_dir() {
                wrote = other(&sub);
                if wrote.is_some() {
                    break;
                }
            }
        }
    }
    match wrote {
        None => Ok(()),
        Some(wrote) => Err(OwnershipError::OtherCommand {
            dir: dir.to_path_buf(),
            wrote,
            writing: writer,
        }),
    }
}

/// The command whose output the folder `dir` is, as its mark records it (`None`: no mark,
/// or one of an earlier build, which did not record it).
pub fn written_by(dir: &Path) -> Option<Writer> {
    read_mark(dir).ok().flatten().and_then(|m| m.written_by)
}

/// Every entry of the folder `dir` that is not vodbench's, sorted by path.
pub fn foreign_entries(dir: &Path) -> Result<Vec<Foreign>, OwnershipError> {
    let mut out = Vec::new();
    walk(dir, "", &mut Vec::new(), &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The mark in `dir`: `Ok(None)` when there is none, `Err` with why when the file is there
/// but is not a mark vodbench wrote.
fn read_mark(dir: &Path) -> Result<Option<Mark>, String> {
    let path = dir.join(MARK);
    match std::fs::symlink_metadata(&path) {
        Err(_) => return Ok(None),
        Ok(m) if !m.is_file() => return Err("not a regular file".into()),
        Ok(m) if m.len() > 64 << 20 => return Err("larger than any mark".into()),
        Ok(_) => {}
    }
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let mark: Mark = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if mark.format != FORMAT {
        return Err(format!("format `{}`, not `{FORMAT}`", mark.format));
    }
    Ok(Some(mark))
}

/// `rel` joined with `name`, `/`-separated.
fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

/// A mark and the path of its folder relative to the checked folder.
type Frame = (String, Mark);

fn walk(
    dir: &Path,
    rel: &str,
    marks: &mut Vec<Frame>,
    out: &mut Vec<Foreign>,
) -> Result<(), OwnershipError> {
    let pushed = match read_mark(dir) {
        Ok(Some(mark)) => {
            if mark.staging.is_some() {
                // a folder being written (or left by a process that died): vodbench's scratch
                return Ok(());
            }
            marks.push((rel.to_string(), mark));
            true
        }
        Ok(None) => false,
        Err(m) => {
            out.push(Foreign {
                path: join(rel, MARK),
                why: Why::BadMark(m),
            });
            false
        }
    };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .collect::<Result<_, _>>()
        .map_err(|e| io(dir, e))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        let here = join(rel, &name);
        if name == MARK {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).map_err(|x| io(&path, x))?;
        if meta.is_dir() {
            walk(&path, &here, marks, out)?;
        } else if !meta.is_file() {
            out.push(Foreign {
                path: here,
                why: Why::NotAFile,
            });
        } else if let Some(why) = file_is_foreign(&path, &here, &name, meta.len(), marks, rel)? {
            out.push(Foreign { path: here, why });
        }
    }
    if pushed {
        marks.pop();
    }
    Ok(())
}

/// Why the regular file `path` (at `here` relative to the checked folder, named `name`,
/// `size` bytes, in the folder at `rel`) is not vodbench's; `None` when it is.
fn file_is_foreign(
    path: &Path,
    here: &str,
    name: &str,
    size: u64,
    marks: &[Frame],
    rel: &str,
) -> Result<Option<Why>, OwnershipError> {
    let mut listed = false;
    for (base, mark) in marks.iter().rev() {
        let key = if base.is_empty() {
            here
        } else {
            match here
                .strip_prefix(base.as_str())
                .and_then(|r| r.strip_prefix('/'))
            {
                Some(r) => r,
                None => continue,
            }
        };
        if let Some(stamp) = mark.files.get(key) {
            listed = true;
            if stamp.size == size && sha256_file(path)? == stamp.sha256 {
                return Ok(None);
            }
        }
    }
    let nearest = marks.last().filter(|(base, _)| base == rel);
    if let Some((_, mark)) = nearest {
        if mark.checkpoints && is_checkpoint(name) {
            return Ok(None);
        }
        if is_atomic_temp(name) {
            return Ok(None);
        }
    }
    if !listed && is_lock_file(path, name, size) {
        return Ok(None);
    }
    Ok(Some(if listed {
        Why::Changed
    } else {
        Why::NotWritten
    }))
}

/// A sweep checkpoint's name: `NNN.json` (three or more digits). In a folder whose mark says
/// it holds checkpoints, such a file is vodbench's whatever it holds: `--resume` judges its
/// contents (and searches an unreadable point again).
fn is_checkpoint(name: &str) -> bool {
    name.strip_suffix(".json")
        .is_some_and(|stem| stem.len() >= 3 && stem.bytes().all(|b| b.is_ascii_digit()))
}

/// A temporary file of [`crate::atomic_write::write`]: `.NAME.tmp-PID-N`.
fn is_atomic_temp(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let Some((_, tail)) = rest.rsplit_once(".tmp-") else {
        return false;
    };
    let mut parts = tail.split('-');
    let ok =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// Lower-case hex SHA-256 of the file at `path`, read in blocks.
fn sha256_file(path: &Path) -> Result<String, OwnershipError> {
    crate::digest::sha256_file(path).map_err(|e| io(path, e))
}

/// Writes `mark` into `dir` atomically.
fn write_mark(dir: &Path, mark: &Mark) -> Result<(), OwnershipError> {
    let text = serde_json::to_string_pretty(mark).map_err(|e| io(dir, e))? + "\n";
    crate::atomic_write::write(&dir.join(MARK), text.as_bytes()).map_err(|(p, e)| io(&p, e))
}

/// Marks the folder `dir` as `writer`'s output: records every regular file below it, except
/// those in subfolders that carry a mark of their own (and the temporary files of atomic
/// writes). Called on a finished folder, before it is published.
pub fn mark(dir: &Path, writer: Writer) -> Result<(), OwnershipError> {
    let mut files = BTreeMap::new();
    collect(dir, "", &mut files)?;
    write_mark(
        dir,
        &Mark {
            format: FORMAT.into(),
            written_by: Some(writer),
            files,
            ..Mark::default()
        },
    )
}

fn collect(
    dir: &Path,
    rel: &str,
    files: &mut BTreeMap<String, Stamp>,
) -> Result<(), OwnershipError> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| io(dir, e))?
        .collect::<Result<_, _>>()
        .map_err(|e| io(dir, e))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        let meta = std::fs::symlink_metadata(&path).map_err(|x| io(&path, x))?;
        if meta.is_dir() {
            if !path.join(MARK).exists() {
                collect(&path, &join(rel, &name), files)?;
            }
        } else if meta.is_file() && !(rel.is_empty() && name == MARK) && !is_atomic_temp(&name) {
            files.insert(
                join(rel, &name),
                Stamp {
                    size: meta.len(),
                    sha256: sha256_file(&path)?,
                },
            );
        }
    }
    Ok(())
}

/// Marks `dir` as a staging folder of this process: everything in it is vodbench's scratch
/// until [`mark`] replaces the mark when the folder is finished.
pub fn mark_staging(dir: &Path) -> Result<(), OwnershipError> {
    write_mark(
        dir,
        &Mark {
            format: FORMAT.into(),
            staging: Some(std::process::id()),
            ..Mark::default()
        },
    )
}

/// The text of the mark of a folder of `writer`'s checkpoints, for a folder written whole
/// (a finished sweep's `points/`, a merged search's `replications/`).
pub fn checkpoints_mark_text(writer: Writer) -> String {
    let mark = Mark {
        format: FORMAT.into(),
        written_by: Some(writer),
        checkpoints: true,
        ..Mark::default()
    };
    serde_json::to_string_pretty(&mark).expect("plain data serializes") + "\n"
}

/// Marks `dir` (a sweep's `points/`, a search's `replications/`) as a folder of `writer`'s
/// checkpoints, unless it already says it is a folder of checkpoints.
pub fn mark_checkpoints(dir: &Path, writer: Writer) -> Result<(), OwnershipError> {
    if matches!(read_mark(dir), Ok(Some(m)) if m.checkpoints) {
        return Ok(());
    }
    crate::atomic_write::write(&dir.join(MARK), checkpoints_mark_text(writer).as_bytes())
        .map_err(|(p, e)| io(&p, e))
}

/// Records the files `names` (relative to `dir`, as now on disk) in the mark of the
/// vodbench folder `dir`, so that a command adding a file to a saved folder (a report) keeps
/// it vodbench's. Call [`check_owned`] before writing the files.
pub fn record(dir: &Path, names: &[&str]) -> Result<(), OwnershipError> {
    let mut mark = match read_mark(dir) {
        Ok(Some(m)) if m.staging.is_none() => m,
        Ok(_) => Mark {
            format: FORMAT.into(),
            ..Mark::default()
        },
        Err(m) => return Err(io(&dir.join(MARK), m)),
    };
    for name in names {
        let path = dir.join(name);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| io(&path, e))?;
        mark.files.insert(
            name.replace('\\', "/"),
            Stamp {
                size: meta.len(),
                sha256: sha256_file(&path)?,
            },
        );
    }
    write_mark(dir, &mark)
}

/// Whether process `pid` may still be running. Where processes cannot be looked up (no
/// `/proc`), every process may be.
fn alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// The process id in a staging name `.NAME.partial-PID` or `.NAME.old-PID` for `name`.
fn staging_pid(entry: &str, name: &str) -> Option<u32> {
    let rest = entry.strip_prefix('.')?.strip_prefix(name)?;
    let pid = rest
        .strip_prefix(".partial-")
        .or_else(|| rest.strip_prefix(".old-"))?;
    pid.parse().ok()
}

/// Removes, beside the folder `parent/name`, the staging folders (`.NAME.partial-PID`) and
/// the folders moved aside while being replaced (`.NAME.old-PID`) of processes that are no
/// longer running: a staging folder only when its mark says it is one, a moved folder only
/// when it is vodbench's as a whole. Returns the folders removed; what cannot be removed is
/// left.
pub fn remove_stale(parent: &Path, name: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let entry = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = staging_pid(&entry, name) else {
            continue;
        };
        let path = e.path();
        if pid == std::process::id() || alive(pid) || !path.is_dir() {
            continue;
        }
        let ours = match read_mark(&path) {
            Ok(Some(m)) if m.staging.is_some() => true,
            _ => foreign_entries(&path).is_ok_and(|f| f.is_empty()),
        };
        if ours && std::fs::remove_dir_all(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn names(foreign: &[Foreign]) -> Vec<String> {
        foreign.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn a_marked_folder_is_owned_until_a_file_changes_or_is_added() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("run");
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("summary.json"), "{}\n").unwrap();
        std::fs::write(d.join("sub/t.csv"), "a\n").unwrap();
        mark(&d, Writer::Run).unwrap();
        check_owned(&d).unwrap();
        std::fs::write(d.join("summary.json"), "{\"edited\": 1}\n").unwrap();
        std::fs::write(d.join("sub/notes.txt"), "mine").unwrap();
        assert_eq!(
            names(&foreign_entries(&d).unwrap()),
            [
                "sub/notes.txt",
                "summary.json (changed since vodbench wrote it)"
            ]
        );
        let e = check_owned(&d).unwrap_err().to_string();
        assert!(
            e.contains("run: exists and is not a vodbench output folder"),
            "{e}"
        );
        assert!(e.contains("sub/notes.txt"), "{e}");
    }

    #[test]
    fn a_bad_or_foreign_mark_is_foreign() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join(MARK), "{\"format\": \"other/1\", \"files\": {}}").unwrap();
        let f = foreign_entries(d).unwrap();
        assert_eq!(f.len(), 1);
        assert!(
            matches!(&f[0].why, Why::BadMark(m) if m.contains("other/1")),
            "{f:?}"
        );
    }

    #[test]
    fn checkpoints_and_staging_folders_are_recognised_by_their_signature() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("sweep");
        let points = d.join("points");
        std::fs::create_dir_all(&points).unwrap();
        mark_checkpoints(&points, Writer::Sweep).unwrap();
        std::fs::write(points.join("003.json"), "{\"key\": \"k\"}").unwrap();
        std::fs::write(points.join(".004.json.tmp-1-0"), "{\"ke").unwrap();
        check_owned(&d).unwrap();
        // a file not named as a checkpoint is not one, in that folder or beside it
        std::fs::write(points.join("5.json"), "[1, 2]").unwrap();
        std::fs::write(d.join("007.json"), "{}").unwrap();
        assert_eq!(
            names(&foreign_entries(&d).unwrap()),
            ["007.json", "points/5.json"]
        );
        std::fs::remove_file(points.join("5.json")).unwrap();
        std::fs::remove_file(d.join("007.json")).unwrap();
        // a staging folder of a process that died is removed; one without the mark is not
        let stale = tmp.path().join(".sweep.partial-99999999");
        std::fs::create_dir_all(&stale).unwrap();
        mark_staging(&stale).unwrap();
        std::fs::write(stale.join("big.parquet"), "x").unwrap();
        let lookalike = tmp.path().join(".sweep.partial-99999998");
        std::fs::create_dir_all(&lookalike).unwrap();
        std::fs::write(lookalike.join("thesis.tex"), "t").unwrap();
        assert_eq!(
            remove_stale(tmp.path(), "sweep"),
            std::slice::from_ref(&stale)
        );
        assert!(!stale.exists());
        assert!(lookalike.join("thesis.tex").exists());
    }

    #[test]
    fn recorded_files_keep_a_folder_owned() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join("a.json"), "1").unwrap();
        mark(d, Writer::Run).unwrap();
        std::fs::write(d.join("report.html"), "<p>").unwrap();
        assert!(check_owned(d).is_err());
        record(d, &["report.html"]).unwrap();
        check_owned(d).unwrap();
    }

    proptest! {
        /// Any tree of the user's (names vodbench uses among them), without a mark, is
        /// foreign as long as it holds one file; every file is named.
        #[test]
        fn unmarked_trees_are_foreign(
            files in proptest::collection::btree_map(
                proptest::collection::vec(
                    prop_oneof![
                        Just("manifest.json".to_string()),
                        Just("summary.json".to_string()),
                        Just("points".to_string()),
                        Just("report.html".to_string()),
                        "[a-z]{1,6}(\\.[a-z]{1,3})?",
                    ],
                    1..4,
                ),
                "[ -~]{0,20}",
                1..8,
            )
        ) {
            let tmp = tempfile::tempdir().unwrap();
            let mut written = Vec::new();
            for (parts, contents) in &files {
                let rel = parts.join("/");
                let path = tmp.path().join(&rel);
                if std::fs::create_dir_all(path.parent().unwrap()).is_err()
                    || path.is_dir()
                    || std::fs::write(&path, contents).is_err()
                {
                    continue;
                }
                written.push(rel);
            }
            prop_assume!(!written.is_empty());
            let found: Vec<String> = foreign_entries(tmp.path())
                .unwrap()
                .into_iter()
                .map(|f| f.path)
                .collect();
            for w in &written {
                // a file written first may have been replaced by a folder of the same name
                if tmp.path().join(w).is_file() {
                    prop_assert!(found.contains(w), "{w} not in {found:?}");
                }
            }
            prop_assert!(check_owned(tmp.path()).is_err());
        }
    }
}
