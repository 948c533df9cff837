//! Block traces a disk replay reads, line by line: DiskSim's ASCII format and its `validate`
//! format of real drives (the formats are described in [`super`]'s module docs), and the
//! reference response times a replay is compared with.

use serde::Serialize;

/// One traced request.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TraceRequest {
    /// Arrival in ms (in a `validate` trace: the time after the previous request completes).
    pub arrival_ms: f64,
    /// First sector.
    pub lbn: u64,
    /// Length in sectors.
    pub sectors: u64,
    /// Read (else write).
    pub read: bool,
}

/// A malformed trace or reference line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TraceError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses a DiskSim ASCII trace held in memory ([`TraceLines`] reads one from a file line by
/// line).
pub fn parse_trace(text: &str) -> Result<Vec<TraceRequest>, TraceError> {
    TraceLines::new(text.as_bytes())
        .map(|r| r.map(|(_, t)| t))
        .collect()
}

/// The formats of a block trace.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// DiskSim ASCII: `arrival_ms device lbn sectors flags` (flags in hex, bit 0 = read).
    #[default]
    Ascii,
    /// DiskSim `validate`: `R|W action lbn sectors drive_us think_us`, a real drive's trace
    /// (one request outstanding, each issued `think_us` after the previous completes).
    Validate,
}

/// The requests of a DiskSim ASCII (or `validate`) trace read line by line, each with its
/// 1-based line: a trace of any length is read in the memory of one line.
pub struct TraceLines<R> {
    input: R,
    format: TraceFormat,
    line: usize,
    buf: String,
    first_device: Option<String>,
    last_arrival: Option<f64>,
    /// `validate`: the think time the previous line gave, and this line's drive time.
    think_ms: f64,
    drive_ms: Option<f64>,
    failed: bool,
}

impl<R: std::io::BufRead> TraceLines<R> {
    /// The requests of the ASCII trace `input`.
    pub fn new(input: R) -> Self {
        Self::with_format(input, TraceFormat::Ascii)
    }

    /// The requests of the trace `input` in `format`. For `validate`, each request's
    /// `arrival_ms` is its think time after the previous request completes, and
    /// [`TraceLines::drive_ms`] its real drive's access time.
    pub fn with_format(input: R, format: TraceFormat) -> Self {
        TraceLines {
            input,
            format,
            line: 0,
            buf: String::new(),
            first_device: None,
            last_arrival: None,
            think_ms: 0.0,
            drive_ms: None,
            failed: false,
        }
    }

    /// The real drive's access time (ms) of the request last returned, in a `validate` trace.
    pub fn drive_ms(&self) -> Option<f64> {
        self.drive_ms
    }

    /// The request on the trimmed line `l` (number `self.line`), after those before it.
    fn request(&mut self, l: &str) -> Result<TraceRequest, TraceError> {
        match self.format {
            TraceFormat::Ascii => self.ascii(l),
            TraceFormat::Validate => self.validate(l),
        }
    }

    /// A line of a `validate` trace: `R|W action lbn sectors drive_us think_us`.
    fn validate(&mut self, l: &str) -> Result<TraceRequest, TraceError> {
        let line = self.line;
        let bad = |message: String| TraceError { line, message };
        let f = fields(
            l,
            line,
            6,
            "`R|W action lbn sectors drive_us think_us` (DiskSim's validate format)",
        )?;
        let read = match f[0] {
            "R" => true,
            "W" => false,
            o => return Err(bad(format!("bad operation `{o}` (R or W)"))),
        };
        let (lbn, sectors) = extent(f[2], f[3]).map_err(bad)?;
        let us = |i: usize, what: &str| {
            f[i].parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0 && *v < 1e15)
                .ok_or_else(|| bad(format!("bad {what} `{}` (µs, ≥ 0)", f[i])))
        };
        let drive = us(4, "drive access time")?;
        let think = us(5, "think time")?;
        let arrival_ms = std::mem::replace(&mut self.think_ms, think / 1000.0);
        self.drive_ms = Some(drive / 1000.0);
        Ok(TraceRequest {
            arrival_ms,
            lbn,
            sectors,
            read,
        })
    }

    /// A line of an ASCII trace: `arrival_ms device lbn sectors flags`.
    fn ascii(&mut self, l: &str) -> Result<TraceRequest, TraceError> {
        let line = self.line;
        let bad = |message: String| TraceError { line, message };
        let f = fields(l, line, 5, "`arrival_ms device lbn sectors flags`")?;
        let arrival_ms: f64 = f[0]
            .parse()
            .ok()
            .filter(|a: &f64| a.is_finite() && *a >= 0.0 && *a < 1e15)
            .ok_or_else(|| bad(format!("bad arrival time `{}`", f[0])))?;
        let (lbn, sectors) = extent(f[2], f[3]).map_err(bad)?;
        let flags = u64::from_str_radix(f[4].trim_start_matches("0x"), 16)
            .map_err(|_| bad(format!("bad flags `{}` (hex)", f[4])))?;
        // one disk is replayed: a request for another device would be served by it silently
        let device = f[1];
        if device.parse::<u64>().is_err() {
            return Err(bad(format!("bad device `{device}` (a device number)")));
        }
        match &self.first_device {
            None => self.first_device = Some(device.to_string()),
            Some(d) if d != device => {
                return Err(bad(format!(
                    "request for device {device}, but the trace began with device {d}; disk \
                     replay models one disk: give the requests of one device"
                )))
            }
            Some(_) => {}
        }
        if self.last_arrival.is_some_and(|p| arrival_ms < p) {
            return Err(bad("arrival times must not decrease".into()));
        }
        self.last_arrival = Some(arrival_ms);
        Ok(TraceRequest {
            arrival_ms,
            lbn,
            sectors,
            read: flags & 1 == 1,
        })
    }
}

