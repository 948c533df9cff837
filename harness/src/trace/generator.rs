//! Workload generator: Zipf or uniform popularity, random start times, pauses, seeks and
//! fast-forward/rewind searches.
//!
//! Each terminal starts its first video at an independent uniform instant in
//! `[0, start_spread)` and, SPIFFI-style (§6), starts a newly chosen video as soon as the
//! previous one would end. Within a viewing, pauses, seeks and searches happen at uniformly
//! random instants of playing time (Poisson counts with the given means); a pause lasts an
//! exponential time, a seek jumps an exponential distance forward or backward (clamped into the
//! video), and a search (SPIFFI §8.1) is an `ff` or `rewind` (equally likely) followed by a
//! `resume` an exponential time later. For placing later events the generator assumes a search
//! covers `search_speed` seconds of video per second (how far it really gets depends on the
//! server and `[interactive]`); a fast-forward that would pass the end ends the viewing there
//! (no `resume`), and a rewind stops at the start. The
//! next start is placed at the nominal end of the viewing; if the simulated terminal is late
//! (it glitched), the engine delays it (see [`super`]).
//!
//! Every terminal draws from its own stream (`workload.terminal`, index = terminal), so adding
//! terminals leaves the existing terminals' events unchanged.

use super::{EventKind, TraceEvent};
use crate::ids::{TerminalId, VideoId};
use crate::rng::stream;
use crate::time::{SimDuration, SimTime};
use crate::units::Duration;
use rand::Rng;
use rand_distr::{Distribution, Exp1, Poisson};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most events a generator may produce (a guard against typos such as a 1-second video over
/// a 1000-hour horizon).
pub const MAX_EVENTS: u64 = 50_000_000;

/// Which videos viewers pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Popularity {
    /// Video `i` (0-based) with probability ∝ 1/(i+1)^z (SPIFFI §6.1, Fig. 8).
    #[default]
    Zipf,
    /// Every video equally likely.
    Uniform,
    /// Every start a video of its own, in the order of the starts (Jadav et al. §6: requests
    /// for "distinct objects"; `../shared/papers/notes/jadav.md`, workload additions).
    Distinct,
    /// A share `fraction` of the starts go to the hot objects — video 0 by default, or
    /// `hot_videos` of them at a time, replaced by the next ones every `hot_period` — and
    /// every other start to a video of its own (Jadav et al. §6's popular-object experiments,
    /// Fig. 11).
    Hotspot,
}

/// `[workload.generate]`: parameters of the generated workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GeneratorParams {
    /// `zipf` (default), `uniform`, `distinct` (every start a video of its own) or `hotspot`
    /// (`fraction` of the starts to video 0, the others each to a video of its own).
    pub popularity: Popularity,
    /// With `popularity = "hotspot"`: the share of starts that go to the hot videos (0..=1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fraction: Option<f64>,
    /// With `popularity = "hotspot"`: how many videos are hot at a time, sharing `fraction`
    /// equally (default 1; 1..=1000).
    #[serde(skip_serializing_if = "is_one")]
    pub hot_videos: u32,
    /// With `popularity = "hotspot"`: after each such span the hot videos are replaced by the
    /// next `hot_videos` ones (default: never; 1ms..=1000h). A start at time s goes, when hot,
    /// to one of videos i·`hot_videos` … (i+1)·`hot_videos` − 1 with i = ⌊s / `hot_period`⌋.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_period: Option<Duration>,
    /// Zipf skew z (default 1.0; 0 is uniform; 0..=10).
    pub z: f64,
    /// Terminals start their first video uniformly within this span (default 60s).
    pub start_spread: Duration,
    /// Mean number of pauses per viewing (Poisson; default 0).
    pub pauses_per_video: f64,
    /// Mean pause length (exponential; default 2min).
    pub pause_mean: Duration,
    /// Mean number of seeks per viewing (Poisson; default 0).
    pub seeks_per_video: f64,
    /// Mean seek distance, forward or backward with equal probability (exponential; default 5min).
    pub seek_mean: Duration,
    /// Mean number of fast-forward/rewind searches per viewing (Poisson; default 0).
    // (left out of the resolved scenario at their defaults, so that scenarios written before
    // searches existed keep their resolved form and hash)
    #[serde(skip_serializing_if = "is_zero")]
    pub searches_per_video: f64,
    /// Mean search length in wall-clock time, from `ff`/`rewind` to `resume` (exponential;
    /// default 10s).
    #[serde(skip_serializing_if = "is_default_search_mean")]
    pub search_mean: Duration,
    /// Seconds of video a search is assumed to cover per second, to place later events
    /// (default 8: `show = "1s"` of `every = "8s"`, or `speedup = 8`; 1..=1000).
    #[serde(skip_serializing_if = "is_default_search_speed")]
    pub search_speed: f64,
}

