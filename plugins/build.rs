//! Build script: only with the cargo feature `disksim` (issue 3, item 5), compiles our C shim
//! `csrc/disksim_shim.c` and links the DiskSim 4.0 libraries of the tree named by
//! `DISKSIM_DIR`. Without the feature it does nothing.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // `cc` is an optional build-dependency, so the code exists only with the feature;
    // CARGO_FEATURE_DISKSIM is how cargo tells the script the feature is on
    #[cfg(feature = "disksim")]
    if std::env::var_os("CARGO_FEATURE_DISKSIM").is_some() {
        disksim::build();
    }
}

#[cfg(feature = "disksim")]
mod disksim {
    use std::path::{Path, PathBuf};

    /// The static libraries, in link order, and where a built DiskSim 4.0 tree keeps them
    /// (relative to its root; the first that exists is used).
    const LIBS: &[(&str, &[&str])] = &[
        ("disksim", &["src", "lib"]),
        ("diskmodel", &["diskmodel/lib", "diskmodel"]),
        ("memsmodel", &["memsmodel/lib", "memsmodel"]),
        ("param", &["libparam/lib", "libparam"]),
        ("ddbg", &["libddbg/lib", "libddbg"]),
    ];

    /// The public headers the shim includes, and where they are.
    const HEADERS: &[(&str, &[&str])] = &[
        ("disksim_interface.h", &["src", "include"]),
        ("disksim_reqflags.h", &["src", "include"]),
        ("libparam/libparam.h", &["libparam/include"]),
    ];

    fn stop(msg: String) -> ! {
        eprintln!("\nerror: {msg}\n");
        std::process::exit(1);
    }

    fn find(root: &Path, file: &str, dirs: &[&str]) -> Result<PathBuf, String> {
        dirs.iter()
            .map(|d| root.join(d))
            .find(|d| d.join(file).is_file())
            .ok_or_else(|| {
                let tried: Vec<String> = dirs
                    .iter()
                    .map(|d| root.join(d).join(file).display().to_string())
                    .collect();
                format!("{file} (looked for {})", tried.join(", "))
            })
    }

    pub fn build() {
        println!("cargo:rerun-if-env-changed=DISKSIM_DIR");
        println!("cargo:rerun-if-changed=csrc/disksim_shim.c");
        const WHAT: &str = "DISKSIM_DIR must point at the root of a built DiskSim 4.0 tree \
            (for example github.com/benh/disksim's unmodified 4.0 sources built with the \
            small 64-bit portability fixes DiskSim 4.0 needs): the directory holding src/libdisksim.a, \
            src/disksim_interface.h, libparam/include/libparam/libparam.h, diskmodel/lib/libdiskmodel.a, memsmodel/lib/libmemsmodel.a, \
            libparam/lib/libparam.a and libddbg/lib/libddbg.a. vodbench ships no DiskSim code; \
            build without `--features disksim` to leave the `disksim` disk model out";
        let root = match std::env::var_os("DISKSIM_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => stop(format!(
                "the cargo feature `disksim` is on but DISKSIM_DIR is not set. {WHAT}."
            )),
        };
        if !root.is_dir() {
            stop(format!(
                "DISKSIM_DIR={} is not a directory. {WHAT}.",
                root.display()
            ));
        }
        let mut missing = Vec::new();
        let mut lib_dirs = Vec::new();
        for (lib, dirs) in LIBS {
            match find(&root, &format!("lib{lib}.a"), dirs) {
                Ok(d) => lib_dirs.push((*lib, d)),
                Err(e) => missing.push(e),
            }
        }
        let mut include = Vec::new();
        for (h, dirs) in HEADERS {
            match find(&root, h, dirs) {
                Ok(d) => include.push(d),
                Err(e) => missing.push(e),
            }
        }
        if !missing.is_empty() {
            stop(format!(
                "DISKSIM_DIR={} does not hold a built DiskSim 4.0: missing {}. {WHAT}.",
                root.display(),
                missing.join("; ")
            ));
        }
        include.dedup();
        let mut cc = cc::Build::new();
        cc.file("csrc/disksim_shim.c")
            .opt_level(2)
            .warnings(true)
            .extra_warnings(true);
        for d in &include {
            cc.include(d);
        }
        cc.compile("vodbench_disksim_shim");
        for (lib, dir) in &lib_dirs {
            println!("cargo:rustc-link-search=native={}", dir.display());
            println!("cargo:rustc-link-lib=static={lib}");
            println!(
                "cargo:rerun-if-changed={}",
                dir.join(format!("lib{lib}.a")).display()
            );
        }
        println!("cargo:rustc-link-lib=m");
    }
}
