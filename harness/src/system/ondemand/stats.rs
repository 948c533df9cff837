//! Metric accumulators used by the engine (measured-period clipping, histograms).

use crate::results::Stat;
use crate::time::SimTime;
use hdrhistogram::Histogram;

/// A duration distribution: exact count/sum/max plus a 3-digit histogram for percentiles.
pub(crate) struct DurStat {
    count: u64,
    sum: u128,
    max: u64,
    hist: Histogram<u64>,
}

impl DurStat {
    pub fn new() -> Self {
        DurStat {
            count: 0,
            sum: 0,
            max: 0,
            hist: Histogram::new(3).expect("3 significant digits is valid"),
        }
    }
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.count += 1;
        self.sum += u128::from(ns);
        self.max = self.max.max(ns);
        // auto-resizing histogram: recording never fails for u64 values
        let _ = self.hist.record(ns.max(1));
    }
    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// The mean, rounded down (0 without samples).
    pub fn mean(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            (self.sum / u128::from(self.count)) as u64
        }
    }
    /// The largest sample.
    pub fn max(&self) -> u64 {
        self.max
    }
    /// Quantile `q` (0..=1) from the histogram, never above the maximum (0 without samples).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.hist.value_at_quantile(q).min(self.max)
        }
    }
    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &DurStat) {
        self.count += other.count;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
        // auto-resizing histograms of the same precision: adding never fails
        let _ = self.hist.add(&other.hist);
    }
    pub fn stat(&self) -> Stat {
        if self.count == 0 {
            return Stat::default();
        }
        Stat {
            count: self.count,
            mean_ns: (self.sum / u128::from(self.count)) as u64,
            max_ns: self.max,
            p99_ns: self.hist.value_at_quantile(0.99).min(self.max),
        }
    }
}

/// Integrates a piecewise-constant level over the measured window [start, end).
#[derive(Clone, Copy, Default)]
pub(crate) struct Level {
    level: u64,
    since: SimTime,
    integral: u128,
    peak: u64,
}

impl Level {
    /// Changes the level at `now`, integrating the old level over its clipped interval.
    #[inline]
    pub fn set(&mut self, now: SimTime, level: u64, window: (SimTime, SimTime)) {
        self.integral += clip(self.since, now, window) as u128 * u128::from(self.level);
        if now >= window.0 && now < window.1 {
            self.peak = self.peak.max(level);
        }
        self.level = level;
        self.since = now;
    }
    /// Called when the window opens so the peak starts from the current level.
    pub fn open(&mut self, now: SimTime) {
        self.integral = 0;
        self.since = now;
        self.peak = self.level;
    }
    pub fn level(&self) -> u64 {
        self.level
    }
    /// The integral so far, as if the level were closed at `now` (nothing changes).
    pub fn integral_at(&self, now: SimTime, window: (SimTime, SimTime)) -> u128 {
        self.integral + clip(self.since, now, window) as u128 * u128::from(self.level)
    }
    /// Closes at `end`; returns (integral, peak).
    pub fn close(&mut self, end: SimTime, window: (SimTime, SimTime)) -> (u128, u64) {
        let l = self.level;
        self.set(end, l, window);
        (self.integral, self.peak)
    }
}

/// Length of [a, b) ∩ [w0, w1).
#[inline]
pub(crate) fn clip(a: SimTime, b: SimTime, window: (SimTime, SimTime)) -> u64 {
    let lo = a.max(window.0);
    let hi = b.min(window.1);
    hi.as_nanos().saturating_sub(lo.as_nanos())
}
