//! `vodbench disk replay` (issue 3): a DiskSim trace through the mechanical model, its output
//! files, the comparison with DiskSim's own response times, and its errors.

mod common;
use common::{root, text, vodbench};

const FIX: &str = "plugins/tests/fixtures/disksim-refs";

/// DiskSim's response times for the HP C2247A VoD workload, one per line.
fn hp_vod_reference(dir: &std::path::Path) -> std::path::PathBuf {
    let tsv = std::fs::read_to_string(
        root()
            .join(FIX)
            .join("hp_c2247a/c-vod50x512k-closed.responses.tsv"),
    )
    .unwrap();
    let body: String = tsv
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{}\n", l.split('\t').nth(7).unwrap()))
        .collect();
    let p = dir.join("reference.txt");
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn issue3_disk_replay_writes_requests_and_compares_with_disksim() {
    let tmp = tempfile::tempdir().unwrap();
    let reference = hp_vod_reference(tmp.path());
    let out = tmp.path().join("out");
    let trace = format!("{FIX}/c-vod50x512k-closed.issued.trace");
    let o = vodbench(&[
        "disk",
        "replay",
        "--spec",
        "plugins/disks/hp_c2247a.parv",
        "--trace",
        &trace,
        "--closed",
        "--reference",
        reference.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("2000 requests through `mechanical`"),
        "{stdout}"
    );
    assert!(stdout.contains("requests/s"), "{stdout}");
    let csv = std::fs::read_to_string(out.join("requests.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("arrival_ms,response_ms,seek_ms,rotation_ms,transfer_ms,cache_hit")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2000);
    for r in &rows {
        let v: Vec<f64> = r[..5].iter().map(|x| x.parse().unwrap()).collect();
        assert!(v[1] >= v[2] + v[3], "{r:?}");
        assert!(r[5] == "true" || r[5] == "false");
    }
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let sum = &s["summary"];
    assert_eq!(sum["requests"], 2000);
    let demerit = sum["demerit_percent"].as_f64().unwrap();
    let err = sum["mean_error_percent"].as_f64().unwrap();
    assert!(
        demerit <= 1.0 && err <= 2.0,
        "demerit {demerit} %, error {err} %"
    );
    let buckets: u64 = sum["distribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b[1].as_u64().unwrap())
        .sum();
    assert_eq!(buckets, 2000);
}

#[test]
fn issue3_disk_replay_runs_other_models_and_reports_bad_input() {
    let trace = format!("{FIX}/d-mixed-open.trace");
    let o = vodbench(&[
        "disk", "replay", "--model", "analytic", "--spec", "st15150n", "--trace", &trace,
    ]);
    let (stdout, stderr) = text(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("10000 requests through `analytic`"),
        "{stdout}"
    );

    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.trace");
    std::fs::write(&bad, "0.0 0 100 8 1\n1.0 0 abc 8 1\n").unwrap();
    let o = vodbench(&[
        "disk",
        "replay",
        "--spec",
        "barracuda",
        "--trace",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("line 2: bad block number `abc`"),
        "{}",
        text(&o).1
    );

    let o = vodbench(&[
        "disk",
        "replay",
        "--spec",
        "barracuda",
        "--disk",
        "disk9",
        "--trace",
        &trace,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("no disk `disk9`"), "{}", text(&o).1);

    std::fs::write(&bad, "0.0 0 999999999 8 1\n").unwrap();
    let o = vodbench(&[
        "disk",
        "replay",
        "--spec",
        "barracuda",
        "--trace",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("beyond the disk"), "{}", text(&o).1);
}

/// Issue 37: a trace of several devices is refused at the line where the second begins (one
/// disk is replayed), and an empty trace says so instead of printing a mean of nothing.
#[test]
fn issue37_disk_replay_refuses_other_devices_and_empty_traces() {
    let tmp = tempfile::tempdir().unwrap();
    let replay = |body: &str| {
        let t = tmp.path().join("t.trace");
        std::fs::write(&t, body).unwrap();
        let o = vodbench(&[
            "disk",
            "replay",
            "--spec",
            "barracuda",
            "--trace",
            t.to_str().unwrap(),
        ]);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
        assert!(!stdout.contains("-0.000000"), "{stdout}");
        stderr
    };
    let e = replay("0.0 0 100 8 1\n1.0 3 100 8 1\n");
    assert!(
        e.contains("line 2") && e.contains("device 3") && e.contains("device 0"),
        "{e}"
    );
    let e = replay("# nothing\n\n");
    assert!(e.contains("holds no requests"), "{e}");
}