const DEFAULT_SEARCH_MEAN: Duration = Duration(10_000_000_000);
const DEFAULT_SEARCH_SPEED: f64 = 8.0;

fn is_one(n: &u32) -> bool {
    *n == 1
}
fn is_zero(x: &f64) -> bool {
    *x == 0.0
}
fn is_default_search_mean(d: &Duration) -> bool {
    *d == DEFAULT_SEARCH_MEAN
}
fn is_default_search_speed(x: &f64) -> bool {
    *x == DEFAULT_SEARCH_SPEED
}

impl Default for GeneratorParams {
    fn default() -> Self {
        GeneratorParams {
            popularity: Popularity::Zipf,
            fraction: None,
            hot_videos: 1,
            hot_period: None,
            z: 1.0,
            start_spread: Duration(60_000_000_000),
            pauses_per_video: 0.0,
            pause_mean: Duration(120_000_000_000),
            seeks_per_video: 0.0,
            seek_mean: Duration(300_000_000_000),
            searches_per_video: 0.0,
            search_mean: DEFAULT_SEARCH_MEAN,
            search_speed: DEFAULT_SEARCH_SPEED,
        }
    }
}

impl GeneratorParams {
    /// Checks ranges; the error names the key and what is allowed.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let bad = |k: &str, m: String| Err((k.to_string(), m));
        if !self.z.is_finite() || !(0.0..=10.0).contains(&self.z) {
            return bad("z", format!("must be a number in 0..=10, got {}", self.z));
        }
        match (self.popularity, self.fraction) {
            (Popularity::Hotspot, None) => {
                return bad(
                    "fraction",
                    "popularity = \"hotspot\" needs the share of starts that go to video 0, \
                     the hot object: fraction = 0.5, say (0..=1)"
                        .into(),
                )
            }
            (Popularity::Hotspot, Some(f)) if !(0.0..=1.0).contains(&f) => {
                return bad("fraction", format!("must be a number in 0..=1, got {f}"))
            }
            (Popularity::Hotspot, Some(_)) | (_, None) => {}
            (_, Some(_)) => {
                return bad(
                    "fraction",
                    "is the share of starts that go to the hot video of popularity = \
                     \"hotspot\", but this workload's popularity is not that: remove \
                     fraction, or set popularity = \"hotspot\""
                        .into(),
                )
            }
        }
        if self.popularity != Popularity::Hotspot {
            let given = if self.hot_videos != 1 {
                Some("hot_videos")
            } else if self.hot_period.is_some() {
                Some("hot_period")
            } else {
                None
            };
            if let Some(k) = given {
                return bad(
                    k,
                    "describes the hot videos of popularity = \"hotspot\", but this workload's \
                     popularity is not that: remove it, or set popularity = \"hotspot\""
                        .into(),
                );
            }
        }
        if !(1..=1000).contains(&self.hot_videos) {
            return bad(
                "hot_videos",
                format!("must be 1..=1000 videos, got {}", self.hot_videos),
            );
        }
        if let Some(d) = self.hot_period {
            if !(1_000_000..=1000 * 3_600_000_000_000).contains(&d.0) {
                return bad("hot_period", format!("must be in 1ms..=1000h, got {d}"));
            }
        }
        // a skew given without zipf popularity would be silently ignored (1, the default,
        // and 0, uniform itself, say nothing else)
        if self.popularity != Popularity::Zipf && self.z != 1.0 && self.z != 0.0 {
            return bad(
                "z",
                format!(
                    "is {}, but z is the skew of zipf popularity and this workload's popularity \
                     is {}: remove z, or set popularity = \"zipf\"",
                    self.z,
                    match self.popularity {
                        Popularity::Uniform => "uniform (every video equally likely)",
                        Popularity::Distinct => "distinct (every start a video of its own)",
                        _ => "hotspot (hot videos, the other starts each a video of its own)",
                    }
                ),
            );
        }
        for (k, v) in [
            ("pauses_per_video", self.pauses_per_video),
            ("seeks_per_video", self.seeks_per_video),
            ("searches_per_video", self.searches_per_video),
        ] {
            if !v.is_finite() || !(0.0..=1000.0).contains(&v) {
                return bad(k, format!("must be a number in 0..=1000, got {v}"));
            }
        }
        const HOUR: u64 = 3_600_000_000_000;
        if self.start_spread.0 > 1000 * HOUR {
            return bad(
                "start_spread",
                format!("must be at most 1000h, got {}", self.start_spread),
            );
        }
        for (k, v) in [
            ("pause_mean", self.pause_mean),
            ("seek_mean", self.seek_mean),
            ("search_mean", self.search_mean),
        ] {
            if v.0 == 0 || v.0 > 100 * HOUR {
                return bad(k, format!("must be in 1ns..=100h, got {v}"));
            }
        }
        if !self.search_speed.is_finite() || !(1.0..=1000.0).contains(&self.search_speed) {
            return bad(
                "search_speed",
                format!("must be a number in 1..=1000, got {}", self.search_speed),
            );
        }
        Ok(())
    }
}

