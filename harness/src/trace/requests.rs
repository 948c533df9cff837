//! Request traces for cache replay (`vodbench cache replay`): a stream of (object, size)
//! requests, read one at a time in constant memory, from three formats.
//!
//! - **`oracleGeneral`**, libCacheSim's binary format: 24-byte little-endian records of a
//!   u32 clock time, a u64 object id, a u32 object size in bytes and an i64 next-access
//!   virtual time (the position in the trace of the object's next request; −1 for never).
//!   Records of size 0 are skipped, as libCacheSim does. The file may be zstd-compressed
//!   (recognised by its magic number, whatever its name): it is decompressed as it is read.
//! - **CSV**, libCacheSim's convention: 1-based column numbers of the time, the object id and
//!   the size (no size column: every object is one byte), a delimiter, an optional header
//!   line, and ids that are numbers or any text (then hashed to 64 bits with XXH3).
//! - **vodbench workload traces** ([`crate::trace`]): each block a viewer reads is a request
//!   (see [`BlockReads`]).
//!
//! Errors name the file, the record or line, and what is wrong; nothing here panics on input.

use super::{EventKind, TraceReader};
use std::collections::BinaryHeap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

/// One request of a cache trace.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Clock time as the trace records it (seconds in libCacheSim traces; nanoseconds in
    /// vodbench's).
    pub time: u64,
    /// Object id.
    pub object: u64,
    /// Object size in bytes (at least 1: size-0 records are skipped).
    pub bytes: u64,
    /// The object's next request, as a number growing with trace order; `None` for never or
    /// when the format does not record it.
    pub next_access: Option<u64>,
}

/// A request trace that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestTraceError {
    /// The file could not be opened or read.
    #[error("{file}: {message}")]
    Io {
        /// The file.
        file: String,
        /// What failed.
        message: String,
    },
    /// A binary record is malformed.
    #[error("{file}: record {record}: {message}")]
    Record {
        /// The file.
        file: String,
        /// 1-based record number (size-0 records counted).
        record: u64,
        /// What is wrong.
        message: String,
    },
    /// A text line is malformed.
    #[error("{file}:{line}: {message}")]
    Line {
        /// The file.
        file: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The trace holds no request.
    #[error("{file}: holds no requests{detail}")]
    Empty {
        /// The file.
        file: String,
        /// Why, when known (every record of size 0).
        detail: String,
    },
}

/// How CSV request traces are laid out (libCacheSim's `csv` reader options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvLayout {
    /// 1-based column of the time (`None`: no time column).
    pub time_col: Option<usize>,
    /// 1-based column of the object id.
    pub id_col: usize,
    /// 1-based column of the size (`None`: every object one byte).
    pub size_col: Option<usize>,
    /// The field delimiter.
    pub delimiter: u8,
    /// Whether the first line is a header.
    pub header: bool,
    /// Whether ids are text to hash (else unsigned integers).
    pub hashed_ids: bool,
}

impl Default for CsvLayout {
    fn default() -> Self {
        CsvLayout {
            time_col: Some(1),
            id_col: 2,
            size_col: Some(3),
            delimiter: b',',
            header: false,
            hashed_ids: false,
        }
    }
}

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

/// A request trace's format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestFormat {
    /// libCacheSim's `oracleGeneral` (possibly zstd-compressed).
    OracleGeneral,
    /// CSV laid out as given.
    Csv(CsvLayout),
    /// A vodbench workload trace, its block reads the requests.
    Vodbench(BlockModel),
}

impl RequestFormat {
    /// Whether the format records each request's next access.
    pub fn has_next_access(&self) -> bool {
        matches!(self, RequestFormat::OracleGeneral)
    }
}

