//! Replaying a block trace through one disk model, and comparing it with a reference: the
//! experiment behind `vodbench disk replay`.
//!
//! The trace is DiskSim's ASCII format, one request per line: `arrival_ms device lbn
//! size_sectors flags` (white-space separated, flags in hex, bit 0 set = read; lines starting
//! with `#` are comments). Requests are served first come, first served, one at a time, as
//! DiskSim's driver does with queue depth 1: a request starts at `max(arrival, previous
//! completion)`. In `closed` mode each request instead arrives when the previous completes.
//!
//! The other format is DiskSim's `validate` format, the traces of real drives DiskSim was
//! validated with: `R|W action lbn size_sectors drive_us think_us`, where `drive_us` is the
//! real drive's access time (µs) and `think_us` the time after this request completes at
//! which the next one is issued (one request outstanding: DiskSim reads the next line when the
//! previous request completes and issues it `think_us` later; the first request arrives at
//! 0). `action` (`Hit`, `Miss`, `Doub`, `Trip`: what the drive's buffer did) is read but not
//! used. A replay of such a trace is compared with the drive as DiskSim compares itself
//! ([`super::disksim_rms`]).
//!
//! Times are integer nanoseconds in the replay (the engine's unit); results are reported in
//! milliseconds. The demerit figure is Ruemmler and Wilkes': the root-mean-square horizontal
//! distance between two response-time distributions, sampled at the quantiles 0.0001, 0.0002,
//! …, 1 with linear interpolation.
//!
//! ```
//! use vodbench_harness::experiment::disk_replay::{demerit, parse_trace};
//! let t = parse_trace("0.5 0 100 8 1\n1.0\t0\t200\t16\t0\n").unwrap();
//! assert_eq!((t[1].lbn, t[1].sectors, t[1].read), (200, 16, false));
//! assert_eq!(demerit(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
//! ```

use super::disksim_rms::{rms, AccessTimes};
use crate::output::OutputError;
use crate::plugin::{DiskAccess, DiskModel, Registry};
use crate::time::SimTime;
use serde::Serialize;

mod trace;

pub use trace::{
    parse_reference, parse_trace, read_reference, TraceError, TraceFormat, TraceLines, TraceRequest,
};

/// Bytes per sector in block traces.
pub const SECTOR_BYTES: u64 = 512;

/// One replayed request, in ms.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Replayed {
    /// Arrival.
    pub arrival_ms: f64,
    /// Completion − arrival.
    pub response_ms: f64,
    /// Seek part of the service.
    pub seek_ms: f64,
    /// Rotational latency part.
    pub rotation_ms: f64,
    /// Transfer part.
    pub transfer_ms: f64,
    /// Served from the disk's cache.
    pub cache_hit: bool,
}

/// Replays `trace` through `disk`. Requests beyond the disk's capacity are an error (its
/// `line` is the request's position in `trace`, from 1).
pub fn replay(
    disk: &mut dyn DiskModel,
    trace: &[TraceRequest],
    closed: bool,
) -> Result<Vec<Replayed>, TraceError> {
    let mut replayer = Replayer::new(disk, closed);
    trace
        .iter()
        .enumerate()
        .map(|(i, r)| replayer.serve(r, i + 1))
        .collect()
}

/// Serves requests through one disk, one after the other, as [`replay`] does, keeping
/// nothing of them: a trace of any length is replayed in constant memory.
pub struct Replayer<'a> {
    disk: &'a mut dyn DiskModel,
    /// The disk's capacity in sectors.
    cap: u64,
    /// When the disk is next free (ns).
    free: u64,
    arrivals: Arrivals,
}

/// When a replayed request arrives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arrivals {
    /// At its trace arrival time.
    Trace,
    /// When the previous request completes (closed loop; trace arrival times ignored).
    Closed,
    /// Its `arrival_ms` after the previous request completes (a `validate` trace's think
    /// time).
    AfterThink,
}

impl<'a> Replayer<'a> {
    /// A replay through `disk`, closed-loop if `closed`.
    pub fn new(disk: &'a mut dyn DiskModel, closed: bool) -> Self {
        let arrivals = if closed {
            Arrivals::Closed
        } else {
            Arrivals::Trace
        };
        Self::with_arrivals(disk, arrivals)
    }

