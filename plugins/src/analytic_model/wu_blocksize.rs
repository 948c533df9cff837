//! `wu-blocksize`: how many streams a storage configuration sustains for a block size (Wu et
//! al. §4.1, eq. 3–6).
//!
//! A round-robin scheduler reads one block of `B` bytes per stream; each read waits `d_m`
//! (command, positioning and bus contention, eq. 1–2) and transfers at `r_s` (the disk's raw
//! rate, or the bus rate behind an array controller). One cycle over `n` streams takes
//! `n·(d_m + B/r_s)` and must deliver each stream its `B` bytes at `a` bit/s (eq. 3):
//!
//! ```text
//! 8B / (n·(d_m + B/r_s)) = a      ⇒  n(B) = 8B / (a·(d_m + B/r_s))            (eq. 3)
//! B(n) = a·n·d_m / (8 − a·n/r_s)   (only for n < 8·r_s/a)                       (eq. 4)
//! μ = n·a / (8·r_bus) = B / (d_m·r_bus + B·r_bus/r_s)                           (eq. 5, 6)
//! ```
//!
//! `B` is the scenario's block (`server.stripe`), `a` its bit rate (`videos.bit_rate`) and `n`
//! its terminals (`terminals.count`, for the values at a given load); `d_m`, `r_s` and `r_bus`
//! are the model's parameters, defaulting to Wu's single-disk case (§6.1.1: 15 ms, 4 MB/s,
//! 10 MB/s). `max_terminals` is ⌊n(B)⌋, the glitch-free count a search of the same
//! configuration should find; `disks.utilization_mean_ratio` at `n` streams is `n / n(B)`, the
//! share of each cycle the disk is busy; `buses.bandwidth_mean_ratio` is eq. 5 at `n`, the
//! share of the bus's bandwidth a run on a bus (`[server.bus]`) measures under the same key;
//! `buses.model_eq6_ratio` is eq. 6, Fig. 11's value at the real-valued n(B): a model value
//! only (a run simulates whole streams), named as a run names its eq. 5
//! (`buses.model_eq5_ratio`). Wu's "bus utilisation" is a share of the bus's bandwidth; a
//! run's `buses.utilization_mean_ratio` is the share of time the bus is held, another figure.

use super::{bit_rate, bytes_per_s, positive_rate, secs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    Analysis, AnalysisTable, AnalyticModel, BuildContext, ModelInput, Plugin, PluginError,
};
use vodbench_plugin_api::units::{Bandwidth, Duration};

/// Most rows of the `block_curve` table.
const MAX_CURVE_ROWS: u32 = 1000;

/// Parameters of `wu-blocksize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WuBlocksizeParams {
    /// `d_m`, the wait before each transfer: D1 + D2 + D3, command, mechanical delay and bus
    /// contention (eq. 1; default 15ms, Wu §6.1.1).
    pub d_m: Duration,
    /// `r_s`, the rate a read transfers at: the disk's raw rate, or the bus rate behind an
    /// array controller (default 4MB/s).
    pub r_s: Bandwidth,
    /// `r_bus`, the SCSI bus rate, for the utilisation μ (default 10MB/s).
    pub r_bus: Bandwidth,
}

impl Default for WuBlocksizeParams {
    fn default() -> Self {
        WuBlocksizeParams {
            d_m: Duration(15_000_000),
            r_s: Bandwidth(32_000_000),
            r_bus: Bandwidth(80_000_000),
        }
    }
}

/// Eq. 3 solved for n: the streams a block of `b` bytes sustains (real-valued); `d_m` in
/// seconds, `r_s` in bytes/s, `a` in bit/s.
pub fn streams(b: f64, d_m: f64, r_s: f64, a: f64) -> f64 {
    8.0 * b / (a * (d_m + b / r_s))
}

/// Eq. 4: the block that sustains `n` streams, or `None` when `n ≥ 8·r_s/a` (no block does).
pub fn block_for(n: f64, d_m: f64, r_s: f64, a: f64) -> Option<f64> {
    let den = 8.0 - a * n / r_s;
    (den > 0.0).then(|| a * n * d_m / den)
}

/// Eq. 6: the bus utilisation when a block of `b` bytes serves the streams eq. 3 allows.
pub fn bus_utilization(b: f64, d_m: f64, r_s: f64, r_bus: f64) -> f64 {
    b / (d_m * r_bus + b * r_bus / r_s)
}

