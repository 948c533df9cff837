//! The workload of an on-demand run as a stream: its trace file read a line at a time, or its
//! generator run a viewing at a time, never held whole (issue 37, item 4).
//!
//! A run reads the workload twice. The first pass ([`Workload::digest`]) checks every event
//! (a bad line, an event outside the scenario, a trace with no event, a generated workload
//! that needs more videos than there are: all refused before anything is simulated) and
//! keeps only what the run needs to know in advance — which terminals start a video and the
//! latest first start (when warm-up `auto` opens the measured period at the latest), whether
//! any event is a search — and what the manifest records: the count and the fingerprint. The
//! second pass ([`Workload::events`]) drives the engine, which takes each event when its
//! time comes. Memory grows with the terminals (each one's generator, the events waiting
//! behind a busy terminal), not with the length of the workload.

use super::scenario::{Scenario, ScenarioError};
use crate::time::SimTime;
use crate::trace::{self, EventKind, TraceEvent};

/// The events of a workload, one at a time, or the error that ends them.
pub type Events<'a> = Box<dyn Iterator<Item = Result<TraceEvent, ScenarioError>> + 'a>;

/// What a run needs to know of its workload before it starts, and what its manifest records
/// of it: made by one pass over every event ([`Workload::digest`], or [`Digest::of`] for
/// events in hand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// Events in the workload.
    pub events: u64,
    /// [`Fingerprint`] of every event, as lower-case hex.
    pub fingerprint: String,
    /// Terminals with at least one `start`.
    pub starting: u32,
    /// The latest of the terminals' first starts.
    pub last_first_start: SimTime,
    /// Whether any event is an `ff` or a `rewind`.
    pub searches: bool,
}

impl Digest {
    /// The digest of `events` (all of them, in order).
    pub fn of<'e>(events: impl IntoIterator<Item = &'e TraceEvent>) -> Digest {
        let mut d = Digester::default();
        for e in events {
            d.add(e);
        }
        d.finish()
    }
}

/// A digest being made, event by event.
#[derive(Default)]
struct Digester {
    events: u64,
    fingerprint: Fingerprint,
    started: Vec<bool>,
    starting: u32,
    last_first_start: SimTime,
    searches: bool,
}

impl Digester {
    fn add(&mut self, e: &TraceEvent) {
        self.events += 1;
        self.fingerprint.add(e);
        match e.kind {
            EventKind::Start => {
                let t = e.terminal.index();
                if t >= self.started.len() {
                    self.started.resize(t + 1, false);
                }
                if !self.started[t] {
                    self.started[t] = true;
                    self.starting += 1;
                    self.last_first_start = self.last_first_start.max(e.time);
                }
            }
            EventKind::FastForward | EventKind::Rewind => self.searches = true,
            _ => {}
        }
    }

    fn finish(self) -> Digest {
        Digest {
            events: self.events,
            fingerprint: self.fingerprint.hex(),
            starting: self.starting,
            last_first_start: self.last_first_start,
            searches: self.searches,
        }
    }
}

/// A stable 64-bit fingerprint of a sequence of workload events: FNV-1a over each event's
/// time, terminal, kind, video and position (nanoseconds and numbers, little-endian).
#[derive(Clone, Copy, Debug)]
pub struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }
}

impl Fingerprint {
    /// Adds one event.
    pub fn add(&mut self, e: &TraceEvent) {
        for x in [
            e.time.as_nanos(),
            u64::from(e.terminal.0),
            e.kind as u64,
            u64::from(e.video.0),
            e.position.as_nanos(),
        ] {
            for b in x.to_le_bytes() {
                self.0 ^= u64::from(b);
                self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
            }
        }
    }

    /// The fingerprint so far, as 16 lower-case hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// A scenario's workload: its trace file or its generator, over `horizon` (how far a
/// generated workload must reach: [`Scenario::horizon`]).
#[derive(Clone, Copy)]
pub struct Workload<'s> {
    scenario: &'s Scenario,
    horizon: SimTime,
}

impl<'s> Workload<'s> {
    /// The workload of `s`, over [`Scenario::horizon`].
    pub fn of(s: &'s Scenario) -> Self {
        Workload {
            scenario: s,
            horizon: s.horizon(),
        }
    }

    /// The workload of `s` over `horizon`.
    pub fn over(s: &'s Scenario, horizon: SimTime) -> Self {
        Workload {
            scenario: s,
            horizon,
        }
    }

