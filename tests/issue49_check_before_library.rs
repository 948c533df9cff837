//! Issue 49, item 10: a configuration error that needs no video library is reported before
//! the library is built. Fifty 100-hour MPEG videos in 4 KiB stripes make a library of about
//! 300 MB, built frame by frame (half a billion frames); a terminal memory of 16 KiB cannot
//! hold one I-frame, which the first video's first frames already show. `check` and `run`
//! refuse it at `terminals.memory`'s line with a resident set far below the library's: the
//! order is tested by the memory the child touched, not by time. The peak is the children's
//! maximum resident set (getrusage); this file holds no other test, so no other child counts.

mod common;

use common::{text, vodbench};

#[test]
fn issue49_a_terminal_memory_error_comes_before_the_library_is_built() {
    let tmp = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let scenario = original
        .replace(
            "count = 8\nlength = \"5min\"",
            "count = 50\nlength = \"100h\"",
        )
        .replace("stripe = \"256KiB\"", "stripe = \"4KiB\"")
        .replace("memory = \"1MiB\"", "memory = \"16KiB\"");
    assert_ne!(scenario, original);
    let line = scenario
        .lines()
        .position(|l| l == "memory = \"16KiB\"")
        .unwrap()
        + 1;
    let file = tmp.path().join("long.toml");
    std::fs::write(&file, &scenario).unwrap();
    let out = tmp.path().join("out");
    for args in [
        vec!["check", file.to_str().unwrap()],
        vec![
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
    ] {
        let o = vodbench(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("long.toml:{line}: key `terminals.memory`"))
                && err.contains("16KiB cannot display frame"),
            "{args:?}: {err}"
        );
    }
    assert!(!out.exists(), "nothing written");
    let peak = common::children_peak_bytes();
    assert!(
        peak < 120 << 20,
        "the children peaked at {} MiB: the library (about 300 MB) was built first",
        peak >> 20
    );
}
