//! `rate-edf`: rate-controlled, non-work-conserving EDF (Pappas et al. §3.2 and caption
//! Fig. 10). Packets get deadlines from their client's rate as in `edf`; the RT-Controller
//! wakes the Xmt-Server once per subround (times k × `subround`), and it sends the packets
//! whose deadlines fall before the next subround begins, earliest first, then blocks until
//! the wake-up of the subround in which the next deadline falls. A client thus never gets
//! more than one subround of data ahead of its rate.
//!
//! Reading of what the paper leaves open: the subround length is not given (the reading
//! notes recommend a tenth of the round, 100 ms with 192 KiB blocks); "deadlines near the
//! current time" is read as "before the next subround begins".

use super::check_packet;
use super::paced::{Pace, Paced};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    BuildContext, Plugin, PluginError, ReadyBlock, Transmission, TxPoll,
};
use vodbench_plugin_api::time::SimTime;
use vodbench_plugin_api::units::{Bytes, Duration};

/// `rate-edf`'s parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RateEdfParams {
    /// Packet size for clients whose profile gives none (default 48KiB; 64B..=64KiB).
    pub packet: Bytes,
    /// The rate deadlines follow: `"stream"` (default) or `"max"` (the profile's
    /// `max_rate`).
    pub pace: Pace,
    /// Time between the Xmt-Server's wake-ups (default 100ms; 100us..=1h).
    pub subround: Duration,
}

impl Default for RateEdfParams {
    fn default() -> Self {
        RateEdfParams {
            packet: Bytes(48 << 10),
            pace: Pace::Stream,
            subround: Duration(100_000_000),
        }
    }
}

/// EDF that sends only what is due before the next subround.
#[derive(Debug)]
pub struct RateEdf {
    packet: u64,
    pace: Pace,
    subround: u64,
    packets: Paced,
}

impl Transmission for RateEdf {
    fn block_ready(&mut self, b: ReadyBlock, now: SimTime) {
        self.packets.add(&b, now, self.packet, self.pace);
    }

    fn poll(&mut self, now: SimTime) -> TxPoll {
        let Some(d) = self.packets.next_deadline() else {
            return TxPoll::Idle;
        };
        let sub = self.subround;
        // the subround now is in, and the start of the next
        let next = (now.as_nanos() / sub + 1).saturating_mul(sub);
        if d.as_nanos() < next {
            return TxPoll::Send(self.packets.pop().expect("a deadline was seen"));
        }
        // wake at the start of the subround in which d falls
        TxPoll::WaitUntil(SimTime::from_nanos(d.as_nanos() / sub * sub))
    }
}

impl Plugin for RateEdf {
    type Kind = dyn Transmission;
    type Params = RateEdfParams;
    const NAME: &'static str = "rate-edf";
    const DESCRIPTION: &'static str =
        "EDF woken once per subround, sending only packets due before the next (non-work-conserving)";

    fn validate(p: &RateEdfParams) -> Result<(), PluginError> {
        check_packet(p.packet)?;
        if !(100_000..=3_600_000_000_000).contains(&p.subround.0) {
            return Err(PluginError::param(
                "subround",
                format!("must be in 100us..=1h, got {}", p.subround),
            ));
        }
        Ok(())
    }

    fn build(
        p: &RateEdfParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn Transmission>, PluginError> {
        Ok(Box::new(RateEdf {
            packet: p.packet.0,
            pace: p.pace,
            subround: p.subround.0,
            packets: Paced::default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::TerminalId;

    #[test]
    fn holds_packets_until_their_subround() {
        let ms = 1_000_000u64;
        let mut r = RateEdf {
            packet: 1000,
            pace: Pace::Stream,
            subround: 100 * ms,
            packets: Paced::default(),
        };
        // 80 kbit/s = 10 000 B/s: 1000-byte packets 100 ms apart, deadlines 0, 100, 200 ms
        r.block_ready(
            ReadyBlock {
                token: 4,
                client: TerminalId(0),
                bytes: 3000,
                stream_rate_bps: 80_000,
                max_rate_bps: 80_000,
                packet_bytes: None,
            },
            SimTime::from_nanos(30 * ms),
        );
        let at = |t| SimTime::from_nanos(t * ms);
        // at 30 ms (subround [0, 100)): the packet due at 30 ms goes; the next (130 ms) waits
        // for the subround starting at 100 ms
        assert!(matches!(r.poll(at(30)), TxPoll::Send(p) if p.deadline == at(30)));
        assert_eq!(r.poll(at(31)), TxPoll::WaitUntil(at(100)));
        assert!(matches!(r.poll(at(100)), TxPoll::Send(p) if p.deadline == at(130)));
        assert_eq!(r.poll(at(101)), TxPoll::WaitUntil(at(200)));
        assert!(matches!(r.poll(at(200)), TxPoll::Send(p) if p.deadline == at(230)));
        assert_eq!(r.poll(at(201)), TxPoll::Idle);
    }

    #[test]
    fn subround_is_checked() {
        let mut p = RateEdfParams::default();
        assert!(RateEdf::validate(&p).is_ok());
        p.subround = Duration(10);
        assert!(matches!(
            RateEdf::validate(&p),
            Err(PluginError::InvalidParam { path, .. }) if path == "subround"
        ));
    }
}