/// What happens at one instant of a viewing's playing time (ordered as sorted: at the same
/// instant a seek comes before a pause, as it always has).
const SEEK: u8 = 0;
const PAUSE: u8 = 1;
const SEARCH: u8 = 2;

/// Cumulative popularity of each video.
fn popularity_cdf(p: &GeneratorParams, videos: u32) -> Vec<f64> {
    let z = if p.popularity == Popularity::Uniform {
        0.0
    } else {
        p.z
    };
    let mut acc = 0.0;
    let mut cdf: Vec<f64> = (1..=videos)
        .map(|i| {
            acc += 1.0 / f64::from(i).powf(z);
            acc
        })
        .collect();
    for c in &mut cdf {
        *c /= acc;
    }
    cdf
}

fn exp_ns<R: Rng>(rng: &mut R, mean: u64) -> u64 {
    let e: f64 = Exp1.sample(rng);
    (e * mean as f64).round().min(1e18) as u64
}

fn poisson<R: Rng>(rng: &mut R, mean: f64) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    Poisson::new(mean).map_or(0, |d| d.sample(rng) as u64)
}

/// Generates the events of `terminals` terminals over `[0, horizon]`, sorted by time (ties by
/// terminal, then in each terminal's own order), all at once: [`generate_stream`] collected,
/// with a workload that needs more videos of their own than `videos` refused.
pub fn generate(
    params: &GeneratorParams,
    terminals: u32,
    videos: u32,
    video_length: SimDuration,
    horizon: SimTime,
    seed: u64,
) -> Result<Vec<TraceEvent>, String> {
    let mut g = generate_stream(params, terminals, videos, video_length, horizon, seed)?;
    let events: Vec<TraceEvent> = g.by_ref().collect();
    g.check_videos()?;
    Ok(events)
}

/// The events [`generate`] gives, one at a time, in the same order: what a run reads, in
/// memory that grows with the terminals (each one's generator and its current viewing),
/// never with the length of the workload.
///
/// Every terminal's events are made a viewing at a time from its own random stream, and
/// never go back in time (a viewing's events follow its playing time; the next start comes
/// after the viewing's end), so merging the terminals by (time, terminal) gives exactly the
/// order of a stable sort of all of them by (time, terminal).
pub fn generate_stream(
    params: &GeneratorParams,
    terminals: u32,
    videos: u32,
    video_length: SimDuration,
    horizon: SimTime,
    seed: u64,
) -> Result<GeneratedEvents, String> {
    params
        .validate()
        .map_err(|(k, m)| format!("workload.generate.{k}: {m}"))?;
    if videos == 0 || video_length == SimDuration::ZERO {
        return Err("the generator needs at least one video of non-zero length".into());
    }
    let len = video_length.as_nanos();
    let viewings = horizon.as_nanos() / len + 2;
    let per_view = 1.0
        + 2.0 * params.pauses_per_video
        + params.seeks_per_video
        + 2.0 * params.searches_per_video;
    let estimate = f64::from(terminals) * viewings as f64 * per_view;
    if estimate > MAX_EVENTS as f64 {
        return Err(format!(
            "the workload would have about {estimate:.0} events (more than {MAX_EVENTS}); \
             use fewer terminals, longer videos or a shorter run"
        ));
    }
    let mut g = GeneratedEvents {
        params: params.clone(),
        cdf: popularity_cdf(params, videos),
        videos,
        len,
        horizon: horizon.as_nanos(),
        terms: (0..terminals)
            .map(|t| TermGen::new(params, seed, t))
            .collect(),
        due: std::collections::BinaryHeap::with_capacity(terminals as usize),
        scratch: Vec::new(),
        hot: 0,
        next_own: 0,
        current: Vec::new(),
    };
    if params.popularity == Popularity::Hotspot {
        // the hot videos of every period a start can fall in come first
        let periods = params
            .hot_period
            .map_or(1, |d| horizon.as_nanos() / d.0.max(1) + 1);
        g.hot = u64::from(params.hot_videos)
            .saturating_mul(periods)
            .min(u64::from(u32::MAX)) as u32;
        g.next_own = g.hot;
        if g.hot > videos {
            return Err(format!(
                "workload.generate.hot_videos: {} hot videos in each of {periods} periods of \
                 hot_period over the run make {} hot videos, but videos.count is {videos}: \
                 raise videos.count, or give fewer hot videos or a longer hot_period",
                params.hot_videos, g.hot
            ));
        }
    }
    if matches!(
        params.popularity,
        Popularity::Distinct | Popularity::Hotspot
    ) {
        g.current = vec![OWN; terminals as usize];
    }
    for t in 0..terminals as usize {
        g.refill(t);
    }
    Ok(g)
}

