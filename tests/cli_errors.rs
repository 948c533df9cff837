//! Bad input gives a clear error naming the file, line and key, exit code 2, never a panic.

mod common;
use common::{text, vodbench};

/// (fixture, fragments the error message must contain)
const CASES: &[(&str, &[&str])] = &[
    (
        "unknown-key.toml",
        &[
            "unknown-key.toml:2: key `colour`: unknown key `colour`",
            "allowed keys",
        ],
    ),
    (
        "out-of-range.toml",
        &[
            "out-of-range.toml:11:",
            "`server.disks_per_node`",
            "must be in 1..=1024, got 0",
        ],
    ),
    (
        "wrong-type.toml",
        &["wrong-type.toml:10:", "`server.nodes`", "invalid type"],
    ),
    (
        "bad-size.toml",
        &["bad-size.toml:12:", "`server.memory_per_node`", "512KiB"],
    ),
    (
        "unknown-plugin.toml",
        &[
            "unknown-plugin.toml:19:",
            "`disk.scheduler.name`",
            "unknown disk.scheduler `nope`",
            "elevator",
            "fcfs",
        ],
    ),
    (
        "plugin-param-range.toml",
        &[
            "plugin-param-range.toml:20:",
            "`prefetcher.processes`",
            "standard",
        ],
    ),
    (
        "plugin-unknown-param.toml",
        &[
            "plugin-unknown-param.toml:20:",
            "`disk.scheduler.direction`",
            "unknown",
        ],
    ),
    (
        "missing-workload.toml",
        &["missing-workload.toml", "workload"],
    ),
    (
        "bad-trace.toml",
        &["broken.trace:3", "jump", "start|pause|resume|seek|stop"],
    ),
    ("syntax.toml", &["syntax.toml:7", "invalid TOML"]),
    (
        "bad-warmup.toml",
        &["bad-warmup.toml:5:", "`run.warmup`", "\"auto\""],
    ),
    (
        "terminal-memory.toml",
        &[
            "terminal-memory.toml:16:",
            "`terminals.memory`",
            "cannot display frame",
            "must be at least",
        ],
    ),
    (
        "sweep-replaced-base.toml",
        &[
            "sweep-replaced-base.toml:22:",
            "`disk.scheduler.direction`",
            "every sweep point replaces this value",
        ],
    ),
    (
        "broadcast-replaced-base.toml",
        &[
            "broadcast-replaced-base.toml:18:",
            "`receiver.buffer.kappa`",
            "banana",
            "every sweep point replaces this value",
        ],
    ),
    (
        "layout-too-big.toml",
        &[
            "layout-too-big.toml:19:",
            "key `layout`",
            "cannot build layout `non-striped`",
            "use more disks",
        ],
    ),
    (
        "missing-disk-spec.toml",
        &[
            "missing-disk-spec.toml:16:",
            "key `disk.model.spec`",
            "no-such-disk.parv: cannot read",
        ],
    ),
    (
        "broadcast-kappa-over-cache.toml",
        &[
            "broadcast-kappa-over-cache.toml:14:",
            "key `receiver.buffer.kappa`",
            "κ = 1000 frames exceeds the cache of 100 frames",
        ],
    ),
    (
        "sweep-large-seed.toml",
        &[
            "sweep-large-seed.toml:5:",
            "holds integers up to 9223372036854775807",
            "--seed",
        ],
    ),
    (
        "sweep-key-twice.toml",
        &[
            "sweep-key-twice.toml:22:",
            "`sweep.terminals.count`",
            "sweep point (load = \"light\", terminals.count = 2)",
            "set by entry \"light\" of series `load` (line 26) too",
        ],
    ),
    (
        "generator-range.toml",
        &["generator-range.toml", "`workload.generate.z`"],
    ),
];

