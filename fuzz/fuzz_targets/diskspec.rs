//! cargo-fuzz target `diskspec`: a DiskSim parameter file as the top `.parv`, its includes
//! from the bundled disks, loaded as the mechanical model loads a spec (the same function as
//! `tests/fuzz_corpus.rs`'s `diskspec`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use vodbench_plugins::disk_model::mechanical::{bundled, spec};

fuzz_target!(|data: &[u8]| {
    let mut src = bundled::source();
    src.0.insert(
        "fuzz.parv".into(),
        String::from_utf8_lossy(data).into_owned(),
    );
    let _ = spec::load(&src, Path::new(""), "fuzz.parv", None);
});
