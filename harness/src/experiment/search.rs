//! The search behind `vodbench search`: the largest number of terminals a configuration
//! serves without a glitch, SPIFFI's primary metric (§7.1, Fig. 9), over any [`Searchable`]
//! system (its load is the on-demand server's terminal count).
//!
//! One *replication* runs the scenario with its own seed (derived from the scenario seed and
//! the replication index) at a sequence of terminal counts. As in SPIFFI §7.1 ("increasing
//! the number of terminals until the number of glitches becomes non-zero") it climbs from
//! below: it starts at half the scenario's `terminals.count` ([`climb_start`]; the file's
//! count is the expected answer), grows the count by a quarter while runs stay glitch-free
//! (or, if even the start glitches, shrinks it by a fifth until a run is clean), then bisects
//! between the largest glitch-free and the smallest glitching count down to one terminal. Its
//! answer is the largest glitch-free count found.
//!
//! By default every replication climbs. With [`SearchOptions::bracket`] (`--bracket`) only
//! replication 0 does, and every later replication starts from a bracket around
//! replication 0's answer `a` ([`Start::Around`]): it tries `a − 5 %`, then `a + 5 %`, and
//! bisects between them when the first is clean and the second glitches (the usual case: the
//! replications' answers spread by a few percent); clean at `a + 5 %`, it climbs on by a
//! quarter, and glitching at `a − 5 %`, it steps down by 5, 10, 20 % … of `a` until clean.
//! Where glitches grow with the count it finds the same threshold as the climb (a test checks
//! every start against the climb), in about 6 simulations near the answer instead of about
//! 11 from half of it; the climb's low counts, whose verdicts the replications before
//! nearly always imply, are not run (`docs/speed.md`). What it gives
//! up: a later replication that would glitch only well below replication 0's answer (the
//! low-load glitches below) goes unseen there.
//! It is not the default because of that: Fig. 11's global LRU at 1 GB moves from 168 to
//! 195 with it (`scenarios/spiffi/README.md`, "The search").
//!
//! Two options trade that method for time, and change the answers:
//! [`SearchOptions::resolution_percent`] stops the bisection once the two counts are within
//! that share of the glitch-free one (SPIFFI §7.1 itself aims at "within 5 % (about 10
//! terminals)"), so each replication's answer may be that much below the threshold it
//! brackets; [`SearchOptions::climb_from_percent`] starts the climb nearer the expected answer,
//! so glitches at loads below the start go unseen. Their defaults (one terminal, 50 %) are
//! the method above.
//!
//! Climbing matters because glitches need not grow monotonically with load: with the
//! elevator scheduler, `standard` prefetching and love prefetch's `prefetch_victims = "any"`
//! a replication could glitch at 312 terminals and run clean at 390 and 402
//! (`scenarios/spiffi/README.md`, "Low-load glitches"); the ×4 elevator points still spread
//! widely with the default. A
//! search that started above the first glitch and shrank would report the clean count
//! beyond it; the climb stops at the first glitching count it meets.
//!
//! Replications are repeated until a Student-t interval on their answers is 90 % confident
//! to be within 5 % of the mean ([`statistics`](super::statistics)) (at least [`SearchOptions::min_replications`], never fewer
//! than [`MIN_REPLICATIONS`], at most [`SearchOptions::max_replications`]). Stopping as soon
//! as the rule holds favours the first few replications that happen to agree: with three,
//! an interval can come out much narrower than the spread of the maxima (SPIFFI's
//! piggybacking stopped at 442–456 where 41 replications spread over 385–505;
//! `scenarios/spiffi/README.md`, §8). Where the maxima spread widely, raise the minimum
//! (`--min-seeds`).
//!
//! Determinism: the runs of a replication depend only on the scenario, the replication
//! index and replication 0's answer, and the stopping rule looks at replications in index
//! order, so the outcome is the same for any number of threads. Replication 0 runs first,
//! then the rest of the minimum in parallel (rayon); when more are needed, one batch as large
//! as the thread pool runs at once, and answers beyond the replication at which the rule is
//! first met are discarded unseen.
//!
//! ```text
//!  glitches
//!     │                    ×  ×
//!     │                 ×           ← smallest glitching count (hi)
//!     │ ○  ○  ○  ○  ○               ← largest glitch-free count (lo) = the answer
//!     └───────────────────────── terminals
//! ```

