//! Issue 37: a folder is vodbench's only by its mark. A user's folder — whatever names it
//! holds, `points/`, `summary.json` and `manifest.json` among them — survives every command
//! that writes, untouched, and the error names the folder and its foreign files; `rerun` never
//! writes over the folder it checks and names every recorded input that differs; a sweep's
//! checkpoints are not reused once a file it reads has changed; stale staging folders go.

mod common;

use common::{root, text, vodbench, vodbench_env};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every entry below `dir` (hidden ones too), with the bytes of each file: what must survive.
fn tree(dir: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(base).unwrap().display().to_string();
            if p.is_dir() {
                out.insert(rel, None);
                walk(base, &p, out);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// A saved run of `tests/fixtures/tiny.toml` in `dir`.
fn run_tiny(dir: &Path) {
    let out = vodbench(&[
        "run",
        "tests/fixtures/tiny.toml",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{:?}", text(&out));
}

/// Every command that writes a folder, each aimed at `target`; `run` is a saved run to read
/// from (the baseline `b` is saved into a store whose `b/tiny` is `target`).
fn writers(target: &Path, run: &Path) -> Vec<Vec<String>> {
    let t = target.to_str().unwrap().to_string();
    let r = run.to_str().unwrap().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&["run", "tests/fixtures/tiny.toml", "--quiet", "--out", &t]),
        s(&[
            "run",
            "tests/fixtures/broadcast-tiny.toml",
            "--quiet",
            "--out",
            &t,
        ]),
        s(&[
            "search",
            "tests/fixtures/search_small.toml",
            "--quiet",
            "--out",
            &t,
        ]),
        s(&[
            "sweep",
            "tests/fixtures/sweep_small.toml",
            "--quiet",
            "--out",
            &t,
        ]),
        s(&[
            "sweep",
            "tests/fixtures/sweep_small.toml",
            "--quiet",
            "--resume",
            "--out",
            &t,
        ]),
        s(&["export", &r, "--format", "csv", "--out", &t]),
        s(&["export", &r, "--format", "json", "--out", &t]),
        s(&[
            "compare",
            &r,
            "tests/fixtures/tiny.toml",
            "--quiet",
            "--out",
            &t,
        ]),
        s(&["rerun", &r, "--quiet", "--out", &t]),
        s(&[
            "run",
            "tests/fixtures/tiny.toml",
            "--quiet",
            "--out",
            &format!("{r}-for-baseline"),
            "--save-baseline",
            "b",
        ]),
    ]
}

/// Runs every writing command against `target` (a folder vodbench did not write) and checks
/// each is refused with exit 2, naming the folder and `named` (some of its foreign files), and
/// leaves it exactly as it was.
fn every_writer_refuses(target: &Path, run: &Path, store: &Path, named: &[String]) {
    let before = tree(target);
    for args in writers(target, run) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = vodbench_env(&args, &[("VODBENCH_BASELINES", store)]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: exists and is not a vodbench output folder",
                target.display()
            )),
            "{args:?}: {stderr}"
        );
        for n in named {
            assert!(stderr.contains(n.as_str()), "{args:?} names {n}: {stderr}");
        }
        assert_eq!(tree(target), before, "{args:?} changed the folder");
    }
}

/// Runs `args`, which must be refused with exit 2 saying `says`.
fn refused_saying(args: &[&str], says: &str) {
    let o = vodbench(args);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.contains(says),
        "{args:?}: `{says}` missing from: {stderr}"
    );
}