    /// A replay through `disk` whose requests arrive as `arrivals` says.
    pub fn with_arrivals(disk: &'a mut dyn DiskModel, arrivals: Arrivals) -> Self {
        let cap = disk.geometry().capacity_bytes / SECTOR_BYTES;
        Replayer {
            disk,
            cap,
            free: 0,
            arrivals,
        }
    }

    /// Serves `r` (from `line` of the trace) after the requests before it.
    pub fn serve(&mut self, r: &TraceRequest, line: usize) -> Result<Replayed, TraceError> {
        let cap = self.cap;
        if r.lbn.checked_add(r.sectors).is_none_or(|e| e > cap) {
            return Err(TraceError {
                line,
                message: format!(
                    "request {}..{} is beyond the disk's {cap} sectors",
                    r.lbn,
                    r.lbn.saturating_add(r.sectors)
                ),
            });
        }
        let ns = (r.arrival_ms * 1e6).round() as u64;
        let arrival = match self.arrivals {
            Arrivals::Trace => ns,
            Arrivals::Closed => self.free,
            Arrivals::AfterThink => self.free + ns,
        };
        let start = arrival.max(self.free);
        let t = self.disk.service(
            &DiskAccess {
                offset: r.lbn * SECTOR_BYTES,
                bytes: r.sectors * SECTOR_BYTES,
                write: !r.read,
            },
            SimTime::from_nanos(start),
        );
        self.free = start + t.total().as_nanos();
        Ok(Replayed {
            arrival_ms: arrival as f64 / 1e6,
            response_ms: (self.free - arrival) as f64 / 1e6,
            seek_ms: t.seek.as_millis_f64(),
            rotation_ms: t.rotation.as_millis_f64(),
            transfer_ms: t.transfer.as_millis_f64(),
            cache_hit: t.cache_hit,
        })
    }
}

/// The value at quantile `q` of sorted `v`, interpolating linearly.
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let i = pos.floor() as usize;
    let j = (i + 1).min(v.len() - 1);
    v[i] + (v[j] - v[i]) * (pos - i as f64)
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

/// Ruemmler and Wilkes' demerit: RMS horizontal distance between the distributions of `a`
/// and `b`, in their unit.
pub fn demerit(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    demerit_sorted(&sorted(a), &sorted(b))
}

/// [`demerit`] of `a` and `b` sorted (by `f64::total_cmp`).
fn demerit_sorted(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let k = 10_000;
    let sum: f64 = (1..=k)
        .map(|i| {
            let q = f64::from(i) / f64::from(k);
            let d = quantile(a, q) - quantile(b, q);
            d * d
        })
        .sum();
    (sum / f64::from(k)).sqrt()
}

/// Response-time statistics of a replay (ms).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReplaySummary {
    /// Requests.
    pub requests: usize,
    /// Mean response.
    pub mean_ms: f64,
    /// Percentiles 50, 90, 95, 99 and the maximum.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Maximum.
    pub max_ms: f64,
    /// Mean seek, rotation and transfer parts.
    pub mean_seek_ms: f64,
    /// Mean rotational latency.
    pub mean_rotation_ms: f64,
    /// Mean transfer.
    pub mean_transfer_ms: f64,
    /// Fraction served from the cache.
    pub cache_hit_ratio: f64,
    /// Counts in DiskSim's response-time buckets: <5, <10, <20, <40, <60, <90, <120, <150,
    /// <200, ≥200 ms.
    pub distribution: Vec<(String, usize)>,
    /// Against `--reference`: demerit as % of the reference mean.
    pub demerit_percent: Option<f64>,
    /// Against `--reference`: mean |error| per request as % of the reference mean.
    pub mean_error_percent: Option<f64>,
    /// Reference mean (ms).
    pub reference_mean_ms: Option<f64>,
    /// Against the real drive of a `validate` trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drive: Option<DriveComparison>,
}

/// A replay against the real drive whose access times a `validate` trace holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DriveComparison {
    /// The drive's mean access time (ms).
    pub mean_ms: f64,
    /// DiskSim's validation figure: RMS horizontal distance (ms) between the model's and
    /// the drive's access-time distributions as DiskSim buckets and prints them
    /// ([`super::disksim_rms`]).
    pub rms_ms: f64,
    /// The demerit on the exact samples, as % of the drive's mean.
    pub demerit_percent: f64,
    /// Mean |model − drive| per request, as % of the drive's mean.
    pub mean_error_percent: f64,
}

