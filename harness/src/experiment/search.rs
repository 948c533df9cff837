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
use crate::output::Folder;
use crate::results::search::{AnswerStats, Probe, ReplicationResult, SearchResult};
use crate::system::{ProbeOptions, ProbeOutcome, RunError, Searchable};
use rayon::prelude::*;

pub use super::statistics::{CONFIDENCE, MIN_REPLICATIONS, PRECISION};
pub use crate::results::search::CLIMB_FROM_PERCENT;

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

/// Where a replication's climb starts for a scenario with `terminals.count = count`: half
/// of it (at least one), so that the first glitches are met from below.
///
/// ```
/// assert_eq!(vodbench_harness::experiment::search::climb_start(760), 380);
/// assert_eq!(vodbench_harness::experiment::search::climb_start(1), 1);
/// ```
pub fn climb_start(count: u32) -> u32 {
    climb_start_at(count, CLIMB_FROM_PERCENT)
}

/// Where a replication's climb starts with [`SearchOptions::climb_from_percent`] =
/// `percent`: that share of `count`, rounded down, at least one.
///
/// ```
/// use vodbench_harness::experiment::search::climb_start_at;
/// assert_eq!(climb_start_at(760, 50), 380);
/// assert_eq!(climb_start_at(203, 80), 162);
/// assert_eq!(climb_start_at(1, 80), 1);
/// ```
pub fn climb_start_at(count: u32, percent: u32) -> u32 {
    share(count, percent)
}

/// `percent` % of `x`, rounded down, at least one: where a climb starts, and how close a
/// bisection gets.
fn share(x: u32, percent: u32) -> u32 {
    ((u64::from(x) * u64::from(percent) / 100) as u32).max(1)
}

/// How a replication's search begins: the climb of the module docs, or a bracket around
/// an earlier replication's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Climb from this count (SPIFFI §7.1): grow by a quarter while glitch-free, or shrink by
    /// a fifth until clean if it glitches.
    Climb(u32),
    /// Bracket `a`, replication 0's answer: try `a − m`, then (clean) `a + m`, with `m`
    /// [`BRACKET_PERCENT`] % of `a` (at least one terminal) — the bisection then starts from
    /// a bracket of 10 % instead of the climb's 25 %. Clean beyond `a + m`: the climb goes on
    /// by a quarter; glitching at `a − m`: it steps down by `m`, `2m`, `4m`, … until clean.
    Around(u32),
}

/// Half-width of the bracket around replication 0's answer in which later replications start
/// ([`Start::Around`]), in percent of that answer: the stopping rule's precision (5 %).
pub const BRACKET_PERCENT: u32 = 5;

/// One replication's search: the largest `n` in `1..=cap` with `glitches(n) == 0`, and
/// whether it is `cap` itself, climbing from `start` ([`Start::Climb`]; see
/// [`find_max_from`]).
pub fn find_max<E>(
    start: u32,
    cap: u32,
    resolution_percent: u32,
    glitches: impl FnMut(u32) -> Result<u64, E>,
) -> Result<(u32, bool), E> {
    find_max_from(Start::Climb(start), cap, resolution_percent, glitches)
}

