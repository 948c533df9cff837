//! The measured period and what is sampled in it.
//!
//! Measurement starts after warm-up (SPIFFI §6: once every terminal has begun displaying,
//! or after a fixed time) and lasts the scenario's duration. Every component counts only
//! inside this [`Window`], and integrates its levels (busy disks, pages in use) clipped to
//! it. The time series (`timeseries.csv`) is sampled at `run.sample_interval` across it.

use super::stats::Level;
use crate::results::{Column, Table};
use crate::time::{SimDuration, SimTime};

/// The measured period as components see it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Window {
    /// `[start, end)`; `(MAX, MAX)` until it opens.
    pub span: (SimTime, SimTime),
    /// Whether it has opened.
    pub measuring: bool,
}

impl Window {
    /// Not yet open.
    pub fn closed() -> Self {
        Window {
            span: (SimTime::MAX, SimTime::MAX),
            measuring: false,
        }
    }

    /// Nanoseconds from the window's start to `t`.
    #[inline]
    pub fn since_start(&self, t: SimTime) -> u64 {
        t.saturating_since(self.span.0).as_nanos()
    }
}

/// The measured period's state: the window, when the run ends, and what it measures.
pub(super) struct Period {
    /// The window as components see it.
    pub w: Window,
    /// When the run ends (the window's end, once it opened).
    pub end: Option<SimTime>,
    /// The measured duration (`run.duration`).
    pub duration: SimDuration,
    /// Measure only what a search reads: no time series.
    pub figures_only: bool,
}

/// One sample of the time series.
pub(super) struct Sample {
    /// Bytes buffered at all real terminals.
    pub buffered: u128,
    /// Pages in use at all nodes.
    pub pages_used: u64,
    /// Glitches so far in the window.
    pub glitches: u64,
    /// Requests queued at all disks.
    pub disk_queue: u64,
    /// Busy integral of all disks so far in the window (ns).
    pub disk_busy: u128,
    /// `[server.rounds]`: stream memory (reserved, used) now.
    pub stream_memory: Option<(u64, u64)>,
    /// Disks busy right now.
    pub disks_busy_now: usize,
}

/// The time series (`timeseries.csv`).
#[derive(Default)]
pub(super) struct Series {
    time: Vec<u64>,
    buffer_mean: Vec<u64>,
    pages_used: Vec<u64>,
    glitches: Vec<u64>,
    disk_queue: Vec<u64>,
    disk_util: Vec<f64>,
    /// `[server.rounds]`: stream memory reserved and used at each sample.
    stream_reserved: Vec<u64>,
    stream_used: Vec<u64>,
    /// (time, summed busy integral of all disks) at the previous sample.
    last_busy: (SimTime, u128),
}

impl Series {
    /// Records sample `s` taken at `now`, over `terminals` real terminals and `disks` disks.
    pub fn push(&mut self, now: SimTime, w: &Window, s: Sample, terminals: usize, disks: usize) {
        let n = terminals.max(1) as u128;
        self.time.push(now.as_nanos() - w.span.0.as_nanos());
        self.buffer_mean.push((s.buffered / n) as u64);
        self.pages_used.push(s.pages_used);
        self.glitches.push(s.glitches);
        self.disk_queue.push(s.disk_queue);
        if let Some((r, u)) = s.stream_memory {
            self.stream_reserved.push(r);
            self.stream_used.push(u);
        }
        let (t0, b0) = self.last_busy;
        let span = now.saturating_since(t0).as_nanos();
        let n_disks = disks.max(1) as f64;
        let util = if self.time.len() > 1 && span > 0 {
            (s.disk_busy - b0) as f64 / span as f64 / n_disks
        } else {
            // first sample: the fraction of disks busy at this instant
            s.disks_busy_now as f64 / n_disks
        };
        self.disk_util.push(util);
        self.last_busy = (now, s.disk_busy);
    }

    /// The `timeseries` table; pages become bytes of `block_bytes` each.
    pub fn table(&self, block_bytes: u64) -> Table {
        let mut t = Table {
            name: "timeseries".into(),
            columns: vec![
                ("time_ns".into(), Column::U64(self.time.clone())),
                (
                    "terminal_buffer_mean_bytes".into(),
                    Column::U64(self.buffer_mean.clone()),
                ),
                (
                    "server_memory_in_use_bytes".into(),
                    Column::U64(self.pages_used.iter().map(|p| p * block_bytes).collect()),
                ),
                ("glitches".into(), Column::U64(self.glitches.clone())),
                (
                    "disk_queue_total".into(),
                    Column::U64(self.disk_queue.clone()),
                ),
                (
                    "disk_utilization_mean_ratio".into(),
                    Column::F64(self.disk_util.clone()),
                ),
            ],
        };
        if self.stream_reserved.len() == self.time.len() && !self.time.is_empty() {
            // only with [server.rounds]: the tables of other runs stay as they were
            t.columns.push((
                "stream_memory_reserved_bytes".into(),
                Column::U64(self.stream_reserved.clone()),
            ));
            t.columns.push((
                "stream_memory_used_bytes".into(),
                Column::U64(self.stream_used.clone()),
            ));
        }
        t
    }
}

/// The busy fraction of a level closed at `w1` over a measured period of `measured` ns.
pub(super) fn utilization(
    level: &mut Level,
    w1: SimTime,
    window: (SimTime, SimTime),
    measured: u64,
) -> f64 {
    let (busy, _) = level.close(w1, window);
    if measured > 0 {
        busy as f64 / measured as f64
    } else {
        0.0
    }
}

/// Mean of `v` (0 for none).
pub(super) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Largest of `v` (0 for none).
pub(super) fn fmax(v: &[f64]) -> f64 {
    v.iter().cloned().fold(0.0, f64::max)
}

/// `x / y` (0 when `y` is 0).
pub(super) fn ratio(x: u64, y: u64) -> f64 {
    if y == 0 {
        0.0
    } else {
        x as f64 / y as f64
    }
}
