//! The third-party binary runs a scenario that selects its own scheduler.

use std::process::Command;

#[test]
fn issue2_third_party_binary_runs_its_own_scheduler() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fixture = std::fs::read_to_string(root.join("tests/fixtures/tiny.toml")).unwrap();
    let scenario = fixture.replace(
        "[terminals]",
        "[disk.scheduler]\nname = \"sstf\"\n\n[terminals]",
    );
    let path = dir.path().join("sstf.toml");
    std::fs::write(&path, scenario).unwrap();
    let out_dir = dir.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_vodbench-sstf"))
        .args([
            "run",
            path.to_str().unwrap(),
            "--quiet",
            "--out",
            out_dir.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = std::fs::read_to_string(out_dir.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"sstf\""), "{manifest}");
    let listing = Command::new(env!("CARGO_BIN_EXE_vodbench-sstf"))
        .arg("plugins")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listing.stdout);
    assert!(text.contains("sstf") && text.contains("elevator"), "{text}");
}

/// The plugin alone (`--no-default-features`: no binary) builds against the plugin API only:
/// none of the simulator's command line, thread pool, progress bars or dataframes.
#[test]
fn issue29_the_plugin_depends_on_the_plugin_api_alone() {
    let out = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "-p",
            "vodbench-sstf-example",
            "--no-default-features",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let crates: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(crates.contains(&"vodbench-plugin-api"), "{tree}");
    for heavy in [
        "vodbench-harness",
        "vodbench-plugins",
        "vodbench-reports",
        "clap",
        "rayon",
        "indicatif",
        "polars",
        "plotters",
    ] {
        assert!(
            !crates.contains(&heavy),
            "the plugin pulls in {heavy}:\n{tree}"
        );
    }
}
