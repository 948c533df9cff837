//! `vodbench bench`: a scenario run several times in-process (no output files), with the
//! wall time of each repetition and its throughput.

use super::CommandError;
use crate::plugin::Registry;
use crate::scenario::Source;
use crate::system::broadcast::Broadcast;
use crate::system::ondemand::OnDemand;
use crate::system::{declared, Declared, Silent, System};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `vodbench bench`.
#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    /// Scenario file (TOML), on-demand or broadcast.
    scenario: PathBuf,
    /// Timed repetitions (after one untimed warm-up run).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
}

/// `vodbench bench FILE --repeat N`.
pub(crate) fn cmd(registry: &Registry, args: BenchArgs) -> Result<(), CommandError> {
    let (path, repeat) = (args.scenario.as_path(), args.repeat);
    let source = Source::read(path)?;
    match declared(&source) {
        Declared::OnDemand => bench::<OnDemand>(registry, &source, path, repeat),
        Declared::Broadcast => bench::<Broadcast>(registry, &source, path, repeat),
    }
}

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

fn bench<S: System>(
    registry: &Registry,
    source: &std::sync::Arc<Source>,
    path: &Path,
    repeat: u32,
) -> Result<(), CommandError> {
    let suite = S::load(source, registry)?;
    let once = || -> Result<(f64, crate::system::Work), CommandError> {
        let t = Instant::now();
        let outcome = S::run(&suite, &Silent)?;
        Ok((t.elapsed().as_secs_f64(), S::work(&outcome)))
    };
    // one untimed warm-up run
    once()?;
    let mut walls = Vec::with_capacity(repeat as usize);
    let mut last = None;
    for i in 0..repeat {
        let (w, work) = once()?;
        println!(
            "run {:>3}: {:.4} s, {:.2}M {}/s{}",
            i + 1,
            w,
            work.units / w.max(1e-9) / 1e6,
            work.unit,
            real_time_factor(work.simulated_s, w)
        );
        walls.push(w);
        last = Some(work);
    }
    let work = last.expect("at least one repetition");
    walls.sort_by(f64::total_cmp);
    let median = walls[walls.len() / 2];
    let factors = match work.simulated_s {
        Some(sim) => format!(
            "; {sim:.0} s simulated per run: {:.0}x real time at the best, {:.0}x at the median",
            sim / walls[0].max(1e-9),
            sim / median.max(1e-9)
        ),
        None => String::new(),
    };
    let unit = work.unit;
    println!(
        "{}: {repeat} runs, wall min {:.4} s, median {:.4} s, max {:.4} s; \
         {:.0} {unit} per run, {:.2}M {unit}/s at the median{factors}",
        path.display(),
        walls[0],
        median,
        walls[walls.len() - 1],
        work.units,
        work.units / median.max(1e-9) / 1e6
    );
    Ok(())
}
