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
}

impl EgressSection {
    /// Checks every key's range.
    pub fn validate(&self) -> Result<(), (String, String)> {
        check_rate("server.egress.rate", self.rate)?;
        check_at_most_a_second("server.egress.cpu_per_packet", self.cpu_per_packet)?;
        check_per_byte("server.egress.cpu_ns_per_byte", self.cpu_ns_per_byte)
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
}
