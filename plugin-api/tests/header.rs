//! `include/vodbench_plugin.h`, the C ABI's header, is generated from `src/abi/types.rs` by
//! cbindgen and committed, so that C authors need no Rust tool; this test fails when the
//! committed header is not what the Rust definitions give today.
//!
//! After a change of the ABI: `VODBENCH_BLESS=1 cargo test -p vodbench-plugin-api --test
//! header` rewrites it (and `VB_ABI_VERSION` should be raised).

use std::path::Path;

fn generated() -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/abi/types.rs"))
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut out);
    out
}

#[test]
fn the_committed_header_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/vodbench_plugin.h");
    let now = generated();
    if std::env::var_os("VODBENCH_BLESS").is_some() {
        std::fs::write(&path, &now).expect("write the header");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == now,
        "{} is stale: the ABI in src/abi/types.rs changed. Rewrite it with \
         `VODBENCH_BLESS=1 cargo test -p vodbench-plugin-api --test header` (and raise \
         VB_ABI_VERSION if a struct changed)",
        path.display()
    );
}

#[test]
fn the_header_states_this_abi_version() {
    let text = String::from_utf8(generated()).unwrap();
    let want = format!(
        "#define VB_ABI_VERSION {}",
        vodbench_plugin_api::abi::VB_ABI_VERSION
    );
    assert!(text.contains(&want), "the header lacks `{want}`");
    for s in [
        "VbDiskSchedulerVtable",
        "VbBufferPoolVtable",
        "VbAnalyticModelVtable",
    ] {
        assert!(
            text.contains(&format!("typedef struct {s}")),
            "the header lacks {s}"
        );
    }
}
