//! `[piggyback]`: start delays that let later viewers of a video join the first (SPIFFI §8.2).
//!
//! "The video server could … recognize popular movies and intentionally delay the first
//! subscriber (e.g., by playing a few commercials) while it waits for additional subscribers
//! to request the same movie. … The piggybacked terminals would place the same demands on the
//! video server as a single terminal would." The delay "could even be selected based on the
//! popularity of the particular movie": here it is `delay` for every video, or only for the
//! `most_popular` N videos, and `delays` gives videos one by one by popularity rank (video
//! `i` is rank `i + 1`: the workload generator's Zipf ranks, SPIFFI §6.1), overriding `delay`
//! for the first `delays.len()` videos. A delay of 0 means no piggybacking for that video.

use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[piggyback]`: which videos get a start delay, and how long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PiggybackSection {
    /// Start delay during which later requests for the same video join the first (0..=10h).
    pub delay: Duration,
    /// Apply `delay` only to the N most popular videos (0-based ids `0..N`); default: every
    /// video.
    #[serde(default)]
    pub most_popular: Option<u32>,
    /// Delays by popularity rank: video `i` gets `delays[i]` (overrides `delay` and
    /// `most_popular` for those videos; at most `videos.count` entries, each 0..=10h).
    #[serde(default)]
    pub delays: Vec<Duration>,
}

const MAX_DELAY: u64 = 36_000_000_000_000;

impl PiggybackSection {
    /// The start delay of video `v`.
    pub fn delay_of(&self, v: u32) -> Duration {
        if let Some(d) = self.delays.get(v as usize) {
            return *d;
        }
        if self.most_popular.is_none_or(|n| v < n) {
            self.delay
        } else {
            Duration(0)
        }
    }

    /// Checks ranges for a library of `videos` videos; the error names the key (under
    /// `piggyback.`) and what is allowed.
    pub fn validate(&self, videos: u32) -> Result<(), (String, String)> {
        let dur = crate::units::fmt_duration_ns;
        if self.delay.0 > MAX_DELAY {
            return Err((
                "piggyback.delay".into(),
                format!("must be in 0s..=10h, got {}", dur(self.delay.0)),
            ));
        }
        if let Some(n) = self.most_popular {
            if n == 0 || n > videos {
                return Err((
                    "piggyback.most_popular".into(),
                    format!("must be in 1..={videos} (videos.count), got {n}"),
                ));
            }
        }
        if self.delays.len() > videos as usize {
            return Err((
                "piggyback.delays".into(),
                format!(
                    "has {} entries; at most one per video ({videos})",
                    self.delays.len()
                ),
            ));
        }
        if let Some((i, d)) = self
            .delays
            .iter()
            .enumerate()
            .find(|(_, d)| d.0 > MAX_DELAY)
        {
            return Err((
                "piggyback.delays".into(),
                format!("entry {i} must be in 0s..=10h, got {}", dur(d.0)),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_by_rank() {
        let min = |m: u64| Duration(m * 60_000_000_000);
        let p = PiggybackSection {
            delay: min(5),
            most_popular: Some(3),
            delays: vec![min(10)],
        };
        assert_eq!(p.delay_of(0), min(10));
        assert_eq!(p.delay_of(1), min(5));
        assert_eq!(p.delay_of(2), min(5));
        assert_eq!(p.delay_of(3), Duration(0));
        assert!(p.validate(64).is_ok());
        assert_eq!(p.validate(2).unwrap_err().0, "piggyback.most_popular");
        let all = PiggybackSection {
            delay: min(5),
            most_popular: None,
            delays: vec![],
        };
        assert_eq!(all.delay_of(63), min(5));
        let e = PiggybackSection {
            delays: vec![min(1); 3],
            ..all
        }
        .validate(2)
        .unwrap_err();
        assert_eq!(e.0, "piggyback.delays");
    }
}