use super::cache::RunCache;
use super::statistics::{interval, precise_enough};
use crate::results::search::{AnswerStats, Probe, ReplicationResult, SearchResult};
use crate::system::{ProbeOptions, ProbeOutcome, RunError, Searchable};
use rayon::prelude::*;

mod climb;
mod folder;
mod saved;

pub use super::statistics::{CONFIDENCE, MIN_REPLICATIONS, PRECISION};
pub use crate::results::search::CLIMB_FROM_PERCENT;
pub use climb::{climb_start, climb_start_at, find_max, find_max_from, Start, BRACKET_PERCENT};
pub use folder::{curve_csv, search_folder, search_manifest, summary_text};
pub use saved::{check_replication, check_saved_search};

/// Limits of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// Fewest replications before the stopping rule is looked at (at least
    /// [`MIN_REPLICATIONS`]).
    pub min_replications: u32,
    /// Most replications before giving up on the precision target (at least
    /// `min_replications`).
    pub max_replications: u32,
    /// Largest terminal count tried; a replication glitch-free there reports it as `capped`.
    pub max_terminals: u32,
    /// End every simulation at its first glitch in the measured period
    /// ([`SimOptions::stop_at_first_glitch`](crate::system::ondemand::SimOptions)): the search only asks
    /// whether a run glitches, so the answers are the same, but each glitching run's count
    /// in the curve is then a lower bound (usually 1) instead of its hour's total.
    pub stop_at_glitch: bool,
    /// How close the bisection brings a replication's largest glitch-free count `lo` and its
    /// smallest glitching count: within `lo × resolution_percent / 100` terminals (at least
    /// one). 0, the default, bisects down to one terminal; more saves the last bisection
    /// steps, each a simulation near the maximum, and lowers each answer by up to that much.
    pub resolution_percent: u32,
    /// Where each replication's climb starts, in percent of the scenario's
    /// `terminals.count` ([`climb_start_at`]); the default is [`CLIMB_FROM_PERCENT`].
    pub climb_from_percent: u32,
    /// Replication 0 climbs from [`Self::climb_from_percent`] and every later replication
    /// starts around replication 0's answer ([`Start::Around`]): fewer simulations, the same
    /// answers where glitches grow with the count. False, the default: every replication
    /// climbs (SPIFFI §7.1's method).
    pub bracket: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            min_replications: MIN_REPLICATIONS,
            max_replications: 20,
            max_terminals: 10_000,
            stop_at_glitch: false,
            resolution_percent: 0,
            climb_from_percent: CLIMB_FROM_PERCENT,
            bracket: false,
        }
    }
}

impl SearchOptions {
    /// The replication limits in force, `(fewest, most)`: the fewest at least
    /// [`MIN_REPLICATIONS`], the most at least the fewest.
    ///
    /// ```
    /// use vodbench_harness::experiment::search::SearchOptions;
    /// let o = SearchOptions { min_replications: 1, max_replications: 2, ..Default::default() };
    /// assert_eq!(o.replication_limits(), (3, 3));
    /// let o = SearchOptions { min_replications: 8, max_replications: 20, ..Default::default() };
    /// assert_eq!(o.replication_limits(), (8, 20));
    /// ```
    pub fn replication_limits(&self) -> (u32, u32) {
        let min = self.min_replications.max(MIN_REPLICATIONS);
        (min, self.max_replications.max(min))
    }

    /// Whether the options keep the default method of the module docs: bisection to one
    /// terminal from a climb that starts at half the expected answer in every replication.
    pub fn default_method(&self) -> bool {
        self.resolution_percent == 0
            && self.climb_from_percent == CLIMB_FROM_PERCENT
            && !self.bracket
    }

    /// How replication `index` starts when replication 0 answered `first` (`(answer,
    /// capped)`; needed for `index` ≥ 1 under [`Self::bracket`]): replication 0, and
    /// every replication without `bracket` or after a replication 0 that found no maximum
    /// (nothing glitch-free, or capped), climbs from `climb_start_at(expected, …)`; the
    /// others start around replication 0's answer.
    pub fn start_of(&self, index: u32, expected: u32, first: Option<(u32, bool)>) -> Start {
        match first {
            Some((a, false)) if index > 0 && a > 0 && self.bracket => Start::Around(a),
            _ => Start::Climb(climb_start_at(expected, self.climb_from_percent)),
        }
    }

