//! Issue 4 ("SPIFFI complete"), end to end: `vodbench search`, deadlines reaching the disk
//! schedulers, love-prefetch page replacement and delayed prefetching in whole runs.

mod common;
use common::{root, text, vodbench};
use std::sync::Mutex;
use vodbench_harness::ids::RequestId;
use vodbench_harness::plugin::{
    BuildContext, DiskScheduler, HeadState, Plugin, PluginError, QueuedRequest, RequestClass,
};
use vodbench_harness::results::Summary;
use vodbench_harness::system::ondemand::runner;
use vodbench_harness::system::ondemand::scenario::Scenario;
use vodbench_harness::time::SimTime;

const FIXTURE: &str = "tests/fixtures/search_small.toml";

fn search_to(dir: &std::path::Path, extra: &[&str]) -> (String, String) {
    search_file_to(FIXTURE, dir, extra)
}

fn search_file_to(file: &str, dir: &std::path::Path, extra: &[&str]) -> (String, String) {
    let mut args = vec!["search", file, "--out", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = vodbench(&args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    (stdout, stderr)
}

#[test]
fn issue4_search_gives_the_same_answer_on_one_and_two_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let (stdout, _) = search_to(&a, &["--threads", "1", "--seeds", "6"]);
    search_to(&b, &["--threads", "2", "--seeds", "6", "--quiet"]);
    for f in ["search.json", "curve.csv"] {
        let x = std::fs::read(a.join(f)).unwrap();
        assert_eq!(x, std::fs::read(b.join(f)).unwrap(), "{f} differs");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(a.join("search.json")).unwrap()).unwrap();
    let reps = json["per_replication"].as_array().unwrap();
    assert!((3..=6).contains(&reps.len()), "{json}");
    assert_eq!(json["replications"], reps.len());
    assert_eq!(json["paper_max_terminals"], 18.0);
    // the fixture's count is 12: every replication climbs from half of it
    assert_eq!(json["start_terminals"], 6);
    assert!(stdout.contains("terminals without glitches"), "{stdout}");
    assert!(stdout.contains("paper: 18"), "{stdout}");

    // curve.csv: one sorted row per run, and it backs every replication's answer: glitch-free
    // at its maximum, glitches one terminal more
    let curve = std::fs::read_to_string(a.join("curve.csv")).unwrap();
    let mut lines = curve.lines();
    assert_eq!(lines.next(), Some("terminals,glitches,replication"));
    let rows: Vec<(u64, u64, u64)> = lines
        .map(|l| {
            let v: Vec<u64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            (v[0], v[1], v[2])
        })
        .collect();
    assert_eq!(json["runs"], rows.len());
    assert!(rows.windows(2).all(|w| (w[0].0, w[0].2) < (w[1].0, w[1].2)));
    let total: u64 = reps.iter().map(|r| r["runs"].as_u64().unwrap()).sum();
    assert_eq!(total, rows.len() as u64);
    let mut maxima = Vec::new();
    for r in reps {
        let (rep, max) = (
            r["replication"].as_u64().unwrap(),
            r["max_terminals"].as_u64().unwrap(),
        );
        let at = |n: u64| rows.iter().find(|x| x.0 == n && x.2 == rep).map(|x| x.1);
        assert_eq!(
            at(max),
            Some(0),
            "replication {r}: not run glitch-free at its maximum"
        );
        assert!(
            at(max + 1).unwrap() > 0,
            "replication {r}: no glitch just above"
        );
        maxima.push(max as f64);
    }
    let mean = maxima.iter().sum::<f64>() / maxima.len() as f64;
    assert_eq!(json["max_terminals"], mean.round() as u64);
    let ci = &json["confidence_interval"];
    assert_eq!(ci["level"], 0.9);
    assert!(ci["low"].as_f64().unwrap() <= mean && mean <= ci["high"].as_f64().unwrap());
    let converged = json["converged"].as_bool().unwrap();
    assert_eq!(
        converged,
        ci["relative_half_width"].as_f64().unwrap() <= 0.05
    );
    assert_eq!(!converged, stdout.contains("not converged"), "{stdout}");

    // the whole answer, pinned (SPIFFI §7.1 search on a small system)
    insta::assert_snapshot!(
        "small_search_json",
        std::fs::read_to_string(a.join("search.json")).unwrap()
    );
    insta::assert_snapshot!("small_search_curve", curve);

    // report.html (issue 5): the curve of every replication, the replications, paper vs
    // vodbench; identical on both thread counts
    let html = std::fs::read_to_string(a.join("report.html")).unwrap();
    assert_eq!(
        html,
        std::fs::read_to_string(b.join("report.html")).unwrap()
    );
    for needle in [
        "chart-glitches-vs-terminals",
        "chart-replications",
        "table-replications",
        "table-paper",
        "<svg",
        "replication 1",
    ] {
        assert!(html.contains(needle), "report.html lacks {needle}");
    }
    assert!(!html.contains("<script"), "report.html has a script");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(a.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["kind"], "search");
    assert_eq!(manifest["search"]["max_replications"], 6);
    assert_eq!(manifest["search"]["min_replications"], 3);
    // a search folder is not a run: rerun and compare say so
    let out = vodbench(&["rerun", a.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).1.contains("manifest of a search"),
        "{:?}",
        text(&out)
    );
}

/// A server that serves nobody serves no terminals: with a piggyback delay longer than the
/// run, no terminal ever displays and none glitches, and the search must not climb to its
/// cap as if every run were clean.
#[test]
fn issue4_search_counts_terminals_never_served_as_glitches() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("never.toml");
    let text = std::fs::read_to_string(root().join(FIXTURE)).unwrap();
    std::fs::write(&file, format!("{text}\n[piggyback]\ndelay = \"10h\"\n")).unwrap();
    let out = tmp.path().join("out");
    search_file_to(file.to_str().unwrap(), &out, &["--quiet"]);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("search.json")).unwrap()).unwrap();
    assert_eq!(json["max_terminals"], 0, "{json}");
}

