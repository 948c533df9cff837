//! Analytic models ([`AnalyticModel`](vodbench_plugin_api::plugin::AnalyticModel)): each
//! seed paper's equations, evaluated at the points of a scenario by `vodbench analyze`
//! beside what the simulation measures.
//!
//! | model | paper | equations |
//! |---|---|---|
//! | `wu-blocksize` | Wu et al. §4.1 | eq. 3–6: streams n(B), block B(n), bus utilisation μ |
//! | `wu-continuity` | Wu et al. §4.2 | eq. 7–15: slack Δ, n_0, probability of continuity P_c |
//! | `jadav-timing` | Jadav et al. §3, §5 | eq. 1–3: δ_I, δ_S, δ_io, t_max; flow-balance utilisations |
//! | `pappas-memory` | Pappas et al. §3.2, §4 | 2NS, NS, round length, transmit bound |
//! | `waldvogel-bandwidth` | Waldvogel et al. §III | eq. 1–2: IDEAL's bandwidth, the client buffer's peak |
//! | `spiffi-capacity` | SPIFFI §6.2, Table 1 | the disk-bandwidth bound on terminals for a stripe size |
//!
//! Units are SI throughout (bytes, seconds, bytes per second); a scenario's `"32KB"` is
//! 32,000 bytes and `"4MB/s"` 4·10⁶ bytes per second, which is what reproduces Wu's
//! Δ = 0.010667 s.

pub mod jadav_timing;
pub mod pappas_memory;
pub mod spiffi_capacity;
pub mod waldvogel_bandwidth;
pub mod wu_blocksize;
pub mod wu_continuity;

use vodbench_plugin_api::plugin::{slot_keys, AnalyticModel, PluginError, Registry};
use vodbench_plugin_api::units::{Bandwidth, Duration};

/// Registers the built-in analytic models; `waldvogel-bandwidth` is a broadcast scenario's default (`[analytic]` has none for on-demand scenarios).
pub fn register(r: &mut Registry) {
    r.add::<wu_blocksize::WuBlocksize>();
    r.add::<wu_continuity::WuContinuity>();
    r.add::<jadav_timing::JadavTiming>();
    r.add::<pappas_memory::PappasMemory>();
    r.add::<waldvogel_bandwidth::WaldvogelBandwidth>();
    r.add::<spiffi_capacity::SpiffiCapacity>();
    // a broadcast scenario's `vodbench analyze` without `[analytic]`
    let waldvogel = "waldvogel-bandwidth";
    r.set_default::<dyn AnalyticModel>(
        slot_keys::BROADCAST_ANALYTIC,
        waldvogel,
        toml::Table::new(),
    );
}

/// A bandwidth in bytes per second.
pub(crate) fn bytes_per_s(b: Bandwidth) -> f64 {
    b.0 as f64 / 8.0
}

/// A duration in seconds.
pub(crate) fn secs(d: Duration) -> f64 {
    d.0 as f64 / 1e9
}

/// An error unless the bandwidth at `key` is positive.
pub(crate) fn positive_rate(key: &str, b: Bandwidth) -> Result<(), PluginError> {
    if b.0 == 0 {
        return Err(PluginError::param(
            key,
            "must be a positive bandwidth (a rate of 0 moves no data)",
        ));
    }
    Ok(())
}

/// The bit rate of the point's videos, which every model of a stream needs: positive.
pub(crate) fn bit_rate(
    input: &vodbench_plugin_api::plugin::ModelInput,
) -> Result<f64, PluginError> {
    let a = input.require("bit_rate_bps")?;
    if a <= 0.0 {
        return Err(input.invalid("bit_rate_bps", "the model needs a positive bit rate"));
    }
    Ok(a)
}