/// DiskSim's response-time bucket bounds (`statdefs`).
pub const BUCKETS_MS: [f64; 9] = [5.0, 10.0, 20.0, 40.0, 60.0, 90.0, 120.0, 150.0, 200.0];

/// Summarises `r`, comparing with `reference` (same order and length) if given.
pub fn summarize(r: &[Replayed], reference: Option<&[f64]>) -> ReplaySummary {
    let mut tally = Tally::new();
    for (i, x) in r.iter().enumerate() {
        tally.add(x, reference.and_then(|v| v.get(i).copied()));
    }
    tally.finish(reference.map(<[f64]>::to_vec))
}

/// What a [`ReplaySummary`] needs of the requests, gathered one request at a time: sums and
/// counts, and each response time (8 bytes a request: the percentiles and the demerit are
/// exact order statistics). Adding the requests of [`summarize`] one by one and finishing
/// gives its summary to the bit.
pub struct Tally {
    responses: Vec<f64>,
    response: f64,
    seek: f64,
    rotation: f64,
    transfer: f64,
    hits: usize,
    distribution: Vec<(String, usize)>,
    /// Σ |reference − response| over the requests added with a reference.
    error: f64,
    /// The real drive's access times given ([`Tally::drive`]), the bucketed distributions
    /// of both sides and Σ |drive − response|.
    drive: Vec<f64>,
    drive_dist: AccessTimes,
    model_dist: AccessTimes,
    drive_error: f64,
}

impl Default for Tally {
    fn default() -> Self {
        Self::new()
    }
}

impl Tally {
    /// Nothing yet.
    pub fn new() -> Self {
        let mut distribution: Vec<(String, usize)> =
            BUCKETS_MS.iter().map(|b| (format!("<{b}"), 0)).collect();
        distribution.push((format!(">={}", BUCKETS_MS[8]), 0));
        // sums start as `Iterator::sum` of f64 does, and add in request order as it does
        Tally {
            responses: Vec::new(),
            response: -0.0,
            seek: -0.0,
            rotation: -0.0,
            transfer: -0.0,
            hits: 0,
            distribution,
            error: -0.0,
            drive: Vec::new(),
            drive_dist: AccessTimes::physical_access_time(),
            model_dist: AccessTimes::physical_access_time(),
            drive_error: -0.0,
        }
    }

    /// The real drive's access time (ms) for the request added last (a `validate` trace):
    /// the summary then compares the replay with the drive ([`DriveComparison`]). Give it for
    /// every request or for none.
    pub fn drive(&mut self, ms: f64) {
        let v = self.responses.last().copied().unwrap_or(0.0);
        self.drive.push(ms);
        self.drive_dist.add(ms);
        self.model_dist.add(v);
        self.drive_error += (ms - v).abs();
    }

    /// Requests added so far.
    pub fn requests(&self) -> usize {
        self.responses.len()
    }

    /// Adds the next request, with its reference response time if there is one.
    pub fn add(&mut self, x: &Replayed, reference: Option<f64>) {
        let v = x.response_ms;
        self.responses.push(v);
        self.response += v;
        self.seek += x.seek_ms;
        self.rotation += x.rotation_ms;
        self.transfer += x.transfer_ms;
        self.hits += usize::from(x.cache_hit);
        self.distribution[BUCKETS_MS.partition_point(|b| *b <= v)].1 += 1;
        if let Some(a) = reference {
            self.error += (a - v).abs();
        }
    }