/// The `wu-blocksize` model.
pub struct WuBlocksize(WuBlocksizeParams);

impl AnalyticModel for WuBlocksize {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let p = &self.0;
        let (d_m, r_s, r_bus) = (secs(p.d_m), bytes_per_s(p.r_s), bytes_per_s(p.r_bus));
        let b = input.require("block_bytes")?;
        let a = bit_rate(input)?;
        let n_real = streams(b, d_m, r_s, a);
        if n_real < 1.0 {
            return Err(input.invalid(
                "block_bytes",
                format!(
                    "a block of {b} bytes is not sustainable at any n: eq. 3 gives n = \
                     {n_real:.3} < 1 stream (d_m = {}, r_s = {}, a = {a} bit/s); a larger block \
                     or a faster disk is needed",
                    p.d_m, p.r_s
                ),
            ));
        }
        let limit = 8.0 * r_s / a;
        let mut out = Analysis::default();
        out.value("max_terminals", n_real.floor())
            .value("max_terminals_real", n_real)
            .value("terminals_limit", limit)
            .value("buses.model_eq6_ratio", bus_utilization(b, d_m, r_s, r_bus));
        if let Some(n) = input.get("terminals") {
            // eq. 5 at the scenario's n, under the key of what a run measures of it
            out.value("buses.bandwidth_mean_ratio", n * a / (8.0 * r_bus))
                .value("disks.utilization_mean_ratio", n / n_real);
            match block_for(n, d_m, r_s, a) {
                Some(bn) => {
                    out.value("block_for_terminals_bytes", bn);
                }
                None => {
                    out.note(format!(
                        "no block sustains {n} streams: eq. 4 needs n < 8·r_s/a = {limit:.2}"
                    ));
                }
            }
        }
        let mut rows = Vec::new();
        let mut n = 1u32;
        while let Some(bn) = block_for(f64::from(n), d_m, r_s, a) {
            if n > MAX_CURVE_ROWS {
                out.note(format!(
                    "block_curve: the first {MAX_CURVE_ROWS} stream counts of {limit:.0}"
                ));
                break;
            }
            rows.push(vec![f64::from(n), bn, f64::from(n) * a / (8.0 * r_bus)]);
            n += 1;
        }
        out.tables.push(AnalysisTable {
            name: "block_curve".into(),
            description: "eq. 4 and 5: the block each stream count needs, and the share of \
                          the bus's bandwidth it implies (Wu's bus utilisation; the curves of \
                          Wu Figs. 8-10)"
                .into(),
            columns: vec![
                "terminals".into(),
                "block_bytes".into(),
                "bus_bandwidth_ratio".into(),
            ],
            rows,
        });
        Ok(out)
    }
}

