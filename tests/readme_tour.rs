//! The README's tour ("A ten-minute tour"), run as written, so the README cannot drift from
//! the binary.
//!
//! The section's fenced blocks are the test's input:
//! - `console` blocks: each `$ ` line is a command, run by `bash` in a scratch folder that
//!   has the repository's `scenarios/` and `target/release/` (the built binaries, also on
//!   `PATH`); the lines after it up to the next command are its standard output, line for
//!   line, where `…` in a line stands for any text (wall times, which vary);
//! - `sh` blocks: commands run the same way, their output unchecked;
//! - `rust` blocks: excerpts of the example plugin's one file,
//!   `examples/sstf-plugin/src/lib.rs`, or of the binary that registers it (`src/main.rs`),
//!   which the workspace builds and tests; each must appear in one of them verbatim.
//!
//! Blocks run in order in one scratch folder, so a later command sees what an earlier one
//! wrote, as a reader following the tour does.

use std::path::{Path, PathBuf};
use std::process::Command;

const SECTION: &str = "## A ten-minute tour";

/// One fenced block of the tour.
struct Block {
    lang: String,
    lines: Vec<String>,
    /// 1-based line of the opening fence in README.md.
    line: usize,
}

fn tour_blocks(readme: &str) -> Vec<Block> {
    let start = readme
        .find(SECTION)
        .unwrap_or_else(|| panic!("README.md has no section `{SECTION}`"));
    let first_line = readme[..start].lines().count() + 1;
    let rest = &readme[start + SECTION.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in section.lines().enumerate() {
        if let Some(fence) = line.strip_prefix("```") {
            match open.take() {
                Some(b) => blocks.push(b),
                None => {
                    open = Some(Block {
                        lang: fence.trim().to_string(),
                        lines: Vec::new(),
                        line: first_line + i,
                    })
                }
            }
        } else if let Some(b) = open.as_mut() {
            b.lines.push(line.to_string());
        }
    }
    assert!(
        open.is_none(),
        "README.md: the tour has an unclosed code block"
    );
    blocks
}

/// Whether `got` matches `want`, where `…` in `want` stands for any text.
fn matches(want: &str, got: &str) -> bool {
    let parts: Vec<&str> = want.split('…').collect();
    if parts.len() == 1 {
        return want == got;
    }
    let Some(mut rest) = got.strip_prefix(parts[0]) else {
        return false;
    };
    for (k, part) in parts.iter().enumerate().skip(1) {
        if k == parts.len() - 1 {
            return rest.len() >= part.len() && rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

struct Tour {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

impl Tour {
    fn new(repo: &Path) -> Tour {
        let bin = Path::new(env!("CARGO_BIN_EXE_vodbench"))
            .parent()
            .expect("the binary's folder")
            .to_path_buf();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(repo.join("scenarios"), dir.path().join("scenarios")).unwrap();
        std::fs::create_dir(dir.path().join("target")).unwrap();
        std::os::unix::fs::symlink(&bin, dir.path().join("target/release")).unwrap();
        Tour { dir, bin }
    }

    /// Runs `command` with bash; its standard output, or a panic naming the README line.
    fn run(&self, command: &str, line: usize) -> String {
        let path = format!(
            "{}:{}",
            self.bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", command])
            .current_dir(self.dir.path())
            .env("PATH", path)
            .env_remove("VODBENCH_BASELINES")
            .output()
            .expect("bash runs");
        assert!(
            out.status.success(),
            "README.md:{line}: `{command}` failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }
}

#[test]
fn the_readme_tour_runs_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let blocks = tour_blocks(&readme);
    let plugin_src: Vec<String> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| std::fs::read_to_string(repo.join("examples/sstf-plugin/src").join(f)).unwrap())
        .collect();
    let tour = Tour::new(repo);
    assert!(
        tour.bin.join("vodbench-sstf").is_file(),
        "{}: no vodbench-sstf (the tour's plugin binary); build the workspace with `cargo test \
         --release --workspace --no-run`",
        tour.bin.display()
    );
    let (mut commands, mut checked_lines, mut excerpts) = (0, 0, 0);
    for b in &blocks {
        match b.lang.as_str() {
            "console" => {
                // commands and the output each printed
                let mut steps: Vec<(String, usize, Vec<String>)> = Vec::new();
                for (i, l) in b.lines.iter().enumerate() {
                    match l.strip_prefix("$ ") {
                        Some(cmd) => steps.push((cmd.to_string(), b.line + 1 + i, Vec::new())),
                        None => steps
                            .last_mut()
                            .unwrap_or_else(|| {
                                panic!("README.md:{}: output before any `$ ` command", b.line)
                            })
                            .2
                            .push(l.clone()),
                    }
                }
                for (cmd, line, want) in steps {
                    let got = tour.run(&cmd, line);
                    let got: Vec<&str> = got.lines().collect();
                    assert_eq!(
                        got.len(),
                        want.len(),
                        "README.md:{line}: `{cmd}` printed {} lines, the README shows {}:\n{}",
                        got.len(),
                        want.len(),
                        got.join("\n")
                    );
                    for (k, (w, g)) in want.iter().zip(&got).enumerate() {
                        assert!(
                            matches(w, g),
                            "README.md:{}: `{cmd}` printed\n  {g}\nwhere the README shows\n  {w}",
                            line + 1 + k
                        );
                    }
                    commands += 1;
                    checked_lines += want.len();
                }
            }
            "sh" => {
                tour.run(&b.lines.join("\n"), b.line);
                commands += 1;
            }
            "rust" => {
                let text = b.lines.join("\n");
                assert!(
                    plugin_src.iter().any(|src| src.contains(&text)),
                    "README.md:{}: this excerpt is in neither examples/sstf-plugin/src/lib.rs \
                     nor main.rs (copy it from there again):\n{text}",
                    b.line
                );
                excerpts += 1;
            }
            other => panic!(
                "README.md:{}: a `{other}` block in the tour; the tour test knows console, sh \
                 and rust blocks",
                b.line
            ),
        }
    }
    assert!(commands >= 6, "the tour ran only {commands} commands");
    assert!(checked_lines >= 10 && excerpts >= 1);
}

#[test]
fn an_ellipsis_stands_for_any_text() {
    assert!(matches(
        "wall time …; output: out/z",
        "wall time 0.4s; output: out/z"
    ));
    assert!(matches("a…b…c", "a12b34c"));
    assert!(!matches("a…b…c", "a12b34"));
    assert!(!matches(
        "wall time …; output: out/z",
        "wall time 0.4s; output: out/y"
    ));
    assert!(matches("exact", "exact") && !matches("exact", "exact "));
}
