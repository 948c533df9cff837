//! Issue 5: `report.html` opened in a real browser (headless Chromium, Debian's `chromium`,
//! installed by `.ci/run`). Checks that every chart rendered into the DOM with drawn shapes,
//! that the page tried to load nothing from the network, and saves screenshots under
//! `target/browser-artifacts/`.
//!
//! Every request the browser makes goes to a local recording proxy. Chromium itself calls
//! its own services (component updates, time, accounts at Google hosts) whatever page it
//! shows; those hosts are set aside. A canary page that does load from a foreign host proves
//! the proxy sees page loads.
//!
//! Without Chromium the tests skip, saying why on stderr, so that the README's test command
//! passes on a machine with only Rust; under CI (`CI` set, as `.ci/run` runs, which installs
//! Chromium) a missing browser is a failure.

mod common;
use common::{text, vodbench};
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The browser, or `None` after printing why the test is skipped; under CI (`CI` set and
/// not `false`/`0`) a missing browser fails the test instead.
fn chromium_or_skip() -> Option<PathBuf> {
    if let Some(p) = chromium() {
        return Some(p);
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    assert!(
        !ci,
        "chromium not found, and CI is set: CI must run the browser tests (.ci/run installs Debian's `chromium`)"
    );
    eprintln!(
        "skipped: chromium not found (install Debian's `chromium`, as .ci/run does, to run the browser tests)"
    );
    None
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// A proxy that records the first line of every request and answers nothing useful. Each
/// connection is read on a thread of its own, for up to 3 s, so an idle one cannot hold back
/// the next; a connection that sends nothing in that time is recorded as `(connection)`.
/// The count of connections still being read is the second value.
fn recording_proxy() -> (u16, Arc<Mutex<Vec<String>>>, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let open = Arc::new(AtomicUsize::new(0));
    let (log, reading) = (Arc::clone(&seen), Arc::clone(&open));
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { continue };
            reading.fetch_add(1, Ordering::SeqCst);
            let (log, reading) = (Arc::clone(&log), Arc::clone(&reading));
            std::thread::spawn(move || {
                let _ = conn.set_read_timeout(Some(Duration::from_secs(3)));
                let mut buf = [0u8; 512];
                let n = conn.read(&mut buf).unwrap_or(0);
                let line = String::from_utf8_lossy(&buf[..n])
                    .lines()
                    .next()
                    .unwrap_or("(connection)")
                    .to_string();
                log.lock().unwrap().push(line);
                reading.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    (port, seen, open)
}

/// Runs Chromium on `page` with `extra` flags; returns stdout. Bounded to 90 s.
fn browse(chrome: &Path, page: &Path, proxy: u16, extra: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--proxy-server=http://127.0.0.1:{proxy}"))
        .arg("--proxy-bypass-list=<-loopback>")
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium exited with {status}");
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s on {}", page.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader.join().unwrap()
}

/// Every `<figure class="chart">` of a DOM dump with the number of shapes its SVG drew.
fn rendered_charts(dom: &str) -> Vec<(String, usize)> {
    dom.split("<figure class=\"chart\" data-chart=\"")
        .skip(1)
        .map(|f| {
            let id = f.split('"').next().unwrap().to_string();
            let body = f.split("</figure>").next().unwrap();
            let svg = body.split("<svg").nth(1).unwrap_or("");
            let shapes = ["<rect", "<path", "<polyline", "<circle", "<line", "<text"]
                .iter()
                .map(|t| svg.matches(t).count())
                .sum();
            (id, shapes)
        })
        .collect()
}

fn check_report(chrome: &Path, html: &Path, expected: &[String], shot: &Path) {
    let source = std::fs::read_to_string(html).unwrap();
    // nothing in the page points outside it (the SVG namespace is a name, not a load)
    let outside = source
        .replace("xmlns=\"http://www.w3.org/2000/svg\"", "")
        .matches("://")
        .count();
    assert_eq!(outside, 0, "{}: an external URL", html.display());
    assert!(!source.contains("src="), "no src attributes");
    for href in source.split("href=\"").skip(1) {
        assert!(
            href.starts_with('#'),
            "only in-page links: {}",
            &href[..40.min(href.len())]
        );
    }
    let (port, seen, open) = recording_proxy();
    let dom = browse(
        chrome,
        html,
        port,
        &["--dump-dom".into(), "--virtual-time-budget=3000".into()],
    );
    assert!(
        dom.contains("</html>"),
        "DOM dumped: {}",
        &dom[..200.min(dom.len())]
    );
    let charts = rendered_charts(&dom);
    let ids: Vec<&String> = charts.iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids,
        expected.iter().collect::<Vec<_>>(),
        "every chart is in the rendered DOM"
    );
    for (id, shapes) in &charts {
        assert!(*shapes >= 10, "chart {id} drew {shapes} shapes");
    }
    browse(
        chrome,
        html,
        port,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1200,2600".into(),
        ],
    );
    let png = std::fs::read(shot).expect("screenshot written");
    assert_eq!(&png[1..4], b"PNG");
    assert!(
        png.len() > 20_000,
        "screenshot is not blank ({} bytes)",
        png.len()
    );
    let requests = page_requests(&seen, &open);
    assert!(
        requests.is_empty(),
        "the page tried the network: {requests:?}"
    );
}

/// The host of a recorded request line (`GET http://host/…`, `CONNECT host:443 …`).
fn host(line: &str) -> String {
    let target = line.split_whitespace().nth(1).unwrap_or("");
    let target = target.split("://").nth(1).unwrap_or(target);
    target.split(['/', ':']).next().unwrap_or("").to_string()
}

/// Recorded requests except those Chromium makes to its own services.
fn page_requests(seen: &Arc<Mutex<Vec<String>>>, open: &AtomicUsize) -> Vec<String> {
    const BROWSER_SERVICES: [&str; 3] = ["google.com", "googleapis.com", "gstatic.com"];
    // every connection read to its first line (or its 3-s limit) before looking
    let deadline = Instant::now() + Duration::from_secs(5);
    while open.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    seen.lock()
        .unwrap()
        .iter()
        // a socket Chromium opens ahead of need (preconnect) and never sends a request on
        // names no URL and loads nothing; a load always sends its request line
        .filter(|l| *l != "(connection)")
        .filter(|l| {
            let h = host(l);
            !BROWSER_SERVICES
                .iter()
                .any(|s| h == *s || h.ends_with(&format!(".{s}")))
        })
        .cloned()
        .collect()
}

#[test]
fn issue5_the_network_check_sees_a_page_that_loads_from_outside() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("canary.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><img src=\"http://vodbench-canary.test/x.png\"></body></html>",
    )
    .unwrap();
    let (port, seen, open) = recording_proxy();
    browse(
        &chrome,
        &page,
        port,
        &["--dump-dom".into(), "--virtual-time-budget=3000".into()],
    );
    let requests = page_requests(&seen, &open);
    assert!(
        requests.iter().any(|l| host(l) == "vodbench-canary.test"),
        "the proxy saw the canary load: {requests:?}"
    );
}

#[test]
fn issue5_reports_render_in_headless_chromium_without_network() {
    let Some(chrome) = chromium_or_skip() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut dirs = Vec::new();
    for n in ["8", "16", "40"] {
        let d = tmp.path().join(format!("tiny-{n}-terminals"));
        let out = vodbench(&[
            "run",
            "tests/fixtures/tiny.toml",
            "--quiet",
            "--terminals",
            n,
            "--out",
            d.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{:?}", text(&out));
        dirs.push(d);
    }
    let cmp = tmp.path().join("cmp");
    let mut args = vec!["compare", "--quiet", "--out", cmp.to_str().unwrap()];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    let out = vodbench(&args);
    assert!(out.status.success(), "{:?}", text(&out));
    let artifacts = common::root().join("target/browser-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let chart_ids = |json: &Path| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
        v["charts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect()
    };
    let expected = chart_ids(&cmp.join("compare.json"));
    assert!(expected.contains(&"chart-glitches-vs-terminals".to_string()));
    check_report(
        &chrome,
        &cmp.join("report.html"),
        &expected,
        &artifacts.join("compare-report.png"),
    );
    let run_charts: Vec<String> = [
        "chart-disk-utilization",
        "chart-io-time-parts",
        "chart-buffer-occupancy",
        "chart-utilization-over-time",
        "chart-server-memory",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    check_report(
        &chrome,
        &dirs[1].join("report.html"),
        &run_charts,
        &artifacts.join("run-report.png"),
    );
    // a search's report (SPIFFI §7.1 on a small system)
    let search = tmp.path().join("search");
    let out = vodbench(&[
        "search",
        "tests/fixtures/search_small.toml",
        "--quiet",
        "--seeds",
        "3",
        "--out",
        search.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{:?}", text(&out));
    check_report(
        &chrome,
        &search.join("report.html"),
        &[
            "chart-glitches-vs-terminals".to_string(),
            "chart-replications".to_string(),
        ],
        &artifacts.join("search-report.png"),
    );
}