/// The size of an `oracleGeneral` record.
pub const ORACLE_RECORD: usize = 24;

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Opens `path`, decompressing it as it is read when it is zstd-compressed.
fn open_maybe_zstd(path: &Path, file: &str) -> Result<Box<dyn BufRead + Send>, RequestTraceError> {
    let io = |e: std::io::Error| RequestTraceError::Io {
        file: file.to_string(),
        message: e.to_string(),
    };
    let (_, f) =
        crate::input::open_regular(path, u64::MAX).map_err(|message| RequestTraceError::Io {
            file: file.to_string(),
            message,
        })?;
    let mut input = BufReader::with_capacity(1 << 16, f);
    let compressed = input.fill_buf().map_err(io)?.starts_with(&ZSTD_MAGIC);
    if compressed {
        let d = zstd::stream::read::Decoder::with_buffer(input).map_err(io)?;
        Ok(Box::new(BufReader::with_capacity(1 << 16, ZstdStream(d))))
    } else {
        Ok(Box::new(input))
    }
}

/// A zstd stream whose decoding errors say what they mean: the file starts with zstd's magic
/// number but is not a valid zstd-compressed trace (zstd itself says "Dictionary mismatch"
/// or "Unknown frame descriptor" of garbage after the magic number).
struct ZstdStream<R: Read>(R);

impl<R: Read> Read for ZstdStream<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::Interrupted {
                e
            } else {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "not a valid zstd-compressed trace: it starts with zstd's magic number \
                         (28 b5 2f fd), but decompressing it failed ({e}); a trace cut short \
                         or not compressed with zstd"
                    ),
                )
            }
        })
    }
}

/// Reads a request trace one request at a time.
pub struct RequestReader {
    inner: Inner,
    file: String,
    /// Records or lines read so far.
    position: u64,
    /// Requests given so far.
    given: u64,
    /// Size-0 records skipped.
    skipped: u64,
}

enum Inner {
    Oracle(Chunks),
    Csv {
        input: Box<dyn BufRead + Send>,
        layout: CsvLayout,
        line: String,
    },
    Blocks(Box<BlockReads<Box<dyn BufRead + Send>>>),
}

impl RequestReader {
    /// Opens `path` as a trace of `format`; `path` is named in every error.
    pub fn open(path: &Path, format: &RequestFormat) -> Result<RequestReader, RequestTraceError> {
        let file = path.display().to_string();
        let input = open_maybe_zstd(path, &file)?;
        Ok(Self::new(input, &file, format))
    }

    /// A reader over `input`, named `file` in errors.
    pub fn new(
        input: Box<dyn BufRead + Send>,
        file: &str,
        format: &RequestFormat,
    ) -> RequestReader {
        let inner = match format {
            RequestFormat::OracleGeneral => Inner::Oracle(Chunks {
                input,
                buf: vec![0; ORACLE_RECORD * 4096],
                pos: 0,
                len: 0,
            }),
            RequestFormat::Csv(layout) => Inner::Csv {
                input,
                layout: layout.clone(),
                line: String::new(),
            },
            RequestFormat::Vodbench(model) => Inner::Blocks(Box::new(BlockReads::new(
                TraceReader::new(input, file),
                model.clone(),
            ))),
        };
        RequestReader {
            inner,
            file: file.to_string(),
            position: 0,
            given: 0,
            skipped: 0,
        }
    }

    /// The object id of the `k`-th record after the next one, when the reader already
    /// holds it (`oracleGeneral` only; size-0 records are counted): a hint for prefetching,
    /// never needed for correctness.
    #[inline]
    pub fn upcoming(&self, k: usize) -> Option<u64> {
        match &self.inner {
            Inner::Oracle(c) => {
                let at = c.pos + k * ORACLE_RECORD + 4;
                let id = c.buf.get(at..at + 8).filter(|_| at + 8 <= c.len)?;
                Some(u64::from_le_bytes(id.try_into().ok()?))
            }
            _ => None,
        }
    }

    /// An error about the request given last, naming its place in the file: its record
    /// (`oracleGeneral`), its line (CSV) or its number among the block reads (vodbench).
    pub fn error_at_last(&self, message: String) -> RequestTraceError {
        match self.inner {
            Inner::Oracle(_) => RequestTraceError::Record {
                file: self.file.clone(),
                record: self.position,
                message,
            },
            Inner::Csv { .. } => RequestTraceError::Line {
                file: self.file.clone(),
                line: self.position,
                message,
            },
            Inner::Blocks(_) => RequestTraceError::Record {
                file: self.file.clone(),
                record: self.given,
                message: format!("block read {}: {message}", self.given),
            },
        }
    }