    /// The summary of the requests added, against `reference` (one response time per request
    /// added, in order) if given.
    /// (The reference is taken to be sorted in place: no copy of either side is made.)
    pub fn finish(mut self, reference: Option<Vec<f64>>) -> ReplaySummary {
        let requests = self.responses.len();
        let n = requests.max(1) as f64;
        self.responses.sort_by(f64::total_cmp);
        let s = &self.responses;
        let drive = (!self.drive.is_empty()).then(|| {
            let d = &mut self.drive;
            let m = d.iter().sum::<f64>() / d.len() as f64;
            d.sort_by(f64::total_cmp);
            let pct = |v: f64| if m > 0.0 { 100.0 * v / m } else { 0.0 };
            DriveComparison {
                mean_ms: m,
                rms_ms: rms(&self.model_dist.printed(), &self.drive_dist.printed()),
                demerit_percent: pct(demerit_sorted(d, s)),
                mean_error_percent: pct(self.drive_error / d.len() as f64),
            }
        });
        let (mut dem, mut err, mut rmean) = (None, None, None);
        if let Some(mut reference) = reference {
            let m = reference.iter().sum::<f64>() / reference.len().max(1) as f64;
            if m > 0.0 {
                reference.sort_by(f64::total_cmp);
                dem = Some(100.0 * demerit_sorted(&reference, s) / m);
                err = Some(100.0 * (self.error / reference.len().max(1) as f64) / m);
            }
            rmean = Some(m);
        }
        ReplaySummary {
            requests,
            mean_ms: self.response / n,
            p50_ms: quantile(s, 0.5),
            p90_ms: quantile(s, 0.9),
            p95_ms: quantile(s, 0.95),
            p99_ms: quantile(s, 0.99),
            max_ms: s.last().copied().unwrap_or(0.0),
            mean_seek_ms: self.seek / n,
            mean_rotation_ms: self.rotation / n,
            mean_transfer_ms: self.transfer / n,
            cache_hit_ratio: self.hits as f64 / n,
            distribution: std::mem::take(&mut self.distribution),
            demerit_percent: dem,
            mean_error_percent: err,
            reference_mean_ms: rmean,
            drive,
        }
    }
}

/// Options of `vodbench disk replay`, one per flag.
#[derive(Clone, Debug)]
pub struct ReplayArgs {
    /// Disk model plugin name.
    pub model: String,
    /// The model's `spec` parameter (a bundled disk or a parameter file).
    pub spec: String,
    /// The model's `disk` parameter, if given.
    pub disk: Option<String>,
    /// The trace file.
    pub trace: std::path::PathBuf,
    /// Reference response times (ms, one per line).
    pub reference: Option<std::path::PathBuf>,
    /// Output folder (written by the command: [`TraceReplay::folder`]).
    pub out: Option<std::path::PathBuf>,
    /// Closed loop: each request arrives when the previous completes.
    pub closed: bool,
    /// The trace's format (`validate`: a real drive's trace, its own arrivals, compared with
    /// the drive).
    pub format: TraceFormat,
}

/// The header of `requests.csv`.
pub const REQUESTS_CSV_HEADER: &str =
    "arrival_ms,response_ms,seek_ms,rotation_ms,transfer_ms,cache_hit\n";

/// Writes one row of `requests.csv` (`arrival_ms,response_ms,seek_ms,rotation_ms,transfer_ms,cache_hit`).
pub fn write_request_row(w: &mut impl std::io::Write, x: &Replayed) -> std::io::Result<()> {
    writeln!(
        w,
        "{:.6},{:.6},{:.6},{:.6},{:.6},{}",
        x.arrival_ms, x.response_ms, x.seek_ms, x.rotation_ms, x.transfer_ms, x.cache_hit
    )
}

/// `requests.csv` of the replayed requests `r`.
pub fn requests_csv(r: &[Replayed]) -> String {
    let mut s = Vec::with_capacity(64 * r.len() + 64);
    s.extend_from_slice(REQUESTS_CSV_HEADER.as_bytes());
    for x in r {
        write_request_row(&mut s, x).expect("writing to memory");
    }
    String::from_utf8(s).expect("the rows are ASCII")
}

/// Why a replay could not be made or saved.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// An input is unusable: the disk model cannot be resolved or built, the trace or the
    /// reference cannot be read or parsed, a request lies beyond the disk (exit code 2).
    #[error("{flag} {value}: {message}")]
    Input {
        /// The option that names the input (`--model`, `--spec`, `--trace`, `--reference`).
        flag: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        message: String,
    },
    /// The output folder could not be written (exit code 1).
    #[error(transparent)]
    Output(#[from] OutputError),
}

impl ReplayError {
    /// Whether the input is at fault (exit code 2) rather than the output (exit code 1).
    pub fn is_input(&self) -> bool {
        matches!(self, ReplayError::Input { .. })
            || matches!(self, ReplayError::Output(e) if e.refused)
    }
}

/// A trace replayed through a disk model ([`replay_trace`]).
#[derive(Clone, Debug)]
pub struct TraceReplay {
    /// The model's resolved parameters.
    pub params: serde_json::Value,
    /// The requests' statistics, against the reference if one was given.
    pub summary: ReplaySummary,
    /// Wall time of reading and replaying the trace, in seconds.
    pub wall_s: f64,
}

