//! A vodbench workload trace as a request trace: the block reads its viewers make, in time
//! order, without a server's timing ([`BlockReads`]), and their count from the events alone.

use super::{open_maybe_zstd, Request, RequestTraceError};
use crate::trace::{EventKind, TraceReader};
use std::collections::BinaryHeap;
use std::io::BufRead;
use std::path::Path;

/// How a vodbench workload trace becomes block reads ([`BlockReads`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockModel {
    /// Stripe block size in bytes (each read, and each object's size).
    pub block_bytes: u64,
    /// Display bit rate of every video (bits per second).
    pub bit_rate: u64,
    /// Length of every video in blocks.
    pub video_blocks: u64,
}

/// How many block reads [`BlockReads`] makes of the workload trace `events`, counted from
/// the events alone (each stretch a terminal plays, in blocks), without making them: a
/// pass over the trace's events, whatever the block size.
pub fn count_block_reads<R: BufRead>(
    events: TraceReader<R>,
    model: &BlockModel,
) -> Result<u128, RequestTraceError> {
    let period = u128::from(BlockReads::<R>::period(model));
    let block_of = |pos_ns: u64| {
        let bytes = u128::from(pos_ns) * u128::from(model.bit_rate) / 8 / 1_000_000_000;
        (bytes / u128::from(model.block_bytes.max(1))).min(u128::from(u64::MAX)) as u64
    };
    let blocks = model.video_blocks;
    // per terminal: (next block, playing, since): as [`BlockReads`] keeps them, a terminal
    // stops playing when it reads its video's last block
    let mut terminals: rustc_hash::FxHashMap<u32, (u64, bool, u64)> =
        rustc_hash::FxHashMap::default();
    let mut total: u128 = 0;
    for e in events {
        let e = e.map_err(trace_error)?;
        let now = e.time.as_nanos();
        let state = terminals
            .entry(e.terminal.0)
            .or_insert((u64::MAX, false, 0));
        if state.1 && state.0 < blocks {
            let reads = u128::from(now.saturating_sub(state.2)).div_ceil(period);
            let read = reads.min(u128::from(blocks - state.0));
            total += read;
            state.0 += read as u64;
            if state.0 >= blocks {
                state.1 = false;
            }
        }
        state.1 = match e.kind {
            EventKind::Start => {
                state.0 = block_of(e.position.as_nanos());
                true
            }
            EventKind::Seek if state.0 != u64::MAX => {
                state.0 = block_of(e.position.as_nanos());
                state.1
            }
            EventKind::Seek => false,
            EventKind::Resume => true,
            EventKind::Pause | EventKind::FastForward | EventKind::Rewind => false,
            EventKind::Stop => {
                state.0 = u64::MAX;
                false
            }
        };
        state.2 = now;
    }
    for (block, playing, _) in terminals.values() {
        if *playing && *block < blocks {
            total += u128::from(blocks - block);
        }
    }
    Ok(total)
}

/// [`count_block_reads`] of the workload trace file `path`, opened as
/// [`RequestReader::open`] opens it (plain or zstd-compressed).
pub fn count_block_reads_in(path: &Path, model: &BlockModel) -> Result<u128, RequestTraceError> {
    let file = path.display().to_string();
    let input = open_maybe_zstd(path, &file)?;
    count_block_reads(TraceReader::new(input, &file), model)
}

/// The block reads of a vodbench workload trace, in time order: what a server's buffer
/// pools would be asked for, without the server's timing. A terminal that starts a video
/// at a position reads that position's block, then the next one every block's display time
/// (`block_bytes × 8 / bit_rate`) until its video ends or its next event; `pause` holds
/// it, `resume` continues, `seek` jumps, `stop` ends the video, and a visual search (`ff`,
/// `rewind`) reads nothing until the terminal's next event. A `start` while a video plays
/// replaces it (no closed loop: the requests are the trace's, not a simulated server's). The
/// object of block `b` of video `v` is `v × 2³² + b`; ties in time go to the lower terminal.
/// Memory grows with the number of terminals only.
pub struct BlockReads<R> {
    events: TraceReader<R>,
    model: BlockModel,
    /// The next trace event, read ahead.
    pending: Option<crate::trace::TraceEvent>,
    /// Playing terminals: (Reverse(next read time), terminal) → their state.
    due: BinaryHeap<std::cmp::Reverse<(u64, u32, u64)>>,
    /// Per terminal: (video, next block, generation); the generation invalidates a stale
    /// entry of `due` after the terminal's state changed.
    terminals: rustc_hash::FxHashMap<u32, (u32, u64, u64, bool)>,
    started: bool,
}

