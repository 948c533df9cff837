//! What a packet lost at its client costs the client's CPU (Pappas et al. §2.3; the
//! `lost_packet_cpu` key of `[[clients.profile]]`).
//!
//! A client loses a packet when it arrives and finds no room for it in the receive queue
//! (the socket buffer, [`Clients`](super::clients::Clients)). The packet has crossed the
//! client's link and its network stack by then: the paper's reading of its client tests is
//! that "the data reception tasks are consuming much CPU time" (§2.3), and a datagram is
//! dropped for want of socket-buffer space only after the interrupt, driver and protocol
//! work that brought it there. So by default (`full`) a lost packet costs the client's CPU
//! what receiving it would have (`rx_cpu_per_packet + bytes × rx_cpu_ns_per_byte`), then is
//! dropped. The work is done in arrival order, after the packets already queued (the CPU
//! serves arrivals first come first served, like every received packet); it keeps the CPU
//! busy (it counts in the receive share and delays the packets after it) but takes no room
//! in the receive queue. `none` is the opposite bound: the packet is refused before any
//! work and costs nothing.
//!
//! Reading of what the paper leaves open: where in the client's stack the packets are lost
//! and what of the receive work a dropped one has had. `full` charges all of it, including
//! the per-byte part (a real stack drops before the copy to the application, which this
//! one-stage CPU model cannot separate from the rest of the per-byte cost); it is the
//! default because it is what "received, then dropped" means in this model.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a packet lost at its client costs the client's CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LostPacketCpu {
    /// Its whole receive cost, in arrival order: received, then dropped (default).
    #[default]
    Full,
    /// Nothing: refused before any receive work.
    None,
}

impl LostPacketCpu {
    /// The CPU time in nanoseconds a lost packet takes, when receiving it would take
    /// `receive_ns`.
    pub fn cost(self, receive_ns: u64) -> u64 {
        match self {
            LostPacketCpu::Full => receive_ns,
            LostPacketCpu::None => 0,
        }
    }

    /// Whether the default (`full`): serde's `skip_serializing_if`, so that a profile
    /// that does not set the key resolves as it did before the key existed.
    pub fn is_default(&self) -> bool {
        *self == LostPacketCpu::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_charges_the_receive_cost_and_none_nothing() {
        assert_eq!(LostPacketCpu::default(), LostPacketCpu::Full);
        assert_eq!(LostPacketCpu::Full.cost(6_553_800), 6_553_800);
        assert_eq!(LostPacketCpu::None.cost(6_553_800), 0);
    }

    #[test]
    fn parses_lowercase_and_refuses_other_words() {
        #[derive(Deserialize)]
        struct K {
            k: LostPacketCpu,
        }
        let k: K = toml::from_str("k = \"none\"").unwrap();
        assert_eq!(k.k, LostPacketCpu::None);
        let k: K = toml::from_str("k = \"full\"").unwrap();
        assert_eq!(k.k, LostPacketCpu::Full);
        assert!(toml::from_str::<K>("k = \"half\"").is_err());
    }
}
