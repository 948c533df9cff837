//! The library table `export_plugins!` makes: what the host reads first. (This test also makes
//! `cargo test` build the `cdylib` that `tests/plugin_abi.rs` loads.)

use std::ffi::CStr;
use vodbench_plugin_api::abi::*;

#[test]
fn the_table_lists_every_policy_with_its_kind_and_schema() {
    // SAFETY: the symbol the macro defines returns a table that lives as long as the process.
    let lib = unsafe { &*vodbench_faulty_plugins::vodbench_plugin_library() };
    assert_eq!(lib.abi_version, VB_ABI_VERSION);
    assert_eq!(lib.sizes, sizes());
    // SAFETY: `policy_count` entries.
    let policies = unsafe { std::slice::from_raw_parts(lib.policies, lib.policy_count as usize) };
    let names: Vec<(u32, String)> = policies
        .iter()
        // SAFETY: NUL-terminated names.
        .map(|p| {
            (
                p.kind,
                unsafe { CStr::from_ptr(p.name) }
                    .to_string_lossy()
                    .into_owned(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            (VB_KIND_DISK_SCHEDULER, "panicky".to_string()),
            (VB_KIND_DISK_SCHEDULER, "liar".to_string()),
            (VB_KIND_BUFFER_POOL, "hoarder".to_string()),
            (VB_KIND_DISK_SCHEDULER, "strict".to_string()),
            (VB_KIND_PREFETCHER, "wanderer".to_string()),
            (VB_KIND_DISK_MODEL, "stray".to_string()),
            (VB_KIND_DISK_MODEL, "flat".to_string()),
        ]
    );
    // SAFETY: a NUL-terminated JSON Schema.
    let schema = unsafe { CStr::from_ptr(policies[0].params_schema) }.to_string_lossy();
    assert!(schema.contains("\"after\""), "{schema}");
    assert!(policies
        .iter()
        .all(|p| p.create.is_some() && !p.vtable.is_null()));
}
