//! `wu-continuity`: the probability that a stream buffer of `l` blocks never empties (Wu et
//! al. §4.2, eq. 7–15).
//!
//! Blocks of one stream arrive `x_i = y_i + k·n + B·n/r_s` apart (eq. 8): a constant
//! mechanical delay `k` and a transfer per stream of the round-robin cycle, plus a dynamic
//! delay `y_i ~ U(0, DM_max]`. Eq. 8 puts **one** `y_i` in each inter-arrival, i.e. one draw
//! per round-robin cycle; that is the reading used here (with one draw per read the slack
//! would vanish at DM_max = 2Δ/n, 2.1 ms for B = 32K, against the 5–35 ms Wu plots; see
//! `scenarios/wu/README.md`). The buffer keeps up when `l` blocks arrive faster than `l`
//! blocks play:
//!
//! ```text
//! P_c = Pr{x_1 + … + x_l < 8·l·B/a} = Pr{y_1 + … + y_l < l·Δ}          (eq. 9, 10)
//! Δ = 8B/a − k·n − B·n/r_s                                              (eq. 11)
//! n_0 = max{n | Δ(n) > 0}
//! ```
//!
//! The sum of `l` uniforms is Irwin–Hall distributed, so with `x = l·Δ/DM_max`
//! `P_c = (1/l!)·Σ_{j=0}^{⌊x⌋} (−1)^j·C(l, j)·(x − j)^l` exactly. The paper prints two terms
//! of this sum (eq. 13 for `x ≤ 1`, eq. 15 for `1 < x ≤ l`, and 1 for `DM_max < Δ`), which is
//! exact only up to `x ≤ 2`; beyond, it drifts and leaves [0, 1]. The model gives both, the
//! exact one as the model of record, and flags every cell where the printed form is outside
//! [0, 1].
//!
//! `B`, `a` and `n` come from the scenario (`server.stripe`, `videos.bit_rate`,
//! `terminals.count`); `k`, `r_s`, the `DM_max` values and the largest `l` are the model's
//! parameters, defaulting to Wu §6.3 (8 ms, 4 MB/s, 5–35 ms by 5 ms, l = 1…20).

use super::{bit_rate, bytes_per_s, positive_rate, secs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    Analysis, AnalysisTable, AnalyticModel, BuildContext, ModelInput, Plugin, PluginError,
};
use vodbench_plugin_api::units::{fmt_duration_ns, Bandwidth, Duration};

/// The largest buffer length `l` the model evaluates: the alternating Irwin–Hall sum keeps
/// about 10 significant digits up to here.
pub const MAX_L: u32 = 50;

/// Parameters of `wu-continuity`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WuContinuityParams {
    /// `k`, the constant mechanical delay of each read (default 8ms, Wu §6.3).
    pub k: Duration,
    /// `r_s`, the rate a read transfers at (default 4MB/s).
    pub r_s: Bandwidth,
    /// The `DM_max` values, one curve each: the dynamic delay `y ~ U(0, DM_max]` (default
    /// 5ms to 35ms by 5ms, Wu Figs. 12-13).
    pub dm_max: Vec<Duration>,
    /// The largest buffer length `l`, in blocks: the curves run over l = 1…l_max (default
    /// 20; at most 50).
    pub l_max: u32,
}

impl Default for WuContinuityParams {
    fn default() -> Self {
        WuContinuityParams {
            k: Duration(8_000_000),
            r_s: Bandwidth(32_000_000),
            dm_max: (1..=7).map(|i| Duration(i * 5_000_000)).collect(),
            l_max: 20,
        }
    }
}

/// Eq. 11: the slack Δ per cycle, in seconds (`b` bytes, `n` streams, `k` s, `r_s` bytes/s,
/// `a` bit/s).
pub fn slack(b: f64, n: f64, k: f64, r_s: f64, a: f64) -> f64 {
    8.0 * b / a - k * n - b * n / r_s
}