/// A request's first block and its size in sectors, from a trace's fields.
fn extent(lbn: &str, sectors: &str) -> Result<(u64, u64), String> {
    let l = lbn
        .parse()
        .map_err(|_| format!("bad block number `{lbn}`"))?;
    let n = sectors
        .parse()
        .ok()
        .filter(|n| *n > 0 && *n <= 1 << 24)
        .ok_or_else(|| format!("bad size `{sectors}` (1..=16777216 sectors)"))?;
    Ok((l, n))
}

impl<R: std::io::BufRead> Iterator for TraceLines<R> {
    type Item = Result<(usize, TraceRequest), TraceError>;

    /// The next request and its line; after an error, nothing.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            self.buf.clear();
            self.line += 1;
            match self.input.read_line(&mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => {
                    self.failed = true;
                    return Some(Err(TraceError {
                        line: self.line,
                        message: format!("cannot be read: {e}"),
                    }));
                }
            }
            let text = std::mem::take(&mut self.buf);
            let l = text.trim();
            if l.is_empty() || l.starts_with('#') {
                self.buf = text;
                continue;
            }
            let r = self.request(l);
            self.buf = text;
            self.failed = r.is_err();
            return Some(r.map(|t| (self.line, t)));
        }
    }
}

/// Parses a reference: one response time in ms per line.
pub fn parse_reference(text: &str) -> Result<Vec<f64>, TraceError> {
    read_reference(text.as_bytes())
}

/// Reads a reference line by line: one response time in ms per line (8 bytes kept per
/// line).
pub fn read_reference(mut input: impl std::io::BufRead) -> Result<Vec<f64>, TraceError> {
    let mut out = Vec::new();
    let mut buf = String::new();
    for line in 1.. {
        buf.clear();
        let n = input.read_line(&mut buf).map_err(|e| TraceError {
            line,
            message: format!("cannot be read: {e}"),
        })?;
        if n == 0 {
            break;
        }
        let l = buf.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let v = l
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| TraceError {
                line,
                message: format!("expected a response time in ms, found `{l}`"),
            })?;
        out.push(v);
    }
    Ok(out)
}

/// The whitespace-separated fields of trace line `l` (number `line`): exactly `n` of them,
/// laid out as `shape` says.
fn fields<'a>(l: &'a str, line: usize, n: usize, shape: &str) -> Result<Vec<&'a str>, TraceError> {
    let f: Vec<&str> = l.split_whitespace().collect();
    if f.len() == n {
        Ok(f)
    } else {
        Err(TraceError {
            line,
            message: format!("expected {n} fields {shape}, found {}", f.len()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_errors_name_the_line() {
        assert_eq!(parse_trace("0 0 1 8 1\n0 0 x 8 1\n").unwrap_err().line, 2);
        assert!(parse_trace("1 0 1 8 1\n0 0 1 8 1\n").is_err());
        assert!(parse_trace("1 0 1 0 1\n").is_err());
        assert!(parse_trace("1 0 1 8 zz\n").is_err());
        assert!(parse_reference("1.5\nabc\n").is_err());
    }
}
