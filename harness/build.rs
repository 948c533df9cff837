//! Records the git commit the harness was built from (when built from a checkout) for
//! `manifest.json`: `VODBENCH_GIT_COMMIT`, absent outside a git checkout or without git.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
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
    // rebuild when HEAD moves: HEAD itself, the branch it points at, packed refs
    println!("cargo:rerun-if-changed={git_dir}/HEAD");
    println!("cargo:rerun-if-changed={git_dir}/packed-refs");
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        println!("cargo:rerun-if-changed={git_dir}/{branch}");
    }
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=VODBENCH_GIT_COMMIT={commit}");
    }
}
