//! The statistic DiskSim's validation suite reports against real drives: the RMS horizontal
//! distance between two access-time distributions as DiskSim prints them (its `rms` utility,
//! run by `valid/runvalid` on each validation trace).
//!
//! DiskSim does not compare raw samples. Each side is first counted into the buckets of the
//! `Physical access time` / `Trace access time` statistic of its `statdefs` file (1750 buckets,
//! values scaled by 1000 and truncated to integers, bucket starts growing from 0 by `1 +
//! ⌊start · 1 %⌋`), printed as a cumulative distribution (`%6.3f` ms, `%f` fraction), and
//! the printed points are compared: at every quantile 0.0001, 0.0002, … the two curves are
//! interpolated linearly between printed points, and the RMS of the horizontal gaps is the
//! figure (in ms). A sample lands in the bucket whose *start* is the first above it, so each
//! printed point is (bucket start, fraction of samples below it).
//!
//! This module counts, prints and compares exactly so, so that a model replayed against a real
//! drive's trace gets the figure DiskSim's own documentation quotes for DiskSim (0.090 ms for
//! HP C2247A, 0.348 for Seagate Barracuda ST32171W, 0.107 for Cheetah 9LP ST39102LW).
//!
//! ```
//! use vodbench_harness::experiment::disksim_rms::{rms, AccessTimes};
//! let mut a = AccessTimes::physical_access_time();
//! let mut b = AccessTimes::physical_access_time();
//! for v in [1.0, 2.0, 3.0] {
//!     a.add(v);
//!     b.add(v);
//! }
//! assert_eq!(rms(&a.printed(), &b.printed()), 0.0);
//! ```

/// One printed point of a cumulative distribution: (value in ms, fraction of samples at or
/// below the bucket).
pub type Point = (f64, f64);

/// A DiskSim "large" distribution statistic (`Start s  step t  grow g` in `statdefs`).
#[derive(Clone, Debug)]
pub struct AccessTimes {
    /// Values are multiplied by this and truncated before bucketing.
    scale: f64,
    /// Bucket starts, in scaled units.
    starts: Vec<i64>,
    counts: Vec<u64>,
    count: u64,
}

impl AccessTimes {
    /// A statistic of `buckets` buckets whose starts begin at `start` and grow by `step +
    /// ⌊|start| · grow / 100⌋`, values scaled by `scale`.
    pub fn new(buckets: usize, scale: u32, start: i64, step: i64, grow: i64) -> Self {
        let mut starts = Vec::with_capacity(buckets);
        let mut b = start;
        for _ in 0..buckets {
            starts.push(b);
            b += step + (b.abs() * grow) / 100;
        }
        AccessTimes {
            scale: f64::from(scale),
            starts,
            counts: vec![0; buckets],
            count: 0,
        }
    }

    /// `Physical access time` (and `Trace access time`) of DiskSim 4.0's `statdefs`: 1750
    /// buckets, scale 1000, start 0, step 1, grow 1 %.
    pub fn physical_access_time() -> Self {
        Self::new(1750, 1000, 0, 1, 1)
    }

    /// Counts one access time (ms).
    pub fn add(&mut self, ms: f64) {
        let n = self.starts.len();
        if n < 2 {
            return;
        }
        // C's `(int) (value * scale)`: truncation toward zero
        let v = (ms * self.scale).trunc() as i64;
        if v < self.starts[0] {
            // below the first bucket: counted in the total, in no bucket (as DiskSim does)
            self.count += 1;
            return;
        }
        // the first bucket j ≥ 1 whose start is above v, the last one catching the rest
        let j = self.starts[1..n - 1].partition_point(|s| *s <= v) + 1;
        self.counts[j] += 1;
        self.count += 1;
    }

    /// Samples counted.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The cumulative distribution as DiskSim prints it (values to 3 decimals, fractions to
    /// 6), up to and including the first point whose fraction prints as 1.
    pub fn printed(&self) -> Vec<Point> {
        let mut out = Vec::new();
        if self.count == 0 {
            return out;
        }
        let mut dist = 0.0;
        for (s, c) in self.starts.iter().zip(&self.counts) {
            // summed as DiskSim sums densities, then rounded as printf rounds
            dist += *c as f64 / self.count as f64;
            let x = round_to(*s as f64 / self.scale, 3);
            let y = round_to(dist, 6);
            out.push((x, y));
            if y >= 1.0 {
                break;
            }
        }
        out
    }
}

/// `v` rounded to `d` decimals as `printf("%.{d}f")` then read back.
fn round_to(v: f64, d: usize) -> f64 {
    format!("{v:.d$}").parse().unwrap_or(v)
}

