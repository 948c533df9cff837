//! Streaming trace reader with line-numbered errors.

use super::{parse_seconds, EventKind, TraceError, TraceEvent, TraceHeader};
use crate::ids::{TerminalId, VideoId};
use crate::time::{SimDuration, SimTime};
use std::io::BufRead;
use std::path::Path;

/// Reads a trace one event at a time in constant memory.
pub struct TraceReader<R> {
    input: R,
    name: String,
    line: u64,
    buf: String,
    last: SimTime,
    header: TraceHeader,
    done: bool,
    /// Events must name terminals below `.0` and videos below `.1` ([`TraceReader::within`]).
    limits: (u32, u32),
}

impl<R: BufRead> TraceReader<R> {
    /// A reader over `input`; `name` is used in error messages (usually the file path).
    pub fn new(input: R, name: impl Into<String>) -> Self {
        TraceReader {
            input,
            name: name.into(),
            line: 0,
            buf: String::new(),
            last: SimTime::ZERO,
            header: TraceHeader::default(),
            done: false,
            limits: (u32::MAX, u32::MAX),
        }
    }

    /// This reader, with an event naming a terminal `>= terminals` or a video `>= videos`
    /// (a scenario's counts) an error at its line.
    pub fn within(mut self, terminals: u32, videos: u32) -> Self {
        self.limits = (terminals, videos);
        self
    }

    /// The header counts seen so far (complete once the first event has been read).
    pub fn header(&self) -> TraceHeader {
        self.header
    }

    fn err(&self, message: String) -> TraceError {
        TraceError::Line {
            file: self.name.clone(),
            line: self.line,
            message,
        }
    }

    fn header_comment(&mut self, text: &str) {
        for word in text.split_whitespace() {
            if let Some(v) = word.strip_prefix("terminals=") {
                self.header.terminals = v.parse().ok();
            } else if let Some(v) = word.strip_prefix("videos=") {
                self.header.videos = v.parse().ok();
            }
        }
    }

    fn parse(&mut self) -> Result<TraceEvent, TraceError> {
        let mut fields = self.buf.split_whitespace();
        let mut f: [&str; 5] = [""; 5];
        let mut n = 0;
        for (i, x) in fields.by_ref().enumerate() {
            if i < 5 {
                f[i] = x;
            }
            n = i + 1;
        }
        if n != 5 {
            return Err(self.err(format!(
                "expected 5 fields (time terminal event video position), found {n}"
            )));
        }
        let time = parse_seconds(f[0]).ok_or_else(|| {
            self.err(format!(
                "field 1 (time): expected seconds like 12 or 0.5 (at most 9 decimals), found {:?}",
                f[0]
            ))
        })?;
        let terminal: u32 = f[1].parse().map_err(|_| {
            self.err(format!(
                "field 2 (terminal): expected an integer 0..={}, found {:?}",
                u32::MAX,
                f[1]
            ))
        })?;
        let kind: EventKind = f[2].parse().map_err(|_| {
            self.err(format!(
                "field 3 (event): expected start|pause|resume|seek|stop|ff|rewind, found {:?}",
                f[2]
            ))
        })?;
        let video: u32 = f[3].parse().map_err(|_| {
            self.err(format!(
                "field 4 (video): expected an integer 0..={}, found {:?}",
                u32::MAX,
                f[3]
            ))
        })?;
        let position = parse_seconds(f[4]).ok_or_else(|| {
            self.err(format!(
                "field 5 (position): expected seconds like 0 or 1800.5, found {:?}",
                f[4]
            ))
        })?;
        let time = SimTime::from_nanos(time);
        if time < self.last {
            return Err(self.err(format!(
                "time {} is earlier than the previous event's {}; times must not decrease",
                super::format_seconds(time.as_nanos()),
                super::format_seconds(self.last.as_nanos())
            )));
        }
        self.last = time;
        let (terminals, videos) = self.limits;
        if terminal >= terminals || video >= videos {
            return Err(self.err(format!(
                "event at {} for terminal {terminal} video {video} is outside the scenario \
                 (terminals.count = {terminals}, videos.count = {videos})",
                time
            )));
        }
        Ok(TraceEvent {
            time,
            terminal: TerminalId(terminal),
            kind,
            video: VideoId(video),
            position: SimDuration::from_nanos(position),
        })
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceEvent, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        loop {
            self.buf.clear();
            self.line += 1;
            match self.input.read_line(&mut self.buf) {
                Ok(0) => {
                    self.done = true;
                    return None;
                }
                Ok(_) => {}
                Err(e) => {
                    self.done = true;
                    let message = if e.kind() == std::io::ErrorKind::InvalidData {
                        "not valid UTF-8 text".to_string()
                    } else {
                        e.to_string()
                    };
                    return Some(Err(self.err(message)));
                }
            }
            let t = self.buf.trim();
            if t.is_empty() {
                continue;
            }
            if let Some(c) = t.strip_prefix('#') {
                let c = c.to_string();
                self.header_comment(&c);
                continue;
            }
            let r = self.parse();
            if r.is_err() {
                self.done = true;
            }
            return Some(r);
        }
    }
}

