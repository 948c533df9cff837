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

use crate::plugin::Registry;
use crate::results::Summary;
use crate::system::ondemand::spec::Scenario;
use crate::time::SimTime;
use crate::trace::{self, GeneratorParams, Popularity, TraceHeader};
use crate::units::Duration;
use crate::{output, runner};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod report_cmds;

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
    Run {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Output folder (default: out/NAME, NAME being the scenario's name with
        /// characters other than letters, digits, '.', '_' and '-' made '_').
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override the number of terminals.
        #[arg(long)]
        terminals: Option<u32>,
        /// Override the seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
        /// Also store the output folder as baseline NAME (for `vodbench compare --baseline`).
        #[arg(long, value_name = "NAME")]
        save_baseline: Option<String>,
    },
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

fn is_sweep_file(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| crate::sweep::has_sweep(&t))
}

/// `vodbench check` of an on-demand sweep: every point validated, preflighted and its
/// workload generated; lists the points with their indices (for `vodbench sweep --points`).
fn check_sweep(path: &Path, registry: &Registry) -> Result<String, String> {
    let suite = crate::sweep::SweepSuite::load(path, registry).map_err(|e| e.to_string())?;
    let mut out = format!(
        "ok: {} ({}, sweep over {}, {} points)\n",
        path.display(),
        suite.name,
        suite.axes.join(" × "),
        suite.points.len()
    );
    for (i, p) in suite.points.iter().enumerate() {
        let events = runner::preflight(&p.scenario)
            .and_then(|_| runner::workload(&p.scenario))
            .map_err(|e| format!("sweep point ({}): {e}", p.label()))?;
        out.push_str(&format!(
            "  {i:>3}  {}: {} terminals, {} workload events\n",
            p.label(),
            p.scenario.file.terminals.count,
            events.len()
        ));
    }
    Ok(out)
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
        Command::Run {
            scenario,
            out,
            terminals,
            seed,
            quiet,
            save_baseline,
        } => {
            if let Some(name) = &save_baseline {
                if let Err(m) = report_cmds::check_baseline_name(name) {
                    return input_error(m);
                }
            }
            if is_broadcast_file(&scenario) {
                if save_baseline.is_some() {
                    return input_error(format!(
                        "{}: --save-baseline applies to on-demand scenarios; this is a \
                         broadcast scenario",
                        scenario.display()
                    ));
                }
                if terminals.is_some() {
                    return input_error(format!(
                        "{}: --terminals applies to on-demand scenarios; this is a broadcast \
                         scenario (set receiver.clients instead)",
                        scenario.display()
                    ));
                }
                crate::system::broadcast::cli::cmd_run(
                    &registry, &outputs, &scenario, out, seed, quiet,
                )
            } else if is_sweep_file(&scenario) {
                if save_baseline.is_some() {
                    return input_error(format!(
                        "{}: --save-baseline takes one configuration; this file is a sweep",
                        scenario.display()
                    ));
                }
                crate::sweep::run::cmd_run(
                    &registry, &outputs, &scenario, out, terminals, seed, quiet,
                )
            } else {
                let dir = out.unwrap_or_else(|| default_out(&registry, &scenario));
                let code = cmd_run(&registry, &outputs, &scenario, &dir, terminals, seed, quiet);
                match save_baseline {
                    Some(name) if code == ExitCode::SUCCESS => {
                        report_cmds::save_baseline(&dir, &name, quiet)
                    }
                    _ => code,
                }
            }
        }
        Command::Compare(args) => report_cmds::cmd_compare(&registry, &outputs, args),
        Command::Export(args) => report_cmds::cmd_export(&outputs, args),
        Command::Rerun(args) => report_cmds::cmd_rerun(&registry, &outputs, args),
        Command::Search(args) => crate::search::cmd_search(&registry, &outputs, args),
        Command::Sweep(args) => crate::sweep::search::cmd_sweep(&registry, &outputs, args),
        Command::SweepTable { dirs } => crate::sweep::search::cmd_sweep_table(&dirs),
        Command::Check { scenarios } => {
            let mut bad = false;
            for p in scenarios {
                if is_broadcast_file(&p) {
                    match crate::system::broadcast::BroadcastSuite::load(&p, &registry) {
                        Ok(s) => println!(
                            "ok: {} ({}, broadcast, {} point{})",
                            p.display(),
                            s.name,
                            s.points.len(),
                            if s.points.len() == 1 { "" } else { "s" }
                        ),
                        Err(e) => {
                            eprintln!("error: {e}");
                            bad = true;
                        }
                    }
                    continue;
                }
                if is_sweep_file(&p) {
                    match check_sweep(&p, &registry) {
                        Ok(text) => print!("{text}"),
                        Err(e) => {
                            eprintln!("error: {e}");
                            bad = true;
                        }
                    }
                    continue;
                }
                match Scenario::load(&p, &registry).and_then(|s| {
                    runner::preflight(&s)?;
                    runner::workload(&s).map(|w| (s, w))
                }) {
                    Ok((s, w)) => println!(
                        "ok: {} ({}, {} workload events)",
                        p.display(),
                        s.name(),
                        w.len()
                    ),
                    Err(e) => {
                        eprintln!("error: {e}");
                        bad = true;
                    }
                }
            }
            if bad {
                ExitCode::from(EXIT_INPUT)
            } else {
                ExitCode::SUCCESS
            }
        }
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
        Command::Bench { scenario, repeat } => cmd_bench(&registry, &scenario, repeat),
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

/// `out/<scenario name>`, the default output folder of `vodbench run` (`out/<file stem>`
/// when the scenario cannot be read; running it then reports why).
fn default_out(registry: &Registry, path: &Path) -> PathBuf {
    let name = Scenario::load(path, registry)
        .map(|s| s.name().to_string())
        .unwrap_or_else(|_| {
            path.file_stem()
                .map_or("scenario".into(), |s| s.to_string_lossy().into_owned())
        });
    output::default_dir(&name)
}

fn cmd_run(
    registry: &Registry,
    outputs: &output::Outputs,
    path: &Path,
    dir: &Path,
    terminals: Option<u32>,
    seed: Option<u64>,
    quiet: bool,
) -> ExitCode {
    let mut s = match Scenario::load(path, registry) {
        Ok(s) => s,
        Err(e) => return input_error(e),
    };
    if let Some(n) = terminals {
        if let Err(e) = s.set_terminals(n) {
            return input_error(e);
        }
    }
    if let Some(seed) = seed {
        s.file.seed = seed;
    }
    if let Err(e) = output::check_output_dir(dir) {
        return failure(e);
    }
    let started = Instant::now();
    let bar = indicatif::ProgressBar::hidden();
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} simulated {msg} [{wide_bar}] {percent}% ({elapsed})",
        )
        .expect("valid template"),
    );
    let mut shown = false;
    let mut progress = |now: SimTime, end: Option<SimTime>| {
        if quiet {
            return;
        }
        if !shown && started.elapsed().as_secs_f64() > 1.0 {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            shown = true;
        }
        if let Some(end) = end {
            bar.set_length(end.as_nanos() / 1_000_000);
        }
        bar.set_position(now.as_nanos() / 1_000_000);
        bar.set_message(format!("{:.0}s", now.as_secs_f64()));
    };
    let (results, events) = match runner::run(&s, &mut progress) {
        Ok(r) => r,
        Err(runner::RunError::Scenario(e)) => return input_error(e),
        Err(e) => return failure(e),
    };
    bar.finish_and_clear();
    let wall = started.elapsed();
    let manifest = runner::manifest(&s, &events);
    if let Err(e) = output::write_run(dir, &manifest, &results, outputs.writers()) {
        return failure(e);
    }
    if !quiet {
        print!("{}", summary_table(&results.summary));
        let sim_s = results.summary.simulated_ns as f64 / 1e9;
        println!(
            "wall time {:.2}s, {:.0}x real time, {:.2}M events/s; output: {}",
            wall.as_secs_f64(),
            sim_s / wall.as_secs_f64().max(1e-9),
            results.summary.events as f64 / wall.as_secs_f64().max(1e-9) / 1e6,
            dir.display()
        );
        if outputs.table_writer().is_none() {
            println!("(no table writer installed: CSV tables were not written)");
        }
    }
    ExitCode::SUCCESS
}