/// The RMS horizontal distance (ms) between two printed cumulative distributions, sampled at
/// the quantiles 0.0001, 0.0002, … (the step added up in floating point, as DiskSim's `rms`
/// does, so the last quantile is the largest sum not above 1), interpolating linearly between
/// a curve's printed points. Zero when either curve is empty or never reaches a quantile.
pub fn rms(a: &[Point], b: &[Point]) -> f64 {
    let (mut sum, mut n) = (0.0, 0u32);
    let (mut i, mut j) = (0usize, 0usize);
    let mut q = 0.0001_f64;
    while q <= 1.0 {
        let (Some(x), Some(y)) = (at(a, q, &mut i), at(b, q, &mut j)) else {
            return 0.0;
        };
        sum += (x - y) * (x - y);
        n += 1;
        q += 0.0001;
    }
    if n == 0 {
        0.0
    } else {
        (sum / f64::from(n)).sqrt()
    }
}

/// The value at which `curve` reaches fraction `q`, interpolated between the point before
/// and the first point at or above `q` (`i` is where the previous quantile's search ended).
fn at(curve: &[Point], q: f64, i: &mut usize) -> Option<f64> {
    while curve.get(*i)?.1 < q {
        *i += 1;
    }
    let (x1, y1) = curve[*i];
    let Some(&(x0, y0)) = i.checked_sub(1).and_then(|k| curve.get(k)) else {
        return Some(x1);
    };
    Some(x0 + (q - y0) / (y1 - y0) * (x1 - x0))
}

/// The printed distribution titled `title` (for example `IOdriver Physical access time` or
/// `VALIDATE Trace access time`) in a DiskSim output file: the lines after `{title}
/// distribution` up to the first whose fraction is 1. `None` if the title is not there or a
/// line does not hold four numbers.
pub fn parse_printed(outv: &str, title: &str) -> Option<Vec<Point>> {
    let head = format!("{title} distribution");
    let mut lines = outv.lines().skip_while(|l| l.trim_end() != head).skip(1);
    let mut out = Vec::new();
    loop {
        let f: Vec<f64> = lines
            .next()?
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        if f.len() != 4 {
            return None;
        }
        out.push((f[0], f[3]));
        if f[3] >= 1.0 {
            return Some(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_starts_grow_as_disksims() {
        let a = AccessTimes::physical_access_time();
        // 0, 1, …, 100 by 1, then by 2 once 1 % of the start is a whole unit
        assert_eq!(&a.starts[..3], &[0, 1, 2]);
        assert_eq!(a.starts[100], 100);
        assert_eq!(a.starts[101], 102);
        assert_eq!(a.starts[102], 104);
    }

    #[test]
    fn a_sample_counts_at_the_first_start_above_it() {
        let mut a = AccessTimes::physical_access_time();
        a.add(0.0005); // scaled 0.5 → 0: below start 1
        a.add(0.1); // 100 → bucket starting at 102
        a.add(0.1019); // 101 → also 102
        a.add(0.102); // 102 → 104
        assert_eq!(a.counts[1], 1);
        assert_eq!(a.counts[101], 2);
        assert_eq!(a.counts[102], 1);
        let p = a.printed();
        assert_eq!(p.last(), Some(&(0.104, 1.0)));
        assert_eq!(p[1], (0.001, 0.25));
        // far beyond the last start: the last bucket
        a.add(1e9);
        assert_eq!(a.counts[1749], 1);
    }

    #[test]
    fn rms_of_a_shifted_curve_is_the_shift() {
        let a: Vec<Point> = vec![(0.0, 0.0), (1.0, 0.5), (2.0, 1.0)];
        let b: Vec<Point> = a.iter().map(|(x, y)| (x + 0.25, *y)).collect();
        assert!((rms(&a, &b) - 0.25).abs() < 1e-12);
        assert_eq!(rms(&a, &a), 0.0);
        assert_eq!(rms(&a, &[]), 0.0);
    }

    #[test]
    fn a_printed_distribution_is_read_back() {
        let text = "x\nIOdriver Physical access time distribution\n 0.000  \t      0  \t0.000000  \t0.000000\n 0.001  \t      2  \t1.000000  \t1.000000\n 0.002 \t 0 \t 0 \t 1\n";
        assert_eq!(
            parse_printed(text, "IOdriver Physical access time"),
            Some(vec![(0.0, 0.0), (0.001, 1.0)])
        );
        assert_eq!(parse_printed(text, "Seek time"), None);
    }
}
