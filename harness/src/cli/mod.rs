//! The `vodbench` command line, as a library so third-party binaries get the same commands.
//!
//! ```no_run
//! use vodbench_harness::{cli, plugin::Registry};
//! fn main() -> std::process::ExitCode {
//!     let registry = Registry::new(); // add built-ins and your own plugins here
//!     cli::main_with(registry, vodbench_harness::output::Outputs::none())
//! }
//! ```
//!
//! One file per command: each parses its arguments, calls a driver (a [`System`] for
//! `run`, `check`, `bench`, `compare` and `rerun`; [`crate::experiment`] for `search`, `sweep`,
//! `disk replay` and `cache replay`), prints, and turns the driver's typed errors into a `CommandError`;
//! [`main_with`] prints that error and maps it to the exit code.
//!
//! Exit codes: 0 success; 1 the run failed (a built-in plugin broke its contract, an output
//! could not be written); 2 bad input (scenario, trace or command-line usage, a loaded policy
//! that broke its contract or whose call failed, and an output refused before any work: a
//! folder or file vodbench did not write, one another command is writing, `/`).
//!
//! [`System`]: crate::system::System

use crate::contract_breach::ContractBreach;
use crate::experiment::disk_replay::ReplayError;
use crate::output::{OutputError, Outputs, ReportError};
use crate::plugin::Registry;
use crate::scenario::ScenarioError;
use crate::system::{OverrideError, RunError};
use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod analyze;
mod baseline;
mod bench;
mod cache;
mod check;
mod compare;
mod completions;
pub mod disk;
mod export;
mod man;
mod net;
mod plugins;
mod progress;
mod report;
mod rerun;
mod run;
mod saved_folder;
mod schema;
mod search;
mod slurm;
mod sweep;
mod sweep_table;
mod trace;

pub use plugins::plugins_listing;

/// Exit code for bad input.
pub const EXIT_INPUT: u8 = 2;
/// Exit code for a failed run.
pub const EXIT_FAILURE: u8 = 1;

#[derive(Parser)]
#[command(
    name = "vodbench",
    version,
    about = "Trace-driven benchmarking of video-on-demand servers"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Load a plugin library (a `.so` made with `export_plugins!` or against
    /// vodbench_plugin.h): its policies join the built-ins, chosen by name. Repeatable.
    #[arg(long = "plugin", value_name = "PATH", global = true)]
    plugins: Vec<std::path::PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one scenario; print a summary and write an output folder.
    Run(run::RunArgs),
    /// One HTML report laying runs side by side (output folders, or scenarios to run).
    Compare(compare::CompareArgs),
    /// Write a saved output folder's summary and tables as CSV, Parquet or JSON.
    Export(export::ExportArgs),
    /// Run again from a manifest.json and check the results are byte-identical.
    Rerun(rerun::RerunArgs),
    /// Find the largest number of terminals served without glitches (SPIFFI §7.1), with
    /// replications until 90 % confident within 5 %; writes search.json and curve.csv.
    Search(search::SearchArgs),
    /// The largest glitch-free terminal count at every point of a sweep (`[sweep]`), in
    /// parallel, beside the paper's values; writes sweep.json, sweep.csv, sweep.md and
    /// report.html.
    Sweep(sweep::SweepArgs),
    /// Run a sweep (or a search) as a Slurm job array and a merge job: writes the sbatch
    /// scripts, and submits them with --submit.
    Slurm(slurm::SlurmArgs),
    /// Evaluate the analytic model a scenario declares (`[analytic]`) at every point, in
    /// closed form; writes analysis.json and CSV.
    Analyze(analyze::AnalyzeArgs),
    /// Print the paper-vs-vodbench markdown tables of saved `vodbench sweep` folders.
    SweepTable(sweep_table::SweepTableArgs),
    /// Validate scenario files without running them.
    Check(check::CheckArgs),
    /// Print the JSON Schema of the scenario format.
    Schema(schema::SchemaArgs),
    /// List every registered plugin with its parameters.
    Plugins,
    /// Measure simulation speed: run a scenario several times in-process (no output files)
    /// and print the wall time of each repetition with its throughput.
    Bench(bench::BenchArgs),
    /// Workload traces.
    #[command(subcommand)]
    Trace(trace::TraceCmd),
    /// Disk models on their own.
    #[command(subcommand)]
    Disk(disk::DiskCmd),
    /// Interconnects on their own.
    #[command(subcommand)]
    Net(net::NetCmd),
    /// Buffer pools on their own: replay request traces (libCacheSim's or vodbench's) at
    /// several cache sizes; generate synthetic ones.
    #[command(subcommand)]
    Cache(cache::CacheCmd),
    /// Draw report.html again from a saved output folder (a run's, search's, sweep's,
    /// comparison's or broadcast run's) without simulating.
    Report(report::ReportArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Print the manual page vodbench.1 (or write it and one page per subcommand with --out).
    Man(man::ManArgs),
}

/// Parses the process arguments and runs the command with `registry`, writing tables and
/// reports with `outputs`.
pub fn main_with(mut registry: Registry, outputs: Outputs) -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage(e),
    };
    crate::plugin_library::install_hook();
    for path in &cli.plugins {
        if let Err(e) = crate::plugin_library::load(&mut registry, path) {
            return exit_code(Err(CommandError::input(e)));
        }
    }
    let (registry, outputs) = (&registry, &outputs);
    // a loaded policy's failed call abandons the command: an input error naming the library,
    // the policy and the call (nothing of the run is written after it)
    let result = crate::plugin_library::catch(|| dispatch(cli.command, registry, outputs))
        .unwrap_or_else(|failure| Err(CommandError::input(failure)));
    exit_code(result)
}

