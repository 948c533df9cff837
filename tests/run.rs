//! `vodbench run` end to end: outputs, determinism, trace replay, listings.

mod common;
use common::{folder, text, vodbench};

fn run_to(dir: &std::path::Path, scenario: &str, extra: &[&str]) {
    let mut args = vec!["run", scenario, "--quiet", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = vodbench(&args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
}

#[test]
fn issue2_run_writes_every_output_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiny");
    run_to(&dir, "tests/fixtures/tiny.toml", &[]);
    let names: Vec<String> = folder(&dir).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "disks.csv",
            "disks.parquet",
            "manifest.json",
            "nodes.csv",
            "nodes.parquet",
            "report.html",
            "requests.csv",
            "requests.parquet",
            "summary.json",
            "terminals.csv",
            "terminals.parquet",
            "timeseries.csv",
            "timeseries.parquet"
        ]
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["terminals"], 12);
    assert_eq!(summary["disks"]["count"], 2);
    assert!(summary["measured_ns"].as_u64().unwrap() > 0);
    let disks = std::fs::read_to_string(dir.join("disks.csv")).unwrap();
    assert!(disks.starts_with("disk,node,utilization_ratio,"), "{disks}");
    assert_eq!(disks.lines().count(), 3, "header + one row per disk");
    let terminals = std::fs::read_to_string(dir.join("terminals.csv")).unwrap();
    assert_eq!(terminals.lines().count(), 13);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["seed"], 42);
    assert_eq!(manifest["plugins"]["disk.scheduler"]["name"], "elevator");
    assert_eq!(manifest["resolved_scenario"]["server"]["stripe"], "256KiB");
}

#[test]
fn issue2_same_scenario_and_seed_give_byte_identical_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    run_to(&a, "tests/fixtures/tiny.toml", &[]);
    run_to(&b, "tests/fixtures/tiny.toml", &[]);
    assert_eq!(folder(&a), folder(&b));
    // and a different seed gives different results
    let c = tmp.path().join("c");
    run_to(&c, "tests/fixtures/tiny.toml", &["--seed", "43"]);
    assert_ne!(
        std::fs::read(a.join("summary.json")).unwrap(),
        std::fs::read(c.join("summary.json")).unwrap()
    );
}

