//! Plugins built apart from vodbench and loaded by the stock binary (issue 47): a C library
//! (`examples/c-plugin`), the example Rust `cdylib` (`examples/sstf-plugin`) and a library of
//! policies that break the boundary on purpose (`tests/plugins/faulty`).
//!
//! The C library is built here with the system's C compiler (`cc`, or `$CC`), as its README
//! shows; the Rust libraries are the workspace's own build products (built here with cargo
//! when the workspace build did not make them).

mod common;
use common::{root, text, vodbench};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder the `vodbench` binary (and the workspace's cdylibs) were built into.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_vodbench"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The workspace's cdylib `lib{name}.so`: where the workspace's test build put it (`deps/`,
/// for a crate with integration tests) or `cargo build` did, else built here into a target
/// folder of its own (the workspace's is locked while its tests run).
fn rust_library(package: &str, name: &str) -> PathBuf {
    let file = format!("lib{name}.so");
    for dir in [target_dir().join("deps"), target_dir()] {
        if dir.join(&file).is_file() {
            return dir.join(&file);
        }
    }
    let own = target_dir().parent().unwrap().join("plugin-abi-tests");
    let mut c = Command::new(env!("CARGO"));
    c.current_dir(root())
        .args(["build", "--release", "-p", package, "--lib"])
        .env("CARGO_TARGET_DIR", &own);
    let o = c.output().expect("cargo runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lib = own.join("release").join(&file);
    assert!(lib.is_file(), "{} was not built", lib.display());
    lib
}

fn faulty() -> PathBuf {
    rust_library("vodbench-faulty-plugins", "vodbench_faulty_plugins")
}

fn sstf() -> PathBuf {
    rust_library("vodbench-sstf-example", "vodbench_sstf_example")
}

/// Compiles C `source` (a file, or text when it holds a newline) into `out` as the C
/// example's README does, with `extra` flags.
fn cc(source: &str, out: &Path, extra: &[&str]) -> PathBuf {
    let dir = out.parent().unwrap();
    let src = if source.contains('\n') {
        let p = dir.join(format!("{}.c", out.file_stem().unwrap().to_string_lossy()));
        std::fs::write(&p, source).unwrap();
        p
    } else {
        root().join(source)
    };
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let o = Command::new(&compiler)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-I"])
        .arg(root().join("plugin-api/include"))
        .arg(&src)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("the C compiler `{compiler}`: {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out.to_path_buf()
}

/// The C example library, built into `dir`.
fn c_example(dir: &Path) -> PathBuf {
    cc(
        "examples/c-plugin/fcfs_fifo.c",
        &dir.join("libfcfs_fifo.so"),
        &[],
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `tests/fixtures/tiny.toml` with `extra` TOML inserted before `[terminals]`, as `name`.
fn tiny_with(dir: &Path, name: &str, extra: &str) -> PathBuf {
    let t = std::fs::read_to_string(root().join("tests/fixtures/tiny.toml")).unwrap();
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(
        &p,
        t.replace("[terminals]", &format!("{extra}\n[terminals]")),
    )
    .unwrap();
    p
}

/// Every results file of an output folder (not the manifest or marks), by relative path.
fn results(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if name.ends_with(".csv") || name == "summary.json" {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn run_ok(args: &[&str]) -> (String, String) {
    let o = vodbench(args);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{args:?}: {err}");
    (out, err)
}

/// Runs `args`, which must fail with exit code 2 and no panic of vodbench's own; stderr.
fn refused(args: &[&str]) -> String {
    let o = vodbench(args);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("thread 'main' panicked"), "{err}");
    err
}

#[test]
fn issue47_c_plugins_equal_the_builtins_on_zipf1_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let lib = c_example(dir.path());
    let zipf1 = std::fs::read_to_string(root().join("scenarios/zipf1.toml")).unwrap();
    for (table, builtin, loaded) in [
        ("[disk.scheduler]\nname = \"elevator\"", "fcfs", "c-fcfs"),
        ("[buffer_pool]\nname = \"global-lru\"", "fifo", "c-fifo"),
    ] {
        let mut folders = Vec::new();
        for name in [builtin, loaded] {
            let head = table.split('\n').next().unwrap();
            let text_ = zipf1.replace(table, &format!("{head}\nname = \"{name}\""));
            assert_ne!(text_, zipf1, "zipf1.toml no longer has {table}");
            let file = dir.path().join(format!("{name}.toml"));
            std::fs::write(&file, text_).unwrap();
            let out = dir.path().join(name);
            run_ok(&[
                "run",
                s(&file),
                "--quiet",
                "--out",
                s(&out),
                "--plugin",
                s(&lib),
            ]);
            folders.push(out);
        }
        let (a, b) = (results(&folders[0]), results(&folders[1]));
        assert!(
            a.iter().any(|(f, _)| f == "summary.json") && a.len() > 1,
            "{a:?}"
        );
        assert_eq!(
            a.iter().map(|(f, _)| f).collect::<Vec<_>>(),
            b.iter().map(|(f, _)| f).collect::<Vec<_>>()
        );
        for ((f, x), (_, y)) in a.iter().zip(&b) {
            // the plugin's name is the only difference a results file may show
            let y = String::from_utf8_lossy(y).replace(loaded, builtin);
            assert!(
                String::from_utf8_lossy(x) == y,
                "{f} differs between `{builtin}` and the C library's `{loaded}`"
            );
        }
        // the manifest names the library and its hash
        let m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(folders[1].join("manifest.json")).unwrap(),
        )
        .unwrap();
        let slot = if builtin == "fcfs" {
            "disk.scheduler"
        } else {
            "buffer_pool"
        };
        let lib_line = &m["plugins"][slot]["library"];
        let canonical = lib.canonicalize().unwrap();
        assert_eq!(lib_line["path"], s(&canonical), "{m}");
        assert_eq!(lib_line["sha256"].as_str().unwrap().len(), 64, "{m}");
        assert_eq!(m["plugin_libraries"][0]["path"], s(&canonical), "{m}");
    }
}

#[test]
fn issue47_the_rust_cdylib_runs_in_the_stock_binary_as_the_static_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let lib = sstf();
    let file = tiny_with(dir.path(), "sstf", "[disk.scheduler]\nname = \"sstf\"\n");
    let loaded = dir.path().join("loaded");
    run_ok(&[
        "run",
        s(&file),
        "-q",
        "--out",
        s(&loaded),
        "--plugin",
        s(&lib),
    ]);
    let static_bin = target_dir().join("vodbench-sstf");
    if static_bin.is_file() {
        let linked = dir.path().join("linked");
        let o = Command::new(&static_bin)
            .args(["run", s(&file), "-q", "--out", s(&linked)])
            .current_dir(root())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(results(&loaded), results(&linked));
    }
    // listed with its description and parameters, beside the built-ins
    let (out, _) = run_ok(&["plugins", "--plugin", s(&lib)]);
    assert!(
        out.contains("sstf") && out.contains("shortest seek time first"),
        "{out}"
    );
    assert!(out.contains("elevator"), "{out}");
    let (out, _) = run_ok(&["plugins", "--plugin", s(&faulty())]);
    assert!(out.contains("panicky") && out.contains("after"), "{out}");
}

#[test]
fn issue47_a_scenario_loads_its_own_libraries_relative_to_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("libs")).unwrap();
    c_example(&dir.path().join("libs"));
    let file = tiny_with(
        dir.path(),
        "own",
        "[plugins]\nload = [\"libs/libfcfs_fifo.so\"]\n\n[disk.scheduler]\nname = \"c-fcfs\"\n",
    );
    let out = dir.path().join("out");
    // from another working folder: the path is the scenario's folder's
    let o = Command::new(env!("CARGO_BIN_EXE_vodbench"))
        .args(["run", s(&file), "-q", "--out", s(&out)])
        .current_dir("/")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(
        m.contains("libfcfs_fifo.so") && m.contains("\"c-fcfs\""),
        "{m}"
    );
    // the same library given twice (file and command line) is loaded once
    run_ok(&[
        "check",
        s(&file),
        "--plugin",
        s(&dir.path().join("libs/libfcfs_fifo.so")),
    ]);
    // a missing one is an error at its key and line
    let bad = tiny_with(
        dir.path(),
        "bad",
        "[plugins]\nload = [\"nowhere/libx.so\"]\n",
    );
    let e = refused(&["check", s(&bad)]);
    assert!(
        e.contains("plugins.load[0]") && e.contains("nowhere/libx.so"),
        "{e}"
    );
    assert!(e.contains("no such file"), "{e}");
}

#[test]
fn issue47_files_that_are_not_plugin_libraries_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = c_example(d);
    let bytes = std::fs::read(&good).unwrap();
    let truncated = d.join("libtruncated.so");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let textual = d.join("libtext.so");
    std::fs::write(&textual, "this is a text file named .so\n").unwrap();
    let wrong_version = cc(
        "#include \"vodbench_plugin.h\"\n\
         static const VbLibrary L = { .abi_version = 999, .sizes = VB_SIZES, .policy_count = 0, .policies = 0 };\n\
         const VbLibrary *vodbench_plugin_library(void) { return &L; }\n",
        &d.join("libv999.so"),
        &[],
    );
    let misspelled = cc(
        "#include \"vodbench_plugin.h\"\n\
         static const VbLibrary L = { .abi_version = VB_ABI_VERSION, .sizes = VB_SIZES, .policy_count = 0, .policies = 0 };\n\
         const VbLibrary *vodbench_plugin_libary(void) { return &L; }\n",
        &d.join("libmisspelled.so"),
        &[],
    );
    let wrong_size = cc(
        "#include \"vodbench_plugin.h\"\n\
         static const VbLibrary L = { .abi_version = VB_ABI_VERSION, .sizes = { 1, 2, 3 }, .policy_count = 0, .policies = 0 };\n\
         const VbLibrary *vodbench_plugin_library(void) { return &L; }\n",
        &d.join("libsizes.so"),
        &[],
    );
    let file = tiny_with(d, "t", "");
    let cases: [(&Path, &[&str]); 6] = [
        (&truncated, &["truncated: its"]),
        (&textual, &["not a shared library (no ELF header)"]),
        (&wrong_version, &["ABI version 999", "speaks version 1"]),
        (&misspelled, &["exports no `vodbench_plugin_library`"]),
        (&wrong_size, &["struct VbLibrary is 1 bytes in the library"]),
        (&d.join("libmissing.so"), &["no such file"]),
    ];
    for (lib, needles) in cases {
        let out = d.join("out");
        let e = refused(&["run", s(&file), "-q", "--out", s(&out), "--plugin", s(lib)]);
        assert!(
            e.contains(&format!("plugin library {}", lib.display())),
            "{e}"
        );
        for n in needles {
            assert!(e.contains(n), "{n:?} not in: {e}");
        }
        assert!(
            !out.exists(),
            "an output folder was left for {}",
            lib.display()
        );
    }
}

