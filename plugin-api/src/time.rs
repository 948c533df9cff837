//! Simulated time: integer nanoseconds, never floating point.
//!
//! [`SimTime`] is an instant since the start of a run and [`SimDuration`] a span between two
//! instants. Both wrap a `u64` count of nanoseconds (enough for 584 years), so arithmetic is
//! exact and runs are reproducible bit for bit. Conversions to seconds as `f64` exist only for
//! reporting.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Nanoseconds in one second.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct SimTime(u64);

/// A span of simulated time, in nanoseconds.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct SimDuration(u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable instant (used as "never").
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// An instant `ns` nanoseconds after the start of the run.
    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    /// Nanoseconds since the start of the run.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds since the start of the run (for reporting only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// The span from `earlier` to `self`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
    /// `self - d`, clamped at zero.
    pub fn saturating_sub(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }
}

impl SimDuration {
    /// No time at all.
    pub const ZERO: SimDuration = SimDuration(0);
    /// The longest representable span.
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    /// A span of `ns` nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    /// A span of `us` microseconds.
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    /// A span of `ms` milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    /// A span of `s` seconds.
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NANOS_PER_SEC)
    }
    /// The span in nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// The span in seconds (for reporting only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// The span in milliseconds (for reporting only).
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    /// `self * n`, saturating.
    pub fn saturating_mul(self, n: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(n))
    }
    /// `self + other`, saturating.
    pub fn saturating_add(self, other: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(other.0))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}
impl AddAssign for SimDuration {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }
}
impl Sub for SimTime {
    type Output = SimDuration;
    /// The span between two instants; panics in debug builds if `rhs` is later.
    fn sub(self, rhs: SimTime) -> SimDuration {
        debug_assert!(self.0 >= rhs.0, "time went backwards: {self} - {rhs}");
        SimDuration(self.0.saturating_sub(rhs.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", fmt_secs(self.0))
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", fmt_secs(self.0))
    }
}

/// `⌊a · b / c⌋` without overflow (`c > 0`; the result must fit in `u64`). Uses 64-bit
/// arithmetic when `a · b` fits, as it nearly always does for simulated times — a 128-bit
/// division is a library call several times slower — and 128-bit arithmetic otherwise.
#[inline]
pub fn mul_div_floor(a: u64, b: u64, c: u64) -> u64 {
    match a.checked_mul(b) {
        Some(p) => p / c,
        None => (u128::from(a) * u128::from(b) / u128::from(c)) as u64,
    }
}

/// `⌈a · b / c⌉` without overflow, as [`mul_div_floor`].
#[inline]
pub fn mul_div_ceil(a: u64, b: u64, c: u64) -> u64 {
    match a.checked_mul(b) {
        Some(p) => p.div_ceil(c),
        None => (u128::from(a) * u128::from(b)).div_ceil(u128::from(c)) as u64,
    }
}

/// Formats nanoseconds as exact decimal seconds (`12.5s`, `0.000000001s`).
pub fn fmt_secs(ns: u64) -> String {
    let s = ns / NANOS_PER_SEC;
    let frac = ns % NANOS_PER_SEC;
    if frac == 0 {
        format!("{s}s")
    } else {
        let f = format!("{frac:09}");
        format!("{s}.{}s", f.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_div_matches_128_bit_arithmetic() {
        let cases = [
            (0u64, 7u64, 3u64),
            (10, 1_000_000_000, 30),
            (u64::MAX, 1_000_000_000, 30_000_000_000),
            (u64::MAX / 3, 3, 1),
            (123_456_789_012, 987_654_321, 1_000_000_007),
            (u64::MAX, u64::MAX, u64::MAX),
        ];
        for (a, b, c) in cases {
            let p = u128::from(a) * u128::from(b);
            assert_eq!(u128::from(mul_div_floor(a, b, c)), p / u128::from(c));
            assert_eq!(u128::from(mul_div_ceil(a, b, c)), p.div_ceil(u128::from(c)));
        }
    }

    #[test]
    fn arithmetic_is_exact_and_saturating() {
        let t = SimTime::from_nanos(5) + SimDuration::from_micros(2);
        assert_eq!(t.as_nanos(), 2_005);
        assert_eq!((t - SimTime::from_nanos(5)).as_nanos(), 2_000);
        assert_eq!(SimTime::MAX + SimDuration::from_secs(1), SimTime::MAX);
        assert_eq!(
            SimTime::from_nanos(3).saturating_since(SimTime::from_nanos(9)),
            SimDuration::ZERO
        );
    }

    #[test]
    fn display_is_exact_seconds() {
        assert_eq!(SimDuration::from_millis(1500).to_string(), "1.5s");
        assert_eq!(SimTime::from_nanos(1).to_string(), "0.000000001s");
        assert_eq!(SimDuration::from_secs(60).to_string(), "60s");
    }
}