    /// Whether replication `index` needs replication 0's answer to start.
    pub fn needs_first(&self, index: u32) -> bool {
        index > 0 && self.bracket
    }

    /// Adds the method's options to the JSON object `o` when they are not the default (the
    /// manifest's `search` and a sweep checkpoint's key; absent, those stay as earlier
    /// builds wrote them).
    pub fn record_method(&self, o: &mut serde_json::Value) {
        if !self.default_method() {
            o["climb_from_percent"] = self.climb_from_percent.into();
            o["resolution_percent"] = self.resolution_percent.into();
        }
        if self.bracket {
            o["bracket"] = true.into();
        }
    }

    /// How these options depart from the method of the module docs, in words (none when
    /// they keep it): `vodbench search` prints it and `sweep.md` carries it.
    ///
    /// ```
    /// use vodbench_harness::experiment::search::SearchOptions;
    /// assert_eq!(SearchOptions::default().method_text(), None);
    /// let o = SearchOptions { resolution_percent: 2, climb_from_percent: 80, ..Default::default() };
    /// assert!(o.method_text().unwrap().starts_with("searched with --resolution 2 --climb-from 80"));
    /// ```
    pub fn method_text(&self) -> Option<String> {
        if self.default_method() {
            return None;
        }
        let bisection = match self.resolution_percent {
            0 => "bisected down to one terminal".to_string(),
            r => format!("stopped bisecting within {r} % of its answer"),
        };
        let (flag, which) = if self.bracket {
            (
                " --bracket",
                "replication 0 (the others from ±5 % around its answer)",
            )
        } else {
            ("", "each replication")
        };
        Some(format!(
            "searched with --resolution {} --climb-from {}{flag}: {which} climbed from {} % \
             of the expected answer and {bisection} (SPIFFI §7.1's method as vodbench \
             implements it: from {CLIMB_FROM_PERCENT} %, down to one terminal)",
            self.resolution_percent, self.climb_from_percent, self.climb_from_percent
        ))
    }
}

/// The seed of replication `index` of a search under the scenario seed.
pub fn replication_seed(scenario_seed: u64, index: u32) -> u64 {
    crate::rng::stream_seed(scenario_seed, "search", u64::from(index))
}

/// Runs a search over `point` of system `S` (its load and seed are varied; everything else
/// is kept). `on_probe` sees every simulation as it finishes (for progress; it may be called
/// from several threads, and for replications that end up discarded). Run inside a rayon
/// pool to choose the number of threads; the result does not depend on it.
pub fn search<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    on_probe: &(dyn Fn(&Probe) + Sync),
) -> Result<SearchResult, RunError> {
    search_cached::<S>(point, opts, None, on_probe)
}

/// [`search`], taking each simulation from `cache` when it holds it and saving there every
/// simulation it makes (see [`super::cache`]); the result is the same as without it.
pub fn search_cached<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    cache: Option<&RunCache>,
    on_probe: &(dyn Fn(&Probe) + Sync),
) -> Result<SearchResult, RunError> {
    // a model that cannot take the point is refused before any simulation
    S::model_max(point)?;
    let expected = S::expected_load(point);
    let (outcome, stats) = with_simulator::<S, _>(point, opts, cache, |simulate| {
        drive(
            S::seed(point),
            expected,
            S::MAX_LOAD,
            opts,
            simulate,
            on_probe,
        )
    });
    let (mut reps, probes, converged) = outcome?;
    for r in &mut reps {
        r.at_answer = stats.get(&(r.seed, r.max_terminals)).copied();
    }
    Ok(assemble::<S>(point, opts, reps, probes, converged))
}

/// What the simulations of a search measured, by (seed, terminals).
type Measured = std::collections::BTreeMap<(u64, u32), AnswerStats>;

