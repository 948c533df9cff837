//! Sweeps and searches split into tasks (`--task I/N`) sharing one output folder, then
//! merged (`--merge`): the merged folder is the one a single process writes, to the byte; a
//! task killed mid-point leaves no partial file and its re-run finishes the work; a merge
//! refuses, by name, what is missing or was made for another scenario or by another build.
//! (`tests/slurm.rs` runs the same through a real Slurm.)

mod common;

use common::{text, vodbench};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SMALL: &str = "tests/fixtures/sweep_small.toml";
const SEARCH: &str = "tests/fixtures/search_small.toml";

/// Runs vodbench, asserting success; its stdout and stderr.
fn ok(args: &[&str]) -> (String, String) {
    let o = vodbench(args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{args:?}:\n{out}{err}");
    (out, err)
}

/// Runs vodbench, asserting it fails with bad input (exit code 2); its stderr.
fn refused(args: &[&str]) -> String {
    let o = vodbench(args);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}:\n{out}{err}");
    err
}

#[test]
fn a_sweep_in_tasks_merges_into_the_sweep_made_in_one_go() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, one) = (tmp.path().join("d"), tmp.path().join("one"));
    let d_ = d.to_str().unwrap();
    // nothing saved yet: every point is named as missing
    let e = refused(&["sweep", SMALL, "--seeds", "4", "--out", d_, "--merge"]);
    assert!(
        e.contains("cannot merge: 4 of 4 points") && e.contains("points/003.json is missing"),
        "{e}"
    );
    // three tasks, one after the other (the order does not matter)
    for t in ["2/3", "0/3", "1/3"] {
        let (out, _) = ok(&["sweep", SMALL, "--seeds", "4", "--out", d_, "--task", t]);
        assert!(out.contains(&format!("task {t}: points [")), "{out}");
        // a task writes its points and nothing else
        assert!(!d.join("sweep.json").exists());
    }
    let (out, _) = ok(&["sweep", SMALL, "--seeds", "4", "--out", d_, "--task", "0/3"]);
    assert!(out.contains("0 searched, 2 already saved"), "{out}");
    ok(&[
        "sweep", SMALL, "--seeds", "4", "--out", d_, "--merge", "--quiet",
    ]);
    ok(&[
        "sweep",
        SMALL,
        "--seeds",
        "4",
        "--quiet",
        "--threads",
        "2",
        "--out",
        one.to_str().unwrap(),
    ]);
    common::assert_same_files(
        &d,
        &one,
        &common::SWEEP_SMALL_FILES,
        "between the merged and the one-go sweep",
    );
}

#[test]
fn a_merge_refuses_points_of_another_build_or_scenario_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    let d_ = d.to_str().unwrap();
    ok(&[
        "sweep", SMALL, "--seeds", "4", "--out", d_, "--task", "0/1", "-q",
    ]);
    // point 1 as another build would have saved it: its key names another executable
    let p1 = d.join("points/001.json");
    let mut saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&p1).unwrap()).unwrap();
    let mut key: serde_json::Value = serde_json::from_str(saved["key"].as_str().unwrap()).unwrap();
    key["build"] = "0123456789abcdef-another-build".into();
    saved["key"] = key.to_string().into();
    std::fs::write(&p1, saved.to_string()).unwrap();
    // point 2 saved for another scenario: the same sweep with another seed
    let other = tmp.path().join("other.toml");
    let source = std::fs::read_to_string(common::root().join(SMALL)).unwrap();
    std::fs::write(&other, source.replace("seed = 7", "seed = 8")).unwrap();
    let o = tmp.path().join("o");
    ok(&[
        "sweep",
        other.to_str().unwrap(),
        "--seeds",
        "4",
        "--out",
        o.to_str().unwrap(),
        "--task",
        "0/1",
        "-q",
    ]);
    std::fs::copy(o.join("points/002.json"), d.join("points/002.json")).unwrap();
    // point 3 cut short
    std::fs::write(d.join("points/003.json"), "{\"key\":").unwrap();
    let e = refused(&["sweep", SMALL, "--seeds", "4", "--out", d_, "--merge"]);
    assert!(e.contains("cannot merge: 3 of 4 points"), "{e}");
    assert!(
        e.contains("points/001.json was saved by another vodbench build")
            && e.contains("0123456789ab"),
        "{e}"
    );
    assert!(
        e.contains("points/002.json was saved for another scenario (`seed` differs)"),
        "{e}"
    );
    assert!(e.contains("points/003.json is unreadable"), "{e}");
    assert!(!e.contains("points/000.json"), "{e}");
    // nothing was written, and the saved points are still there
    assert!(!d.join("sweep.json").exists());
    // the task run again makes exactly those three again, and the merge succeeds
    let (out, err) = ok(&["sweep", SMALL, "--seeds", "4", "--out", d_, "--task", "0/1"]);
    assert!(out.contains("3 searched, 1 already saved"), "{out}");
    assert!(
        err.contains("point 1 (") && err.contains("searching it again"),
        "{err}"
    );
    ok(&["sweep", SMALL, "--seeds", "4", "--out", d_, "--merge", "-q"]);
}