/// `n_0`: the most streams with a positive slack (0 when even one has none).
pub fn n0(b: f64, k: f64, r_s: f64, a: f64) -> u64 {
    let per_stream = k + b / r_s;
    let x = (8.0 * b / a) / per_stream;
    if !x.is_finite() || x <= 0.0 {
        return 0;
    }
    // the closed form, then settled against eq. 11 itself
    let mut n = (x.ceil() as u64).saturating_sub(2);
    while slack(b, (n + 1) as f64, k, r_s, a) > 0.0 {
        n += 1;
    }
    while n > 0 && slack(b, n as f64, k, r_s, a) <= 0.0 {
        n -= 1;
    }
    n
}

/// `1/(j!·(l − j)!)`, which is `C(l, j)/l!`.
fn inv_factorials(l: u32, j: u32) -> f64 {
    let mut v = 1.0;
    for i in 1..=j {
        v /= f64::from(i);
    }
    for i in 1..=(l - j) {
        v /= f64::from(i);
    }
    v
}

/// The Irwin–Hall CDF: `Pr{U_1 + … + U_l < x}` for `l` independent U(0, 1),
/// `(1/l!)·Σ_{j=0}^{⌊x⌋} (−1)^j·C(l, j)·(x − j)^l` (evaluated on the nearer half, by the
/// symmetry `F(x) = 1 − F(l − x)`).
pub fn irwin_hall_cdf(x: f64, l: u32) -> f64 {
    let lf = f64::from(l);
    if l == 0 {
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    if x <= 0.0 {
        return 0.0;
    }
    if x >= lf {
        return 1.0;
    }
    if x > lf / 2.0 {
        return 1.0 - irwin_hall_cdf(lf - x, l);
    }
    let mut sum = 0.0;
    for j in 0..=(x.floor() as u32).min(l) {
        let term = inv_factorials(l, j) * (x - f64::from(j)).powi(l as i32);
        sum += if j % 2 == 0 { term } else { -term };
    }
    sum.clamp(0.0, 1.0)
}

/// Eq. 10, exactly: `P_c` for a buffer of `l` blocks, slack `delta` and `DM_max` `dm` (s).
pub fn p_c_exact(l: u32, delta: f64, dm: f64) -> f64 {
    irwin_hall_cdf(f64::from(l) * delta / dm, l)
}

/// Eq. 13/15 as printed (and 1 for `DM_max ≤ Δ`); may leave [0, 1].
pub fn p_c_printed(l: u32, delta: f64, dm: f64) -> f64 {
    if dm <= delta {
        return 1.0;
    }
    let x = f64::from(l) * delta / dm;
    let l_fact: f64 = (1..=l).map(f64::from).product();
    if x <= 1.0 {
        x.powi(l as i32) / l_fact
    } else {
        (x.powi(l as i32) - f64::from(l) * (x - 1.0).powi(l as i32)) / l_fact
    }
}

/// The `wu-continuity` model.
pub struct WuContinuity(WuContinuityParams);

impl AnalyticModel for WuContinuity {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let p = &self.0;
        let (k, r_s) = (secs(p.k), bytes_per_s(p.r_s));
        let b = input.require("block_bytes")?;
        let a = bit_rate(input)?;
        let n_0 = n0(b, k, r_s, a);
        if n_0 == 0 {
            return Err(input.invalid(
                "block_bytes",
                format!(
                    "a block of {b} bytes is not sustainable at any n: its playout, 8B/a = \
                     {:.6} s, is not longer than one stream's share of a cycle, k + B/r_s = \
                     {:.6} s (eq. 11: Δ ≤ 0 already at n = 1)",
                    8.0 * b / a,
                    k + b / r_s
                ),
            ));
        }
        let n = input.get("terminals").unwrap_or(n_0 as f64);
        let delta = slack(b, n, k, r_s, a);
        let mut out = Analysis::default();
        out.value("continuity.terminals", n)
            .value("continuity.n0", n_0 as f64)
            .value("continuity.delta_s", delta)
            .value("continuity.dm_threshold_s", 2.0 * delta);
        if delta <= 0.0 {
            out.note(format!(
                "n = {n} streams exceed n_0 = {n_0}: Δ = {delta:.6} s ≤ 0, so P_c = 0 at every l \
                 and DM_max"
            ));
        }
        let mut columns = vec!["l".to_string()];
        columns.extend(
            p.dm_max
                .iter()
                .map(|d| format!("dm_max_{}", fmt_duration_ns(d.0))),
        );
        let (mut exact, mut printed, mut outside) = (Vec::new(), Vec::new(), Vec::new());
        let mut first_outside: Option<(u32, Duration, f64)> = None;
        let mut count_outside = 0;
        for l in 1..=p.l_max {
            let (mut e, mut pr, mut o) =
                (vec![f64::from(l)], vec![f64::from(l)], vec![f64::from(l)]);
            for dm in &p.dm_max {
                let dms = secs(*dm);
                e.push(p_c_exact(l, delta, dms));
                let v = p_c_printed(l, delta, dms);
                let off = !(0.0..=1.0).contains(&v);
                if off {
                    count_outside += 1;
                    first_outside.get_or_insert((l, *dm, v));
                }
                pr.push(v);
                o.push(if off { 1.0 } else { 0.0 });
            }
            exact.push(e);
            printed.push(pr);
            outside.push(o);
        }
        if let Some((l, dm, v)) = first_outside {
            out.note(format!(
                "the printed eq. 13/15 leaves [0, 1] at {count_outside} of {} (l, DM_max) \
                 cells, first at l = {l}, DM_max = {dm}: {v:.4} (it is exact only where \
                 l·Δ ≤ 2·DM_max)",
                p.l_max as usize * p.dm_max.len()
            ));
        }
        let table = |name: &str, description: &str, rows| AnalysisTable {
            name: name.into(),
            description: description.into(),
            columns: columns.clone(),
            rows,
        };
        out.tables.push(table(
            "p_c_exact",
            "eq. 10 exactly (Irwin-Hall): P_c by buffer length l (rows) and DM_max (columns)",
            exact,
        ));
        out.tables.push(table(
            "p_c_printed",
            "eq. 13/15 as printed: P_c by l and DM_max",
            printed,
        ));
        out.tables.push(table(
            "p_c_printed_outside",
            "1 where the printed eq. 13/15 is outside [0, 1], else 0",
            outside,
        ));
        Ok(out)
    }
}