/// One timed repetition for `vodbench bench`: (wall seconds, units of work done, simulated
/// seconds where the run has a simulated clock).
type BenchRun<'a> = Box<dyn FnMut() -> Result<(f64, f64, Option<f64>), ExitCode> + 'a>;

/// `, N s simulated, Mx real time` for a bench line (nothing without a simulated clock).
fn real_time_factor(simulated_s: Option<f64>, wall_s: f64) -> String {
    match simulated_s {
        Some(sim) => format!(
            ", {sim:.0} s simulated, {:.0}x real time",
            sim / wall_s.max(1e-9)
        ),
        None => String::new(),
    }
}

fn cmd_bench(registry: &Registry, path: &Path, repeat: u32) -> ExitCode {
    let (mut once, unit): (BenchRun<'_>, &str) = if is_broadcast_file(path) {
        let suite = match crate::system::broadcast::BroadcastSuite::load(path, registry) {
            Ok(s) => s,
            Err(e) => return input_error(e),
        };
        (
            Box::new(move || {
                let t = Instant::now();
                let r = crate::system::broadcast::run::run_suite(&suite, &|_, _| {})
                    .map_err(|e| failure(format!("{}: {e}", path.display())))?;
                let wall = t.elapsed().as_secs_f64();
                let frames: u64 = r
                    .points
                    .iter()
                    .map(|p| u64::from(p.summary.frames) * u64::from(p.summary.clients))
                    .sum();
                Ok((wall, frames as f64, None))
            }),
            "client frames",
        )
    } else {
        let s = match Scenario::load(path, registry) {
            Ok(s) => s,
            Err(e) => return input_error(e),
        };
        (
            Box::new(move || {
                let t = Instant::now();
                let (r, _) = runner::run(&s, &mut |_, _| {}).map_err(|e| match e {
                    runner::RunError::Scenario(e) => input_error(e),
                    e => failure(e),
                })?;
                Ok((
                    t.elapsed().as_secs_f64(),
                    r.summary.events as f64,
                    Some(r.summary.simulated_ns as f64 / 1e9),
                ))
            }),
            "events",
        )
    };
    if let Err(code) = once() {
        return code;
    }
    let mut walls = Vec::with_capacity(repeat as usize);
    let (mut work, mut simulated) = (0.0, None);
    for i in 0..repeat {
        match once() {
            Ok((w, n, sim)) => {
                println!(
                    "run {:>3}: {:.4} s, {:.2}M {unit}/s{}",
                    i + 1,
                    w,
                    n / w.max(1e-9) / 1e6,
                    real_time_factor(sim, w)
                );
                walls.push(w);
                (work, simulated) = (n, sim);
            }
            Err(code) => return code,
        }
    }
    walls.sort_by(f64::total_cmp);
    let median = walls[walls.len() / 2];
    let factors = match simulated {
        Some(sim) => format!(
            "; {sim:.0} s simulated per run: {:.0}x real time at the best, {:.0}x at the median",
            sim / walls[0].max(1e-9),
            sim / median.max(1e-9)
        ),
        None => String::new(),
    };
    println!(
        "{}: {repeat} runs, wall min {:.4} s, median {:.4} s, max {:.4} s; \
         {:.0} {unit} per run, {:.2}M {unit}/s at the median{factors}",
        path.display(),
        walls[0],
        median,
        walls[walls.len() - 1],
        work,
        work / median.max(1e-9) / 1e6
    );
    ExitCode::SUCCESS
}

