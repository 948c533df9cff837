//! Replaying a block trace through one disk model, and comparing it with a reference: the
//! experiment behind `vodbench disk replay`.
//!
//! The trace is DiskSim's ASCII format, one request per line: `arrival_ms device lbn
//! size_sectors flags` (white-space separated, flags in hex, bit 0 set = read; lines starting
//! with `#` are comments). Requests are served first come, first served, one at a time, as
//! DiskSim's driver does with queue depth 1: a request starts at `max(arrival, previous
//! completion)`. In `closed` mode each request instead arrives when the previous completes.
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

use crate::output::{Folder, OutputError};
use crate::plugin::{DiskAccess, DiskModel, Registry};
use crate::time::SimTime;
use serde::Serialize;

/// Bytes per sector in block traces.
pub const SECTOR_BYTES: u64 = 512;

/// One traced request.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TraceRequest {
    /// Arrival in ms.
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

/// Parses a DiskSim ASCII trace.
pub fn parse_trace(text: &str) -> Result<Vec<TraceRequest>, TraceError> {
    let mut out = Vec::new();
    let mut first_device: Option<String> = None;
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let bad = |message: String| TraceError {
            line: i + 1,
            message,
        };
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 5 {
            return Err(bad(format!(
                "expected 5 fields `arrival_ms device lbn sectors flags`, found {}",
                f.len()
            )));
        }
        let arrival_ms: f64 = f[0]
            .parse()
            .ok()
            .filter(|a: &f64| a.is_finite() && *a >= 0.0 && *a < 1e15)
            .ok_or_else(|| bad(format!("bad arrival time `{}`", f[0])))?;
        let lbn: u64 = f[2]
            .parse()
            .map_err(|_| bad(format!("bad block number `{}`", f[2])))?;
        let sectors: u64 = f[3]
            .parse()
            .ok()
            .filter(|n| *n > 0 && *n <= 1 << 24)
            .ok_or_else(|| bad(format!("bad size `{}` (1..=16777216 sectors)", f[3])))?;
        let flags = u64::from_str_radix(f[4].trim_start_matches("0x"), 16)
            .map_err(|_| bad(format!("bad flags `{}` (hex)", f[4])))?;
        // one disk is replayed: a request for another device would be served by it silently
        let device = f[1];
        if device.parse::<u64>().is_err() {
            return Err(bad(format!("bad device `{device}` (a device number)")));
        }
        match first_device {
            None => first_device = Some(device.to_string()),
            Some(ref d) if d != device => {
                return Err(bad(format!(
                    "request for device {device}, but the trace began with device {d}; disk \
                     replay models one disk: give the requests of one device"
                )))
            }
            Some(_) => {}
        }
        if let Some(p) = out.last() {
            let p: &TraceRequest = p;
            if arrival_ms < p.arrival_ms {
                return Err(bad("arrival times must not decrease".into()));
            }
        }
        out.push(TraceRequest {
            arrival_ms,
            lbn,
            sectors,
            read: flags & 1 == 1,
        });
    }
    Ok(out)
}

/// Parses a reference: one response time in ms per line.
pub fn parse_reference(text: &str) -> Result<Vec<f64>, TraceError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| {
            l.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| TraceError {
                    line: i + 1,
                    message: format!("expected a response time in ms, found `{}`", l.trim()),
                })
        })
        .collect()
}

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

