//! On-demand sweeps (issue 4 items 6–7): `[sweep]` expansion and its errors through
//! `vodbench check`, `vodbench run` of a sweep, and `vodbench sweep` (a max-terminal search
//! per point) — pinned with insta and identical on one and two threads.

mod common;
use common::{root, text, vodbench};
use std::path::Path;

const SMALL: &str = "tests/fixtures/sweep_small.toml";
const SCALEUP: &str = "tests/fixtures/scaleup_small.toml";

/// `vodbench check` of the fixture with `edit` applied to its text: (success, stdout+stderr).
fn check_edited(edit: impl Fn(String) -> String) -> (bool, String) {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("s.toml");
    let text0 = std::fs::read_to_string(root().join(SMALL)).unwrap();
    std::fs::write(&p, edit(text0)).unwrap();
    let out = vodbench(&["check", p.to_str().unwrap()]);
    let (o, e) = text(&out);
    (out.status.success(), format!("{o}{e}"))
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn check_lists_every_point_of_a_sweep() {
    let out = vodbench(&["check", SMALL]);
    let (o, e) = text(&out);
    assert!(out.status.success(), "{o}{e}");
    assert!(
        o.contains("sweep over scheduler × server.stripe, 4 points"),
        "{o}"
    );
    for (i, label) in [
        "elevator / 128KiB",
        "elevator / 256KiB",
        "real-time 3×4 s / 128KiB",
        "real-time 3×4 s / 256KiB",
    ]
    .iter()
    .enumerate()
    {
        assert!(o.contains(&format!("{i:>3}  {label}: 12 terminals")), "{o}");
    }
}

#[test]
fn sweep_errors_name_the_sweep_key_and_its_line() {
    let src = std::fs::read_to_string(root().join(SMALL)).unwrap();
    // a bad value in a key axis: the point and the line of the sweep key
    let (ok, msg) = check_edited(|t| t.replace("\"128KiB\", \"256KiB\"", "\"1KiB\", \"256KiB\""));
    assert!(!ok);
    let line = line_of(&src, "\"server.stripe\" = [");
    assert!(msg.contains(&format!("s.toml:{line}:")), "{msg}");
    assert!(msg.contains("server.stripe"), "{msg}");
    assert!(
        msg.contains("sweep point (scheduler = \"elevator\", server.stripe = \"1KiB\")"),
        "{msg}"
    );
    // a bad plugin parameter in a series entry: the line of that entry's key
    let (ok, msg) = check_edited(|t| t.replace("classes = 3", "classes = 0"));
    assert!(!ok);
    let line = line_of(&src, "classes = 3");
    assert!(msg.contains(&format!("s.toml:{line}:")), "{msg}");
    assert!(msg.contains("disk.scheduler.classes"), "{msg}");
    assert!(msg.contains("scheduler = \"real-time 3×4 s\""), "{msg}");
    // an unknown scenario key swept, in a series entry and in a key axis
    let (ok, msg) = check_edited(|t| t.replace("prefetcher = {", "prefetch = {"));
    assert!(!ok);
    assert!(msg.contains("unknown key"), "{msg}");
    assert!(msg.contains("`prefetch`"), "{msg}");
    let line = line_of(&src, "prefetcher = {");
    assert!(msg.contains(&format!("s.toml:{line}:")), "{msg}");
    let (ok, msg) = check_edited(|t| {
        t.replace("\"server.stripe\" = [", "\"server.strip\" = [")
            .replace(", \"server.stripe\" = \"256KiB\"", "")
    });
    assert!(!ok);
    assert!(msg.contains("unknown key"), "{msg}");
    assert!(msg.contains("server.strip"), "{msg}");
    assert!(
        msg.contains(&format!(
            "s.toml:{}:",
            line_of(&src, "\"server.stripe\" = [")
        )),
        "{msg}"
    );
    // a series entry without a label
    let (ok, msg) = check_edited(|t| t.replace("label = \"elevator\"\n", ""));
    assert!(!ok);
    assert!(msg.contains("sweep.series.scheduler.0.label"), "{msg}");
    assert!(msg.contains("label"), "{msg}");
    // a published value for no point
    let (ok, msg) = check_edited(|t| {
        t.replace(
            "\"server.stripe\" = \"256KiB\" }",
            "\"server.stripe\" = \"2MiB\" }",
        )
    });
    assert!(!ok);
    assert!(msg.contains("sweep.paper.0.at.server.stripe"), "{msg}");
    assert!(msg.contains("its values: \"128KiB\", \"256KiB\""), "{msg}");
    // an empty list
    let (ok, msg) = check_edited(|t| t.replace("[\"128KiB\", \"256KiB\"]", "[]"));
    assert!(!ok);
    assert!(msg.contains("non-empty list"), "{msg}");
    // commands that take one configuration say why they refuse a sweep
    let out = vodbench(&["search", SMALL]);
    let (o, e) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{o}{e}");
    assert!(e.contains("a [sweep] makes this file a grid"), "{e}");
}

#[test]
fn run_of_a_sweep_runs_every_point() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("o");
    let out = vodbench(&["run", SMALL, "--out", dir.to_str().unwrap()]);
    let (o, e) = text(&out);
    assert!(out.status.success(), "{o}{e}");
    assert!(o.contains("scenario sweep-small (4 points)"), "{o}");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["sweep"],
        serde_json::json!(["scheduler", "server.stripe"])
    );
    let points = summary["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    assert_eq!(points[3]["values"]["scheduler"], "real-time 3×4 s");
    assert_eq!(points[1]["paper"]["max_terminals"], 18.0);
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5);
    assert!(
        csv.starts_with("point,scheduler,server.stripe,terminals,glitches"),
        "{csv}"
    );
    // one complete run folder per point, agreeing with the combined summary
    let mut subs: Vec<String> = std::fs::read_dir(dir.join("points"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    subs.sort();
    assert_eq!(
        subs,
        [
            "000-elevator-128kib",
            "001-elevator-256kib",
            "002-real-time-3-4-s-128kib",
            "003-real-time-3-4-s-256kib"
        ]
    );
    for (i, s) in subs.iter().enumerate() {
        let one: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.join("points").join(s).join("summary.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(one, points[i]["summary"]);
        let m: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.join("points").join(s).join("manifest.json")).unwrap(),
        )
        .unwrap();
        let sched = &m["plugins"]["disk.scheduler"]["name"];
        assert_eq!(sched, if i < 2 { "elevator" } else { "real-time" });
    }
}

