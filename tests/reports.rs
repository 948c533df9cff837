//! Issue 5, reports: `report.html` of every run, `vodbench compare`, `export`, baselines,
//! manifests and `rerun`. Snapshots of the JSON outputs and of the HTML structure have the
//! volatile fields (host, git commit, version) redacted.

mod common;
use common::{folder, text, vodbench, vodbench_env};
use std::path::{Path, PathBuf};

fn ok(args: &[&str]) -> String {
    let out = vodbench(args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "vodbench {args:?}: {stdout}{stderr}");
    stdout
}

fn run_tiny(dir: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        "tests/fixtures/tiny.toml",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ok(&args);
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Fails with exit code 2 and a message containing every fragment; never panics.
fn input_error(args: &[&str], env: &[(&str, &Path)], fragments: &[&str]) {
    let out = vodbench_env(args, env);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stdout}{stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    for f in fragments {
        assert!(stderr.contains(f), "{args:?}: `{f}` missing from: {stderr}");
    }
}

/// The outline of a report: headings, chart ids with their drawn element counts, table
/// headings — what must stay put when numbers change.
fn html_structure(html: &str) -> serde_json::Value {
    let between = |s: &str, open: &str, close: &str| -> Vec<String> {
        s.split(open)
            .skip(1)
            .filter_map(|x| x.split(close).next())
            .map(str::to_string)
            .collect()
    };
    let charts: Vec<serde_json::Value> = html
        .split("<figure class=\"chart\" data-chart=\"")
        .skip(1)
        .map(|f| {
            let id = f.split('"').next().unwrap().to_string();
            let svg = f.split("</svg>").next().unwrap();
            serde_json::json!({
                "id": id,
                "svg": svg.contains("<svg"),
                "has_shapes": svg.matches("<rect").count() + svg.matches("<polyline").count()
                    + svg.matches("<path").count() > 3,
                "has_text": svg.contains("<text"),
            })
        })
        .collect();
    serde_json::json!({
        "title": between(html, "<title>", "</title>"),
        "h2": between(html, "<h2", "</h2>")
            .iter()
            .map(|h| h.rsplit('>').next().unwrap().to_string())
            .collect::<Vec<_>>(),
        "cards": between(html, "<div class=\"label\">", "</div>"),
        "charts": charts,
        "table_headers": between(html, "<thead><tr>", "</tr></thead>"),
        "scripts": html.matches("<script").count(),
        "csp": html.contains("Content-Security-Policy"),
    })
}

#[test]
fn issue5_run_report_structure_and_manifest_snapshots() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiny");
    run_tiny(&dir, &[]);
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    insta::assert_json_snapshot!("run_report_structure", html_structure(&html));
    let manifest = json(&dir.join("manifest.json"));
    assert_eq!(manifest["scenario_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(manifest["host"]["os"], std::env::consts::OS);
    insta::assert_json_snapshot!("run_manifest", manifest, {
        ".git_commit" => "[git commit]",
        ".host" => "[host]",
        ".vodbench_version" => "[version]",
    });
    // the report reads only saved data: every metric of summary.json is in its table
    let summary = json(&dir.join("summary.json"));
    assert!(html.contains(&format!(
        "<td class=\"num\">{}</td>",
        summary["disks"]["requests"]
    )));
}

#[test]
fn issue5_timeseries_interval_is_configurable() {
    let tmp = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let scenario = tmp.path().join("fine.toml");
    std::fs::write(
        &scenario,
        original.replace(
            "duration = \"2min\"",
            "duration = \"2min\"\nsample_interval = \"250ms\"\nrequest_sample_every = 1",
        ),
    )
    .unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_tiny(&a, &[]);
    ok(&[
        "run",
        scenario.to_str().unwrap(),
        "--quiet",
        "--out",
        b.to_str().unwrap(),
    ]);
    let rows = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).unwrap().lines().count() - 1;
    assert_eq!(
        rows(&a, "timeseries.csv"),
        120,
        "one sample per second of 2 min"
    );
    assert_eq!(rows(&b, "timeseries.csv"), 480, "one sample per 250 ms");
    let requests = json(&a.join("summary.json"))["disks"]["requests"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(rows(&b, "requests.csv"), requests, "every request kept");
    assert_eq!(
        rows(&a, "requests.csv"),
        requests.div_ceil(16),
        "every 16th request kept"
    );
    let series = std::fs::read_to_string(b.join("timeseries.csv")).unwrap();
    assert!(series
        .lines()
        .next()
        .unwrap()
        .ends_with(",disk_utilization_mean_ratio"));
    for line in series.lines().skip(1) {
        let u: f64 = line.rsplit(',').next().unwrap().parse().unwrap();
        assert!((0.0..=1.0).contains(&u), "{line}");
    }
}

#[test]
fn issue5_hostile_scenario_name_and_description_are_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let hostile = original.replace(
        "name = \"tiny\"",
        "name = \"<script>alert(1)</script>\"\ndescription = \"\\\"><img src=x onerror=alert(2)>\"",
    );
    let scenario = tmp.path().join("hostile.toml");
    std::fs::write(&scenario, hostile).unwrap();
    let dir = tmp.path().join("h");
    ok(&[
        "run",
        scenario.to_str().unwrap(),
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let other = tmp.path().join("t");
    run_tiny(&other, &[]);
    let cmp = tmp.path().join("cmp");
    ok(&[
        "compare",
        dir.to_str().unwrap(),
        other.to_str().unwrap(),
        "--quiet",
        "--out",
        cmp.to_str().unwrap(),
    ]);
    // compare never writes its report over a run's
    let run_report = std::fs::read(other.join("report.html")).unwrap();
    input_error(
        &[
            "compare",
            dir.to_str().unwrap(),
            other.to_str().unwrap(),
            "--quiet",
            "--out",
            other.to_str().unwrap(),
        ],
        &[],
        &[
            "holds the output of `vodbench run`",
            "`vodbench compare` replaces only a folder it wrote itself",
        ],
    );
    assert_eq!(
        std::fs::read(other.join("report.html")).unwrap(),
        run_report
    );
    assert!(!other.join("compare.json").exists());
    for html in [dir.join("report.html"), cmp.join("report.html")] {
        let html = std::fs::read_to_string(html).unwrap();
        assert!(!html.contains("<script"), "raw script element");
        assert!(!html.contains("<img"), "raw img element");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "name shown, escaped"
        );
    }
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("&lt;img src=x onerror=alert(2)&gt;"),
        "description shown, escaped"
    );
}

#[test]
fn issue5_compare_at_different_terminal_counts_draws_glitches_vs_terminals() {
    let tmp = tempfile::tempdir().unwrap();
    let mut dirs = Vec::new();
    for n in ["6", "12", "24"] {
        let d = tmp.path().join(format!("t{n}"));
        run_tiny(&d, &["--terminals", n]);
        dirs.push(d);
    }
    let out = tmp.path().join("cmp");
    let mut args = vec!["compare", "--quiet", "--out", out.to_str().unwrap()];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    ok(&args);
    let data = json(&out.join("compare.json"));
    let ids: Vec<&str> = data["charts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"chart-glitches-vs-terminals"), "{ids:?}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let structure = html_structure(&html);
    insta::assert_json_snapshot!("compare_report_structure", structure);
    // the glitches-vs-terminals chart has one marker per run
    let gvt = html
        .split("data-chart=\"chart-glitches-vs-terminals\"")
        .nth(1)
        .unwrap()
        .split("</svg>")
        .next()
        .unwrap();
    assert_eq!(gvt.matches("<circle").count(), 3);
    // compare.json: the page as data, snapshot without the numbers
    let metrics = data["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "table-metrics")
        .unwrap();
    assert_eq!(metrics["header"][2], "t6");
    let terminals_row = metrics["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0]["text"] == "terminals")
        .unwrap();
    assert_eq!(terminals_row[2]["text"], "6");
    assert_eq!(terminals_row[4]["text"], "+6 (+100.0 %)");
    insta::assert_json_snapshot!("compare_json", data, {
        ".generator" => "[version]",
        ".tables[].rows" => "[rows]",
        ".cards[].value" => "[value]",
        ".cards[].detail" => "[detail]",
    });
    // a compare of one scenario at one terminal count has no such chart
    let out2 = tmp.path().join("cmp2");
    ok(&[
        "compare",
        "--quiet",
        "--out",
        out2.to_str().unwrap(),
        dirs[1].to_str().unwrap(),
        dirs[1].to_str().unwrap(),
    ]);
    assert!(!std::fs::read_to_string(out2.join("report.html"))
        .unwrap()
        .contains("chart-glitches-vs-terminals\""));
}

#[test]
fn issue5_compare_scenarios_with_replications_shows_spread() {
    let tmp = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let fcfs = tmp.path().join("tiny-fcfs.toml");
    std::fs::write(
        &fcfs,
        original.replace("name = \"tiny\"", "name = \"tiny-fcfs\"")
            + "\n[disk.scheduler]\nname = \"fcfs\"\n",
    )
    .unwrap();
    let out = tmp.path().join("cmp");
    ok(&[
        "compare",
        "tests/fixtures/tiny.toml",
        fcfs.to_str().unwrap(),
        "--replications",
        "3",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let reps = json(&out.join("runs/tiny/replications.json"));
    assert_eq!(reps["seeds"], serde_json::json!([42, 43, 44]));
    let spread = &reps["metrics"]["disks.requests"];
    assert_eq!(spread["n"], 3);
    assert!(spread["min"].as_f64() <= spread["mean"].as_f64());
    assert!(spread["mean"].as_f64() <= spread["max"].as_f64());
    let data = json(&out.join("compare.json"));
    let metrics = data["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "table-metrics")
        .unwrap();
    assert_eq!(metrics["header"][5], "tiny-fcfs: beyond spread?");
    let verdicts: Vec<&str> = metrics["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[5]["text"].as_str().unwrap())
        .collect();
    assert!(verdicts.iter().all(|v| ["yes", "no", "—"].contains(v)));
    let seed_row = metrics["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0]["text"] == "seed")
        .unwrap();
    assert_eq!(seed_row[2]["text"], "43", "mean of seeds 42..44");
    // the saved comparison folder is an input again
    let again = tmp.path().join("again");
    ok(&[
        "compare",
        "--quiet",
        "--out",
        again.to_str().unwrap(),
        out.join("runs/tiny").to_str().unwrap(),
        out.join("runs/tiny-fcfs").to_str().unwrap(),
    ]);
    assert!(json(&again.join("compare.json"))["tables"]
        .to_string()
        .contains("beyond spread?"));
}

#[test]
fn issue5_export_csv_parquet_json() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiny");
    run_tiny(&dir, &[]);
    for format in ["csv", "parquet", "json"] {
        let out = tmp.path().join(format);
        ok(&[
            "export",
            dir.to_str().unwrap(),
            "--format",
            format,
            "--out",
            out.to_str().unwrap(),
        ]);
    }
    let names = |d: &str| -> Vec<String> {
        folder(&tmp.path().join(d))
            .into_iter()
            .map(|(n, _)| n)
            .collect()
    };
    assert_eq!(
        names("csv"),
        [
            "disks.csv",
            "nodes.csv",
            "requests.csv",
            "summary.csv",
            "terminals.csv",
            "timeseries.csv"
        ]
    );
    for (n, bytes) in folder(&tmp.path().join("parquet")) {
        assert!(n.ends_with(".parquet"), "{n}");
        assert_eq!(&bytes[..4], b"PAR1", "{n} is Parquet");
    }
    let summary_csv = std::fs::read_to_string(tmp.path().join("csv/summary.csv")).unwrap();
    assert!(summary_csv.starts_with("metric,value\n"));
    assert!(summary_csv.contains("\nterminals,12.0\n"), "{summary_csv}");
    // exported tables are the saved tables
    assert_eq!(
        std::fs::read(tmp.path().join("csv/disks.csv")).unwrap(),
        std::fs::read(dir.join("disks.csv")).unwrap()
    );
    let doc = json(&tmp.path().join("json/export.json"));
    assert_eq!(doc["summary"]["terminals"], 12);
    assert_eq!(doc["tables"]["disks"].as_array().unwrap().len(), 2);
    assert_eq!(doc["tables"]["disks"][1]["disk"], 1);
    assert_eq!(doc["tables"]["terminals"].as_array().unwrap().len(), 12);
    // default output folder
    ok(&["export", dir.to_str().unwrap(), "--format", "json"]);
    assert!(dir.join("export-json/export.json").is_file());
}

#[test]
fn issue5_baselines_work_offline_from_stored_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("baselines");
    let env = [("VODBENCH_BASELINES", store.as_path())];
    let a = tmp.path().join("a");
    let out = vodbench_env(
        &[
            "run",
            "tests/fixtures/tiny.toml",
            "--quiet",
            "--out",
            a.to_str().unwrap(),
            "--save-baseline",
            "main",
        ],
        &env,
    );
    assert!(out.status.success(), "{:?}", text(&out));
    assert_eq!(
        folder(&a),
        folder(&store.join("main/tiny")),
        "baseline is a copy of the run"
    );
    // remove the run: the baseline alone is enough
    std::fs::remove_dir_all(&a).unwrap();
    let b = tmp.path().join("b");
    run_tiny(&b, &["--seed", "7"]);
    let cmp = tmp.path().join("cmp");
    let out = vodbench_env(
        &[
            "compare",
            "--baseline",
            "main",
            b.to_str().unwrap(),
            "--quiet",
            "--out",
            cmp.to_str().unwrap(),
        ],
        &env,
    );
    assert!(out.status.success(), "{:?}", text(&out));
    let data = json(&cmp.join("compare.json"));
    let labels: Vec<&str> = data["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["tiny (baseline main)", "b"]);
    // with an --out of its own: out/compare may be another test's, written right now
    let nope = tmp.path().join("nope");
    input_error(
        &[
            "compare",
            "--baseline",
            "nope",
            b.to_str().unwrap(),
            "--out",
            nope.to_str().unwrap(),
        ],
        &env,
        &["--baseline", "unknown baseline `nope`", "main"],
    );
    input_error(
        &["run", "tests/fixtures/tiny.toml", "--save-baseline", "../x"],
        &env,
        &["`../x` is not a baseline name"],
    );
}

fn results(dir: &Path) -> Vec<(String, Vec<u8>)> {
    folder(dir)
        .into_iter()
        .filter(|(n, _)| n != "manifest.json")
        .collect()
}

#[test]
fn issue5_rerun_reproduces_byte_identical_results() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiny");
    run_tiny(&dir, &["--terminals", "9", "--seed", "5"]);
    let again = tmp.path().join("again");
    let stdout = ok(&[
        "rerun",
        dir.join("manifest.json").to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(stdout.contains("byte-identical"), "{stdout}");
    assert_eq!(results(&dir), results(&again));
    assert_eq!(json(&again.join("summary.json"))["terminals"], 9);

    // a folder whose results were edited, or that holds a file no run writes, is not
    // reproduced, and the error says which files and how
    let rerun_of = |dir: &Path| {
        let out = common::vodbench(&[
            "rerun",
            dir.to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(1), "{:?}", common::text(&out));
        common::text(&out).1
    };
    let summary = dir.join("summary.json");
    let original_summary = std::fs::read(&summary).unwrap();
    std::fs::write(&summary, [&original_summary[..], b" "].concat()).unwrap();
    let err = rerun_of(&dir);
    assert!(err.contains("differs in: summary.json"), "{err}");
    assert!(!err.contains("did not write"), "{err}");
    std::fs::write(&summary, &original_summary).unwrap();
    std::fs::write(dir.join("summary.csv"), "exported\n").unwrap();
    let err = rerun_of(&dir);
    assert!(
        err.contains("has files the rerun did not write: summary.csv"),
        "{err}"
    );
    assert!(!err.contains("differs in"), "{err}");
    std::fs::remove_file(dir.join("summary.csv")).unwrap();

    // a trace-driven run: the trace's hash is recorded and checked
    let trace = tmp.path().join("w.trace");
    ok(&[
        "trace",
        "zipf",
        "--scenario",
        "tests/fixtures/tiny.toml",
        "--out",
        trace.to_str().unwrap(),
    ]);
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let head = original.split("[workload.generate]").next().unwrap();
    let scenario = tmp.path().join("replay.toml");
    std::fs::write(
        &scenario,
        format!("{head}[workload]\ntrace = \"w.trace\"\n"),
    )
    .unwrap();
    let run = tmp.path().join("replay");
    ok(&[
        "run",
        scenario.to_str().unwrap(),
        "--quiet",
        "--out",
        run.to_str().unwrap(),
    ]);
    let manifest = json(&run.join("manifest.json"));
    let sha = manifest["workload"]["trace_sha256"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(sha.len(), 64);
    let rerun: PathBuf = tmp.path().join("replay2");
    ok(&[
        "rerun",
        run.to_str().unwrap(),
        "--quiet",
        "--out",
        rerun.to_str().unwrap(),
    ]);
    assert_eq!(results(&run), results(&rerun));
    std::fs::write(
        &trace,
        std::fs::read_to_string(&trace).unwrap() + "# edited\n",
    )
    .unwrap();
    input_error(
        &[
            "rerun",
            run.join("manifest.json").to_str().unwrap(),
            "--out",
            rerun.to_str().unwrap(),
        ],
        &[],
        &["changed since the run", &sha],
    );
}

#[test]
fn issue5_broadcast_runs_get_a_report_too() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("b");
    ok(&[
        "run",
        "tests/fixtures/broadcast-tiny.toml",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let names: Vec<String> = folder(&dir).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["manifest.json", "report.html", "summary.json", "sweep.csv"]
    );
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    insta::assert_json_snapshot!("broadcast_report_structure", html_structure(&html));
    assert!(
        html.contains("within bound") || html.contains("outside bound"),
        "paper table"
    );
    // compare and rerun say what they accept
    let other = tmp.path().join("t");
    run_tiny(&other, &[]);
    input_error(
        &["compare", dir.to_str().unwrap(), other.to_str().unwrap()],
        &[],
        &["broadcast", "on-demand"],
    );
    input_error(
        &["rerun", dir.join("manifest.json").to_str().unwrap()],
        &[],
        &["not the manifest of an on-demand"],
    );
}

#[test]
fn issue5_bad_report_input_is_exit_2_naming_path_and_choices() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiny");
    run_tiny(&dir, &[]);
    let missing = tmp.path().join("missing");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let d = dir.to_str().unwrap();
    input_error(
        &["compare", d, missing.to_str().unwrap()],
        &[],
        &["missing", "no such folder"],
    );
    input_error(
        &["compare", d, empty.to_str().unwrap()],
        &[],
        &["empty", "not a vodbench output folder"],
    );
    input_error(&["compare", d], &[], &["at least two runs"]);
    input_error(
        &["export", d, "--format", "xlsx"],
        &[],
        &["--format", "xlsx", "csv, parquet, json"],
    );
    input_error(
        &["export", missing.to_str().unwrap()],
        &[],
        &["missing", "no such folder"],
    );
    input_error(
        &["export", empty.to_str().unwrap()],
        &[],
        &["not a vodbench output folder"],
    );
    input_error(
        &["rerun", missing.join("manifest.json").to_str().unwrap()],
        &[],
        &["manifest.json", "no such file"],
    );
    std::fs::write(empty.join("manifest.json"), "{ not json").unwrap();
    input_error(
        &["rerun", empty.join("manifest.json").to_str().unwrap()],
        &[],
        &["not valid JSON"],
    );
}

#[test]
fn compare_of_a_sweep_files_runs_lays_every_point_side_by_side() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("runs");
    ok(&[
        "run",
        "tests/fixtures/sweep_small.toml",
        "--quiet",
        "--out",
        runs.to_str().unwrap(),
    ]);
    // one folder: its four points (each run's own folder), labelled by their values
    let out = tmp.path().join("cmp");
    ok(&[
        "compare",
        runs.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let c = json(&out.join("compare.json"));
    let labels: Vec<&str> = c["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|card| card["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "elevator / 128KiB",
            "elevator / 256KiB",
            "real-time 3×4 s / 128KiB",
            "real-time 3×4 s / 256KiB"
        ]
    );
    // every side is a run with figures (a sweep's summary.json read as one run gave "—")
    for card in c["cards"].as_array().unwrap() {
        let value = card["value"].as_str().unwrap();
        assert!(
            value.ends_with(" glitches") && !value.contains('—'),
            "{card}"
        );
    }
    // labels too long to stand under the bars side by side: the runs are numbered there
    let io = c["charts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|ch| ch["id"] == "chart-io-time-parts")
        .unwrap();
    assert!(
        io["caption"].as_str().unwrap().contains("numbered 1–4"),
        "{io}"
    );
    // beside another run, each point names its folder
    let tiny = tmp.path().join("tiny");
    run_tiny(&tiny, &[]);
    let out2 = tmp.path().join("cmp2");
    ok(&[
        "compare",
        tiny.to_str().unwrap(),
        runs.to_str().unwrap(),
        "--quiet",
        "--out",
        out2.to_str().unwrap(),
    ]);
    let c = json(&out2.join("compare.json"));
    assert_eq!(
        c["title"],
        "Comparison of 5 runs: tiny … runs: real-time 3×4 s / 256KiB"
    );
    assert_eq!(c["cards"][0]["label"], "tiny");
    assert_eq!(c["cards"][1]["label"], "runs: elevator / 128KiB");
    assert_eq!(c["cards"].as_array().unwrap().len(), 5);
    input_error(
        &[
            "compare",
            runs.to_str().unwrap(),
            "--baseline",
            "b",
            "--out",
            tmp.path().join("cmp3").to_str().unwrap(),
        ],
        &[],
        &[
            "runs",
            "sweep file's points",
            "--baseline compares single runs",
        ],
    );
}

#[test]
fn search_and_sweep_folders_given_to_run_commands_are_named_for_what_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    let search = tmp.path().join("search");
    let sweep = tmp.path().join("sweep");
    let tiny = tmp.path().join("tiny");
    run_tiny(&tiny, &[]);
    ok(&[
        "search",
        "tests/fixtures/search_small.toml",
        "--quiet",
        "--seeds",
        "3",
        "--out",
        search.to_str().unwrap(),
    ]);
    ok(&[
        "sweep",
        "tests/fixtures/sweep_small.toml",
        "--quiet",
        "--seeds",
        "3",
        "--out",
        sweep.to_str().unwrap(),
    ]);
    let (t, s, w) = (
        tiny.to_str().unwrap(),
        search.to_str().unwrap(),
        sweep.to_str().unwrap(),
    );
    let cmp = tmp.path().join("cmp");
    let c = cmp.to_str().unwrap();
    for (args, fragments) in [
        (
            vec!["compare", t, s, "--out", c],
            vec!["a `vodbench search` folder, not a run", "search.json"],
        ),
        (
            vec!["compare", t, w, "--out", c],
            vec![
                "a `vodbench sweep` folder, not a run",
                "vodbench compare DIR",
            ],
        ),
        (
            vec!["export", s],
            vec!["a `vodbench search` folder", "export writes a run's"],
        ),
        (
            vec!["export", w],
            vec!["a `vodbench sweep` folder", "sweep.csv"],
        ),
    ] {
        input_error(&args, &[], &fragments);
        let (_, stderr) = text(&vodbench(&args));
        assert!(!stderr.contains("not a vodbench output folder"), "{stderr}");
    }
    // an interrupted sweep: points/ only
    std::fs::remove_file(sweep.join("manifest.json")).unwrap();
    for f in ["sweep.json", "sweep.csv", "sweep.md"] {
        std::fs::remove_file(sweep.join(f)).unwrap();
    }
    input_error(
        &["export", w],
        &[],
        &["an interrupted `vodbench sweep`", "--resume"],
    );
    assert!(!cmp.exists());
}

#[test]
fn a_sweep_gets_a_report_of_every_points_maximum_beside_the_paper() {
    let tmp = tempfile::tempdir().unwrap();
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
    let html = std::fs::read_to_string(sweep.join("report.html")).unwrap();
    insta::assert_json_snapshot!("sweep_report_structure", html_structure(&html));
    // the table is sweep.md's, row for row, with the points numbered as curve-NNN.csv
    let md = std::fs::read_to_string(sweep.join("sweep.md")).unwrap();
    let data = json(&sweep.join("sweep.json"));
    for (i, p) in data["points"].as_array().unwrap().iter().enumerate() {
        let shown = format!(
            "{} ({:.0}–{:.0})",
            p["max_terminals"],
            p["ci_low"].as_f64().unwrap(),
            p["ci_high"].as_f64().unwrap()
        );
        assert!(md.contains(&shown), "{shown} not in\n{md}");
        assert!(html.contains(&shown), "{shown} not in the report");
        assert!(sweep.join(format!("curve-{i:03}.csv")).is_file());
    }
    // the one published maximum (elevator at 256 KiB) is drawn and marked against ±10 %
    let paper = data["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["paper"]["max_terminals"].is_number())
        .unwrap();
    let ratio = paper["ratio"].as_f64().unwrap();
    let class = if (ratio - 1.0).abs() <= 0.10 {
        "good"
    } else {
        "bad"
    };
    let cell = format!("{:+.0} %", (ratio - 1.0) * 100.0);
    assert!(
        html.contains(&format!("class=\"{class}\">{cell}")),
        "{cell} marked {class}"
    );
    // the published utilization beside vodbench's at the one point that has it
    let util = &html[html
        .find("data-chart=\"chart-paper-disk-utilization\"")
        .unwrap()..];
    let util = &util[..util.find("</figure>").unwrap()];
    assert!(util.contains("paper") && util.contains("vodbench"));
    // every point's glitches against terminals, after the table: a marker per simulation of
    // its curve-NNN.csv, one curve per replication
    let table_at = html.find("id=\"table-points\"").unwrap();
    let points = data["points"].as_array().unwrap();
    for (i, p) in points.iter().enumerate() {
        let id = format!("data-chart=\"chart-glitches-{:03}\"", i + 1);
        let at = html.find(&id).unwrap_or_else(|| panic!("{id} missing"));
        assert!(at > table_at, "{id} is drawn after the table");
        let figure = &html[at..at + html[at..].find("</figure>").unwrap()];
        let csv = std::fs::read_to_string(sweep.join(format!("curve-{i:03}.csv"))).unwrap();
        let sims = csv.lines().count() - 1;
        assert_eq!(sims as u64, p["runs"].as_u64().unwrap());
        assert_eq!(figure.matches("<circle").count(), sims, "{id}");
        for r in 1..=p["replications"].as_u64().unwrap() {
            assert!(
                figure.contains(&format!("\nreplication {r}\n")),
                "{id}: replication {r}"
            );
        }
        assert!(!figure.contains("stop-at-glitch"), "{id}");
    }
    // the contents lists those curves under a heading of their own, one short entry a point
    let nav = &html[html.find("<nav id=\"contents\">").unwrap()..html.find("</nav>").unwrap()];
    let group = &nav[nav
        .find("<h3>Glitches vs terminals, per point</h3>")
        .expect("a heading for the curves")..];
    for (i, p) in points.iter().enumerate() {
        let entry = format!(
            "<a href=\"#chart-glitches-{:03}\">{}: {} ({})</a>",
            i + 1,
            i + 1,
            p["label"].as_str().unwrap(),
            p["max_terminals"]
        );
        assert!(group.contains(&entry), "{entry} in\n{group}");
    }
    assert_eq!(group.matches("<li>").count(), points.len());
    assert!(data.get("stop_at_glitch").is_none() && !md.contains("stop-at-glitch"));

    // the same sweep with --stop-at-glitch: the same maxima, and sweep.json, sweep.md and
    // every curve's caption say that a glitching run's count is a lower bound
    let stopped = tmp.path().join("stopped");
    ok(&[
        "sweep",
        "tests/fixtures/sweep_small.toml",
        "--quiet",
        "--seeds",
        "3",
        "--stop-at-glitch",
        "--out",
        stopped.to_str().unwrap(),
    ]);
    let data2 = json(&stopped.join("sweep.json"));
    assert_eq!(data2["stop_at_glitch"], true);
    for (a, b) in points.iter().zip(data2["points"].as_array().unwrap()) {
        assert_eq!(a["max_terminals"], b["max_terminals"]);
    }
    let md2 = std::fs::read_to_string(stopped.join("sweep.md")).unwrap();
    assert!(md2.contains("*made with --stop-at-glitch"), "{md2}");
    let html2 = std::fs::read_to_string(stopped.join("report.html")).unwrap();
    assert_eq!(
        html2
            .matches("this sweep was made with --stop-at-glitch")
            .count(),
        points.len()
    );
}