/// Replays `trace` through `disk`. Requests beyond the disk's capacity are an error.
pub fn replay(
    disk: &mut dyn DiskModel,
    trace: &[TraceRequest],
    closed: bool,
) -> Result<Vec<Replayed>, TraceError> {
    let cap = disk.geometry().capacity_bytes / SECTOR_BYTES;
    let mut out = Vec::with_capacity(trace.len());
    let mut free = 0u64;
    for (i, r) in trace.iter().enumerate() {
        if r.lbn.checked_add(r.sectors).is_none_or(|e| e > cap) {
            return Err(TraceError {
                line: i + 1,
                message: format!(
                    "request {}..{} is beyond the disk's {cap} sectors",
                    r.lbn,
                    r.lbn.saturating_add(r.sectors)
                ),
            });
        }
        let arrival = if closed {
            free
        } else {
            (r.arrival_ms * 1e6).round() as u64
        };
        let start = arrival.max(free);
        let t = disk.service(
            &DiskAccess {
                offset: r.lbn * SECTOR_BYTES,
                bytes: r.sectors * SECTOR_BYTES,
                write: !r.read,
            },
            SimTime::from_nanos(start),
        );
        free = start + t.total().as_nanos();
        out.push(Replayed {
            arrival_ms: arrival as f64 / 1e6,
            response_ms: (free - arrival) as f64 / 1e6,
            seek_ms: t.seek.as_millis_f64(),
            rotation_ms: t.rotation.as_millis_f64(),
            transfer_ms: t.transfer.as_millis_f64(),
            cache_hit: t.cache_hit,
        });
    }
    Ok(out)
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
    let (a, b) = (sorted(a), sorted(b));
    let k = 10_000;
    let sum: f64 = (1..=k)
        .map(|i| {
            let q = f64::from(i) / f64::from(k);
            let d = quantile(&a, q) - quantile(&b, q);
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
}

/// DiskSim's response-time bucket bounds (`statdefs`).
pub const BUCKETS_MS: [f64; 9] = [5.0, 10.0, 20.0, 40.0, 60.0, 90.0, 120.0, 150.0, 200.0];

/// Summarises `r`, comparing with `reference` (same order and length) if given.
pub fn summarize(r: &[Replayed], reference: Option<&[f64]>) -> ReplaySummary {
    let resp: Vec<f64> = r.iter().map(|x| x.response_ms).collect();
    let s = sorted(&resp);
    let n = r.len().max(1) as f64;
    let mean = |f: &dyn Fn(&Replayed) -> f64| r.iter().map(f).sum::<f64>() / n;
    let mut distribution: Vec<(String, usize)> =
        BUCKETS_MS.iter().map(|b| (format!("<{b}"), 0)).collect();
    distribution.push((format!(">={}", BUCKETS_MS[8]), 0));
    for v in &resp {
        let i = BUCKETS_MS.partition_point(|b| *b <= *v);
        distribution[i].1 += 1;
    }
    let (mut dem, mut err, mut rmean) = (None, None, None);
    if let Some(reference) = reference {
        let m = reference.iter().sum::<f64>() / reference.len().max(1) as f64;
        if m > 0.0 {
            dem = Some(100.0 * demerit(reference, &resp) / m);
            let e = reference
                .iter()
                .zip(&resp)
                .map(|(a, b)| (a - b).abs())
                .sum::<f64>()
                / reference.len().max(1) as f64;
            err = Some(100.0 * e / m);
        }
        rmean = Some(m);
    }
    ReplaySummary {
        requests: r.len(),
        mean_ms: mean(&|x| x.response_ms),
        p50_ms: quantile(&s, 0.5),
        p90_ms: quantile(&s, 0.9),
        p95_ms: quantile(&s, 0.95),
        p99_ms: quantile(&s, 0.99),
        max_ms: s.last().copied().unwrap_or(0.0),
        mean_seek_ms: mean(&|x| x.seek_ms),
        mean_rotation_ms: mean(&|x| x.rotation_ms),
        mean_transfer_ms: mean(&|x| x.transfer_ms),
        cache_hit_ratio: r.iter().filter(|x| x.cache_hit).count() as f64 / n,
        distribution,
        demerit_percent: dem,
        mean_error_percent: err,
        reference_mean_ms: rmean,
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
}

/// Writes `requests.csv` (exactly `arrival_ms,response_ms,seek_ms,rotation_ms,transfer_ms,cache_hit`).
pub fn requests_csv(r: &[Replayed]) -> String {
    let mut s = String::with_capacity(64 * r.len() + 64);
    s.push_str("arrival_ms,response_ms,seek_ms,rotation_ms,transfer_ms,cache_hit\n");
    for x in r {
        use std::fmt::Write;
        let _ = writeln!(
            s,
            "{:.6},{:.6},{:.6},{:.6},{:.6},{}",
            x.arrival_ms, x.response_ms, x.seek_ms, x.rotation_ms, x.transfer_ms, x.cache_hit
        );
    }
    s
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
    }
}

/// A trace replayed through a disk model ([`replay_trace`]).
#[derive(Clone, Debug)]
pub struct TraceReplay {
    /// The model's resolved parameters.
    pub params: serde_json::Value,
    /// Every request, in trace order.
    pub replayed: Vec<Replayed>,
    /// Their statistics, against the reference if one was given.
    pub summary: ReplaySummary,
    /// Wall time of the replay alone, in seconds.
    pub wall_s: f64,
}

/// Replays the trace of `a` through the disk model it names, against its reference if any.
pub fn replay_trace(registry: &Registry, a: &ReplayArgs) -> Result<TraceReplay, ReplayError> {
    let input = |flag: &'static str, value: String| {
        move |message: String| ReplayError::Input {
            flag,
            value,
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
    let ctx = crate::plugin::BuildContext {
        seed: 0,
        component: "disk",
        index: 0,
        nodes: 1,
        disks_per_node: 1,
        terminals: 0,
        block_bytes: SECTOR_BYTES,
        video_blocks: &[],
        geometry: None,
        pages: 0,
        base_dir: std::path::Path::new(""),
    };
    let mut disk = resolved
        .build(&ctx)
        .map_err(|e| input("--spec", a.spec.clone())(e.to_string()))?;
    // a regular file (a FIFO would block, a device never end); read whole, of any size
    crate::input::regular_file_size(&a.trace, u64::MAX).map_err(trace_error())?;
    let text = std::fs::read_to_string(&a.trace).map_err(|e| trace_error()(e.to_string()))?;
    let trace = parse_trace(&text).map_err(|e| trace_error()(e.to_string()))?;
    if trace.is_empty() {
        // no request: nothing to replay, and no mean to print
        return Err(trace_error()(
            "holds no requests (only blank lines and comments); give a trace with at least \
             one request"
                .into(),
        ));
    }
    let reference = match &a.reference {
        Some(p) => {
            let bad = input("--reference", p.display().to_string());
            crate::input::regular_file_size(p, u64::MAX).map_err(bad.clone())?;
            let t = std::fs::read_to_string(p).map_err(|e| bad.clone()(e.to_string()))?;
            let r = parse_reference(&t).map_err(|e| bad.clone()(e.to_string()))?;
            if r.len() != trace.len() {
                return Err(bad(format!(
                    "{} response times for {} trace requests",
                    r.len(),
                    trace.len()
                )));
            }
            Some(r)
        }
        None => None,
    };
    let t0 = std::time::Instant::now();
    let replayed =
        replay(disk.as_mut(), &trace, a.closed).map_err(|e| trace_error()(e.to_string()))?;
    let wall_s = t0.elapsed().as_secs_f64();
    let summary = summarize(&replayed, reference.as_deref());
    Ok(TraceReplay {
        params: resolved.params.clone(),
        replayed,
        summary,
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
        report.push_str(&format!(
            "replayed in {:.3} s ({:.0} requests/s)\n",
            self.wall_s,
            summary.requests as f64 / self.wall_s.max(1e-9)
        ));
        report
    }

    /// The output folder of the replay of `a`: `requests.csv` and `summary.json` (a replay
    /// folder is not a run folder: no tables through polars, no `report.html`).
    pub fn folder(&self, a: &ReplayArgs) -> Folder {
        let json = serde_json::json!({
            "model": a.model,
            "params": self.params,
            "trace": a.trace.display().to_string(),
            "closed": a.closed,
            "summary": self.summary,
        });
        Folder {
            files: vec![
                ("requests.csv".into(), requests_csv(&self.replayed)),
                ("summary.json".into(), crate::output::to_json(&json)),
            ],
            ..Folder::default()
        }
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
    fn trace_errors_name_the_line() {
        assert_eq!(parse_trace("0 0 1 8 1\n0 0 x 8 1\n").unwrap_err().line, 2);
        assert!(parse_trace("1 0 1 8 1\n0 0 1 8 1\n").is_err());
        assert!(parse_trace("1 0 1 0 1\n").is_err());
        assert!(parse_trace("1 0 1 8 zz\n").is_err());
        assert!(parse_reference("1.5\nabc\n").is_err());
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