/// One replication's search: the largest `n` in `1..=cap` with `glitches(n) == 0`, and
/// whether it is `cap` itself. `glitches(n)` simulates `n` terminals; the counts it is asked
/// for depend only on `start` and its answers (see the module docs), never twice the same.
/// The bisection stops once the largest glitch-free count `lo` and the smallest glitching one
/// are at most `lo × resolution_percent / 100` apart (at least one: 0 finds the threshold
/// itself), and answers `lo`. Where glitches grow with the count (a threshold `T`: clean up
/// to `T`, glitching above), every start finds `T` with resolution 0.
pub fn find_max_from<E>(
    start: Start,
    cap: u32,
    resolution_percent: u32,
    mut glitches: impl FnMut(u32) -> Result<u64, E>,
) -> Result<(u32, bool), E> {
    let cap = cap.max(1);
    // lo: largest count known glitch-free (0: none); hi: smallest count known to glitch
    let (mut lo, mut hi);
    // grows `lo` (glitch-free) by a quarter until a count glitches (its `hi`) or the cap
    let climb = |mut lo: u32,
                 glitches: &mut dyn FnMut(u32) -> Result<u64, E>|
     -> Result<Option<(u32, u32)>, E> {
        loop {
            if lo >= cap {
                return Ok(None);
            }
            let n = lo.saturating_add((lo / 4).max(1)).min(cap);
            if glitches(n)? == 0 {
                lo = n;
            } else {
                return Ok(Some((lo, n)));
            }
        }
    };
    match start {
        Start::Climb(start) => {
            let start = start.clamp(1, cap);
            if glitches(start)? == 0 {
                match climb(start, &mut glitches)? {
                    None => return Ok((cap, true)),
                    Some((l, h)) => (lo, hi) = (l, h),
                }
            } else {
                hi = start;
                loop {
                    let n = hi - (hi / 5).max(1);
                    if n == 0 {
                        lo = 0;
                        break;
                    }
                    if glitches(n)? == 0 {
                        lo = n;
                        break;
                    }
                    hi = n;
                }
            }
        }
        Start::Around(a) => {
            let m = share(a, BRACKET_PERCENT);
            let below = a.saturating_sub(m).clamp(1, cap);
            if glitches(below)? == 0 {
                let above = a.saturating_add(m).min(cap);
                if above <= below {
                    return Ok((cap, true));
                }
                if glitches(above)? == 0 {
                    match climb(above, &mut glitches)? {
                        None => return Ok((cap, true)),
                        Some((l, h)) => (lo, hi) = (l, h),
                    }
                } else {
                    (lo, hi) = (below, above);
                }
            } else {
                hi = below;
                let mut step = m;
                loop {
                    let n = hi.saturating_sub(step);
                    if n == 0 {
                        lo = 0;
                        break;
                    }
                    if glitches(n)? == 0 {
                        lo = n;
                        break;
                    }
                    hi = n;
                    step = step.saturating_mul(2);
                }
            }
        }
    }
    while hi - lo > share(lo, resolution_percent) {
        let mid = lo + (hi - lo) / 2;
        if glitches(mid)? == 0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok((lo, false))
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

/// `curve.csv`: one row per simulation (terminals, glitches, replication index), sorted by
/// terminals then replication. Each replication's seed is in `search.json`.
pub fn curve_csv(probes: &[Probe]) -> String {
    let mut rows: Vec<&Probe> = probes.iter().collect();
    rows.sort_by_key(|p| (p.terminals, p.replication));
    let mut out = String::from("terminals,glitches,replication\n");
    for p in rows {
        out.push_str(&format!(
            "{},{},{}\n",
            p.terminals, p.glitches, p.replication
        ));
    }
    out
}

/// The manifest of a search: the run manifest of its scenario (plugins, resolved scenario,
/// hashes, host) with `"kind": "search"` and the search's limits; the workload is generated
/// anew for every simulation, so it carries no event count or fingerprint
/// ([`Searchable::search_manifest`]).
pub fn search_manifest<S: Searchable>(point: &S::Point, opts: &SearchOptions) -> serde_json::Value {
    let mut m = S::search_manifest(point);
    if let Some(o) = m.as_object_mut() {
        o.insert("kind".into(), "search".into());
        o.insert(
            "search".into(),
            serde_json::json!({
                "min_replications": opts.replication_limits().0,
                "max_replications": opts.replication_limits().1,
                "max_terminals": opts.max_terminals,
                "confidence": CONFIDENCE,
                "precision": PRECISION,
            }),
        );
        opts.record_method(&mut o["search"]);
    }
    m
}

/// The output folder of a search of `point` under `opts`: `manifest.json`
/// ([`search_manifest`]), `search.json`, `curve.csv`, and the report drawn from them.
pub fn search_folder<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    result: &SearchResult,
) -> Folder {
    Folder {
        files: vec![
            (
                "manifest.json".into(),
                crate::output::to_json(&search_manifest::<S>(point, opts)),
            ),
            ("search.json".into(), crate::output::to_json(result)),
            ("curve.csv".into(), curve_csv(&result.probes)),
        ],
        report: true,
        ..Folder::default()
    }
}

/// The lines `vodbench search` prints.
pub fn summary_text(r: &SearchResult) -> String {
    let ci = &r.confidence_interval;
    let capped = r.per_replication.iter().filter(|x| x.capped).count();
    let mut out = format!(
        "{}: at most {} terminals without {} (90 % CI {:.1}–{:.1}, ±{:.1} %; {} \
         replications, {} runs)\n",
        r.scenario,
        r.max_terminals,
        r.failures.as_deref().unwrap_or("glitches"),
        ci.low,
        ci.high,
        ci.relative_half_width * 100.0,
        r.replications,
        r.runs
    );
    let maxima: Vec<String> = r
        .per_replication
        .iter()
        .map(|x| x.max_terminals.to_string())
        .collect();
    out.push_str(&format!("per replication: {}\n", maxima.join(", ")));
    let opts = SearchOptions {
        resolution_percent: r.resolution_percent,
        climb_from_percent: r.climb_from_percent,
        bracket: r.bracket,
        ..SearchOptions::default()
    };
    if let Some(m) = opts.method_text() {
        out.push_str(&format!("{m}\n"));
    }
    if !r.converged {
        out.push_str(&format!(
            "not converged: the interval is wider than ±{:.0} % after {} replications \
             (raise --seeds)\n",
            r.precision * 100.0,
            r.replications
        ));
    }
    if capped > 0 {
        out.push_str(&format!(
            "{capped} replication(s) never glitched up to {} terminals (raise --max-terminals)\n",
            r.terminal_cap
        ));
    }
    if let Some(a) = &r.at_answer {
        out.push_str(&format!(
            "at the answer: disk utilization {:.1} %, buffer hits {:.1} %, references to \
             pages another terminal referenced {:.1} %\n",
            a.disk_utilization_mean_ratio * 100.0,
            a.hit_ratio * 100.0,
            a.shared_ratio * 100.0
        ));
    }
    if let Some(p) = r.paper_max_terminals {
        out.push_str(&format!("paper: {p}\n"));
    }
    if let Some(m) = r.model_max_terminals {
        out.push_str(&format!("model: {m}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic system: glitches above `limit` terminals. Records the counts asked for.
    fn probe_log(start: u32, cap: u32, limit: u32) -> ((u32, bool), Vec<u32>) {
        let mut asked = Vec::new();
        let r = find_max::<()>(start, cap, 0, |n| {
            asked.push(n);
            Ok(u64::from(n > limit) * 3)
        })
        .unwrap();
        (r, asked)
    }

    #[test]
    fn finds_the_threshold_from_below_and_from_above() {
        let (r, asked) = probe_log(100, 10_000, 137);
        assert_eq!(r, (137, false));
        // grow by a quarter: 100, 125, 156 (glitches), then bisect 125..156
        assert_eq!(&asked[..3], &[100, 125, 156]);
        assert_eq!(asked.len(), 3 + 5);
        let (r, asked) = probe_log(500, 10_000, 137);
        assert_eq!(r, (137, false));
        // shrink by a fifth: 500, 400, 320, 256, 205, 164, 132 (glitch-free), then bisect
        assert_eq!(&asked[..7], &[500, 400, 320, 256, 205, 164, 132]);
        let mut sorted = asked.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            asked.len(),
            "a count is never simulated twice"
        );
    }

    #[test]
    fn the_climb_stops_at_the_first_glitch_of_a_non_monotone_curve() {
        // glitches at 300..=320 only, and from 420 on (like an elevator replication that
        // glitches at 312 but not at 390 or 402)
        let glitchy = |n: u32| (300..=320).contains(&n) || n >= 420;
        let run = |start: u32| {
            find_max::<()>(start, 10_000, 0, |n| Ok(u64::from(glitchy(n))))
                .unwrap()
                .0
        };
        // from the file's count (400) the first probe is clean and the dip is never seen
        assert_eq!(run(400), 419);
        // from half of it: 200, 250, 312 (glitches), then bisect 250..312
        assert_eq!(run(climb_start(400)), 299);
    }

    #[test]
    fn a_coarser_resolution_stops_the_bisection_early_and_answers_a_glitch_free_count() {
        let log = |resolution: u32, limit: u32| {
            let mut asked = Vec::new();
            let r = find_max::<()>(100, 10_000, resolution, |n| {
                asked.push(n);
                Ok(u64::from(n > limit))
            })
            .unwrap();
            (r.0, asked)
        };
        // to one terminal: 100, 125, 156 (glitches), then 140, 132, 136, 138, 137
        let (exact, asked_exact) = log(0, 137);
        assert_eq!(exact, 137);
        // within 5 % of the glitch-free count: 125..156, 140 (glitches), 132..140 is 8 > 6,
        // 136: 136..140 is 4 ≤ 6
        let (coarse, asked) = log(5, 137);
        assert_eq!(asked, vec![100, 125, 156, 140, 132, 136]);
        assert_eq!(coarse, 136);
        assert!(asked.len() < asked_exact.len());
        // every answer is glitch-free and within the resolution of the threshold
        for limit in [60, 99, 100, 137, 150, 333, 1000] {
            for resolution in [0, 1, 2, 5, 10, 20] {
                let (answer, asked) = log(resolution, limit);
                assert!(
                    answer <= limit && asked.contains(&answer),
                    "{limit} {resolution}"
                );
                let glitching = asked.iter().filter(|&&n| n > limit).min().unwrap();
                assert!(glitching - answer <= (answer * resolution / 100).max(1));
            }
        }
    }

    #[test]
    fn the_climb_starts_at_the_share_asked_for() {
        assert_eq!(climb_start_at(400, CLIMB_FROM_PERCENT), climb_start(400));
        let from = |percent: u32| {
            let mut asked = Vec::new();
            find_max::<()>(climb_start_at(200, percent), 10_000, 0, |n| {
                asked.push(n);
                Ok(u64::from(n > 190))
            })
            .unwrap();
            asked
        };
        assert_eq!(from(50)[..4], [100, 125, 156, 195]);
        assert_eq!(from(80)[..2], [160, 200]);
        assert!(from(80).len() < from(50).len());
        assert!(SearchOptions::default().default_method());
        let quick = SearchOptions {
            resolution_percent: 2,
            ..SearchOptions::default()
        };
        assert!(!quick.default_method());
    }

    #[test]
    fn edge_cases_cap_and_nothing_glitch_free() {
        assert_eq!(probe_log(100, 120, 1000).0, (120, true));
        assert_eq!(probe_log(100, 120, 119).0, (119, false));
        assert_eq!(probe_log(5, 10_000, 0).0, (0, false));
        assert_eq!(probe_log(1, 10_000, 1).0, (1, false));
        assert_eq!(probe_log(0, 10_000, 3).0, (3, false));
    }

    #[test]
    fn errors_stop_the_search() {
        let r = find_max(10, 100, 0, |n| if n > 12 { Err(n) } else { Ok(0) });
        assert_eq!(r, Err(15)); // 10, 12 glitch-free; 15 fails
    }

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

    /// The counts `find_max_from(start)` asks a monotone system (clean up to `limit`) for,
    /// and its answer.
    fn asked_from(start: Start, cap: u32, limit: u32) -> ((u32, bool), Vec<u32>) {
        let mut asked = Vec::new();
        let r = find_max_from::<()>(start, cap, 0, |n| {
            asked.push(n);
            Ok(u64::from(n > limit))
        })
        .unwrap();
        (r, asked)
    }

    #[test]
    fn a_bracket_reaches_the_verdict_a_full_climb_reaches_on_a_monotone_system() {
        // every threshold, every bracket centre (near, far below, far above, tiny) and cap:
        // the same answer as the climb from half, never a count asked twice
        for limit in [0, 1, 2, 7, 60, 99, 137, 190, 205, 760, 999] {
            for a in [1, 2, 5, 50, 130, 137, 140, 200, 215, 400, 800, 5000] {
                for cap in [1, 10, 150, 1000, 10_000] {
                    let climb = asked_from(Start::Climb(climb_start(200)), cap, limit);
                    let (found, asked) = asked_from(Start::Around(a), cap, limit);
                    assert_eq!(found, climb.0, "limit {limit}, around {a}, cap {cap}");
                    let mut distinct = asked.clone();
                    distinct.sort_unstable();
                    distinct.dedup();
                    assert_eq!(distinct.len(), asked.len(), "{asked:?}");
                    assert!(asked.iter().all(|&n| (1..=cap.max(1)).contains(&n)));
                }
            }
        }
    }

    #[test]
    fn a_bracket_around_a_close_answer_asks_fewer_and_higher_counts() {
        // replication 0 answered 200; this one's threshold is 195: 190 (clean), 210
        // (glitches), then a bisection of 20 instead of the climb's 100, 125, 156, 195,
        // 243 and a bisection of 48
        let (found, asked) = asked_from(Start::Around(200), 10_000, 195);
        assert_eq!(found, (195, false));
        assert_eq!(&asked[..2], &[190, 210]);
        let (_, climbed) = asked_from(Start::Climb(100), 10_000, 195);
        assert_eq!(&climbed[..5], &[100, 125, 156, 195, 243]);
        assert!(asked.len() + 4 <= climbed.len(), "{asked:?} {climbed:?}");
        // far below the bracket it steps down by 10, 20, 40, …: 190, 180, 160, 120 (clean)
        let (found, asked) = asked_from(Start::Around(200), 10_000, 130);
        assert_eq!(found, (130, false));
        assert_eq!(&asked[..4], &[190, 180, 160, 120]);
        // far above it climbs on by a quarter from the bracket's top
        let (found, asked) = asked_from(Start::Around(200), 10_000, 300);
        assert_eq!(found, (300, false));
        assert_eq!(&asked[..4], &[190, 210, 262, 327]);
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