/// Why a command run through [`run_args`] failed.
#[derive(Debug)]
pub enum ArgsError {
    /// Bad input (exit code 2 on the command line): the message the command line prints.
    Input(String),
    /// A scenario that is not valid, typed: its file, line and key.
    Scenario(ScenarioError),
    /// A loaded policy's call failed (the library or source, the policy, the call).
    Plugin(crate::plugin_library::PluginFailure),
    /// A policy broke its contract: an answer the engine refused (a loaded policy's, with
    /// its source, or a built-in's, a bug in vodbench).
    Breach {
        /// The message the command line prints (the breach's text, after what the command
        /// adds before it: the scenario file, the sweep point).
        message: String,
        /// The breach.
        breach: Box<ContractBreach>,
        /// Whether the command line calls it bad input (exit code 2: a loaded policy's)
        /// rather than a failed run (1: a built-in's, a bug in vodbench).
        input: bool,
    },
    /// The run failed (exit code 1): it made no progress, an output could not be written.
    Failure(String),
    /// A stop was requested of the command's [`StopToken`](crate::interrupt::StopToken).
    Interrupted,
}

impl ArgsError {
    /// The exit code the command line gives this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            ArgsError::Failure(_) | ArgsError::Interrupted => EXIT_FAILURE,
            ArgsError::Breach { input: false, .. } => EXIT_FAILURE,
            _ => EXIT_INPUT,
        }
    }
}

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgsError::Input(m) | ArgsError::Failure(m) => f.write_str(m),
            ArgsError::Breach { message, .. } => f.write_str(message),
            ArgsError::Scenario(e) => write!(f, "{e}"),
            ArgsError::Plugin(e) => write!(f, "{e}"),
            ArgsError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for ArgsError {}

/// Runs the command `args` (without the program name: `["run", "scenario.toml"]`) with
/// `registry` and `outputs`, as [`main_with`] does for the process's arguments: the same
/// command code, the same output folders, its errors typed instead of printed. For programs
/// that drive vodbench in-process (the Python package). `--help` is an [`ArgsError::Input`]
/// holding the help text. Run under a [`StopToken`](crate::interrupt::StopToken), the command
/// can be stopped from another thread ([`ArgsError::Interrupted`]); see [`crate::interrupt`].
pub fn run_args(registry: &Registry, outputs: &Outputs, args: &[String]) -> Result<(), ArgsError> {
    let argv = std::iter::once("vodbench".to_string()).chain(args.iter().cloned());
    let cli = Cli::try_parse_from(argv).map_err(|e| ArgsError::Input(e.render().to_string()))?;
    crate::plugin_library::install_hook();
    let mut owned = registry.clone();
    for path in &cli.plugins {
        crate::plugin_library::load(&mut owned, path)
            .map_err(|e| ArgsError::Input(e.to_string()))?;
    }
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        dispatch_under_token(cli.command, &owned, outputs)
    }));
    match run {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(match e {
            CommandError::Input(m) => ArgsError::Input(m),
            CommandError::Failure(m) => ArgsError::Failure(m),
            CommandError::Scenario(s) => ArgsError::Scenario(s),
            CommandError::Breach { message, breach } => ArgsError::Breach {
                input: breach.by_loaded_policy(),
                message,
                breach,
            },
            CommandError::Reported => ArgsError::Input("invalid input (reported above)".into()),
        }),
        Err(payload) => match payload.downcast::<crate::plugin_library::PluginFailure>() {
            Ok(f) => Err(ArgsError::Plugin(*f)),
            Err(other) => match other.downcast::<crate::interrupt::Interrupted>() {
                Ok(_) => Err(ArgsError::Interrupted),
                Err(other) => std::panic::resume_unwind(other),
            },
        },
    }
}