/// Replays the trace of `a` through the disk model it names, against its reference if any,
/// writing each request's row of `requests.csv` (header first) to `rows` when given.
///
/// The trace is read a line at a time and each request forgotten once served and written:
/// what is kept is 8 bytes per request (its response time, for the exact percentiles and
/// demerit) and 8 per line of the reference, so a trace of 10⁷ requests replays in about
/// 100 MB however long its lines.
pub fn replay_trace(
    registry: &Registry,
    a: &ReplayArgs,
    mut rows: Option<&mut dyn std::io::Write>,
) -> Result<TraceReplay, ReplayError> {
    let input = |flag: &'static str, value: String| {
        move |message: String| ReplayError::Input {
            flag,
            value: value.clone(),
            message,
        }
    };
    let trace_error = || input("--trace", a.trace.display().to_string());
    let mut params = toml::Table::new();
    params.insert("spec".into(), toml::Value::String(a.spec.clone()));
    if let Some(d) = &a.disk {
        params.insert("disk".into(), toml::Value::String(d.clone()));
    }
    let resolved = registry
        .resolve::<dyn DiskModel>(&a.model, &params)
        .map_err(|e| input("--model", a.model.clone())(e.to_string()))?;
    let ctx = crate::plugin::BuildContext::new(0, "disk", 0, std::path::Path::new(""))
        .with_block_bytes(SECTOR_BYTES);
    let mut disk = resolved
        .build(&ctx)
        .map_err(|e| input("--spec", a.spec.clone())(e.to_string()))?;
    // regular files (a FIFO would block, a device never end), of any size, read as streams
    let open = |p: &std::path::Path, bad: &dyn Fn(String) -> ReplayError| {
        crate::input::open_regular(p, u64::MAX)
            .map(|(_, f)| std::io::BufReader::with_capacity(1 << 16, f))
            .map_err(bad)
    };
    let reference = match &a.reference {
        Some(p) => {
            let bad = input("--reference", p.display().to_string());
            let r = read_reference(open(p, &bad)?).map_err(|e| bad(e.to_string()))?;
            Some(r)
        }
        None => None,
    };
    let trace = open(&a.trace, &trace_error())?;
    let write_error = |e: std::io::Error| {
        ReplayError::Output(crate::output::oerr(std::path::Path::new("requests.csv"), e))
    };
    if let Some(w) = rows.as_mut() {
        w.write_all(REQUESTS_CSV_HEADER.as_bytes())
            .map_err(write_error)?;
    }
    let t0 = std::time::Instant::now();
    let arrivals = match (a.format, a.closed) {
        (TraceFormat::Ascii, false) => Arrivals::Trace,
        (TraceFormat::Ascii, true) => Arrivals::Closed,
        (TraceFormat::Validate, false) => Arrivals::AfterThink,
        (TraceFormat::Validate, true) => {
            return Err(input("--closed", "with --format validate".into())(
                "a validate trace sets its own arrivals (each request is issued its think \
                 time after the previous completes); leave out --closed"
                    .into(),
            ))
        }
    };
    let mut replayer = Replayer::with_arrivals(disk.as_mut(), arrivals);
    let mut tally = Tally::new();
    let mut lines = TraceLines::with_format(trace, a.format);
    while let Some(r) = lines.next() {
        let (line, r) = r.map_err(|e| trace_error()(e.to_string()))?;
        let x = replayer
            .serve(&r, line)
            .map_err(|e| trace_error()(e.to_string()))?;
        let i = tally.requests();
        tally.add(&x, reference.as_ref().and_then(|v| v.get(i).copied()));
        if let Some(d) = lines.drive_ms() {
            tally.drive(d);
        }
        if let Some(w) = rows.as_mut() {
            write_request_row(w, &x).map_err(write_error)?;
        }
    }
    let wall_s = t0.elapsed().as_secs_f64();
    if tally.requests() == 0 {
        // no request: nothing to replay, and no mean to print
        return Err(trace_error()(
            "holds no requests (only blank lines and comments); give a trace with at least \
             one request"
                .into(),
        ));
    }
    if let (Some(r), Some(p)) = (&reference, &a.reference) {
        if r.len() != tally.requests() {
            return Err(input("--reference", p.display().to_string())(format!(
                "{} response times for {} trace requests",
                r.len(),
                tally.requests()
            )));
        }
    }
    Ok(TraceReplay {
        params: resolved.params.clone(),
        summary: tally.finish(reference),
        wall_s,
    })
}