#[test]
fn a_status_neither_ok_nor_error_is_reported_as_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let odd = cc(
        "#include \"vodbench_plugin.h\"\n\
         #include <stdlib.h>\n\
         static void *create(const char *p, const VbBuildContext *c, VbError *e) { (void)p; (void)c; (void)e; return malloc(1); }\n\
         static void destroy(void *s) { free(s); }\n\
         static int32_t enq(void *s, const VbQueuedRequest *r) { (void)s; (void)r; return 7; }\n\
         static int32_t deq(void *s, const VbHeadState *h, uint8_t *some, uint32_t *id) { (void)s; (void)h; (void)id; *some = 0; return VB_OK; }\n\
         static int32_t len(void *s, uint64_t *n) { (void)s; *n = 0; return VB_OK; }\n\
         static const VbDiskSchedulerVtable V = { enq, deq, len };\n\
         static const VbPolicy P[] = {{ VB_KIND_DISK_SCHEDULER, \"odd\", \"returns 7\", 0, 0, create, destroy, 0, &V }};\n\
         static const VbLibrary L = { VB_ABI_VERSION, VB_SIZES, 1, P };\n\
         const VbLibrary *vodbench_plugin_library(void) { return &L; }\n",
        &d.join("libodd.so"),
        &[],
    );
    let file = tiny_with(d, "odd", "[disk.scheduler]\nname = \"odd\"\n");
    let out = d.join("out");
    let e = refused(&["run", s(&file), "-q", "--out", s(&out), "--plugin", s(&odd)]);
    for n in [
        "failed in `enqueue`",
        "returned status 7, neither VB_OK (0) nor VB_ERROR (1)",
    ] {
        assert!(e.contains(n), "{n:?} not in: {e}");
    }
    assert!(!out.exists());
}

