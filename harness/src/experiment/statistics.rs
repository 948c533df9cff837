//! The stopping rule of a search (SPIFFI §7.1): replications are repeated until a two-sided
//! Student-t interval on the mean of their answers is 90 % confident to be within 5 % of the
//! mean, after at least three of them.

use crate::results::search::Interval;

/// Confidence level of the interval on the answer (SPIFFI §7.1: 90 %).
pub const CONFIDENCE: f64 = 0.90;
/// Target half-width of that interval relative to the mean (SPIFFI §7.1: 5 %).
pub const PRECISION: f64 = 0.05;
/// Fewest replications before the interval is trusted (the default and the lower bound of
/// [`SearchOptions::min_replications`](super::search::SearchOptions)).
pub const MIN_REPLICATIONS: u32 = 3;

/// The 95th percentile of Student's t with `df` degrees of freedom: the factor of a
/// two-sided 90 % interval. Exact table to 30, Cornish-Fisher expansion beyond.
pub fn t_quantile_90(df: u32) -> f64 {
    const T: [f64; 30] = [
        6.3138, 2.9200, 2.3534, 2.1318, 2.0150, 1.9432, 1.8946, 1.8595, 1.8331, 1.8125, 1.7959,
        1.7823, 1.7709, 1.7613, 1.7531, 1.7459, 1.7396, 1.7341, 1.7291, 1.7247, 1.7207, 1.7171,
        1.7139, 1.7109, 1.7081, 1.7056, 1.7033, 1.7011, 1.6991, 1.6973,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df as usize - 1],
        _ => {
            let z: f64 = 1.644_853_626_951_472_2;
            let n = f64::from(df);
            z + (z.powi(3) + z) / (4.0 * n)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

/// The 90 % Student-t interval of the mean of `xs` (infinitely wide for fewer than two).
pub fn interval(xs: &[f64]) -> Interval {
    let n = xs.len() as f64;
    let mean = if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / n
    };
    let half_width = if xs.len() < 2 {
        f64::INFINITY
    } else {
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        t_quantile_90(xs.len() as u32 - 1) * (var / n).sqrt()
    };
    let relative_half_width = if half_width == 0.0 {
        0.0
    } else {
        half_width / mean
    };
    Interval {
        level: CONFIDENCE,
        mean,
        half_width,
        relative_half_width,
        low: mean - half_width,
        high: mean + half_width,
    }
}

/// Whether replications with these maxima meet the target: at least `min_replications`
/// (never fewer than [`MIN_REPLICATIONS`]) and a 90 % interval within 5 % of the mean.
pub fn precise_enough(maxima: &[u32], min_replications: u32) -> bool {
    if maxima.len() < min_replications.max(MIN_REPLICATIONS) as usize {
        return false;
    }
    let xs: Vec<f64> = maxima.iter().map(|&m| f64::from(m)).collect();
    interval(&xs).relative_half_width <= PRECISION
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles() {
        assert_eq!(t_quantile_90(2), 2.92);
        assert!((t_quantile_90(31) - 1.6955).abs() < 1e-3);
        assert!((t_quantile_90(120) - 1.6577).abs() < 1e-3);
        assert!((t_quantile_90(1_000_000) - 1.6449).abs() < 1e-3);
        assert!(t_quantile_90(0).is_infinite());
    }

    #[test]
    fn interval_and_stopping_rule() {
        // mean 100, s = 10, n = 3: 2.92 × 10 / √3 = 16.86
        let ci = interval(&[90.0, 100.0, 110.0]);
        assert_eq!(ci.mean, 100.0);
        assert!((ci.half_width - 16.858).abs() < 1e-3, "{ci:?}");
        assert!(!precise_enough(&[90, 100, 110], 3));
        // s = 1: 2.92 / √3 = 1.69 ≤ 5 % of 100
        assert!(precise_enough(&[99, 100, 101], 3));
        assert!(
            !precise_enough(&[100, 100], 3),
            "at least three replications"
        );
        assert!(!precise_enough(&[100, 100], 1), "never fewer than three");
        assert!(!precise_enough(&[99, 100, 101], 4), "the minimum asked for");
        assert!(precise_enough(&[99, 100, 101, 100], 4));
        assert!(precise_enough(&[0, 0, 0], 3));
        assert!(!precise_enough(&[0, 0, 1], 3));
    }
}