#[test]
fn issue4_search_stopping_at_the_first_glitch_finds_the_same_maxima() {
    // --stop-at-glitch ends each run at its first glitch: the same runs, the same answers and
    // the same clean runs; a glitching run keeps at least one glitch and at most its total
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    search_to(&a, &["--seeds", "4", "--quiet"]);
    search_to(&b, &["--seeds", "4", "--quiet", "--stop-at-glitch"]);
    let json = |d: &std::path::Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(d.join("search.json")).unwrap()).unwrap()
    };
    let (ja, jb) = (json(&a), json(&b));
    for k in [
        "max_terminals",
        "confidence_interval",
        "per_replication",
        "at_answer",
        "runs",
    ] {
        assert_eq!(ja[k], jb[k], "{k}");
    }
    assert_eq!(ja["stop_at_glitch"], false);
    assert_eq!(jb["stop_at_glitch"], true);
    let rows = |d: &std::path::Path| -> Vec<Vec<u64>> {
        std::fs::read_to_string(d.join("curve.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
            .collect()
    };
    let (ra, rb) = (rows(&a), rows(&b));
    assert_eq!(ra.len(), rb.len());
    let mut cut = 0;
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!((x[0], x[2]), (y[0], y[2]), "same run");
        assert_eq!(x[1] == 0, y[1] == 0, "glitches or not: {x:?} {y:?}");
        assert!(y[1] <= x[1], "{x:?} {y:?}");
        cut += usize::from(y[1] < x[1]);
    }
    assert!(cut > 0, "some glitching run was cut short: {ra:?}");
    let html = std::fs::read_to_string(b.join("report.html")).unwrap();
    assert!(
        html.contains("a lower bound"),
        "report.html lacks the caveat"
    );
}