fn sweep_to(dir: &Path, file: &str, threads: &str) -> String {
    let out = vodbench(&[
        "sweep",
        file,
        "--out",
        dir.to_str().unwrap(),
        "--seeds",
        "4",
        "--threads",
        threads,
    ]);
    let (o, e) = text(&out);
    assert!(out.status.success(), "{o}{e}");
    o
}

#[test]
fn sweep_search_is_pinned_and_independent_of_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let stdout = sweep_to(&a, SMALL, "1");
    sweep_to(&b, SMALL, "2");
    common::assert_same_files(
        &a,
        &b,
        &[
            "sweep.json",
            "sweep.csv",
            "sweep.md",
            "curve-000.csv",
            "curve-003.csv",
        ],
        "between 1 and 2 threads",
    );
    let md = std::fs::read_to_string(a.join("sweep.md")).unwrap();
    assert!(stdout.contains(&md), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(a.join("sweep.json")).unwrap()).unwrap();
    let points = json["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    for p in points {
        let max = p["max_terminals"].as_f64().unwrap();
        let cost = p["cost_total"].as_f64().unwrap();
        assert_eq!(cost, 4000.0 + 8.0 * 40.0);
        assert!((p["cost_per_terminal"].as_f64().unwrap() - cost / max).abs() < 1e-9);
        let u = p["at_answer"]["disk_utilization_mean_ratio"]
            .as_f64()
            .unwrap();
        assert!((0.0..=1.0).contains(&u), "{p}");
    }
    let ratio = points[1]["ratio"].as_f64().unwrap();
    assert!((ratio - points[1]["max_terminals"].as_f64().unwrap() / 18.0).abs() < 1e-9);
    assert!(points[0]["ratio"].is_null());
    insta::assert_snapshot!(
        "small_sweep_json",
        std::fs::read_to_string(a.join("sweep.json")).unwrap()
    );
    insta::assert_snapshot!("small_sweep_md", md);

    // `vodbench sweep-table` rebuilds the table from the saved folder
    let out = vodbench(&["sweep-table", a.to_str().unwrap()]);
    let (o, e) = text(&out);
    assert!(out.status.success(), "{e}");
    assert_eq!(o, md);

    // --points keeps a subset, each point searched exactly as in the whole sweep
    let c = tmp.path().join("c");
    let out = vodbench(&[
        "sweep",
        SMALL,
        "--out",
        c.to_str().unwrap(),
        "--seeds",
        "4",
        "--points",
        "3",
        "--quiet",
    ]);
    assert!(out.status.success(), "{:?}", text(&out));
    let one: serde_json::Value =
        serde_json::from_slice(&std::fs::read(c.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(one["points"].as_array().unwrap().len(), 1);
    assert_eq!(
        one["points"][0]["max_terminals"],
        points[3]["max_terminals"]
    );
    let out = vodbench(&["sweep", SMALL, "--points", "9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("not a point"), "{:?}", text(&out));
}

#[test]
fn scaleup_series_divide_by_the_base_point() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    sweep_to(&a, SCALEUP, "2");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(a.join("sweep.json")).unwrap()).unwrap();
    let p = json["points"].as_array().unwrap();
    let (m1, m2) = (
        p[0]["max_terminals"].as_f64().unwrap(),
        p[1]["max_terminals"].as_f64().unwrap(),
    );
    assert_eq!(p[0]["scaleup"].as_f64(), Some(1.0));
    assert!((p[1]["scaleup"].as_f64().unwrap() - m2 / (2.0 * m1)).abs() < 1e-12);
    assert_eq!(p[1]["disks"], 2);
    assert_eq!(p[1]["cost_total"], 3000.0);
    assert_eq!(p[1]["paper"]["scaleup"], 0.9);
    let md = std::fs::read_to_string(a.join("sweep.md")).unwrap();
    assert!(md.contains("| paper scaleup | scaleup |"), "{md}");
}

#[test]
fn a_stopped_sweep_resumes_from_the_points_it_saved() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, fresh) = (tmp.path().join("d"), tmp.path().join("fresh"));
    let run = |extra: &[&str]| {
        let mut args = vec!["sweep", SMALL, "--seeds", "4", "--out", d.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = vodbench(&args);
        let (o, e) = text(&out);
        assert!(out.status.success(), "{o}{e}");
        e
    };
    // a sweep stopped after points 1 and 3: each point is saved as it finishes
    run(&["--points", "1,3", "--quiet"]);
    for p in ["001", "003"] {
        assert!(d.join(format!("points/{p}.json")).is_file(), "{p}");
    }
    assert!(!d.join("points/000.json").exists());
    // and a file cut short by the stop
    std::fs::write(d.join("points/000.json"), "{\"key\":").unwrap();
    let stderr = run(&["--resume"]);
    assert!(
        stderr.contains("resuming") && stderr.contains("2 of 4 points already searched"),
        "{stderr}"
    );
    assert!(
        stderr.contains("point 0 (") && stderr.contains("unreadable"),
        "{stderr}"
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["resumed_points"], serde_json::json!([1, 3]));
    // the resumed sweep is the uninterrupted one, to the byte
    sweep_to(&fresh, SMALL, "2");
    common::assert_same_files(
        &d,
        &fresh,
        &[
            "sweep.json",
            "sweep.csv",
            "sweep.md",
            "curve-000.csv",
            "curve-001.csv",
            "curve-002.csv",
            "curve-003.csv",
            "points/000.json",
            "points/001.json",
            "points/002.json",
            "points/003.json",
        ],
        "between the resumed and the uninterrupted sweep",
    );
    // other limits: the saved point is not used; points outside the run stay saved
    let stderr = run(&["--resume", "--points", "1", "--max-terminals", "500"]);
    assert!(
        stderr.contains("0 of 1 points already searched")
            && stderr
                .contains("saved with other search limits (max_terminals 10000 there, 500 here)"),
        "{stderr}"
    );
    for p in ["000", "001", "002", "003"] {
        assert!(d.join(format!("points/{p}.json")).is_file(), "{p}");
    }
    // without --resume every point is searched again
    let stderr = run(&[]);
    assert!(!stderr.contains("resuming"), "{stderr}");
    assert_eq!(
        std::fs::read(d.join("sweep.json")).unwrap(),
        std::fs::read(fresh.join("sweep.json")).unwrap()
    );
}

