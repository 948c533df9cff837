//! `spiffi-capacity`: the disk-bandwidth bound on the terminals a SPIFFI server can serve for
//! a stripe size (SPIFFI §6.2, Table 1; §7.1's maximum glitch-free terminals).
//!
//! Every terminal consumes its video's bit rate `a`; every disk delivers one stripe block of
//! `S` bytes per `t_pos + S/r` (positioning, then transfer at the media rate `r`). With `D`
//! disks kept busy all the time,
//!
//! ```text
//! N_max = D · (S / (t_pos + S/r)) / (a/8)
//! ```
//!
//! With the default `t_pos = 0` this is the media-bandwidth bound, which no scheduler can
//! beat (SPIFFI's best, 225 terminals on 16 ST15150N disks at 512 KB and 4 Mbit/s, is under
//! its 236.8); a positive `positioning` (mean seek and rotational latency per read) gives an
//! estimate that is no longer a bound. `D` is the scenario's `server.nodes ×
//! server.disks_per_node`, `S` its stripe, `a` its mean bit rate; `transfer_rate` defaults
//! to Table 1's 7.4 MB/s.

use super::{bit_rate, bytes_per_s, positive_rate, secs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    Analysis, AnalyticModel, BuildContext, ModelInput, Plugin, PluginError,
};
use vodbench_plugin_api::units::{Bandwidth, Duration};

/// Parameters of `spiffi-capacity`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SpiffiCapacityParams {
    /// The disks' media transfer rate (default 7.4MB/s, the ST15150N of Table 1).
    pub transfer_rate: Bandwidth,
    /// Positioning per read, seek and rotational latency (default 0: the bandwidth bound).
    pub positioning: Duration,
}

impl Default for SpiffiCapacityParams {
    fn default() -> Self {
        SpiffiCapacityParams {
            transfer_rate: Bandwidth(59_200_000),
            positioning: Duration(0),
        }
    }
}

/// The `spiffi-capacity` model.
pub struct SpiffiCapacity(SpiffiCapacityParams);

impl AnalyticModel for SpiffiCapacity {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let p = &self.0;
        let s = input.require("block_bytes")?;
        let disks = input.require("disks")?;
        let a = bit_rate(input)?;
        let per_disk = s / (secs(p.positioning) + s / bytes_per_s(p.transfer_rate));
        let n = disks * per_disk / (a / 8.0);
        let mut out = Analysis::default();
        out.value("disk_throughput_bytes_per_s", per_disk)
            .value("max_terminals_real", n)
            .value("max_terminals", n.floor());
        if let Some(t) = input.get("terminals") {
            out.value("disks.utilization_mean_ratio", t / n);
        }
        if p.positioning.0 > 0 {
            out.note("with a positive positioning time N_max is an estimate, not a bound");
        }
        Ok(out)
    }
}

impl Plugin for SpiffiCapacity {
    type Kind = dyn AnalyticModel;
    type Params = SpiffiCapacityParams;
    const NAME: &'static str = "spiffi-capacity";
    const DESCRIPTION: &'static str =
        "disk-bandwidth bound on terminals for a stripe size (SPIFFI §6.2, Table 1)";
    fn validate(p: &SpiffiCapacityParams) -> Result<(), PluginError> {
        positive_rate("transfer_rate", p.transfer_rate)
    }
    fn build(
        p: &SpiffiCapacityParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn AnalyticModel>, PluginError> {
        Ok(Box::new(SpiffiCapacity(p.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(block: f64, disks: f64, terminals: f64) -> ModelInput {
        let mut i = ModelInput::new("on-demand", "analytic");
        i.set("block_bytes", block, "server.stripe")
            .set("bit_rate_bps", 4e6, "videos.bit_rate")
            .set("disks", disks, "server.disks_per_node")
            .set("terminals", terminals, "terminals.count");
        i
    }

    #[test]
    fn bandwidth_bound_of_sixteen_st15150n_disks() {
        let m = SpiffiCapacity(SpiffiCapacityParams::default());
        let a = m.evaluate(&input(524_288.0, 16.0, 225.0)).unwrap();
        let bound = 16.0 * 7.4e6 / (4e6 / 8.0);
        assert!((a.values["max_terminals_real"] - bound).abs() < 1e-9);
        assert_eq!(a.values["max_terminals"], 236.0);
        // SPIFFI's best measured count (Fig. 10) is under the bound
        assert!(a.values["disks.utilization_mean_ratio"] < 1.0);
    }

    #[test]
    fn positioning_lowers_the_estimate() {
        let m = SpiffiCapacity(SpiffiCapacityParams {
            positioning: Duration(10_000_000),
            ..SpiffiCapacityParams::default()
        });
        let s = 524_288.0;
        let a = m.evaluate(&input(s, 16.0, 200.0)).unwrap();
        let per_disk = s / (0.010 + s / 7.4e6);
        assert!((a.values["disk_throughput_bytes_per_s"] - per_disk).abs() < 1e-6);
        assert!((a.values["max_terminals_real"] - 16.0 * per_disk / 5e5).abs() < 1e-9);
        assert_eq!(a.notes.len(), 1);
        let e = SpiffiCapacity::validate(&SpiffiCapacityParams {
            transfer_rate: Bandwidth(0),
            ..SpiffiCapacityParams::default()
        })
        .unwrap_err();
        assert!(matches!(e, PluginError::InvalidParam { ref path, .. } if path == "transfer_rate"));
    }
}
