//! `vodbench cache generate` and `vodbench cache replay` (issue 33) end to end: a zstd
//! Zipf trace replayed through two pools at two sizes writes cache.json, the cache and speed
//! tables and a report with the miss-ratio chart; the same command gives the same results
//! files on 1 and 2 threads; bad input exits 2 naming what is wrong.

mod common;
use common::{text, vodbench};

#[test]
fn issue33_cache_replay_writes_results_tables_and_report() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("zipf.oracleGeneral.zst");
    let t = trace.to_str().unwrap();
    let generate = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "cache",
            "generate",
            "--objects",
            "2000",
            "--requests",
            "50000",
        ];
        args.extend(["--seed", "5", "--out", out]);
        args.extend_from_slice(extra);
        vodbench(&args)
    };
    let replay = |dir: &std::path::Path, extra: &[&str]| {
        let mut args = vec!["cache", "replay", "--trace", t];
        args.extend([
            "--pool",
            "global-lru,s3-fifo{small_ratio = 0.2}",
            "--pool",
            "belady",
        ]);
        args.extend(["--size", "50,500", "--out", dir.to_str().unwrap()]);
        args.extend_from_slice(extra);
        vodbench(&args)
    };
    let o = generate(t, &[]);
    assert!(o.status.success(), "{:?}", text(&o));
    let run = |threads: &str, out: &str| {
        let dir = tmp.path().join(out);
        let o = replay(&dir, &["--threads", threads]);
        assert!(o.status.success(), "{:?}", text(&o));
        (dir, text(&o).0)
    };
    let (one, printed) = run("1", "one");
    assert!(
        printed.contains("50000 requests (oracleGeneral format)"),
        "{printed}"
    );
    assert!(printed.contains("s3-fifo{small_ratio=0.2}"), "{printed}");
    for f in [
        "cache.json",
        "cache.csv",
        "cache.parquet",
        "speed.csv",
        "speed.parquet",
        "report.html",
    ] {
        assert!(one.join(f).is_file(), "{f} missing");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("cache.json")).unwrap()).unwrap();
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 6);
    for r in results {
        assert_eq!(
            r["hits"].as_u64().unwrap() + r["misses"].as_u64().unwrap(),
            50_000
        );
    }
    let csv = std::fs::read_to_string(one.join("cache.csv")).unwrap();
    assert!(csv.starts_with("pool,size_bytes,requests,hits,misses,evictions,bytes_requested,bytes_missed,miss_ratio,byte_miss_ratio\n"), "{csv}");
    let speed = std::fs::read_to_string(one.join("speed.csv")).unwrap();
    assert!(
        speed.starts_with("pool,size_bytes,wall_s,requests_per_s\n"),
        "{speed}"
    );
    let html = std::fs::read_to_string(one.join("report.html")).unwrap();
    assert!(html.contains("Miss ratio vs cache size") && html.contains("<svg"));
    assert!(html.contains("belady") && html.contains("global-lru"));
    // threads change nothing but the speed
    let (two, _) = run("2", "two");
    common::assert_same_files(
        &one,
        &two,
        &["cache.json", "cache.csv", "cache.parquet", "report.html"],
        "between 1 and 2 threads",
    );
    // the report is drawn again from the saved folder alone
    let o = vodbench(&["report", two.to_str().unwrap()]);
    assert!(o.status.success(), "{:?}", text(&o));
    common::assert_same_files(&one, &two, &["report.html"], "after vodbench report");
    // `-q`: both commands print nothing, and write the same files (the replay names its
    // trace in cache.json, so it replays the first one)
    let quiet = tmp.path().join("quiet.oracleGeneral.zst");
    let q = quiet.to_str().unwrap();
    let o = generate(q, &["-q"]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(text(&o), (String::new(), String::new()));
    assert_eq!(std::fs::read(q).unwrap(), std::fs::read(t).unwrap());
    let three = tmp.path().join("three");
    let o = replay(&three, &["--quiet"]);
    assert!(o.status.success(), "{:?}", text(&o));
    assert_eq!(text(&o), (String::new(), String::new()));
    common::assert_same_files(
        &one,
        &three,
        &["cache.json", "cache.csv", "cache.parquet", "report.html"],
        "with --quiet",
    );
}

