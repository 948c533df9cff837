//! `[[clients.profile]]`: the clients the egress link sends to (Pappas et al. §2.3, §3.2).
//! Only read when the scenario has `[transmission]`.

use super::super::lost_packet::LostPacketCpu;
use crate::units::{Bandwidth, Bytes, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[clients]`: the client profiles (Pappas et al. §2.3: a profile measured when a client
/// registers tells the server its maximum rate and buffering).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientsSection {
    /// The profiles, assigned to terminals in order: the first `count` terminals get the
    /// first profile, the next `count` the second, and so on; a profile without `count`
    /// (only the last may omit it) takes every terminal left. Terminals beyond every profile
    /// are ideal clients (no access link, no loss, no CPU).
    pub profile: Vec<ClientProfile>,
}

/// `[[clients.profile]]`: one kind of client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientProfile {
    /// The profile's name (reported per client).
    pub name: String,
    /// Terminals with this profile (default: every terminal left; 1..=1000000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// The access link's rate (the client's ATM or Ethernet port; 1kbit/s..=10Tbit/s).
    /// Packets wait for it first come first served (the switch's buffer is not bounded).
    pub link: Bandwidth,
    /// The most the server may send it at (its profile's maximum rate; at most `link`).
    pub max_rate: Bandwidth,
    /// Receive queue (the socket buffer): a packet that does not fit whole is lost
    /// (at least 1B).
    pub rx_queue: Bytes,
    /// Client CPU time to receive a packet (default 0; at most 1s).
    #[serde(default)]
    pub rx_cpu_per_packet: Duration,
    /// Client CPU nanoseconds per byte received (default 0; 0..=1000000).
    #[serde(default)]
    pub rx_cpu_ns_per_byte: f64,
    /// What a packet lost for want of receive-queue room costs the client's CPU: `"full"`
    /// (default: its receive cost, in arrival order: received, then dropped) or `"none"`.
    #[serde(default, skip_serializing_if = "LostPacketCpu::is_default")]
    pub lost_packet_cpu: LostPacketCpu,
    /// Client CPU time to decode and display one frame (default 0: display costs nothing;
    /// at most 1s).
    #[serde(default)]
    pub decode_per_frame: Duration,
    /// Nominal display frame rate (default 30; 1..=1000).
    #[serde(default = "default_fps")]
    pub fps: u32,
    /// Packet size the server uses for this client (default: the transmission policy's;
    /// 64B..=64KiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet: Option<Bytes>,
}

fn default_fps() -> u32 {
    30
}

const SECOND: u64 = 1_000_000_000;

pub(super) fn check_rate(key: &str, b: Bandwidth) -> Result<(), (String, String)> {
    if !(1_000..=10_000_000_000_000).contains(&b.0) {
        return Err((
            key.into(),
            format!("must be in 1kbit/s..=10Tbit/s, got {b}"),
        ));
    }
    Ok(())
}

pub(super) fn check_per_byte(key: &str, v: f64) -> Result<(), (String, String)> {
    if !v.is_finite() || !(0.0..=1_000_000.0).contains(&v) {
        return Err((
            key.into(),
            format!("must be in 0..=1000000 nanoseconds, got {v}"),
        ));
    }
    Ok(())
}

pub(super) fn check_at_most_a_second(key: &str, d: Duration) -> Result<(), (String, String)> {
    if d.0 > SECOND {
        return Err((key.into(), format!("must be at most 1s, got {d}")));
    }
    Ok(())
}

impl ClientsSection {
    /// Checks every profile; `terminals` is the scenario's terminal count.
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.profile.is_empty() {
            return Err((
                "clients.profile".into(),
                "needs at least one [[clients.profile]]".into(),
            ));
        }
        let last = self.profile.len() - 1;
        for (i, p) in self.profile.iter().enumerate() {
            let key = |k: &str| format!("clients.profile[{i}].{k}");
            if p.name.is_empty() || self.profile[..i].iter().any(|q| q.name == p.name) {
                return Err((
                    key("name"),
                    format!(
                        "must be a non-empty name no other profile has, got {:?}",
                        p.name
                    ),
                ));
            }
            match p.count {
                None if i != last => {
                    return Err((
                        key("count"),
                        "only the last profile may leave out count (it takes every terminal \
                         left)"
                            .into(),
                    ))
                }
                Some(c) if !(1..=1_000_000).contains(&c) => {
                    return Err((key("count"), format!("must be in 1..=1000000, got {c}")))
                }
                _ => {}
            }
            check_rate(&key("link"), p.link)?;
            check_rate(&key("max_rate"), p.max_rate)?;
            if p.max_rate > p.link {
                return Err((
                    key("max_rate"),
                    format!(
                        "{} is above the client's access link ({}): it cannot receive faster \
                         than its link",
                        p.max_rate, p.link
                    ),
                ));
            }
            if p.rx_queue.0 == 0 {
                return Err((key("rx_queue"), "must be at least 1B".into()));
            }
            check_at_most_a_second(&key("rx_cpu_per_packet"), p.rx_cpu_per_packet)?;
            check_per_byte(&key("rx_cpu_ns_per_byte"), p.rx_cpu_ns_per_byte)?;
            check_at_most_a_second(&key("decode_per_frame"), p.decode_per_frame)?;
            if !(1..=1000).contains(&p.fps) {
                return Err((key("fps"), format!("must be in 1..=1000, got {}", p.fps)));
            }
            if let Some(b) = p.packet {
                if !(64..=65_536).contains(&b.0) {
                    return Err((key("packet"), format!("must be in 64B..=64KiB, got {b}")));
                }
            }
        }
        Ok(())
    }

    /// The profile of terminal `t` (index into `profile`), if it has one.
    pub fn profile_of(&self, t: u32) -> Option<usize> {
        let mut first = 0u64;
        for (i, p) in self.profile.iter().enumerate() {
            match p.count {
                Some(c) => {
                    if u64::from(t) < first + u64::from(c) {
                        return Some(i);
                    }
                    first += u64::from(c);
                }
                None => return Some(i),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(name: &str, count: Option<u32>) -> ClientProfile {
        ClientProfile {
            name: name.into(),
            count,
            link: Bandwidth(10_000_000),
            max_rate: Bandwidth(10_000_000),
            rx_queue: Bytes(64 << 10),
            rx_cpu_per_packet: Duration(0),
            rx_cpu_ns_per_byte: 0.0,
            lost_packet_cpu: LostPacketCpu::Full,
            decode_per_frame: Duration(0),
            fps: 30,
            packet: None,
        }
    }

    #[test]
    fn profiles_take_terminals_in_order() {
        let c = ClientsSection {
            profile: vec![profile("a", Some(2)), profile("b", None)],
        };
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.profile_of(0), Some(0));
        assert_eq!(c.profile_of(1), Some(0));
        assert_eq!(c.profile_of(2), Some(1));
        assert_eq!(c.profile_of(999), Some(1));
        let c = ClientsSection {
            profile: vec![profile("a", Some(2))],
        };
        assert_eq!(c.profile_of(2), None);
    }

    #[test]
    fn bad_profiles_name_their_key() {
        let mut p = profile("a", None);
        p.max_rate = Bandwidth(20_000_000);
        let e = ClientsSection { profile: vec![p] }.validate().unwrap_err();
        assert_eq!(e.0, "clients.profile[0].max_rate");
        assert!(e.1.contains("access link"), "{}", e.1);
        let e = ClientsSection {
            profile: vec![profile("a", None), profile("b", None)],
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.0, "clients.profile[0].count");
        let e = ClientsSection {
            profile: vec![profile("a", Some(1)), profile("a", None)],
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.0, "clients.profile[1].name");
    }
}
