//! The memory budget of a broadcast run ([`crate::system::memory`]): what a run of a
//! broadcast scenario holds at its peak, estimated from the file alone, before any schedule or
//! receiver is built.
//!
//! The parts, each sized as `run` stores it: every distinct schedule of the sweep, built
//! before any point runs and held to the end (a frame offset per frame and one entry per
//! transmission over the horizon, three periods with random joins: a valid schedule sends
//! frame i at least once per its window of `delay + i` instants, so at least
//! `horizon × ln((delay + frames) / delay)` transmissions, Waldvogel eq. 1); for each point
//! running (as many at once as there are worker threads) its per-instant counts and its
//! receivers' state (per frame, for as many receivers at once as there are threads) and
//! every receiver's occupancy samples, held until the point is summarised; each point's
//! mean samples, held to the end and copied into the tables; and the process itself. As
//! for on-demand runs, it aims at a factor of two of the measured peak.

use super::scenario::{BroadcastScenario, BroadcastSuite, Derived};
use crate::system::memory::{Estimate, Part};

/// The process itself: code, allocator, thread stacks, the output writers' buffers.
const PROCESS: u64 = 24 << 20;
/// Bytes of a receiver's state per frame (where each frame is, when it is ready, how often
/// it was written, its arrival, its order, and their scratch).
const RECEIVER_PER_FRAME: u64 = 36;
/// Bytes of an occupancy sample while the point runs, and of a mean sample in its results.
const SAMPLE: u64 = 12;
const MEAN_SAMPLE: u64 = 24;
/// Copies of a table a run holds while its outputs are written.
const COPIES: u64 = 3;

/// One point's parts.
struct PointParts {
    /// Its schedule, and what identifies it among the sweep's (points sharing it build it
    /// once).
    schedule: u64,
    schedule_key: String,
    /// Held while it runs.
    running: u64,
    /// Held to the end (its mean samples and their tables).
    results: u64,
}

fn point_parts(s: &BroadcastScenario, d: &Derived, parallel: u64) -> PointParts {
    let mul = |a: u64, b: u64| a.saturating_mul(b);
    let (n, w) = (u64::from(d.frames), u64::from(d.delay.max(1)));
    let period = n + w;
    // the schedule exactly as the run specifies it (its horizon from the receivers' joins)
    let spec = super::run::schedule_spec(s, d, s.batch, &super::run::joins(s, d));
    let horizon = u64::from(spec.horizon);
    let per_instant = ((w + n) as f64 / w as f64).ln();
    let transmissions = (horizon as f64 * per_instant).min(u64::MAX as f64 / 8.0) as u64;
    // offsets and instants, the latter grown by doubling while the schedule is built
    let schedule = mul(n + 1, 4).saturating_add(mul(transmissions, 5));
    let clients = u64::from(s.file.receiver.clients);
    let samples = period / u64::from(d.sample.max(1)) + 1;
    let receivers = mul(mul(clients.min(parallel.max(1)), n), RECEIVER_PER_FRAME);
    let running = mul(horizon, 4)
        .saturating_add(receivers)
        .saturating_add(mul(mul(clients, samples), SAMPLE));
    PointParts {
        schedule,
        schedule_key: super::run::schedule_key(s, &spec),
        running,
        results: mul(mul(samples, MEAN_SAMPLE), COPIES),
    }
}

/// The estimate for one point run alone on `parallel` threads (checked while the file is
/// loaded, before the point's plugins are built).
pub fn estimate_point(s: &BroadcastScenario, d: &Derived, parallel: usize) -> Estimate {
    estimate_of(&[point_parts(s, d, parallel as u64)], parallel)
}

/// The key and message refusing point `s` when its estimate alone, on the current pool's
/// threads, exceeds the limit in force (a [`super::scenario::Budget`]).
pub fn refusal_of_point(s: &BroadcastScenario, d: &Derived) -> Option<(&'static str, String)> {
    crate::system::memory::refusal(&estimate_point(s, d, rayon::current_num_threads()))
}

/// The estimate for a run of every point of `suite`, `parallel` points at a time.
pub fn estimate(suite: &BroadcastSuite, parallel: usize) -> Estimate {
    let parts: Vec<PointParts> = suite
        .points
        .iter()
        .filter_map(|s| {
            s.file
                .derive()
                .ok()
                .map(|d| point_parts(s, &d, parallel as u64))
        })
        .collect();
    estimate_of(&parts, parallel)
}

fn estimate_of(points: &[PointParts], parallel: usize) -> Estimate {
    let mut keys = std::collections::BTreeSet::new();
    let schedules = points
        .iter()
        .filter(|p| keys.insert(p.schedule_key.as_str()))
        .fold(0u64, |a, p| a.saturating_add(p.schedule));
    let mut running: Vec<u64> = points.iter().map(|p| p.running).collect();
    running.sort_unstable_by(|a, b| b.cmp(a));
    let running = running
        .iter()
        .take(parallel.max(1))
        .fold(0u64, |a, b| a.saturating_add(*b));
    let results = points.iter().fold(0u64, |a, p| a.saturating_add(p.results));
    let mut parts = vec![
        Part {
            what: "the schedules (an entry per frame transmission over the horizon)",
            key: "broadcast.frames",
            bytes: schedules,
        },
        Part {
            what: "the running points' receivers (state per frame, occupancy samples)",
            key: "receiver.clients",
            bytes: running,
        },
        Part {
            what: "the points' mean occupancy samples and their tables",
            key: "broadcast.frames",
            bytes: results,
        },
        Part {
            what: "the process itself",
            key: "",
            bytes: PROCESS,
        },
    ];
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    Estimate { parts }
}