impl Plugin for WuContinuity {
    type Kind = dyn AnalyticModel;
    type Params = WuContinuityParams;
    const NAME: &'static str = "wu-continuity";
    const DESCRIPTION: &'static str =
        "probability of continuity of an l-block stream buffer (Wu et al. eq. 7-15)";
    fn validate(p: &WuContinuityParams) -> Result<(), PluginError> {
        positive_rate("r_s", p.r_s)?;
        if !(1..=MAX_L).contains(&p.l_max) {
            return Err(PluginError::param(
                "l_max",
                format!(
                    "must be in 1..={MAX_L} blocks (a buffer of l = 0 blocks holds nothing), \
                     got {}",
                    p.l_max
                ),
            ));
        }
        if p.dm_max.is_empty() {
            return Err(PluginError::param(
                "dm_max",
                "must list at least one DM_max (e.g. [\"10ms\"])",
            ));
        }
        if let Some(i) = p.dm_max.iter().position(|d| d.0 == 0) {
            return Err(PluginError::param(
                format!("dm_max[{i}]"),
                "must be positive: y ~ U(0, DM_max] needs DM_max > 0",
            ));
        }
        Ok(())
    }
    fn build(
        p: &WuContinuityParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn AnalyticModel>, PluginError> {
        Ok(Box::new(WuContinuity(p.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::Rng;

    const A: f64 = 1.5e6;

    /// The Irwin–Hall CDF by its recurrence `F_m(x) = (x·F_{m−1}(x) + (m − x)·F_{m−1}(x − 1))/m`
    /// (an exact form independent of the alternating sum, stable for any l).
    fn by_recurrence(x: f64, l: u32) -> f64 {
        let l = l as usize;
        // g[i] = F_m(x - i)
        let mut g: Vec<f64> = (0..=l)
            .map(|i| if x - i as f64 >= 0.0 { 1.0 } else { 0.0 })
            .collect();
        for m in 1..=l {
            let mf = m as f64;
            for i in 0..=(l - m) {
                let y = x - i as f64;
                g[i] = if y <= 0.0 {
                    0.0
                } else if y >= mf {
                    1.0
                } else {
                    (y * g[i] + (mf - y) * g[i + 1]) / mf
                };
            }
        }
        g[0]
    }

    #[test]
    fn the_sum_agrees_with_the_recurrence_up_to_the_largest_l() {
        for l in 1..=MAX_L {
            for k in 0..=40 {
                let x = f64::from(l) * f64::from(k) / 40.0;
                let (s, r) = (irwin_hall_cdf(x, l), by_recurrence(x, l));
                assert!((s - r).abs() < 1e-8, "l = {l}, x = {x}: {s} vs {r}");
            }
        }
        // l = 2: F(x) = x²/2 below 1 and 1 - (2 - x)²/2 above
        assert!((irwin_hall_cdf(0.5, 2) - 0.125).abs() < 1e-15);
        assert!((irwin_hall_cdf(1.5, 2) - 0.875).abs() < 1e-15);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Against Monte-Carlo: 20,000 sums of l uniforms, within 4.5 standard errors.
        #[test]
        fn the_exact_cdf_matches_monte_carlo(l in 1u32..=20, frac in 0.0f64..1.0, seed in 0u64..1000) {
            let x = frac * f64::from(l);
            let mut rng = vodbench_plugin_api::rng::stream(seed, "irwin-hall", u64::from(l));
            let trials = 20_000;
            let hits = (0..trials)
                .filter(|_| (0..l).map(|_| rng.random::<f64>()).sum::<f64>() < x)
                .count();
            let estimate = hits as f64 / f64::from(trials);
            let p = irwin_hall_cdf(x, l);
            let se = (p * (1.0 - p) / f64::from(trials)).sqrt();
            prop_assert!((estimate - p).abs() <= 4.5 * se + 1e-3,
                "l = {}, x = {}: exact {} vs Monte-Carlo {}", l, x, p, estimate);
        }
    }

    fn model() -> WuContinuity {
        WuContinuity(WuContinuityParams::default())
    }

    fn input(block: f64, n: f64) -> ModelInput {
        let mut i = ModelInput::new("on-demand", "analytic");
        i.set("block_bytes", block, "server.stripe")
            .set("bit_rate_bps", A, "videos.bit_rate")
            .set("terminals", n, "terminals.count");
        i
    }

    /// Wu §6.3: Δ = 0.010667 s and n_0 = 10 for B = 32K; n_0 = 14 for B = 64K (decimal
    /// units), from eq. 11 by hand.
    #[test]
    fn delta_and_n0_of_section_6_3() {
        let d32 = 8.0 * 32e3 / A - 0.008 * 10.0 - 32e3 * 10.0 / 4e6;
        assert!((d32 - 0.010667).abs() < 5e-7, "{d32}");
        let a = model().evaluate(&input(32e3, 10.0)).unwrap();
        assert!((a.values["continuity.delta_s"] - d32).abs() < 1e-15);
        assert_eq!(a.values["continuity.n0"], 10.0);
        // n_0: the last n with 8B/a - n(k + B/r_s) > 0
        assert!(slack(32e3, 10.0, 0.008, 4e6, A) > 0.0 && slack(32e3, 11.0, 0.008, 4e6, A) <= 0.0);
        let a = model().evaluate(&input(64e3, 14.0)).unwrap();
        assert_eq!(a.values["continuity.n0"], 14.0);
        let d64 = 8.0 * 64e3 / A - 0.008 * 14.0 - 64e3 * 14.0 / 4e6;
        assert!((a.values["continuity.delta_s"] - d64).abs() < 1e-15);
        assert!((d64 - 0.005333).abs() < 5e-7, "{d64}");
    }

    /// The exact and printed forms at cells the reading notes tabulate (computed here from
    /// the formulas), and W6: at B = 64K, n = 14, DM_max = 10 ms, l = 5, neither form is 1.
    #[test]
    fn p_c_cells_of_figs_12_and_13() {
        let d32 = slack(32e3, 10.0, 0.008, 4e6, A);
        let cases = [
            (15, 0.015, 0.998),
            (20, 0.020, 0.696),
            (1, 0.025, 0.427),
            (10, 0.030, 0.057),
        ];
        for (l, dm, want) in cases {
            let got = p_c_exact(l, d32, dm);
            assert!((got - want).abs() < 5e-4, "l {l} DM {dm}: {got}");
        }
        assert_eq!(p_c_exact(20, d32, 0.010), 1.0, "DM < Δ: always in time");
        // printed: DM = 15 ms, l = 4 (x = 2.84 > 2) gives .799 where the exact value is .926
        let x: f64 = 4.0 * d32 / 0.015;
        let by_hand = (x.powi(4) - 4.0 * (x - 1.0).powi(4)) / 24.0;
        assert!((p_c_printed(4, d32, 0.015) - by_hand).abs() < 1e-15);
        assert!((by_hand - 0.799).abs() < 5e-4, "{by_hand}");
        assert!((p_c_exact(4, d32, 0.015) - 0.926).abs() < 5e-4);
        // W6
        let d64 = slack(64e3, 14.0, 0.008, 4e6, A);
        let (e, p) = (p_c_exact(5, d64, 0.010), p_c_printed(5, d64, 0.010));
        assert!(
            (e - 0.599).abs() < 5e-4 && (p - 0.588).abs() < 5e-4,
            "{e} {p}"
        );
        for l in 6..=20 {
            assert!(p_c_exact(l, d64, 0.010) < 0.7, "l = {l}");
            assert!(p_c_printed(l, d64, 0.010) < 0.6, "l = {l}");
        }
    }

    #[test]
    fn tables_and_the_flag_where_the_printed_form_leaves_its_range() {
        let a = model().evaluate(&input(32e3, 10.0)).unwrap();
        let names: Vec<&str> = a.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["p_c_exact", "p_c_printed", "p_c_printed_outside"]);
        let t = &a.tables[0];
        assert_eq!(t.columns[1], "dm_max_5ms");
        assert_eq!((t.rows.len(), t.columns.len()), (20, 8));
        let (printed, flags) = (&a.tables[1], &a.tables[2]);
        for (pr, fl) in printed.rows.iter().zip(&flags.rows) {
            for c in 1..pr.len() {
                assert_eq!(fl[c] == 1.0, !(0.0..=1.0).contains(&pr[c]));
            }
        }
        // DM = 15 ms (column 3) goes negative by l = 15
        assert_eq!(flags.rows[14][3], 1.0);
        assert!(
            a.notes.iter().any(|n| n.contains("leaves [0, 1]")),
            "{:?}",
            a.notes
        );
    }

    #[test]
    fn bad_inputs_are_errors_naming_the_key() {
        let p = |f: fn(&mut WuContinuityParams)| {
            let mut p = WuContinuityParams::default();
            f(&mut p);
            WuContinuity::validate(&p).unwrap_err()
        };
        let path = |e: PluginError| match e {
            PluginError::InvalidParam { path, .. } => path,
            e => panic!("{e:?}"),
        };
        assert_eq!(path(p(|p| p.l_max = 0)), "l_max");
        assert_eq!(path(p(|p| p.l_max = 51)), "l_max");
        assert_eq!(path(p(|p| p.dm_max = vec![])), "dm_max");
        assert_eq!(path(p(|p| p.dm_max[2] = Duration(0))), "dm_max[2]");
        assert_eq!(path(p(|p| p.r_s = Bandwidth(0))), "r_s");
        // 2 KB at 1.5 Mbit/s plays for 10.7 ms, more than k + B/r_s = 8.5 ms; 1 KB plays for
        // 5.3 ms, less than 8.25 ms: no n sustains it
        assert!(model().evaluate(&input(2e3, 1.0)).is_ok());
        assert_eq!(
            path(model().evaluate(&input(1e3, 1.0)).unwrap_err()),
            "server.stripe"
        );
    }

    #[test]
    fn more_streams_than_n0_leave_no_chance() {
        let a = model().evaluate(&input(32e3, 11.0)).unwrap();
        assert!(a.values["continuity.delta_s"] < 0.0);
        assert!(a.tables[0]
            .rows
            .iter()
            .all(|r| r[1..].iter().all(|&v| v == 0.0)));
        assert!(
            a.notes.iter().any(|n| n.contains("exceed n_0")),
            "{:?}",
            a.notes
        );
    }
}