/// `vodbench` with `args`, which must succeed: its stderr.
fn stderr_of(args: &[&str]) -> String {
    let out = vodbench(args);
    let (o, e) = text(&out);
    assert!(out.status.success(), "{o}{e}");
    e
}

/// (taken from the cache, saved to it) as the cache line of `stderr` says.
fn cache_counts(stderr: &str) -> (u64, u64) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("cache "))
        .unwrap_or_else(|| panic!("no cache line: {stderr}"));
    let n = |tail: &str| -> u64 {
        let head = &line[..line.find(tail).unwrap()];
        head.rsplit(' ').next().unwrap().parse().unwrap()
    };
    (n(" simulations taken from it"), n(" saved to it"))
}

#[test]
fn a_run_cache_makes_each_simulation_once_across_sweeps_and_searches() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let c = cache.to_str().unwrap();
    let out = |name: &str| tmp.path().join(name).to_str().unwrap().to_string();
    let sweep = |file: &str, dir: &str, extra: &[&str]| {
        let args = [
            &["sweep", file, "--out", dir, "--seeds", "4", "--cache", c],
            extra,
        ]
        .concat();
        stderr_of(&args)
    };

    // the first sweep makes and saves every simulation
    let e = sweep(SMALL, &out("a"), &[]);
    let (reused, saved) = cache_counts(&e);
    assert_eq!(reused, 0, "{e}");
    assert!(saved > 20, "{e}");

    // the same sweep again, and one that differs only in what labels and prices it (as
    // SPIFFI's Table 3 does from Table 2): every simulation comes from the cache
    let text0 = std::fs::read_to_string(root().join(SMALL)).unwrap();
    let relabelled = text0
        .replace("name = \"sweep-small\"", "name = \"sweep-small-priced\"")
        .replace("disk = 4000", "disk = 1500")
        .replace("max_terminals = 18", "max_terminals = 25");
    assert_ne!(relabelled, text0);
    let priced = tmp.path().join("priced.toml");
    std::fs::write(&priced, relabelled).unwrap();
    for (file, dir) in [(SMALL, "a2"), (priced.to_str().unwrap(), "b")] {
        let e = sweep(file, &out(dir), &[]);
        assert_eq!(cache_counts(&e), (saved, 0), "{dir}: {e}");
    }
    // and the outputs are those of a sweep without the cache, to the byte
    let fresh = tmp.path().join("fresh");
    sweep_to(&fresh, SMALL, "2");
    let files = ["sweep.json", "sweep.md", "curve-000.csv", "curve-003.csv"];
    common::assert_same_files(
        &fresh,
        &tmp.path().join("a"),
        &files,
        "with the cache filled",
    );
    common::assert_same_files(&fresh, &tmp.path().join("a2"), &files, "from the cache");
    let sweep_json = |dir: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(tmp.path().join(dir).join("sweep.json")).unwrap())
            .unwrap()
    };
    let (a, b) = (sweep_json("a"), sweep_json("b"));
    for (pa, pb) in a["points"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["points"].as_array().unwrap())
    {
        for k in ["max_terminals", "ci_low", "ci_high", "runs", "at_answer"] {
            assert_eq!(pa[k], pb[k], "{k}");
        }
        assert_ne!(pa["cost_total"], pb["cost_total"]);
    }

    // a search of one of the sweep's points uses the sweep's simulations
    let point = text0.split("\n[sweep]").next().unwrap().to_string()
        + "\n[disk.scheduler]\nname = \"elevator\"\n";
    let point = point.replace("stripe = \"256KiB\"", "stripe = \"128KiB\"");
    let single = tmp.path().join("point.toml");
    std::fs::write(&single, &point).unwrap();
    let s = single.to_str().unwrap();
    let search = |extra: &[&str]| {
        let dir = out("search");
        stderr_of(&[&["search", s, "--cache", c, "--out", &dir], extra].concat())
    };
    let e = search(&["--seeds", "4"]);
    assert_eq!(cache_counts(&e).1, 0, "{e}");
    let searched: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("search/search.json")).unwrap())
            .unwrap();
    assert_eq!(searched["max_terminals"], a["points"][0]["max_terminals"]);

    // a changed parameter makes other simulations
    std::fs::write(&single, point.replace("\"8MiB\"", "\"4MiB\"")).unwrap();
    let e = search(&["--seeds", "4"]);
    assert!(cache_counts(&e).1 > 0, "{e}");
    // runs that end at their first glitch: the glitch-free ones are the same, the glitching
    // ones count differently and are made again
    let e = search(&["--seeds", "4", "--stop-at-glitch"]);
    let curve = std::fs::read_to_string(tmp.path().join("search/curve.csv")).unwrap();
    let clean = curve
        .lines()
        .skip(1)
        .filter(|l| l.split(',').nth(1) == Some("0"));
    let (clean, all) = (clean.count() as u64, curve.lines().count() as u64 - 1);
    assert!(0 < clean && clean < all, "{curve}");
    assert_eq!(cache_counts(&e), (clean, all - clean), "{e}");

    // a scenario that reads a file is not cached, and says so
    let spec = root().join("plugins/disks/hp_c2247a.parv");
    let mechanical = point.replace(
        "name = \"analytic\"\nspec = \"st15150n\"",
        &format!("name = \"mechanical\"\nspec = {:?}", spec.to_str().unwrap()),
    );
    assert_ne!(mechanical, point);
    std::fs::write(&single, mechanical).unwrap();
    let e = search(&["--max-terminals", "3", "--seeds", "3"]);
    assert_eq!(cache_counts(&e), (0, 0), "{e}");
    assert!(
        e.contains("warning: not cached") && e.contains("hp_c2247a.parv"),
        "{e}"
    );
}

