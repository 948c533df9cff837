//! `jadav-timing`: a stream's round timing and the flow balance of interface and server nodes
//! (Jadav et al. §3, eq. 1–3; §5).
//!
//! An interface (I) node sends its client packets of `P_I` bytes at the playback rate `R_pl`
//! and fetches each stream's next `B_I = S·P_S` bytes as `S` fragments of `P_S` bytes from `S`
//! server (S) nodes, one round ahead:
//!
//! ```text
//! δ_I  = P_I / R_pl                                                    (eq. 1)
//! δ_io = δ_rq + δ_seek + δ_rot + P_S / r_disk + P_S / r_net            (eq. 2)
//! t_max = t + δ_S − δ_io,   δ_S = B_I / R_pl                           (eq. 3)
//! ```
//!
//! and, by flow balance (no queueing), each S node serves `n·S / δ_S / n_S` fragment
//! requests per second for `n` streams in all, its disk is busy
//! `that × (δ_seek + δ_rot + P_S/r_disk)` of the time, and each I node's ingress link carries
//! `(n / n_I)·R_pl` of its `r_net`. `P_S` is the scenario's block (`server.stripe`), `R_pl`
//! its bit rate and `n` its terminals; the rest are parameters, defaulting to the reading
//! notes' Table 2 values (reading A: 8 ms seek + 8.03 ms rotation, 10 MB/s disks, the
//! measured 13.8 MB/s network, 6 I + 35 S nodes, S = 4, 64 KiB packets). The paper leaves the
//! request latency δ_rq unstated; it defaults to 0.

use super::{bit_rate, bytes_per_s, positive_rate, secs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    Analysis, AnalyticModel, BuildContext, ModelInput, Plugin, PluginError,
};
use vodbench_plugin_api::units::{Bandwidth, Bytes, Duration};

/// Parameters of `jadav-timing`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct JadavTimingParams {
    /// `P_I`, the packet an I node sends a client (default 64KiB, Table 2).
    pub packet: Bytes,
    /// `S`, the stripe factor: fragments per stream per round (default 4).
    pub stripe_factor: u32,
    /// `δ_rq`, the request message's latency (default 0: not given by the paper).
    pub request: Duration,
    /// `δ_avg_seek`, the mean seek (default 8ms, reading A).
    pub seek: Duration,
    /// `δ_avg_rot`, the mean rotational latency (default 8.03ms, Table 2).
    pub rotation: Duration,
    /// The disk's transfer rate (default 10MB/s, §5).
    pub disk_rate: Bandwidth,
    /// The network's bandwidth (default 13.8MB/s, measured §5.1).
    pub network_rate: Bandwidth,
    /// `n_I`, interface nodes, over which the streams spread evenly (default 6).
    pub interface_nodes: u32,
    /// `n_S`, server nodes, one disk each (default 35).
    pub server_nodes: u32,
}

impl Default for JadavTimingParams {
    fn default() -> Self {
        JadavTimingParams {
            packet: Bytes(64 << 10),
            stripe_factor: 4,
            request: Duration(0),
            seek: Duration(8_000_000),
            rotation: Duration(8_030_000),
            disk_rate: Bandwidth(80_000_000),
            network_rate: Bandwidth(110_400_000),
            interface_nodes: 6,
            server_nodes: 35,
        }
    }
}

/// The `jadav-timing` model.
pub struct JadavTiming(JadavTimingParams);

impl AnalyticModel for JadavTiming {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let p = &self.0;
        let p_s = input.require("block_bytes")?;
        let r_pl = bit_rate(input)? / 8.0;
        let (r_disk, r_net) = (bytes_per_s(p.disk_rate), bytes_per_s(p.network_rate));
        let s = f64::from(p.stripe_factor);
        let delta_i = p.packet.0 as f64 / r_pl;
        let b_i = s * p_s;
        let delta_s = b_i / r_pl;
        let positioning = secs(p.seek) + secs(p.rotation);
        let (d_t, n_c) = (p_s / r_disk, p_s / r_net);
        let delta_io = secs(p.request) + positioning + d_t + n_c;
        let mut out = Analysis::default();
        out.value("delta_i_s", delta_i)
            .value("round_bytes", b_i)
            .value("delta_s_s", delta_s)
            .value("delta_io_s", delta_io)
            .value("t_max_slack_s", delta_s - delta_io)
            .value("disk_transfer_s", d_t)
            .value("network_transfer_s", n_c);
        if delta_s <= delta_io {
            out.note(format!(
                "δ_io = {delta_io:.4} s ≥ δ_S = {delta_s:.4} s: a round cannot fetch its \
                 fragments before its data is due, even unloaded (eq. 3)"
            ));
        }
        if let Some(n) = input.get("terminals") {
            let per_i = n / f64::from(p.interface_nodes);
            let requests = n * s / delta_s / f64::from(p.server_nodes);
            let disk = requests * (positioning + d_t);
            out.value("streams_per_interface_node", per_i)
                .value("fragment_requests_per_s_per_server_node", requests)
                .value("disks.utilization_mean_ratio", disk)
                .value("network.utilization_max_ratio", per_i * r_pl / r_net);
            if disk >= 1.0 {
                out.note(format!(
                    "{n} streams ask {disk:.2} times what the S nodes' disks can serve"
                ));
            }
        }
        Ok(out)
    }
}