#[test]
fn issue2_bad_scenarios_are_named_errors_with_exit_2() {
    for (file, fragments) in CASES {
        let path = format!("tests/fixtures/bad/{file}");
        for cmd in ["check", "run"] {
            let out = vodbench(&[cmd, &path, "--quiet"][..if cmd == "check" { 2 } else { 3 }]);
            let (stdout, stderr) = text(&out);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{cmd} {file}: exit code; stderr: {stderr}"
            );
            assert!(
                !stderr.contains("panicked"),
                "{cmd} {file} panicked: {stderr}"
            );
            for f in *fragments {
                assert!(
                    stderr.contains(f),
                    "{cmd} {file}: `{f}` missing from error:\n{stderr}{stdout}"
                );
            }
        }
    }
}

/// What a broadcast run spills is known only by running it: `check` accepts the file, and
/// `run` reports the disk that is too small as the scenario's error (exit code 2), naming
/// the file and the key.
#[test]
fn issue6_a_receiver_disk_too_small_for_the_run_is_exit_2() {
    let path = "tests/fixtures/bad/broadcast-disk-full.toml";
    assert!(vodbench(&["check", path]).status.success());
    let out = vodbench(&["run", path, "--quiet"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("broadcast-disk-full.toml: the receiver's disk is full")
            && stderr.contains("receiver.disk"),
        "{stderr}"
    );
}

/// `run --terminals` or `--seed` on a sweep that sets that key would run every point with
/// the flag's value under labels naming the sweep's values: refused, exit code 2; a flag for
/// a key the sweep leaves alone still applies to every point.
/// A sweep whose values name one setting in two spellings would make one point twice: it
/// is refused as a list naming one value twice is.
#[test]
fn a_sweep_of_one_setting_spelled_twice_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let tiny = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    for list in [r#"["128KiB", "0.125MiB"]"#, r#"["128KiB", 131072]"#] {
        let f = tmp.path().join("twice.toml");
        std::fs::write(&f, format!("{tiny}\n[sweep]\n\"server.stripe\" = {list}\n")).unwrap();
        let o = vodbench(&["check", f.to_str().unwrap()]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{list}: {err}");
        assert!(err.contains("twice.toml:"), "{err}");
        assert!(err.contains("are the same configuration"), "{list}: {err}");
    }
}

#[test]
fn issue2_a_run_flag_that_would_override_a_swept_key_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let tiny = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    let cases = [
        (
            "count.toml",
            format!("{tiny}\n[sweep]\n\"terminals.count\" = [5, 7]\n"),
            "--terminals",
            "3",
            "`terminals.count`, which the sweep sets (`terminals.count`)",
        ),
        (
            "table.toml",
            format!(
                "{tiny}\n[[sweep.series.load]]\nlabel = \"light\"\n\
                 terminals = {{ count = 4, memory = \"1MiB\" }}\n"
            ),
            "--terminals",
            "3",
            "`terminals.count`, which the sweep sets (`terminals`)",
        ),
        (
            "seed.toml",
            format!("{tiny}\n[sweep]\nseed = [1, 2]\n"),
            "--seed",
            "9",
            "`seed`, which the sweep sets (`seed`)",
        ),
        (
            "broadcast.toml",
            std::fs::read_to_string("tests/fixtures/broadcast-tiny.toml")
                .unwrap()
                .replace("[sweep]\n", "[sweep]\nseed = [1, 2]\n"),
            "--seed",
            "9",
            "`seed`, which the sweep sets (`seed`)",
        ),
    ];
    for (name, contents, flag, value, fragment) in cases {
        let path = tmp.path().join(name);
        std::fs::write(&path, contents).unwrap();
        let path = path.to_str().unwrap();
        assert!(vodbench(&["check", path]).status.success(), "{name}");
        let out = vodbench(&["run", path, flag, value, "--quiet"]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{name}: {flag} would override {fragment}")),
            "{name}: {stderr}"
        );
    }
    // the seed of a sweep over the terminal count is the flag's to set
    let out = vodbench(&[
        "run",
        tmp.path().join("count.toml").to_str().unwrap(),
        "--seed",
        "9",
        "--quiet",
        "--out",
        tmp.path().join("out").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{:?}", text(&out));
}

/// An `--out` naming a folder vodbench did not write is never replaced (that would delete
/// its files): exit 2, naming the folder; the files stay.
#[test]
fn issue5_an_output_folder_of_the_users_is_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "precious").unwrap();
    for args in [
        &["run", "tests/fixtures/tiny.toml", "--quiet", "--out"][..],
        &[
            "search",
            "tests/fixtures/search_small.toml",
            "--quiet",
            "--out",
        ][..],
        // refused before searching: its checkpoints (points/) would have gone into the
        // folder, and made it look like a sweep's
        &[
            "sweep",
            "tests/fixtures/sweep_small.toml",
            "--quiet",
            "--out",
        ][..],
        &[
            "run",
            "tests/fixtures/broadcast-tiny.toml",
            "--quiet",
            "--out",
        ][..],
    ] {
        let out = vodbench(&[args, &[mine.to_str().unwrap()]].concat());
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("mine: exists and is not a vodbench output folder"),
            "{args:?}: {stderr}"
        );
        assert_eq!(
            std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
            "precious"
        );
        assert!(!mine.join("points").exists(), "{args:?}");
    }
    // a run's own folder is replaced by the next run into it
    let run = tmp.path().join("run");
    for _ in 0..2 {
        let out = vodbench(&[
            "run",
            "tests/fixtures/tiny.toml",
            "--quiet",
            "--out",
            run.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{:?}", text(&out));
    }
}

#[test]
fn issue2_missing_scenario_file_is_exit_2() {
    let out = vodbench(&["run", "tests/fixtures/does-not-exist.toml"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("does-not-exist.toml") && stderr.contains("cannot read"),
        "{stderr}"
    );
}

#[test]
fn issue2_bad_command_line_is_exit_2() {
    let out = vodbench(&["run", "scenarios/zipf1.toml", "--terminals", "many"]);
    assert_eq!(out.status.code(), Some(2));
    let out = vodbench(&["run", "scenarios/zipf1.toml", "--terminals", "0"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("terminals"), "{stderr}");
    let out = vodbench(&["trace", "zipf", "--terminals", "3"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("--videos"), "{stderr}");
    // a scenario whose workload is a trace has no generated workload to write
    let out = vodbench(&["trace", "zipf", "--scenario", "scenarios/interactive.toml"]);
    let (printed, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("its workload is the trace ../traces/interactive.trace"),
        "{stderr}"
    );
    assert!(printed.is_empty(), "nothing written: {printed}");
    // a minimum of replications above the most allowed, for both commands that search
    for cmd in ["search", "sweep"] {
        let out = vodbench(&[
            cmd,
            "scenarios/zipf1.toml",
            "--seeds",
            "4",
            "--min-seeds",
            "5",
        ]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(
            stderr.contains("--min-seeds 5 is more than --seeds 4"),
            "{cmd}: {stderr}"
        );
    }
    // a cache that is a file
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("cache");
    std::fs::write(&file, "").unwrap();
    for cmd in ["search", "sweep"] {
        let fixture = "tests/fixtures/search_small.toml";
        let out = vodbench(&[cmd, fixture, "--cache", file.to_str().unwrap()]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {stderr}");
        assert!(
            stderr.contains("--cache: ") && stderr.contains("cache: not a folder"),
            "{cmd}: {stderr}"
        );
    }
}

#[test]
fn issue2_check_accepts_every_bundled_scenario() {
    let mut files = Vec::new();
    for entry in walk(&common::root().join("scenarios")) {
        if entry.extension().is_some_and(|e| e == "toml") {
            files.push(entry);
        }
    }
    assert!(!files.is_empty());
    for f in files {
        let out = vodbench(&["check", f.to_str().unwrap()]);
        let (_, stderr) = text(&out);
        assert!(out.status.success(), "{}: {stderr}", f.display());
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Issue 37's smaller ones: each misleading input gets a message saying what is wrong
/// (exit 2), naming the key or the file: a trace path that is a folder or a device (not "does
/// not exist"), an empty trace (not "0 glitches"), `request_sample_every = 0` (not an empty
/// table), a description too long to copy into every manifest and report.
#[test]
fn issue37_misleading_inputs_say_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let head = original.split("[workload.generate]").next().unwrap();
    std::fs::write(tmp.path().join("empty.trace"), "").unwrap();
    std::fs::write(
        tmp.path().join("nostart.trace"),
        "# vodbench-trace v1\n1.0 0 pause 0 0\n2.0 0 resume 0 0\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("far.trace"),
        "# vodbench-trace v1\n1.0 0 start 0 0\n2.0 99 start 1 0\n",
    )
    .unwrap();
    let mut cases: Vec<(String, &str, &[&str])> = vec![
        (
            format!("{head}[workload]\ntrace = \".\"\n"),
            "run",
            &["workload.trace", "is a folder, not a file"],
        ),
        (
            format!("{head}[workload]\ntrace = \"empty.trace\"\n"),
            "run",
            &["empty.trace", "holds no events"],
        ),
        (
            format!("{head}[workload]\ntrace = \"nostart.trace\"\n"),
            "run",
            &["nostart.trace", "holds 2 events but no `start`"],
        ),
        (
            format!("{head}[workload]\ntrace = \"far.trace\"\n"),
            "run",
            &[
                "far.trace:3:",
                "outside the scenario",
                "terminals.count = 12",
            ],
        ),
        (
            original.replace(
                "duration = \"2min\"",
                "duration = \"2min\"\nrequest_sample_every = 0",
            ),
            "check",
            &["run.request_sample_every", "must be in 1..="],
        ),
        (
            original.replace(
                "seed = 42",
                &format!("seed = 42\ndescription = \"{}\"", "x".repeat(70_000)),
            ),
            "check",
            &["description", "at most 65536 bytes"],
        ),
        (
            original.replace(
                "popularity = \"zipf\"\nz = 1.0",
                "popularity = \"uniform\"\nz = 0.5",
            ),
            "check",
            &["z", "is 0.5, but z is the skew of zipf popularity"],
        ),
        (
            original.replace(
                "name = \"tiny\"",
                &format!("name = \"{}\"", "é".repeat(201)),
            ),
            "check",
            &["name", "must be 1..=200 characters, got 201"],
        ),
    ];
    if std::path::Path::new("/dev/zero").exists() {
        cases.push((
            format!("{head}[workload]\ntrace = \"/dev/zero\"\n"),
            "check",
            &["workload.trace", "not a regular file"],
        ));
    }
    for (i, (scenario, command, want)) in cases.iter().enumerate() {
        let path = tmp.path().join(format!("case{i}.toml"));
        std::fs::write(&path, scenario).unwrap();
        let out = tmp.path().join(format!("out{i}"));
        let o = vodbench(
            &[
                *command,
                path.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ][..if *command == "check" { 2 } else { 4 }],
        );
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "case {i}: {stdout}{stderr}");
        for w in *want {
            assert!(
                stderr.contains(w) || stdout.contains(w),
                "case {i}: {w}: {stdout}{stderr}"
            );
        }
    }
}

/// A FIFO or `/dev/zero` named as a disk specification is refused, not read forever.
#[test]
fn issue37_a_disk_spec_that_is_a_device_is_refused() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let scenario = tmp.path().join("zero.toml");
    std::fs::write(
        &scenario,
        original.replace(
            "name = \"analytic\"\nspec = \"st15150n\"",
            "name = \"mechanical\"\nspec = \"/dev/zero\"",
        ),
    )
    .unwrap();
    let o = vodbench(&["check", scenario.to_str().unwrap()]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        (stderr + &stdout).contains("not a regular file"),
        "a device is named as what it is"
    );
}

/// A name's limit is in characters, as its message says: 150 two-byte characters pass.
#[test]
fn issue37_a_name_is_measured_in_characters() {
    let tmp = tempfile::tempdir().unwrap();
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let path = tmp.path().join("long.toml");
    std::fs::write(
        &path,
        original.replace(
            "name = \"tiny\"",
            &format!("name = \"{}\"", "é".repeat(150)),
        ),
    )
    .unwrap();
    let o = vodbench(&["check", path.to_str().unwrap()]);
    assert!(o.status.success(), "{:?}", text(&o));
}

/// A plugin's build error that names its parameter points at that parameter's key and line,
/// not only at the plugin's table.
#[test]
fn issue30_a_plugin_parameter_refused_at_build_names_its_key_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = std::fs::read_to_string(common::root().join("scenarios/jadav/fig11-rdss.toml"))
        .unwrap()
        .replacen("factor = 4", "factor = 50", 1);
    let line = scenario.lines().position(|l| l == "factor = 50").unwrap() + 1;
    let file = tmp.path().join("factor.toml");
    std::fs::write(&file, scenario).unwrap();
    let o = vodbench(&["check", file.to_str().unwrap()]);
    let err = text(&o).1;
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("factor.toml:{line}: key `layout.factor`"))
            && err.contains("must be in 1..=24")
            && err.contains("got 50"),
        "{err}"
    );
}

/// A generated workload the generator refuses (more viewings of their own than videos) is
/// an error naming the scenario file, the key and its line, like every other bad value
/// (found by `tests/scenario_fuzz.rs` once it generated `distinct` workloads).
#[test]
fn issue30_a_workload_needing_more_videos_names_the_file_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = std::fs::read_to_string(common::root().join("scenarios/jadav/fig11-rdss.toml"))
        .unwrap()
        .replacen("count = 1500", "count = 20", 1);
    let line = scenario
        .lines()
        .position(|l| l.starts_with("popularity = "))
        .unwrap()
        + 1;
    let file = tmp.path().join("few.toml");
    std::fs::write(&file, scenario).unwrap();
    let o = vodbench(&["check", file.to_str().unwrap()]);
    let err = text(&o).1;
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "few.toml:{line}: key `workload.generate.popularity`"
        )) && err.contains("videos.count is 20"),
        "{err}"
    );
}