#[test]
fn a_coarser_search_says_so_everywhere_and_is_never_taken_for_the_default_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (d, q) = (tmp.path().join("d"), tmp.path().join("q"));
    let sweep = |dir: &Path, extra: &[&str]| {
        let mut args = vec![
            "sweep",
            SMALL,
            "--seeds",
            "4",
            "--out",
            dir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = vodbench(&args);
        let (o, e) = text(&out);
        assert!(out.status.success(), "{o}{e}");
        (o, e)
    };
    let coarse = ["--resolution", "20", "--climb-from", "90"];
    sweep(&d, &[]);
    // the default method's saved points are not the coarse method's
    std::fs::create_dir_all(q.join("points")).unwrap();
    // a folder of checkpoints is vodbench's by its mark: copied with it
    for f in ["002.json", vodbench_harness::ownership::MARK] {
        std::fs::copy(d.join("points").join(f), q.join("points").join(f)).unwrap();
    }
    let (stdout, stderr) = sweep(&q, &[&["--resume"], &coarse[..]].concat());
    assert!(
        stderr.contains("0 of 4 points already searched"),
        "{stderr}"
    );
    let says = "searched with --resolution 20 --climb-from 90";
    let md = std::fs::read_to_string(q.join("sweep.md")).unwrap();
    assert!(md.contains(says) && stdout.contains(says), "{md}");
    let read = |p: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    };
    let (exact, quick) = (read(&d.join("sweep.json")), read(&q.join("sweep.json")));
    assert!(exact.get("method").is_none());
    assert!(quick["method"].as_str().unwrap().starts_with(says));
    assert_eq!(
        read(&q.join("manifest.json"))["search"]["resolution_percent"],
        20
    );
    // fewer simulations: the climb skips the loads below 90 % and the bisection its last steps
    let runs = |j: &serde_json::Value| -> u64 {
        j["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["runs"].as_u64().unwrap())
            .sum()
    };
    assert!(
        runs(&quick) < runs(&exact),
        "{} vs {}",
        runs(&quick),
        runs(&exact)
    );
    // `vodbench sweep-table` keeps the line
    let out = vodbench(&["sweep-table", q.to_str().unwrap()]);
    assert!(text(&out).0.contains(says));

    // a search records its method in search.json and prints it
    let s = tmp.path().join("s");
    let out = vodbench(
        &[
            &["search", "tests/fixtures/search_small.toml", "--seeds", "3"][..],
            &["--out", s.to_str().unwrap()],
            &coarse[..],
        ]
        .concat(),
    );
    let (o, e) = text(&out);
    assert!(out.status.success() && o.contains(says), "{o}{e}");
    let j = read(&s.join("search.json"));
    assert_eq!(j["resolution_percent"], 20);
    assert_eq!(j["climb_from_percent"], 90);
    assert_eq!(j["start_terminals"], 10, "90 % of 12, rounded down");
    for r in j["per_replication"].as_array().unwrap() {
        // each answer is a glitch-free count of its replication's curve
        let m = r["max_terminals"].as_u64().unwrap();
        let curve = std::fs::read_to_string(s.join("curve.csv")).unwrap();
        let row = format!("{m},0,{}", r["replication"]);
        assert!(m == 0 || curve.lines().any(|l| l == row), "{row}\n{curve}");
    }
}

