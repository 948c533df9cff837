//! Records the git commit the harness was built from (when built from a checkout) for
//! `manifest.json`: `VODBENCH_GIT_COMMIT`, absent outside a git checkout or without git.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    // The folder cargo runs this script for, read when it runs: a build script compiled
    // for one checkout is reused for another that shares the target folder (a linked
    // worktree with CARGO_TARGET_DIR), so `env!` would point at the first checkout.
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=VODBENCH_GIT_COMMIT");
    if let Ok(c) = std::env::var("VODBENCH_GIT_COMMIT") {
        println!("cargo:rustc-env=VODBENCH_GIT_COMMIT={c}");
        return;
    }
    let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) else {
        return;
    };
    // Rebuild when HEAD moves: HEAD itself, the folder of the branch it points at (cargo
    // scans a folder's files, so this covers the loose ref whether it exists yet or not)
    // and the packed refs. Paths come from
    // `--git-path`, which knows where a linked worktree keeps each file. Only existing paths
    // are watched: cargo treats a missing one as changed, which would rebuild every time.
    let path_of = |p: &str| {
        git(&["rev-parse", "--path-format=absolute", "--git-path", p])
            .unwrap_or_else(|| format!("{git_dir}/{p}"))
    };
    let watch = |path: String| {
        if Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    };
    watch(path_of("HEAD"));
    watch(path_of("packed-refs"));
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(folder) = Path::new(&path_of(&branch)).parent() {
            watch(folder.display().to_string());
        }
    }
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=VODBENCH_GIT_COMMIT={commit}");
    }
}
