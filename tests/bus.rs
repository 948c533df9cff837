//! SCSI buses, disk arrays and fine-grained striping (issue 32, Deliver 2–3) end to end:
//! Wu's configuration 2 (`scenarios/wu/fig9-bus.toml`: 4 disks on one bus, every block split
//! over the 4) and configuration 3 (an `array` disk), each measured against the value worked
//! out by hand; Pappas's two controllers of two disks; bad `[server.bus]` input.

mod common;
use common::{root, text, vodbench};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `scenarios/wu/FILE` without its sweep (its base point: 128 KB blocks), at test scale
/// (267 s measured where the file measures an hour), edited by `edit`.
fn point(dir: &Path, file: &str, name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let text =
        test_scale(&std::fs::read_to_string(root().join("scenarios/wu").join(file)).unwrap());
    let text = text[..text.find("[sweep]").unwrap()].to_string();
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, edit(text)).unwrap();
    path
}

/// `text` measuring 267 s instead of an hour (Wu's server runs an hour; the by-hand figures
/// below are rates, the same over either).
fn test_scale(text: &str) -> String {
    text.replacen("duration = \"1h\"", "duration = \"267s\"", 1)
}

/// Runs `path` into `dir/out-NAME`: its summary and output folder.
fn run(dir: &Path, path: &Path, extra: &[&str]) -> (Value, PathBuf) {
    let out = dir.join(format!(
        "out-{}",
        path.file_stem().unwrap().to_string_lossy()
    ));
    let mut args = vec!["run", path.to_str().unwrap(), "--quiet", "--out"];
    args.push(out.to_str().unwrap());
    args.extend_from_slice(extra);
    let o = vodbench(&args);
    assert!(o.status.success(), "{}", text(&o).1);
    let s = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    (s, out)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn near(measured: f64, expected: f64, rel: f64, what: &str) {
    assert!(
        (measured - expected).abs() <= rel * expected,
        "{what}: measured {measured}, expected {expected} ± {:.1} %",
        rel * 100.0
    );
}

#[test]
fn issue32_one_bus_of_four_disks_is_as_busy_as_worked_out_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let p = point(tmp.path(), "fig9-bus.toml", "bus", |t| t);
    let (s, out) = run(tmp.path(), &p, &[]);
    assert_eq!(s["glitches"]["count"], 0);
    assert_eq!(
        s["buffer_pool"]["hits"], 0,
        "every byte played is read from disk"
    );
    let b = &s["buses"];
    assert_eq!(b["count"], 1);
    // 18 streams of 1.5 Mbit/s read 128 kB blocks: 18 * 1.5e6 / (8 * 128e3) = 26.37 blocks/s.
    // Each holds the bus for 4 commands of 1 ms and 4 pieces of 32 kB sent at the disks'
    // 4 MB/s (8 ms each): 36 ms. Held: 26.37 * 0.036 = 0.949 of the time.
    let blocks = 18.0 * 1.5e6 / (8.0 * 128e3);
    near(
        f(&b["utilization_mean_ratio"]),
        blocks * 0.036,
        0.01,
        "bus held",
    );
    // Wu's eq. 5: mu = n a / (8 r_bus) = 18 * 1.5e6 / 80e6 = 0.3375: the bytes the streams
    // play, over the bus's bandwidth
    let mu = 18.0 * 1.5e6 / 80e6;
    assert!((f(&b["model_eq5_ratio"]) - mu).abs() < 1e-12);
    near(
        f(&b["bandwidth_mean_ratio"]),
        mu,
        0.01,
        "bus bandwidth used",
    );
    // a piece commanded near the end may still be positioning when the run ends: at most
    // one per disk
    let (commands, transfers) = (
        b["commands"].as_u64().unwrap(),
        b["transfers"].as_u64().unwrap(),
    );
    assert!(
        (transfers..=transfers + 4).contains(&commands),
        "{commands} commands, {transfers} transfers"
    );
    // the parts of the I/O time add up to its service time (means rounded down: a few ns)
    let io = &s["disks"]["io_time"];
    let part = |k: &str| f(&io[k]["mean_ns"]);
    let parts = ["overhead", "seek", "rotation", "transfer", "bus_wait"]
        .iter()
        .map(|k| part(k))
        .sum::<f64>();
    assert!(
        (parts - part("service")).abs() < 10.0,
        "{parts} vs {}",
        part("service")
    );
    assert_eq!(part("overhead"), 1e6, "the command");
    assert_eq!(part("seek"), 12e6, "D2");
    assert!(part("bus_wait") > 0.0, "four disks contend for one bus");
    // the tables
    let buses = std::fs::read_to_string(out.join("buses.csv")).unwrap();
    assert!(buses.starts_with("bus,node,disks,utilization_ratio,bandwidth_ratio,"));
    assert_eq!(buses.lines().count(), 2);
    let disks = std::fs::read_to_string(out.join("disks.csv")).unwrap();
    assert!(disks.lines().next().unwrap().ends_with(",bus_wait_mean_ns"));
    let requests = std::fs::read_to_string(out.join("requests.csv")).unwrap();
    assert!(requests
        .lines()
        .next()
        .unwrap()
        .ends_with(",bus_wait_ns,io_time_ns"));
    // what `vodbench run` prints
    let o = vodbench(&[
        "run",
        p.to_str().unwrap(),
        "--out",
        tmp.path().join("o2").to_str().unwrap(),
    ]);
    let printed = text(&o).0;
    assert!(printed.contains("+ bus wait "), "{printed}");
    assert!(printed.contains("bus utilization"), "{printed}");
}