/// Calls `f` with the search's `simulate(seed, terminals) -> glitches` for `point` (through
/// `cache` when given); returns what `f` returns and what every simulation measured.
fn with_simulator<S: Searchable, T>(
    point: &S::Point,
    opts: &SearchOptions,
    cache: Option<&RunCache>,
    f: impl FnOnce(&(dyn Fn(u64, u32) -> Result<u64, RunError> + Sync)) -> Result<T, RunError>,
) -> (Result<T, RunError>, Measured) {
    let cache = cache.and_then(|c| {
        c.key::<S>(point, opts.stop_at_glitch)
            .ok()
            .map(|key| (c, key))
    });
    let stats = std::sync::Mutex::new(Measured::new());
    let shared = S::shared(rayon::current_num_threads());
    let probe_options = ProbeOptions {
        stop_at_glitch: opts.stop_at_glitch,
    };
    let keep = |seed: u64, n: u32, run: &ProbeOutcome| {
        stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((seed, n), run.stats);
        run.glitches
    };
    let simulate = |seed: u64, n: u32| -> Result<u64, RunError> {
        if let Some(run) = cache.as_ref().and_then(|(c, k)| c.get(k, seed, n)) {
            return Ok(keep(seed, n, &run));
        }
        let run = S::probe(point, seed, n, &shared, probe_options)?;
        if let Some((c, k)) = &cache {
            c.put(k, seed, n, &run);
        }
        Ok(keep(seed, n, &run))
    };
    let out = f(&simulate);
    (out, stats.into_inner().unwrap_or_else(|e| e.into_inner()))
}
/// The result of a search of `point` under `opts` from the replications it used, their
/// simulations and whether the stopping rule was met (also how a `vodbench sweep
/// --resume` rebuilds a saved point).
pub fn assemble<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    reps: Vec<ReplicationResult>,
    probes: Vec<Probe>,
    converged: bool,
) -> SearchResult {
    let cap = opts.max_terminals.clamp(1, S::MAX_LOAD);
    let (min_reps, max_reps) = opts.replication_limits();
    let answers: Vec<AnswerStats> = reps.iter().filter_map(|r| r.at_answer).collect();
    let xs: Vec<f64> = reps.iter().map(|r| f64::from(r.max_terminals)).collect();
    let ci = interval(&xs);
    SearchResult {
        scenario: S::point_name(point).to_string(),
        seed: S::seed(point),
        max_terminals: ci.mean.round() as u64,
        confidence_interval: ci,
        converged,
        replications: reps.len() as u32,
        runs: probes.len() as u32,
        per_replication: reps,
        at_answer: AnswerStats::mean(&answers),
        paper_max_terminals: S::published_max(point),
        failures: S::failures(point).map(str::to_string),
        // checked by `search_cached` before the search ran
        model_max_terminals: S::model_max(point).ok().flatten(),
        start_terminals: climb_start_at(S::expected_load(point), opts.climb_from_percent)
            .clamp(1, cap),
        climb_from_percent: opts.climb_from_percent,
        bracket: opts.bracket,
        resolution_percent: opts.resolution_percent,
        terminal_cap: cap,
        min_replications: min_reps,
        max_replications: max_reps,
        precision: PRECISION,
        stop_at_glitch: opts.stop_at_glitch,
        probes,
    }
}

/// Replication `index`: its search with `simulate(seed, terminals) -> glitches` from `start`
/// up to `cap` terminals, and its simulations in the order they ran.
fn replicate<E>(
    scenario_seed: u64,
    start: Start,
    cap: u32,
    opts: &SearchOptions,
    simulate: &(dyn Fn(u64, u32) -> Result<u64, E> + Sync),
    on_probe: &(dyn Fn(&Probe) + Sync),
    index: u32,
) -> Result<(ReplicationResult, Vec<Probe>), E> {
    let seed = replication_seed(scenario_seed, index);
    let mut probes = Vec::new();
    let (max_terminals, capped) = find_max_from(start, cap, opts.resolution_percent, |n| {
        let probe = Probe {
            replication: index,
            seed,
            terminals: n,
            glitches: simulate(seed, n)?,
        };
        on_probe(&probe);
        probes.push(probe);
        Ok(probe.glitches)
    })?;
    let rep = ReplicationResult {
        replication: index,
        seed,
        max_terminals,
        capped,
        runs: probes.len() as u32,
        at_answer: None,
    };
    Ok((rep, probes))
}