impl Plugin for WuBlocksize {
    type Kind = dyn AnalyticModel;
    type Params = WuBlocksizeParams;
    const NAME: &'static str = "wu-blocksize";
    const DESCRIPTION: &'static str =
        "streams a block size sustains, and the bus utilisation (Wu et al. eq. 3-6)";
    fn validate(p: &WuBlocksizeParams) -> Result<(), PluginError> {
        positive_rate("r_s", p.r_s)?;
        positive_rate("r_bus", p.r_bus)
    }
    fn build(
        p: &WuBlocksizeParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn AnalyticModel>, PluginError> {
        Ok(Box::new(WuBlocksize(p.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: f64 = 1.5e6;

    fn model(d_m_ms: u64, r_s_mb: u64) -> WuBlocksize {
        WuBlocksize(WuBlocksizeParams {
            d_m: Duration(d_m_ms * 1_000_000),
            r_s: Bandwidth(r_s_mb * 8_000_000),
            r_bus: Bandwidth(80_000_000),
        })
    }

    fn input(block: f64, terminals: Option<f64>) -> ModelInput {
        let mut i = ModelInput::new("on-demand", "analytic");
        i.set("block_bytes", block, "server.stripe")
            .set("bit_rate_bps", A, "videos.bit_rate");
        if let Some(n) = terminals {
            i.set("terminals", n, "terminals.count");
        }
        i
    }

    /// Eq. 3 by hand at every block of Wu Figs. 8-10, against the model and the reading
    /// notes' floors (single disk 14/17/19/20 at 128K-1M, multi-bus 24/33/41/46).
    #[test]
    fn eq3_floors_of_the_three_configurations() {
        let blocks = [16e3, 32e3, 64e3, 128e3, 256e3, 512e3, 1024e3, 2048e3];
        let cases: [(u64, u64, [f64; 8]); 3] = [
            (15, 4, [4., 7., 11., 14., 17., 19., 20., 20.]),
            (5, 4, [9., 13., 16., 18., 19., 20., 20., 21.]),
            (15, 10, [5., 9., 15., 24., 33., 41., 46., 49.]),
        ];
        for (d_m, r_s, floors) in cases {
            for (b, want) in blocks.iter().zip(floors) {
                let by_hand = 8.0 * b / (A * (d_m as f64 / 1e3 + b / (r_s as f64 * 1e6)));
                let a = model(d_m, r_s).evaluate(&input(*b, None)).unwrap();
                assert!((a.values["max_terminals_real"] - by_hand).abs() < 1e-12);
                assert_eq!(a.values["max_terminals"], want, "d_m {d_m} r_s {r_s} B {b}");
            }
        }
    }

    /// Eq. 4 inverts eq. 3, and eq. 6 is eq. 5 at n(B): single disk, B(18) = 324 KB and
    /// μ(1024K) multi-bus = 0.872.
    #[test]
    fn eq4_inverts_eq3_and_eq6_is_eq5_at_n_of_b() {
        let (d_m, r_s) = (0.015, 4e6);
        for n in 1..21 {
            let b = block_for(f64::from(n), d_m, r_s, A).unwrap();
            assert!((streams(b, d_m, r_s, A) - f64::from(n)).abs() < 1e-9);
        }
        assert!(
            block_for(22.0, d_m, r_s, A).is_none(),
            "22 > 8 r_s / a = 21.33"
        );
        let b18 = A * 18.0 * d_m / (8.0 - A * 18.0 / r_s);
        assert_eq!((b18 / 1e3).round(), 324.0);
        for b in [16e3, 512e3, 2048e3] {
            let n = streams(b, d_m, r_s, A);
            let eq5 = n * A / (8.0 * 10e6);
            assert!((bus_utilization(b, d_m, r_s, 10e6) - eq5).abs() < 1e-12);
        }
        let mu = bus_utilization(1024e3, 0.015, 10e6, 10e6);
        assert!((mu - 0.872).abs() < 5e-4, "{mu}");
    }

    #[test]
    fn values_at_the_scenario_load() {
        let a = model(15, 4).evaluate(&input(256e3, Some(18.0))).unwrap();
        let n_real = 8.0 * 256e3 / (A * (0.015 + 256e3 / 4e6));
        assert!((a.values["disks.utilization_mean_ratio"] - 18.0 / n_real).abs() < 1e-12);
        assert!((a.values["buses.bandwidth_mean_ratio"] - 18.0 * A / 80e6).abs() < 1e-12);
        assert!(
            (a.values["block_for_terminals_bytes"] - block_for(18.0, 0.015, 4e6, A).unwrap()).abs()
                < 1e-6
        );
        let curve = &a.tables[0];
        assert_eq!(curve.rows.len(), 21, "n = 1..21 < 21.33");
        // at 22 streams no block suffices: a note, no value
        let a = model(15, 4).evaluate(&input(256e3, Some(22.0))).unwrap();
        assert!(!a.values.contains_key("block_for_terminals_bytes"));
        assert!(a.notes.iter().any(|n| n.contains("21.33")), "{:?}", a.notes);
    }

    #[test]
    fn a_block_no_stream_count_sustains_is_an_error_at_the_stripe() {
        // 4 KB: n = 32000 / (1.5e6 · 0.016) = 1.33; 2 KB: 0.68
        assert!(model(15, 4).evaluate(&input(4e3, None)).is_ok());
        let e = model(15, 4).evaluate(&input(2e3, None)).unwrap_err();
        match e {
            PluginError::InvalidParam { path, message } => {
                assert_eq!(path, "server.stripe");
                assert!(message.contains("not sustainable at any n"), "{message}");
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn a_zero_rate_is_refused_at_its_key() {
        let p = WuBlocksizeParams {
            r_bus: Bandwidth(0),
            ..WuBlocksizeParams::default()
        };
        let e = WuBlocksize::validate(&p).unwrap_err();
        assert!(
            matches!(e, PluginError::InvalidParam { ref path, .. } if path == "r_bus"),
            "{e:?}"
        );
    }
}
