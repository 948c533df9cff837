//! `vodbench disk replay` as the library runs it (issue 3): the built-in registry, a DiskSim
//! trace, the output folder and the comparison with DiskSim's response times.

use std::path::PathBuf;
use vodbench_harness::cli::disk::replay;
use vodbench_harness::experiment::disk_replay::ReplayArgs;

fn fix(rel: &str) -> PathBuf {
    [
        env!("CARGO_MANIFEST_DIR"),
        "tests/fixtures/disksim-refs",
        rel,
    ]
    .iter()
    .collect()
}

fn args(spec: &str, trace: PathBuf) -> ReplayArgs {
    ReplayArgs {
        model: "mechanical".into(),
        spec: spec.into(),
        disk: None,
        trace,
        reference: None,
        out: None,
        closed: false,
        format: Default::default(),
    }
}

#[test]
fn issue3_replay_command_writes_requests_csv_and_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let tsv = std::fs::read_to_string(fix("hp_c2247a/c-vod50x512k-closed.responses.tsv")).unwrap();
    let reference: String = tsv
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{}\n", l.split('\t').nth(7).unwrap()))
        .collect();
    let rp = tmp.path().join("reference.txt");
    std::fs::write(&rp, reference).unwrap();
    let out = tmp.path().join("out");
    let mut a = args("hp_c2247a", fix("c-vod50x512k-closed.issued.trace"));
    // a closed workload: each request arrives when the model completes the previous one (an
    // open replay of DiskSim's issue times would queue behind any drift)
    a.closed = true;
    a.reference = Some(rp);
    a.out = Some(out.clone());
    let report = replay(&vodbench_plugins::registry(), &a).unwrap();
    assert!(
        report.contains("2000 requests through `mechanical`"),
        "{report}"
    );
    assert!(report.contains("against the reference"), "{report}");
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
        assert!(v[1] + 1e-6 >= v[2] + v[3], "{r:?}");
    }
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let d = s["summary"]["demerit_percent"].as_f64().unwrap();
    let e = s["summary"]["mean_error_percent"].as_f64().unwrap();
    assert!(d <= 1.0 && e <= 2.0, "demerit {d} %, mean error {e} %");
    let n: u64 = s["summary"]["distribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b[1].as_u64().unwrap())
        .sum();
    assert_eq!(n, 2000);

    // the same trace open: DiskSim's issue times as arrivals, FCFS; never faster than closed
    let mut o = args("hp_c2247a", fix("c-vod50x512k-closed.issued.trace"));
    o.out = Some(tmp.path().join("open"));
    replay(&vodbench_plugins::registry(), &o).unwrap();
    let csv2 = std::fs::read_to_string(tmp.path().join("open/requests.csv")).unwrap();
    assert_eq!(csv2.lines().count(), 2001);
    let first = |c: &str| -> f64 {
        c.lines()
            .nth(1)
            .unwrap()
            .split(',')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(first(&csv), first(&csv2));
}

#[test]
fn issue3_replay_command_errors_name_the_flag() {
    let reg = vodbench_plugins::registry();
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.trace");
    std::fs::write(&bad, "0.0 0 100 8 1\n1.0 0 abc 8 1\n").unwrap();
    let e = replay(&reg, &args("barracuda", bad.clone())).unwrap_err();
    let m = e.to_string();
    assert!(e.is_input());
    assert!(
        m.contains("--trace") && m.contains("line 2: bad block number `abc`"),
        "{m}"
    );
    std::fs::write(&bad, "0.0 0 999999999 8 1\n").unwrap();
    let m = replay(&reg, &args("barracuda", bad))
        .unwrap_err()
        .to_string();
    assert!(m.contains("beyond the disk"), "{m}");
    let mut a = args("barracuda", fix("d-mixed-open.trace"));
    a.disk = Some("disk9".into());
    let e = replay(&reg, &a).unwrap_err();
    let m = e.to_string();
    assert!(e.is_input());
    assert!(m.contains("no disk `disk9`"), "{m}");
    let mut a = args("st15150n", fix("d-mixed-open.trace"));
    a.model = "analytic".into();
    let r = replay(&reg, &a).unwrap();
    assert!(r.contains("10000 requests through `analytic`"), "{r}");
}

#[test]
fn issue35_a_validate_trace_is_compared_with_its_drive() {
    let tmp = tempfile::tempdir().unwrap();
    let trace: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests/fixtures/disksim-validation/cheetah9LP.validate.trace",
    ]
    .iter()
    .collect();
    let mut a = args("cheetah9LP", trace);
    a.format = vodbench_harness::experiment::disk_replay::TraceFormat::Validate;
    a.out = Some(tmp.path().join("out"));
    let report = replay(&vodbench_plugins::registry(), &a).unwrap();
    assert!(report.contains("10000 requests"), "{report}");
    assert!(
        report.contains("against the real drive (mean 4.272895 ms)"),
        "{report}"
    );
    let summary = std::fs::read_to_string(tmp.path().join("out/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&summary).unwrap();
    assert_eq!(v["format"], "validate");
    let rms = v["summary"]["drive"]["rms_ms"].as_f64().unwrap();
    assert!(rms > 0.0 && rms < 0.2, "{rms}");
    // its arrivals are its own: --closed is refused, naming the flag
    a.closed = true;
    let e = replay(&vodbench_plugins::registry(), &a).unwrap_err();
    assert!(e.is_input());
    assert!(e.to_string().starts_with("--closed"), "{e}");
    // an ASCII trace read as validate names its line and the format
    let mut b = args("cheetah9LP", fix("d-mixed-open.trace"));
    b.format = a.format;
    let e = replay(&vodbench_plugins::registry(), &b)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1") && e.contains("validate format"), "{e}");
}