    /// A fresh pass over the events, from the first. An error ends the stream: an item
    /// `Err` is the last.
    pub fn events(&self) -> Result<Events<'s>, ScenarioError> {
        let f = &self.scenario.file;
        if let Some(tp) = &f.workload.trace {
            let path = self.scenario.resolve_path(tp);
            let reader = trace::open_within(&path, self.scenario.terminals(), f.videos.count)
                .map_err(trace_error)?;
            return Ok(Box::new(reader.map(|r| r.map_err(trace_error))));
        }
        let g = f
            .workload
            .generate
            .as_ref()
            .expect("validated: trace or generate");
        let events = trace::generate_stream(
            g,
            self.scenario.terminals(),
            f.videos.count,
            f.videos.length.sim(),
            self.horizon,
            f.seed,
        )
        .map_err(|message| generate_error(self.scenario, message))?;
        Ok(Box::new(events.map(Ok)))
    }

    /// One pass over every event: checks them all and returns the [`Digest`]. A trace with
    /// no event, or with no `start`, is refused (a run would report "0 glitches" for a
    /// workload that never asked for a byte), as is a generated workload that needs more videos of their own than the
    /// scenario has.
    pub fn digest(&self) -> Result<Digest, ScenarioError> {
        let f = &self.scenario.file;
        let mut d = Digester {
            started: vec![false; self.scenario.terminals() as usize],
            ..Digester::default()
        };
        if let Some(tp) = &f.workload.trace {
            for e in self.events()? {
                d.add(&e?);
            }
            if d.events == 0 {
                return Err(ScenarioError::Trace {
                    message: format!(
                        "{}: holds no events, so a run would measure nothing; give a trace \
                         with at least one event",
                        self.scenario.resolve_path(tp).display()
                    ),
                });
            }
            if d.starting == 0 {
                return Err(ScenarioError::Trace {
                    message: format!(
                        "{}: holds {} events but no `start`, so no viewer ever plays a video \
                         and a run would measure nothing; give each viewer a `start`",
                        self.scenario.resolve_path(tp).display(),
                        d.events
                    ),
                });
            }
            return Ok(d.finish());
        }
        let g = f.workload.generate.as_ref().expect("validated");
        let mut events = trace::generate_stream(
            g,
            self.scenario.terminals(),
            f.videos.count,
            f.videos.length.sim(),
            self.horizon,
            f.seed,
        )
        .map_err(|message| generate_error(self.scenario, message))?;
        for e in events.by_ref() {
            d.add(&e);
        }
        events
            .check_videos()
            .map_err(|message| generate_error(self.scenario, message))?;
        Ok(d.finish())
    }

    /// Every event, held in memory: for tools and tests that want them all (a run never
    /// does). Checked as [`Workload::digest`] checks them.
    pub fn collect(&self) -> Result<Vec<TraceEvent>, ScenarioError> {
        self.digest()?;
        self.events()?.collect()
    }
}

/// The generator's refusal of `[workload.generate]` as an error naming the scenario file, the
/// key (the message's `workload.generate.…:` prefix when it has one, else the table) and its
/// line.
fn generate_error(s: &Scenario, message: String) -> ScenarioError {
    let (key, message) = match message.split_once(": ") {
        Some((k, m)) if k.starts_with("workload.generate") && !k.contains(' ') => {
            (k.to_string(), m.to_string())
        }
        _ => ("workload.generate".to_string(), message),
    };
    ScenarioError::Invalid {
        file: s.path.clone(),
        line: s
            .source
            .line_of_key(&key)
            .or_else(|| s.source.line_of_key("workload.generate")),
        key,
        message,
    }
}

fn trace_error(e: trace::TraceError) -> ScenarioError {
    ScenarioError::Trace {
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{TerminalId, VideoId};
    use crate::time::SimDuration;

    fn ev(t: u64, term: u32, kind: EventKind) -> TraceEvent {
        TraceEvent {
            time: SimTime::from_nanos(t),
            terminal: TerminalId(term),
            kind,
            video: VideoId(1),
            position: SimDuration::ZERO,
        }
    }

    #[test]
    fn digest_counts_starting_terminals_their_latest_first_start_and_searches() {
        let events = [
            ev(5, 2, EventKind::Start),
            ev(7, 0, EventKind::Pause),
            ev(9, 0, EventKind::Start),
            ev(20, 2, EventKind::Start),
            ev(30, 1, EventKind::Stop),
        ];
        let d = Digest::of(&events);
        assert_eq!(d.events, 5);
        assert_eq!(
            (d.starting, d.last_first_start),
            (2, SimTime::from_nanos(9))
        );
        assert!(!d.searches);
        let mut with_ff = events.to_vec();
        with_ff.push(ev(40, 1, EventKind::FastForward));
        let d2 = Digest::of(&with_ff);
        assert!(d2.searches);
        assert_ne!(d.fingerprint, d2.fingerprint);
        // the fingerprint of a prefix is the fingerprint made so far
        let mut f = Fingerprint::default();
        for e in &events {
            f.add(e);
        }
        assert_eq!(f.hex(), d.fingerprint);
        assert_eq!(Digest::of(&[]).fingerprint, "cbf29ce484222325");
    }
}
