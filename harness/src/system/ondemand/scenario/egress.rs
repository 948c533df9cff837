//! `[server.egress]`: the server's egress link and the CPU it spends per packet (Pappas et
//! al. §2.2). Only read when the scenario has `[transmission]`.

use super::clients::{check_at_most_a_second, check_per_byte, check_rate};
use crate::units::{Bandwidth, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[server.egress]`: the link the Xmt-Server sends every packet on, and the server CPU it
/// spends per packet (Pappas et al. §2.2: UDP over a 155 Mbit/s ATM card; 56 / 100 /
/// 122 Mbit/s of transmit throughput on three server machines). A packet holds the egress
/// for the longer of its time on the link (`bytes / rate`) and its CPU time
/// (`cpu_per_packet + bytes × cpu_ns_per_byte`): the CPU prepares the next packet while the
/// card sends this one, so the transmit capacity is the smaller of the two rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EgressSection {
    /// The link's rate (1kbit/s..=10Tbit/s), e.g. `"155Mbit/s"`.
    pub rate: Bandwidth,
    /// Server CPU time per packet (default 0; at most 1s).
    #[serde(default)]
    pub cpu_per_packet: Duration,
    /// Server CPU nanoseconds per byte sent (default 0; 0..=1000000).
    #[serde(default)]
    pub cpu_ns_per_byte: f64,
    /// The fraction of the server CPU another CPU-heavy process on the node asks for
    /// (0..=1, default 0; Pappas et al. §3.4, P14's "other CPU-heavy processes").
    #[serde(default, skip_serializing_if = "is_zero")]
    pub background: f64,
    /// The transmitter's CPU scheduling class: `"rt"` (default: a real-time class that
    /// preempts `background`, whose CPU time is then as without it) or `"timeshare"` (it
    /// shares the CPU with `background`: while it wants the CPU it gets the larger of
    /// `1 - background` and half of it, so its CPU time per packet is divided by that).
    #[serde(default, skip_serializing_if = "CpuClass::is_rt")]
    pub priority: CpuClass,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// The transmitter's CPU scheduling class (`server.egress.priority`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CpuClass {
    /// Real-time: preempts the background process.
    #[default]
    Rt,
    /// Time-shared with the background process.
    Timeshare,
}

impl CpuClass {
    fn is_rt(&self) -> bool {
        *self == CpuClass::Rt
    }
}

impl EgressSection {
    /// Checks every key's range.
    pub fn validate(&self) -> Result<(), (String, String)> {
        check_rate("server.egress.rate", self.rate)?;
        check_at_most_a_second("server.egress.cpu_per_packet", self.cpu_per_packet)?;
        check_per_byte("server.egress.cpu_ns_per_byte", self.cpu_ns_per_byte)?;
        if !self.background.is_finite() || !(0.0..=1.0).contains(&self.background) {
            return Err((
                "server.egress.background".into(),
                format!(
                    "must be a fraction of the CPU in 0..=1, got {}",
                    self.background
                ),
            ));
        }
        Ok(())
    }

    /// The share of the CPU the transmitter gets while it wants it: 1 under `rt` or
    /// without a background process, else the larger of `1 - background` and 1/2.
    pub fn cpu_share(&self) -> f64 {
        match self.priority {
            CpuClass::Rt => 1.0,
            CpuClass::Timeshare => (1.0 - self.background).max(0.5),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_their_key() {
        let ok = EgressSection {
            rate: Bandwidth(122_000_000),
            cpu_per_packet: Duration(50_000),
            cpu_ns_per_byte: 62.19,
            background: 0.0,
            priority: CpuClass::Rt,
        };
        assert_eq!(ok.validate(), Ok(()));
        let e = EgressSection {
            rate: Bandwidth(10),
            ..ok.clone()
        };
        assert_eq!(e.validate().unwrap_err().0, "server.egress.rate");
        let e = EgressSection {
            cpu_ns_per_byte: f64::NAN,
            ..ok.clone()
        };
        assert_eq!(e.validate().unwrap_err().0, "server.egress.cpu_ns_per_byte");
        let e = EgressSection {
            cpu_per_packet: Duration(2_000_000_000),
            ..ok
        };
        assert_eq!(e.validate().unwrap_err().0, "server.egress.cpu_per_packet");
    }

    #[test]
    fn the_transmitters_share_of_the_cpu() {
        let e = |background: f64, priority: CpuClass| EgressSection {
            rate: Bandwidth(122_000_000),
            cpu_per_packet: Duration(0),
            cpu_ns_per_byte: 0.0,
            background,
            priority,
        };
        assert_eq!(e(0.9, CpuClass::Rt).cpu_share(), 1.0);
        assert_eq!(e(0.0, CpuClass::Timeshare).cpu_share(), 1.0);
        assert_eq!(e(0.25, CpuClass::Timeshare).cpu_share(), 0.75);
        assert_eq!(e(0.9, CpuClass::Timeshare).cpu_share(), 0.5);
        for bad in [-0.1, 1.5, f64::NAN] {
            let err = e(bad, CpuClass::Timeshare).validate().unwrap_err();
            assert_eq!(err.0, "server.egress.background");
        }
    }
}