    /// Size-0 records skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// The next request, `None` at the end of the trace. An empty trace (no request at all)
    /// is an error.
    pub fn next_request(&mut self) -> Result<Option<Request>, RequestTraceError> {
        let r = match &mut self.inner {
            Inner::Oracle(input) => loop {
                let (rec, n) = input.record().map_err(|e| RequestTraceError::Io {
                    file: self.file.clone(),
                    message: e.to_string(),
                })?;
                if n == 0 {
                    break None;
                }
                self.position += 1;
                if n < ORACLE_RECORD {
                    return Err(RequestTraceError::Record {
                        file: self.file.clone(),
                        record: self.position,
                        message: format!(
                            "cut short: {n} of {ORACLE_RECORD} bytes (an oracleGeneral record \
                             is u32 time, u64 id, u32 size, i64 next access, little-endian)"
                        ),
                    });
                }
                let time = u32::from_le_bytes(rec[0..4].try_into().unwrap_or_default());
                let object = u64::from_le_bytes(rec[4..12].try_into().unwrap_or_default());
                let size = u32::from_le_bytes(rec[12..16].try_into().unwrap_or_default());
                let next = i64::from_le_bytes(rec[16..24].try_into().unwrap_or_default());
                if size == 0 {
                    self.skipped += 1;
                    continue;
                }
                let next_access = match next {
                    -1 => None,
                    n if n >= 0 => Some(n as u64),
                    n => {
                        return Err(RequestTraceError::Record {
                            file: self.file.clone(),
                            record: self.position,
                            message: format!(
                                "next access {n}: expected a position (≥ 0) or -1 for never"
                            ),
                        })
                    }
                };
                break Some(Request {
                    time: u64::from(time),
                    object,
                    bytes: u64::from(size),
                    next_access,
                });
            },
            Inner::Csv {
                input,
                layout,
                line,
            } => loop {
                line.clear();
                let n = input.read_line(line).map_err(|e| RequestTraceError::Line {
                    file: self.file.clone(),
                    line: self.position + 1,
                    message: e.to_string(),
                })?;
                if n == 0 {
                    break None;
                }
                self.position += 1;
                if self.position == 1 && layout.header {
                    continue;
                }
                let text = line.trim_end_matches(['\n', '\r']);
                if text.trim().is_empty() {
                    continue;
                }
                let r =
                    parse_csv_line(text, layout).map_err(|message| RequestTraceError::Line {
                        file: self.file.clone(),
                        line: self.position,
                        message: if self.position == 1 {
                            format!("{message} (a header line? --header skips it)")
                        } else {
                            message
                        },
                    })?;
                match r {
                    Some(r) => break Some(r),
                    None => self.skipped += 1,
                }
            },
            Inner::Blocks(b) => b.next_request()?,
        };
        match r {
            Some(r) => {
                self.given += 1;
                Ok(Some(r))
            }
            None if self.given == 0 => Err(RequestTraceError::Empty {
                file: self.file.clone(),
                detail: if self.skipped > 0 {
                    format!(" (all {} of size 0, which are skipped)", self.skipped)
                } else {
                    String::new()
                },
            }),
            None => Ok(None),
        }
    }
}

/// Records read a chunk at a time (one call into the input per 4096 records).
struct Chunks {
    input: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
}

