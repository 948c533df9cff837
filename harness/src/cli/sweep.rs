//! `vodbench sweep`: a search at every point of an on-demand sweep
//! ([`crate::experiment::sweep`]), in parallel, with a spinner counting the simulations; each
//! point's search is saved as it finishes, and `--resume` takes those already saved. Writes
//! `sweep.json`, `sweep.csv`, `sweep.md`, a curve per point and the report.

use super::progress::{progress_bar, worker_pool};
use super::search::{cache_text, read_on_demand, SearchLimits};
use super::CommandError;
use crate::experiment::checkpoint::{self, Unused};
use crate::experiment::sweep::{markdown, sweep_folder, sweep_manifest, sweep_search};
use crate::output::{self, Outputs};
use crate::plugin::Registry;
use crate::results::search::{Probe, SearchResult};
use crate::system::ondemand::runner;
use crate::system::ondemand::spec::SweepSuite;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `vodbench sweep`.
#[derive(Debug, clap::Args)]
pub(crate) struct SweepArgs {
    /// Scenario file (TOML) with a `[sweep]` (a file without one is a single point); each
    /// point's terminal count is its expected answer (its search climbs from half of it).
    scenario: PathBuf,
    /// Output folder (default: out/NAME-sweep, NAME being the scenario's name with
    /// characters other than letters, digits, '.', '_' and '-' made '_').
    #[arg(long)]
    out: Option<PathBuf>,
    /// Replication, terminal and thread limits.
    #[command(flatten)]
    limits: SearchLimits,
    /// Only these points (0-based indices in grid order, as `vodbench check` lists them).
    #[arg(long, value_delimiter = ',')]
    points: Vec<usize>,
    /// Take every point already searched in the output folder (its `points/NNN.json`, saved
    /// as each point finishes) instead of searching it again, if it was searched with the
    /// same resolved scenario, the same contents of the files it reads (disk specifications),
    /// limits and vodbench executable: continues a stopped sweep.
    #[arg(long)]
    resume: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
    /// Refuse a scenario (each sweep point) whose run is estimated to need more memory than
    /// this (`8GiB`, `500MiB`; default 8GiB), naming what dominates.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
}

/// `vodbench sweep`.
pub(crate) fn cmd(
    registry: &Registry,
    outputs: &Outputs,
    args: SweepArgs,
) -> Result<(), CommandError> {
    super::check::set_max_memory(args.max_memory.as_deref())?;
    let path = &args.scenario;
    let source = read_on_demand(
        path,
        "sweep searches the most on-demand terminals without glitches; this is a broadcast \
         scenario (`vodbench run` runs its sweep)",
    )?;
    let opts = args.limits.options()?;
    // a file without a [sweep] is one point
    let mut suite = SweepSuite::from_source(&source?, registry)?;
    // each point's index in grid order (names its checkpoint)
    let grid = only_points(&mut suite, &args.points)?;
    for p in &suite.points {
        if p.scenario.file.workload.generate.is_none() {
            return Err(CommandError::input(format!(
                "{}: sweep varies the number of terminals, so the workload must come from \
                 [workload.generate], not from a trace",
                path.display()
            )));
        }
        runner::preflight(&p.scenario)
            .map_err(|e| CommandError::input(format!("sweep point ({}): {e}", p.label())))?;
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(&format!("{}-sweep", suite.name)));
    output::check_output_dir(&dir)?;
    let pool = worker_pool(args.limits.threads)?;
    let bar = progress_bar(args.quiet, "{spinner} sweep {msg}: {pos} runs ({elapsed})");
    let npoints = suite.points.len();
    let labels: Vec<String> = suite.points.iter().map(|p| p.label()).collect();
    let on_probe = |i: usize, p: &Probe| {
        bar.inc(1);
        bar.set_message(format!(
            "{npoints} points; last: {} rep. {}: {} terminals, {} glitches",
            labels[i],
            p.replication + 1,
            p.terminals,
            p.glitches
        ));
    };
    let keys: Vec<String> = suite
        .points
        .iter()
        .map(|p| checkpoint::point_key(&p.scenario, &opts))
        .collect::<Result<_, _>>()?;
    let mut prior: Vec<Option<SearchResult>> = vec![None; npoints];
    if args.resume {
        for (i, p) in suite.points.iter().enumerate() {
            let why = match checkpoint::load(&dir, grid[i], &keys[i], &p.scenario, &opts) {
                Ok(r) => {
                    prior[i] = Some(r);
                    continue;
                }
                Err(Unused::Absent) => continue,
                Err(Unused::Stale) => "saved for another scenario, other limits, other input \
                                        files (a disk specification changed?) or another \
                                        vodbench build"
                    .to_string(),
                Err(Unused::Invalid(m)) => format!("unreadable ({m})"),
            };
            if !args.quiet {
                eprintln!(
                    "point {} ({}): {} not used: {why}; searching it again",
                    grid[i],
                    labels[i],
                    dir.join(checkpoint::relative_path(grid[i])).display()
                );
            }
        }
        if !args.quiet {
            let n = prior.iter().flatten().count();
            eprintln!(
                "resuming {}: {n} of {npoints} points already searched",
                dir.display()
            );
        }
    }
    let cache = args.limits.open_cache()?;
    let save_error = std::sync::Mutex::new(None::<String>);
    let on_done = |i: usize, r: &SearchResult| {
        if let Err(e) = checkpoint::save(&dir, grid[i], &checkpoint::to_text(&keys[i], r)) {
            let mut first = save_error.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert_with(|| e.to_string());
        }
    };
    let started = Instant::now();
    let outcome =
        pool.install(|| sweep_search(&suite, &opts, &prior, cache.as_ref(), &on_probe, &on_done));
    bar.finish_and_clear();
    if let (Some(c), false) = (&cache, args.quiet) {
        eprint!("{}", cache_text(c));
    }
    if let Some(e) = save_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        if !args.quiet {
            eprintln!("warning: a point's checkpoint could not be saved: {e}");
        }
    }
    let (result, searches) = outcome?;
    let wall = started.elapsed();
    let resumed: Vec<usize> = (0..npoints)
        .filter(|&i| prior[i].is_some())
        .map(|i| grid[i])
        .collect();
    let manifest = sweep_manifest(&suite, &opts, &resumed);
    let folder = sweep_folder(&dir, &manifest, &result, &searches, &grid, &keys);
    // report.html from the written folder; sweep.csv and the curves are written above
    let writers = output::Writers {
        tables: None,
        reporter: outputs.reporter(),
    };
    output::write_tree(&dir, &folder, writers)?;
    if !args.quiet {
        print!("{}", markdown(&result));
        println!(
            "wall time {:.1}s for {} points; output: {}",
            wall.as_secs_f64(),
            npoints,
            dir.display()
        );
    }
    Ok(())
}

/// Keeps only the points of `suite` listed by `--points` (all when none is); their indices in
/// grid order.
fn only_points(suite: &mut SweepSuite, points: &[usize]) -> Result<Vec<usize>, CommandError> {
    let n = suite.points.len();
    if points.is_empty() {
        return Ok((0..n).collect());
    }
    if let Some(bad) = points.iter().find(|&&i| i >= n) {
        return Err(CommandError::input(format!(
            "--points: {bad} is not a point of {} (0..{n})",
            suite.path.display()
        )));
    }
    let keep: std::collections::BTreeSet<usize> = points.iter().copied().collect();
    suite.points = std::mem::take(&mut suite.points)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep.contains(i))
        .map(|(_, p)| p)
        .collect();
    Ok(keep.into_iter().collect())
}