/// Reads a whole trace file.
pub fn read_file(path: &Path) -> Result<(TraceHeader, Vec<TraceEvent>), TraceError> {
    read_file_within(path, u32::MAX, u32::MAX)
}

/// Reads a whole trace file whose events must name terminals below `terminals` and videos
/// below `videos` (a scenario's counts): an event outside them is an error at its line.
pub fn read_file_within(
    path: &Path,
    terminals: u32,
    videos: u32,
) -> Result<(TraceHeader, Vec<TraceEvent>), TraceError> {
    let mut reader = open_within(path, terminals, videos)?;
    let events = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((reader.header(), events))
}

/// Opens a trace file to read one event at a time, with events outside `terminals` and
/// `videos` errors at their line ([`TraceReader::within`]). Only a regular file is opened, and
/// read up to its size ([`crate::input::open_regular`]): a folder, a device, a FIFO or a
/// kernel file is not a trace (and opening a FIFO or reading `/proc/kmsg` would block).
#[allow(clippy::type_complexity)]
pub fn open_within(
    path: &Path,
    terminals: u32,
    videos: u32,
) -> Result<TraceReader<std::io::BufReader<std::io::Take<std::fs::File>>>, TraceError> {
    let name = path.display().to_string();
    let (_, file) = crate::input::open_regular(path, u64::MAX).map_err(|m| TraceError::Io {
        file: name.clone(),
        message: format!("cannot read trace: {m}"),
    })?;
    Ok(
        TraceReader::new(std::io::BufReader::with_capacity(1 << 16, file), name)
            .within(terminals, videos),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(s: &str) -> Result<Vec<TraceEvent>, TraceError> {
        TraceReader::new(s.as_bytes(), "t.trace").collect()
    }

    #[test]
    fn reads_events_and_header() {
        let text =
            "# vodbench-trace v1\n# terminals=2 videos=9\n\n0.5 0 start 3 0\n1 1 seek 3 12.25\n";
        let mut r = TraceReader::new(text.as_bytes(), "t");
        let ev: Vec<_> = r.by_ref().map(|e| e.unwrap()).collect();
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[1].kind, EventKind::Seek);
        assert_eq!(ev[1].position, SimDuration::from_millis(12_250));
        assert_eq!(
            r.header(),
            TraceHeader {
                terminals: Some(2),
                videos: Some(9)
            }
        );
    }

    #[test]
    fn errors_name_line_field_and_allowed_values() {
        let e = read("0 0 start 1 0\n\n1 0 jump 1 0\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.trace:3: field 3 (event): expected start|pause|resume|seek|stop|ff|rewind, found \"jump\""
        );
        let e = read("0 0 start 1\n").unwrap_err().to_string();
        assert!(e.starts_with("t.trace:1: expected 5 fields"), "{e}");
        let e = read("5 0 start 1 0\n4 0 stop 1 0\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.trace:2: time 4 is earlier"), "{e}");
        let e = read("0 -1 start 1 0\n").unwrap_err().to_string();
        assert!(e.contains("field 2 (terminal)"), "{e}");
    }

    #[test]
    fn search_events_read_and_malformed_ones_are_errors() {
        let ev = read("0 0 start 1 0\n5 0 ff 1 0\n9 0 resume 1 0\n12 0 rewind 1 0\n").unwrap();
        assert_eq!(ev[1].kind, EventKind::FastForward);
        assert_eq!(ev[3].kind, EventKind::Rewind);
        let e = read("0 0 start 1 0\n5 0 fastforward 1 0\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.trace:2: field 3 (event): expected start|pause|resume|seek|stop|ff|rewind, found \"fastforward\""
        );
        let e = read("5 0 FF 1 0\n").unwrap_err().to_string();
        assert!(e.contains("found \"FF\""), "{e}");
        let e = read("5 0 rewind 1\n").unwrap_err().to_string();
        assert!(e.starts_with("t.trace:1: expected 5 fields"), "{e}");
        let e = read("5 0 ff 1 -3\n").unwrap_err().to_string();
        assert!(e.contains("field 5 (position)"), "{e}");
        let e = read("5 0 rewind x 0\n").unwrap_err().to_string();
        assert!(e.contains("field 4 (video)"), "{e}");
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_input(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let r = TraceReader::new(&bytes[..], "fuzz");
            for e in r { let _ = e; }
        }

        #[test]
        fn never_panics_on_arbitrary_text(s in "[0-9a-z .#\\-\n]{0,200}") {
            let _ = read(&s);
        }
    }
}