#[test]
fn issue2_replaying_the_generated_trace_gives_identical_results() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("tiny.trace");
    let out = vodbench(&[
        "trace",
        "zipf",
        "--scenario",
        "tests/fixtures/tiny.toml",
        "--out",
        trace.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{:?}", text(&out));
    // the same scenario, with the workload read back from the file
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let head = original.split("[workload.generate]").next().unwrap();
    let replay = format!("{head}[workload]\ntrace = \"{}\"\n", trace.display());
    let scenario = tmp.path().join("tiny.toml");
    std::fs::write(&scenario, replay).unwrap();
    let gen_dir = tmp.path().join("gen");
    let rep_dir = tmp.path().join("rep");
    run_to(&gen_dir, "tests/fixtures/tiny.toml", &[]);
    run_to(&rep_dir, scenario.to_str().unwrap(), &[]);
    common::assert_same_files(
        &gen_dir,
        &rep_dir,
        &[
            "summary.json",
            "disks.csv",
            "nodes.csv",
            "terminals.csv",
            "timeseries.csv",
            "requests.csv",
        ],
        "between generator and replay",
    );
    let m1: serde_json::Value =
        serde_json::from_slice(&std::fs::read(gen_dir.join("manifest.json")).unwrap()).unwrap();
    let m2: serde_json::Value =
        serde_json::from_slice(&std::fs::read(rep_dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m1["workload"]["fingerprint"], m2["workload"]["fingerprint"]);
}

#[test]
fn issue2_terminals_override_changes_the_load() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t");
    run_to(&dir, "tests/fixtures/tiny.toml", &["--terminals", "3"]);
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(s["terminals"], 3);
}

#[test]
fn issue2_summary_table_is_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = vodbench(&[
        "run",
        "tests/fixtures/tiny.toml",
        "--out",
        tmp.path().join("x").to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    for row in [
        "glitches",
        "disk utilization",
        "I/O time",
        "buffer pool",
        "terminal buffer",
        "wall time",
    ] {
        assert!(stdout.contains(row), "missing `{row}` in\n{stdout}");
    }
}

#[test]
fn issue2_plugins_and_schema_list_every_builtin() {
    let out = vodbench(&["plugins"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    for name in [
        "analytic",
        "fcfs",
        "elevator",
        "global-lru",
        "none",
        "standard",
        "striped",
        "non-striped",
    ] {
        assert!(stdout.contains(name), "`{name}` missing from\n{stdout}");
    }
    assert!(
        stdout.contains("processes"),
        "parameters are listed:\n{stdout}"
    );
    let out = vodbench(&["schema"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    let schema: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(schema["properties"]["server"].is_object());
    let names: Vec<String> = schema["properties"]["buffer_pool"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v["properties"]["name"]["const"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(names.contains(&"global-lru".to_string()), "{names:?}");
}

/// `vodbench bench` (issue 4's speed benchmark) says how much simulated time each run covers
/// and how many times faster than real time that is: the simulated seconds are the run's own
/// (`summary.json`'s `simulated_ns`), and the factor is them over the wall time printed.
#[test]
fn issue4_bench_reports_simulated_time_and_real_time_factor() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiny");
    run_to(&dir, "tests/fixtures/tiny.toml", &[]);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let simulated_s = summary["simulated_ns"].as_u64().unwrap() as f64 / 1e9;

    let out = vodbench(&["bench", "tests/fixtures/tiny.toml", "--repeat", "2"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    let runs: Vec<&str> = stdout.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(runs.len(), 2, "{stdout}");
    for line in runs {
        // run   1: 0.0025 s, 7.46M events/s, 139 s simulated, 56327x real time
        let field = |after: &str, before: &str| -> f64 {
            let rest = &line[line.find(after).unwrap() + after.len()..];
            rest[..rest.find(before).unwrap()].trim().parse().unwrap()
        };
        let wall = field(":", " s,");
        let sim = field("events/s,", " s simulated");
        let factor = field("simulated,", "x real time");
        assert_eq!(sim, simulated_s.round(), "{line}");
        // the wall time is printed to 0.1 ms: the factor agrees with it to that precision
        let (lo, hi) = (
            simulated_s / (wall + 0.00005),
            simulated_s / (wall - 0.00005).max(1e-9),
        );
        assert!(
            factor >= lo.floor() && factor <= hi.ceil(),
            "{line}: {factor} not in {lo}..{hi}"
        );
    }
    let last = stdout.lines().last().unwrap();
    assert!(
        last.contains(&format!("{:.0} s simulated per run", simulated_s))
            && last.contains("x real time at the best")
            && last.contains("at the median"),
        "{stdout}"
    );
}

/// Issue 30, item 4 (the workload half): `popularity = "hotspot"` sends `fraction` of the
/// starts to video 0 and each other start to a video of its own; the run's terminals table
/// shows it, and a hotspot without its fraction is refused at the key.
#[test]
fn issue30_a_hotspot_workload_runs_and_needs_its_fraction() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let hot = |table: &str| {
        let text = base
            .replace("count = 8\n", "count = 64\n")
            .replace("popularity = \"zipf\"\nz = 1.0\n", table);
        let path = tmp.path().join("hot.toml");
        std::fs::write(&path, text).unwrap();
        path
    };
    let ok = hot("popularity = \"hotspot\"\nfraction = 0.5\n");
    let dir = tmp.path().join("out");
    run_to(&dir, ok.to_str().unwrap(), &[]);
    // the same workload as a trace: half the starts (of about 24) to video 0, the others each
    // to a video of its own
    let o = vodbench(&["trace", "zipf", "--scenario", ok.to_str().unwrap()]);
    let (trace, e) = text(&o);
    assert!(o.status.success(), "{e}");
    let starts: Vec<u32> = trace
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.get(2) == Some(&"start")).then(|| f[3].parse().unwrap())
        })
        .collect();
    let to_0 = starts.iter().filter(|&&v| v == 0).count();
    assert!(
        starts.len() >= 12 && to_0 > 0 && to_0 < starts.len(),
        "{starts:?}"
    );
    let mut others: Vec<u32> = starts.iter().copied().filter(|&v| v != 0).collect();
    let n = others.len();
    others.dedup();
    assert_eq!(others.len(), n, "each its own video: {starts:?}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert!(
        summary["disks"]["requests"].as_u64().unwrap() > 0,
        "{summary}"
    );
    let bad = hot("popularity = \"hotspot\"\n");
    let o = vodbench(&["check", bad.to_str().unwrap()]);
    let e = text(&o).1;
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("workload.generate.fraction") && e.contains("needs the share"),
        "{e}"
    );
}

/// `--threads` sets how many points of a sweep, or receivers of a broadcast run, run at once;
/// the outputs are the same for any number.
#[test]
fn run_threads_change_nothing_but_the_speed() {
    let tmp = tempfile::tempdir().unwrap();
    for file in [
        "tests/fixtures/sweep_small.toml",
        "tests/fixtures/broadcast-tiny.toml",
    ] {
        let (one, three) = (tmp.path().join("one"), tmp.path().join("three"));
        run_to(&one, file, &["--threads", "1"]);
        run_to(&three, file, &["--threads", "3"]);
        // every file below the folder, but those that record the host or the wall time (the
        // manifests, the reports, and the marks that hold their checksums)
        fn files(d: &std::path::Path, rel: &str, out: &mut Vec<(String, Vec<u8>)>) {
            let mut entries: Vec<_> = std::fs::read_dir(d).unwrap().flatten().collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let name = format!("{rel}{}", e.file_name().to_string_lossy());
                if e.path().is_dir() {
                    files(&e.path(), &format!("{name}/"), out);
                } else if !["manifest.json", "report.html", ".vodbench-folder.json"]
                    .iter()
                    .any(|n| name.ends_with(n))
                {
                    out.push((name, std::fs::read(e.path()).unwrap()));
                }
            }
        }
        let files = |d: &std::path::Path| {
            let mut out = Vec::new();
            files(d, "", &mut out);
            assert!(out.len() >= 2, "{}", d.display());
            out
        };
        assert_eq!(files(&one), files(&three), "{file}");
        std::fs::remove_dir_all(&one).unwrap();
        std::fs::remove_dir_all(&three).unwrap();
    }
    let o = vodbench(&["run", "tests/fixtures/tiny.toml", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2));
}
