//! The checks of a search read back from a file (a sweep's `points/NNN.json`, a search's
//! `replications/NNN.json`): each replication replayed against its own simulations, and the
//! whole search against the stopping rule.

use super::{decided, find_max_from, replication_seed, SearchOptions};
use crate::results::search::{Probe, ReplicationResult};
use crate::system::Searchable;

/// Checks a replication read from a file (a sweep's `points/NNN.json`, a search's
/// `replications/NNN.json`) against what the search of `point` under `opts` makes of its
/// own simulations: its seed is replication `rep.replication`'s, its simulations are those
/// of that seed, and replaying the search's climb and bisection on them asks for exactly
/// those terminal counts, in `rep.runs` simulations, and ends at `rep.max_terminals` (capped
/// or not) within the cap in force; what its run at the answer measured is there when it
/// ran one, as ratios within 0..=1. `first` is replication 0's answer (answer, capped),
/// which a later replication starts around ([`SearchOptions::start_of`]). What is wrong, in
/// words, if anything.
pub fn check_replication<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    rep: &ReplicationResult,
    probes: &[Probe],
    first: Option<(u32, bool)>,
) -> Result<(), String> {
    let i = rep.replication;
    let seed = replication_seed(S::seed(point), i);
    if rep.seed != seed {
        return Err(format!(
            "replication {i} has seed {}, but this search's replication {i} has seed {seed}",
            rep.seed
        ));
    }
    let mut glitches = std::collections::BTreeMap::new();
    for p in probes {
        if p.replication != i || p.seed != seed {
            return Err(format!(
                "a simulation of replication {} (seed {}) is filed under replication {i}",
                p.replication, p.seed
            ));
        }
        if glitches.insert(p.terminals, p.glitches).is_some() {
            return Err(format!(
                "replication {i} simulates {} terminals twice",
                p.terminals
            ));
        }
    }
    if opts.needs_first(i) && first.is_none() {
        return Err(format!(
            "replication {i} starts around replication 0's answer, and replication 0 is not \
             at hand to check it against"
        ));
    }
    let cap = opts.max_terminals.clamp(1, S::MAX_LOAD);
    let start = opts.start_of(i, S::expected_load(point), first);
    let mut asked = 0usize;
    let found = find_max_from(start, cap, opts.resolution_percent, |n| {
        asked += 1;
        glitches.get(&n).copied().ok_or(n)
    });
    let (max, capped) = found.map_err(|n| {
        format!(
            "replication {i}'s simulations do not make a search: after them its search \
             simulates {n} terminals, which it has no simulation of"
        )
    })?;
    if asked != probes.len() || rep.runs as usize != probes.len() {
        return Err(format!(
            "replication {i} says {} simulations and holds {}, but its search makes \
             {asked} of them",
            rep.runs,
            probes.len()
        ));
    }
    if (max, capped) != (rep.max_terminals, rep.capped) {
        let said = |m: u32, c: bool| format!("{m} terminals{}", if c { " (capped)" } else { "" });
        return Err(format!(
            "replication {i} says {}, but its own simulations give {} under \
             --max-terminals {cap}",
            said(rep.max_terminals, rep.capped),
            said(max, capped)
        ));
    }
    match rep.at_answer {
        None if max > 0 => Err(format!(
            "replication {i} lacks what its run at {max} terminals measured"
        )),
        Some(_) if max == 0 => Err(format!(
            "replication {i} has figures of a run at its answer, 0 terminals, which never ran"
        )),
        Some(a)
            if ![a.disk_utilization_mean_ratio, a.shared_ratio, a.hit_ratio]
                .iter()
                .all(|x| (0.0..=1.0).contains(x)) =>
        {
            Err(format!(
                "replication {i}'s run at its answer has ratios outside 0–1 ({}, {}, {})",
                a.disk_utilization_mean_ratio, a.shared_ratio, a.hit_ratio
            ))
        }
        _ => Ok(()),
    }
}

/// Checks a whole search read from a file (a sweep's `points/NNN.json`): replications 0, 1,
/// … in order, each as [`check_replication`] wants it with the simulations filed under it
/// (every simulation under one), and as many of them, converged or not, as the stopping
/// rule takes ([`decided`]). What is wrong, in words, if anything.
pub fn check_saved_search<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    reps: &[ReplicationResult],
    probes: &[Probe],
    converged: bool,
) -> Result<(), String> {
    for (k, r) in reps.iter().enumerate() {
        if r.replication as usize != k {
            return Err(format!(
                "replication {} is listed where replication {k} belongs",
                r.replication
            ));
        }
        let mine: Vec<Probe> = probes
            .iter()
            .filter(|p| p.replication == r.replication)
            .copied()
            .collect();
        let first = reps.first().map(|r0| (r0.max_terminals, r0.capped));
        check_replication::<S>(point, opts, r, &mine, first)?;
    }
    if let Some(p) = probes.iter().find(|p| p.replication as usize >= reps.len()) {
        return Err(format!(
            "it holds a simulation of replication {}, which it does not list",
            p.replication
        ));
    }
    let maxima: Vec<u32> = reps.iter().map(|r| r.max_terminals).collect();
    match decided(&maxima, opts) {
        Some((n, c)) if n == reps.len() && c == converged => Ok(()),
        Some((n, c)) => Err(format!(
            "it says {} replications ({}), but the stopping rule stops at {n} ({}) on these \
             maxima",
            reps.len(),
            if converged {
                "converged"
            } else {
                "not converged"
            },
            if c { "converged" } else { "not converged" }
        )),
        None => Err(format!(
            "its {} replications do not satisfy the stopping rule, which needs more",
            reps.len()
        )),
    }
}
