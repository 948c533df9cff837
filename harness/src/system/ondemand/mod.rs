//! The on-demand system: a SPIFFI-style video server simulated end to end (SPIFFI §5–6), and
//! [`OnDemand`], its [`System`]: a scenario file (or each point of its sweep) loaded,
//! validated, simulated and saved.
//!
//! Data path of one terminal read: the terminal sends a request (wire delay) → the node's CPU
//! receives it (FCFS) → buffer pool: hit (send), join a read in progress, or miss (allocate a
//! page, start an I/O, queue at the disk) → the disk scheduler picks, the disk model times the
//! access → the CPU sends the block (wire delay) → the terminal buffers it and plays frames.
//! After every real reference the prefetcher may queue read-ahead for that disk.
//!
//! Events are block-granular: a terminal schedules one wake-up for the earliest of "a frame's
//! display time comes before its data" (a glitch), "enough frames consumed to make room for
//! another block" and "end of video", computed exactly from the frame offsets, instead of one
//! event per frame. Everything runs on integer nanoseconds and per-component random streams,
//! so a scenario and seed give byte-identical results.
//!
//! Interactive viewing (SPIFFI §8): pause/resume/seek in `terminal`, fast-forward and rewind
//! searches in `visual_search`, piggybacking of viewers of the same video in `piggyback`.

mod admission;
mod block_set;
mod bus;
pub mod calibrate;
mod clients;
pub mod continuity;
pub mod delays;
mod disk;
mod disk_stations;
mod egress;
mod engine;
mod error;
mod event;
pub mod hold;
mod interarrival;
mod interface_cpu;
mod lost_packet;
mod manager;
mod measure;
pub mod memory;
mod message_work;
mod network;
mod node;
pub mod outputs;
mod piggyback;
mod playout;
mod ports;
mod prefetch;
mod queue;
mod replication;
mod requests;
mod rounds;
pub mod runner;
pub mod scenario;
mod search;
mod setup;
mod stats;
mod storage_thread;
mod stream_memory;
mod term;
mod terminal;
pub mod video;
mod visual_search;
pub mod workload;

pub use engine::{
    check_buildable, simulate, simulate_stream, simulate_with, ClockProgress, SimOptions,
};
pub use error::SimError;
pub use queue::EventQueue;

use crate::output::Folder;
use crate::plugin::Registry;
use crate::results::analysis::PointAnalysis;
use crate::results::RunResults;
use crate::scenario::{ScenarioError, Source};
use crate::system::{OverrideError, Progress, RunError, System, Work};
use rayon::prelude::*;
use scenario::{Scenario, SweepSuite};
use std::path::Path;
use std::sync::Arc;

/// The on-demand video server (SPIFFI): terminals, nodes with buffer pools and disks, a
/// network, and the policies between them.
pub struct OnDemand;

/// One point's run: its results and the digest of its workload.
pub type PointRun = (RunResults, workload::Digest);

impl System for OnDemand {
    type Suite = SweepSuite;
    type Outcome = Vec<PointRun>;
    const NAME: &'static str = "on-demand";

    fn load(source: &Arc<Source>, registry: &Registry) -> Result<SweepSuite, ScenarioError> {
        if source.declares("sweep") {
            SweepSuite::from_source(source, registry)
        } else {
            // a file without a sweep is read straight into its fields (any u64 seed)
            Scenario::from_source(source, registry).map(SweepSuite::single)
        }
    }

    fn name(suite: &SweepSuite) -> &str {
        &suite.name
    }

    fn is_sweep(suite: &SweepSuite) -> bool {
        suite.sweep
    }

    fn set_seed(suite: &mut SweepSuite, seed: u64) -> Result<(), OverrideError> {
        if let Some(e) = OverrideError::swept(&suite.path, &suite.swept, "seed") {
            return Err(e);
        }
        for p in &mut suite.points {
            p.scenario.file.seed = seed;
        }
        Ok(())
    }

    fn set_load(suite: &mut SweepSuite, terminals: u32) -> Result<(), OverrideError> {
        if let Some(e) = OverrideError::swept(&suite.path, &suite.swept, "terminals.count") {
            return Err(e);
        }
        for p in &mut suite.points {
            p.scenario.set_terminals(terminals)?;
        }
        Ok(())
    }

    fn validate(suite: &SweepSuite) -> Result<(), ScenarioError> {
        if suite.sweep {
            // a sweep's run holds every point's results until its folder is written, and
            // runs as many points at once as there are worker threads
            let points: Vec<&Scenario> = suite.points.iter().map(|p| &p.scenario).collect();
            memory::check_points(&points, rayon::current_num_threads())?;
        }
        for p in &suite.points {
            // the budget first: building the video library is what may not fit
            memory::check(&p.scenario).map_err(|e| in_point(suite, p, e))?;
            check_buildable(&p.scenario).map_err(|e| in_point(suite, p, e))?;
            p.scenario.analysis().map_err(|e| in_point(suite, p, e))?;
        }
        Ok(())
    }