#[test]
fn a_c_prefetcher_asking_the_layout_for_a_block_outside_the_library_breaks_its_contract() {
    // the lent layout refuses the block before the run's layout is asked (the striped layout
    // indexes by video: it would panic inside vodbench)
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (call, block, why) in [
        ("locate", "999, 99999", "the library has 8 videos"),
        ("locate", "0, 1000000", "the video has "),
        ("next_on_same_disk", "999, 0", "the library has 8 videos"),
    ] {
        let ask = if call == "locate" {
            "VbLocation l; v->locate(v->ctx, &b, &l);"
        } else {
            "VbBlockId n; (void)v->next_on_same_disk(v->ctx, &b, &n);"
        };
        let lib = cc(
            &format!(
                "#include \"vodbench_plugin.h\"\n\
                 #include <stdlib.h>\n\
                 static void *create(const char *p, const VbBuildContext *c, VbError *e) {{ (void)p; (void)c; (void)e; return malloc(1); }}\n\
                 static void destroy(void *s) {{ free(s); }}\n\
                 static int32_t on_ref(void *s, const VbReference *r, const VbLayoutView *v, uint8_t *some, uint32_t *disk) {{ (void)s; (void)r; (void)disk; VbBlockId b = {{ {block} }}; {ask} *some = 0; return VB_OK; }}\n\
                 static int32_t poll(void *s, uint32_t d, uint32_t f, uint64_t n, VbPrefetchPoll *o) {{ (void)s; (void)d; (void)f; (void)n; o->tag = VB_POLL_IDLE; return VB_OK; }}\n\
                 static const VbPrefetcherVtable V = {{ on_ref, poll }};\n\
                 static const VbPolicy P[] = {{{{ VB_KIND_PREFETCHER, \"stray\", \"asks for a stranger\", 0, 0, create, destroy, 0, &V }}}};\n\
                 static const VbLibrary L = {{ VB_ABI_VERSION, VB_SIZES, 1, P }};\n\
                 const VbLibrary *vodbench_plugin_library(void) {{ return &L; }}\n"
            ),
            &d.join("libstray.so"),
            &[],
        );
        let file = tiny_with(d, "stray", "[prefetcher]\nname = \"stray\"\n");
        let out = d.join("out");
        let e = refused(&["run", s(&file), "-q", "--out", s(&out), "--plugin", s(&lib)]);
        let (video, index) = block.split_once(", ").unwrap();
        for n in [
            "prefetcher `stray`",
            "failed in `on_reference`",
            &format!("asked the layout's {call} for block {index} of video {video}, which does not exist"),
            why,
        ] {
            assert!(e.contains(n), "{n:?} not in: {e}");
        }
        assert!(!e.contains("panicked"), "{e}");
        assert!(!out.exists());
    }
}

