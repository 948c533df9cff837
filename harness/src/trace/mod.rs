//! Workload traces: what viewers do, one event per line (see `traces/README.md`).
//!
//! Format v1 — plain UTF-8 text, one event per line, five whitespace-separated fields:
//!
//! ```text
//! # vodbench-trace v1
//! # terminals=2 videos=64
//! # time_s terminal event video position_s
//! 0.5 0 start 12 0
//! 1.25 1 start 3 0
//! 630 0 pause 12 0
//! 750 0 resume 12 0
//! 900 1 seek 3 1800
//! 1000 1 stop 3 0
//! ```
//!
//! `time` is seconds since the start of the run and `position` seconds into the video, both
//! exact decimals with up to nine fractional digits (read as integer nanoseconds, never as
//! floating point). Times never decrease. `event` is `start`, `pause`, `resume`, `seek`,
//! `stop`, `ff` or `rewind`; `position` is the start position for `start`, the target for
//! `seek`, and ignored (write 0) otherwise. Blank lines and `#` lines are comments; a `# terminals=N videos=M`
//! comment records the generator's counts.
//!
//! Semantics (implemented by the engine): a `start` for a terminal that is still playing waits
//! until its video ends — the closed loop of SPIFFI §6, where a terminal that finishes a movie
//! immediately starts another — and the terminal's later events keep their spacing behind it.
//! `pause`/`resume` suspend and continue display (the terminal keeps filling its buffer);
//! `seek` drops the buffer and re-primes at the new position; `stop` ends the video.
//! `ff`/`rewind` start a visual search (SPIFFI §8.1) from the current position, by skipping
//! or by switching to a search version (`[interactive]` of the scenario); the search lasts
//! until the terminal's next event, and `resume` re-primes normal play where it got to.

mod generator;
mod reader;
pub mod requests;
mod writer;

pub use generator::{generate, generate_stream, GeneratedEvents, GeneratorParams, Popularity};
pub use reader::{open_within, read_file, read_file_within, TraceReader};

/// The first line of every trace vodbench writes: its format and version.
pub const HEADER_LINE: &str = "# vodbench-trace v1";
pub use writer::write_trace;

use crate::ids::{TerminalId, VideoId};
use crate::time::{SimDuration, SimTime};
use std::fmt;
use std::str::FromStr;

/// What a viewer does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// Begin playing a video at a position.
    Start,
    /// Suspend display.
    Pause,
    /// Continue display.
    Resume,
    /// Jump to a position (drops the buffer and re-primes).
    Seek,
    /// End the current video.
    Stop,
    /// Start a fast-forward visual search from the current position (SPIFFI §8.1); it runs
    /// until the terminal's next event (usually `resume`).
    FastForward,
    /// Start a rewind visual search from the current position (SPIFFI §8.1); it runs until
    /// the terminal's next event (usually `resume`).
    Rewind,
}

impl EventKind {
    /// The lowercase name used in trace files.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Start => "start",
            EventKind::Pause => "pause",
            EventKind::Resume => "resume",
            EventKind::Seek => "seek",
            EventKind::Stop => "stop",
            EventKind::FastForward => "ff",
            EventKind::Rewind => "rewind",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EventKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s {
            "start" => EventKind::Start,
            "pause" => EventKind::Pause,
            "resume" => EventKind::Resume,
            "seek" => EventKind::Seek,
            "stop" => EventKind::Stop,
            "ff" => EventKind::FastForward,
            "rewind" => EventKind::Rewind,
            _ => return Err(()),
        })
    }
}

/// One line of a trace.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// When (since the start of the run).
    pub time: SimTime,
    /// Which terminal.
    pub terminal: TerminalId,
    /// What it does.
    pub kind: EventKind,
    /// Which video.
    pub video: VideoId,
    /// Position in the video (start and seek).
    pub position: SimDuration,
}

/// Counts recorded in a trace's header comment, when present.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceHeader {
    /// `terminals=N`.
    pub terminals: Option<u32>,
    /// `videos=M`.
    pub videos: Option<u32>,
}

/// A trace that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// A line is malformed.
    #[error("{file}:{line}: {message}")]
    Line {
        /// The file (as given).
        file: String,
        /// 1-based line number.
        line: u64,
        /// What was found and what is allowed.
        message: String,
    },
    /// The file could not be read.
    #[error("{file}: {message}")]
    Io {
        /// The file.
        file: String,
        /// The OS error.
        message: String,
    },
}

/// Parses an exact decimal number of seconds (`12`, `0.5`, `630.000000125`) into nanoseconds.
pub fn parse_seconds(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 40 {
        return None;
    }
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() || frac.len() > 9 || (s.contains('.') && frac.is_empty()) {
        return None;
    }
    crate::units::parse_scaled(s, 1_000_000_000)
}

/// Formats nanoseconds as exact decimal seconds, trailing zeros trimmed (`12.5`, `0`).
pub fn format_seconds(ns: u64) -> String {
    let s = ns / 1_000_000_000;
    let frac = ns % 1_000_000_000;
    if frac == 0 {
        s.to_string()
    } else {
        format!("{s}.{}", format!("{frac:09}").trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact() {
        assert_eq!(parse_seconds("630.000000125"), Some(630_000_000_125));
        assert_eq!(parse_seconds("0.5"), Some(500_000_000));
        assert_eq!(parse_seconds("12"), Some(12_000_000_000));
        assert_eq!(parse_seconds("1.0000000001"), None, "more than 9 digits");
        assert_eq!(parse_seconds("-1"), None);
        assert_eq!(parse_seconds("1e3"), None);
        assert_eq!(parse_seconds(".5"), None);
        assert_eq!(parse_seconds("5."), None);
        assert_eq!(format_seconds(630_000_000_125), "630.000000125");
        assert_eq!(format_seconds(500_000_000), "0.5");
        assert_eq!(format_seconds(0), "0");
    }
}
