//! cargo-fuzz target `slurm-options`: `vodbench_harness::fuzz` on libFuzzer's inputs.
#![no_main]

use libfuzzer_sys::fuzz_target;

thread_local! {
    static REGISTRY: vodbench_harness::plugin::Registry = vodbench_plugins::registry();
}

fuzz_target!(|data: &[u8]| {
    REGISTRY.with(|registry| vodbench_harness::fuzz::run("slurm-options", registry, data));
});
