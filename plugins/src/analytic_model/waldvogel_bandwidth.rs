//! `waldvogel-bandwidth`: the bandwidth and client buffer of IDEAL periodic broadcast
//! (Waldvogel et al. §III, eq. 1–2).
//!
//! A movie of `n` frames broadcast with initial delay `w` instants (one instant = one frame
//! time) needs, under IDEAL, a mean bandwidth of eq. 1,
//! `B = Σ_{f=1..n} 1/(w + f) ≈ ln((n + w)/w)` playout rates, and a client joining at time 0
//! holds eq. 2's `B(t) = t·ln((n + w)/w)` frames for `t ≤ w` and `t·ln((n + w)/t)` for
//! `w ≤ t ≤ n + w`, which peaks at `t = (n + w)/e` with `(n + w)/e` frames. Broadcast runs print
//! these beside the measured schedule and receivers (their `schedule.ideal_bandwidth_ratio`,
//! `schedule.ideal_bandwidth_approx_ratio`, `receivers.peak_buffered_theory_frames` and
//! `receivers.peak_buffered_theory_instant` are this model's values).

use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    Analysis, AnalysisTable, AnalyticModel, BuildContext, ModelInput, Plugin, PluginError,
};

/// Eq. 1: the exact mean bandwidth of IDEAL, `Σ_{f=1..n} 1/(w + f)`, in playout rates.
pub fn ideal_bandwidth(frames: u32, delay: u32) -> f64 {
    (1..=frames).map(|f| 1.0 / f64::from(delay + f)).sum()
}

/// Eq. 1's approximation `ln((n + w) / w)`.
pub fn ideal_bandwidth_approx(frames: u32, delay: u32) -> f64 {
    (f64::from(frames + delay) / f64::from(delay.max(1))).ln()
}

/// Eq. 2: frames a client buffers `t` instants after joining (`1 ≤ t ≤ n + w`).
pub fn buffered_frames(frames: u32, delay: u32, t: f64) -> f64 {
    let nw = f64::from(frames + delay);
    if t <= f64::from(delay) {
        t * (nw / f64::from(delay.max(1))).ln()
    } else {
        t * (nw / t).ln()
    }
}

/// The `waldvogel-bandwidth` model.
pub struct WaldvogelBandwidth;

/// A whole count from quantity `name`.
fn count(input: &ModelInput, name: &str) -> Result<u32, PluginError> {
    let v = input.require(name)?;
    if v < 1.0 || v.fract() != 0.0 || v > f64::from(u32::MAX) {
        return Err(input.invalid(name, format!("must be a whole number ≥ 1, got {v}")));
    }
    Ok(v as u32)
}

impl AnalyticModel for WaldvogelBandwidth {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let n = count(input, "frames")?;
        let w = count(input, "delay_instants")?;
        let n_plus_w = n.checked_add(w).ok_or_else(|| {
            input.invalid("frames", "frames + delay overflows a 32-bit frame count")
        })?;
        let nw = f64::from(n_plus_w);
        let mut out = Analysis::default();
        out.value("schedule.ideal_bandwidth_ratio", ideal_bandwidth(n, w))
            .value(
                "schedule.ideal_bandwidth_approx_ratio",
                ideal_bandwidth_approx(n, w),
            )
            .value(
                "receivers.peak_buffered_theory_frames",
                nw / std::f64::consts::E,
            )
            .value(
                "receivers.peak_buffered_theory_instant",
                nw / std::f64::consts::E,
            );
        // eq. 2 at 100 instants spread over one period (each instant once)
        let mut rows: Vec<Vec<f64>> = Vec::new();
        for k in 1..=100u64 {
            let t = (k * u64::from(n_plus_w)).div_ceil(100).max(1) as f64;
            if rows.last().is_some_and(|r| r[0] == t) {
                continue;
            }
            rows.push(vec![t, buffered_frames(n, w, t)]);
        }
        out.tables.push(AnalysisTable {
            name: "buffer_curve".into(),
            description: "eq. 2: frames a client holds t instants after joining".into(),
            columns: vec!["t_instants".into(), "buffered_frames".into()],
            rows,
        });
        Ok(out)
    }
}

impl Plugin for WaldvogelBandwidth {
    type Kind = dyn AnalyticModel;
    type Params = NoParams;
    const NAME: &'static str = "waldvogel-bandwidth";
    const DESCRIPTION: &'static str =
        "IDEAL broadcast bandwidth and client buffer (Waldvogel et al. eq. 1-2)";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn AnalyticModel>, PluginError> {
        Ok(Box::new(WaldvogelBandwidth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(frames: f64, delay: f64) -> ModelInput {
        let mut i = ModelInput::new("broadcast", "broadcast.analytic");
        i.set("frames", frames, "broadcast.frames")
            .set("delay_instants", delay, "broadcast.delay");
        i
    }

    #[test]
    fn eq1_and_eq2_at_a_small_movie() {
        // n = 4, w = 2: 1/3 + 1/4 + 1/5 + 1/6 = 0.95; ln(6/2) = 1.0986; (n+w)/e = 2.2073
        let a = WaldvogelBandwidth.evaluate(&input(4.0, 2.0)).unwrap();
        let v = |k: &str| a.values[k];
        let eq1 = 1.0 / 3.0 + 1.0 / 4.0 + 1.0 / 5.0 + 1.0 / 6.0;
        assert!((v("schedule.ideal_bandwidth_ratio") - eq1).abs() < 1e-15);
        assert!((v("schedule.ideal_bandwidth_approx_ratio") - 3f64.ln()).abs() < 1e-15);
        assert!(
            (v("receivers.peak_buffered_theory_frames") - 6.0 / std::f64::consts::E).abs() < 1e-15
        );
        // eq. 2's two branches meet at t = w and its maximum is the peak
        let t = &a.tables[0];
        assert_eq!(t.rows.first().unwrap()[0], 1.0);
        assert_eq!(t.rows.last().unwrap()[0], 6.0);
        for r in &t.rows {
            assert!(r[1] <= 6.0 / std::f64::consts::E + 1e-12, "{r:?}");
        }
        assert!((buffered_frames(4, 2, 2.0) - 2.0 * 3f64.ln()).abs() < 1e-15);
        assert!(buffered_frames(4, 2, 6.0).abs() < 1e-15);
    }

    #[test]
    fn the_approximation_approaches_the_sum_for_long_movies() {
        // Waldvogel §III: a two-hour movie at 30 frames/s with w = 30 s
        let (n, w) = (216_000, 900);
        let rel =
            (ideal_bandwidth(n, w) - ideal_bandwidth_approx(n, w)).abs() / ideal_bandwidth(n, w);
        assert!(rel < 1e-3, "{rel}");
    }

    #[test]
    fn a_missing_or_broken_quantity_is_an_error_naming_it() {
        let e = WaldvogelBandwidth
            .evaluate(&ModelInput::new("on-demand", "analytic"))
            .unwrap_err();
        assert!(e.to_string().contains("`frames`"), "{e}");
        let e = WaldvogelBandwidth.evaluate(&input(0.0, 2.0)).unwrap_err();
        assert!(
            matches!(&e, PluginError::InvalidParam { path, .. } if path == "broadcast.frames"),
            "{e:?}"
        );
    }
}