impl<R: BufRead> BlockReads<R> {
    /// Block reads of the workload trace `events`.
    pub fn new(events: TraceReader<R>, model: BlockModel) -> Self {
        BlockReads {
            events,
            model,
            pending: None,
            due: BinaryHeap::new(),
            terminals: rustc_hash::FxHashMap::default(),
            started: false,
        }
    }

    fn period_ns(&self) -> u64 {
        Self::period(&self.model)
    }

    /// A block's display time in nanoseconds (at least 1).
    fn period(model: &BlockModel) -> u64 {
        let bits = u128::from(model.block_bytes) * 8 * 1_000_000_000;
        (bits / u128::from(model.bit_rate.max(1))).clamp(1, u128::from(u64::MAX)) as u64
    }

    fn read_event(&mut self) -> Result<(), RequestTraceError> {
        self.pending = match self.events.next() {
            None => None,
            Some(Ok(e)) => Some(e),
            Some(Err(e)) => return Err(trace_error(e)),
        };
        Ok(())
    }

    fn apply(&mut self, e: crate::trace::TraceEvent) {
        let now = e.time.as_nanos();
        let block_of = |pos_ns: u64, m: &BlockModel| {
            let bytes = u128::from(pos_ns) * u128::from(m.bit_rate) / 8 / 1_000_000_000;
            (bytes / u128::from(m.block_bytes.max(1))).min(u128::from(u64::MAX)) as u64
        };
        // a terminal not seen before has no video: block u64::MAX (a resume or seek plays
        // nothing)
        let state = self
            .terminals
            .entry(e.terminal.0)
            .or_insert((0, u64::MAX, 0, false));
        state.2 += 1; // every event invalidates the terminal's scheduled read
        let play = match e.kind {
            EventKind::Start => {
                state.0 = e.video.0;
                state.1 = block_of(e.position.as_nanos(), &self.model);
                true
            }
            EventKind::Seek if state.1 != u64::MAX => {
                state.1 = block_of(e.position.as_nanos(), &self.model);
                state.3
            }
            EventKind::Seek => false,
            EventKind::Resume => true,
            EventKind::Pause | EventKind::FastForward | EventKind::Rewind => false,
            EventKind::Stop => {
                state.1 = u64::MAX;
                false
            }
        };
        state.3 = play;
        if play && state.1 < self.model.video_blocks {
            self.due
                .push(std::cmp::Reverse((now, e.terminal.0, state.2)));
        }
    }

    /// The next block read, `None` when every video has ended and the trace is done.
    pub fn next_request(&mut self) -> Result<Option<Request>, RequestTraceError> {
        if !self.started {
            self.started = true;
            self.read_event()?;
        }
        loop {
            let next_read = self.due.peek().map(|r| r.0 .0);
            // events at or before the next read change the terminals first
            match (&self.pending, next_read) {
                (Some(e), r) if r.is_none_or(|r| e.time.as_nanos() <= r) => {
                    let e = *e;
                    self.read_event()?;
                    self.apply(e);
                    continue;
                }
                (_, None) => return Ok(None),
                _ => {}
            }
            let Some(std::cmp::Reverse((time, t, generation))) = self.due.pop() else {
                return Ok(None);
            };
            let period = self.period_ns();
            let video_blocks = self.model.video_blocks;
            let Some(state) = self.terminals.get_mut(&t) else {
                continue;
            };
            if state.2 != generation || !state.3 || state.1 >= video_blocks {
                continue;
            }
            let (video, block) = (state.0, state.1);
            state.1 += 1;
            if state.1 < video_blocks {
                self.due.push(std::cmp::Reverse((
                    time.saturating_add(period),
                    t,
                    generation,
                )));
            } else {
                state.3 = false;
            }
            return Ok(Some(Request {
                time,
                object: u64::from(video) << 32 | block,
                bytes: self.model.block_bytes,
                next_access: None,
            }));
        }
    }
}

fn trace_error(e: crate::trace::TraceError) -> RequestTraceError {
    match e {
        crate::trace::TraceError::Line {
            file,
            line,
            message,
        } => RequestTraceError::Line {
            file,
            line,
            message,
        },
        crate::trace::TraceError::Io { file, message } => RequestTraceError::Io { file, message },
    }
}