impl Chunks {
    /// The next record and how many of its bytes the input held (0 at its end; less than
    /// a record when it ends inside one).
    #[inline]
    fn record(&mut self) -> std::io::Result<([u8; ORACLE_RECORD], usize)> {
        if self.len - self.pos < ORACLE_RECORD {
            self.buf.copy_within(self.pos..self.len, 0);
            self.len -= self.pos;
            self.pos = 0;
            self.len += read_full(self.input.as_mut(), &mut self.buf[self.len..])?;
        }
        let n = (self.len - self.pos).min(ORACLE_RECORD);
        let mut rec = [0u8; ORACLE_RECORD];
        rec[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok((rec, n))
    }
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn read_full(input: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// One CSV line as a request (`None`: size 0, skipped), or what is wrong with it.
fn parse_csv_line(text: &str, layout: &CsvLayout) -> Result<Option<Request>, String> {
    let delim = char::from(layout.delimiter);
    let mut fields: [&str; 3] = [""; 3];
    let wanted = [layout.time_col, Some(layout.id_col), layout.size_col];
    let mut found = 0;
    for (i, f) in text.split(delim).enumerate() {
        found = i + 1;
        for (k, w) in wanted.iter().enumerate() {
            if *w == Some(i + 1) {
                fields[k] = f.trim();
            }
        }
    }
    let need = wanted.iter().flatten().copied().max().unwrap_or(1);
    if found < need {
        return Err(format!(
            "{found} column(s) separated by {delim:?}, but column {need} is wanted"
        ));
    }
    let time = match layout.time_col {
        None => 0,
        Some(c) => {
            let f = fields[0];
            match f.parse::<u64>() {
                Ok(t) => t,
                Err(_) => f
                    .parse::<f64>()
                    .ok()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .map(|t| t as u64)
                    .ok_or_else(|| format!("column {c} (time): expected a number, found {f:?}"))?,
            }
        }
    };
    let id = fields[1];
    let object = if layout.hashed_ids {
        xxhash_rust::xxh3::xxh3_64(id.as_bytes())
    } else {
        id.parse::<u64>().map_err(|_| {
            format!(
                "column {} (object id): expected an unsigned integer, found {id:?} (text ids: \
                 --hashed-ids)",
                layout.id_col
            )
        })?
    };
    let bytes = match layout.size_col {
        None => 1,
        Some(c) => {
            let f = fields[2];
            f.parse::<u64>()
                .map_err(|_| format!("column {c} (size): expected a size in bytes, found {f:?}"))?
        }
    };
    if bytes == 0 {
        return Ok(None);
    }
    Ok(Some(Request {
        time,
        object,
        bytes,
        next_access: None,
    }))
}

/// The most requests a replay or a generated trace may hold: 2³² − 1, the limit of
/// `cache generate --requests` (oracleGeneral's u32 record times) and of the requests `cache
/// replay` makes of a vodbench workload trace.
pub const MAX_REQUESTS: u64 = u32::MAX as u64;

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
    pending: Option<super::TraceEvent>,
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

    fn apply(&mut self, e: super::TraceEvent) {
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

fn trace_error(e: super::TraceError) -> RequestTraceError {
    match e {
        super::TraceError::Line {
            file,
            line,
            message,
        } => RequestTraceError::Line {
            file,
            line,
            message,
        },
        super::TraceError::Io { file, message } => RequestTraceError::Io { file, message },
    }
}

/// Writes `objects` (id, size) as an `oracleGeneral` trace, each record's next access
/// computed (the record number of the object's next request, −1 for never), record `i`'s
/// time `i`. Needs memory for the whole list (a generator's output).
pub fn write_oracle_general<W: Write>(out: &mut W, objects: &[(u64, u32)]) -> std::io::Result<()> {
    let next = next_accesses(objects.iter().map(|o| o.0));
    for (i, ((id, size), next)) in objects.iter().zip(next).enumerate() {
        let mut rec = [0u8; ORACLE_RECORD];
        rec[0..4].copy_from_slice(&(i as u32).to_le_bytes());
        rec[4..12].copy_from_slice(&id.to_le_bytes());
        rec[12..16].copy_from_slice(&size.to_le_bytes());
        rec[16..24].copy_from_slice(&next.map_or(-1i64, |n| n as i64).to_le_bytes());
        out.write_all(&rec)?;
    }
    Ok(())
}

/// Writes `objects` (id, size) as CSV `time,id,size` with a header line, record `i`'s time
/// `i` ([`CsvLayout`] with `header`).
pub fn write_csv<W: Write>(out: &mut W, objects: &[(u64, u32)]) -> std::io::Result<()> {
    writeln!(out, "time,id,size")?;
    for (i, (id, size)) in objects.iter().enumerate() {
        writeln!(out, "{i},{id},{size}")?;
    }
    Ok(())
}

/// For each position of `ids`, the position of the same id's next occurrence.
pub fn next_accesses(
    ids: impl DoubleEndedIterator<Item = u64> + ExactSizeIterator,
) -> Vec<Option<u64>> {
    let n = ids.len();
    let mut next = vec![None; n];
    let mut seen: rustc_hash::FxHashMap<u64, u64> = rustc_hash::FxHashMap::default();
    for (i, id) in ids.enumerate().rev() {
        next[i] = seen.insert(id, i as u64);
    }
    next
}

/// `requests` requests for objects `1..=objects` drawn from a Zipf distribution of skew
/// `alpha` (object `k` with probability ∝ `k^−alpha`), every object `bytes` bytes, from the
/// random stream of `seed`: the synthetic traces cache studies use.
pub fn zipf_requests(
    objects: u64,
    requests: u64,
    alpha: f64,
    bytes: u32,
    seed: u64,
) -> Vec<(u64, u32)> {
    use rand::Rng;
    let mut cdf = Vec::with_capacity(objects as usize);
    let mut sum = 0.0;
    for k in 1..=objects {
        sum += (k as f64).powf(-alpha);
        cdf.push(sum);
    }
    let mut rng = crate::rng::stream(seed, "cache-zipf", 0);
    (0..requests)
        .map(|_| {
            let u: f64 = rng.random::<f64>() * sum;
            let k = cdf
                .partition_point(|c| *c <= u)
                .min(cdf.len().saturating_sub(1));
            (k as u64 + 1, bytes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(bytes: Vec<u8>, format: &RequestFormat) -> RequestReader {
        RequestReader::new(Box::new(std::io::Cursor::new(bytes)), "t", format)
    }

    fn all(mut r: RequestReader) -> Result<Vec<Request>, RequestTraceError> {
        let mut v = Vec::new();
        while let Some(x) = r.next_request()? {
            v.push(x);
        }
        Ok(v)
    }

    #[test]
    fn oracle_general_round_trip_with_next_accesses_and_zero_sizes_skipped() {
        let objects = [(7, 100), (8, 0), (7, 100), (9, 5)];
        let mut bytes = Vec::new();
        write_oracle_general(&mut bytes, &objects).unwrap();
        assert_eq!(bytes.len(), 4 * ORACLE_RECORD);
        let got = all(reader(bytes.clone(), &RequestFormat::OracleGeneral)).unwrap();
        assert_eq!(
            got.iter()
                .map(|r| (r.object, r.bytes, r.next_access))
                .collect::<Vec<_>>(),
            vec![(7, 100, Some(2)), (7, 100, None), (9, 5, None)]
        );
        let cut = reader(bytes[..50].to_vec(), &RequestFormat::OracleGeneral);
        let e = all(cut).unwrap_err();
        assert_eq!(e.to_string(), "t: record 3: cut short: 2 of 24 bytes (an oracleGeneral record is u32 time, u64 id, u32 size, i64 next access, little-endian)");
        let e = all(reader(Vec::new(), &RequestFormat::OracleGeneral)).unwrap_err();
        assert_eq!(e.to_string(), "t: holds no requests");
    }

    #[test]
    fn csv_columns_header_delimiter_and_hashed_ids() {
        let layout = CsvLayout {
            time_col: Some(3),
            id_col: 1,
            size_col: Some(2),
            delimiter: b';',
            header: true,
            hashed_ids: true,
        };
        let text = "key;size;ts\nabc;10;5\n\nxyz;0;6\nabc;10;7\n";
        let got = all(reader(text.into(), &RequestFormat::Csv(layout.clone()))).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], got[1].clone_with_time(5));
        let numeric = CsvLayout {
            hashed_ids: false,
            ..layout
        };
        let e = all(reader(text.into(), &RequestFormat::Csv(numeric.clone()))).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "t:2: column 1 (object id): expected an unsigned integer, found \"abc\""
            ),
            "{e}"
        );
        let e = all(reader(
            "key;size;ts\n1;2\n".into(),
            &RequestFormat::Csv(numeric),
        ))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t:2: 2 column(s) separated by ';', but column 3 is wanted"
        );
    }

    impl Request {
        fn clone_with_time(mut self, t: u64) -> Request {
            self.time = t;
            self
        }
    }

    #[test]
    fn issue49_zstd_garbage_is_named_as_not_a_valid_zstd_trace() {
        let dir = tempfile::tempdir().unwrap();
        let mut garbage = ZSTD_MAGIC.to_vec();
        garbage.extend((0..200u32).map(|i| (i * 37 % 251) as u8));
        let path = dir.path().join("garbage.zst");
        std::fs::write(&path, &garbage).unwrap();
        let r = RequestReader::open(&path, &RequestFormat::OracleGeneral).unwrap();
        let e = all(r).unwrap_err().to_string();
        assert!(
            e.contains("garbage.zst: not a valid zstd-compressed trace"),
            "{e}"
        );
    }

    #[test]
    fn round_trips_through_files_plain_zstd_and_csv() {
        let dir = tempfile::tempdir().unwrap();
        let objects = zipf_requests(100, 5000, 1.0, 7, 1);
        let mut plain = Vec::new();
        write_oracle_general(&mut plain, &objects).unwrap();
        let zst = zstd::encode_all(plain.as_slice(), 3).unwrap();
        let mut csv = Vec::new();
        write_csv(&mut csv, &objects).unwrap();
        for (name, bytes) in [("t.bin", &plain), ("t.zst", &zst), ("t.csv", &csv)] {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        let read = |name: &str, format: &RequestFormat| {
            all(RequestReader::open(&dir.path().join(name), format).unwrap())
        };
        let oracle = RequestFormat::OracleGeneral;
        let a = read("t.bin", &oracle).unwrap();
        assert_eq!(a, read("t.zst", &oracle).unwrap(), "zstd reads the same");
        let pairs = |v: &[Request]| {
            v.iter()
                .map(|r| (r.object, r.bytes as u32))
                .collect::<Vec<_>>()
        };
        assert_eq!(pairs(&a), objects);
        let next = next_accesses(objects.iter().map(|o| o.0));
        assert_eq!(a.iter().map(|r| r.next_access).collect::<Vec<_>>(), next);
        let layout = CsvLayout {
            header: true,
            ..CsvLayout::default()
        };
        let c = read("t.csv", &RequestFormat::Csv(layout)).unwrap();
        assert_eq!(pairs(&c), objects);
        assert!(c.iter().all(|r| r.next_access.is_none()));
        // a compressed trace cut short is an error naming the file, not a panic
        std::fs::write(dir.path().join("cut.zst"), &zst[..zst.len() / 2]).unwrap();
        let e = read("cut.zst", &oracle).unwrap_err();
        assert!(e.to_string().contains("cut.zst"), "{e}");
        // no such file
        let e = RequestReader::open(&dir.path().join("none"), &oracle)
            .err()
            .unwrap();
        assert!(e.to_string().ends_with("none: no such file"), "{e}");
    }

    #[test]
    fn malformed_input_names_the_place() {
        let oracle = RequestFormat::OracleGeneral;
        let mut bytes = Vec::new();
        write_oracle_general(&mut bytes, &[(1, 1)]).unwrap();
        bytes[16..24].copy_from_slice(&(-5i64).to_le_bytes());
        let e = all(reader(bytes, &oracle)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t: record 1: next access -5: expected a position (≥ 0) or -1 for never"
        );
        let mut zeros = Vec::new();
        write_oracle_general(&mut zeros, &[(1, 0), (2, 0)]).unwrap();
        let e = all(reader(zeros, &oracle)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t: holds no requests (all 2 of size 0, which are skipped)"
        );
        let csv = RequestFormat::Csv(CsvLayout::default());
        let e = all(reader("1,2,3\n4,5,x\n".into(), &csv)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t:2: column 3 (size): expected a size in bytes, found \"x\""
        );
        let e = all(reader("time,id,size\n".into(), &csv)).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("(a header line? --header skips it)"),
            "{e}"
        );
        let header_only = RequestFormat::Csv(CsvLayout {
            header: true,
            ..CsvLayout::default()
        });
        let e = all(reader("time,id,size\n".into(), &header_only)).unwrap_err();
        assert_eq!(e.to_string(), "t: holds no requests");
        let e = all(reader(b"1,\xff\xfe,3\n".to_vec(), &csv)).unwrap_err();
        assert!(e.to_string().starts_with("t:1: "), "{e}");
        let vod = RequestFormat::Vodbench(BlockModel {
            block_bytes: 1,
            bit_rate: 8,
            video_blocks: 2,
        });
        let e = all(reader("0 0 start 1 0\n1 0 jump 1 0\n".into(), &vod)).unwrap_err();
        assert!(e.to_string().starts_with("t:2: "), "{e}");
    }

    #[test]
    fn next_accesses_point_forward() {
        assert_eq!(
            next_accesses([1u64, 2, 1, 1, 3].into_iter()),
            vec![Some(2), None, Some(3), None, None]
        );
    }

    #[test]
    fn zipf_is_skewed_and_deterministic() {
        let a = zipf_requests(1000, 20_000, 1.0, 1, 3);
        assert_eq!(a, zipf_requests(1000, 20_000, 1.0, 1, 3));
        let ones = a.iter().filter(|r| r.0 == 1).count();
        // P(1) = 1 / H(1000) ≈ 0.1336
        assert!((2400..2950).contains(&ones), "{ones}");
        assert!(a.iter().all(|r| (1..=1000).contains(&r.0)));
    }

    #[test]
    fn issue49_block_reads_are_counted_from_the_events_alone() {
        let text = "# vodbench-trace v1\n0 0 start 1 0\n0.5 1 start 2 1\n1.5 0 pause 1 0\n\
                    3 0 resume 1 0\n3.2 1 seek 2 0.2\n4 2 start 1 9\n4.1 2 stop 1 0\n\
                    5 3 start 3 0\n5 3 ff 3 0\n";
        for (block_bytes, video_blocks) in [(1_000_000, 3), (250_000, 12), (1, 5), (7, 1000)] {
            let model = BlockModel {
                block_bytes,
                bit_rate: 8_000_000,
                video_blocks,
            };
            let made = all(reader(text.into(), &RequestFormat::Vodbench(model.clone())))
                .unwrap()
                .len() as u128;
            let counted =
                count_block_reads(TraceReader::new(text.as_bytes(), "t"), &model).unwrap();
            assert_eq!(
                counted, made,
                "{block_bytes} B blocks, {video_blocks} per video"
            );
        }
        // random traces: every kind of event, ties in time, terminals reused
        let kinds = ["start", "pause", "resume", "seek", "stop", "ff", "rewind"];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for round in 0..40 {
            let mut text = String::from("# vodbench-trace v1\n");
            let mut ms = 0;
            for _ in 0..60 {
                ms += next(3) * 250;
                let kind = kinds[next(kinds.len() as u64) as usize];
                text.push_str(&format!(
                    "{}.{:03} {} {kind} {} {}\n",
                    ms / 1000,
                    ms % 1000,
                    next(5),
                    next(3),
                    next(12)
                ));
            }
            let model = BlockModel {
                block_bytes: [125_000, 500_000, 1_000_000, 3_000_000][round % 4],
                bit_rate: 8_000_000,
                video_blocks: [2, 7, 40][round % 3],
            };
            let made = all(reader(
                text.clone().into(),
                &RequestFormat::Vodbench(model.clone()),
            ))
            .map_or(0, |v| v.len() as u128);
            let counted =
                count_block_reads(TraceReader::new(text.as_bytes(), "t"), &model).unwrap();
            assert_eq!(counted, made, "round {round}:\n{text}");
        }
    }

    #[test]
    fn vodbench_traces_become_block_reads() {
        // 8 Mbit/s, 1 MB blocks: one block per second; videos of 3 blocks
        let model = BlockModel {
            block_bytes: 1_000_000,
            bit_rate: 8_000_000,
            video_blocks: 3,
        };
        let text = "# vodbench-trace v1\n0 0 start 1 0\n0.5 1 start 1 1\n1.5 0 pause 1 0\n3 0 resume 1 0\n";
        let got = all(reader(text.into(), &RequestFormat::Vodbench(model))).unwrap();
        let v1 = 1u64 << 32;
        assert_eq!(
            got.iter().map(|r| (r.time, r.object)).collect::<Vec<_>>(),
            vec![
                (0, v1),
                (500_000_000, v1 + 1),
                (1_000_000_000, v1 + 1),
                (1_500_000_000, v1 + 2),
                (3_000_000_000, v1 + 2),
            ]
        );
    }
}