#[test]
fn a_task_killed_mid_point_leaves_no_partial_file_and_its_rerun_completes() {
    let tmp = tempfile::tempdir().unwrap();
    // sweep_small with longer runs: about a second and a half per point on one thread
    let slow = tmp.path().join("slow.toml");
    let source = std::fs::read_to_string(common::root().join(SMALL)).unwrap();
    let source = source
        .replace("duration = \"30s\"", "duration = \"30min\"")
        .replace("length = \"2min\"", "length = \"40min\"");
    std::fs::write(&slow, source).unwrap();
    let slow_ = slow.to_str().unwrap();
    let d = tmp.path().join("d");
    let d_ = d.to_str().unwrap();
    let args = [
        "sweep",
        slow_,
        "--seeds",
        "4",
        "--threads",
        "1",
        "--out",
        d_,
        "--task",
        "0/1",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .args(args)
        .current_dir(common::root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // kill it by its pid once a point is saved, while it searches the next
    let since = Instant::now();
    let saved = |d: &Path| -> usize {
        std::fs::read_dir(d.join("points"))
            .map(|r| {
                r.flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                    .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                    .count()
            })
            .unwrap_or(0)
    };
    while saved(&d) == 0 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the task finished before it could be killed"
        );
        assert!(since.elapsed() < Duration::from_secs(300), "no point saved");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the task finished before it could be killed"
    );
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-9", &pid])
        .status()
        .unwrap()
        .success());
    child.wait().unwrap();
    let done = saved(&d);
    assert!((1..4).contains(&done), "{done} points saved");
    // every file saved is whole: the merge names the others as missing, none unreadable
    let e = refused(&["sweep", slow_, "--seeds", "4", "--out", d_, "--merge"]);
    assert!(
        e.contains(&format!("cannot merge: {} of 4 points", 4 - done)),
        "{e}"
    );
    assert!(!e.contains("unreadable"), "{e}");
    // the task run again makes only what is missing, and the merge is the one-go sweep
    let (out, _) = ok(&args);
    assert!(
        out.contains(&format!("{} searched, {done} already saved", 4 - done)),
        "{out}"
    );
    ok(&["sweep", slow_, "--seeds", "4", "--out", d_, "--merge", "-q"]);
    let one = tmp.path().join("one");
    ok(&[
        "sweep",
        slow_,
        "--seeds",
        "4",
        "-q",
        "--out",
        one.to_str().unwrap(),
    ]);
    common::assert_same_files(
        &d,
        &one,
        &common::SWEEP_SMALL_FILES,
        "between the resumed tasks and one go",
    );
}

#[test]
fn a_search_in_tasks_merges_into_the_search_made_in_one_go() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, one) = (tmp.path().join("d"), tmp.path().join("one"));
    let d_ = d.to_str().unwrap();
    let limits = ["--seeds", "6", "--threads", "1"];
    let search = |extra: &[&'static str]| -> Vec<&str> {
        let mut a = vec!["search", SEARCH, "--out", d_];
        a.extend_from_slice(&limits);
        a.extend_from_slice(extra);
        a
    };
    let e = refused(&search(&["--merge"]));
    assert!(
        e.contains("none of its replications is saved")
            && e.contains("replications/000.json is missing"),
        "{e}"
    );
    ok(&search(&["--task", "0/2"]));
    // half the replications: not enough for the stopping rule
    let e = refused(&search(&["--merge"]));
    assert!(
        e.contains("only replication 0 is saved")
            && e.contains("replication 1 is not usable")
            && e.contains("replications/001.json is missing"),
        "{e}"
    );
    assert!(!d.join("search.json").exists());
    let (out, _) = ok(&search(&["--task", "1/2"]));
    assert!(
        out.contains("task 1/2: made replications [1, 3, 5]"),
        "{out}"
    );
    ok(&search(&["--merge", "--quiet"]));
    let mut a = vec!["search", SEARCH, "--quiet", "--out", one.to_str().unwrap()];
    a.extend_from_slice(&["--seeds", "6", "--threads", "2"]);
    ok(&a);
    common::assert_same_files(
        &d,
        &one,
        &["search.json", "curve.csv", "report.html"],
        "between the merged and the one-go search",
    );
    // the merged folder keeps the replications, and merges again to the same
    assert!(d.join("replications/005.json").is_file());
    ok(&search(&["--merge", "--quiet"]));
    common::assert_same_files(&d, &one, &["search.json"], "merged twice");
    // other limits: the saved replications are not this search's
    let e = refused(&search(&["--merge", "--max-terminals", "30"]));
    assert!(
        e.contains("with other search limits (max_terminals 10000 there, 30 here)"),
        "{e}"
    );
}