/// One terminal's generator: its random stream, where its next viewing starts, and the
/// events of its current viewing not yet taken.
struct TermGen {
    rng: crate::rng::SimRng,
    start: u64,
    terminal: TerminalId,
    viewing: std::collections::VecDeque<TraceEvent>,
}

impl TermGen {
    fn new(params: &GeneratorParams, seed: u64, t: u32) -> Self {
        let mut rng = stream(seed, "workload.terminal", u64::from(t));
        let spread = params.start_spread.0;
        let start = if spread > 0 {
            rng.random_range(0..spread)
        } else {
            0
        };
        TermGen {
            rng,
            start,
            terminal: TerminalId(t),
            viewing: std::collections::VecDeque::new(),
        }
    }
}

/// The generated workload as a stream ([`generate_stream`]).
pub struct GeneratedEvents {
    params: GeneratorParams,
    cdf: Vec<f64>,
    videos: u32,
    /// Video length, nanoseconds.
    len: u64,
    /// Nanoseconds: no viewing starts after it.
    horizon: u64,
    terms: Vec<TermGen>,
    /// (time of its next event, terminal) of every terminal with events left, earliest first.
    due: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32)>>,
    scratch: Vec<(u64, u8)>,
    /// The hot videos of the whole workload, numbered first (`hotspot`).
    hot: u32,
    /// The next video of its own to give (`distinct`, `hotspot`).
    next_own: u32,
    /// Each terminal's video of its own now (`distinct`, `hotspot`).
    current: Vec<VideoId>,
}

impl GeneratedEvents {
    /// Refuses a workload that gave more viewings a video of their own than there are
    /// videos, once every event has been taken (the count it names is the whole workload's).
    pub fn check_videos(&self) -> Result<(), String> {
        let popularity = self.params.popularity;
        if !matches!(popularity, Popularity::Distinct | Popularity::Hotspot) {
            return Ok(());
        }
        let (first, next, videos) = (self.hot, self.next_own, self.videos);
        if next <= videos {
            return Ok(());
        }
        let name = if popularity == Popularity::Distinct {
            "distinct"
        } else {
            "hotspot"
        };
        Err(format!(
            "workload.generate.popularity: \"{name}\" gives {} a video of its own, and this \
             workload starts {} such viewings, but videos.count is {videos}: raise videos.count \
             to at least {next}",
            match first {
                0 => "every start".to_string(),
                1 => "every start but the hot video's".to_string(),
                n => format!("the {n} hot videos their numbers and every other start"),
            },
            next - first
        ))
    }

    /// Makes terminal `t`'s next viewing, if it starts within the horizon, and puts the
    /// terminal among those due.
    fn refill(&mut self, t: usize) {
        let tg = &mut self.terms[t];
        if tg.viewing.is_empty() && tg.start <= self.horizon {
            viewing(
                &self.params,
                &self.cdf,
                self.videos,
                self.len,
                tg,
                &mut self.scratch,
            );
        }
        if let Some(e) = tg.viewing.front() {
            self.due
                .push(std::cmp::Reverse((e.time.as_nanos(), t as u32)));
        }
    }
}

impl Iterator for GeneratedEvents {
    type Item = TraceEvent;

    fn next(&mut self) -> Option<TraceEvent> {
        let std::cmp::Reverse((_, t)) = self.due.pop()?;
        let t = t as usize;
        let mut e = self.terms[t]
            .viewing
            .pop_front()
            .expect("a due terminal has an event");
        self.refill(t);
        // videos of their own are numbered in the order of the starts
        if !self.current.is_empty() {
            if e.video == OWN {
                if e.kind == EventKind::Start {
                    self.current[t] = VideoId(self.next_own);
                    self.next_own = self.next_own.saturating_add(1);
                }
                e.video = self.current[t];
            } else if e.kind == EventKind::Start {
                self.current[t] = e.video;
            }
        }
        Some(e)
    }
}