#[test]
fn issue47_a_name_taken_by_a_builtin_or_another_library_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fcfs = cc(
        "#include \"vodbench_plugin.h\"\n\
         #include <stdlib.h>\n\
         static void *create(const char *p, const VbBuildContext *c, VbError *e) { (void)p; (void)c; (void)e; return malloc(1); }\n\
         static void destroy(void *s) { free(s); }\n\
         static int32_t enq(void *s, const VbQueuedRequest *r) { (void)s; (void)r; return VB_OK; }\n\
         static int32_t deq(void *s, const VbHeadState *h, uint8_t *some, uint32_t *id) { (void)s; (void)h; (void)id; *some = 0; return VB_OK; }\n\
         static int32_t len(void *s, uint64_t *n) { (void)s; *n = 0; return VB_OK; }\n\
         static const VbDiskSchedulerVtable V = { enq, deq, len };\n\
         static const VbPolicy P[] = {{ VB_KIND_DISK_SCHEDULER, \"fcfs\", \"clash\", 0, 0, create, destroy, 0, &V }};\n\
         static const VbLibrary L = { VB_ABI_VERSION, VB_SIZES, 1, P };\n\
         const VbLibrary *vodbench_plugin_library(void) { return &L; }\n",
        &d.join("libclash.so"),
        &[],
    );
    let e = refused(&["plugins", "--plugin", s(&fcfs)]);
    assert!(
        e.contains("disk.scheduler `fcfs` is already registered (a built-in)"),
        "{e}"
    );
    let one = c_example(d);
    let two = d.join("libcopy.so");
    std::fs::copy(&one, &two).unwrap();
    // the same bytes at another path are another library whose names collide
    let e = refused(&["plugins", "--plugin", s(&one), "--plugin", s(&two)]);
    assert!(
        e.contains(&format!("plugin library {}", two.display())),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "already registered (one from library {})",
            one.canonicalize().unwrap().display()
        )),
        "{e}"
    );
}