#[test]
fn issue32_an_array_reads_at_the_bus_rate_after_the_members_position() {
    let tmp = tempfile::tempdir().unwrap();
    let p = point(tmp.path(), "fig10-multi-bus.toml", "array", |t| {
        let a = t.find("[disk.model]").unwrap();
        let b = t.find("[disk.scheduler]").unwrap();
        format!(
            "{}[disk.model]\nname = \"array\"\nmembers = 4\nrate = \"10MB/s\"\n\
             member = {{ name = \"linear\", access = \"15ms\", per_block = \"250us\", \
             block = \"1KB\" }}\n\n{}",
            &t[..a],
            &t[b..]
        )
    });
    let (s, _) = run(tmp.path(), &p, &[]);
    assert_eq!(s["glitches"]["count"], 0);
    // 24 streams: 24 * 1.5e6 / (8 * 128e3) = 35.16 blocks/s, each d_m = 15 ms and 128 kB at
    // r_bus = 10 MB/s (12.8 ms; the 4 members read 32 kB each in 8 ms meanwhile)
    let blocks = 24.0 * 1.5e6 / (8.0 * 128e3);
    near(
        f(&s["disks"]["utilization_mean_ratio"]),
        blocks * 0.0278,
        0.01,
        "array busy",
    );
    let io = &s["disks"]["io_time"];
    assert_eq!(io["seek"]["mean_ns"], 15_000_000);
    // (a video's last block is shorter)
    assert_eq!(io["transfer"]["max_ns"], 12_800_000);
    near(f(&io["transfer"]["mean_ns"]), 12.8e6, 0.01, "transfer");
    assert!(s.get("buses").is_none() && io.get("bus_wait").is_none());
}