/// Appends the events of terminal `tg`'s viewing starting at `tg.start` and moves `start`
/// to the viewing's nominal end.
fn viewing(
    params: &GeneratorParams,
    cdf: &[f64],
    videos: u32,
    len: u64,
    tg: &mut TermGen,
    scratch: &mut Vec<(u64, u8)>,
) {
    let (rng, start, terminal) = (&mut tg.rng, tg.start, tg.terminal);
    let events = &mut tg.viewing;
    let u: f64 = rng.random();
    let video = match params.popularity {
        Popularity::Zipf | Popularity::Uniform => {
            VideoId(cdf.partition_point(|c| *c <= u).min(videos as usize - 1) as u32)
        }
        // a video of its own, numbered as the starts come out of the stream
        Popularity::Distinct => OWN,
        Popularity::Hotspot if u < params.fraction.unwrap_or(0.0) => hot_video(params, u, start),
        Popularity::Hotspot => OWN,
    };
    let ev = |time: u64, kind, position: u64| TraceEvent {
        time: SimTime::from_nanos(time),
        terminal,
        kind,
        video,
        position: SimDuration::from_nanos(position),
    };
    events.push_back(ev(start, EventKind::Start, 0));
    // interactive events at random instants of playing time
    scratch.clear();
    for _ in 0..poisson(rng, params.pauses_per_video) {
        scratch.push((rng.random_range(0..len), PAUSE));
    }
    for _ in 0..poisson(rng, params.seeks_per_video) {
        scratch.push((rng.random_range(0..len), SEEK));
    }
    for _ in 0..poisson(rng, params.searches_per_video) {
        scratch.push((rng.random_range(0..len), SEARCH));
    }
    scratch.sort_unstable();
    let mut played_at_last = 0u64; // playing time at the last position change
    let mut pos = 0u64; // video position then
    let mut paused = 0u64; // total pause (and search) time so far
    let mut ended = None; // wall time a fast-forward ran off the end
    for &(played, what) in scratch.iter() {
        let now_pos = pos + (played - played_at_last);
        if now_pos >= len {
            break; // the video ended before this event
        }
        let wall = start + played + paused;
        if what == SEARCH {
            let d = exp_ns(rng, params.search_mean.0).max(1);
            let covered = (d as f64 * params.search_speed).min(1e18) as u64;
            if rng.random::<bool>() {
                events.push_back(ev(wall, EventKind::FastForward, 0));
                if now_pos.saturating_add(covered) >= len {
                    let rest = ((len - now_pos) as f64 / params.search_speed) as u64;
                    ended = Some(wall + rest);
                    break;
                }
                pos = now_pos + covered;
            } else {
                events.push_back(ev(wall, EventKind::Rewind, 0));
                pos = now_pos.saturating_sub(covered);
            }
            events.push_back(ev(wall + d, EventKind::Resume, 0));
            paused += d;
            played_at_last = played;
            continue;
        }
        if what == PAUSE {
            let d = exp_ns(rng, params.pause_mean.0).max(1);
            events.push_back(ev(wall, EventKind::Pause, 0));
            events.push_back(ev(wall + d, EventKind::Resume, 0));
            paused += d;
        } else {
            let jump = exp_ns(rng, params.seek_mean.0);
            let target = if rng.random::<bool>() {
                now_pos.saturating_add(jump)
            } else {
                now_pos.saturating_sub(jump)
            };
            // stay inside the video: at least one second before its end
            let target = target.min(len.saturating_sub(1_000_000_000));
            events.push_back(ev(wall, EventKind::Seek, target));
            pos = target;
            played_at_last = played;
            continue;
        }
        pos = now_pos;
        played_at_last = played;
    }
    let end = ended.unwrap_or(start + paused + played_at_last + (len - pos.min(len)));
    tg.start = end.max(start + 1);
}

/// The hot video of a hot start at `start` (ns) that drew `u` < `fraction`: one of the
/// `hot_videos` of its period, by where `u` falls in [0, `fraction`) (video 0 by default).
fn hot_video(params: &GeneratorParams, u: f64, start: u64) -> VideoId {
    let k = params.hot_videos.max(1);
    let f = params.fraction.unwrap_or(1.0);
    let j = ((u / f * f64::from(k)) as u32).min(k - 1);
    let period = params.hot_period.map_or(0, |d| start / d.0.max(1));
    let first = u64::from(k).saturating_mul(period);
    VideoId(first.saturating_add(u64::from(j)).min(u64::from(u32::MAX)) as u32)
}

/// The video of a start that has one of its own, until the stream numbers it.
const OWN: VideoId = VideoId(u32::MAX);

#[cfg(test)]
mod tests {
    use super::*;

    /// `p`'s events for `terminals` terminals over an hour of 10-minute videos, `videos` of
    /// them.
    fn gen_videos(
        p: &GeneratorParams,
        terminals: u32,
        videos: u32,
    ) -> Result<Vec<TraceEvent>, String> {
        generate(
            p,
            terminals,
            videos,
            SimDuration::from_secs(600),
            SimTime::from_nanos(3_600_000_000_000),
            9,
        )
    }

