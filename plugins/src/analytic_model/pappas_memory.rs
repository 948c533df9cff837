//! `pappas-memory`: the memory of round-based double buffering and the bounds on clients
//! (Pappas et al. §3.2, §4; the reading notes' M1, M2, R1–R3).
//!
//! A server reading `S` bytes per stream per round (round-SCAN) and sending them during the
//! next round holds two buffers per stream, `2·N·S` bytes for `N` clients (M1, measured
//! exactly by the paper); sending each block as soon as it is read needs about `N·S` (M2).
//! A round lasts `T = S / r_stream` (R1). The server's transmit capacity `C_tx` bounds the
//! clients at `C_tx / r_stream` (R3: 122 / 1.5 = 81.3), a memory of `M` bytes at `⌊M / 2S⌋`
//! (double buffering) or `⌊M / S⌋`, and, given a per-read cost `C1 + S/r` on each of the
//! scenario's disks (R2), the storage at `disks · T / (C1 + S/r)`. `max_terminals` is the
//! least of the bounds given.
//!
//! `S` is the scenario's block (`server.stripe`), `r_stream` its bit rate, `N` its terminals;
//! `transmit_rate` defaults to the Ultra-1's 122 Mbit/s (§2.2), the memory and disk cost are
//! given only when wanted.

use super::{bit_rate, bytes_per_s, positive_rate, secs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    Analysis, AnalyticModel, BuildContext, ModelInput, Plugin, PluginError,
};
use vodbench_plugin_api::units::{Bandwidth, Bytes, Duration};

/// Parameters of `pappas-memory`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PappasMemoryParams {
    /// `C_tx`, what the server can transmit (default 122Mbit/s, the Ultra-1 of §2.2).
    pub transmit_rate: Bandwidth,
    /// Memory for stream buffers, for the memory bounds (default: none given).
    pub memory: Option<Bytes>,
    /// `C1`, the fixed cost of one disk read, for the storage bound (with `disk_rate`).
    pub access: Option<Duration>,
    /// `r`, a disk's transfer rate, for the storage bound (with `access`).
    pub disk_rate: Option<Bandwidth>,
}

impl Default for PappasMemoryParams {
    fn default() -> Self {
        PappasMemoryParams {
            transmit_rate: Bandwidth(122_000_000),
            memory: None,
            access: None,
            disk_rate: None,
        }
    }
}

/// The `pappas-memory` model.
pub struct PappasMemory(PappasMemoryParams);

