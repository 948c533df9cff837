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
//! Exit codes: 0 success; 1 the run failed (a plugin broke its contract, an output could not
//! be written); 2 bad input (scenario, trace or command-line usage).

use crate::output;
use crate::plugin::Registry;
use crate::system::ondemand::runner;
use crate::system::ondemand::spec::Scenario;
use crate::time::SimTime;
use crate::trace::{self, GeneratorParams, Popularity, TraceHeader};
use crate::units::Duration;
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod check;
mod report_cmds;
mod run;

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
}

#[derive(Subcommand)]
enum Command {
    /// Simulate one scenario; print a summary and write an output folder.
    Run(run::RunArgs),
    /// One HTML report laying runs side by side (output folders, or scenarios to run).
    Compare(report_cmds::CompareArgs),
    /// Write a saved output folder's summary and tables as CSV, Parquet or JSON.
    Export(report_cmds::ExportArgs),
    /// Run again from a manifest.json and check the results are byte-identical.
    Rerun(report_cmds::RerunArgs),
    /// Find the largest number of terminals served without glitches (SPIFFI §7.1), with
    /// replications until 90 % confident within 5 %; writes search.json and curve.csv.
    Search(crate::search::SearchArgs),
    /// The largest glitch-free terminal count at every point of a sweep (`[sweep]`), in
    /// parallel, beside the paper's values; writes sweep.json, sweep.csv, sweep.md and
    /// report.html.
    Sweep(crate::sweep::search::SweepArgs),
    /// Print the paper-vs-vodbench markdown tables of saved `vodbench sweep` folders.
    SweepTable {
        /// Output folders of `vodbench sweep` (each with a sweep.json).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
    /// Validate scenario files without running them.
    Check {
        /// Scenario files.
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
    },
    /// Print the JSON Schema of the scenario format.
    Schema {
        /// The schema of broadcast scenarios (files with a `[broadcast]` table) instead.
        #[arg(long)]
        broadcast: bool,
    },
    /// List every registered plugin with its parameters.
    Plugins,
    /// Measure simulation speed: run a scenario several times in-process (no output files)
    /// and print the wall time of each repetition with its throughput.
    Bench {
        /// Scenario file (TOML), on-demand or broadcast.
        scenario: PathBuf,
        /// Timed repetitions (after one untimed warm-up run).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
        repeat: u32,
    },
    /// Workload traces.
    #[command(subcommand)]
    Trace(TraceCmd),
    /// Disk models on their own.
    #[command(subcommand)]
    Disk(DiskCmd),
}

#[derive(Subcommand)]
enum DiskCmd {
    /// Replay a block trace (DiskSim ASCII: `arrival_ms device lbn sectors flags`, flags bit 0 =
    /// read) through one disk model, first come first served; write requests.csv and
    /// summary.json.
    Replay {
        /// The disk: a bundled name (`barracuda`, `hp_c2247a`, `cheetah9LP`, `st15150n`) or a
        /// DiskSim parameter file; passed to the model as its `spec` parameter.
        #[arg(long)]
        spec: String,
        /// Which disk in the file (block or instance name), passed as `disk`.
        #[arg(long)]
        disk: Option<String>,
        /// The trace file.
        #[arg(long)]
        trace: PathBuf,
        /// Disk model plugin.
        #[arg(long, default_value = "mechanical")]
        model: String,
        /// Output folder for requests.csv and summary.json.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Reference response times (ms, one per line, trace order): adds the demerit figure
        /// and the mean per-request error to the summary.
        #[arg(long)]
        reference: Option<PathBuf>,
        /// Closed loop: each request arrives when the previous one completes (trace arrival
        /// times are ignored).
        #[arg(long)]
        closed: bool,
    },
}

#[derive(Subcommand)]
enum TraceCmd {
    /// Generate a Zipf (or uniform) workload trace.
    Zipf {
        /// Take every setting from this scenario's [workload.generate] (flags below override).
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Number of terminals.
        #[arg(long)]
        terminals: Option<u32>,
        /// Number of videos.
        #[arg(long)]
        videos: Option<u32>,
        /// Zipf parameter z (0 = uniform).
        #[arg(long)]
        z: Option<f64>,
        /// Uniform popularity instead of Zipf.
        #[arg(long)]
        uniform: bool,
        /// Video length, e.g. 60min.
        #[arg(long)]
        length: Option<String>,
        /// Terminals start uniformly within this span, e.g. 60s.
        #[arg(long)]
        start_spread: Option<String>,
        /// Generate events up to this time, e.g. 2h.
        #[arg(long)]
        horizon: Option<String>,
        /// Mean pauses per viewing.
        #[arg(long)]
        pauses_per_video: Option<f64>,
        /// Mean pause length, e.g. 2min.
        #[arg(long)]
        pause_mean: Option<String>,
        /// Mean seeks per viewing.
        #[arg(long)]
        seeks_per_video: Option<f64>,
        /// Mean seek distance, e.g. 5min.
        #[arg(long)]
        seek_mean: Option<String>,
        /// Seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Output file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Whether the file at `path` is a broadcast scenario (unreadable files are not; loading them
/// as on-demand scenarios reports the error).
fn is_broadcast_file(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| crate::system::broadcast::is_broadcast(&t))
}

pub(crate) fn input_error(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_INPUT)
}

pub(crate) fn failure(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(EXIT_FAILURE)
}

/// Parses the process arguments and runs the command with `registry`, writing tables and
/// reports with `outputs`.
pub fn main_with(registry: Registry, outputs: output::Outputs) -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Run(args) => run::cmd(&registry, &outputs, args),
        Command::Compare(args) => report_cmds::cmd_compare(&registry, &outputs, args),
        Command::Export(args) => report_cmds::cmd_export(&outputs, args),
        Command::Rerun(args) => report_cmds::cmd_rerun(&registry, &outputs, args),
        Command::Search(args) => crate::search::cmd_search(&registry, &outputs, args),
        Command::Sweep(args) => crate::sweep::search::cmd_sweep(&registry, &outputs, args),
        Command::SweepTable { dirs } => crate::sweep::search::cmd_sweep_table(&dirs),
        Command::Check { scenarios } => check::cmd(&registry, &scenarios),
        Command::Schema { broadcast } => {
            let schema = if broadcast {
                crate::system::broadcast::scenario::json_schema(&registry)
            } else {
                crate::system::ondemand::spec::json_schema(&registry)
            };
            println!("{}", output::to_json(&schema).trim_end());
            ExitCode::SUCCESS
        }
        Command::Plugins => {
            print!("{}", plugins_listing(&registry));
            ExitCode::SUCCESS
        }
        Command::Bench { scenario, repeat } => bench::cmd(&registry, &scenario, repeat),
        Command::Disk(DiskCmd::Replay {
            spec,
            disk,
            trace,
            model,
            out,
            reference,
            closed,
        }) => {
            let args = crate::disk_replay::ReplayArgs {
                model,
                spec,
                disk,
                trace,
                reference,
                out,
                closed,
            };
            match crate::disk_replay::cmd_replay(&registry, &args) {
                Ok(report) => {
                    print!("{report}");
                    ExitCode::SUCCESS
                }
                Err((code, m)) => {
                    eprintln!("error: {m}");
                    ExitCode::from(code)
                }
            }
        }
        Command::Trace(TraceCmd::Zipf {
            scenario,
            terminals,
            videos,
            z,
            uniform,
            length,
            start_spread,
            horizon,
            pauses_per_video,
            pause_mean,
            seeks_per_video,
            seek_mean,
            seed,
            out,
        }) => {
            let dur =
                |flag: &str, v: &Option<String>| -> Result<Option<Duration>, String> {
                    v.as_ref()
                        .map(|s| {
                            crate::units::parse_duration_ns(s).map(Duration).ok_or_else(|| {
                            format!("--{flag}: expected a duration like 90s, 10min, 2h; got {s:?}")
                        })
                        })
                        .transpose()
                };
            let run = || -> Result<(), (u8, String)> {
                let bad = |m: String| (EXIT_INPUT, m);
                let base = match &scenario {
                    Some(p) => Some(Scenario::load(p, &registry).map_err(|e| bad(e.to_string()))?),
                    None => None,
                };
                let mut params = base
                    .as_ref()
                    .and_then(|s| s.file.workload.generate.clone())
                    .unwrap_or_else(GeneratorParams::default);
                if uniform {
                    params.popularity = Popularity::Uniform;
                }
                if let Some(z) = z {
                    params.popularity = Popularity::Zipf;
                    params.z = z;
                }
                if let Some(d) = dur("start-spread", &start_spread).map_err(bad)? {
                    params.start_spread = d;
                }
                if let Some(x) = pauses_per_video {
                    params.pauses_per_video = x;
                }
                if let Some(d) = dur("pause-mean", &pause_mean).map_err(bad)? {
                    params.pause_mean = d;
                }
                if let Some(x) = seeks_per_video {
                    params.seeks_per_video = x;
                }
                if let Some(d) = dur("seek-mean", &seek_mean).map_err(bad)? {
                    params.seek_mean = d;
                }
                params
                    .validate()
                    .map_err(|(k, m)| bad(format!("{}: {m}", k.replace('_', "-"))))?;
                let terminals = terminals
                    .or(base.as_ref().map(|s| s.file.terminals.count))
                    .ok_or_else(|| bad("--terminals is required (or --scenario)".into()))?;
                let videos = videos
                    .or(base.as_ref().map(|s| s.file.videos.count))
                    .ok_or_else(|| bad("--videos is required (or --scenario)".into()))?;
                if terminals == 0 || videos == 0 {
                    return Err(bad("--terminals and --videos must be at least 1".into()));
                }
                let length = dur("length", &length)
                    .map_err(bad)?
                    .or(base.as_ref().map(|s| s.file.videos.length))
                    .ok_or_else(|| bad("--length is required (or --scenario)".into()))?;
                let horizon = match dur("horizon", &horizon).map_err(bad)? {
                    Some(h) => SimTime::from_nanos(h.0),
                    None => match &base {
                        Some(s) => runner::horizon(s),
                        None => return Err(bad("--horizon is required (or --scenario)".into())),
                    },
                };
                let seed = seed.or(base.as_ref().map(|s| s.file.seed)).unwrap_or(1);
                let events =
                    trace::generate(&params, terminals, videos, length.sim(), horizon, seed)
                        .map_err(bad)?;
                let header = TraceHeader {
                    terminals: Some(terminals),
                    videos: Some(videos),
                };
                let mut buf = Vec::new();
                trace::write_trace(&mut buf, &header, &events)
                    .map_err(|e| (EXIT_FAILURE, e.to_string()))?;
                match out {
                    Some(p) => {
                        output::write_atomic(&p, &buf).map_err(|e| (EXIT_FAILURE, e.to_string()))?
                    }
                    None => {
                        use std::io::Write;
                        std::io::stdout()
                            .write_all(&buf)
                            .map_err(|e| (EXIT_FAILURE, e.to_string()))?
                    }
                }
                Ok(())
            };
            match run() {
                Ok(()) => ExitCode::SUCCESS,
                Err((code, m)) => {
                    eprintln!("error: {m}");
                    ExitCode::from(code)
                }
            }
        }
    }
}

/// The text printed by `vodbench plugins`.
pub fn plugins_listing(registry: &Registry) -> String {
    let mut out = String::new();
    let mut last = None;
    for (kind, name, desc, params) in registry.listing() {
        if last != Some(kind) {
            out.push_str(&format!("\n[{}]\n", kind.key()));
            last = Some(kind);
        }
        out.push_str(&format!("  {name:<14} {desc}\n"));
        for p in params {
            let default = match (p.default, p.required) {
                (Some(d), _) => format!(" = {d}"),
                (None, true) => ", required".into(),
                (None, false) => String::new(),
            };
            out.push_str(&format!(
                "      {} ({}){default}: {}\n",
                p.name,
                p.ty,
                p.description
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
    }
    out.trim_start().to_string()
}