/// A kind added later keeps the ABI version, so a library that uses a kind this vodbench
/// does not have passes the version and size checks and is refused at that policy, its kind
/// number named and the vodbench said to be the older.
#[test]
fn issue51_a_library_using_a_kind_newer_than_this_vodbench_is_refused_naming_the_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let newer = cc(
        "#include \"vodbench_plugin.h\"\n\
         #include <stdlib.h>\n\
         static void *create(const char *p, const VbBuildContext *c, VbError *e) { (void)p; (void)c; (void)e; return malloc(1); }\n\
         static void destroy(void *s) { free(s); }\n\
         static const int TABLE[4] = { 0 };\n\
         static const VbPolicy P[] = {{ 1000, \"later\", \"a kind from a later vodbench\", 0, 0, create, destroy, 0, TABLE }};\n\
         static const VbLibrary L = { VB_ABI_VERSION, VB_SIZES, 1, P };\n\
         const VbLibrary *vodbench_plugin_library(void) { return &L; }\n",
        &d.join("libnewer.so"),
        &[],
    );
    let e = refused(&["plugins", "--plugin", s(&newer)]);
    assert!(
        e.contains(&format!("plugin library {}", newer.display())),
        "{e}"
    );
    for n in [
        "policy 0 has kind 1000, which this vodbench does not know",
        "this vodbench is older than the library",
    ] {
        assert!(e.contains(n), "{n:?} not in: {e}");
    }
}

#[test]
fn issue47_a_panic_in_a_rust_plugin_ends_the_run_naming_library_policy_and_call() {
    let dir = tempfile::tempdir().unwrap();
    let lib = faulty();
    let file = tiny_with(
        dir.path(),
        "p",
        "[disk.scheduler]\nname = \"panicky\"\nafter = 5\n",
    );
    let out = dir.path().join("out");
    let e = refused(&["run", s(&file), "-q", "--out", s(&out), "--plugin", s(&lib)]);
    assert!(
        e.contains(&format!(
            "plugin library {}",
            lib.canonicalize().unwrap().display()
        )),
        "{e}"
    );
    assert!(
        e.contains("disk.scheduler `panicky` failed in `dequeue`: panicked: boom after 5 requests"),
        "{e}"
    );
    // where it panicked is in the one error; the library prints no report of its own
    assert!(
        e.contains("requests (at tests/plugins/faulty/src/lib.rs:"),
        "{e}"
    );
    assert!(!e.contains("panicked at"), "{e}");
    assert!(!out.exists(), "an output folder was left behind");
    // in a sweep's worker threads too: no sweep.json is written
    let sweep = tiny_with(
        dir.path(),
        "ps",
        "[disk.scheduler]\nname = \"panicky\"\nafter = 5\n\n[sweep]\n\"server.stripe\" = [\"128KiB\", \"256KiB\"]\n",
    );
    let sout = dir.path().join("sweep");
    let e = refused(&[
        "sweep",
        s(&sweep),
        "--seeds",
        "3",
        "--max-terminals",
        "16",
        "--out",
        s(&sout),
        "--plugin",
        s(&lib),
    ]);
    assert!(e.contains("failed in `dequeue`"), "{e}");
    assert!(!sout.join("sweep.json").exists());
}

#[test]
fn issue47_answers_out_of_range_are_caught_as_for_builtins() {
    let dir = tempfile::tempdir().unwrap();
    let lib = faulty();
    for (table, needles) in [
        (
            "[disk.scheduler]\nname = \"liar\"\n",
            &["disk.scheduler `liar`", "broke its contract"][..],
        ),
        (
            "[buffer_pool]\nname = \"hoarder\"\n",
            &["buffer_pool `hoarder`", "broke its contract"][..],
        ),
        (
            "[prefetcher]\nname = \"wanderer\"\n",
            &[
                "prefetcher `wanderer`",
                "broke its contract",
                "of video 1000000, which does not exist",
            ][..],
        ),
    ] {
        let file = tiny_with(dir.path(), "bad", table);
        let out = dir.path().join("out");
        let e = refused(&["run", s(&file), "-q", "--out", s(&out), "--plugin", s(&lib)]);
        for n in needles {
            assert!(e.contains(n), "{n:?} not in: {e}");
        }
        assert!(e.contains("(plugin library "), "{e}");
        assert!(!out.exists());
    }
    // a disk model placing bytes past its own cylinders
    let t = std::fs::read_to_string(root().join("tests/fixtures/tiny.toml")).unwrap();
    let stray = t.replace(
        "[disk.model]\nname = \"analytic\"\nspec = \"st15150n\"\n",
        "[disk.model]\nname = \"stray\"\n",
    );
    assert_ne!(stray, t);
    let file = dir.path().join("stray.toml");
    std::fs::write(&file, stray).unwrap();
    let out = dir.path().join("out");
    let e = refused(&["run", s(&file), "-q", "--out", s(&out), "--plugin", s(&lib)]);
    for n in [
        "disk.model `stray`",
        "broke its contract",
        "on cylinder 105, but its geometry has 100 cylinders",
    ] {
        assert!(e.contains(n), "{n:?} not in: {e}");
    }
    assert!(!out.exists());
    // a disk model of no cylinder and no byte is refused when the disks are built
    let flat = t.replace(
        "[disk.model]\nname = \"analytic\"\nspec = \"st15150n\"\n",
        "[disk.model]\nname = \"flat\"\n",
    );
    let file = dir.path().join("flat.toml");
    std::fs::write(&file, flat).unwrap();
    let e = refused(&["run", s(&file), "-q", "--out", s(&out), "--plugin", s(&lib)]);
    for n in [
        "disk.model `flat`",
        "its geometry has 0 cylinders and 0 bytes; a disk has at least one of each",
    ] {
        assert!(e.contains(n), "{n:?} not in: {e}");
    }
    assert!(!out.exists());
}