    fn check_text(suite: &SweepSuite) -> Result<String, ScenarioError> {
        let path = suite.path.display();
        if !suite.sweep {
            let s = &suite.points[0].scenario;
            let events = workload::Workload::of(s).digest()?.events;
            return Ok(format!(
                "ok: {path} ({}, {events} workload events)\n",
                s.name(),
            ));
        }
        let mut out = format!(
            "ok: {path} ({}, sweep over {}, {} points)\n",
            suite.name,
            suite.axes.join(" × "),
            suite.points.len()
        );
        for (i, p) in suite.points.iter().enumerate() {
            let events = workload::Workload::of(&p.scenario)
                .digest()
                .map_err(|e| in_point(suite, p, e))?
                .events;
            out.push_str(&format!(
                "  {i:>3}  {}: {} terminals, {events} workload events\n",
                p.label(),
                p.scenario.terminals(),
            ));
        }
        Ok(out)
    }

    fn run(suite: &SweepSuite, progress: &dyn Progress) -> Result<Vec<PointRun>, RunError> {
        if !suite.sweep {
            let s = &suite.points[0].scenario;
            memory::check(s)?;
            let r = runner::run(s, &mut |now, end| progress.simulated(now, end))?;
            return Ok(vec![r]);
        }
        // every point is checked before any runs: a sweep fails at once, not hours in
        Self::validate(suite)?;
        let total = suite.points.len();
        let done = std::sync::atomic::AtomicUsize::new(0);
        suite
            .points
            .par_iter()
            .map(|p| {
                let r = runner::run(&p.scenario, &mut |_, _| {}).map_err(|e| RunError::Point {
                    label: p.label(),
                    error: Box::new(e),
                });
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress.points(n, total);
                r
            })
            .collect()
    }

    fn save(suite: &SweepSuite, outcome: Vec<PointRun>) -> Folder {
        if !suite.sweep {
            let (results, workload) = outcome.into_iter().next().expect("one point");
            let manifest = outputs::manifest(&suite.points[0].scenario, Some(&workload));
            return Folder::run(&manifest, results);
        }
        let summaries: Vec<&crate::results::Summary> =
            outcome.iter().map(|(r, _)| &r.summary).collect();
        let files = vec![
            (
                "manifest.json".to_string(),
                crate::output::to_json(&outputs::sweep_run_manifest(suite)),
            ),
            (
                "summary.json".to_string(),
                crate::output::to_json(&outputs::summary_json(suite, &summaries)),
            ),
            (
                "sweep.csv".to_string(),
                outputs::sweep_csv(suite, &summaries),
            ),
        ];
        // the folder is replaced as a whole (no stale points of an earlier, larger grid);
        // each point's folder inside it is a complete run folder with its own report
        let subfolders = suite
            .points
            .iter()
            .zip(outcome)
            .enumerate()
            .map(|(i, (p, (results, workload)))| {
                let manifest = outputs::manifest(&p.scenario, Some(&workload));
                (
                    format!("points/{}", suite.point_dir(i)),
                    Folder::run(&manifest, results),
                )
            })
            .collect();
        Folder {
            files,
            // compares the points (glitches, utilization, delay components against load)
            report: true,
            subfolders,
            ..Folder::default()
        }
    }

    fn summary_text(suite: &SweepSuite, outcome: &Vec<PointRun>) -> String {
        if !suite.sweep {
            return outputs::summary_table(&outcome[0].0.summary);
        }
        let summaries: Vec<&crate::results::Summary> =
            outcome.iter().map(|(r, _)| &r.summary).collect();
        outputs::sweep_summary_text(suite, &summaries)
    }

    fn wall_text(
        suite: &SweepSuite,
        outcome: &Vec<PointRun>,
        wall: std::time::Duration,
        dir: &Path,
    ) -> String {
        let w = wall.as_secs_f64();
        if !suite.sweep {
            let s = &outcome[0].0.summary;
            let sim_s = s.simulated_ns as f64 / 1e9;
            return format!(
                "wall time {:.2}s, {:.0}x real time, {:.2}M events/s; output: {}\n",
                w,
                sim_s / w.max(1e-9),
                s.events as f64 / w.max(1e-9) / 1e6,
                dir.display()
            );
        }
        format!(
            "wall time {:.2}s for {} points; output: {}\n",
            w,
            suite.points.len(),
            dir.display()
        )
    }

    fn analyze(suite: &SweepSuite) -> Result<Vec<PointAnalysis>, ScenarioError> {
        suite
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let s = &p.scenario;
                let analysis = s.analysis().map_err(|e| in_point(suite, p, e))?;
                Ok(PointAnalysis {
                    point: i,
                    values: outputs::values_json(&p.values),
                    label: p.label(),
                    model: s
                        .plugins
                        .get(&scenario::ANALYTIC)
                        .map(|m| m.name.to_string()),
                    params: s
                        .plugins
                        .get(&scenario::ANALYTIC)
                        .map_or(serde_json::Value::Null, |m| m.params.clone()),
                    analysis,
                    paper: s.file.paper.clone(),
                })
            })
            .collect()
    }

    fn work(outcome: &Vec<PointRun>) -> Work {
        Work {
            units: outcome.iter().map(|(r, _)| r.summary.events as f64).sum(),
            unit: "events",
            simulated_s: Some(
                outcome
                    .iter()
                    .map(|(r, _)| r.summary.simulated_ns as f64 / 1e9)
                    .sum(),
            ),
        }
    }
}

/// An error of point `p` of `suite`, named by its values when the file is a sweep.
fn in_point(suite: &SweepSuite, p: &scenario::SweepPoint, e: ScenarioError) -> ScenarioError {
    if suite.sweep {
        ScenarioError::Point {
            label: p.label(),
            error: Box::new(e),
        }
    } else {
        e
    }
}