/// Runs vodbench with `args`, killing it after 60 s (a hang fails the test instead of
/// stalling the suite); its exit code and stderr.
fn bounded(args: &[&str]) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .args(args)
        .current_dir(common::root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Issue 49, item 8: a FIFO given to `cache replay` in its default format is refused before
/// it is opened (opening it blocked), and a kernel file — regular by its kind, size 0, its
/// read blocking like `/proc/kmsg`'s; `/proc/self/status` stands for it, as it reads without
/// blocking — is refused as a request trace, a disk specification and a workload trace,
/// before any read.
#[cfg(target_os = "linux")]
#[test]
fn issue49_fifos_and_kernel_files_are_refused_before_any_read() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("requests");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let replay = |trace: &str| {
        let out = tmp.path().join("out");
        bounded(&[
            "cache",
            "replay",
            "--trace",
            trace,
            "--pool",
            "fifo",
            "--size",
            "10",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let (code, err) = replay(fifo.to_str().unwrap());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("requests: is not a regular file"), "{err}");
    let kernel = "/proc/self/status";
    if !std::path::Path::new(kernel).exists() {
        return;
    }
    let (code, err) = replay(kernel);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("/proc/self/status: is a kernel file (on proc)"),
        "{err}"
    );
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let spec = original.replace(
        "name = \"analytic\"\nspec = \"st15150n\"",
        &format!("name = \"mechanical\"\nspec = \"{kernel}\""),
    );
    let start = original.find("[workload.generate]").unwrap();
    let trace = format!("{}[workload]\ntrace = \"{kernel}\"\n", &original[..start]);
    for (name, text_) in [("spec", spec), ("trace", trace)] {
        let file = tmp.path().join(format!("{name}.toml"));
        std::fs::write(&file, text_).unwrap();
        let (code, err) = bounded(&["check", file.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains("is a kernel file (on proc)"), "{name}: {err}");
    }
}

/// Issue 49, messages that misled: each now says what is wrong.
#[test]
fn issue49_messages_say_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    // `--out /` is refused as the root, not walked into /proc
    let o = vodbench(&["run", "tests/fixtures/tiny.toml", "--quiet", "--out", "/"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("/: is the root of the file system"), "{err}");
    // a duration too large says so, with the largest
    let original =
        std::fs::read_to_string(common::root().join("tests/fixtures/tiny.toml")).unwrap();
    let long = original.replace("duration = \"2min\"", "duration = \"7777777777h\"");
    assert_ne!(long, original);
    let line = long
        .lines()
        .position(|l| l.starts_with("duration = "))
        .unwrap()
        + 1;
    common::refused(
        &long,
        &[
            &format!("bad.toml:{line}: key `run.duration`"),
            "\"7777777777h\" is too large: at most 5124095h",
        ],
    );
    // published values are numbers
    for v in ["nan", "-inf", "inf"] {
        common::refused(
            &format!("{original}\n[paper]\nmax_terminals = 12\ndisk_utilization = {v}\n"),
            &[
                "key `paper.disk_utilization`",
                &format!(
                    "must be a finite number (a published value), got {}",
                    v.replace("nan", "NaN")
                ),
            ],
        );
    }
    // a sweep point's error names the point when the point set its table
    let admission = std::fs::read_to_string(common::root().join("scenarios/jadav/admission.toml"))
        .unwrap()
        .replace(
            "[admission]\nname = \"accept-all\"",
            "[admission]\nname = \"buffer\"\ntotal = \"48MiB\"",
        );
    assert!(admission.contains("total = \"48MiB\""));
    common::refused(
        &admission,
        &[
            "sweep point (policy = \"retrieval\")",
            "key `admission.total`",
            "this point sets `admission.name`",
        ],
    );
    // an array element is located at its own line, not at its table's header
    let wu = std::fs::read_to_string(common::root().join("scenarios/wu/fig12-continuity-32k.toml"))
        .unwrap()
        .replace(
            "dm_max = [\"5ms\", \"10ms\", \"15ms\", \"20ms\", \"25ms\", \"30ms\", \"35ms\"]",
            "dm_max = [\n  \"6ms\",\n  \"eleven ms\",\n]",
        );
    let line = wu.lines().position(|l| l == "  \"eleven ms\",").unwrap() + 1;
    common::refused(
        &wu,
        &[&format!("bad.toml:{line}: key `analytic.dm_max[1]`")],
    );
    let pappas = std::fs::read_to_string(
        common::root().join("scenarios/pappas/clients-fig1-2-packets.toml"),
    )
    .unwrap()
    .replacen("rx_queue = \"64KiB\"", "rx_queue = \"a few\"", 1);
    let line = pappas
        .lines()
        .position(|l| l == "rx_queue = \"a few\"")
        .unwrap()
        + 1;
    common::refused(
        &pappas,
        &[&format!(
            "bad.toml:{line}: key `clients.profile[0].rx_queue`"
        )],
    );
    // rerun of a FIFO says what it is
    let fifo = tmp.path().join("manifest.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (code, err) = bounded(&["rerun", fifo.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("manifest.json: is not a regular file (a device, FIFO or socket)"),
        "{err}"
    );
    // a task number too large is out of range, not "not a whole number"
    let o = vodbench(&[
        "sweep",
        "tests/fixtures/sweep_small.toml",
        "--task",
        "18446744073709551616/4",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is out of range: at most 4294967295"), "{err}");
}