impl TraceReplay {
    /// What `vodbench disk replay` prints about the replay of `a`: the response times, their
    /// parts, their distribution, the comparison with the reference and the replay's speed.
    pub fn report(&self, a: &ReplayArgs) -> String {
        let summary = &self.summary;
        let mut report = format!(
            "{} requests through `{}` ({}): mean {:.6} ms, p50 {:.6}, p95 {:.6}, p99 {:.6}, max {:.6}\n\
             parts (mean): seek {:.6} ms, rotation {:.6} ms, transfer {:.6} ms; cache hits {:.2} %\n",
            summary.requests,
            a.model,
            a.spec,
            summary.mean_ms,
            summary.p50_ms,
            summary.p95_ms,
            summary.p99_ms,
            summary.max_ms,
            summary.mean_seek_ms,
            summary.mean_rotation_ms,
            summary.mean_transfer_ms,
            100.0 * summary.cache_hit_ratio,
        );
        report.push_str("distribution:");
        for (b, n) in &summary.distribution {
            report.push_str(&format!(" {b}:{n}"));
        }
        report.push('\n');
        if let (Some(d), Some(e), Some(m)) = (
            summary.demerit_percent,
            summary.mean_error_percent,
            summary.reference_mean_ms,
        ) {
            report.push_str(&format!(
                "against the reference (mean {m:.6} ms): demerit {d:.3} %, mean error {e:.3} %\n"
            ));
        }
        if let Some(d) = &summary.drive {
            report.push_str(&format!(
                "against the real drive (mean {:.6} ms): rms {:.6} ms (DiskSim's validation \
                 figure), demerit {:.3} %, mean error {:.3} %\n",
                d.mean_ms, d.rms_ms, d.demerit_percent, d.mean_error_percent
            ));
        }
        report.push_str(&format!(
            "read and replayed in {:.3} s ({:.0} requests/s)\n",
            self.wall_s,
            summary.requests as f64 / self.wall_s.max(1e-9)
        ));
        report
    }