impl AnalyticModel for PappasMemory {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let p = &self.0;
        let s = input.require("block_bytes")?;
        let rate = bit_rate(input)? / 8.0;
        let round = s / rate;
        let mut out = Analysis::default();
        out.value("round_s", round);
        if let Some(n) = input.get("terminals") {
            out.value("memory_dblbuf_bytes", 2.0 * n * s)
                // what a run with `[server.rounds] release = "dblbuf"` measures
                .value("stream_memory.reserved_peak_bytes", 2.0 * n * s)
                .value("memory_clbuf_bytes", n * s);
        }
        let mut bounds: Vec<(&str, f64)> = Vec::new();
        let tx = bytes_per_s(p.transmit_rate) / rate;
        out.value("max_terminals_transmit", tx);
        bounds.push(("transmit", tx));
        if let Some(m) = p.memory {
            let dbl = (m.0 as f64 / (2.0 * s)).floor();
            out.value("max_terminals_dblbuf_memory", dbl)
                .value("max_terminals_clbuf_memory", (m.0 as f64 / s).floor());
            bounds.push(("double-buffering memory", dbl));
        }
        if let (Some(c1), Some(r)) = (p.access, p.disk_rate) {
            let disks = input.require("disks")?;
            let storage = disks * round / (secs(c1) + s / bytes_per_s(r));
            out.value("max_terminals_storage", storage);
            bounds.push(("storage", storage));
        }
        let (which, least) =
            bounds
                .iter()
                .copied()
                .fold(("", f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
        out.value("max_terminals", least.floor());
        out.note(format!("max_terminals is the {which} bound"));
        Ok(out)
    }
}

impl Plugin for PappasMemory {
    type Kind = dyn AnalyticModel;
    type Params = PappasMemoryParams;
    const NAME: &'static str = "pappas-memory";
    const DESCRIPTION: &'static str =
        "double-buffering memory 2NS and the transmit bound (Pappas et al. §3.2, §4)";
    fn validate(p: &PappasMemoryParams) -> Result<(), PluginError> {
        positive_rate("transmit_rate", p.transmit_rate)?;
        if let Some(r) = p.disk_rate {
            positive_rate("disk_rate", r)?;
        }
        match (p.access, p.disk_rate) {
            (Some(_), None) => Err(PluginError::param(
                "disk_rate",
                "the storage bound needs both `access` and `disk_rate`",
            )),
            (None, Some(_)) => Err(PluginError::param(
                "access",
                "the storage bound needs both `access` and `disk_rate`",
            )),
            _ => Ok(()),
        }
    }
    fn build(
        p: &PappasMemoryParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn AnalyticModel>, PluginError> {
        Ok(Box::new(PappasMemory(p.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: f64 = 1048576.0;

    fn input(block: f64, n: f64) -> ModelInput {
        let mut i = ModelInput::new("on-demand", "analytic");
        i.set("block_bytes", block, "server.stripe")
            .set("bit_rate_bps", 1.5e6, "videos.bit_rate")
            .set("terminals", n, "terminals.count")
            .set("disks", 4.0, "server.disks_per_node");
        i
    }

    /// M1 at the three measured points of Fig. 20 (26.25, 160 and 1440 MiB) and R3's 81.3.
    #[test]
    fn two_n_s_and_the_transmit_bound() {
        let m = PappasMemory(PappasMemoryParams::default());
        for (n, s, mib) in [
            (70.0, 192.0 * 1024.0, 26.25),
            (80.0, MIB, 160.0),
            (90.0, 8.0 * MIB, 1440.0),
        ] {
            let a = m.evaluate(&input(s, n)).unwrap();
            assert_eq!(a.values["memory_dblbuf_bytes"], 2.0 * n * s);
            assert_eq!(a.values["memory_dblbuf_bytes"] / MIB, mib);
            assert_eq!(a.values["memory_clbuf_bytes"], n * s);
            assert!((a.values["max_terminals_transmit"] - 122.0 / 1.5).abs() < 1e-12);
            assert_eq!(a.values["max_terminals"], 81.0);
        }
    }

    #[test]
    fn memory_and_storage_bounds() {
        let m = PappasMemory(PappasMemoryParams {
            memory: Some(Bytes(60 << 20)),
            access: Some(Duration(11_800_000)),
            disk_rate: Some(Bandwidth(34_320_000)),
            ..PappasMemoryParams::default()
        });
        // the notes' fit is for the binary stream rate, 192 KiB per one-second round
        let s = 192.0 * 1024.0;
        let mut i = input(s, 70.0);
        i.set("bit_rate_bps", 1_572_864.0, "videos.bit_rate");
        let a = m.evaluate(&i).unwrap();
        assert_eq!(
            a.values["max_terminals_dblbuf_memory"],
            (60.0 * MIB / (2.0 * s)).floor()
        );
        assert_eq!(a.values["max_terminals_clbuf_memory"], 320.0);
        let round = s / (1_572_864.0 / 8.0);
        assert_eq!(round, 1.0);
        let storage = 4.0 * round / (0.0118 + s / 4.29e6);
        assert!((a.values["max_terminals_storage"] - storage).abs() < 1e-9);
        assert!((storage - 69.4).abs() < 0.1, "the notes' fit: {storage}");
        assert_eq!(a.values["max_terminals"], storage.floor());
        assert!(a.notes[0].contains("storage"));
        let e = PappasMemory::validate(&PappasMemoryParams {
            access: Some(Duration(1)),
            ..PappasMemoryParams::default()
        })
        .unwrap_err();
        assert!(matches!(e, PluginError::InvalidParam { ref path, .. } if path == "disk_rate"));
    }
}
