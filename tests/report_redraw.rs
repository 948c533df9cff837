//! `vodbench report DIR` draws the page the original command wrote, byte for byte, from the
//! saved files of every kind of output folder: a run's, a broadcast run's, a search's, a
//! sweep's, a comparison's (also after the comparison's folder moved) and the runs of a
//! sweep file's points.

mod common;

use common::{text, vodbench};
use std::path::Path;

fn ok(args: &[&str]) -> String {
    let out = vodbench(args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{args:?}: {stderr}");
    stdout
}

/// Removes `page`, redraws the folder `dir` and checks the new page has the old bytes; then
/// redraws again and checks `report` says so.
fn redraws(dir: &Path, pages: &[&Path]) {
    let before: Vec<Vec<u8>> = pages.iter().map(|p| std::fs::read(p).unwrap()).collect();
    for p in pages {
        std::fs::remove_file(p).unwrap();
    }
    let printed = ok(&["report", dir.to_str().unwrap()]);
    assert_eq!(printed.lines().count(), pages.len(), "{printed}");
    assert!(printed.contains("(drawn; there was none)"), "{printed}");
    for (p, old) in pages.iter().zip(&before) {
        assert!(
            std::fs::read(p).unwrap() == *old,
            "{}: the redrawn page differs from the one the command wrote",
            p.display()
        );
    }
    let again = ok(&["report", dir.to_str().unwrap()]);
    assert!(again.lines().all(|l| l.ends_with("(unchanged)")), "{again}");
}

#[test]
fn a_run_and_a_broadcast_run() {
    let tmp = tempfile::tempdir().unwrap();
    for (scenario, name) in [
        ("tests/fixtures/tiny.toml", "run"),
        ("tests/fixtures/broadcast-tiny.toml", "broadcast"),
    ] {
        let dir = tmp.path().join(name);
        ok(&["run", scenario, "--quiet", "--out", dir.to_str().unwrap()]);
        redraws(&dir, &[&dir.join("report.html")]);
        // the redrawn page is in the folder's mark: the folder is still vodbench's to replace
        ok(&["run", scenario, "--quiet", "--out", dir.to_str().unwrap()]);
    }
}

#[test]
fn a_search_and_a_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    let search = tmp.path().join("search");
    ok(&[
        "search",
        "tests/fixtures/search_small.toml",
        "--quiet",
        "--seeds",
        "3",
        "--out",
        search.to_str().unwrap(),
    ]);
    redraws(&search, &[&search.join("report.html")]);
    let sweep = tmp.path().join("sweep");
    ok(&[
        "sweep",
        "tests/fixtures/sweep_small.toml",
        "--quiet",
        "--seeds",
        "3",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    redraws(&sweep, &[&sweep.join("report.html")]);
}

#[test]
fn the_runs_of_a_sweep_files_points() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("points");
    ok(&[
        "run",
        "tests/fixtures/sweep_small.toml",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let mut pages: Vec<std::path::PathBuf> = std::fs::read_dir(dir.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path().join("report.html"))
        .collect();
    pages.sort();
    assert_eq!(pages.len(), 4);
    // and the folder's own page, which compares the points
    pages.insert(0, dir.join("report.html"));
    let pages: Vec<&Path> = pages.iter().map(|p| p.as_path()).collect();
    redraws(&dir, &pages);
}

#[test]
fn a_comparison_also_after_its_folder_moved() {
    let tmp = tempfile::tempdir().unwrap();
    let saved = tmp.path().join("z20");
    ok(&[
        "run",
        "tests/fixtures/tiny.toml",
        "--terminals",
        "20",
        "--quiet",
        "--out",
        saved.to_str().unwrap(),
    ]);
    let cmp = tmp.path().join("cmp");
    // one scenario run now (into cmp/runs/), one saved folder elsewhere
    let printed = ok(&[
        "compare",
        "tests/fixtures/tiny.toml",
        saved.to_str().unwrap(),
        "--quiet",
        "--out",
        cmp.to_str().unwrap(),
    ]);
    assert!(printed.is_empty(), "{printed}");
    assert!(cmp.join("compare-runs.json").is_file());
    let pages = [cmp.join("report.html"), cmp.join("compare.json")];
    redraws(&cmp, &[&pages[0], &pages[1]]);
    let moved = tmp.path().join("elsewhere");
    std::fs::rename(&cmp, &moved).unwrap();
    let pages = [moved.join("report.html"), moved.join("compare.json")];
    redraws(&moved, &[&pages[0], &pages[1]]);
}

#[test]
fn what_cannot_be_redrawn_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir(t.join("notes")).unwrap();
    std::fs::write(t.join("notes/thesis.tex"), "x").unwrap();
    let run = t.join("run");
    ok(&[
        "run",
        "tests/fixtures/tiny.toml",
        "--quiet",
        "--out",
        run.to_str().unwrap(),
    ]);
    let old_cmp = t.join("old-cmp");
    std::fs::create_dir(&old_cmp).unwrap();
    std::fs::write(old_cmp.join("compare.json"), "{}").unwrap();
    let lost = t.join("lost-cmp");
    ok(&[
        "compare",
        run.to_str().unwrap(),
        run.to_str().unwrap(),
        "--quiet",
        "--out",
        lost.to_str().unwrap(),
    ]);
    let moved_run = t.join("run-moved");
    std::fs::rename(&run, &moved_run).unwrap();
    for (dir, fragments) in [
        (t.join("absent"), vec!["absent: no such folder"]),
        (
            t.join("notes"),
            vec!["notes: not a vodbench output folder", "summary.json"],
        ),
        (
            old_cmp.clone(),
            vec!["a comparison without compare-runs.json", "vodbench compare"],
        ),
        (
            lost.clone(),
            vec!["compare-runs.json: run `run`", "run: no such folder"],
        ),
    ] {
        let out = vodbench(&["report", dir.to_str().unwrap()]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", dir.display());
        for f in fragments {
            assert!(
                stderr.contains(f),
                "{}: no `{f}` in {stderr}",
                dir.display()
            );
        }
    }
    assert_eq!(
        std::fs::read_dir(t.join("notes")).unwrap().count(),
        1,
        "nothing written into a folder that is not vodbench's"
    );
    let out = vodbench(&["report"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_folder_without_vodbenchs_mark_is_drawn_into_a_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("old");
    ok(&[
        "run",
        "tests/fixtures/tiny.toml",
        "--quiet",
        "--out",
        run.to_str().unwrap(),
    ]);
    // as a build from before the mark left it
    std::fs::remove_file(run.join(".vodbench-folder.json")).unwrap();
    let page = std::fs::read(run.join("report.html")).unwrap();
    std::fs::write(run.join("report.html"), "an older build's page").unwrap();
    let before = common::folder(&run);
    let out = vodbench(&["report", run.to_str().unwrap()]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--out NEW"), "{stderr}");
    assert_eq!(common::folder(&run), before, "the folder is left as it was");
    let new = tmp.path().join("new");
    let printed = ok(&[
        "report",
        run.to_str().unwrap(),
        "--out",
        new.to_str().unwrap(),
    ]);
    assert!(
        printed.contains("(redrawn; the saved one differed)"),
        "{printed}"
    );
    assert_eq!(std::fs::read(new.join("report.html")).unwrap(), page);
    assert_eq!(
        common::folder(&run),
        before,
        "--out only reads the saved folder"
    );
    let inside = run.join("pages");
    let out = vodbench(&[
        "report",
        run.to_str().unwrap(),
        "--out",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out).1);
}
