//! The spread of a client's packet inter-arrival times about the smooth schedule's
//! (Pappas et al. §3.2's jitter, "the variations of the packet arrival times from the
//! expected ones for smooth transmission rate", as the reading notes' §4.9 recommend
//! judging it: the standard deviation of the inter-arrival deviations
//! a_k − a_{k−1} − (e_k − e_{k−1}) over an interval).
//!
//! a_k is the arrival of the k-th packet the client received, e_k its expected time on the
//! smooth schedule ([`Clients`](super::clients::Clients): the stream's bytes at its rate,
//! lost packets' bytes included, restarted when a block became ready late). Unlike
//! |a_k − e_k| this does not grow with an offset the whole schedule carries: it measures
//! how evenly the packets come, not how early or late they all are. Each interval's
//! deviations are counted in the interval of their packet k; the first packet received has
//! no deviation.

/// Inter-arrival deviations of one client, per interval.
#[derive(Default, Debug)]
pub(super) struct InterArrival {
    /// The previous received packet: (arrival ns, expected ns × rate).
    prev: Option<(u64, u128)>,
    n: u64,
    sum: i128,
    squares: u128,
}

impl InterArrival {
    /// A packet received at `arrival_ns`, expected at `expected` (ns × `rate`); `count`:
    /// whether its deviation belongs to the interval measured.
    pub fn record(&mut self, arrival_ns: u64, expected: u128, rate: u128, count: bool) {
        if let Some((a, e)) = self.prev {
            if count {
                let expected_gap = (expected.saturating_sub(e) / rate.max(1)) as i128;
                let dev = (i128::from(arrival_ns) - i128::from(a)) - expected_gap;
                self.n += 1;
                self.sum += dev;
                self.squares += dev.unsigned_abs() * dev.unsigned_abs();
            }
        }
        self.prev = Some((arrival_ns, expected));
    }

    /// The interval's standard deviation in nanoseconds (0 without two deviations), and
    /// a fresh interval (the previous packet is kept).
    pub fn take_std_ns(&mut self) -> u64 {
        let std = if self.n >= 2 {
            let n = self.n as f64;
            let mean = self.sum as f64 / n;
            let var = (self.squares as f64 / n - mean * mean).max(0.0);
            var.sqrt().round() as u64
        } else {
            0
        };
        *self = InterArrival {
            prev: self.prev,
            ..InterArrival::default()
        };
        std
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smooth_or_uniformly_late_arrivals_have_no_spread() {
        // expected every 10 ms (rate 1: expected in plain ns); arrivals 3 ms late, all
        let mut ia = InterArrival::default();
        for k in 0..10u64 {
            ia.record(
                k * 10_000_000 + 3_000_000,
                u128::from(k * 10_000_000),
                1,
                true,
            );
        }
        assert_eq!(ia.take_std_ns(), 0);
    }

    #[test]
    fn pairs_spread_by_half_the_gap() {
        // expected every 10 ms; packets come in pairs 0 and 20 ms apart: the 10
        // deviations alternate −10 and +10 ms, std 10 ms
        let mut ia = InterArrival::default();
        for k in 0..11u64 {
            let a = (k / 2) * 20_000_000;
            ia.record(a, u128::from(k * 10_000_000) * 1000, 1000, true);
        }
        assert_eq!(ia.take_std_ns(), 10_000_000);
        // the next interval starts from the last packet kept
        ia.record(100_000_000, 100_000_000_000, 1000, true);
        assert_eq!(ia.take_std_ns(), 0);
        assert_eq!(ia.prev, Some((100_000_000, 100_000_000_000)));
    }
}