/// Runs one command; under a [`StopToken`](crate::interrupt::StopToken), on a worker pool of
/// its own carrying the token, so that the parallel loops of a command that builds no pool
/// (`bench`'s broadcast receivers and sweep points, for one) do not run on rayon's global
/// pool, whose threads carry no token and are shared with every other command of the process.
fn dispatch_under_token(
    command: Command,
    registry: &Registry,
    outputs: &Outputs,
) -> Result<(), CommandError> {
    if crate::interrupt::StopToken::current().is_none() {
        return dispatch(command, registry, outputs);
    }
    progress::worker_pool(None)?.install(|| dispatch(command, registry, outputs))
}

/// Runs one command.
fn dispatch(command: Command, registry: &Registry, outputs: &Outputs) -> Result<(), CommandError> {
    match command {
        Command::Run(args) => run::cmd(registry, outputs, args),
        Command::Compare(args) => compare::cmd(registry, outputs, args),
        Command::Export(args) => export::cmd(outputs, args),
        Command::Rerun(args) => rerun::cmd(registry, outputs, args),
        Command::Search(args) => search::cmd(registry, outputs, args),
        Command::Sweep(args) => sweep::cmd(registry, outputs, args),
        Command::Slurm(args) => slurm::cmd(registry, args),
        Command::Analyze(args) => analyze::cmd(registry, args),
        Command::SweepTable(args) => sweep_table::cmd(args),
        Command::Check(args) => check::cmd(registry, args),
        Command::Schema(args) => schema::cmd(registry, args),
        Command::Plugins => plugins::cmd(registry),
        Command::Bench(args) => bench::cmd(registry, args),
        Command::Trace(cmd) => trace::cmd(registry, cmd),
        Command::Disk(cmd) => disk::cmd(registry, cmd),
        Command::Net(cmd) => net::cmd(registry, cmd),
        Command::Cache(cmd) => cache::cmd(registry, outputs, cmd),
        Command::Report(args) => report::cmd(outputs, args),
        Command::Completions(args) => completions::cmd(args),
        Command::Man(args) => man::cmd(args),
    }
}

/// A command line clap cannot parse (exit code 2), or `--help` and `--version` (0).
fn usage(e: clap::Error) -> ExitCode {
    let code = if e.use_stderr() { EXIT_INPUT } else { 0 };
    let _ = e.print();
    ExitCode::from(code)
}

/// Why a command failed, as the command line reports it: the message printed after `error: `
/// on standard error, and who is at fault, which sets the exit code.
#[derive(Debug)]
pub(crate) enum CommandError {
    /// Bad input: a scenario, trace, flag or folder (exit code 2).
    Input(String),
    /// The run failed: it made no progress, an output could not be written (exit code 1).
    Failure(String),
    /// Bad input, every error already reported as it was met (`vodbench check`, file by
    /// file; exit code 2).
    Reported,
    /// A scenario that is not valid, kept typed (file, line, key) for [`run_args`]'s callers
    /// (exit code 2).
    Scenario(ScenarioError),
    /// A policy broke its contract, kept typed for [`run_args`]'s callers: the message
    /// printed and the breach (bad input, exit code 2, when a loaded policy broke it; a
    /// failed run, 1, when a built-in did: [`ContractBreach::by_loaded_policy`]).
    Breach {
        message: String,
        breach: Box<ContractBreach>,
    },
}

impl CommandError {
    /// Bad input, saying `m`.
    pub(crate) fn input(m: impl std::fmt::Display) -> CommandError {
        CommandError::Input(m.to_string())
    }

    /// A failed run, saying `m`.
    pub(crate) fn failure(m: impl std::fmt::Display) -> CommandError {
        CommandError::Failure(m.to_string())
    }

