//! `summary.json`'s `transmission`: the egress link, its policy and the clients it sent to
//! (Pappas et al. §2.2–2.3, §3.2), present when the scenario has `[transmission]`.

use serde::{Deserialize, Serialize};

/// The egress link and the clients over the measured period.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TransmissionSummary {
    /// The transmission policy (`rate-edf`, ...).
    pub policy: String,
    /// The egress link's rate.
    pub egress_rate_bps: u64,
    /// Packets the egress finished sending in the period.
    pub packets: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes sent × 8 / the period: the transmit throughput.
    pub throughput_bps: f64,
    /// Share of the period the egress was sending (held by a packet's link or CPU time).
    pub egress_utilization_ratio: f64,
    /// Share of the period the server CPU spent sending (`cpu_per_packet`,
    /// `cpu_ns_per_byte`).
    pub cpu_utilization_ratio: f64,
    /// Packets that reached their client in the period, or were lost there.
    pub client_packets: u64,
    /// Of them, the packets lost (a full receive queue).
    pub client_packets_lost: u64,
    /// `client_packets_lost / client_packets` (0 without packets).
    pub loss_ratio: f64,
    /// Mean over clients that received packets of the bytes received × 8 / the period.
    pub goodput_mean_bps: f64,
    /// Mean over those clients of their mean jitter (|arrival − smooth schedule|).
    pub jitter_mean_ns: u64,
    /// The largest jitter of any client.
    pub jitter_max_ns: u64,
    /// Mean display frame rate over clients that received packets.
    pub frame_rate_mean_fps: f64,
    /// Terminal 0, the paper's monitored first client (`null` if it received nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monitored: Option<ClientFigures>,
}

/// One client's figures over the measured period (a row of `clients.csv`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientFigures {
    /// Its terminal.
    pub terminal: u64,
    /// Its profile (`ideal` without one).
    pub profile: String,
    /// Packets that reached it (received or lost).
    pub packets: u64,
    /// Packets lost at its full receive queue.
    pub packets_lost: u64,
    /// `packets_lost / packets`.
    pub loss_ratio: f64,
    /// Bytes received × 8 / the period.
    pub goodput_bps: f64,
    /// Mean |arrival − smooth schedule| of its received packets.
    pub jitter_mean_ns: u64,
    /// 99th percentile of it (from a histogram with 2 significant digits).
    pub jitter_p99_ns: u64,
    /// Largest.
    pub jitter_max_ns: u64,
    /// Share of the period its CPU spent receiving.
    pub rx_cpu_ratio: f64,
    /// Frames per second it could decode and display with the CPU receiving leaves.
    pub frame_rate_fps: f64,
}
