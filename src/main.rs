//! The `vodbench` binary: the built-in plugins and report writers, wired into the CLI.

use std::process::ExitCode;

fn main() -> ExitCode {
    let registry = vodbench_plugins::registry();
    vodbench_harness::cli::main_with(registry, vodbench_reports::outputs())
}