#[test]
fn issue32_pappas_two_controllers_of_two_disks_and_no_bus_by_default() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(root().join("tests/fixtures/tiny.toml")).unwrap();
    assert!(!base.contains("[server.bus]"));
    let plain = tmp.path().join("plain.toml");
    std::fs::write(&plain, &base).unwrap();
    let (s, out) = run(tmp.path(), &plain, &[]);
    assert!(s.get("buses").is_none());
    assert!(s["disks"]["io_time"].get("bus_wait").is_none());
    assert!(!out.join("buses.csv").exists());
    // four disks of one node, two to a bus (Pappas §2.1: 2 SCSI-2 controllers of 2 disks)
    let text = base
        .replacen("disks_per_node = 2", "disks_per_node = 4", 1)
        .replacen(
            "[disk.model]",
            "[server.bus]\nrate = \"10MB/s\"\ndisks_per_bus = 2\n\n[disk.model]",
            1,
        );
    let pappas = tmp.path().join("pappas.toml");
    std::fs::write(&pappas, text).unwrap();
    let (s, out) = run(tmp.path(), &pappas, &[]);
    assert_eq!(s["buses"]["count"], 2);
    assert_eq!(s["disks"]["count"], 4);
    let buses = std::fs::read_to_string(out.join("buses.csv")).unwrap();
    let on_each: Vec<&str> = buses
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(on_each, vec!["2", "2"]);
    assert!(f(&s["buses"]["utilization_max_ratio"]) > 0.0);
}

#[test]
fn issue32_a_bus_sweep_is_the_same_on_one_and_three_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("fig9-bus.toml");
    let src = std::fs::read_to_string(root().join("scenarios/wu/fig9-bus.toml")).unwrap();
    std::fs::write(&file, test_scale(&src)).unwrap();
    let one = tmp.path().join("one");
    let three = tmp.path().join("three");
    for (dir, threads) in [(&one, "1"), (&three, "3")] {
        let o = vodbench(&[
            "run",
            file.to_str().unwrap(),
            "--quiet",
            "--threads",
            threads,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o).1);
    }
    let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
    assert_eq!(read(&one, "summary.json"), read(&three, "summary.json"));
    assert_eq!(read(&one, "sweep.csv"), read(&three, "sweep.csv"));
}

#[test]
fn issue32_bad_bus_input_names_the_key_and_what_is_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        ("rate = \"0MB/s\"", "server.bus.rate", "must be more than 0"),
        (
            "rate = \"-10MB/s\"",
            "server.bus.rate",
            "expected a bandwidth",
        ),
        ("rate = -5", "server.bus.rate", "expected a bandwidth"),
        (
            "disks_per_bus = 0",
            "server.bus.disks_per_bus",
            "must be in 1..=1024, got 0",
        ),
        (
            "speed = 3",
            "server.bus.speed",
            "allowed keys: `rate`, `command`",
        ),
        (
            "arbitration = \"random\"",
            "server.bus.arbitration",
            "`priority` or `fifo`",
        ),
        ("command = \"-1ms\"", "server.bus.command", "invalid value"),
    ];
    for (i, (line, key, says)) in cases.iter().enumerate() {
        let p = point(tmp.path(), "fig9-bus.toml", &format!("bad{i}"), |t| {
            if line.starts_with("rate") {
                t.replacen("rate = \"10MB/s\"\n", &format!("{line}\n"), 1)
            } else if line.starts_with("command") {
                t.replacen("command = \"1ms\"\n", &format!("{line}\n"), 1)
            } else {
                t.replacen(
                    "command = \"1ms\"\n",
                    &format!("command = \"1ms\"\n{line}\n"),
                    1,
                )
            }
        });
        let o = vodbench(&["check", p.to_str().unwrap()]);
        let err = text(&o).1;
        assert_eq!(o.status.code(), Some(2), "{line}: {err}");
        let at = format!("bad{i}.toml:");
        assert!(
            err.contains(&at) && err.contains(&format!("key `{key}`")) && err.contains(says),
            "{line}: {err}"
        );
    }
    // the array's parameters too
    let p = point(tmp.path(), "fig10-multi-bus.toml", "badarray", |t| {
        t.replacen(
            "name = \"linear\"\naccess = \"15ms\"",
            "name = \"array\"\nmembers = 1\nrate = \"10MB/s\"\n[disk.model.member]\nname = \"linear\"\naccess = \"15ms\"",
            1,
        )
    });
    let o = vodbench(&["check", p.to_str().unwrap()]);
    let err = text(&o).1;
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("key `disk.model.members`") && err.contains("2..=64"),
        "{err}"
    );
}