#[test]
fn issue4_a_run_stopped_at_its_first_glitch_ends_there() {
    use vodbench_harness::system::ondemand::SimOptions;
    let mut s = Scenario::load(&root().join(FIXTURE), &vodbench_plugins::registry()).unwrap();
    let stop = SimOptions {
        stop_at_first_glitch: true,
        ..SimOptions::default()
    };
    // overloaded: the full run glitches many times; the stopped one ends at the first,
    // sooner and with fewer events
    s.set_terminals(40).unwrap();
    let (full, _) = runner::run(&s, &mut |_, _| {}).unwrap();
    let (cut, _) = runner::run_with(&s, &mut |_, _| {}, stop).unwrap();
    assert!(
        full.summary.glitches.count > 1,
        "{:?}",
        full.summary.glitches
    );
    assert!((1..full.summary.glitches.count).contains(&cut.summary.glitches.count));
    assert!(cut.summary.events < full.summary.events);
    // light load: no glitch, so the run is exactly the full one
    s.set_terminals(4).unwrap();
    let (full, _) = runner::run(&s, &mut |_, _| {}).unwrap();
    let (same, _) = runner::run_with(&s, &mut |_, _| {}, stop).unwrap();
    assert_eq!(full.summary.glitches.count, 0);
    assert_eq!(
        serde_json::to_string(&full.summary).unwrap(),
        serde_json::to_string(&same.summary).unwrap()
    );
}

#[test]
fn issue4_a_run_measuring_only_search_figures_changes_none_of_them() {
    use vodbench_harness::results::flatten_metrics;
    use vodbench_harness::system::ondemand::SimOptions;
    let mut s = Scenario::load(&root().join(FIXTURE), &vodbench_plugins::registry()).unwrap();
    let lean = SimOptions {
        search_figures_only: true,
        ..SimOptions::default()
    };
    // a clean run and an overloaded one
    for n in [4, 40] {
        s.set_terminals(n).unwrap();
        let (full, _) = runner::run(&s, &mut |_, _| {}).unwrap();
        let (part, _) = runner::run_with(&s, &mut |_, _| {}, lean).unwrap();
        let json = |x: &vodbench_harness::results::Summary| {
            flatten_metrics(&serde_json::to_value(x).unwrap())
        };
        let (a, b) = (json(&full.summary), json(&part.summary));
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "{n} terminals"
        );
        // only what the option skips may differ: the time series' sums, the I/O time
        // distributions and the event count (no sample events)
        let skipped = |k: &str| {
            k.starts_with("disks.io_time.")
                || k.starts_with("terminal_buffer.occupancy_")
                || k == "events"
        };
        let differing: Vec<&String> = a.keys().filter(|k| a[*k] != b[*k]).collect();
        assert!(
            differing.iter().all(|k| skipped(k)),
            "{n} terminals: {differing:?}"
        );
        assert!(
            differing.iter().any(|k| k.starts_with("disks.io_time."))
                && differing.iter().any(|k| k.starts_with("terminal_buffer.")),
            "{n} terminals: the option skipped nothing: {differing:?}"
        );
        for k in [
            "glitches.count",
            "disks.utilization_mean_ratio",
            "buffer_pool.hit_ratio",
            "buffer_pool.shared_ratio",
        ] {
            assert!(a.contains_key(k), "{k}");
        }
        if n == 40 {
            assert!(a["glitches.count"] > 0.0, "the overloaded run glitches");
        }
    }
}