    /// `summary.json` of the replay of `a` (a replay folder holds it and `requests.csv`; it
    /// is not a run folder: no tables through polars, no `report.html`).
    pub fn summary_json(&self, a: &ReplayArgs) -> String {
        let json = serde_json::json!({
            "model": a.model,
            "params": self.params,
            "trace": a.trace.display().to_string(),
            "closed": a.closed,
            "format": a.format,
            "summary": self.summary,
        });
        crate::output::to_json(&json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demerit_of_a_shift_is_the_shift() {
        let a: Vec<f64> = (0..1000).map(f64::from).collect();
        let b: Vec<f64> = a.iter().map(|x| x + 2.5).collect();
        assert!((demerit(&a, &b) - 2.5).abs() < 1e-9);
        // order does not matter: distributions, not requests
        let mut c = b.clone();
        c.reverse();
        assert!((demerit(&a, &c) - 2.5).abs() < 1e-9);
    }

    #[test]
    fn a_validate_trace_gives_think_times_and_the_drives_times() {
        let text = "R Hit 100 8 1500.0 250.5\nW Doub 200 4 2000.0 0\n";
        let mut lines = TraceLines::with_format(text.as_bytes(), TraceFormat::Validate);
        let (l1, r1) = lines.next().unwrap().unwrap();
        assert_eq!(
            (l1, r1.lbn, r1.sectors, r1.read, r1.arrival_ms),
            (1, 100, 8, true, 0.0)
        );
        assert_eq!(lines.drive_ms(), Some(1.5));
        // the second request is issued the first line's think time after the first completes
        let (_, r2) = lines.next().unwrap().unwrap();
        assert_eq!((r2.read, r2.arrival_ms), (false, 0.2505));
        assert_eq!(lines.drive_ms(), Some(2.0));
        assert!(lines.next().is_none());
        // a replay: 1 ms each, the second issued 0.2505 ms after the first completes
        let mut disk = Flat;
        let mut replayer = Replayer::with_arrivals(&mut disk, Arrivals::AfterThink);
        assert_eq!(replayer.serve(&r1, 1).unwrap().arrival_ms, 0.0);
        let x = replayer.serve(&r2, 2).unwrap();
        assert_eq!((x.arrival_ms, x.response_ms), (1.2505, 1.0));
        // bad lines name the line and what is allowed
        for (bad, want) in [
            ("R Hit 1 8 1.0\n", "expected 6 fields"),
            ("X Hit 1 8 1.0 2.0\n", "bad operation `X` (R or W)"),
            ("R Hit 1 0 1.0 2.0\n", "bad size"),
            ("R Hit 1 8 -1 2.0\n", "bad drive access time"),
            ("R Hit 1 8 1 x\n", "bad think time"),
        ] {
            let e = TraceLines::with_format(bad.as_bytes(), TraceFormat::Validate)
                .next()
                .unwrap()
                .unwrap_err();
            assert_eq!(e.line, 1);
            assert!(e.message.contains(want), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn a_tally_compares_with_the_drive_by_disksims_figure() {
        let mut t = Tally::new();
        for (v, d) in [(1.0, 1.5), (2.0, 2.5), (3.0, 3.5)] {
            let x = Replayed {
                arrival_ms: 0.0,
                response_ms: v,
                seek_ms: 0.0,
                rotation_ms: 0.0,
                transfer_ms: 0.0,
                cache_hit: false,
            };
            t.add(&x, None);
            t.drive(d);
        }
        let s = t.finish(None);
        let d = s.drive.unwrap();
        assert_eq!(d.mean_ms, 2.5);
        assert!((d.mean_error_percent - 20.0).abs() < 1e-9);
        // every request 0.5 ms short: DiskSim's 1 % buckets give about that
        assert!((d.rms_ms - 0.5).abs() < 0.03, "{}", d.rms_ms);
        // no drive: no comparison, and nothing in summary.json
        let s = summarize(&[], None);
        assert!(s.drive.is_none());
        assert!(!serde_json::to_string(&s).unwrap().contains("drive"));
    }

    /// A disk of 1 MiB serving every access in 1 ms of transfer.
    struct Flat;
    impl DiskModel for Flat {
        fn geometry(&self) -> crate::plugin::DiskGeometry {
            crate::plugin::DiskGeometry {
                capacity_bytes: 1 << 20,
                cylinders: 1,
            }
        }
        fn cylinder_of(&self, _: u64) -> u32 {
            0
        }
        fn head_cylinder(&self) -> u32 {
            0
        }
        fn service(&mut self, _: &DiskAccess, _: SimTime) -> crate::plugin::ServiceTime {
            crate::plugin::ServiceTime {
                transfer: crate::time::SimDuration::from_millis(1),
                ..Default::default()
            }
        }
        fn service_bound(&self, _: &DiskAccess) -> crate::time::SimDuration {
            crate::time::SimDuration::from_millis(1)
        }
    }

    #[test]
    fn a_streamed_trace_gives_each_request_its_file_line_and_stops_at_an_error() {
        let text = "# comment\n\n0 0 1 8 1\n  # more\n1 0 2 8 0\n2 0 x 8 1\n3 0 4 8 1\n";
        let got: Vec<_> = TraceLines::new(text.as_bytes()).collect();
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0].as_ref().unwrap().0, 3);
        assert_eq!(got[1].as_ref().unwrap().0, 5);
        assert_eq!(got[2].as_ref().unwrap_err().line, 6);
        // replayed one by one, a request beyond the disk is named at its line of the file
        let mut disk = Flat;
        let mut replayer = Replayer::new(&mut disk, true);
        let far = TraceRequest {
            arrival_ms: 0.0,
            lbn: u64::MAX - 1,
            sectors: 8,
            read: true,
        };
        assert_eq!(replayer.serve(&far, 41).unwrap_err().line, 41);
        let near = TraceRequest { lbn: 0, ..far };
        let x = replayer.serve(&near, 42).unwrap();
        assert_eq!((x.response_ms, x.transfer_ms), (1.0, 1.0));
    }

    #[test]
    fn buckets_follow_disksim() {
        let r: Vec<Replayed> = [1.0, 5.0, 250.0]
            .iter()
            .map(|&v| Replayed {
                arrival_ms: 0.0,
                response_ms: v,
                seek_ms: 0.0,
                rotation_ms: 0.0,
                transfer_ms: 0.0,
                cache_hit: false,
            })
            .collect();
        let s = summarize(&r, Some(&[1.0, 5.0, 250.0]));
        assert_eq!(s.distribution[0].1, 1);
        assert_eq!(s.distribution[1].1, 1);
        assert_eq!(s.distribution[9].1, 1);
        assert_eq!(s.demerit_percent, Some(0.0));
    }
}