/// A command replaces only a folder it wrote itself: a sweep's folder survives every other
/// command that writes a folder, `report --out` among them, each refused with exit 2 naming
/// the command that wrote it; `sweep` itself still resumes it.
#[test]
fn another_commands_output_folder_survives_every_other_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_tiny(&run);
    let store = tmp.path().join("store");
    let sweep = store.join("b").join("tiny");
    let (sw, r) = (sweep.to_str().unwrap(), run.to_str().unwrap());
    let o = vodbench(&[
        "sweep",
        "tests/fixtures/sweep_small.toml",
        "-q",
        "--out",
        sw,
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let before = tree(&sweep);
    let mut all = writers(&sweep, &run);
    all.retain(|a| a[0] != "sweep");
    all.push(vec!["report".into(), r.into(), "--out".into(), sw.into()]);
    for args in all {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = vodbench_env(&args, &[("VODBENCH_BASELINES", &store)]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{sw}: holds the output of `vodbench sweep`")),
            "{args:?}: {stderr}"
        );
        assert_eq!(tree(&sweep), before, "{args:?} changed the folder");
    }
    // rerun reproduces single runs: a sweep's manifest is refused before any work
    refused_saying(
        &["rerun", sw, "-q"],
        "the manifest of a sweep (kind `sweep`)",
    );
    assert_eq!(tree(&sweep), before, "rerun changed the folder");
    let o = vodbench(&[
        "sweep",
        "tests/fixtures/sweep_small.toml",
        "-q",
        "--resume",
        "--out",
        sw,
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    // a run's folder is not replaced by the report of another run either
    let other = tmp.path().join("other");
    run_tiny(&other);
    refused_saying(
        &["report", r, "--out", other.to_str().unwrap()],
        "holds the output of `vodbench run`",
    );
    assert!(other.join("summary.json").is_file());
    // a comparison's folder where a run is expected is named for what it is
    let cmp = tmp.path().join("cmp");
    let (o_, c_) = (other.to_str().unwrap(), cmp.to_str().unwrap());
    let o = vodbench(&["compare", r, o_, "-q", "--out", c_]);
    assert!(o.status.success(), "{:?}", text(&o));
    let again = tmp.path().join("again");
    refused_saying(
        &["compare", r, c_, "-q", "--out", again.to_str().unwrap()],
        "the output of `vodbench compare`, not a run",
    );
    // flags for scenario inputs are refused, not ignored, when every input is a folder
    for flag in [["--terminals", "99"], ["--replications", "3"]] {
        let x = tmp.path().join("x");
        let mut args = vec!["compare", r, o_, "-q", "--out", x.to_str().unwrap()];
        args.extend(flag);
        refused_saying(&args, &format!("{} applies to scenario inputs", flag[0]));
        assert!(!x.exists());
    }
    // and sweep-table says what it takes
    refused_saying(&["sweep-table", r], "holds no sweep.json");
}

/// Issue 49, item 3: while one command writes an output (here this test holds its lock, as
/// a running command does), every other command that would write it — `--task` runs
/// included — is refused at once, exit 2, naming it, and leaves it as it was; once the first
/// lets go, the next one writes it, and no lock file is left behind.
#[test]
fn issue49_a_second_writer_of_one_output_is_refused_while_the_first_writes() {
    use vodbench_harness::output::{lock_output, Claim};
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_tiny(&run);
    let store = tmp.path().join("store");
    let busy = store.join("b").join("tiny");
    run_tiny(&busy);
    let before = tree(&busy);
    let lock = lock_output(&busy, Claim::Exclusive).unwrap();
    let t = busy.to_str().unwrap();
    let mut all = writers(&busy, &run);
    all.push(
        [
            "sweep",
            "tests/fixtures/sweep_small.toml",
            "--quiet",
            "--task",
            "1/4",
            "--out",
            t,
        ]
        .map(String::from)
        .to_vec(),
    );
    for args in all {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = vodbench_env(&args, &[("VODBENCH_BASELINES", &store)]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{t}: is being written by another vodbench command right now"
            )),
            "{args:?}: {stderr}"
        );
        assert_eq!(tree(&busy), before, "{args:?} changed the folder");
    }
    // a file output (a generated trace) the same way
    let trace = tmp.path().join("z.trace");
    let held = lock_output(&trace, Claim::Exclusive).unwrap();
    let o = vodbench(&[
        "trace",
        "zipf",
        "--scenario",
        "tests/fixtures/tiny.toml",
        "--out",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(!trace.exists());
    drop(held);
    drop(lock);
    run_tiny(&busy);
    let leftovers: Vec<String> = std::fs::read_dir(store.join("b"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(leftovers, ["tiny"], "no lock file is left");
}

/// The issue's own case: a GIS project holding `points/`, and other names vodbench writes.
#[test]
fn issue37_a_users_folder_of_any_names_survives_every_writing_command() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_tiny(&run);
    let store = tmp.path().join("store");
    let gis = store.join("b").join("tiny");
    std::fs::create_dir_all(gis.join("points")).unwrap();
    std::fs::write(gis.join("points/cities.csv"), "x\n").unwrap();
    std::fs::write(gis.join("thesis.tex"), "t\n").unwrap();
    std::fs::write(gis.join("summary.json"), "{}\n").unwrap();
    std::fs::write(gis.join("manifest.json"), "{}\n").unwrap();
    every_writer_refuses(
        &gis,
        &run,
        &store,
        &["points/cities.csv".into(), "thesis.tex".into()],
    );
}

/// A folder vodbench wrote whose files were since edited, or beside which the user put a
/// file, is no longer vodbench's to replace; the error says which file and how.
#[test]
fn issue37_an_edited_output_folder_is_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_tiny(&run);
    let store = tmp.path().join("store");
    let mine = store.join("b").join("tiny");
    run_tiny(&mine);
    let summary = mine.join("summary.json");
    let edited = std::fs::read_to_string(&summary)
        .unwrap()
        .replacen('1', "7", 1);
    std::fs::write(&summary, edited).unwrap();
    std::fs::write(mine.join("notes.md"), "mine").unwrap();
    every_writer_refuses(
        &mine,
        &run,
        &store,
        &[
            "notes.md".into(),
            "summary.json (changed since vodbench wrote it)".into(),
        ],
    );
    // as it was written, it is vodbench's again: the next run replaces it
    std::fs::remove_file(mine.join("notes.md")).unwrap();
    run_tiny(&run.with_file_name("fresh"));
    std::fs::copy(
        run.with_file_name("fresh").join("summary.json"),
        mine.join("summary.json"),
    )
    .unwrap();
    run_tiny(&mine);
}

/// A name from those vodbench writes, or any other.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("manifest.json".to_string()),
        Just("summary.json".to_string()),
        Just("points".to_string()),
        Just("report.html".to_string()),
        Just("runs".to_string()),
        Just("export-csv".to_string()),
        Just("000.json".to_string()),
        Just(".vodbench-folder.json".to_string()),
        "[a-z]{1,8}(\\.[a-z]{1,4})?",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// Any folder without vodbench's mark that holds a file survives every writing command,
    /// byte for byte.
    #[test]
    fn issue37_any_unmarked_folder_survives_every_writing_command(
        files in proptest::collection::btree_map(
            proptest::collection::vec(name(), 1..4),
            "[ -~]{0,40}",
            1..6,
        )
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        let target = store.join("b").join("tiny");
        std::fs::create_dir_all(&target).unwrap();
        for (parts, contents) in &files {
            let path = target.join(parts.join("/"));
            if std::fs::create_dir_all(path.parent().unwrap()).is_ok() && !path.is_dir() {
                let _ = std::fs::write(&path, contents);
            }
        }
        prop_assume!(tree(&target).values().any(Option::is_some));
        let run = tmp.path().join("run");
        run_tiny(&run);
        every_writer_refuses(&target, &run, &store, &[]);
    }
}

/// The issue's false "reproduced": a copy with an edited result, rerun into itself.
#[test]
fn issue37_rerun_never_writes_over_the_folder_it_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_tiny(&run);
    let copy = tmp.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    for (name, bytes) in tree(&run) {
        std::fs::write(copy.join(name), bytes.unwrap()).unwrap();
    }
    let summary = copy.join("summary.json");
    let edited = std::fs::read_to_string(&summary)
        .unwrap()
        .replacen('1', "7", 1);
    std::fs::write(&summary, &edited).unwrap();
    for out in [copy.clone(), copy.join("inside"), tmp.path().to_path_buf()] {
        let o = vodbench(&[
            "rerun",
            copy.join("manifest.json").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
        assert!(!stdout.contains("reproduced"), "{stdout}");
        assert!(
            stderr.contains("never writes over the run it compares with"),
            "{stderr}"
        );
        assert_eq!(std::fs::read_to_string(&summary).unwrap(), edited);
    }
    // elsewhere, the edit is found
    let o = vodbench(&["rerun", copy.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    assert!(
        text(&o).1.contains("differs in: summary.json"),
        "{:?}",
        text(&o)
    );
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), edited);
}

/// Edits to the manifest's top-level inputs are named, and nothing is run.
#[test]
fn issue37_rerun_names_every_recorded_input_that_differs() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_tiny(&run);
    let path = run.join("manifest.json");
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut m = original.clone();
    m["seed"] = 7.into();
    m["vodbench_version"] = "0.0.1".into();
    m["plugins"]["disk.scheduler"]["name"] = "fcfs".into();
    m["terminals"] = 99.into();
    std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    let again = tmp.path().join("again");
    let o = vodbench(&[
        "rerun",
        path.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    for what in [
        "seed: the manifest says 7, the rerun would use 42",
        "vodbench_version: the manifest says `0.0.1`",
        "plugins.disk.scheduler",
        "terminals: the manifest says 99, the rerun would use 12",
        "in 4:",
    ] {
        assert!(stderr.contains(what), "{what}: {stderr}");
    }
    assert!(!again.exists(), "nothing was run");
}

/// A scenario whose disk comes from DiskSim files copied into `dir` (the barracuda's
/// `.parv`, which names the `.diskspecs`, `.model`, `.seek` and `statdefs` files).
fn disk_files_scenario(dir: &Path, base: &str) -> PathBuf {
    for f in [
        "barracuda.parv",
        "barracuda.diskspecs",
        "barracuda.model",
        "barracuda.seek",
        "statdefs",
    ] {
        std::fs::copy(root().join("plugins/disks").join(f), dir.join(f)).unwrap();
    }
    let text = std::fs::read_to_string(root().join("tests/fixtures").join(base))
        .unwrap()
        .replace(
            "name = \"analytic\"\nspec = \"st15150n\"",
            "name = \"mechanical\"\nspec = \"barracuda.parv\"",
        );
    assert!(text.contains("barracuda.parv"));
    let path = dir.join(base);
    std::fs::write(&path, text).unwrap();
    path
}

/// A disk file changed since the run (here a file the `.parv` includes, not the file the
/// scenario names) is named by rerun and recorded by the manifest.
#[test]
fn issue37_rerun_checks_the_disk_files_a_run_read() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = disk_files_scenario(tmp.path(), "tiny.toml");
    let run = tmp.path().join("run");
    let o = vodbench(&[
        "run",
        scenario.to_str().unwrap(),
        "--quiet",
        "--out",
        run.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    let files = m["input_files"].as_object().expect("input_files recorded");
    for f in ["barracuda.parv", "barracuda.seek", "barracuda.model"] {
        assert_eq!(files[f].as_str().unwrap().len(), 64, "{f}: {files:?}");
    }
    let seek = tmp.path().join("barracuda.seek");
    let mut text_seek = std::fs::read_to_string(&seek).unwrap();
    text_seek.push('\n');
    std::fs::write(&seek, text_seek).unwrap();
    let o = vodbench(&["rerun", run.to_str().unwrap(), "--quiet"]);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("input_files.barracuda.seek"), "{stderr}");
    // a run made from the scenario's folder, with a relative path, rerun from elsewhere: its
    // files are looked for beside a scenario that is not there, and the error says why
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .current_dir(tmp.path())
        .args(["run", "tiny.toml", "--quiet", "--out", "rel"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{:?}", text(&o));
    let rel = tmp.path().join("rel");
    let o = vodbench(&["rerun", rel.to_str().unwrap(), "--quiet"]);
    let (_, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("records the scenario file as tiny.toml, relative to the folder the run"),
        "{stderr}"
    );
}

/// `sweep --resume` does not take a point saved before a disk file it reads changed.
#[test]
fn issue37_resume_does_not_reuse_points_of_a_changed_disk_file() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = disk_files_scenario(tmp.path(), "sweep_small.toml");
    let out = tmp.path().join("sweep");
    let sweep = |resume: bool| {
        let mut args = vec![
            "sweep",
            scenario.to_str().unwrap(),
            "--points",
            "0",
            "--seeds",
            "3",
            "--stop-at-glitch",
            "--out",
            out.to_str().unwrap(),
        ];
        if resume {
            args.push("--resume");
        }
        let o = vodbench(&args);
        assert!(o.status.success(), "{:?}", text(&o));
        text(&o).1
    };
    sweep(false);
    let stderr = sweep(true);
    assert!(
        stderr.contains("1 of 1 points already searched"),
        "{stderr}"
    );
    let model = tmp.path().join("barracuda.model");
    let changed = std::fs::read_to_string(&model).unwrap() + "\n# changed\n";
    std::fs::write(&model, changed).unwrap();
    let stderr = sweep(true);
    assert!(
        stderr.contains("0 of 1 points already searched"),
        "{stderr}"
    );
    assert!(stderr.contains("other input files"), "{stderr}");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert!(m["input_files"]["barracuda.model"].is_string(), "{m}");
    assert!(m["build"].is_string(), "{m}");
}

/// A staging folder left by a process that died is removed by the next write beside it; a
/// look-alike folder of the user's is not.
#[test]
fn issue37_stale_staging_folders_of_dead_processes_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_tiny(&run);
    // a staging folder as a killed run leaves it: its mark says it is one
    let stale = tmp.path().join(".run.partial-99999999");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(
        stale.join(vodbench_harness::ownership::MARK),
        "{\"format\": \"vodbench-folder/1\", \"staging\": 99999999}",
    )
    .unwrap();
    std::fs::write(stale.join("big.parquet"), vec![0u8; 4096]).unwrap();
    let lookalike = tmp.path().join(".run.partial-99999998");
    std::fs::create_dir(&lookalike).unwrap();
    std::fs::write(lookalike.join("thesis.tex"), "t").unwrap();
    run_tiny(&run);
    assert!(!stale.exists());
    assert!(lookalike.join("thesis.tex").exists());
    // an export is published whole: no staging folder stays beside it
    let o = vodbench(&["export", run.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let names: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
    assert!(run.join("export-json/export.json").is_file());
    // the run folder holding its export is still vodbench's: the next run replaces it
    run_tiny(&run);
}

/// A generated trace never overwrites a file of the user's; it replaces a trace vodbench
/// wrote.
#[test]
fn issue37_a_trace_is_never_written_over_a_users_file() {
    let tmp = tempfile::tempdir().unwrap();
    let mine = tmp.path().join("thesis.tex");
    std::fs::write(&mine, "t\n").unwrap();
    let zipf = |out: &Path| {
        vodbench(&[
            "trace",
            "zipf",
            "--scenario",
            "tests/fixtures/tiny.toml",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = zipf(&mine);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(
        text(&o)
            .1
            .contains("exists and is not a trace vodbench wrote"),
        "{:?}",
        text(&o)
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "t\n");
    let trace = tmp.path().join("w.trace");
    for _ in 0..2 {
        let o = zipf(&trace);
        assert!(o.status.success(), "{:?}", text(&o));
    }
    // a trace of the user's begins with the same header as one vodbench wrote: only the
    // mark beside a generated trace tells them apart
    let hand = tmp.path().join("hand.trace");
    let mine = "# vodbench-trace v1\n0.5 0 start 1 0\n";
    std::fs::write(&hand, mine).unwrap();
    let o = zipf(&hand);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(text(&o)
        .1
        .contains("exists and is not a trace vodbench wrote"));
    assert_eq!(std::fs::read_to_string(&hand).unwrap(), mine);
    // a generated trace edited since is the user's now
    let mut edited = std::fs::read_to_string(&trace).unwrap();
    edited.push_str("# my note\n");
    std::fs::write(&trace, &edited).unwrap();
    let o = zipf(&trace);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), edited);
}