/// A sweep whose replications never glitch up to `--max-terminals` (issue 49, item 5) says
/// so in every output: its maxima are the cap, a lower bound, not converged answers.
#[test]
fn issue49_a_sweep_capped_by_max_terminals_says_so_in_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("capped");
    // 12 terminals are the expected answer: a climb from 6 never glitches up to 7
    let o = vodbench(&[
        "sweep",
        SMALL,
        "--seeds",
        "3",
        "--max-terminals",
        "7",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (printed, err) = text(&o);
    assert!(o.status.success(), "{printed}{err}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    for p in json["points"].as_array().unwrap() {
        assert_eq!(p["max_terminals"], 7, "{p}");
        assert_eq!(p["converged"], false, "a cap is no converged maximum: {p}");
        assert_eq!(p["capped_replications"], 3, "{p}");
        assert_eq!(p["terminal_cap"], 7, "{p}");
    }
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    for row in csv.lines().skip(1) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[col("converged")], "false", "{row}");
        assert_eq!(cells[col("capped_replications")], "3", "{row}");
        assert_eq!(cells[col("terminal_cap")], "7", "{row}");
    }
    let md = std::fs::read_to_string(dir.join("sweep.md")).unwrap();
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    for (what, t) in [("sweep.md", &md), ("the printed table", &printed)] {
        assert!(
            t.contains("4 of 4 points never glitched up to 7 terminals")
                && t.contains("raise --max-terminals"),
            "{what}: {t}"
        );
        assert_eq!(
            t.matches("| ≥7 (7–7) ⚠ never glitched up to 7 terminals in 3 of 3 replications")
                .count(),
            4,
            "{what}: {t}"
        );
        assert!(!t.contains("| 7 (7–7) |"), "{what}: {t}");
    }
    assert!(
        html.contains("never glitched up to 7 terminals in 3 of 3 replications")
            && html.contains("4 capped by --max-terminals"),
        "report.html"
    );
    // an uncapped sweep keeps its outputs' layout: no new field, column or note
    let free = tmp.path().join("free");
    sweep_to(&free, SMALL, "2");
    let md = std::fs::read_to_string(free.join("sweep.md")).unwrap();
    let csv = std::fs::read_to_string(free.join("sweep.csv")).unwrap();
    let json = std::fs::read_to_string(free.join("sweep.json")).unwrap();
    assert!(!md.contains("never glitched") && !md.contains('≥'), "{md}");
    assert!(!csv.contains("capped") && !json.contains("capped"), "{csv}");
}
