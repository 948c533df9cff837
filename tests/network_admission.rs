//! The two plugin kinds the architecture issue added, end to end: the interconnect
//! (`[server.network]`: `ideal`, SPIFFI's network and the default; `ports`, a send and a
//! receive port per node that messages queue for) and admission control (`[admission]`:
//! `accept-all`, the default; `static-limit`; Jadav's `buffer` (eq. 4) and `retrieval` (eq. 5),
//! whose probes travel the interconnect).

mod common;
use common::{root, text, vodbench};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `tests/fixtures/tiny.toml` on `nodes` nodes with `extra` tables appended, written to `dir`.
fn scenario(dir: &Path, name: &str, nodes: u32, extra: &str) -> PathBuf {
    let base = std::fs::read_to_string(root().join("tests/fixtures/tiny.toml")).unwrap();
    let text = base
        .replace("nodes = 1", &format!("nodes = {nodes}"))
        .replace("name = \"tiny\"", &format!("name = \"{name}\""))
        + "\n"
        + extra;
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `path` into `dir/out-NAME`; its summary and manifest.
fn run(dir: &Path, path: &Path) -> (Value, Value, PathBuf) {
    let out = dir.join(format!(
        "out-{}",
        path.file_stem().unwrap().to_string_lossy()
    ));
    let o = vodbench(&[
        "run",
        path.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let read = |f: &str| -> Value {
        serde_json::from_slice(&std::fs::read(out.join(f)).unwrap()).unwrap()
    };
    (read("summary.json"), read("manifest.json"), out)
}

#[test]
fn issue29_ideal_is_the_default_interconnect_and_naming_it_changes_nothing_measured() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = scenario(tmp.path(), "plain", 2, "");
    let named = scenario(
        tmp.path(),
        "named",
        2,
        "[admission]\nname = \"accept-all\"\n",
    );
    let named = {
        // `[server.network]` already exists in the fixture? It does not: add it
        let t = std::fs::read_to_string(&named).unwrap().replace(
            "[disk.model]",
            "[server.network]\nname = \"ideal\"\nlatency = \"5us\"\n\n[disk.model]",
        );
        std::fs::write(&named, t).unwrap();
        named
    };
    let (a, ma, da) = run(tmp.path(), &plain);
    let (mut b, mb, db) = run(tmp.path(), &named);
    // the default run records neither table; the named one records both
    assert!(ma["plugins"].get("server.network").is_none());
    assert!(ma["plugins"].get("admission").is_none());
    assert_eq!(mb["plugins"]["server.network"]["name"], "ideal");
    assert_eq!(
        mb["plugins"]["server.network"]["params"]["per_byte"],
        "40ns"
    );
    assert_eq!(mb["plugins"]["admission"]["name"], "accept-all");
    assert!(a.get("network").is_none() && a.get("admission").is_none());
    // accept-all admits every stream, and the rest of the run is the default's
    let adm = b.as_object_mut().unwrap().remove("admission").unwrap();
    assert_eq!(adm["refused"], 0);
    assert_eq!(adm["requests"], adm["admitted"]);
    assert_eq!(adm["admitted"], a["videos_started"]);
    b["scenario"] = a["scenario"].clone();
    assert_eq!(a, b);
    for table in ["disks.csv", "nodes.csv", "terminals.csv", "timeseries.csv"] {
        assert_eq!(
            std::fs::read(da.join(table)).unwrap(),
            std::fs::read(db.join(table)).unwrap(),
            "{table}"
        );
    }
    assert!(!da.join("links.csv").exists() && !db.join("links.csv").exists());
}

#[test]
fn issue29_ports_queue_transfers_at_each_node_and_report_every_link() {
    let tmp = tempfile::tempdir().unwrap();
    let net = |name: &str, bandwidth: &str| {
        scenario(
            tmp.path(),
            name,
            2,
            &format!("[server.network]\nname = \"ports\"\nbandwidth = \"{bandwidth}\"\n"),
        )
    };
    let (fast, m, dir) = run(tmp.path(), &net("fast", "1GB/s"));
    let (slow, _, _) = run(tmp.path(), &net("slow", "2MB/s"));
    assert_eq!(m["plugins"]["server.network"]["name"], "ports");
    for s in [&fast, &slow] {
        let n = &s["network"];
        assert_eq!(n["interconnect"], "ports");
        assert_eq!(n["links"], 4, "a send and a receive port per node");
        assert!(n["messages"].as_u64().unwrap() > 100, "{n}");
        let u = n["utilization_max_ratio"].as_f64().unwrap();
        assert!(u > 0.0 && u <= 1.0 + 1e-12, "{u}");
        // bytes and requests still balance with queueing in the network
        let c = &s["conservation"];
        assert_eq!(
            c["sent_bytes"].as_u64().unwrap(),
            c["received_bytes"].as_u64().unwrap() + c["in_transit_bytes"].as_u64().unwrap()
        );
    }
    // 2 MB/s cannot carry 12 streams of 4 Mbit/s: messages wait, deliveries take longer,
    // and the terminals glitch
    let (f, s) = (&fast["network"], &slow["network"]);
    assert!(
        s["wait"]["max_ns"].as_u64() > f["wait"]["max_ns"].as_u64(),
        "{f} {s}"
    );
    assert!(s["delivery"]["mean_ns"].as_u64() > f["delivery"]["mean_ns"].as_u64());
    assert!(slow["glitches"]["count"].as_u64() > fast["glitches"]["count"].as_u64());
    let links = std::fs::read_to_string(dir.join("links.csv")).unwrap();
    let mut lines = links.lines();
    assert_eq!(
        lines.next(),
        Some("link,name,utilization_ratio,messages,wait_mean_ns,wait_max_ns")
    );
    let names: Vec<&str> = lines.map(|l| l.split(',').nth(1).unwrap()).collect();
    assert_eq!(
        names,
        [
            "node 0 send",
            "node 1 send",
            "node 0 receive",
            "node 1 receive"
        ]
    );
}

#[test]
fn issue29_static_limit_serves_at_most_its_streams_and_drops_the_refused_viewings() {
    let tmp = tempfile::tempdir().unwrap();
    // measured from the start, so that every terminal's first request counts
    let path = scenario(
        tmp.path(),
        "limited",
        1,
        "[admission]\nname = \"static-limit\"\nmax_streams = 3\n",
    );
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("warmup = \"auto\"", "warmup = \"0s\"")).unwrap();
    let (s, m, _) = run(tmp.path(), &path);
    assert_eq!(m["plugins"]["admission"]["params"]["max_streams"], 3);
    let a = &s["admission"];
    assert_eq!(a["policy"], "static-limit");
    let (requests, admitted, refused) = (
        a["requests"].as_u64().unwrap(),
        a["admitted"].as_u64().unwrap(),
        a["refused"].as_u64().unwrap(),
    );
    assert!(refused > 0 && admitted > 0, "{a}");
    assert_eq!(requests, admitted + refused);
    assert_eq!(a["refused_by_reason"]["stream limit"], refused);
    assert!(a["active_streams_peak"].as_u64().unwrap() <= 3);
    let mean = a["active_streams_mean"].as_f64().unwrap();
    assert!(mean > 0.0 && mean <= 3.0, "{mean}");
    assert_eq!(s["videos_started"].as_u64().unwrap(), admitted);
    // the refused viewings' pauses and seeks were dropped, not counted as ignored
    assert!(a["events_dropped"].as_u64().unwrap() > 0, "{a}");
    // a refused terminal waits for no display: the automatic warm-up ends once the admitted
    // ones display, not a whole measured duration after the last start
    let auto = scenario(
        tmp.path(),
        "limited-auto",
        1,
        "[admission]\nname = \"static-limit\"\nmax_streams = 3\n",
    );
    let (s, _, _) = run(tmp.path(), &auto);
    let warmup_s = s["warmup_ns"].as_u64().unwrap() as f64 / 1e9;
    assert!(warmup_s < 30.0, "warm-up {warmup_s} s");
    assert_eq!(s["glitches"]["never_displayed"].as_u64().unwrap_or(0), 0);
}

#[test]
fn issue29_bad_interconnect_and_admission_tables_name_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "[server.network]\nname = \"ports\"\nbandwidth = \"10bit/s\"\n",
            "key `server.network.bandwidth`",
            "1kbit/s..=",
        ),
        (
            "[server.network]\nname = \"mesh\"\n",
            "key `server.network.name`",
            "unknown server.network `mesh`; registered: ideal, mesh2d, ports",
        ),
        (
            "[server.network]\nlatency = \"20s\"\n",
            "key `server.network.latency`",
            "must be in 0s..=10s",
        ),
        (
            "[admission]\nname = \"static-limit\"\n",
            "key `admission`",
            "missing field `max_streams`",
        ),
        (
            "[admission]\nname = \"static-limit\"\nmax_streams = 0\n",
            "key `admission.max_streams`",
            "must be in 1..=1000000",
        ),
    ];
    for (i, (table, key, says)) in cases.iter().enumerate() {
        let path = scenario(tmp.path(), &format!("bad{i}"), 1, table);
        let o = vodbench(&["check", path.to_str().unwrap()]);
        let err = text(&o).1;
        assert_eq!(o.status.code(), Some(2), "{table}: {err}");
        assert!(err.contains(key) && err.contains(says), "{table}: {err}");
        assert!(
            err.contains(&format!("bad{i}.toml:")),
            "names the file and line: {err}"
        );
    }
}

