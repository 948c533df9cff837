//! `vodbench man`: the manual page `vodbench.1` (clap_mangen, roff), printed to standard
//! output, or with `--out DIR` written there with one page per subcommand
//! (`vodbench-run.1`, `vodbench-disk-replay.1`, …), as `man -l vodbench.1` reads them.

use super::CommandError;
use clap::CommandFactory;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `vodbench man`.
#[derive(clap::Args)]
pub(crate) struct ManArgs {
    /// Write `vodbench.1` and a page per subcommand into this folder instead of printing
    /// `vodbench.1`.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// The page of `cmd` as roff, its footer naming vodbench and its version (a subcommand has
/// no version of its own).
fn render(cmd: clap::Command, version: &str) -> Vec<u8> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .source(format!("vodbench {version}"))
        .manual("vodbench manual")
        .render(&mut out)
        .expect("writing to memory does not fail");
    out
}

/// Every manual page, as (file name, roff): `vodbench.1` first, then one per subcommand at
/// every depth, named by its path (`vodbench-disk-replay.1`).
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let mut root = super::Cli::command();
    // building names every subcommand by its path (`vodbench-disk-replay`), as man(1) finds it
    root.build();
    let mut pages = Vec::new();
    let version = root.get_version().unwrap_or_default().to_string();
    collect(&root, &version, &mut pages);
    pages
}

fn collect(cmd: &clap::Command, version: &str, pages: &mut Vec<(String, Vec<u8>)>) {
    let name = cmd.get_display_name().unwrap_or(cmd.get_name());
    pages.push((format!("{name}.1"), render(cmd.clone(), version)));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        collect(sub, version, pages);
    }
}

/// Writes every page into `dir` (created if missing), each atomically. A file of the same
/// name that is not a page this command wrote (its `.TH` line names the vodbench manual) is
/// refused before anything is written: a file of the user's is never overwritten.
fn write_pages(dir: &Path) -> Result<Vec<PathBuf>, CommandError> {
    let _lock = crate::output::lock_output(dir, crate::output::Claim::Exclusive)?;
    let pages = pages();
    for (file, _) in &pages {
        let path = dir.join(file);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let ours = meta.is_file()
            && meta.len() < 1 << 22
            && std::fs::read_to_string(&path).is_ok_and(|t| {
                t.lines()
                    .take(8)
                    .any(|l| l.starts_with(".TH ") && l.contains("\"vodbench manual\""))
            });
        if !ours {
            return Err(CommandError::input(format!(
                "{}: exists and is not a manual page `vodbench man` wrote; writing there would \
                 overwrite it: choose another --out, or remove this file",
                path.display()
            )));
        }
    }
    let mut written = Vec::new();
    for (file, roff) in pages {
        let path = dir.join(file);
        crate::output::write_atomic(&path, &roff)?;
        written.push(path);
    }
    Ok(written)
}

/// `vodbench man [--out DIR]`.
pub(crate) fn cmd(args: ManArgs) -> Result<(), CommandError> {
    match args.out {
        None => {
            let (_, roff) = pages().swap_remove(0);
            std::io::stdout()
                .write_all(&roff)
                .map_err(|e| CommandError::failure(format!("standard output: {e}")))
        }
        Some(dir) => {
            for p in write_pages(&dir)? {
                println!("wrote {}", p.display());
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_for_vodbench_and_each_subcommand() {
        let pages = pages();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[0], "vodbench.1");
        for want in [
            "vodbench-run.1",
            "vodbench-sweep.1",
            "vodbench-disk-replay.1",
        ] {
            assert!(names.contains(&want), "no {want} in {names:?}");
        }
        let main = String::from_utf8(pages[0].1.clone()).unwrap();
        assert!(main.starts_with(".ie"), "{}", &main[..80]);
        assert!(main.contains(".TH vodbench 1"), "{main}");
        assert!(
            main.contains("\"vodbench 0."),
            "the footer names the version: {main}"
        );
        assert!(
            main.contains("vodbench\\-run(1)"),
            "no SEE ALSO-style subcommand list"
        );
        let run = &pages.iter().find(|(n, _)| n == "vodbench-run.1").unwrap().1;
        let run = String::from_utf8_lossy(run);
        assert!(
            run.contains(".TH vodbench-run 1") && run.contains("\"vodbench 0."),
            "{run}"
        );
        assert!(
            run.contains("\\-\\-terminals"),
            "run's flags are listed: {run}"
        );
    }
}