#[test]
fn bad_tasks_are_refused_with_what_is_allowed() {
    let e = refused(&["sweep", SMALL, "--task", "4/4"]);
    assert!(
        e.contains("--task: `4/4`: task 4 is not one of 0..4"),
        "{e}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .args(["search", SEARCH, "--task", "slurm"])
        .current_dir(common::root())
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .unwrap();
    let (_, e) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("SLURM_ARRAY_TASK_ID, which is not set"), "{e}");
    let e = refused(&["sweep", SMALL, "--task", "0/2", "--merge"]);
    assert!(e.contains("cannot be used with"), "{e}");
    let e = refused(&["slurm", SMALL, "--tasks", "5"]);
    assert!(
        e.contains("--tasks 5") && e.contains("only 4 points"),
        "{e}"
    );
    let e = refused(&["slurm", SMALL, "--threads", "2"]);
    assert!(e.contains("--cpus-per-task"), "{e}");
}

#[test]
fn slurm_writes_the_scripts_and_says_how_to_run_them_without_slurm() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("my sweep");
    let (out, _) = ok(&[
        "slurm",
        SMALL,
        "--out",
        d.to_str().unwrap(),
        "--tasks",
        "3",
        "--max-running",
        "2",
        "--partition",
        "short",
        "--time",
        "1:00:00",
        "--cpus-per-task",
        "2",
        "--seeds",
        "5",
    ]);
    assert!(out.contains("4 points shared by 3 tasks"), "{out}");
    assert!(out.contains("sbatch --dependency=afterok:$job"), "{out}");
    assert!(
        out.contains("parallel ") && out.contains("::: $(seq 0 2)"),
        "{out}"
    );
    let scripts = tmp.path().join("my sweep.slurm");
    let tasks = std::fs::read_to_string(scripts.join("tasks.sbatch")).unwrap();
    for line in [
        "#SBATCH --array=0-2%2",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --partition=short",
        "#SBATCH --time=1:00:00",
        "--task slurm/3 --threads 2",
        "--seeds 5 --min-seeds 3",
        "my sweep'",
    ] {
        assert!(tasks.contains(line), "{line}:\n{tasks}");
    }
    let merge = std::fs::read_to_string(scripts.join("merge.sbatch")).unwrap();
    assert!(merge.contains("--merge") && merge.contains("--kill-on-invalid-dep=yes"));
    // nothing is written into the output folder itself
    assert!(!d.exists());
    // the scripts' commands run as they are (here without Slurm: the task index set by hand)
    let exe = env!("CARGO_BIN_EXE_vodbench");
    let task_line = tasks.lines().last().unwrap().to_string();
    assert!(task_line.starts_with(&format!("exec {exe}")), "{task_line}");
    let merge_line = merge.lines().last().unwrap().to_string();
    for i in 0..3 {
        let o = Command::new("bash")
            .args(["-c", &task_line])
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .current_dir(common::root())
            .output()
            .unwrap();
        assert!(o.status.success(), "{:?}", text(&o));
    }
    let o = Command::new("bash")
        .args(["-c", &merge_line])
        .current_dir(common::root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(d.join("sweep.json").is_file());
}

#[test]
fn submitting_without_slurm_says_so_and_keeps_the_scripts() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("s");
    let o = Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .args(["slurm", SMALL, "--tasks", "2", "--submit", "--out"])
        .arg(&d)
        .current_dir(common::root())
        .env("PATH", tmp.path())
        .output()
        .unwrap();
    let (_, e) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("sbatch could not be run") && e.contains("is Slurm's client installed"),
        "{e}"
    );
    // the scripts are there to submit by hand
    assert!(tmp.path().join("s.slurm/tasks.sbatch").is_file());
    assert!(tmp.path().join("s.slurm/merge.sbatch").is_file());
}