#[test]
fn issue29_compare_shows_the_plugin_tables_its_runs_record() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = scenario(tmp.path(), "plain", 1, "");
    let limited = scenario(
        tmp.path(),
        "limited",
        1,
        "[admission]\nname = \"static-limit\"\nmax_streams = 3\n",
    );
    let (_, _, a) = run(tmp.path(), &plain);
    let (_, _, b) = run(tmp.path(), &limited);
    let out = tmp.path().join("cmp");
    let o = vodbench(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let header = html
        .split("id=\"table-runs\"")
        .nth(1)
        .and_then(|t| t.split("</thead>").next())
        .unwrap()
        .to_string();
    assert!(header.contains("<th>admission</th>"), "{header}");
    assert!(!header.contains("server.network"), "{header}");
    assert!(
        html.contains(">static-limit<"),
        "the limited side names its policy"
    );
}

/// Issue 30, item 2: `mesh2d` puts the nodes on a mesh. SPIFFI's nodes talk only to
/// terminals, which are outside the mesh, so every message holds one node's injection or
/// ejection link, as it holds that node's send or receive port with `ports`: at the same
/// bandwidth and per-message time the two measure the same run; the mesh's links between
/// nodes carry nothing and are reported idle.
#[test]
fn issue30_mesh2d_runs_as_ports_do_when_only_terminals_talk_to_nodes() {
    let tmp = tempfile::tempdir().unwrap();
    let net = |name: &str, table: &str| scenario(tmp.path(), name, 4, table);
    let (ports, _, _) = run(
        tmp.path(),
        &net(
            "p",
            "[server.network]\nname = \"ports\"\nbandwidth = \"2MB/s\"\n",
        ),
    );
    let (mesh, m, dir) = run(
        tmp.path(),
        &net(
            "m",
            "[server.network]\nname = \"mesh2d\"\nbandwidth = \"2MB/s\"\nrows = 2\n",
        ),
    );
    assert_eq!(m["plugins"]["server.network"]["name"], "mesh2d");
    assert_eq!(m["plugins"]["server.network"]["params"]["cols"], 0);
    let (p, q) = (&ports["network"], &mesh["network"]);
    for k in [
        "messages",
        "bytes",
        "wait",
        "delivery",
        "utilization_max_ratio",
    ] {
        assert_eq!(p[k], q[k], "{k}: {p} {q}");
    }
    assert!(p["wait"]["max_ns"].as_u64().unwrap() > 0, "contended: {p}");
    assert_eq!(ports["glitches"], mesh["glitches"]);
    // 4 nodes on a 2 × 2 mesh: 4 injection, 8 mesh and 4 ejection links
    assert_eq!(
        (p["links"].as_u64(), q["links"].as_u64()),
        (Some(8), Some(16))
    );
    let links = std::fs::read_to_string(dir.join("links.csv")).unwrap();
    let idle: Vec<&str> = links
        .lines()
        .skip(1)
        .filter(|l| l.contains('→'))
        // the name is quoted (it holds a comma): messages is the third field from the end
        .map(|l| l.rsplit(',').nth(2).unwrap())
        .collect();
    assert_eq!(idle, ["0"; 8], "{links}");
    // a placement that puts two nodes on one cell is refused at its key
    let bad = net(
        "bad",
        "[server.network]\nname = \"mesh2d\"\nrows = 2\npositions = [0, 1, 1, 3]\n",
    );
    let o = vodbench(&["check", bad.to_str().unwrap()]);
    let e = text(&o).1;
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("server.network") && e.contains("cell 1 holds two nodes"),
        "{e}"
    );
}