#[test]
fn issue4_search_runs_at_least_min_seeds_replications() {
    // the small fixture without buffer sharing (2 MiB, uniform popularity) and seed 2: its
    // replications agree well enough to stop at four; asking for at least five runs five or
    // more, begins with the same replications, and says so in search.json and the report
    let tmp = tempfile::tempdir().unwrap();
    let fixture = std::fs::read_to_string(root().join(FIXTURE)).unwrap();
    let agreeing = fixture
        .replace("seed = 7", "seed = 2")
        .replace("memory_per_node = \"8MiB\"", "memory_per_node = \"2MiB\"")
        .replace("popularity = \"zipf\"\nz = 1.0", "popularity = \"uniform\"");
    assert_ne!(agreeing, fixture);
    let file = tmp.path().join("agreeing.toml");
    std::fs::write(&file, agreeing).unwrap();
    let search = |dir: &std::path::Path, extra: &[&str]| -> serde_json::Value {
        let args = [&["--seeds", "6", "--quiet"], extra].concat();
        search_file_to(file.to_str().unwrap(), dir, &args);
        serde_json::from_slice(&std::fs::read(dir.join("search.json")).unwrap()).unwrap()
    };
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let (ja, jb) = (search(&a, &[]), search(&b, &["--min-seeds", "5"]));
    let (ra, rb) = (
        ja["per_replication"].as_array().unwrap(),
        jb["per_replication"].as_array().unwrap(),
    );
    assert!(ja["converged"].as_bool().unwrap(), "{ja}");
    assert!(ra.len() < 5, "the default stops before five: {ja}");
    assert!(rb.len() >= 5, "{jb}");
    assert_eq!(ra[..], rb[..ra.len()]);
    assert_eq!(ja["min_replications"], 3);
    assert_eq!(jb["min_replications"], 5);
    assert!(jb["converged"].as_bool().unwrap(), "{jb}");
    let html = std::fs::read_to_string(b.join("report.html")).unwrap();
    assert!(
        html.contains("at least 5 asked"),
        "report.html lacks the minimum"
    );
    let html = std::fs::read_to_string(a.join("report.html")).unwrap();
    assert!(!html.contains("asked"), "the default minimum is not shown");
}