    #[test]
    fn distinct_gives_every_start_a_video_of_its_own_in_the_order_of_the_starts() {
        let p = GeneratorParams {
            popularity: Popularity::Distinct,
            pauses_per_video: 2.0,
            seeks_per_video: 1.0,
            ..GeneratorParams::default()
        };
        let events = gen_videos(&p, 20, 1000).unwrap();
        let starts: Vec<&TraceEvent> = events
            .iter()
            .filter(|e| e.kind == EventKind::Start)
            .collect();
        assert!(starts.len() > 50, "{}", starts.len());
        // numbered 0, 1, 2, … as the starts come
        for (i, e) in starts.iter().enumerate() {
            assert_eq!(e.video, VideoId(i as u32));
        }
        // every other event belongs to its terminal's viewing
        let mut current = std::collections::HashMap::new();
        for e in &events {
            if e.kind == EventKind::Start {
                current.insert(e.terminal, e.video);
            } else {
                assert_eq!(Some(&e.video), current.get(&e.terminal), "{e:?}");
            }
        }
        // one video fewer than the starts is refused, saying what to raise
        let n = starts.len() as u32;
        let e = gen_videos(&p, 20, n - 1).unwrap_err();
        assert!(
            e.contains(&format!("starts {n} such viewings"))
                && e.contains(&format!("raise videos.count to at least {n}")),
            "{e}"
        );
        assert!(gen_videos(&p, 20, n).is_ok());
    }

    #[test]
    fn hotspot_sends_its_fraction_to_video_0_and_the_rest_each_to_its_own() {
        for fraction in [0.0, 0.3, 0.8, 1.0] {
            let p = GeneratorParams {
                popularity: Popularity::Hotspot,
                fraction: Some(fraction),
                ..GeneratorParams::default()
            };
            let events = gen_videos(&p, 300, 10_000).unwrap();
            let starts: Vec<VideoId> = events
                .iter()
                .filter(|e| e.kind == EventKind::Start)
                .map(|e| e.video)
                .collect();
            let hot = starts.iter().filter(|v| v.0 == 0).count();
            let share = hot as f64 / starts.len() as f64;
            // ± 4 standard deviations of a binomial share over ~2000 starts
            let sd = (fraction * (1.0 - fraction) / starts.len() as f64).sqrt();
            assert!(
                (share - fraction).abs() <= 4.0 * sd + 1e-12,
                "{fraction}: {share}"
            );
            let others: Vec<u32> = starts.iter().filter(|v| v.0 != 0).map(|v| v.0).collect();
            let expected: Vec<u32> = (1..=others.len() as u32).collect();
            assert_eq!(others, expected, "{fraction}: each its own, from 1");
        }
    }

