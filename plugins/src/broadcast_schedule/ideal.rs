//! `ideal`: Algorithm IDEAL (Waldvogel et al. §III, Algorithm 1).
//!
//! Frame `f` (1-based) is sent every `λ = w + f` instants, at `λ, 2λ, 3λ, …`. A client joining
//! at any instant `t ≥ 1` sees exactly one transmission in `[t, t + λ)`, so every frame
//! arrives in time, and the mean bandwidth is eq. 1, `Σ 1/(w + f) ≈ ln((n + w)/w)` playout
//! rates. Its peak is large: every instant divisible by many windows gets all of them.

use vodbench_plugin_api::plugin::NoParams;
use vodbench_plugin_api::plugin::{
    BroadcastSchedule, BuildContext, Plugin, PluginError, Schedule, ScheduleSpec,
};

/// The `ideal` schedule.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ideal;

impl BroadcastSchedule for Ideal {
    fn uses_chunk_hint(&self) -> bool {
        false
    }

    fn schedule(&self, spec: &ScheduleSpec) -> Result<Schedule, PluginError> {
        let mut s = Schedule::builder(*spec);
        let mut buf = Vec::new();
        for frame in 0..spec.frames {
            let lambda = spec.window(frame);
            buf.clear();
            buf.extend((1..=spec.horizon / lambda).map(|k| k * lambda));
            s.push_frame(&mut buf)?;
        }
        Ok(s)
    }
}

impl Plugin for Ideal {
    type Kind = dyn BroadcastSchedule;
    type Params = NoParams;
    const NAME: &'static str = "ideal";
    const DESCRIPTION: &'static str =
        "frame f every w + f instants (Algorithm IDEAL; mean bandwidth Σ 1/(w+f))";

    fn build(
        _: &NoParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn BroadcastSchedule>, PluginError> {
        Ok(Box::new(Ideal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_bandwidth_is_eq1_exactly_over_a_common_period() {
        // n = 10, w = 2: windows 3..=12, whose lcm is 27720. Over one such period frame f is
        // sent exactly 27720/λ times, so the total is Σ 27720/λ — eq. 1 times the period.
        let spec = ScheduleSpec {
            frames: 10,
            delay: 2,
            horizon: 27_720,
            chunk_hint: 1,
        };
        let s = Ideal.schedule(&spec).unwrap();
        let expected: u64 = (3..=12u64).map(|l| 27_720 / l).sum();
        assert_eq!(s.total_transmissions(), expected);
        let (mean, _) = s.bandwidth(1);
        let eq1 = crate::analytic_model::waldvogel_bandwidth::ideal_bandwidth(10, 2);
        assert!((mean - eq1).abs() < 1e-12, "{mean} vs {eq1}");
    }
}