#[test]
fn issue47_parameters_are_checked_against_the_exported_schema_at_their_key() {
    let dir = tempfile::tempdir().unwrap();
    let rust = faulty();
    let c = c_example(dir.path());
    for (table, lib, needles) in [
        (
            "[disk.scheduler]\nname = \"strict\"\ndepth = 100\n",
            &rust,
            &["disk.scheduler.depth", "100 is not in 1..=64"][..],
        ),
        (
            "[disk.scheduler]\nname = \"strict\"\ndepth = \"deep\"\n",
            &rust,
            &["disk.scheduler.depth"][..],
        ),
        (
            "[disk.scheduler]\nname = \"strict\"\nwidth = 3\n",
            &rust,
            &["disk.scheduler.width", "its parameters: depth"][..],
        ),
        (
            "[disk.scheduler]\nname = \"c-fcfs\"\ndepth = 3\n",
            &c,
            &["disk.scheduler.depth", "takes no parameters"][..],
        ),
    ] {
        let file = tiny_with(dir.path(), "bad", table);
        let e = refused(&["check", s(&file), "--plugin", s(lib)]);
        for n in needles {
            assert!(e.contains(n), "{n:?} not in: {e}");
        }
        assert!(e.contains("bad.toml:"), "{e}");
    }
    // an unknown key is reported at its own line, as a built-in's is
    let file = tiny_with(
        dir.path(),
        "bad",
        "[disk.scheduler]\nname = \"strict\"\ndepth = 8\nwidth = 3\n",
    );
    let text = std::fs::read_to_string(&file).unwrap();
    let line = 1 + text.lines().position(|l| l == "width = 3").unwrap();
    let e = refused(&["check", s(&file), "--plugin", s(&rust)]);
    assert!(e.contains(&format!("bad.toml:{line}:")), "line {line}: {e}");
    // the defaults a library fills in are what the manifest records
    let file = tiny_with(dir.path(), "ok", "[disk.scheduler]\nname = \"strict\"\n");
    let out = dir.path().join("out");
    run_ok(&[
        "run",
        s(&file),
        "-q",
        "--out",
        s(&out),
        "--plugin",
        s(&rust),
    ]);
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["plugins"]["disk.scheduler"]["params"]["depth"], 8, "{m}");
}

/// A small sweep choosing the C library's scheduler.
const SWEEP: &str = "[disk.scheduler]\nname = \"c-fcfs\"\n\n[sweep]\n\"server.stripe\" = [\"128KiB\", \"256KiB\", \"512KiB\"]\n";

