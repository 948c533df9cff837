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

use super::TraceReader;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

mod block_reads;
mod synthetic;

pub use block_reads::{count_block_reads, count_block_reads_in, BlockModel, BlockReads};
pub use synthetic::{next_accesses, write_csv, write_oracle_general, zipf_requests};

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
