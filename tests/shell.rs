//! `vodbench completions` for every shell and `vodbench man`, through the binary.
//!
//! Every script is generated without error; a shell that is installed also checks the
//! script's syntax (bash, zsh, fish; `.ci/run` installs zsh and fish), and bash completes
//! subcommands and flags from it as a user's shell would. The manual pages are rendered by
//! `man` when it is installed.

mod common;

use common::{text, vodbench};
use std::path::Path;
use std::process::{Command, Output};

fn ok(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

/// Whether `program` can be started (it is on PATH).
fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn script(shell: &str, dir: &Path) -> std::path::PathBuf {
    let text = ok(
        &vodbench(&["completions", shell]),
        &format!("completions {shell}"),
    );
    assert!(text.contains("vodbench"), "{shell}: {text}");
    for sub in ["run", "search", "sweep", "compare", "report", "completions"] {
        assert!(text.contains(sub), "{shell}: no `{sub}` in the script");
    }
    let path = dir.join(format!("vodbench.{shell}"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_shell_gets_a_script_its_shell_accepts() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let path = script(shell, dir.path());
        let check: Option<(&str, Vec<&str>)> = match shell {
            "bash" => Some(("bash", vec!["-n"])),
            "zsh" => Some(("zsh", vec!["-n"])),
            "fish" => Some(("fish", vec!["--no-execute"])),
            _ => None,
        };
        let Some((program, args)) = check else {
            continue;
        };
        if !installed(program) {
            println!("{shell}: not installed here; its script was generated but not parsed");
            continue;
        }
        let out = Command::new(program)
            .args(&args)
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{program} rejects the script: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn bash_completes_subcommands_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    let path = script("bash", dir.path());
    // what bash's programmable completion does on TAB: call the function with the words so far
    let complete = |line: &str| -> Vec<String> {
        let words: Vec<&str> = line.split(' ').collect();
        let program = format!(
            "source {}\nCOMP_WORDS=({})\nCOMP_CWORD={}\nCOMP_LINE='{line}'\nCOMP_POINT={}\n\
             _vodbench vodbench '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display(),
            words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" "),
            words.len() - 1,
            line.len(),
            words[words.len() - 1],
            words[words.len() - 2],
        );
        let out = Command::new("bash")
            .arg("-c")
            .arg(program)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    };
    let subs = complete("vodbench re");
    for want in ["report", "rerun"] {
        assert!(
            subs.iter().any(|s| s == want),
            "`vodbench re` TAB: {subs:?}"
        );
    }
    assert!(!subs.iter().any(|s| s == "run"), "{subs:?}");
    let flags = complete("vodbench run --ter");
    assert_eq!(flags, vec!["--terminals".to_string()]);
    let shells = complete("vodbench completions f");
    assert_eq!(shells, vec!["fish".to_string()]);
}

#[test]
fn man_prints_vodbench_1_and_writes_a_page_per_subcommand() {
    let page = ok(&vodbench(&["man"]), "man");
    assert!(page.contains(".TH vodbench 1"), "{page}");
    let dir = tempfile::tempdir().unwrap();
    let out = ok(
        &vodbench(&["man", "--out", dir.path().to_str().unwrap()]),
        "man --out",
    );
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    for want in [
        "vodbench.1",
        "vodbench-run.1",
        "vodbench-report.1",
        "vodbench-disk-replay.1",
        "vodbench-trace-zipf.1",
    ] {
        assert!(files.iter().any(|f| f == want), "no {want}: {files:?}");
    }
    assert_eq!(
        out.lines().count(),
        files.len(),
        "one `wrote` line per page"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("vodbench.1")).unwrap(),
        page,
        "--out writes the page `vodbench man` prints"
    );
    // again over its own pages: replaced; over a file of the user's by a page's name: refused,
    // nothing written
    ok(
        &vodbench(&["man", "--out", dir.path().to_str().unwrap()]),
        "man --out again",
    );
    let mine = tempfile::tempdir().unwrap();
    std::fs::write(
        mine.path().join("vodbench-run.1"),
        "my notes on vodbench run\n",
    )
    .unwrap();
    let o = vodbench(&["man", "--out", mine.path().to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not a manual page"), "{err}");
    assert_eq!(
        std::fs::read_to_string(mine.path().join("vodbench-run.1")).unwrap(),
        "my notes on vodbench run\n"
    );
    assert!(!mine.path().join("vodbench.1").exists(), "nothing written");
    if !installed("man") {
        println!("man: not installed here; the pages were written but not rendered");
        return;
    }
    for (file, want) in [
        ("vodbench.1", "SUBCOMMANDS"),
        ("vodbench-run.1", "--terminals"),
    ] {
        let out = Command::new("man")
            .arg("-l")
            .arg(dir.path().join(file))
            .env("MANWIDTH", "100")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .output()
            .unwrap();
        // without a terminal man overstrikes bold text (`S\x08S`): keep what is struck last
        let raw = String::from_utf8_lossy(&out.stdout);
        let mut text = String::new();
        for c in raw.chars() {
            if c == '\u{8}' {
                text.pop();
            } else {
                text.push(c);
            }
        }
        assert!(out.status.success(), "man -l {file}: {out:?}");
        assert!(text.contains(want), "man -l {file}: no `{want}` in\n{text}");
    }
}
