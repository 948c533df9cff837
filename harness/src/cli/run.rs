//! `vodbench run`: one scenario file — every point of its sweep — simulated, its results
//! printed and saved as an output folder. The file is read once; the system it declares
//! ([`crate::system::declared`]) does the rest through the [`System`] trait.

use super::{baseline, CommandError};
use crate::output::{self, Outputs};
use crate::plugin::Registry;
use crate::scenario::Source;
use crate::system::broadcast::Broadcast;
use crate::system::ondemand::OnDemand;
use crate::system::{declared, Declared, Progress, System};
use crate::time::SimTime;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Arguments of `vodbench run`.
#[derive(clap::Args)]
pub(crate) struct RunArgs {
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
    /// Refuse an on-demand scenario whose run is estimated to need more memory than this
    /// (`8GiB`, `500MiB`; default 8GiB), naming what dominates.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
    /// Worker threads for a sweep's points and a broadcast run's receivers (default: one per
    /// CPU); the results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
}

/// `vodbench run`.
pub(crate) fn cmd(
    registry: &Registry,
    outputs: &Outputs,
    args: RunArgs,
) -> Result<(), CommandError> {
    if let Some(name) = &args.save_baseline {
        baseline::check_name(name).map_err(CommandError::Input)?;
    }
    super::check::set_max_memory(args.max_memory.as_deref())?;
    let pool = super::progress::worker_pool(args.threads)?;
    pool.install(|| run_declared(registry, outputs, &args))
}

/// `vodbench run` inside its worker pool: the file run as the system it declares.
fn run_declared(
    registry: &Registry,
    outputs: &Outputs,
    args: &RunArgs,
) -> Result<(), CommandError> {
    let source = Source::read(&args.scenario)?;
    let path = args.scenario.display();
    match declared(&source) {
        Declared::Broadcast => {
            if args.save_baseline.is_some() {
                return Err(CommandError::input(format!(
                    "{path}: --save-baseline applies to on-demand scenarios; this is a \
                     broadcast scenario"
                )));
            }
            run_file::<Broadcast>(registry, outputs, &source, args)
        }
        Declared::OnDemand => {
            if args.save_baseline.is_some() && source.declares("sweep") {
                return Err(CommandError::input(format!(
                    "{path}: --save-baseline takes one configuration; this file is a sweep"
                )));
            }
            run_file::<OnDemand>(registry, outputs, &source, args)
        }
    }
}

/// Loads, runs and saves one file of system `S`.
fn run_file<S: System>(
    registry: &Registry,
    outputs: &Outputs,
    source: &std::sync::Arc<Source>,
    args: &RunArgs,
) -> Result<(), CommandError> {
    let mut suite = S::load(source, registry)?;
    if let Some(n) = args.terminals {
        S::set_load(&mut suite, n).map_err(|e| super::flag_error("--terminals", e))?;
    }
    if let Some(seed) = args.seed {
        S::set_seed(&mut suite, seed).map_err(|e| super::flag_error("--seed", e))?;
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(S::name(&suite)));
    let _lock = output::claim_output_dir(&dir, output::Claim::Exclusive, output::Writer::Run)?;
    if let Some(name) = &args.save_baseline {
        baseline::check_target(name, S::name(&suite))?;
    }
    let started = Instant::now();
    let progress = Bars::new(args.quiet, started);
    let outcome = S::run(&suite, &progress)?;
    progress.finish();
    let wall = started.elapsed();
    let text = (!args.quiet)
        .then(|| S::summary_text(&suite, &outcome) + &S::wall_text(&suite, &outcome, wall, &dir));
    let folder = S::save(&suite, outcome);
    let has_tables =
        !folder.tables.is_empty() || folder.subfolders.iter().any(|(_, f)| !f.tables.is_empty());
    output::write_tree(&dir, output::Writer::Run, &folder, outputs.writers())?;
    if let Some(text) = text {
        print!("{text}");
        if outputs.table_writer().is_none() && has_tables {
            println!("(no table writer installed: CSV tables were not written)");
        }
    }
    match &args.save_baseline {
        Some(name) => baseline::save(&dir, name, args.quiet),
        None => Ok(()),
    }
}

/// The progress of `vodbench run` on standard error: the simulated clock of a single
/// simulation, or the points of a sweep, shown once the run has taken a second.
struct Bars {
    quiet: bool,
    started: Instant,
    bar: indicatif::ProgressBar,
    shown: AtomicBool,
}

impl Bars {
    fn new(quiet: bool, started: Instant) -> Bars {
        Bars {
            quiet,
            started,
            bar: indicatif::ProgressBar::hidden(),
            shown: AtomicBool::new(false),
        }
    }

    /// Shows the bar (with `template`) once a second has passed; whether it is shown.
    fn show(&self, template: &str) -> bool {
        if self.quiet {
            return false;
        }
        if !self.shown.load(Ordering::Relaxed)
            && self.started.elapsed().as_secs_f64() > 1.0
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_style(
                indicatif::ProgressStyle::with_template(template).expect("valid template"),
            );
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        self.shown.load(Ordering::Relaxed)
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bars {
    fn simulated(&self, now: SimTime, end: Option<SimTime>) {
        if !self.show("{spinner} simulated {msg} [{wide_bar}] {percent}% ({elapsed})") {
            return;
        }
        if let Some(end) = end {
            self.bar.set_length(end.as_nanos() / 1_000_000);
        }
        self.bar.set_position(now.as_nanos() / 1_000_000);
        self.bar.set_message(format!("{:.0}s", now.as_secs_f64()));
    }

    fn points(&self, done: usize, total: usize) {
        if !self.show("{spinner} {pos}/{len} points [{wide_bar}] ({elapsed})") {
            return;
        }
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
    }
}