    #[test]
    fn hot_videos_share_the_fraction_and_hot_period_moves_them_on() {
        // two hot videos at a time, replaced every 20 minutes: over the hour (horizon 3600 s,
        // so periods 0, 1, 2 and the instant 3600 s itself, 4) videos 0–7 are the hot ones
        let p = GeneratorParams {
            popularity: Popularity::Hotspot,
            fraction: Some(0.5),
            hot_videos: 2,
            hot_period: Some(Duration(1_200_000_000_000)),
            ..GeneratorParams::default()
        };
        let events = gen_videos(&p, 300, 10_000).unwrap();
        let starts: Vec<&TraceEvent> = events
            .iter()
            .filter(|e| e.kind == EventKind::Start)
            .collect();
        let mut per_video = [0u32; 8];
        for e in &starts {
            if e.video.0 < 8 {
                let period = (e.time.as_nanos() / 1_200_000_000_000) as u32;
                assert!(e.video.0 / 2 == period, "{e:?} in period {period}");
                per_video[e.video.index()] += 1;
            }
        }
        // the two videos of each of the three periods share its hot starts about equally
        for pair in per_video[..6].chunks(2) {
            let (a, b) = (f64::from(pair[0]), f64::from(pair[1]));
            assert!(
                a > 20.0 && b > 20.0 && (a - b).abs() < 0.5 * (a + b),
                "{per_video:?}"
            );
        }
        // the other starts each a video of its own, numbered from 8
        let others: Vec<u32> = starts
            .iter()
            .filter(|e| e.video.0 >= 8)
            .map(|e| e.video.0)
            .collect();
        assert_eq!(others, (8..8 + others.len() as u32).collect::<Vec<_>>());
        // the defaults are one hot video, 0, for the whole run: the same events as before
        let one = GeneratorParams {
            popularity: Popularity::Hotspot,
            fraction: Some(0.5),
            ..GeneratorParams::default()
        };
        let two_forever = GeneratorParams {
            hot_videos: 2,
            ..one.clone()
        };
        let (a, b) = (
            gen_videos(&one, 50, 10_000).unwrap(),
            gen_videos(&two_forever, 50, 10_000).unwrap(),
        );
        // the same draws: the starts of the hot videos fall where they did, split over 0, 1
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.time, x.terminal, x.kind), (y.time, y.terminal, y.kind));
            assert_eq!(x.video.0 == 0, y.video.0 < 2, "{x:?} {y:?}");
        }
        // too many hot videos for the library: refused before any event, naming the key
        let e = match gen_videos(&p, 300, 7) {
            Err(e) => e,
            Ok(_) => panic!("8 hot videos in a library of 7"),
        };
        assert!(
            e.starts_with("workload.generate.hot_videos") && e.contains("make 8 hot videos"),
            "{e}"
        );
    }

    #[test]
    fn hot_videos_and_hot_period_belong_to_hotspot() {
        let hot = GeneratorParams {
            popularity: Popularity::Hotspot,
            fraction: Some(0.5),
            ..GeneratorParams::default()
        };
        let bad = |p: GeneratorParams| p.validate().unwrap_err();
        let e = bad(GeneratorParams {
            hot_videos: 2,
            ..GeneratorParams::default()
        });
        assert!(
            e.0 == "hot_videos" && e.1.contains("set popularity = \"hotspot\""),
            "{e:?}"
        );
        let e = bad(GeneratorParams {
            hot_period: Some(Duration(60_000_000_000)),
            popularity: Popularity::Distinct,
            ..GeneratorParams::default()
        });
        assert_eq!(e.0, "hot_period");
        let e = bad(GeneratorParams {
            hot_videos: 0,
            ..hot.clone()
        });
        assert!(e.0 == "hot_videos" && e.1.contains("1..=1000"), "{e:?}");
        let e = bad(GeneratorParams {
            hot_period: Some(Duration(1000)),
            ..hot.clone()
        });
        assert!(e.0 == "hot_period" && e.1.contains("1ms..=1000h"), "{e:?}");
        assert!(GeneratorParams {
            hot_videos: 3,
            hot_period: Some(Duration(60_000_000_000)),
            ..hot
        }
        .validate()
        .is_ok());
    }

    #[test]
    fn hotspot_and_fraction_go_together() {
        let check = |popularity, fraction: Option<f64>, z: f64| {
            GeneratorParams {
                popularity,
                fraction,
                z,
                ..GeneratorParams::default()
            }
            .validate()
        };
        let e = check(Popularity::Hotspot, None, 1.0).unwrap_err();
        assert_eq!(e.0, "fraction");
        assert!(e.1.contains("needs the share"), "{}", e.1);
        assert!(check(Popularity::Hotspot, Some(1.5), 1.0)
            .unwrap_err()
            .1
            .contains("0..=1"));
        let e = check(Popularity::Zipf, Some(0.5), 1.0).unwrap_err();
        assert_eq!(e.0, "fraction");
        let e = check(Popularity::Distinct, None, 2.0).unwrap_err();
        assert!(e.0 == "z" && e.1.contains("distinct"), "{e:?}");
        assert!(check(Popularity::Hotspot, Some(0.0), 1.0).is_ok());
        assert!(check(Popularity::Distinct, None, 1.0).is_ok());
    }

    fn gen(p: &GeneratorParams, terminals: u32, seed: u64) -> Vec<TraceEvent> {
        generate(
            p,
            terminals,
            10,
            SimDuration::from_secs(600),
            SimTime::from_nanos(3_600_000_000_000),
            seed,
        )
        .unwrap()
    }

    #[test]
    fn deterministic_and_sorted() {
        let p = GeneratorParams {
            pauses_per_video: 2.0,
            seeks_per_video: 1.0,
            ..GeneratorParams::default()
        };
        let a = gen(&p, 20, 5);
        assert_eq!(a, gen(&p, 20, 5));
        assert_ne!(a, gen(&p, 20, 6));
        assert!(a.windows(2).all(|w| w[0].time <= w[1].time));
    }

    /// The stream merges the terminals' own sequences, so it gives the order of a stable
    /// sort by (time, terminal) only if each terminal's events never go back in time: the
    /// output sorted by (time, terminal), with every kind of event and both numbering
    /// schemes, shows they do.
    #[test]
    fn the_stream_is_sorted_by_time_then_terminal_with_every_kind_of_event() {
        for popularity in [Popularity::Zipf, Popularity::Distinct, Popularity::Hotspot] {
            let p = GeneratorParams {
                popularity,
                fraction: (popularity == Popularity::Hotspot).then_some(0.4),
                pauses_per_video: 3.0,
                seeks_per_video: 2.0,
                searches_per_video: 2.0,
                ..GeneratorParams::default()
            };
            for seed in 0..4 {
                let events = generate(
                    &p,
                    37,
                    100_000,
                    SimDuration::from_secs(300),
                    SimTime::from_nanos(3_600_000_000_000),
                    seed,
                )
                .unwrap();
                assert!(events.len() > 1000, "{}", events.len());
                assert!(
                    events
                        .windows(2)
                        .all(|w| (w[0].time, w[0].terminal) <= (w[1].time, w[1].terminal)),
                    "{popularity:?} seed {seed}"
                );
                let kinds: std::collections::BTreeSet<u8> =
                    events.iter().map(|e| e.kind as u8).collect();
                assert!(kinds.len() >= 5, "{kinds:?}");
                // taken a few at a time, the stream gives the same events
                let mut g = generate_stream(
                    &p,
                    37,
                    100_000,
                    SimDuration::from_secs(300),
                    SimTime::from_nanos(3_600_000_000_000),
                    seed,
                )
                .unwrap();
                let first: Vec<TraceEvent> = g.by_ref().take(100).collect();
                assert_eq!(first[..], events[..100]);
                assert_eq!(g.count(), events.len() - 100);
            }
        }
    }

    #[test]
    fn adding_terminals_keeps_earlier_terminals_events() {
        let p = GeneratorParams {
            pauses_per_video: 1.0,
            ..GeneratorParams::default()
        };
        let small: Vec<_> = gen(&p, 5, 9);
        let big: Vec<_> = gen(&p, 8, 9)
            .into_iter()
            .filter(|e| e.terminal.0 < 5)
            .collect();
        assert_eq!(small, big);
    }

    #[test]
    fn zipf_frequencies_follow_rank() {
        let p = GeneratorParams {
            start_spread: Duration(0),
            ..GeneratorParams::default()
        };
        // one start per terminal per 10 minutes over an hour, many terminals
        let ev = gen(&p, 3000, 1);
        let mut count = [0f64; 10];
        for e in ev.iter().filter(|e| e.kind == EventKind::Start) {
            count[e.video.index()] += 1.0;
        }
        let total: f64 = count.iter().sum();
        let h: f64 = (1..=10).map(|i| 1.0 / f64::from(i)).sum();
        for (i, c) in count.iter().enumerate() {
            let expected = 1.0 / (i as f64 + 1.0) / h;
            let got = c / total;
            assert!(
                (got - expected).abs() < 0.15 * expected + 0.005,
                "video {i}: {got} vs {expected}"
            );
        }
        assert!(count[0] > 4.0 * count[9]);
    }

    #[test]
    fn uniform_is_flat() {
        let p = GeneratorParams {
            popularity: Popularity::Uniform,
            ..GeneratorParams::default()
        };
        let ev = gen(&p, 3000, 2);
        let mut count = [0f64; 10];
        for e in ev.iter().filter(|e| e.kind == EventKind::Start) {
            count[e.video.index()] += 1.0;
        }
        let max = count.iter().cloned().fold(0.0, f64::max);
        let min = count.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(max / min < 1.2, "{count:?}");
    }

    #[test]
    fn each_viewing_is_consistent() {
        let p = GeneratorParams {
            pauses_per_video: 3.0,
            seeks_per_video: 2.0,
            searches_per_video: 2.0,
            pause_mean: Duration(30_000_000_000),
            search_mean: Duration(20_000_000_000),
            ..GeneratorParams::default()
        };
        let ev = gen(&p, 50, 3);
        let mut kinds = std::collections::HashSet::new();
        for t in 0..50 {
            let mine: Vec<_> = ev.iter().filter(|e| e.terminal.0 == t).collect();
            assert_eq!(mine[0].kind, EventKind::Start);
            let (mut paused, mut searching) = (false, false);
            for e in &mine {
                kinds.insert(e.kind);
                match e.kind {
                    EventKind::Start => {
                        assert!(!paused, "start while paused");
                        // a fast-forward that ran off the end has no resume
                        searching = false;
                    }
                    EventKind::Pause => {
                        assert!(!paused && !searching);
                        paused = true
                    }
                    EventKind::Resume => {
                        assert!(paused ^ searching);
                        paused = false;
                        searching = false
                    }
                    EventKind::Seek => {
                        assert!(!paused && !searching);
                        assert!(e.position < SimDuration::from_secs(600));
                    }
                    EventKind::Stop => {}
                    EventKind::FastForward | EventKind::Rewind => {
                        assert!(!paused && !searching);
                        searching = true
                    }
                }
            }
        }
        for k in [EventKind::FastForward, EventKind::Rewind, EventKind::Seek] {
            assert!(kinds.contains(&k), "{k} never generated");
        }
    }

    #[test]
    fn searches_leave_other_events_unchanged_when_off() {
        // searches_per_video = 0 draws nothing: the pauses/seeks workload stays the same
        let p = GeneratorParams {
            pauses_per_video: 2.0,
            seeks_per_video: 1.0,
            ..GeneratorParams::default()
        };
        let with = GeneratorParams {
            search_speed: 4.0,
            search_mean: Duration(1_000_000_000),
            ..p.clone()
        };
        assert_eq!(gen(&p, 10, 4), gen(&with, 10, 4));
        let bad = GeneratorParams {
            search_speed: 0.5,
            ..p
        };
        assert_eq!(bad.validate().unwrap_err().0, "search_speed");
    }

    #[test]
    fn ranges_are_checked() {
        let p = GeneratorParams {
            z: -1.0,
            ..GeneratorParams::default()
        };
        assert_eq!(p.validate().unwrap_err().0, "z");
        let huge = generate(
            &GeneratorParams::default(),
            1_000_000,
            1,
            SimDuration::from_secs(1),
            SimTime::from_nanos(3_600_000_000_000_000),
            1,
        );
        assert!(huge.unwrap_err().contains("events"));
    }
}
