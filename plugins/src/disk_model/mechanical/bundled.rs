//! The disks shipped in `plugins/disks/`, compiled into the binary so that `spec = "barracuda"`
//! works from anywhere. The DiskSim files are unchanged copies of DiskSim 4.0's `valid/`
//! specs (notice: `plugins/disks/DISKSIM-COPYING.txt`); `st15150n` is SPIFFI's disk.

use super::params::InMemory;

macro_rules! files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/disks/", $name)))),*]
    };
}

/// Every bundled file: (name, text).
pub const FILES: &[(&str, &str)] = files!(
    "barracuda.parv",
    "barracuda.diskspecs",
    "barracuda.model",
    "barracuda.seek",
    "cheetah9LP.parv",
    "cheetah9LP.diskspecs",
    "cheetah9LP.model",
    "cheetah9LP.seek",
    "hp_c2247a.parv",
    "hp_c2247a.diskspecs",
    "hp_c2247a_validate.model",
    "st15150n.parv",
    "st15150n.diskspecs",
    "st15150n.model",
);

/// Bundled disk names and their top files.
pub const DISKS: &[(&str, &str)] = &[
    ("barracuda", "barracuda.parv"),
    ("cheetah9LP", "cheetah9LP.parv"),
    ("hp_c2247a", "hp_c2247a.parv"),
    ("st15150n", "st15150n.parv"),
];

/// The top file of bundled disk `name`.
pub fn file_of(name: &str) -> Option<&'static str> {
    DISKS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// The bundled files as a [`Source`](super::params::Source).
pub fn source() -> InMemory {
    InMemory(
        FILES
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect(),
    )
}