/// Replication `index` of the search of `point` under `opts`, alone: its result (with what
/// its run at the answer measured) and its simulations, exactly as [`search_cached`] would
/// make them. The replications of one search may so be made by several processes (`vodbench
/// search --task`) and put together with [`from_replications`].
pub fn replication<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    cache: Option<&RunCache>,
    index: u32,
    on_probe: &(dyn Fn(&Probe) + Sync),
) -> Result<(ReplicationResult, Vec<Probe>), RunError> {
    S::model_max(point)?;
    let expected = S::expected_load(point);
    let cap = opts.max_terminals.clamp(1, S::MAX_LOAD);
    let (outcome, stats) = with_simulator::<S, _>(point, opts, cache, |simulate| {
        // a later replication starts around replication 0's answer: made here again (from
        // the cache when it holds it), its simulations not reported
        let first = if opts.needs_first(index) {
            let start = opts.start_of(0, expected, None);
            let (r0, _) = replicate(S::seed(point), start, cap, opts, simulate, &|_| {}, 0)?;
            Some((r0.max_terminals, r0.capped))
        } else {
            None
        };
        let start = opts.start_of(index, expected, first);
        replicate(S::seed(point), start, cap, opts, simulate, on_probe, index)
    });
    let (mut rep, probes) = outcome?;
    rep.at_answer = stats.get(&(rep.seed, rep.max_terminals)).copied();
    Ok((rep, probes))
}

/// How many of the replications whose maxima are `maxima` (replications 0, 1, … in order) the
/// search under `opts` uses, and whether its stopping rule was met there; `None` while it
/// needs more than these. The search looks at replications in index order and stops at the
/// first at which the rule holds (at least the minimum), or at the most it may use.
///
/// ```
/// use vodbench_harness::experiment::search::{decided, SearchOptions};
/// let opts = SearchOptions { min_replications: 3, max_replications: 5, ..Default::default() };
/// assert_eq!(decided(&[100, 100], &opts), None);
/// assert_eq!(decided(&[100, 100, 100, 7], &opts), Some((3, true)));
/// assert_eq!(decided(&[100, 10, 400, 3, 900], &opts), Some((5, false)));
/// ```
pub fn decided(maxima: &[u32], opts: &SearchOptions) -> Option<(usize, bool)> {
    let (min_reps, max_reps) = opts.replication_limits();
    let usable = maxima.len().min(max_reps as usize);
    if let Some(k) = (1..=usable).find(|&k| precise_enough(&maxima[..k], min_reps)) {
        return Some((k, true));
    }
    (usable == max_reps as usize).then_some((usable, false))
}

/// The search of `point` under `opts` from its replications made one by one with
/// [`replication`] (`runs[i]` is replication `i`'s): the same result, to the byte, as
/// [`search_cached`] gives; `None` when the stopping rule needs more replications than `runs`
/// holds ([`decided`]).
pub fn from_replications<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    mut runs: Vec<(ReplicationResult, Vec<Probe>)>,
) -> Option<SearchResult> {
    let maxima: Vec<u32> = runs.iter().map(|(r, _)| r.max_terminals).collect();
    let (used, converged) = decided(&maxima, opts)?;
    runs.truncate(used);
    let mut reps = Vec::with_capacity(used);
    let mut probes = Vec::new();
    for (r, mut p) in runs {
        reps.push(r);
        probes.append(&mut p);
    }
    sort_probes(&mut probes);
    Some(assemble::<S>(point, opts, reps, probes, converged))
}

/// The order of a search's simulations in its result.
fn sort_probes(probes: &mut [Probe]) {
    probes.sort_by_key(|p| (p.terminals, p.seed, p.glitches));
}

