//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the `vodbench` binary with `args` from the repository root.
pub fn vodbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("vodbench runs")
}

/// Stdout and stderr as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every file of a folder, sorted by name, with contents.
pub fn folder(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        // the ownership mark records the manifest's checksum, which holds the host
        .filter(|e| e.as_ref().unwrap().file_name() != vodbench_harness::ownership::MARK)
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Runs the `vodbench` binary with `args` and extra environment variables.
pub fn vodbench_env(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vodbench"));
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("vodbench runs")
}

/// Asserts that each of `files` (paths relative to both folders) has the same bytes in `a`
/// and `b`; `what` names the two in the message ("between 1 and 2 threads").
pub fn assert_same_files(a: &Path, b: &Path, files: &[&str], what: &str) {
    for f in files {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs {what}"
        );
    }
}

/// Every file of a `vodbench sweep` folder of `tests/fixtures/sweep_small.toml` (4 points)
/// that must not depend on how the sweep was made (in one go, resumed, in tasks, on Slurm).
pub const SWEEP_SMALL_FILES: [&str; 12] = [
    "sweep.json",
    "sweep.csv",
    "sweep.md",
    "report.html",
    "curve-000.csv",
    "curve-001.csv",
    "curve-002.csv",
    "curve-003.csv",
    "points/000.json",
    "points/001.json",
    "points/002.json",
    "points/003.json",
];

/// The largest resident set of the waited-for children of this process, in bytes
/// (getrusage). A test of a child's memory must be alone in its file: every child the
/// process waited for counts.
pub fn children_peak_bytes() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole `rusage` into the pointer it is given
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    assert_eq!(rc, 0, "getrusage");
    // SAFETY: initialised by the successful call above
    let kib = unsafe { usage.assume_init() }.ru_maxrss;
    u64::try_from(kib).unwrap() * 1024
}

/// Writes `text_` as the scenario file `dir/NAME.toml` and runs it into `dir/NAME` (the run
/// must succeed); the output folder.
pub fn run_text(dir: &Path, name: &str, text_: &str) -> PathBuf {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, text_).unwrap();
    let out = dir.join(name);
    let o = vodbench(&[
        "run",
        file.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{name}: {:?}", text(&o));
    out
}

/// `vodbench check` on the scenario text `text_`: exit code 2 (bad input), and stderr
/// naming each of `needles` with no panic.
pub fn refused(text_: &str, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, text_).unwrap();
    let o = vodbench(&["check", file.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}