/// Issue 30, item 1's interface nodes: with `[server] interface_nodes = I` the terminals'
/// messages enter and leave through interface node t mod I, which has ports like the storage
/// nodes. One interface carries every fragment: its receive port counts them all and they
/// wait for it, where without interface nodes the terminals' side never waits; two
/// interfaces share them; `net calibrate` reaches an interface by its number after the
/// storage nodes; a count beyond the limit is refused at its key.
#[test]
fn issue30_interface_nodes_carry_their_streams_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let ports = "[server.network]\nname = \"ports\"\nbandwidth = \"1MB/s\"\n";
    let with = |name: &str, interfaces: u32| {
        let p = scenario(tmp.path(), name, 2, "");
        let t = std::fs::read_to_string(&p)
            .unwrap()
            .replace(
                "nodes = 2\n",
                &format!("nodes = 2\ninterface_nodes = {interfaces}\n"),
            )
            .replace("[disk.model]", &format!("{ports}\n[disk.model]"));
        std::fs::write(&p, t).unwrap();
        p
    };
    let links = |out: &Path| -> Vec<(String, u64)> {
        let csv = std::fs::read_to_string(out.join("links.csv")).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let (name, messages) = (
            header.iter().position(|h| *h == "name").unwrap(),
            header.iter().position(|h| *h == "messages").unwrap(),
        );
        lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[name].to_string(), f[messages].parse().unwrap())
            })
            .collect()
    };
    let (s0, _, o0) = run(tmp.path(), &with("none", 0));
    let (s1, _, o1) = run(tmp.path(), &with("one", 1));
    let (s2, _, o2) = run(tmp.path(), &with("two", 2));
    let l0 = links(&o0);
    assert!(l0.iter().all(|(n, _)| n.starts_with("node ")), "{l0:?}");
    let l1 = links(&o1);
    let rx = |l: &[(String, u64)], n: &str| l.iter().find(|x| x.0 == n).map(|x| x.1);
    let node_sends: u64 = ["node 0 send", "node 1 send"]
        .iter()
        .map(|n| rx(&l1, n).unwrap())
        .sum();
    // every fragment the nodes send arrives through interface 0, every request leaves it
    assert_eq!(rx(&l1, "interface 0 receive"), Some(node_sends), "{l1:?}");
    let node_receives: u64 = ["node 0 receive", "node 1 receive"]
        .iter()
        .map(|n| rx(&l1, n).unwrap())
        .sum();
    assert_eq!(rx(&l1, "interface 0 send"), Some(node_receives), "{l1:?}");
    let l2 = links(&o2);
    let (a, b) = (
        rx(&l2, "interface 0 receive").unwrap(),
        rx(&l2, "interface 1 receive").unwrap(),
    );
    assert!(a > 0 && b > 0, "{l2:?}");
    // the streams now wait for their interface's ports, more with one than with two
    let wait = |s: &Value| s["network"]["wait"]["mean_ns"].as_u64().unwrap();
    assert!(wait(&s1) > wait(&s0), "{} vs {}", wait(&s1), wait(&s0));
    assert!(wait(&s1) > wait(&s2), "{} vs {}", wait(&s1), wait(&s2));
    // calibration reaches interface 0 as network node 2
    let o = vodbench(&[
        "net",
        "calibrate",
        with("cal", 1).to_str().unwrap(),
        "--sizes",
        "64KiB",
        "--to",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    let o = vodbench(&["check", with("big", 5000).to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("server.interface_nodes"), "{err}");
}

/// Issue 30, item 1: the interface nodes' CPUs (`[server.interface_cpu]`). Every request an
/// interface node sends and every fragment it receives is a job of its CPU, one at a time:
/// the CPUs' busy fraction is what their jobs cost over the period, by hand, and their
/// queueing lengthens the round trip (N_Q) where the same costs as latencies do not queue; a
/// table without interface nodes, or a copy rate of 0, is refused at its key.
#[test]
fn issue30_interface_cpus_queue_their_streams_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let with = |name: &str, cpu: &str| {
        let p = scenario(tmp.path(), name, 2, "");
        let t = std::fs::read_to_string(&p)
            .unwrap()
            .replace(
                "nodes = 2\n",
                &format!("nodes = 2\ninterface_nodes = 1\n{cpu}"),
            )
            .replace(
                "duration = \"2min\"",
                "duration = \"2min\"\nrequest_delays = true",
            )
            .replace(
                "[disk.model]",
                "[server.network]\nname = \"ports\"\nbandwidth = \"100MB/s\"\n\n[disk.model]",
            );
        std::fs::write(&p, t).unwrap();
        p
    };
    let table = |send: &str, receive: &str| {
        format!(
            "\n[server.interface_cpu]\nsend = \"{send}\"\nreceive = \"{receive}\"\n\
             copy_rate = \"40MB/s\"\n"
        )
    };
    // the interface table must come after [server]'s own keys: put it before [server.network]
    let place = |p: std::path::PathBuf, cpu: &str| {
        let t = std::fs::read_to_string(&p).unwrap();
        let t = t.replace("[server.network]", &format!("{cpu}\n[server.network]"));
        std::fs::write(&p, t).unwrap();
        p
    };
    let (plain, _, _) = run(tmp.path(), &with("plain", ""));
    let (cpu, _, _) = run(tmp.path(), &place(with("cpu", ""), &table("2ms", "3ms")));
    let n = &cpu["network"];
    let u = n["interface_cpu_utilization_mean_ratio"].as_f64().unwrap();
    assert_eq!(
        n["interface_cpu_utilization_max_ratio"].as_f64().unwrap(),
        u
    );
    assert!(plain["network"]["interface_cpu_utilization_mean_ratio"].is_null());
    // by hand: each fragment (the stripe, 256 KiB) costs 3 ms + 262,144 B at 40 MB/s and each
    // request 2 ms, over the two minutes measured
    let fragments = cpu["request_delays"]["requests"].as_f64().unwrap()
        + cpu["request_delays"]["other_requests"].as_f64().unwrap();
    let busy = fragments * (0.002 + 0.003 + 262_144.0 / 40e6);
    let expected = busy / 120.0;
    assert!(
        (u - expected).abs() < 0.02 + 0.05 * expected,
        "utilization {u} vs {expected} by hand ({fragments} fragments)"
    );
    // queued CPU work lengthens the round trip's remainder
    let nq = |s: &Value| s["request_delays"]["n_q"]["mean_ns"].as_u64().unwrap();
    assert!(
        nq(&cpu) > nq(&plain) + 5_000_000,
        "{} vs {}",
        nq(&cpu),
        nq(&plain)
    );
    // refused: without interface nodes, and a copy rate of 0
    let p = scenario(tmp.path(), "none", 2, "");
    let t = std::fs::read_to_string(&p).unwrap().replace(
        "[disk.model]",
        "[server.interface_cpu]\nsend = \"1ms\"\n\n[disk.model]",
    );
    std::fs::write(&p, t).unwrap();
    let o = vodbench(&["check", p.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("server.interface_cpu") && err.contains("interface_nodes"),
        "{err}"
    );
    let p = place(
        with("zero", ""),
        "\n[server.interface_cpu]\ncopy_rate = 0\n",
    );
    let o = vodbench(&["check", p.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("server.interface_cpu.copy_rate"), "{err}");
}

/// Issue 30, item 5's buffer condition (eq. 4): with 2 interface nodes of 3.5 stream buffers
/// each, at most 3 streams run at an interface node, 6 in all; the others are refused for
/// `buffer space`; without interface nodes the same space is one pool of 3.
#[test]
fn issue30_buffer_admission_keeps_each_interface_nodes_streams_in_its_space() {
    let tmp = tempfile::tempdir().unwrap();
    // tiny's terminals hold 1 MiB each
    let admission = "[admission]\nname = \"buffer\"\ntotal = \"3584KiB\"\n";
    let with = |name: &str, interfaces: u32| {
        let p = scenario(tmp.path(), name, 2, admission);
        let t = std::fs::read_to_string(&p)
            .unwrap()
            .replace(
                "nodes = 2\n",
                &format!("nodes = 2\ninterface_nodes = {interfaces}\n"),
            )
            // measured from the start, where the terminals ask for their first streams
            .replace("warmup = \"auto\"", "warmup = \"0s\"");
        std::fs::write(&p, t).unwrap();
        p
    };
    for (name, interfaces, most) in [("two", 2, 6), ("none", 0, 3)] {
        let (s, _, _) = run(tmp.path(), &with(name, interfaces));
        let a = &s["admission"];
        assert_eq!(a["policy"], "buffer");
        assert!(
            a["active_streams_peak"].as_u64().unwrap() <= most,
            "{name}: {a}"
        );
        assert!(
            a["refused_by_reason"]["buffer space"].as_u64().unwrap() > 0,
            "{name}: {a}"
        );
        assert_eq!(
            a["requests"].as_u64().unwrap(),
            a["admitted"].as_u64().unwrap() + a["refused"].as_u64().unwrap()
        );
    }
    let p = scenario(
        tmp.path(),
        "zero",
        2,
        "[admission]\nname = \"buffer\"\ntotal = 0\n",
    );
    let o = vodbench(&["check", p.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("admission") && err.contains("total"), "{err}");
}

/// Issue 30, item 1: the interface node sends each playing client a packet of P_I bytes
/// every δ_I, its playout time (Jadav §3.2, `client_packet`), at a CPU cost
/// (`client_send`). With 12 clients playing all the time on one interface node, 64 kB
/// packets of 4 Mbit/s video go every 0.128 s: 12 × 5 ms / 0.128 s = 46.9 % of the CPU, by
/// hand; the packets queue the streams' own messages behind them. A cost without a packet,
/// or a packet shorter than 1 ms of video, is refused at its key.
#[test]
fn issue30_interface_nodes_send_their_clients_a_packet_every_delta_i() {
    let tmp = tempfile::tempdir().unwrap();
    let with = |name: &str, cpu: &str| {
        // every read its own disk access, so that each is split into its delays
        let p = scenario(tmp.path(), name, 2, "[prefetcher]\nname = \"none\"\n");
        let t = std::fs::read_to_string(&p)
            .unwrap()
            .replace("nodes = 2\n", "nodes = 2\ninterface_nodes = 1\n")
            .replace("pauses_per_video = 1.0", "pauses_per_video = 0.0")
            .replace("seeks_per_video = 1.0", "seeks_per_video = 0.0")
            .replace(
                "duration = \"2min\"",
                "duration = \"2min\"\nrequest_delays = true",
            )
            .replace(
                "[disk.model]",
                &format!(
                    "[server.interface_cpu]\nsend = \"100us\"\nreceive = \"100us\"\n{cpu}\n\
                     [server.network]\nname = \"ports\"\nbandwidth = \"100MB/s\"\n\n[disk.model]"
                ),
            );
        std::fs::write(&p, t).unwrap();
        p
    };
    let (plain, _, _) = run(tmp.path(), &with("plain", ""));
    let (packets, _, _) = run(
        tmp.path(),
        &with(
            "packets",
            "client_packet = \"64KB\"\nclient_send = \"5ms\"\n",
        ),
    );
    let u = |s: &Value| {
        s["network"]["interface_cpu_utilization_mean_ratio"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(packets["glitches"]["count"], 0);
    let fragments = |s: &Value| {
        s["request_delays"]["requests"].as_f64().unwrap()
            + s["request_delays"]["other_requests"].as_f64().unwrap()
    };
    // the streams' own jobs: 200 µs per fragment, as without packets
    let own = fragments(&packets) * 0.0002 / 120.0;
    let by_hand = 12.0 * 0.005 / 0.128;
    let added = u(&packets) - own;
    assert!(
        (added - by_hand).abs() < 0.01 * by_hand,
        "packets use {added} of the CPU, {by_hand} by hand (plain {})",
        u(&plain)
    );
    let nq = |s: &Value| s["request_delays"]["n_q"]["mean_ns"].as_u64().unwrap();
    assert!(
        nq(&packets) > nq(&plain),
        "{} vs {}",
        nq(&packets),
        nq(&plain)
    );
    // refused: a cost without a packet; a packet of less than 1 ms of video (500 bytes)
    for (name, cpu, key) in [
        (
            "cost-only",
            "client_send = \"1ms\"\n",
            "server.interface_cpu.client_send",
        ),
        (
            "tiny",
            "client_packet = \"400B\"\n",
            "server.interface_cpu.client_packet",
        ),
    ] {
        let p = with(name, cpu);
        let o = vodbench(&["check", p.to_str().unwrap()]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(key), "{err}");
    }
}

/// A small Jadav server: 8 storage and 2 interface nodes on `ports`, S = 4, P_S = 64 KiB,
/// fragment sets fetched in rounds, every start a video of its own; `terminals` streams
/// arriving within a minute, and `admission` appended.
fn jadav_mini(dir: &Path, name: &str, terminals: u32, admission: &str) -> PathBuf {
    let text = format!(
        r#"name = "{name}"
seed = 3

[run]
warmup = "0s"
duration = "120s"

[videos]
count = 800
length = "1min"
bit_rate = "1.5Mbit/s"
frames = "cbr"

[server]
nodes = 8
interface_nodes = 2
disks_per_node = 1
memory_per_node = "1MiB"
stripe = "64KiB"

[server.network]
name = "ports"
bandwidth = "13.8MB/s"
per_message = "0s"
send_cost = "50us"
receive_cost = "50us"

[disk.model]
name = "analytic"
capacity = "2GiB"
cylinder_bytes = "1MiB"
seek_factor_ms = 0.2895
settle = "1ms"
rotation = "16.06ms"
transfer_rate = 10000000
rotational_latency = "uniform"

[disk.scheduler]
name = "edf"

[layout]
name = "stripe-factor"
factor = 4

[prefetcher]
name = "none"

[terminals]
count = {terminals}
memory = "512KiB"

[terminals.rounds]
blocks = 4
issue = "eager"

[workload.generate]
popularity = "distinct"
start_spread = "60s"

{admission}"#
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Issue 30, item 5's retrieval condition (eq. 5): at a light load every stream is admitted;
/// past what the storage nodes serve, fetch times grow and `retrieval` refuses streams for
/// `retrieval capacity`, so that fewer fragment sets come late than when every stream is
/// admitted. Its probes (a request and a P_S-byte reply per storage node without history)
/// are messages on the interconnect, counted among the network's.
#[test]
fn issue30_retrieval_admission_refuses_when_fetch_times_grow_and_its_probes_use_the_network() {
    let tmp = tempfile::tempdir().unwrap();
    // δ_S = 4 × 64 KiB at 1.5 Mbit/s = 1.398 s; a low δ_ov + history so that the test sees
    // the policy react to load
    let retrieval = "[admission]\nname = \"retrieval\"\nhistory = 8\noverhead = \"1s\"\n";
    let (light, _, _) = run(tmp.path(), &jadav_mini(tmp.path(), "light", 20, retrieval));
    let a = &light["admission"];
    assert_eq!(a["policy"], "retrieval");
    assert_eq!(a["refused"], 0, "{a}");
    assert_eq!(a["admitted"], a["requests"], "{a}");
    let (heavy, m, _) = run(tmp.path(), &jadav_mini(tmp.path(), "heavy", 240, retrieval));
    assert_eq!(m["plugins"]["admission"]["params"]["history"], 8);
    let a = &heavy["admission"];
    let refused = a["refused_by_reason"]["retrieval capacity"]
        .as_u64()
        .unwrap();
    assert!(refused > 0, "{a}");
    assert_eq!(a["refused"].as_u64().unwrap(), refused, "{a}");
    assert_eq!(
        a["requests"].as_u64().unwrap(),
        a["admitted"].as_u64().unwrap() + refused
    );
    // every stream admitted: more late fragment sets than with retrieval's refusals
    let (all, _, _) = run(
        tmp.path(),
        &jadav_mini(
            tmp.path(),
            "all",
            240,
            "[admission]\nname = \"accept-all\"\n",
        ),
    );
    let glitches = |s: &Value| s["glitches"]["count"].as_u64().unwrap();
    assert!(
        glitches(&all) > glitches(&heavy),
        "{} vs {}",
        glitches(&all),
        glitches(&heavy)
    );
    assert!(all["admission"].get("probes").is_none());
    assert!(all["network"].get("probe_messages").is_none());
    // probes: answered ones counted by admission; their messages (request and reply) by the
    // network, among its messages and bytes
    for s in [&light, &heavy] {
        let probes = s["admission"]["probes"]["probes"].as_u64().unwrap();
        assert!(probes > 0, "{}", s["admission"]);
        let rtt = &s["admission"]["probes"]["round_trip"];
        // a 64 KiB reply alone takes 65536 / 13.8 MB/s = 4.75 ms
        assert!(rtt["mean_ns"].as_u64().unwrap() > 4_700_000, "{rtt}");
        let n = &s["network"];
        let (pm, pb) = (
            n["probe_messages"].as_u64().unwrap(),
            n["probe_bytes"].as_u64().unwrap(),
        );
        // each answered probe's two messages were delivered in the run; a probe still on its
        // way at the end may have delivered its request
        assert!(pm >= 2 * probes && pm <= 2 * probes + 2 * 8, "{n} {probes}");
        assert!(pb >= probes * 65536, "{n}");
        assert!(n["messages"].as_u64().unwrap() > pm);
        assert!(n["bytes"].as_u64().unwrap() > pb);
    }
}

/// Both conditions together (`retrieval` with `buffer`): a refusal names the limit that
/// refused; bad parameters name their key.
#[test]
fn issue30_retrieval_with_buffer_checks_both_and_names_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    // 2 interface nodes of 10.5 stream buffers (512 KiB each): at most 10 streams each
    let both = "[admission]\nname = \"retrieval\"\nbuffer = \"5376KiB\"\n";
    let (s, _, _) = run(tmp.path(), &jadav_mini(tmp.path(), "both", 60, both));
    let a = &s["admission"];
    assert!(a["active_streams_peak"].as_u64().unwrap() <= 20, "{a}");
    assert!(
        a["refused_by_reason"]["buffer space"].as_u64().unwrap() > 0,
        "{a}"
    );
    for (extra, key) in [
        ("history = 0\n", "admission.history"),
        ("overhead = \"2h\"\n", "admission.overhead"),
        ("buffer = 0\n", "admission.buffer"),
        ("window = 3\n", "window"),
    ] {
        let p = jadav_mini(
            tmp.path(),
            "bad",
            4,
            &format!("[admission]\nname = \"retrieval\"\n{extra}"),
        );
        let o = vodbench(&["check", p.to_str().unwrap()]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{extra}: {err}");
        assert!(err.contains(key), "{extra}: {err}");
    }
}

/// One viewing on an idle `ports` network, its server's object manager a node or not
/// (`[server] manager_node`): 4 storage nodes, 1 interface node, 12.8 MB/s ports, 5 µs per
/// message held on the ports, 3 µs of latency, 50 µs to send and 20 µs to receive a message.
fn one_viewing(dir: &Path, name: &str, manager: bool, network: &str) -> PathBuf {
    let text = format!(
        r#"name = "{name}"
seed = 5

[run]
warmup = "0s"
duration = "30s"

[videos]
count = 4
length = "1min"
bit_rate = "1.5Mbit/s"
frames = "cbr"

[server]
nodes = 4
interface_nodes = 1
manager_node = {manager}
disks_per_node = 1
memory_per_node = "1MiB"
stripe = "64KiB"

[server.network]
{network}

[disk.model]
name = "analytic"
capacity = "2GiB"
cylinder_bytes = "1MiB"
seek_factor_ms = 0.2895
settle = "1ms"
rotation = "16.06ms"
transfer_rate = 10000000
rotational_latency = "uniform"

[layout]
name = "stripe-factor"
factor = 4

[prefetcher]
name = "none"

[terminals]
count = 1
memory = "512KiB"

[workload.generate]
popularity = "distinct"
start_spread = "1s"
"#
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Issue 30's manager node, worked by hand: the viewer's request reaches the manager from
/// outside; the manager's delegation (128 B, `network.request_bytes`) crosses to the
/// interface node, which admits the stream at once (accept-all) and answers (128 B); the
/// stream begins when the answer is back. Each message on the idle network takes the
/// sender's 50 µs, then holds the manager's (or the interface node's) send port and the
/// other's receive port for 5 µs + 128 B / 12.8 MB/s = 15 µs, then 3 µs of latency and the
/// receiver's 20 µs: 88 µs. So the start-up latency is the plain run's plus 2 × 88 µs to the
/// nanosecond (the disks' rotational latency is drawn, not read off the clock, so the rest
/// of the start is the same), and the network counts the two messages apart.
#[test]
fn issue30_manager_node_delays_a_start_by_exactly_its_two_control_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let ports = "name = \"ports\"\nbandwidth = \"12.8MB/s\"\nper_message = \"5us\"\n\
                 latency = \"3us\"\nsend_cost = \"50us\"\nreceive_cost = \"20us\"\n";
    let (plain, _, _) = run(tmp.path(), &one_viewing(tmp.path(), "plain", false, ports));
    let (managed, _, out) = run(tmp.path(), &one_viewing(tmp.path(), "managed", true, ports));
    let startup = |s: &Value| {
        assert_eq!(s["startup_latency"]["count"], 1, "{}", s["startup_latency"]);
        s["startup_latency"]["mean_ns"].as_u64().unwrap()
    };
    assert_eq!(startup(&managed), startup(&plain) + 2 * 88_000);
    let n = &managed["network"];
    assert_eq!(
        (n["control_messages"].as_u64(), n["control_bytes"].as_u64()),
        (Some(2), Some(256))
    );
    // each took its 88 µs, waiting for no port
    assert_eq!(n["control_delivery"]["count"], 2);
    assert_eq!(n["control_delivery"]["max_ns"], 88_000);
    assert_eq!(n["control_delivery"]["mean_ns"], 88_000);
    assert!(plain["network"].get("control_messages").is_none());
    assert!(plain["network"].get("control_delivery").is_none());
    assert_eq!(
        n["messages"].as_u64().unwrap(),
        plain["network"]["messages"].as_u64().unwrap() + 2
    );
    // the manager has its own ports, after the interface node's, and used each once
    let links = std::fs::read_to_string(out.join("links.csv")).unwrap();
    for name in ["manager send", "manager receive"] {
        let row = links
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no link {name} in {links}"));
        assert!(row.contains(",1,"), "{row}");
    }
    assert_eq!(links.lines().count(), 1 + 2 * 6);
}

/// With the manager a node, every admitted stream still gets every fragment it asked for
/// (nothing is lost between the storage nodes, the interface nodes and the terminals), a
/// refusal still names its reason, and every request costs a delegation and an answer, counted
/// among the network's messages; the probes of `retrieval` leave the interface node once the
/// delegation has arrived, and are counted as before.
#[test]
fn issue30_manager_node_serves_every_admitted_stream_whole_and_refusals_keep_their_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let retrieval = "[admission]\nname = \"retrieval\"\nhistory = 8\noverhead = \"1s\"\n";
    let path = jadav_mini(tmp.path(), "managed", 240, retrieval);
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "interface_nodes = 2\n",
        "interface_nodes = 2\nmanager_node = true\n",
    );
    std::fs::write(&path, text).unwrap();
    let (s, _, _) = run(tmp.path(), &path);
    let c = &s["conservation"];
    let u = |v: &Value| v.as_u64().unwrap();
    assert_eq!(
        u(&c["requests_issued"]),
        u(&c["requests_delivered"]) + u(&c["requests_in_system"]),
        "{c}"
    );
    assert_eq!(
        u(&c["sent_bytes"]),
        u(&c["received_bytes"]) + u(&c["in_transit_bytes"]),
        "{c}"
    );
    assert_eq!(
        u(&c["received_bytes"]),
        u(&c["consumed_bytes"]) + u(&c["discarded_bytes"]) + u(&c["buffered_bytes"]),
        "{c}"
    );
    let a = &s["admission"];
    let refused = u(&a["refused_by_reason"]["retrieval capacity"]);
    assert!(refused > 0, "{a}");
    assert_eq!(u(&a["refused"]), refused, "{a}");
    assert_eq!(u(&a["requests"]), u(&a["admitted"]) + refused, "{a}");
    // measured from time 0: a delegation and an answer per decided request; a request
    // still being decided at the end may have had its delegation delivered
    let n = &s["network"];
    let (cm, cb) = (u(&n["control_messages"]), u(&n["control_bytes"]));
    let requests = u(&a["requests"]);
    assert!(
        cm >= 2 * requests && cm <= 2 * requests + 240,
        "{cm} {requests}"
    );
    assert_eq!(cb, 128 * cm);
    assert!(u(&n["probe_messages"]) > 0, "{n}");
    assert!(u(&n["messages"]) > cm + u(&n["probe_messages"]));
}

/// A manager node needs interface nodes to delegate to, and `mesh2d` must be given a cell for
/// it: each error names its key and what is allowed.
#[test]
fn issue30_manager_node_bad_input_names_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let check = |path: &Path| {
        let o = vodbench(&["check", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o).1);
        text(&o).1
    };
    let alone = one_viewing(tmp.path(), "alone", true, "name = \"ports\"\n");
    let t = std::fs::read_to_string(&alone)
        .unwrap()
        .replace("interface_nodes = 1\n", "");
    std::fs::write(&alone, t).unwrap();
    let err = check(&alone);
    assert!(err.contains("server.manager_node"), "{err}");
    assert!(err.contains("set server.interface_nodes"), "{err}");
    // 4 storage nodes and 1 interface node placed, the manager not
    let mesh = "name = \"mesh2d\"\nrows = 2\ncols = 3\npositions = [0, 1, 2, 3, 4]\n";
    let err = check(&one_viewing(tmp.path(), "mesh", true, mesh));
    assert!(err.contains("positions"), "{err}");
    assert!(
        err.contains("gives 5 cells for 6 nodes (4 storage, 1 interface, 1 manager)"),
        "{err}"
    );
    // placed, it runs
    let mesh = "name = \"mesh2d\"\nrows = 2\ncols = 3\npositions = [0, 1, 2, 3, 4, 5]\n";
    let o = vodbench(&[
        "check",
        one_viewing(tmp.path(), "mesh-ok", true, mesh)
            .to_str()
            .unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
}
