//! Seek time by distance, in integer picoseconds, for DiskSim's seek forms.
//!
//! The whole curve is tabulated once at load (one entry per cylinder distance), so a seek
//! costs one array read. A seek to another head takes `max(seek, head switch)`; a write adds
//! the write settle to any non-zero positioning time (DiskSim's `dm_seek_time_g1`).

use super::spec::{MechSpec, SeekSpec};

/// Milliseconds (f64) to picoseconds, truncating like DiskSim's `dm_time_dtoi`.
pub fn ms_to_ps(ms: f64) -> u64 {
    if ms <= 0.0 || !ms.is_finite() {
        0
    } else {
        (ms * 1e9) as u64
    }
}

/// The time of one seek curve form for distance `d` > 0, in ms.
pub fn curve_ms(seek: &SeekSpec, d: u32, cylinders: u32) -> f64 {
    let df = f64::from(d);
    match seek {
        SeekSpec::Constant(t) => *t,
        SeekSpec::Linear {
            single,
            average,
            full,
        } => {
            // straight lines through (1, single), (n/3, average), (n−1, full)
            let n = f64::from(cylinders.max(4));
            let third = (n / 3.0).max(2.0);
            if df <= third {
                single + (average - single) * (df - 1.0) / (third - 1.0)
            } else {
                average + (full - average) * (df - third) / ((n - 1.0 - third).max(1.0))
            }
        }
        SeekSpec::Curve {
            single,
            average,
            full,
        } => single + average * (df - 1.0) + full * (df - 1.0).sqrt(),
        SeekSpec::Hpl {
            boundary,
            v,
            single,
            first_ten,
        } => {
            if let Some(ten) = first_ten {
                if d <= 10 {
                    return ten[d as usize - 1];
                }
            } else if let (1, Some(s)) = (d, single) {
                return *s;
            }
            if d < *boundary {
                v[0] + v[1] * df.sqrt()
            } else {
                v[2] + v[3] * df
            }
        }
        SeekSpec::Table(t) => {
            // first point with distance ≥ d, or the last segment (extrapolation)
            let i = t.partition_point(|&(x, _)| x < d);
            if i < t.len() && t[i].0 == d {
                return t[i].1;
            }
            let i = i.clamp(1, t.len() - 1);
            let (d1, t1) = t[i - 1];
            let (d2, t2) = t[i];
            t1 + (df - f64::from(d1)) * (t2 - t1) / f64::from(d2 - d1)
        }
    }
}

/// Floor of the square root of `x`.
fn isqrt(x: u64) -> u64 {
    let mut r = (x as f64).sqrt() as u64;
    while r.checked_mul(r).is_none_or(|sq| sq > x) {
        r -= 1;
    }
    while (r + 1).checked_mul(r + 1).is_some_and(|sq| sq <= x) {
        r += 1;
    }
    r
}

/// Seek time over `d` > 0 cylinders in ps. The square-root branch of the HPL forms is
/// computed as DiskSim does, in 16-bit fixed point on picoseconds
/// (`⌊√(d·2³²)⌋ · v2 / 2¹⁶ + v1`), so it agrees with DiskSim to the picosecond.
pub fn curve_ps(seek: &SeekSpec, d: u32, cylinders: u32) -> u64 {
    if let SeekSpec::Hpl {
        boundary,
        v,
        single,
        first_ten,
    } = seek
    {
        let short = match first_ten {
            Some(_) => d <= 10,
            None => d == 1 && single.is_some(),
        };
        if !short && d < *boundary {
            let root = u128::from(isqrt(u64::from(d) << 32));
            return (((root * u128::from(ms_to_ps(v[1]))) >> 16) as u64)
                .saturating_add(ms_to_ps(v[0]));
        }
    }
    if let SeekSpec::Table(t) = seek {
        // DiskSim interpolates in integer ps
        let i = t.partition_point(|&(x, _)| x < d);
        if i < t.len() && t[i].0 == d {
            return ms_to_ps(t[i].1);
        }
        let i = i.clamp(1, t.len() - 1);
        let (d1, t1) = (u64::from(t[i - 1].0), ms_to_ps(t[i - 1].1));
        let (d2, t2) = (u64::from(t[i].0), ms_to_ps(t[i].1));
        let dd = u64::from(d).saturating_sub(d1);
        return if t1 > t2 {
            t1.saturating_sub(dd * (t1 - t2) / (d2 - d1))
        } else {
            t1 + dd * (t2 - t1) / (d2 - d1)
        };
    }
    ms_to_ps(curve_ms(seek, d, cylinders))
}

/// Tabulated seek times of one disk.
#[derive(Clone, Debug)]
pub struct SeekCurve {
    by_distance: Vec<u64>,
    head_switch: u64,
    write_settle: u64,
}

impl SeekCurve {
    /// Tabulates `mech` for distances `0..cylinders`.
    pub fn new(mech: &MechSpec, cylinders: u32) -> SeekCurve {
        let by_distance = (0..cylinders.max(1))
            .map(|d| {
                if d == 0 {
                    0
                } else {
                    curve_ps(&mech.seek, d, cylinders)
                }
            })
            .collect();
        SeekCurve {
            by_distance,
            head_switch: ms_to_ps(mech.head_switch),
            write_settle: ms_to_ps(mech.write_settle),
        }
    }

    /// Positioning time from `(c1, h1)` to `(c2, h2)`, in ps.
    pub fn time(&self, c1: u32, h1: u32, c2: u32, h2: u32, write: bool) -> u64 {
        let d = c1.abs_diff(c2) as usize;
        let mut t = self.by_distance[d.min(self.by_distance.len() - 1)];
        if h1 != h2 {
            t = t.max(self.head_switch);
        }
        if t != 0 && write {
            t += self.write_settle;
        }
        t
    }

    /// The longest positioning time (full stroke, head switch, settle), in ps.
    pub fn max(&self) -> u64 {
        self.by_distance
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .max(self.head_switch)
            + self.write_settle
    }
}
