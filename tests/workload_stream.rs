//! A run takes its workload as a stream (issue 37, item 4): the same results as the events
//! held in memory, every event checked before anything is simulated, and an error met while
//! streaming (a trace changed after it was checked) ends the run with that error instead of
//! results over part of the workload.

mod common;

use vodbench_harness::scenario::ScenarioError;
use vodbench_harness::system::ondemand::scenario::Scenario;
use vodbench_harness::system::ondemand::workload::{Digest, Workload};
use vodbench_harness::system::ondemand::{simulate, simulate_stream, SimError, SimOptions};

fn scenario(path: &str) -> Scenario {
    let registry = vodbench_plugins::registry();
    Scenario::load(&common::root().join(path), &registry).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_streamed_workload_gives_the_results_of_the_events_in_hand() {
    for file in ["tests/fixtures/tiny.toml", "scenarios/interactive.toml"] {
        let s = scenario(file);
        let w = Workload::of(&s);
        let events = w.collect().unwrap();
        let digest = w.digest().unwrap();
        assert_eq!(digest, Digest::of(&events), "{file}");
        assert_eq!(digest.events, events.len() as u64);
        let held = simulate(&s, &events, &mut |_, _| {}).unwrap();
        let streamed = simulate_stream(
            &s,
            w.events().unwrap(),
            &digest,
            &mut |_, _| {},
            SimOptions::default(),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&held.summary).unwrap(),
            serde_json::to_string(&streamed.summary).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn an_error_in_the_stream_ends_the_run_with_it() {
    let s = scenario("tests/fixtures/tiny.toml");
    let w = Workload::of(&s);
    let digest = w.digest().unwrap();
    let cut = 5;
    let stream = w
        .events()
        .unwrap()
        .take(cut)
        .chain(std::iter::once(Err(ScenarioError::Trace {
            message: "long.trace:99: changed since it was checked".into(),
        })));
    let e = simulate_stream(
        &s,
        Box::new(stream),
        &digest,
        &mut |_, _| {},
        SimOptions::default(),
    )
    .unwrap_err();
    match e {
        SimError::Scenario(ScenarioError::Trace { message }) => {
            assert!(message.contains("long.trace:99"), "{message}")
        }
        e => panic!("{e}"),
    }
}

#[test]
fn every_event_is_checked_before_the_run_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let text = base.replace(
        "[workload.generate]",
        "[workload]\ntrace = \"t.trace\"\n\n[unused.generate]",
    );
    let text = text[..text.find("[unused.generate]").unwrap()].to_string();
    std::fs::write(tmp.path().join("s.toml"), &text).unwrap();
    // a bad line far down the trace: refused at its line, nothing simulated or written
    let mut trace = String::from("# vodbench-trace v1\n");
    for i in 0..2000 {
        trace.push_str(&format!("{i} {} start 1 0\n", i % 12));
    }
    trace.push_str("2001 12 start 1 0\n");
    std::fs::write(tmp.path().join("t.trace"), &trace).unwrap();
    let out = tmp.path().join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .arg("run")
        .arg(tmp.path().join("s.toml"))
        .arg("--quiet")
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let (stdout, stderr) = common::text(&o);
    assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("t.trace:2002") && stderr.contains("terminals.count = 12"),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// A generated workload that gives more viewings a video of their own than there are
/// videos is refused, naming the count it needs, by `run` and by `trace zipf` alike, before
/// anything is written.
#[test]
fn a_generated_workload_short_of_videos_is_refused_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let text = base.replace(
        "popularity = \"zipf\"\nz = 1.0",
        "popularity = \"distinct\"",
    );
    assert_ne!(text, base);
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, &text).unwrap();
    let vodbench = |args: &[&std::ffi::OsStr]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_vodbench"))
            .args(args)
            .output()
            .unwrap();
        let (stdout, stderr) = common::text(&o);
        (o.status.code(), format!("{stdout}{stderr}"))
    };
    let (out, trace) = (tmp.path().join("out"), tmp.path().join("t.trace"));
    let run = || {
        vodbench(&[
            "run".as_ref(),
            file.as_ref(),
            "--out".as_ref(),
            out.as_ref(),
        ])
    };
    let zipf = || {
        vodbench(&[
            "trace".as_ref(),
            "zipf".as_ref(),
            "--scenario".as_ref(),
            file.as_ref(),
            "--out".as_ref(),
            trace.as_ref(),
        ])
    };
    let (code, text) = run();
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("raise videos.count to at least"), "{text}");
    assert!(!out.exists());
    let (code, text) = zipf();
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("raise videos.count to at least"), "{text}");
    assert!(!trace.exists());
    // with just enough videos both go through, and the trace runs to the same manifest counts
    let needed: u32 = text
        .split("raise videos.count to at least ")
        .nth(1)
        .and_then(|t| t.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    let enough = text_with_videos(&text_of(&file), needed);
    std::fs::write(&file, enough).unwrap();
    let (code, text) = zipf();
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = run();
    assert_eq!(code, Some(0), "{text}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let lines = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .count();
    assert_eq!(manifest["workload"]["events"], lines as u64);
}

fn text_of(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

fn text_with_videos(text: &str, n: u32) -> String {
    text.replace("count = 8", &format!("count = {n}"))
}
