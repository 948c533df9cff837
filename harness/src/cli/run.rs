//! `vodbench run`: one scenario file — every point of its sweep — simulated, its results
//! printed and saved as an output folder. The file is read once; the system it declares
//! ([`crate::system::declared`]) does the rest through the [`System`] trait.

use super::{failure, input_error, report_cmds};
use crate::output::{self, Outputs};
use crate::plugin::Registry;
use crate::spec::Source;
use crate::system::broadcast::Broadcast;
use crate::system::ondemand::OnDemand;
use crate::system::{declared, Declared, Progress, System};
use crate::time::SimTime;
use std::path::PathBuf;
use std::process::ExitCode;
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
}

/// `vodbench run`.
pub(crate) fn cmd(registry: &Registry, outputs: &Outputs, args: RunArgs) -> ExitCode {
    if let Some(name) = &args.save_baseline {
        if let Err(m) = report_cmds::check_baseline_name(name) {
            return input_error(m);
        }
    }
    let source = match Source::read(&args.scenario) {
        Ok(s) => s,
        Err(e) => return input_error(e),
    };
    let path = args.scenario.display();
    match declared(&source) {
        Declared::Broadcast => {
            if args.save_baseline.is_some() {
                return input_error(format!(
                    "{path}: --save-baseline applies to on-demand scenarios; this is a \
                     broadcast scenario"
                ));
            }
            run_file::<Broadcast>(registry, outputs, &source, &args)
        }
        Declared::OnDemand => {
            if args.save_baseline.is_some() && source.declares("sweep") {
                return input_error(format!(
                    "{path}: --save-baseline takes one configuration; this file is a sweep"
                ));
            }
            run_file::<OnDemand>(registry, outputs, &source, &args)
        }
    }
}

/// Loads, runs and saves one file of system `S`.
fn run_file<S: System>(
    registry: &Registry,
    outputs: &Outputs,
    source: &std::sync::Arc<Source>,
    args: &RunArgs,
) -> ExitCode {
    let mut suite = match S::load(source, registry) {
        Ok(s) => s,
        Err(e) => return input_error(e),
    };
    if let Some(n) = args.terminals {
        if let Err(m) = S::set_load(&mut suite, n) {
            return input_error(m);
        }
    }
    if let Some(seed) = args.seed {
        if let Err(m) = S::set_seed(&mut suite, seed) {
            return input_error(m);
        }
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(S::name(&suite)));
    if let Err(e) = output::check_output_dir(&dir) {
        return failure(e);
    }
    let started = Instant::now();
    let progress = Bars::new(args.quiet, started);
    let outcome = match S::run(&suite, &progress) {
        Ok(o) => o,
        Err(e) if e.is_input() => return input_error(e),
        Err(e) => return failure(e),
    };
    progress.finish();
    let wall = started.elapsed();
    let text = (!args.quiet)
        .then(|| S::summary_text(&suite, &outcome) + &S::wall_text(&suite, &outcome, wall, &dir));
    let folder = S::save(&suite, outcome);
    let has_tables =
        !folder.tables.is_empty() || folder.subfolders.iter().any(|(_, f)| !f.tables.is_empty());
    if let Err(e) = output::write_tree(&dir, &folder, outputs.writers()) {
        return failure(e);
    }
    if let Some(text) = text {
        print!("{text}");
        if outputs.table_writer().is_none() && has_tables {
            println!("(no table writer installed: CSV tables were not written)");
        }
    }
    match &args.save_baseline {
        Some(name) => report_cmds::save_baseline(&dir, name, args.quiet),
        None => ExitCode::SUCCESS,
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
