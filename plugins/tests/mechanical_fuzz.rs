//! Issue 3: random and mutated DiskSim parameter files give errors, never panics; when a
//! mutated file still loads, the disk it describes serves requests without panicking.

use proptest::prelude::*;
use std::path::Path;
use vodbench_plugins::disk_model::mechanical::{bundled, params, spec, Mechanical};

/// The bundled files with `file` replaced by `text`.
fn with(file: &str, text: String) -> params::InMemory {
    let mut src = bundled::source();
    src.0.insert(file.to_string(), text);
    src
}

fn exercise(src: &params::InMemory, top: &str) {
    let Ok(s) = spec::load(src, Path::new(""), top, None) else {
        return;
    };
    let Ok(mut m) = Mechanical::new(&s) else {
        return;
    };
    let d = m.disk_mut();
    let blocks = d.layout.blocks;
    let mut t = 0;
    for (i, n) in [
        (0u64, 1u64),
        (blocks / 2, 64),
        (blocks.saturating_sub(8), 8),
        (7, 300),
    ] {
        let lbn = i.min(blocks - 1);
        let n = n.min(blocks - lbn);
        let b = d.serve(lbn, n, i % 2 == 1, t);
        assert!(b.completion >= t);
        t = b.completion;
    }
}

const FILES: [&str; 6] = [
    "barracuda.parv",
    "barracuda.diskspecs",
    "barracuda.model",
    "barracuda.seek",
    "hp_c2247a_validate.model",
    "hp_c2247a.diskspecs",
];

fn top_of(file: &str) -> &'static str {
    if file.starts_with("hp") {
        "hp_c2247a.parv"
    } else {
        "barracuda.parv"
    }
}