#[test]
fn issue47_a_sweep_in_tasks_with_a_library_merges_into_the_one_go_sweep_and_refuses_a_rebuilt_one()
{
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lib = c_example(d);
    let file = tiny_with(d, "sw", SWEEP);
    let common = |out: &Path| -> Vec<String> {
        vec![
            "sweep".into(),
            s(&file).into(),
            "--seeds".into(),
            "3".into(),
            "--max-terminals".into(),
            "24".into(),
            "--out".into(),
            s(out).into(),
            "--plugin".into(),
            s(&lib).into(),
        ]
    };
    let args = |v: &[String], extra: &[&str]| -> Vec<String> {
        v.iter()
            .cloned()
            .chain(extra.iter().map(|x| x.to_string()))
            .collect()
    };
    let one = d.join("one");
    let a = args(&common(&one), &["-q"]);
    run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let parts = d.join("parts");
    for t in ["0/2", "1/2"] {
        let a = args(&common(&parts), &["--task", t]);
        run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    }
    let a = args(&common(&parts), &["--merge", "-q"]);
    run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    for f in ["sweep.json", "sweep.csv", "sweep.md"] {
        assert_eq!(
            std::fs::read(one.join(f)).unwrap(),
            std::fs::read(parts.join(f)).unwrap(),
            "{f} differs between the merged and the one-go sweep"
        );
    }
    // one task's part made with the library, the other after it was rebuilt differently:
    // the merge refuses the part made with other input files
    let mixed = d.join("mixed");
    let a = args(&common(&mixed), &["--task", "0/2"]);
    run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    cc("examples/c-plugin/fcfs_fifo.c", &lib, &["-O0"]);
    let a = args(&common(&mixed), &["--task", "1/2"]);
    run_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let a = args(&common(&mixed), &["--merge"]);
    let e = refused(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(e.contains("plugin library"), "{e}");
}

#[test]
fn issue47_rerun_fails_once_the_library_is_rebuilt_with_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lib = c_example(d);
    let file = tiny_with(d, "r", "[buffer_pool]\nname = \"c-fifo\"\n");
    let out = d.join("run");
    run_ok(&["run", s(&file), "-q", "--out", s(&out), "--plugin", s(&lib)]);
    // the rerun loads the library the manifest records by itself
    run_ok(&["rerun", s(&out), "--out", s(&d.join("again")), "-q"]);
    cc("examples/c-plugin/fcfs_fifo.c", &lib, &["-O0"]);
    let e = refused(&["rerun", s(&out), "--out", s(&d.join("again2"))]);
    assert!(e.contains("cannot reproduce this run"), "{e}");
    assert!(e.contains("libfcfs_fifo.so"), "{e}");
    assert!(!d.join("again2").exists());
}

#[test]
fn issue47_every_command_that_builds_plugins_takes_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lib = c_example(d);
    let file = tiny_with(d, "c", "[disk.scheduler]\nname = \"c-fcfs\"\n");
    let l = s(&lib);
    run_ok(&["check", s(&file), "--plugin", l]);
    run_ok(&["bench", s(&file), "--repeat", "1", "--plugin", l]);
    run_ok(&[
        "search",
        s(&file),
        "--seeds",
        "3",
        "--max-terminals",
        "16",
        "-q",
        "--out",
        s(&d.join("search")),
        "--plugin",
        l,
    ]);
    run_ok(&[
        "compare",
        s(&file),
        s(&root().join("tests/fixtures/tiny.toml")),
        "--out",
        s(&d.join("compare")),
        "--plugin",
        l,
    ]);
    let sweep = tiny_with(d, "sw", SWEEP);
    let (out, _) = run_ok(&[
        "slurm",
        s(&sweep),
        "--out",
        s(&d.join("slurm")),
        "--plugin",
        l,
    ]);
    assert!(out.contains("scripts in"), "{out}");
    let script = std::fs::read_to_string(d.join("slurm.slurm/tasks.sbatch")).unwrap();
    let canonical = lib.canonicalize().unwrap();
    assert!(
        script.contains(&format!("--plugin {}", canonical.display())),
        "{script}"
    );
    // a loaded buffer pool replays a cache trace as the built-in it copies does
    let trace = d.join("t.zst");
    run_ok(&[
        "cache",
        "generate",
        "--objects",
        "300",
        "--requests",
        "4000",
        "--out",
        s(&trace),
    ]);
    let (a, b) = (d.join("a"), d.join("b"));
    for (pool, out) in [("fifo", &a), ("c-fifo", &b)] {
        run_ok(&[
            "cache",
            "replay",
            "--trace",
            s(&trace),
            "--pool",
            pool,
            "--size",
            "10,100",
            "--out",
            s(out),
            "--plugin",
            l,
        ]);
    }
    let csv = |dir: &Path| std::fs::read_to_string(dir.join("cache.csv")).unwrap();
    assert_eq!(csv(&a), csv(&b).replace("c-fifo", "fifo"));
}

