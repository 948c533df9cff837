//! One replication's search for the largest glitch-free terminal count (SPIFFI §7.1): the
//! climb from below, the bracket around an earlier replication's answer, and the bisection
//! that ends both (the method is described in [`super`]'s module docs).

use crate::results::search::CLIMB_FROM_PERCENT;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::search::SearchOptions;

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
}