impl Plugin for JadavTiming {
    type Kind = dyn AnalyticModel;
    type Params = JadavTimingParams;
    const NAME: &'static str = "jadav-timing";
    const DESCRIPTION: &'static str =
        "round timing and node flow balance of a media server (Jadav et al. eq. 1-3)";
    fn validate(p: &JadavTimingParams) -> Result<(), PluginError> {
        positive_rate("disk_rate", p.disk_rate)?;
        positive_rate("network_rate", p.network_rate)?;
        for (key, v) in [
            ("stripe_factor", p.stripe_factor),
            ("interface_nodes", p.interface_nodes),
            ("server_nodes", p.server_nodes),
        ] {
            if v == 0 {
                return Err(PluginError::param(key, "must be at least 1"));
            }
        }
        if p.packet.0 == 0 {
            return Err(PluginError::param("packet", "must be at least one byte"));
        }
        Ok(())
    }
    fn build(
        p: &JadavTimingParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn AnalyticModel>, PluginError> {
        Ok(Box::new(JadavTiming(p.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(block: f64, terminals: f64) -> ModelInput {
        let mut i = ModelInput::new("on-demand", "analytic");
        i.set("block_bytes", block, "server.stripe")
            .set("bit_rate_bps", 1.5e6, "videos.bit_rate")
            .set("terminals", terminals, "terminals.count");
        i
    }

    /// The reading notes' Fig. 4 row at P_S = 40 KiB, 15 streams per I node (90 in all),
    /// recomputed from eq. 1-3 and the flow balance.
    #[test]
    fn eq1_to_3_and_flow_balance_of_fig4() {
        let m = JadavTiming(JadavTimingParams::default());
        let p_s = 40.0 * 1024.0;
        let a = m.evaluate(&input(p_s, 90.0)).unwrap();
        let v = |k: &str| a.values[k];
        let r_pl = 1.5e6 / 8.0;
        assert!((v("delta_i_s") - 65536.0 / r_pl).abs() < 1e-12);
        assert!((v("delta_i_s") - 0.3495).abs() < 5e-5);
        let delta_s = 4.0 * p_s / r_pl;
        assert!((v("delta_s_s") - delta_s).abs() < 1e-12);
        assert!((delta_s - 0.874).abs() < 5e-4);
        let delta_io = 0.008 + 0.00803 + p_s / 10e6 + p_s / 13.8e6;
        assert!((v("delta_io_s") - delta_io).abs() < 1e-12);
        assert!((v("t_max_slack_s") - (delta_s - delta_io)).abs() < 1e-12);
        let req = 90.0 * 4.0 / delta_s / 35.0;
        assert!((v("fragment_requests_per_s_per_server_node") - req).abs() < 1e-9);
        assert!((req - 11.8).abs() < 0.05, "{req}");
        let disk = req * (0.01603 + p_s / 10e6);
        assert!((v("disks.utilization_mean_ratio") - disk).abs() < 1e-12);
        assert!((disk - 0.24).abs() < 0.005, "{disk}");
        assert!((v("network.utilization_max_ratio") - 15.0 * r_pl / 13.8e6).abs() < 1e-12);
    }

    #[test]
    fn zero_counts_and_rates_are_refused_at_their_key() {
        let bad = |f: fn(&mut JadavTimingParams)| {
            let mut p = JadavTimingParams::default();
            f(&mut p);
            match JadavTiming::validate(&p).unwrap_err() {
                PluginError::InvalidParam { path, .. } => path,
                e => panic!("{e:?}"),
            }
        };
        assert_eq!(bad(|p| p.stripe_factor = 0), "stripe_factor");
        assert_eq!(bad(|p| p.network_rate = Bandwidth(0)), "network_rate");
        assert_eq!(bad(|p| p.server_nodes = 0), "server_nodes");
    }
}
