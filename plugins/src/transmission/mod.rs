//! Transmission scheduling on the egress link
//! ([`Transmission`](vodbench_plugin_api::plugin::Transmission)): Pappas et al. §3.2's three
//! Xmt-Server policies.

pub mod edf;
pub mod fifo_blocks;
pub mod paced;
pub mod rate_edf;

use vodbench_plugin_api::plugin::{PluginError, Registry};
use vodbench_plugin_api::units::Bytes;

/// Registers the built-in transmission policies.
pub fn register(r: &mut Registry) {
    r.add::<fifo_blocks::FifoBlocks>();
    r.add::<edf::Edf>();
    r.add::<rate_edf::RateEdf>();
}

/// Most bytes a packet may carry: 64 KiB, the largest of Pappas et al.'s packet sizes
/// (§2.3: "1 KB … 64 KB"; a UDP datagram's payload is at most 65 507 B, so the paper's
/// "64 KB" is read as 64 KiB of data, headers not counted).
pub(crate) const MAX_PACKET: u64 = 65_536;

/// A `packet` parameter within 64 B..=64 KiB.
pub(crate) fn check_packet(p: Bytes) -> Result<(), PluginError> {
    if !(64..=MAX_PACKET).contains(&p.0) {
        return Err(PluginError::param(
            "packet",
            format!("must be in 64B..=64KiB, got {p}"),
        ));
    }
    Ok(())
}