#[test]
fn issue33_cache_replay_refuses_bad_input_with_exit_code_2() {
    let tmp = tempfile::tempdir().unwrap();
    let cut = tmp.path().join("cut.bin");
    std::fs::write(&cut, [0u8; 30]).unwrap();
    let csv = tmp.path().join("t.csv");
    std::fs::write(&csv, "1,abc,3\n").unwrap();
    let out = tmp.path().join("out");
    let o_ = out.to_str().unwrap();
    for (args, says) in [
        (
            vec![
                "--trace",
                cut.to_str().unwrap(),
                "--pool",
                "fifo",
                "--size",
                "10",
            ],
            "record 2: cut short: 6 of 24 bytes",
        ),
        (
            vec![
                "--trace",
                csv.to_str().unwrap(),
                "--pool",
                "fifo",
                "--size",
                "10",
            ],
            "t.csv:1: column 2 (object id): expected an unsigned integer, found \"abc\"",
        ),
        (
            vec![
                "--trace",
                cut.to_str().unwrap(),
                "--pool",
                "lru",
                "--size",
                "10",
            ],
            "--pool lru: unknown buffer_pool `lru`",
        ),
        (
            vec![
                "--trace",
                cut.to_str().unwrap(),
                "--pool",
                "fifo",
                "--size",
                "lots",
            ],
            "--size lots: expected bytes",
        ),
        (
            vec![
                "--trace",
                cut.to_str().unwrap(),
                "--pool",
                "fifo",
                "--size",
                "10",
                "--threads",
                "100000",
            ],
            "100000 is not in 1..=1024",
        ),
    ] {
        let mut a = vec!["cache", "replay", "--out", o_];
        a.extend(args);
        let o = vodbench(&a);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {err}");
        assert!(err.contains(says), "{a:?}: {err}");
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn issue33_cache_replay_reads_vodbench_workload_traces_as_block_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = vodbench(&[
        "cache",
        "replay",
        "--trace",
        "traces/interactive.trace",
        "--pool",
        "global-lru",
        "--size",
        "64MiB",
        "--block",
        "256KiB",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (printed, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(printed.contains("requests (vodbench format)"), "{printed}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("cache.json")).unwrap()).unwrap();
    assert_eq!(json["format"], "vodbench");
    assert!(
        json["requests"].as_u64().unwrap() > 100_000,
        "{}",
        json["requests"]
    );
    // every request is one block
    assert_eq!(json["object_bytes"]["min"], 262_144);
    assert_eq!(json["object_bytes"]["max"], 262_144);
}

/// Issue 49, item 2: `cache generate` replaces only the trace it wrote, as its mark beside
/// it records: a user's CSV with the very header it writes, a third-party oracleGeneral file
/// numbered as it numbers records, and its own trace edited since are all refused (exit 2)
/// and left as they were.
#[test]
fn issue49_cache_generate_replaces_only_a_trace_carrying_its_mark() {
    let tmp = tempfile::tempdir().unwrap();
    let generate = |out: &std::path::Path, seed: &str| {
        let o = vodbench(&[
            "cache",
            "generate",
            "--objects",
            "7",
            "--requests",
            "20",
            "--seed",
            seed,
            "--out",
            out.to_str().unwrap(),
        ]);
        (o.status.code(), text(&o).1)
    };
    let csv = tmp.path().join("capture.csv");
    let theirs = "time,id,size\n1699999999,42,512\n1700000003,43,1024\n";
    std::fs::write(&csv, theirs).unwrap();
    let mut oracle = Vec::new();
    for i in 0..3u32 {
        oracle.extend_from_slice(&i.to_le_bytes());
        oracle.extend_from_slice(&(1000 + u64::from(i)).to_le_bytes());
        oracle.extend_from_slice(&4096u32.to_le_bytes());
        oracle.extend_from_slice(&(-1i64).to_le_bytes());
    }
    let bin = tmp.path().join("prod.oracleGeneral");
    std::fs::write(&bin, &oracle).unwrap();
    for (p, before) in [(&csv, theirs.as_bytes()), (&bin, oracle.as_slice())] {
        let (code, err) = generate(p, "3");
        assert_eq!(code, Some(2), "{}: {err}", p.display());
        assert!(
            err.contains("is not a request trace `vodbench cache generate` wrote")
                && err.contains(".vodbench.json"),
            "{err}"
        );
        assert_eq!(std::fs::read(p).unwrap(), before, "{} kept", p.display());
    }
    // its own trace carries the mark and is replaced; once edited, it is the user's
    let own = tmp.path().join("own.zst");
    assert_eq!(generate(&own, "3").0, Some(0));
    assert!(tmp.path().join(".own.zst.vodbench.json").is_file());
    let first = std::fs::read(&own).unwrap();
    assert_eq!(generate(&own, "4").0, Some(0));
    let second = std::fs::read(&own).unwrap();
    assert_ne!(first, second);
    let mut edited = second.clone();
    edited.push(0);
    std::fs::write(&own, &edited).unwrap();
    assert_eq!(generate(&own, "5").0, Some(2));
    assert_eq!(std::fs::read(&own).unwrap(), edited);
}

/// `cache generate` never overwrites a file of the user's (issue 37, item 1, for the command
/// issue 33 added), replaces a trace it wrote in each of its formats, and refuses a trace
/// whose making would pass the memory limit before allocating it (item 4).
#[test]
fn issue37_cache_generate_keeps_users_files_and_refuses_above_the_memory_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let generate = |out: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "cache",
            "generate",
            "--objects",
            "10",
            "--requests",
            "100",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = vodbench(&args);
        (o.status.code(), text(&o))
    };
    let mine = tmp.path().join("results.csv");
    std::fs::write(&mine, "city,population\nLyon,522250\n").unwrap();
    let (code, (_, err)) = generate(&mine, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is not a request trace"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "city,population\nLyon,522250\n"
    );
    for name in ["t.csv", "t.oracleGeneral.zst", "t.oracleGeneral"] {
        let p = tmp.path().join(name);
        assert_eq!(generate(&p, &[]).0, Some(0), "{name}");
        let first = std::fs::read(&p).unwrap();
        let (code, out) = generate(&p, &["--seed", "2"]);
        assert_eq!(code, Some(0), "{name}: {out:?}");
        assert_ne!(std::fs::read(&p).unwrap(), first, "{name} was replaced");
    }
    let big = tmp.path().join("big.zst");
    let o = vodbench(&[
        "cache",
        "generate",
        "--objects",
        "10",
        "--requests",
        "1000000",
        "--max-memory",
        "20MiB",
        "--out",
        big.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--requests 1000000") && err.contains("--max-memory"),
        "{err}"
    );
    assert!(!big.exists());
}

/// Issue 49, item 9 and its messages: a workload trace read in blocks so small that its
/// viewers would make more requests than a replay takes is refused before any replay,
/// counted from its events; a block larger than a whole video is refused, not reported as a
/// read of the block's size; an empty `--size` or `--pool` list and a fraction of a byte are
/// errors, not an empty table or a size silently rounded down.
#[test]
fn issue49_cache_replay_refuses_runaway_blocks_and_empty_or_fractional_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let replay = |extra: &[&str]| {
        let mut args = vec![
            "cache",
            "replay",
            "--trace",
            "traces/interactive.trace",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = vodbench(&args);
        (o.status.code(), text(&o).1)
    };
    let started = std::time::Instant::now();
    let (code, err) = replay(&["--pool", "fifo", "--size", "1MiB", "--block", "3B"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("traces/interactive.trace: read in blocks of --block 3B")
            && err.contains("more than the 4294967295 a replay takes"),
        "{err}"
    );
    assert!(started.elapsed().as_secs() < 60, "counted, not replayed");
    let (code, err) = replay(&["--pool", "fifo", "--size", "1MiB", "--block", "4TiB"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "--block 4TiB: 4398046511104 bytes, larger than a whole video (1800000000 bytes"
        ),
        "{err}"
    );
    for (extra, says) in [
        (["--pool", "fifo", "--size", ""], "no cache size given"),
        (["--pool", "fifo", "--size", " , "], "no cache size given"),
        (["--pool", "", "--size", "1MiB"], "no buffer pool given"),
        (
            ["--pool", "fifo", "--size", "2.5"],
            "--size 2.5: not a whole number of bytes",
        ),
    ] {
        let (code, err) = replay(&extra);
        assert_eq!(code, Some(2), "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    assert!(!out.exists(), "nothing written");
}

/// Replays `args` (after `cache replay --out OUT`): exit code, stdout, stderr.
fn replay_cli(out: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut a = vec!["cache", "replay", "--out", out.to_str().unwrap()];
    a.extend_from_slice(args);
    let o = vodbench(&a);
    let (so, se) = text(&o);
    (o.status.code(), so, se)
}

/// Belady never trusts a trace's next-access column (issue 49, item 4): two copies of a
/// generated zstd trace, concatenated, replay with the optimum of the requests read and a
/// warning naming how many recorded next accesses were wrong; a CSV trace, which records
/// none, gets them computed too.
#[test]
fn issue49_belady_recomputes_next_accesses_and_says_how_many_were_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("one.oracleGeneral.zst");
    let o = vodbench(&[
        "cache",
        "generate",
        "--objects",
        "700",
        "--requests",
        "9000",
        "--seed",
        "13",
        "--out",
        one.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let zst = std::fs::read(&one).unwrap();
    let twice = tmp.path().join("twice.oracleGeneral.zst");
    std::fs::write(&twice, [zst.as_slice(), zst.as_slice()].concat()).unwrap();
    let misses = |dir: &str, trace: &std::path::Path, extra: &[&str]| {
        let out = tmp.path().join(dir);
        let mut a = vec![
            "--trace",
            trace.to_str().unwrap(),
            "--pool",
            "belady,global-lru",
        ];
        a.extend_from_slice(&["--size", "40"]);
        a.extend_from_slice(extra);
        let (code, printed, err) = replay_cli(&out, &a);
        assert_eq!(code, Some(0), "{err}");
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("cache.json")).unwrap()).unwrap();
        let m = |pool: &str| {
            json["results"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["pool"] == pool)
                .unwrap()["misses"]
                .as_u64()
                .unwrap()
        };
        (m("belady"), m("global-lru"), printed, json)
    };
    let (b1, l1, printed, json) = misses("one", &one, &[]);
    assert!(
        printed.contains("all 9000 of its recorded ones agree"),
        "{printed}"
    );
    assert_eq!(json["next_access"]["recorded_wrong"], 0);
    let (b2, l2, printed, json) = misses("twice", &twice, &[]);
    assert!(b1 < l1 && b2 < l2, "{b1} {l1} {b2} {l2}");
    // the second copy misses at most what the first did (it starts with a warm cache), and
    // Belady stays below LRU on the whole
    assert!(b2 <= 2 * b1 && b2 > b1, "{b1} {b2}");
    // wrong: the second copy's, which count from 0 again, and the first copy's last request
    // of each object, which says never: one per request of a copy
    let wrong = json["next_access"]["recorded_wrong"].as_u64().unwrap();
    assert_eq!(wrong, 9_000);
    assert!(
        printed.contains(&format!(
            "warning: next accesses for belady: {wrong} of the trace's 18000 recorded next accesses are wrong"
        )),
        "{printed}"
    );
    // the same requests as CSV: no column to trust, the same optimum
    let csv = tmp.path().join("one.csv");
    let o = vodbench(&[
        "cache",
        "generate",
        "--objects",
        "700",
        "--requests",
        "9000",
        "--seed",
        "13",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let (b3, l3, printed, _) = misses("csv", &csv, &["--header"]);
    assert_eq!((b3, l3), (b1, l1));
    assert!(printed.contains("its format records none"), "{printed}");
}

/// Byte counters never wrap (issue 49, item 6): a trace whose bytes would pass 2^63 - 1 is
/// refused naming the line where they do, as is an object or a cache larger than that; a
/// trace just within it replays with `cache.csv` and `cache.json` agreeing, every byte
/// miss ratio within 0..=1.
#[test]
fn issue49_cache_replay_byte_counts_never_wrap() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let write = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let e18 = |x: u64| (x * 1_000_000_000_000_000_000u64).to_string();
    let past = write(
        "past.csv",
        &(1..=4)
            .map(|i| format!("{i},{i},{}\n", e18(3)))
            .collect::<String>(),
    );
    let huge = write("huge.csv", "1,1,5\n2,2,9300000000000000000\n");
    for (trace, size, says) in [
        (&past, "1KiB", "past.csv:4: an object of 3000000000000000000 bytes brings the bytes requested past 9223372036854775807"),
        (&huge, "1KiB", "huge.csv:2: an object of 9300000000000000000 bytes brings the bytes requested past 9223372036854775807"),
        (&past, "9300000000000000000", "--size 9300000000000000000: 9300000000000000000 bytes: at most 9223372036854775807"),
    ] {
        let (code, _, err) =
            replay_cli(&out, &["--trace", trace.to_str().unwrap(), "--pool", "fifo", "--size", size]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(!err.contains(".partial") && !err.contains("lost"), "{err}");
        assert!(!out.exists());
    }
    // three requests of 3·10^18 bytes (9·10^18 in all, within 2^63 - 1); caches of 5·10^18
    // and 7·10^18 bytes
    let within = write(
        "within.csv",
        &format!("1,1,{0}\n2,2,{0}\n3,1,{0}\n", e18(3)),
    );
    let (code, _, err) = replay_cli(
        &out,
        &[
            "--trace",
            within.to_str().unwrap(),
            "--pool",
            "fifo,global-lru",
            "--size",
            &format!("{},{}", e18(5), e18(7)),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("cache.json")).unwrap()).unwrap();
    assert_eq!(json["bytes_requested"].as_u64(), Some(9 * 10u64.pow(18)));
    let csv = std::fs::read_to_string(out.join("cache.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    let results = json["results"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for (row, r) in rows.iter().zip(results) {
        let c: Vec<&str> = row.split(',').collect();
        // pool,size_bytes,requests,hits,misses,evictions,bytes_requested,bytes_missed,…
        assert_eq!(c[6], r["bytes_requested"].to_string(), "{row}");
        assert_eq!(c[7], r["bytes_missed"].to_string(), "{row}");
        assert_eq!(c[6], "9000000000000000000", "{row}");
        let ratio = r["byte_miss_ratio"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&ratio), "{row}");
        let want = if r["size_bytes"].as_u64() == Some(5 * 10u64.pow(18)) {
            "9000000000000000000"
        } else {
            "6000000000000000000"
        };
        assert_eq!(c[7], want, "{row}");
    }
}
