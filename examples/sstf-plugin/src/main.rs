//! `vodbench-sstf`: the full vodbench command line with the example `sstf` scheduler added.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut registry = vodbench_plugins::registry();
    registry.add::<vodbench_sstf_example::Sstf>();
    vodbench_harness::cli::main_with(registry, vodbench_reports::outputs())
}
