//! `[interactive]`: how terminals carry out fast-forward and rewind searches (SPIFFI §8.1).
//!
//! SPIFFI names two ways. `skip` (the default): the terminal skips through the movie showing
//! `show` seconds out of every `every` seconds of video; the skipped segments are never read,
//! and each shown segment is read through the normal server path (a re-prime of just that
//! segment). `version` ([Özde94]): every video has a fast-forward and a rewind version stored
//! on the disks beside it, `1/speedup` of its length at the same bit rate (the rewind version
//! holds the frames in reverse order, so it is read forward); a search switches to the
//! matching position of the search version and plays it at the normal rate, covering
//! `speedup` seconds of the movie per second, and `resume` switches back.

use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a terminal searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Show `show` out of every `every` seconds; the rest is not read.
    #[default]
    Skip,
    /// Switch to a separate fast-forward or rewind version of the video.
    Version,
}

/// `[interactive]`: parameters of fast-forward and rewind (used by `ff`/`rewind` events).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct InteractiveSection {
    /// `skip` (default) or `version`.
    pub search: SearchMode,
    /// `skip`: video shown at each stop of the search (default 1s; 1ms..=10min).
    pub show: Duration,
    /// `skip`: distance between successive shown segments (default 8s; `show`..=1h).
    pub every: Duration,
    /// `version`: speed-up of the search versions; each is 1/speedup of the video's length
    /// (default 8; 2..=1000). The versions take disk space only with `search = "version"`.
    pub speedup: u32,
    /// `skip`: whether searching terminals hint to the server's prefetcher the next block
    /// they will read from each disk (default true, SPIFFI §8.1); `false` leaves the
    /// prefetcher reading ahead sequentially, into video the search skips.
    pub hints: bool,
}

impl Default for InteractiveSection {
    fn default() -> Self {
        InteractiveSection {
            search: SearchMode::Skip,
            show: Duration(1_000_000_000),
            every: Duration(8_000_000_000),
            speedup: 8,
            hints: true,
        }
    }
}

impl InteractiveSection {
    /// Checks ranges; the error names the key (under `interactive.`) and what is allowed.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let dur = crate::units::fmt_duration_ns;
        let bad = |k: &str, m: String| Err((format!("interactive.{k}"), m));
        if !(1_000_000..=600_000_000_000).contains(&self.show.0) {
            return bad(
                "show",
                format!("must be in 1ms..=10min, got {}", dur(self.show.0)),
            );
        }
        if self.every.0 < self.show.0 || self.every.0 > 3_600_000_000_000 {
            return bad(
                "every",
                format!(
                    "must be in show ({})..=1h, got {}",
                    dur(self.show.0),
                    dur(self.every.0)
                ),
            );
        }
        if !(2..=1000).contains(&self.speedup) {
            return bad(
                "speedup",
                format!("must be an integer in 2..=1000, got {}", self.speedup),
            );
        }
        Ok(())
    }

    /// The speed-up of the search versions the library must hold, if any.
    pub fn search_versions(&self) -> Option<u32> {
        (self.search == SearchMode::Version).then_some(self.speedup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_ranges() {
        let d = InteractiveSection::default();
        assert!(d.validate().is_ok());
        assert_eq!(d.search_versions(), None);
        let v = InteractiveSection {
            search: SearchMode::Version,
            ..d.clone()
        };
        assert_eq!(v.search_versions(), Some(8));
        let e = InteractiveSection {
            every: Duration(500_000_000),
            ..d.clone()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.0, "interactive.every");
        assert!(e.1.contains("show (1s)"), "{}", e.1);
        let e = InteractiveSection { speedup: 1, ..d }
            .validate()
            .unwrap_err();
        assert_eq!(e.0, "interactive.speedup");
    }
}
