//! `chunked`: server-side chunking for client caching (Waldvogel et al. §VII).
//!
//! Frames are grouped into chunks of `H` consecutive frames. The chunk's first frame (its
//! *leader*, window `λ₀`) is sent as in IDEAL, every `λ₀` instants. Every other frame `g` of
//! the chunk follows its own chain — its next copy is due `λ_g = w + g` instants after the
//! previous one — but is pulled forward onto the latest leader instant at or before that due
//! instant when it lies within the frame's *time frame* `T(g) = δa·(w + g) + δd·w`, so that
//! frames played close together arrive together ("no two frames in a chunk are scheduled more
//! than T(f) instants from each other"). Copies that no leader instant is close enough for
//! stay at their due instant. Moving only earlier keeps every client's window covered; the
//! cost is bandwidth — at most `(H − 1)/λ₀` per frame — which the summary reports.
//!
//! The chunk size defaults to the receivers' write batch κ, the paper's empirical optimum
//! ("chunk sizes that correspond to the client-side cache replacement size κ").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    BroadcastSchedule, BuildContext, Plugin, PluginError, Schedule, ScheduleSpec,
};

/// Parameters of `chunked`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ChunkedParams {
    /// Chunk size `H` in frames (default: the receivers' batch size κ).
    pub chunk: Option<u32>,
    /// `δa`: the time frame's share of the frame's window (default 0.05).
    pub delta_a: f64,
    /// `δd`: the time frame's share of the initial delay (default 0.5).
    pub delta_d: f64,
}

impl Default for ChunkedParams {
    fn default() -> Self {
        ChunkedParams {
            chunk: None,
            delta_a: 0.05,
            delta_d: 0.5,
        }
    }
}

/// The `chunked` schedule.
#[derive(Debug, Clone)]
pub struct Chunked {
    params: ChunkedParams,
}

impl Chunked {
    /// A chunked schedule with these parameters.
    pub fn new(params: ChunkedParams) -> Self {
        Chunked { params }
    }
}

impl BroadcastSchedule for Chunked {
    /// Only when its chunk is not given: it then takes the receivers' batch.
    fn uses_chunk_hint(&self) -> bool {
        self.params.chunk.is_none()
    }

    fn schedule(&self, spec: &ScheduleSpec) -> Result<Schedule, PluginError> {
        let h = self.params.chunk.unwrap_or(spec.chunk_hint).max(1);
        let mut s = Schedule::builder(*spec);
        let mut buf = Vec::new();
        let w = f64::from(spec.delay);
        for frame in 0..spec.frames {
            let leader = frame - frame % h;
            let l0 = spec.window(leader);
            let lambda = spec.window(frame);
            let time_frame =
                (self.params.delta_a * f64::from(lambda) + self.params.delta_d * w) as u32;
            buf.clear();
            let mut prev = 0u32;
            while prev + lambda <= spec.horizon {
                let due = prev + lambda;
                let anchor = due / l0 * l0;
                let t = if anchor > prev && due - anchor <= time_frame {
                    anchor
                } else {
                    due
                };
                buf.push(t);
                prev = t;
            }
            s.push_frame(&mut buf)?;
        }
        Ok(s)
    }
}

impl Plugin for Chunked {
    type Kind = dyn BroadcastSchedule;
    type Params = ChunkedParams;
    const NAME: &'static str = "chunked";
    const DESCRIPTION: &'static str =
        "IDEAL with each chunk of H frames pulled onto its leader's instants within T(f) (§VII)";

    fn validate(p: &ChunkedParams) -> Result<(), PluginError> {
        if p.chunk == Some(0) {
            return Err(PluginError::param("chunk", "must be at least 1 frame"));
        }
        for (k, v) in [("delta_a", p.delta_a), ("delta_d", p.delta_d)] {
            if !(0.0..=10.0).contains(&v) {
                return Err(PluginError::param(
                    k,
                    format!("must be in [0, 10], got {v}"),
                ));
            }
        }
        Ok(())
    }

    fn build(
        p: &ChunkedParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn BroadcastSchedule>, PluginError> {
        Ok(Box::new(Chunked::new(p.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run shares one schedule among points whose receivers batch differently when the
    /// schedule says it ignores the hint: it must then be the same whatever the hint.
    #[test]
    fn schedules_that_ignore_the_chunk_hint_are_the_same_for_any_hint() {
        use crate::broadcast_schedule::fuzzycast::{Fuzzycast, FuzzycastParams};
        use crate::broadcast_schedule::ideal::Ideal;
        let spec = |chunk_hint| ScheduleSpec {
            frames: 300,
            delay: 30,
            horizon: 700,
            chunk_hint,
        };
        let given = Chunked::new(ChunkedParams {
            chunk: Some(7),
            ..ChunkedParams::default()
        });
        let fuzzy = Fuzzycast::new(FuzzycastParams::default());
        let plugins: [&dyn BroadcastSchedule; 3] = [&Ideal, &fuzzy, &given];
        for p in plugins {
            assert!(!p.uses_chunk_hint());
            let (a, b) = (
                p.schedule(&spec(1)).unwrap(),
                p.schedule(&spec(23)).unwrap(),
            );
            for f in 0..300 {
                assert_eq!(a.transmissions(f), b.transmissions(f), "frame {f}");
            }
        }
        // without a chunk of its own, chunked takes the receivers' batch
        let hinted = Chunked::new(ChunkedParams::default());
        assert!(hinted.uses_chunk_hint());
        let (a, b) = (
            hinted.schedule(&spec(1)).unwrap(),
            hinted.schedule(&spec(23)).unwrap(),
        );
        assert!((0..300).any(|f| a.transmissions(f) != b.transmissions(f)));
    }

    #[test]
    fn chunk_members_travel_with_their_leader() {
        let spec = ScheduleSpec {
            frames: 400,
            delay: 40,
            horizon: 1200,
            chunk_hint: 10,
        };
        let s = Chunked::new(ChunkedParams::default())
            .schedule(&spec)
            .unwrap();
        s.check_windows().unwrap();
        // Frame 105's leader is frame 100 (λ₀ = 141): after the first copy, every copy of
        // 105 coincides with one of the leader's.
        let leader: Vec<u32> = s.transmissions(100).to_vec();
        let member = s.transmissions(105);
        assert!(
            member.iter().skip(1).all(|t| leader.contains(t)),
            "{member:?}"
        );
    }

    #[test]
    fn zero_chunk_is_rejected() {
        let p = ChunkedParams {
            chunk: Some(0),
            ..ChunkedParams::default()
        };
        assert!(Chunked::validate(&p).is_err());
    }
}