#[test]
fn issue4_search_needs_a_generated_workload() {
    let out = vodbench(&["search", "scenarios/interactive.toml", "--quiet"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("[workload.generate]"), "{stderr}");
    let out = vodbench(&["search", FIXTURE, "--seeds", "2"]);
    assert_eq!(out.status.code(), Some(2), "at least 3 replications");
}

/// Every request the engine hands a scheduler, recorded by [`Recorder`].
static SEEN: Mutex<Vec<QueuedRequest>> = Mutex::new(Vec::new());

/// First come, first served, recording each request.
#[derive(Default)]
struct Recorder(std::collections::VecDeque<RequestId>);
impl DiskScheduler for Recorder {
    fn enqueue(&mut self, r: QueuedRequest) {
        SEEN.lock().unwrap().push(r);
        self.0.push_back(r.id);
    }
    fn dequeue(&mut self, _h: &HeadState) -> Option<RequestId> {
        self.0.pop_front()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}
impl Plugin for Recorder {
    type Kind = dyn DiskScheduler;
    type Params = vodbench_plugins::NoParams;
    const NAME: &'static str = "recorder";
    const DESCRIPTION: &'static str = "FCFS that records what it is given (test)";
    fn build(
        _: &vodbench_plugins::NoParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(Recorder::default()))
    }
}

/// The fixture with these plugin tables, run in-process with the built-ins plus `Recorder`.
fn run_with(terminals: u32, memory: &str, tables: &str) -> Summary {
    run_server(terminals, 1, memory, tables)
}

/// [`run_with`] with `disks` disks.
fn run_server(terminals: u32, disks: u32, memory: &str, tables: &str) -> Summary {
    let mut registry = vodbench_plugins::registry();
    registry.add::<Recorder>();
    let path = root().join(FIXTURE);
    let base = std::fs::read_to_string(&path).unwrap();
    let base = base
        .replace(
            "memory_per_node = \"8MiB\"",
            &format!("memory_per_node = \"{memory}\""),
        )
        .replace("disks_per_node = 1", &format!("disks_per_node = {disks}"));
    let at = base.find("[terminals]").unwrap();
    let text = format!("{}{tables}\n{}", &base[..at], &base[at..]);
    let mut s = Scenario::parse(&text, &path, &registry).unwrap();
    s.set_terminals(terminals).unwrap();
    runner::run(&s, &mut |_, _| {}).unwrap().0.summary
}

#[test]
fn issue4_engine_passes_deadlines_to_schedulers() {
    let mut prefetches = [0usize; 3];
    for (i, prefetcher) in ["standard", "real-time", "delayed"].iter().enumerate() {
        SEEN.lock().unwrap().clear();
        let tables = format!(
            "[disk.scheduler]\nname = \"recorder\"\n[prefetcher]\nname = \"{prefetcher}\"\nprocesses = 2\n"
        );
        run_with(8, "8MiB", &tables);
        let seen = std::mem::take(&mut *SEEN.lock().unwrap());
        let (demand, prefetch): (Vec<&QueuedRequest>, Vec<&QueuedRequest>) =
            seen.iter().partition(|r| r.class == RequestClass::Demand);
        assert!(!demand.is_empty() && !prefetch.is_empty(), "{prefetcher}");
        // demand reads carry the terminal's playout deadline, and always a terminal
        assert!(demand
            .iter()
            .all(|r| r.deadline.is_some() && r.terminal.is_some()));
        // in a glitch-free run most deadlines lie ahead when the read reaches the disk
        let future = demand
            .iter()
            .filter(|r| r.deadline.unwrap() > r.arrival)
            .count();
        assert!(
            future * 10 >= demand.len() * 9,
            "{future} of {}",
            demand.len()
        );
        // prefetches carry the prefetcher's estimate: none for standard, a future one else
        if *prefetcher == "standard" {
            assert!(prefetch.iter().all(|r| r.deadline.is_none()));
        } else {
            assert!(prefetch
                .iter()
                .all(|r| r.deadline.is_some_and(|d| d > SimTime::ZERO)));
            let future = prefetch
                .iter()
                .filter(|r| r.deadline.unwrap() > r.arrival)
                .count();
            assert!(
                future * 10 >= prefetch.len() * 9,
                "{prefetcher}: {future} of {}",
                prefetch.len()
            );
        }
        prefetches[i] = prefetch.len();
    }
    assert!(prefetches.iter().all(|&n| n > 0), "{prefetches:?}");
}

const RT: &str = "[disk.scheduler]\nname = \"real-time\"\nclasses = 3\nspacing = \"4s\"\n";

#[test]
fn issue4_love_prefetch_wastes_fewer_prefetches_than_global_lru() {
    // aggressive real-time prefetching into a small buffer pool (SPIFFI §7.3, Fig. 12)
    let pf = "[prefetcher]\nname = \"real-time\"\nprocesses = 4\n";
    let lru = run_with(
        14,
        "6MiB",
        &format!("{RT}{pf}[buffer_pool]\nname = \"global-lru\"\n"),
    );
    let love = run_with(
        14,
        "6MiB",
        &format!("{RT}{pf}[buffer_pool]\nname = \"love-prefetch\"\n"),
    );
    let (l, v) = (&lru.buffer_pool, &love.buffer_pool);
    assert!(
        l.prefetches_wasted > 10,
        "global LRU wastes prefetches: {l:?}"
    );
    assert!(
        l.prefetches_reread > 0 && l.prefetches_reread <= l.prefetches_wasted + l.pages_per_node,
        "wasted prefetches are read again: {l:?}"
    );
    assert!(
        v.prefetches_wasted * 4 < l.prefetches_wasted,
        "{v:?} vs {l:?}"
    );
    assert!(v.hit_ratio > l.hit_ratio, "{v:?} vs {l:?}");
}

#[test]
fn issue4_delayed_prefetching_waits_for_max_advance() {
    // a terminal buffers about two seconds ahead: prefetches held back until 1 s before
    // their deadline come too late and are overtaken by the demand reads (SPIFFI Fig. 12's
    // "too short a maximum advance"); 8 s lets them through like real-time prefetching
    let run = |pf: &str| {
        let pool = "[buffer_pool]\nname = \"love-prefetch\"\n";
        run_with(
            14,
            "6MiB",
            &format!("{RT}{pool}[prefetcher]\n{pf}processes = 4\n"),
        )
        .buffer_pool
    };
    let eager = run("name = \"real-time\"\n");
    let late = run("name = \"delayed\"\nmax_advance = \"1s\"\n");
    let wide = run("name = \"delayed\"\nmax_advance = \"8s\"\n");
    assert!(
        late.prefetches_issued * 10 < eager.prefetches_issued,
        "{late:?} vs {eager:?}"
    );
    assert!(late.hit_ratio < eager.hit_ratio);
    assert!(
        wide.prefetches_issued * 10 >= eager.prefetches_issued * 9,
        "{wide:?} vs {eager:?}"
    );
}

#[test]
fn issue4_love_prefetch_can_keep_prefetches_from_displacing_prefetches() {
    // standard prefetching reads the next block on the same disk, four disks ahead: eight
    // terminals keep about 32 prefetched blocks waiting, twice the 16 pages of 4 MiB. With
    // `any` each new prefetch evicts the prefetched page due soonest (SPIFFI
    // scenarios/spiffi/README.md, "Low-load glitches"); with `referenced` it is dropped.
    let run = |victims: &str| {
        let tables = format!(
            "[buffer_pool]\nname = \"love-prefetch\"\nprefetch_victims = \"{victims}\"\n\
             [prefetcher]\nname = \"standard\"\n"
        );
        run_server(8, 4, "4MiB", &tables).buffer_pool
    };
    let any = run("any");
    let kept = run("referenced");
    assert!(
        any.prefetches_wasted * 2 > any.prefetches_issued,
        "most prefetches wasted: {any:?}"
    );
    assert!(
        kept.prefetches_wasted * 4 < any.prefetches_wasted,
        "{kept:?} vs {any:?}"
    );
    assert!(kept.prefetches_dropped > any.prefetches_dropped);
    assert!(kept.hit_ratio > any.hit_ratio, "{kept:?} vs {any:?}");
}

/// `scenarios/spiffi/scaleup-x4.toml` is Table 2's ×4 real-time point (its header and the
/// spiffi README say so, and a `--cache` hands one file's runs to the other): by the run
/// cache's key the same simulations, from the same seed and terminal count, so the same
/// search.
#[test]
fn issue4_scaleup_x4_is_table_2s_x4_real_time_point() {
    use vodbench_harness::experiment::cache::RunCache;
    use vodbench_harness::system::ondemand::scenario::SweepSuite;
    use vodbench_harness::system::ondemand::OnDemand;
    let registry = vodbench_plugins::registry();
    let x4 = Scenario::load(&root().join("scenarios/spiffi/scaleup-x4.toml"), &registry).unwrap();
    let table2 = SweepSuite::load(
        &root().join("scenarios/spiffi/table2-scaleup-512mb.toml"),
        &registry,
    )
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cache = RunCache::open(tmp.path()).unwrap();
    let key = cache.key::<OnDemand>(&x4, false).unwrap();
    let same: Vec<_> = table2
        .points
        .iter()
        .filter(|p| cache.key::<OnDemand>(&p.scenario, false).unwrap().text() == key.text())
        .collect();
    let labels: Vec<String> = same.iter().map(|p| p.label()).collect();
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert!(
        labels[0].contains("real-time") && labels[0].contains("×4"),
        "{labels:?}"
    );
    let point = &same[0].scenario.file;
    assert_eq!(point.seed, x4.file.seed);
    assert_eq!(point.terminals.count, x4.file.terminals.count);
    assert_eq!(
        point.paper.get("max_terminals"),
        x4.file.paper.get("max_terminals")
    );
}
