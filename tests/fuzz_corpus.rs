//! Issue 37, a fuzz harness for every parser: each target of `vodbench_harness::fuzz`
//! (scenario, sweep, trace, manifest, DiskSim trace, request trace) and the DiskSim
//! parameter-file target below, run over the committed corpus in `tests/fuzz-corpus/TARGET/`
//! and deterministic mutations of each file (truncations, byte flips, a line doubled or
//! dropped, a number replaced by an extreme one). No input may make a parser panic.
//!
//! `VODBENCH_FUZZ_MUTATIONS=N` sets the mutations per corpus file (default 48) for a longer
//! run; the cargo-fuzz targets in `fuzz/` run the same functions under libFuzzer.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use vodbench_plugins::disk_model::mechanical::{bundled, spec};

/// The DiskSim parameter-file target: `bytes` as the top `.parv` file, its includes taken from
/// the bundled disks, loaded as the mechanical model loads a spec.
pub fn diskspec(bytes: &[u8]) {
    let mut src = bundled::source();
    src.0.insert(
        "fuzz.parv".into(),
        String::from_utf8_lossy(bytes).into_owned(),
    );
    let _ = spec::load(&src, Path::new(""), "fuzz.parv", None);
}

/// A small deterministic generator (xorshift), so a failure names a reproducible mutation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Mutation `k` of `input`.
fn mutate(input: &[u8], k: u64) -> Vec<u8> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ k.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut v = input.to_vec();
    for _ in 0..=r.below(3) {
        match r.below(6) {
            0 => {
                let at = r.below(v.len() + 1);
                v.truncate(at);
            }
            1 if !v.is_empty() => {
                let at = r.below(v.len());
                v[at] ^= 1 << r.below(8);
            }
            2 | 3 => {
                let lines: Vec<&[u8]> = v.split(|b| *b == b'\n').collect();
                let at = r.below(lines.len());
                let mut out: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
                if r.below(2) == 0 {
                    out.insert(at, lines[at].to_vec());
                } else {
                    out.remove(at);
                }
                v = out.join(&b'\n');
            }
            4 => {
                // a number made extreme
                let digits: Vec<usize> = (0..v.len()).filter(|&i| v[i].is_ascii_digit()).collect();
                if !digits.is_empty() {
                    let at = digits[r.below(digits.len())];
                    let extreme: &[&[u8]] =
                        &[b"0", b"-1", b"99999999999999999999", b"1e308", b"nan"];
                    let with = extreme[r.below(extreme.len())];
                    let end = (at..v.len())
                        .find(|&i| !v[i].is_ascii_digit())
                        .unwrap_or(v.len());
                    v.splice(at..end, with.iter().copied());
                }
            }
            _ => {
                let at = r.below(v.len() + 1);
                let junk = [b'"', b'[', b'=', b'{', 0xff, b'\n', b'#'];
                v.insert(at, junk[r.below(junk.len())]);
            }
        }
    }
    v
}

#[test]
fn issue37_no_parser_panics_on_the_corpus_or_its_mutations() {
    let registry = vodbench_plugins::registry();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus");
    let mutations: u64 = std::env::var("VODBENCH_FUZZ_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    let mut targets: Vec<&str> = vodbench_harness::fuzz::TARGETS.to_vec();
    targets.push("diskspec");
    let mut execs = 0u64;
    for target in targets {
        let dir = root.join(target);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: an empty corpus", dir.display());
        for file in files {
            let input = std::fs::read(&file).unwrap();
            for k in 0..=mutations {
                let bytes = if k == 0 {
                    input.clone()
                } else {
                    mutate(&input, k)
                };
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    if target == "diskspec" {
                        diskspec(&bytes);
                    } else {
                        assert!(vodbench_harness::fuzz::run(target, &registry, &bytes));
                    }
                }));
                execs += 1;
                assert!(
                    outcome.is_ok(),
                    "{target}: {} mutation {k} panicked; input:\n{}",
                    file.display(),
                    String::from_utf8_lossy(&bytes)
                );
            }
        }
    }
    println!("{execs} inputs, no panic");
}