    /// Prints the error as every error of the command line is printed (nothing when already
    /// reported).
    pub(crate) fn report(&self) {
        match self {
            CommandError::Input(m)
            | CommandError::Failure(m)
            | CommandError::Breach { message: m, .. } => eprintln!("error: {m}"),
            CommandError::Scenario(e) => eprintln!("error: {e}"),
            CommandError::Reported => {}
        }
    }
}

/// A value the command line's `flag` gave that cannot replace the scenario's, in the command
/// line's words.
pub(crate) fn flag_error(flag: &str, e: OverrideError) -> CommandError {
    let path = e.path().display();
    CommandError::Input(match &e {
        OverrideError::Swept { key, axis, .. } => format!(
            "{path}: {flag} would override `{key}`, which the sweep sets (`{axis}`): every point \
             would run with the same value under a label naming another; drop {flag}, or \
             take `{axis}` out of [sweep]"
        ),
        OverrideError::NoLoad {
            system, instead, ..
        } => format!(
            "{path}: {flag} applies to on-demand scenarios; this is a {system} scenario \
             (set {instead} instead)"
        ),
        OverrideError::OutOfRange { key, max, got, .. } => ScenarioError::Invalid {
            file: e.path().to_path_buf(),
            line: None,
            key: key.to_string(),
            message: format!("{flag} must be in 1..={max}, got {got}"),
        }
        .to_string(),
    })
}

/// Prints a failed command's error; the exit code of its result.
fn exit_code(result: Result<(), CommandError>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            e.report();
            ExitCode::from(match e {
                CommandError::Input(_) | CommandError::Reported | CommandError::Scenario(_) => {
                    EXIT_INPUT
                }
                CommandError::Breach { breach, .. } if breach.by_loaded_policy() => EXIT_INPUT,
                CommandError::Failure(_) | CommandError::Breach { .. } => EXIT_FAILURE,
            })
        }
    }
}

impl From<ScenarioError> for CommandError {
    fn from(e: ScenarioError) -> Self {
        CommandError::Scenario(e)
    }
}

impl From<RunError> for CommandError {
    fn from(e: RunError) -> Self {
        if let RunError::Scenario(s) = e {
            CommandError::Scenario(s)
        } else if let Some(b) = e.breach() {
            CommandError::Breach {
                message: e.to_string(),
                breach: Box::new(b.clone()),
            }
        } else if e.is_input() {
            CommandError::input(e)
        } else {
            CommandError::failure(e)
        }
    }
}

impl From<OutputError> for CommandError {
    fn from(e: OutputError) -> Self {
        if e.refused {
            CommandError::input(e)
        } else {
            CommandError::failure(e)
        }
    }
}

impl From<ReportError> for CommandError {
    fn from(e: ReportError) -> Self {
        match e {
            ReportError::Input(m) => CommandError::Input(m),
            ReportError::Failure(m) => CommandError::Failure(m),
        }
    }
}

impl From<ReplayError> for CommandError {
    fn from(e: ReplayError) -> Self {
        if e.is_input() {
            CommandError::input(e)
        } else {
            CommandError::failure(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{flag_error, CommandError, OverrideError};
    use std::path::PathBuf;

    fn text(flag: &str, e: OverrideError) -> String {
        match flag_error(flag, e) {
            CommandError::Input(m) => m,
            _ => panic!("an override error is bad input"),
        }
    }

    #[test]
    fn override_errors_are_worded_with_the_flag() {
        let path = PathBuf::from("s.toml");
        let swept = OverrideError::swept(&path, &["terminals".into()], "terminals.count");
        assert_eq!(
            text("--terminals", swept.expect("the table covers the key")),
            "s.toml: --terminals would override `terminals.count`, which the sweep sets \
             (`terminals`): every point would run with the same value under a label naming \
             another; drop --terminals, or take `terminals` out of [sweep]"
        );
        let none = OverrideError::NoLoad {
            path: path.clone(),
            system: "broadcast",
            instead: "receiver.clients",
        };
        assert_eq!(
            text("--terminals", none),
            "s.toml: --terminals applies to on-demand scenarios; this is a broadcast scenario \
             (set receiver.clients instead)"
        );
        let range = OverrideError::OutOfRange {
            path,
            key: "terminals.count",
            max: 9,
            got: 0,
        };
        assert_eq!(
            text("--terminals", range),
            "s.toml: key `terminals.count`: --terminals must be in 1..=9, got 0"
        );
    }
}