/// The human-readable summary printed by `vodbench run`.
pub fn summary_table(s: &Summary) -> String {
    let ms = |ns: u64| format!("{:.1} ms", ns as f64 / 1e6);
    let pct = |r: f64| format!("{:.1} %", r * 100.0);
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / 1048576.0);
    let io = &s.disks.io_time;
    let rows: Vec<(String, String)> = vec![
        ("scenario".into(), s.scenario.clone()),
        ("terminals".into(), s.terminals.to_string()),
        (
            "measured".into(),
            format!(
                "{:.0} s after {:.1} s warm-up{}",
                s.measured_ns as f64 / 1e9,
                s.warmup_ns as f64 / 1e9,
                if s.ended_early {
                    " (workload ended early)"
                } else {
                    ""
                }
            ),
        ),
        (
            "glitches".into(),
            format!(
                "{} ({} terminals, {:.1} s stalled){}",
                s.glitches.count,
                s.glitches.terminals_affected,
                s.glitches.stalled_ns as f64 / 1e9,
                match s.glitches.never_displayed {
                    0 => String::new(),
                    n => format!(
                        "; {n} terminals asked for a video before the measured period and \
                         never displayed it"
                    ),
                }
            ),
        ),
        (
            "start-up latency".into(),
            format!(
                "mean {}, p99 {}, max {}",
                ms(s.startup_latency.mean_ns),
                ms(s.startup_latency.p99_ns),
                ms(s.startup_latency.max_ns)
            ),
        ),
        (
            "disk utilization".into(),
            format!(
                "mean {}, min {}, max {}",
                pct(s.disks.utilization_mean_ratio),
                pct(s.disks.utilization_min_ratio),
                pct(s.disks.utilization_max_ratio)
            ),
        ),
        (
            "CPU utilization".into(),
            format!(
                "mean {}, max {}",
                pct(s.cpu.utilization_mean_ratio),
                pct(s.cpu.utilization_max_ratio)
            ),
        ),
        (
            "disk requests".into(),
            format!(
                "{} ({} demand, {} prefetch)",
                s.disks.requests, s.disks.demand_requests, s.disks.prefetch_requests
            ),
        ),
        (
            "I/O time".into(),
            format!(
                "mean {} = queue {} + seek {} + rotation {} + transfer {} + overhead {}",
                ms(io.total.mean_ns),
                ms(io.queue.mean_ns),
                ms(io.seek.mean_ns),
                ms(io.rotation.mean_ns),
                ms(io.transfer.mean_ns),
                ms(io.overhead.mean_ns)
            ),
        ),
        (
            "I/O time p99 / max".into(),
            format!("{} / {}", ms(io.total.p99_ns), ms(io.total.max_ns)),
        ),
        (
            "buffer pool".into(),
            format!(
                "hit {}, shared refs {}, joins {}, waits {}",
                pct(s.buffer_pool.hit_ratio),
                pct(s.buffer_pool.shared_ratio),
                s.buffer_pool.joins,
                s.buffer_pool.page_waits
            ),
        ),
        (
            "server memory".into(),
            format!(
                "mean {}, peak {}",
                mib(s.buffer_pool.memory_in_use_mean_bytes),
                mib(s.buffer_pool.memory_in_use_peak_bytes)
            ),
        ),
        (
            "terminal buffer".into(),
            format!(
                "mean {}, peak {} of {}",
                mib(s.terminal_buffer.occupancy_mean_bytes),
                mib(s.terminal_buffer.occupancy_peak_bytes),
                mib(s.terminal_buffer.memory_bytes)
            ),
        ),
    ];
    let mut rows = rows;
    if let Some(x) = &s.search {
        let gib = |b: u64| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64);
        rows.push((
            "searches".into(),
            format!(
                "{} ({:?}; {} segments shown); storage: videos {}, search versions {} (+{})",
                x.searches,
                x.mode,
                x.segments_shown,
                gib(x.video_bytes),
                gib(x.search_version_bytes),
                pct(x.search_version_bytes as f64 / x.video_bytes.max(1) as f64)
            ),
        ));
    }
    if let Some(p) = &s.piggyback {
        rows.push((
            "piggybacking".into(),
            format!(
                "{} groups, {} joined, {} streams saved, mean wait {:.1} s",
                p.groups_formed,
                p.members_joined,
                p.streams_saved,
                p.wait.mean_ns as f64 / 1e9
            ),
        ));
    }
    let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in rows {
        out.push_str(&format!("{k:<w$}  {v}\n"));
    }
    for (k, v) in &s.paper {
        out.push_str(&format!("{:<w$}  {v}\n", format!("paper: {k}")));
    }
    out
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