#[test]
fn issue47_the_run_cache_never_gives_one_build_of_a_library_the_results_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let lib = c_example(d);
    let file = tiny_with(d, "c", "[disk.scheduler]\nname = \"c-fcfs\"\n");
    let cache = d.join("cache");
    let search = |out: &str| {
        let o = vodbench(&[
            "search",
            s(&file),
            "--seeds",
            "3",
            "--max-terminals",
            "16",
            "--out",
            s(&d.join(out)),
            "--cache",
            s(&cache),
            "--plugin",
            s(&lib),
        ]);
        let (stdout, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let line = stdout
            .lines()
            .chain(err.lines())
            .find(|l| l.starts_with("cache "))
            .unwrap_or_else(|| panic!("no cache line in {stdout}{err}"))
            .to_string();
        assert!(!line.contains("warning"), "{line}");
        line
    };
    let first = search("a");
    assert!(first.contains(": 0 simulations taken from it"), "{first}");
    let again = search("b");
    assert!(!again.contains(": 0 simulations taken from it"), "{again}");
    cc("examples/c-plugin/fcfs_fifo.c", &lib, &["-O0"]);
    let rebuilt = search("c");
    assert!(
        rebuilt.contains(": 0 simulations taken from it"),
        "{rebuilt}"
    );
}

/// `args` run in-process through `vodbench_harness::cli::run_args`, as the Python package
/// runs them, with the built-ins.
fn in_process(args: &[&str]) -> Result<(), vodbench_harness::cli::ArgsError> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    vodbench_harness::cli::run_args(
        &vodbench_plugins::registry(),
        &vodbench_harness::output::Outputs::none(),
        &args,
    )
}

/// The typed breach `args` end with, run in-process: the user's input (exit code 2: the
/// policy is a loaded one), its message the breach's own text.
fn loaded_breach(
    args: &[&str],
) -> (
    String,
    Box<vodbench_harness::contract_breach::ContractBreach>,
) {
    let e = in_process(args).unwrap_err();
    let vodbench_harness::cli::ArgsError::Breach {
        message,
        breach,
        input,
    } = e
    else {
        panic!("not a typed breach: {e:?}")
    };
    assert!(input, "{message}");
    assert_eq!(message, breach.to_string());
    (message, breach)
}

#[test]
fn a_loaded_policys_broken_contract_reaches_run_args_typed() {
    use vodbench_harness::contract_breach::BreachAt;
    let dir = tempfile::tempdir().unwrap();
    let lib = faulty();
    // an on-demand run: bad input (exit code 2), its message the command line's, word for word
    let file = tiny_with(dir.path(), "liar", "[disk.scheduler]\nname = \"liar\"\n");
    let out = dir.path().join("out");
    let args = ["run", s(&file), "-q", "--out", s(&out), "--plugin", s(&lib)];
    let (message, breach) = loaded_breach(&args);
    assert_eq!(breach.policy(), "disk.scheduler `liar`");
    assert_eq!(breach.source.as_deref(), Some(s(&lib)));
    assert!(matches!(breach.at, BreachAt::Sim(_)), "{breach:?}");
    assert!(breach.detail.contains("which is not queued"), "{breach:?}");
    assert_eq!(refused(&args), format!("error: {message}\n"));
    assert!(!out.exists());
    // a cache replay: the loaded pool is the user's input too, named as it was chosen and
    // with its library; one small object makes room for ten pages, of which the 10-byte
    // cache fills two with 5-byte objects, so `hoarder`'s victim (the last page) holds nothing
    let trace = dir.path().join("requests.csv");
    let rows: String = (1..=20)
        .map(|i| format!("{i},{i},{}\n", if i == 1 { 1 } else { 5 }))
        .collect();
    std::fs::write(&trace, format!("time,id,size\n{rows}")).unwrap();
    let replayed = dir.path().join("replay");
    let args = [
        "cache",
        "replay",
        "--trace",
        s(&trace),
        "--header",
        "--pool",
        "hoarder",
        "--size",
        "10",
        "--out",
        s(&replayed),
        "-q",
        "--plugin",
        s(&lib),
    ];
    let (message, breach) = loaded_breach(&args);
    assert_eq!(breach.policy(), "buffer_pool `hoarder`");
    assert_eq!(breach.source.as_deref(), Some(s(&lib)));
    assert!(
        matches!(&breach.at, BreachAt::Replay { label, size: 10, .. } if label == "hoarder"),
        "{breach:?}"
    );
    assert!(
        message.starts_with(&format!(
            "buffer pool `hoarder` (plugin library {}) at 10 bytes",
            s(&lib)
        )),
        "{message}"
    );
    assert_eq!(refused(&args), format!("error: {message}\n"));
}