/// Replications with `simulate(seed, terminals) -> glitches` until the stopping rule holds,
/// trying at most `max_load` terminals, for a scenario whose expected answer is `expected`:
/// the replications used, their simulations (sorted), and whether the rule was met.
fn drive<E: Send>(
    scenario_seed: u64,
    expected: u32,
    max_load: u32,
    opts: &SearchOptions,
    simulate: &(dyn Fn(u64, u32) -> Result<u64, E> + Sync),
    on_probe: &(dyn Fn(&Probe) + Sync),
) -> Result<(Vec<ReplicationResult>, Vec<Probe>, bool), E> {
    let cap = opts.max_terminals.clamp(1, max_load);
    let (min_reps, max_reps) = opts.replication_limits();
    let mut reps: Vec<ReplicationResult> = Vec::new();
    let mut probes: Vec<Probe> = Vec::new();
    let mut converged = false;
    'rounds: while (reps.len() as u32) < max_reps {
        let k = reps.len() as u32;
        let first = reps.first().map(|r| (r.max_terminals, r.capped));
        let replicate = |index: u32| {
            let start = opts.start_of(index, expected, first);
            replicate(scenario_seed, start, cap, opts, simulate, on_probe, index)
        };
        // the first round runs the minimum (replication 0 alone first when the others start
        // around its answer); later rounds speculate one replication per thread, and results
        // past the first that meets the rule are dropped unseen
        let width = match k {
            0 if opts.needs_first(1) => 1,
            k if k < min_reps => min_reps - k,
            _ => rayon::current_num_threads().max(1) as u32,
        };
        let batch: Vec<_> = (k..(k + width).min(max_reps))
            .into_par_iter()
            .map(replicate)
            .collect();
        for outcome in batch {
            let (rep, mut p) = outcome?;
            reps.push(rep);
            probes.append(&mut p);
            let maxima: Vec<u32> = reps.iter().map(|r| r.max_terminals).collect();
            if precise_enough(&maxima, min_reps) {
                converged = true;
                break 'rounds;
            }
        }
    }
    sort_probes(&mut probes);
    Ok((reps, probes, converged))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic system whose capacity depends on the seed: 100 + seed % `spread`.
    fn synthetic(spread: u64) -> impl Fn(u64, u32) -> Result<u64, String> + Sync {
        move |seed, n| Ok(u64::from(u64::from(n) > 100 + seed % spread))
    }

    fn drive_with(
        threads: usize,
        spread: u64,
        max_replications: u32,
    ) -> (Vec<ReplicationResult>, Vec<Probe>, bool) {
        drive_min(threads, spread, MIN_REPLICATIONS, max_replications)
    }

    fn drive_min(
        threads: usize,
        spread: u64,
        min_replications: u32,
        max_replications: u32,
    ) -> (Vec<ReplicationResult>, Vec<Probe>, bool) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let opts = SearchOptions {
            min_replications,
            max_replications,
            ..SearchOptions::default()
        };
        let seen = std::sync::atomic::AtomicU32::new(0);
        let count = |_: &Probe| {
            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        };
        let sim = synthetic(spread);
        let out = pool
            .install(|| drive(42, 80, 1_000_000, &opts, &sim, &count))
            .unwrap();
        assert!(seen.into_inner() as usize >= out.1.len());
        out
    }

    #[test]
    fn the_outcome_does_not_depend_on_the_thread_count() {
        // spread 12: maxima vary by up to 12 %, so the rule needs several replications and
        // is met part-way through a speculative batch for some thread counts
        let one = drive_with(1, 12, 40);
        assert!(one.2, "converges");
        assert!(one.0.len() > 3, "needs more than the minimum: {:?}", one.0);
        for threads in [2, 3, 5] {
            assert_eq!(drive_with(threads, 12, 40), one, "{threads} threads");
        }
        for (i, r) in one.0.iter().enumerate() {
            assert_eq!(r.replication, i as u32);
            assert_eq!(u64::from(r.max_terminals), 100 + r.seed % 12);
        }
        assert_eq!(
            one.1.len() as u32,
            one.0.iter().map(|r| r.runs).sum::<u32>()
        );
        assert!(one
            .1
            .windows(2)
            .all(|w| (w[0].terminals, w[0].seed) <= (w[1].terminals, w[1].seed)));
    }

    /// Every replication made alone, as `vodbench search --task` makes them, then put
    /// together by the stopping rule, is the search `drive` makes.
    #[test]
    fn replications_made_one_by_one_decide_as_the_search_does() {
        let sim = synthetic(12);
        for (min, max) in [(3, 40), (3, 4), (6, 20), (3, 3)] {
            let opts = SearchOptions {
                min_replications: min,
                max_replications: max,
                ..SearchOptions::default()
            };
            let whole = drive_min(2, 12, min, max);
            let first = replicate(42, Start::Climb(40), 1_000_000, &opts, &sim, &|_| {}, 0)
                .map(|(r, _)| (r.max_terminals, r.capped))
                .unwrap();
            let alone: Vec<(ReplicationResult, Vec<Probe>)> = (0..max)
                .map(|i| {
                    let start = opts.start_of(i, 80, Some(first));
                    replicate(42, start, 1_000_000, &opts, &sim, &|_| {}, i).unwrap()
                })
                .collect();
            let maxima: Vec<u32> = alone.iter().map(|(r, _)| r.max_terminals).collect();
            let (used, converged) = decided(&maxima, &opts).expect("all made");
            assert_eq!((used, converged), (whole.0.len(), whole.2), "{min}..{max}");
            // fewer than it needs: undecided, whichever it is
            assert_eq!(decided(&maxima[..used - 1], &opts), None, "{min}..{max}");
            let mut probes: Vec<Probe> =
                alone[..used].iter().flat_map(|(_, p)| p.clone()).collect();
            sort_probes(&mut probes);
            let reps: Vec<ReplicationResult> =
                alone[..used].iter().map(|(r, _)| r.clone()).collect();
            assert_eq!((reps, probes, converged), whole, "{min}..{max}");
        }
    }

    #[test]
    fn identical_replications_stop_at_the_minimum_and_noisy_ones_at_the_limit() {
        let (reps, _, converged) = drive_with(2, 1, 20);
        assert!(converged);
        assert_eq!(reps.len() as u32, MIN_REPLICATIONS);
        let (reps, _, converged) = drive_with(2, 90, 5);
        assert!(!converged);
        assert_eq!(reps.len(), 5);
    }

    #[test]
    fn a_raised_minimum_is_run_before_the_rule_is_looked_at() {
        // identical replications meet the rule at three; a minimum of 7 runs 7, the same
        // first three, and on any thread count
        let (three, _, _) = drive_with(1, 1, 20);
        let seven = drive_min(1, 1, 7, 20);
        assert!(seven.2);
        assert_eq!(seven.0.len(), 7);
        assert_eq!(seven.0[..3], three[..]);
        assert_eq!(drive_min(3, 1, 7, 20), seven);
        // noisy replications still stop at the limit; a minimum above it is raised to it
        let (reps, _, converged) = drive_min(2, 90, 4, 5);
        assert!(!converged);
        assert_eq!(reps.len(), 5);
        assert_eq!(drive_min(2, 1, 9, 4).0.len(), 9);
    }

    #[test]
    fn only_later_replications_start_around_replication_0s_answer() {
        let climb = Start::Climb(100);
        // the default climbs in every replication
        let full = SearchOptions::default();
        assert_eq!(full.start_of(3, 200, Some((180, false))), climb);
        assert!(!full.needs_first(1) && full.default_method());
        let mut o = serde_json::json!({});
        full.record_method(&mut o);
        assert_eq!(o, serde_json::json!({}));
        let opts = SearchOptions {
            bracket: true,
            ..SearchOptions::default()
        };
        assert_eq!(opts.start_of(0, 200, Some((180, false))), climb);
        assert_eq!(opts.start_of(0, 200, None), climb);
        assert_eq!(
            opts.start_of(3, 200, Some((180, false))),
            Start::Around(180)
        );
        // replication 0 found no maximum: climb
        assert_eq!(opts.start_of(1, 200, Some((0, false))), climb);
        assert_eq!(opts.start_of(1, 200, Some((10_000, true))), climb);
        assert!(opts.needs_first(1) && !opts.needs_first(0) && !opts.default_method());
        let mut o = serde_json::json!({});
        opts.record_method(&mut o);
        assert_eq!(o["bracket"], true);
        assert!(opts.method_text().unwrap().contains("--bracket"));
    }

    #[test]
    fn bracketed_searches_find_each_replications_threshold_and_save_simulations() {
        // a monotone system whose threshold varies by seed: the bracketed search answers
        // what the full climb answers, replication by replication, with fewer simulations
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let sim = |seed: u64, n: u32| -> Result<u64, String> {
            Ok(u64::from(u64::from(n) > 190 + seed % 17))
        };
        let run = |bracket: bool| {
            let opts = SearchOptions {
                min_replications: 8,
                max_replications: 8,
                bracket,
                ..SearchOptions::default()
            };
            pool.install(|| drive(7, 200, 1_000_000, &opts, &sim, &|_| {}))
                .unwrap()
        };
        let (bracketed, full) = (run(true), run(false));
        let maxima = |r: &(Vec<ReplicationResult>, Vec<Probe>, bool)| {
            r.0.iter().map(|x| x.max_terminals).collect::<Vec<_>>()
        };
        assert_eq!(maxima(&bracketed), maxima(&full));
        assert!(
            bracketed.1.len() * 10 < full.1.len() * 7,
            "{} against {}",
            bracketed.1.len(),
            full.1.len()
        );
    }

    #[test]
    fn replication_seeds_differ_and_are_stable() {
        let a = replication_seed(1, 0);
        assert_ne!(a, replication_seed(1, 1));
        assert_ne!(a, replication_seed(2, 0));
        assert_eq!(a, replication_seed(1, 0));
    }
}
