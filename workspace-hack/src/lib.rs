//! No code: see `Cargo.toml`. This crate only pins the features of shared dependencies so
//! that the binary's build and the tests' build compile each crate once.
