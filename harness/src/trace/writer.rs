//! Writes traces in the canonical form.

use super::{format_seconds, TraceEvent, TraceHeader};
use std::io::{self, Write};

/// Writes `events` with a header, one at a time as they come (a generator's stream, or
/// `slice.iter().copied()`); the output reads back to exactly the same events.
pub fn write_trace<W: Write>(
    mut w: W,
    header: &TraceHeader,
    events: impl IntoIterator<Item = TraceEvent>,
) -> io::Result<()> {
    writeln!(w, "{}", super::HEADER_LINE)?;
    match (header.terminals, header.videos) {
        (Some(t), Some(v)) => writeln!(w, "# terminals={t} videos={v}")?,
        (Some(t), None) => writeln!(w, "# terminals={t}")?,
        (None, Some(v)) => writeln!(w, "# videos={v}")?,
        (None, None) => {}
    }
    writeln!(w, "# time_s terminal event video position_s")?;
    let mut line = String::with_capacity(64);
    for e in events {
        line.clear();
        line.push_str(&format_seconds(e.time.as_nanos()));
        line.push(' ');
        line.push_str(&e.terminal.0.to_string());
        line.push(' ');
        line.push_str(e.kind.name());
        line.push(' ');
        line.push_str(&e.video.0.to_string());
        line.push(' ');
        line.push_str(&format_seconds(e.position.as_nanos()));
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::super::{EventKind, TraceReader};
    use super::*;
    use crate::ids::{TerminalId, VideoId};
    use crate::time::{SimDuration, SimTime};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips(mut raw in proptest::collection::vec((0u64..u64::MAX / 4, any::<u32>(), 0usize..7, any::<u32>(), 0u64..u64::MAX / 4), 0..50)) {
            raw.sort_by_key(|r| r.0);
            let kinds = [EventKind::Start, EventKind::Pause, EventKind::Resume, EventKind::Seek, EventKind::Stop, EventKind::FastForward, EventKind::Rewind];
            let events: Vec<TraceEvent> = raw.iter().map(|&(t, term, k, v, p)| TraceEvent {
                time: SimTime::from_nanos(t), terminal: TerminalId(term), kind: kinds[k],
                video: VideoId(v), position: SimDuration::from_nanos(p),
            }).collect();
            let header = TraceHeader { terminals: Some(3), videos: None };
            let mut buf = Vec::new();
            write_trace(&mut buf, &header, events.iter().copied()).unwrap();
            let mut r = TraceReader::new(&buf[..], "rt");
            let back: Vec<TraceEvent> = r.by_ref().map(|e| e.unwrap()).collect();
            prop_assert_eq!(back, events);
            prop_assert_eq!(r.header(), header);
        }
    }
}