/// Fig. 11 measured (issue 32, Deliver 6): every point of `fig11-bus-utilisation.toml`, each
/// configuration at eq. 3's floor n on a 10 MB/s bus, uses the share of the bus's bandwidth
/// eq. 5 gives for that n, within 5 % (what falls short is the streams' start-up waits at
/// each new video, when they read but do not yet play), with no glitch; and the first two
/// configurations stay under their asymptote r_s/r_bus = 0.4.
#[test]
fn issue32_fig11_bus_share_is_eq5_within_5_percent_at_every_block() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("fig11");
    let o = vodbench(&[
        "run",
        root()
            .join("scenarios/wu/fig11-bus-utilisation.toml")
            .to_str()
            .unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let mut points: Vec<_> = std::fs::read_dir(out.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    points.sort();
    assert_eq!(points.len(), 24, "3 configurations × 8 blocks");
    for (i, p) in points.iter().enumerate() {
        let s: Value =
            serde_json::from_slice(&std::fs::read(p.join("summary.json")).unwrap()).unwrap();
        let what = p.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(s["glitches"]["count"], 0, "{what}");
        let b = &s["buses"];
        let n = f(&s["terminals"]);
        let eq5 = n * 1.5e6 / (8.0 * 10e6);
        assert!((f(&b["model_eq5_ratio"]) - eq5).abs() < 1e-9, "{what}");
        near(f(&b["bandwidth_mean_ratio"]), eq5, 0.05, &what);
        if i < 16 {
            assert!(f(&b["bandwidth_mean_ratio"]) < 0.4, "{what}");
        }
    }
}

/// `vodbench compare` of a run with SCSI buses and one without stacks the bus wait among the
/// I/O time parts (0 for the run without).
#[test]
fn issue32_compare_shows_the_bus_wait_part() {
    let tmp = tempfile::tempdir().unwrap();
    let with = point(tmp.path(), "fig9-bus.toml", "with-bus", |t| t);
    let without = point(tmp.path(), "fig9-bus.toml", "without-bus", |t| {
        let start = t.find("\n[server.bus]").unwrap() + 1;
        let end = start + t[start..].find("\n\n").unwrap();
        format!("{}{}", &t[..start], &t[end + 2..])
    });
    let (s1, out1) = run(tmp.path(), &with, &[]);
    let (s2, out2) = run(tmp.path(), &without, &[]);
    assert!(s1["disks"]["io_time"]["bus_wait"].is_object());
    assert!(s2["disks"]["io_time"].get("bus_wait").is_none());
    let report = tmp.path().join("compare");
    let o = vodbench(&[
        "compare",
        out1.to_str().unwrap(),
        out2.to_str().unwrap(),
        "--quiet",
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    let chart = &html[html.find("id=\"chart-io-time-parts\"").unwrap()..];
    let chart = &chart[..chart.find("</svg>").unwrap()];
    assert!(chart.contains("bus wait"), "no bus wait part in the chart");
}

/// A `mechanical` disk behind a buffered `[server.bus]` (issue 49, item 12): the model's
/// transfer already ends when the drive's own bus has carried the data, so a burst at the
/// bus rate after it would count the bus twice: `check` refuses the combination naming the
/// key and its line. Unbuffered, the transfer holds the bus for the longer of the two, once:
/// the run's transfer part is at least the bus time of a block and the bus is held for no
/// more than the disk is busy.
#[test]
fn issue49_a_mechanical_disk_behind_a_buffered_bus_is_refused_and_counts_the_bus_once_unbuffered() {
    let tmp = tempfile::tempdir().unwrap();
    let mech = |buffered: bool| {
        move |t: String| {
            let t = t.replace(
                "name = \"linear\"\naccess = \"12ms\"\nper_block = \"250us\"\nblock = \"1KB\"",
                "name = \"mechanical\"\nspec = \"st15150n\"",
            );
            // the drive holds 5 GiB: 40 videos of 10 minutes, not 200 of 2 hours
            let t = t.replacen("count = 200 ", "count = 40  ", 1).replacen(
                "length = \"2h\" ",
                "length = \"600s\"",
                1,
            );
            t.replace(
                "buffered = false",
                if buffered {
                    "buffered = true "
                } else {
                    "buffered = false"
                },
            )
        }
    };
    let bad = point(tmp.path(), "fig9-bus.toml", "buffered", mech(true));
    let text0 = std::fs::read_to_string(&bad).unwrap();
    assert!(text0.contains("spec = \"st15150n\"") && text0.contains("buffered = true"));
    let line = text0
        .lines()
        .position(|l| l.starts_with("buffered = true"))
        .unwrap()
        + 1;
    let o = vodbench(&["check", bad.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains(&format!("buffered.toml:{line}: key `server.bus.buffered`"))
            && err.contains("disk model `mechanical`")
            && err.contains("count the bus twice"),
        "{err}"
    );
    let ok = point(tmp.path(), "fig9-bus.toml", "unbuffered", mech(false));
    let (s, _) = run(tmp.path(), &ok, &["--terminals", "6"]);
    // a 32 kB piece at 10 MB/s holds the bus 3.2 ms at least
    let transfer = f(&s["disks"]["io_time"]["transfer"]["mean_ns"]);
    assert!(transfer >= 3.2e6, "{transfer}");
    assert!(
        f(&s["buses"]["utilization_mean_ratio"]) <= 4.0 * f(&s["disks"]["utilization_mean_ratio"]),
        "{s}"
    );
}

/// Every dotted key of `v` ("buses.bandwidth_mean_ratio").
fn keys(v: &Value, at: &str, out: &mut Vec<String>) {
    if let Value::Object(m) = v {
        for (k, x) in m {
            let key = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            keys(x, &key, out);
            out.push(key);
        }
    }
}

/// `vodbench analyze` and a run name the bus figures alike (issue 49, item 12): every bus
/// value of the analysis of a Wu fig. 11 point is either a key of the run's summary.json
/// (eq. 5 at the point's n under `buses.bandwidth_mean_ratio`, which the run measures) or a
/// model value named as a run names its own (`buses.model_…`), never a key a run would read
/// as another figure; and eq. 5 is the run's `buses.model_eq5_ratio`.
#[test]
fn issue49_analyze_and_a_run_name_the_bus_figures_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let p = point(tmp.path(), "fig11-bus-utilisation.toml", "fig11", |t| t);
    let dir = tmp.path().join("analysis");
    let o = vodbench(&[
        "analyze",
        p.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let a: Value =
        serde_json::from_slice(&std::fs::read(dir.join("analysis.json")).unwrap()).unwrap();
    let values = a["points"][0]["analysis"]["values"].as_object().unwrap();
    let (s, _) = run(tmp.path(), &p, &[]);
    let mut run_keys = Vec::new();
    keys(&s, "", &mut run_keys);
    let bus: Vec<&String> = values.keys().filter(|k| k.starts_with("bus")).collect();
    assert!(bus.len() >= 2, "{values:?}");
    for k in bus {
        assert!(
            run_keys.contains(k) || k.starts_with("buses.model_"),
            "analyze's `{k}` is no key of a run's summary.json nor a model value: {run_keys:?}"
        );
    }
    assert!(values.contains_key("buses.model_eq6_ratio"), "{values:?}");
    assert!(!run_keys.iter().any(|k| k == "buses.model_eq6_ratio"));
    let eq5 = f(&values["buses.bandwidth_mean_ratio"]);
    assert!((eq5 - f(&s["buses"]["model_eq5_ratio"])).abs() < 1e-12);
    near(
        f(&s["buses"]["bandwidth_mean_ratio"]),
        eq5,
        0.05,
        "measured",
    );
}
