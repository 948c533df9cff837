//! `[server.interface_cpu]`: the interface nodes' CPUs (Jadav et al. §5.2), with its section
//! check.

use super::values::{dur, range, size};
use crate::units::{Bytes, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[server.interface_cpu]`: each interface node's CPU, one job at a time, first come first
/// served (Jadav et al. §5.2's "scheduling, processing and buffering (copying) overhead" per
/// message): `send` for each stream request it sends, `receive` for each fragment it
/// receives plus the fragment's bytes at `copy_rate` (copied into the stream's buffer), and,
/// with `client_packet`, the packets it sends each playing client: one of `client_packet`
/// bytes every δ_I (the packet's playout time, eq. 1), costing `client_send` plus its bytes
/// at `copy_rate`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InterfaceCpuSection {
    /// CPU time to send a request (default 0).
    #[serde(default)]
    pub send: Duration,
    /// CPU time to receive a fragment (default 0).
    #[serde(default)]
    pub receive: Duration,
    /// The rate a fragment (and a client packet) is copied at (default: no copy time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_rate: Option<crate::units::Bandwidth>,
    /// P_I, the packet the interface node sends each playing client every δ_I, its playout
    /// time (Jadav et al. §3.2, eq. 1: 64KB in the paper; default: no packets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_packet: Option<Bytes>,
    /// CPU time to send one client packet, besides its bytes at `copy_rate` (default 0).
    #[serde(default, skip_serializing_if = "is_zero_duration")]
    pub client_send: Duration,
}

impl InterfaceCpuSection {
    /// `[server.interface_cpu]` with `interfaces` interface nodes and videos of `bit_rate`.
    pub(super) fn validate(&self, interfaces: u32, bit_rate: u64) -> Result<(), (String, String)> {
        let c = self;
        if interfaces == 0 {
            return Err((
                "server.interface_cpu".into(),
                "describes the interface nodes' CPUs, but there are none: set \
                 server.interface_nodes, or remove this table"
                    .into(),
            ));
        }
        range(
            "server.interface_cpu.send",
            c.send.0,
            0,
            10_000_000_000,
            &dur,
        )?;
        range(
            "server.interface_cpu.receive",
            c.receive.0,
            0,
            10_000_000_000,
            &dur,
        )?;
        if let Some(r) = c.copy_rate {
            if r.0 == 0 {
                return Err((
                    "server.interface_cpu.copy_rate".into(),
                    "must be above 0 (leave it out for no copy time)".into(),
                ));
            }
        }
        range(
            "server.interface_cpu.client_send",
            c.client_send.0,
            0,
            10_000_000_000,
            &dur,
        )?;
        if let Some(p) = c.client_packet {
            // one packet per playout time δ_I: at least 1 ms of video, so that packets
            // cannot flood the event queue
            let play_ns = u128::from(p.0) * 8 * 1_000_000_000 / u128::from(bit_rate.max(1));
            if p.0 == 0 || play_ns < 1_000_000 {
                return Err((
                    "server.interface_cpu.client_packet".into(),
                    format!(
                        "must hold at least 1 ms of video (at {} that is {} bytes), got {}",
                        crate::units::fmt_bit_rate(bit_rate),
                        (bit_rate / 8_000).max(1),
                        size(&p.0)
                    ),
                ));
            }
        } else if c.client_send.0 > 0 {
            return Err((
                "server.interface_cpu.client_send".into(),
                "is the cost of a client packet, but client_packet is not set: set \
                 server.interface_cpu.client_packet (e.g. \"64KB\")"
                    .into(),
            ));
        }
        Ok(())
    }
}

fn is_zero_duration(d: &Duration) -> bool {
    d.0 == 0
}