#[test]
fn issue49_slurm_refuses_control_characters_and_bad_formats_and_quotes_its_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("runs 2%");
    let dir = d.to_str().unwrap();
    for (flag, value, says) in [
        (
            "--partition",
            "batch\necho OWNED > /tmp/x",
            "control character '\\n'",
        ),
        ("--partition", "batch;id", "expected a partition name"),
        ("--time", "four hours", "expected a Slurm time limit"),
        ("--time", "12:00:00:00", "expected a Slurm time limit"),
        ("--time", "30\r", "control character '\\r'"),
    ] {
        let e = refused(&["slurm", SMALL, "--out", dir, flag, value]);
        assert!(
            e.contains(flag) && e.contains(says),
            "{flag} {value:?}: {e}"
        );
    }
    let bad = tmp.path().join("x\nid");
    let e = refused(&["slurm", SMALL, "--out", bad.to_str().unwrap()]);
    assert!(
        e.contains("--out") && e.contains("control character"),
        "{e}"
    );
    // nothing was written for any of them
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    ok(&[
        "slurm",
        SMALL,
        "--out",
        dir,
        "--time",
        "2-06",
        "--partition",
        "a,b",
    ]);
    let tasks = std::fs::read_to_string(tmp.path().join("runs 2%.slurm/tasks.sbatch")).unwrap();
    let output = format!(
        "#SBATCH --output=\"{}/runs 2%%.slurm/task-%A_%a.out\"\n",
        tmp.path().display()
    );
    assert!(tasks.contains(&output), "{output}\n{tasks}");
    assert!(
        tasks.contains("#SBATCH --time=2-06\n#SBATCH --partition=a,b\n")
            || tasks.contains("#SBATCH --partition=a,b\n#SBATCH --time=2-06\n"),
        "{tasks}"
    );
}

/// Reads the JSON file `p`, lets `edit` change it, writes it back.
fn edit_json(p: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(p, v.to_string()).unwrap();
}

/// `--merge` (and `--resume`) check each saved point against its own simulations and the
/// limits in force (issue 49, item 7): an answer edited past what the simulations show, a
/// simulation's glitches edited, or a wrong `converged` is refused by file, and the
/// untouched points still merge once the tasks made those again.
#[test]
fn issue49_a_merge_checks_each_point_against_its_own_simulations() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    let d_ = d.to_str().unwrap();
    let args = |extra: &[&'static str]| -> Vec<&str> {
        let mut a = vec![
            "sweep",
            SMALL,
            "--seeds",
            "4",
            "--max-terminals",
            "25",
            "--out",
            d_,
        ];
        a.extend_from_slice(extra);
        a
    };
    ok(&args(&["--task", "0/1", "-q"]));
    // point 1: replication 2's answer raised to 640, past the cap of 25 and past every
    // simulation it holds
    edit_json(&d.join("points/001.json"), |v| {
        v["replications"][2]["max_terminals"] = 640.into();
    });
    // point 2: the glitches of replication 0's simulation at its answer (a clean run)
    // edited: its climb would have stopped below
    edit_json(&d.join("points/002.json"), |v| {
        let answer = v["replications"][0]["max_terminals"].as_u64().unwrap();
        let probe = v["probes"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|p| p[0] == 0 && p[2] == answer)
            .unwrap();
        probe[3] = 17.into();
    });
    // point 3: `converged` turned over
    edit_json(&d.join("points/003.json"), |v| {
        let c = v["converged"].as_bool().unwrap();
        v["converged"] = (!c).into();
    });
    let e = refused(&args(&["--merge"]));
    assert!(e.contains("cannot merge: 3 of 4 points"), "{e}");
    assert!(
        e.contains("points/001.json does not hold what its search makes (replication 2 says 640 terminals, but its own simulations give"),
        "{e}"
    );
    assert!(e.contains("under --max-terminals 25"), "{e}");
    assert!(
        e.contains("points/002.json does not hold what its search makes (replication 0"),
        "{e}"
    );
    assert!(
        e.contains("points/003.json does not hold what its search makes (it says "),
        "{e}"
    );
    assert!(!e.contains("points/000.json"), "{e}");
    assert!(!d.join("sweep.json").exists());
    // the task run again searches exactly those three again; the merge succeeds
    let (out, _) = ok(&args(&["--task", "0/1"]));
    assert!(out.contains("3 searched, 1 already saved"), "{out}");
    ok(&args(&["--merge", "-q"]));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("sweep.json")).unwrap()).unwrap();
    for p in json["points"].as_array().unwrap() {
        assert!(p["max_terminals"].as_u64().unwrap() <= 25, "{p}");
    }
}

/// The same for `vodbench search --merge` and its replication files (issue 49, item 7).
#[test]
fn issue49_a_search_merge_checks_each_replication_against_its_simulations() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d");
    let d_ = d.to_str().unwrap();
    let search = |extra: &[&'static str]| -> Vec<&str> {
        let mut a = vec![
            "search",
            SEARCH,
            "--out",
            d_,
            "--seeds",
            "4",
            "--threads",
            "1",
        ];
        a.extend_from_slice(extra);
        a
    };
    ok(&search(&["--task", "0/1", "-q"]));
    edit_json(&d.join("replications/001.json"), |v| {
        v["replication"]["max_terminals"] = 4321.into();
    });
    let e = refused(&search(&["--merge"]));
    assert!(
        e.contains("replication 1 is not usable")
            && e.contains("replications/001.json does not hold what its search makes (replication 1 says 4321 terminals"),
        "{e}"
    );
    assert!(!d.join("search.json").exists());
}