fn floor(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn original(file: &str) -> String {
    bundled::FILES
        .iter()
        .find(|(n, _)| *n == file)
        .map(|(_, t)| t.to_string())
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Cut a piece out of a file.
    #[test]
    fn issue3_truncated_and_cut_files_never_panic(f in 0..FILES.len(), a in 0.0..1.0f64, len in 0usize..400) {
        let text = original(FILES[f]);
        let start = ((text.len() as f64) * a) as usize;
        let end = (start + len).min(text.len());
        let (start, end) = (floor(&text, start), floor(&text, end));
        let cut = format!("{}{}", &text[..start], &text[end..]);
        exercise(&with(FILES[f], cut), top_of(FILES[f]));
    }

    /// Replace one number with an arbitrary one (negative, huge, fractional, zero).
    #[test]
    fn issue3_numbers_replaced_never_panic(f in 0..FILES.len(), which in 0usize..2000, v in prop_oneof![
        Just("0".to_string()), Just("-1".to_string()), Just("1".to_string()), Just("2".to_string()),
        Just("99999999999999999999".to_string()), Just("1e308".to_string()), Just("nan".to_string()),
        Just("inf".to_string()), Just("4294967296".to_string()), (-1e7..1e7f64).prop_map(|x| x.to_string()),
        (0u64..10_000_000).prop_map(|x| x.to_string()),
    ]) {
        let text = original(FILES[f]);
        let nums: Vec<(usize, usize)> = {
            let b = text.as_bytes();
            let mut out = Vec::new();
            let mut i = 0;
            while i < b.len() {
                if b[i].is_ascii_digit() {
                    let s = i;
                    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') { i += 1; }
                    out.push((s, i));
                } else { i += 1; }
            }
            out
        };
        prop_assume!(!nums.is_empty());
        let (s, e) = nums[which % nums.len()];
        let mutated = format!("{}{}{}", &text[..s], v, &text[e..]);
        exercise(&with(FILES[f], mutated), top_of(FILES[f]));
    }

    /// Random text, and random bytes spliced into a real file.
    #[test]
    fn issue3_random_text_never_panics(junk in "[a-z0-9 =,{}\\[\\]#\\n.-]{0,300}", f in 0..FILES.len(), a in 0.0..1.0f64) {
        let src = with("x.parv", junk.clone());
        let _ = spec::load(&src, Path::new(""), "x.parv", None);
        let text = original(FILES[f]);
        let at = floor(&text, ((text.len() as f64) * a) as usize);
        let spliced = format!("{}{}{}", &text[..at], junk, &text[at..]);
        exercise(&with(FILES[f], spliced), top_of(FILES[f]));
    }
}

#[test]
fn issue3_every_bundled_disk_loads() {
    for (name, _) in bundled::DISKS {
        let m = Mechanical::bundled(name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(m.disk().layout.blocks > 1_000_000, "{name}");
    }
    // the ST15150N: 4096 cylinders of 20 × 128 sectors = 5 GiB, SPIFFI's seek curve
    let m = Mechanical::bundled("st15150n", None).unwrap();
    assert_eq!(m.disk().layout.blocks * 512, 5 << 30);
    assert_eq!(m.disk().period(), 8_333_333_333);
    // 1.033 ms read as DiskSim reads it: truncated to whole ps from the double
    assert_eq!(m.disk().seek.time(0, 0, 1, 0, false), 1_032_999_999);
    // 0.75 + 0.283·√4095 ms, in DiskSim's fixed point
    let full = m.disk().seek.time(0, 0, 4095, 0, false);
    assert!(full.abs_diff(18_859_789_000) < 10_000, "{full}");
}

#[test]
fn issue3_spec_files_load_from_disk_with_relative_includes() {
    use vodbench_plugins::disk_model::mechanical::load_spec;
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in [
        "disks/barracuda.parv",
        "disks/hp_c2247a.parv",
        "disks/cheetah9LP.diskspecs",
    ] {
        let from_file = load_spec(f, None, base).unwrap_or_else(|e| panic!("{f}: {e}"));
        let name = f.trim_start_matches("disks/").split('.').next().unwrap();
        let bundled = load_spec(name, None, base).unwrap();
        // a .diskspecs alone has no bus: only the bus transfer time may differ
        assert_eq!(from_file.zones, bundled.zones, "{f}");
        assert_eq!(from_file.mech, bundled.mech, "{f}");
    }
}

#[test]
fn issue3_bad_specs_name_file_line_and_parameter() {
    let text =
        original("barracuda.model").replace("Blocks per track = 186", "Blocks per track = 0");
    let e = spec::load(
        &with("barracuda.model", text),
        Path::new(""),
        "barracuda.parv",
        None,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("barracuda.model:13: parameter `Blocks per track`"),
        "{e}"
    );
    let text = original("barracuda.model").replace("Seek type = extracted,", "Seek type = wobbly,");
    let text = text.replace("Full seek curve = barracuda.seek,", "");
    let e = spec::load(
        &with("barracuda.model", text),
        Path::new(""),
        "barracuda.parv",
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("unknown seek type `wobbly`"), "{e}");
    let e = spec::load(
        &bundled::source(),
        Path::new(""),
        "barracuda.parv",
        Some("disk7"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no disk `disk7`"), "{e}");
    // instance and block names both select
    assert!(spec::load(
        &bundled::source(),
        Path::new(""),
        "barracuda.parv",
        Some("disk0")
    )
    .is_ok());
    assert!(spec::load(
        &bundled::source(),
        Path::new(""),
        "barracuda.parv",
        Some("SEAGATE_ST32171W")
    )
    .is_ok());
    let e = Mechanical::bundled("nosuch.parv", None).unwrap_err();
    assert!(e.contains("nosuch.parv: cannot read"), "{e}");
    // a separate write segment needs another one for reads
    let text = original("hp_c2247a.diskspecs").replace(
        "Number of buffer segments = 2,",
        "Number of buffer segments = 1,",
    );
    let e = spec::load(
        &with("hp_c2247a.diskspecs", text),
        Path::new(""),
        "hp_c2247a.parv",
        None,
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "hp_c2247a.diskspecs:37: parameter `Use separate write segment`: needs at least 2"
        ),
        "{e}"
    );
}
