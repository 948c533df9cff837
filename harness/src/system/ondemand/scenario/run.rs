//! `[run]`: how long to simulate, when measurement starts and what is sampled (SPIFFI §6),
//! with its section check.

use super::values::{auto_or_duration, auto_or_duration_schema, dur, is_zero, plain, range, HOUR};
use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[run]`: how long to simulate.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// `"auto"` (default): measurement starts once every terminal has begun displaying its
    /// first video (SPIFFI §6). Or a fixed duration such as `"5min"`.
    #[serde(default)]
    pub warmup: Warmup,
    /// Length of the measured period after warm-up.
    pub duration: Duration,
    /// Interval between samples of the time series (`timeseries.csv`: buffer occupancy,
    /// server memory, disk utilization, queue lengths) during the measured period.
    #[serde(default = "default_sample_interval")]
    pub sample_interval: Duration,
    /// Keep every n-th disk request of the measured period, with its I/O time parts, in
    /// `requests.csv` (0: none).
    #[serde(default = "default_request_sample_every")]
    pub request_sample_every: u32,
    /// Split the delay of every fragment request into Jadav et al.'s components (N_C, D_T,
    /// D_S, D_R, N_Q, S_Q, R_tot: `summary.json`'s `request_delays`, `delays.csv`, the
    /// report's stacked charts). Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub request_delays: bool,
    /// Measure continuity as Wu et al. define it (§4.2, eq. 9–10): for each buffer length
    /// l = 1…`continuity`, the share of windows of l consecutive block arrivals of a
    /// continuously served stream that arrived in less time than they play
    /// (`summary.json`'s `continuity`, `continuity.csv`). 0 (default) measures nothing; at
    /// most 100.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub continuity: u32,
}

impl RunSection {
    /// `[run]`: the durations and counts in range.
    pub(super) fn validate(&self) -> Result<(), (String, String)> {
        range(
            "run.duration",
            self.duration.0,
            1_000_000_000,
            1000 * HOUR,
            &dur,
        )?;
        if let Warmup::Fixed(w) = self.warmup {
            range("run.warmup", w.0, 0, 1000 * HOUR, &dur)?;
        }
        range(
            "run.sample_interval",
            self.sample_interval.0,
            1_000_000,
            1000 * HOUR,
            &dur,
        )?;
        // 0 would keep no request at all: an empty requests table that looks measured
        range(
            "run.request_sample_every",
            u64::from(self.request_sample_every),
            1,
            u64::from(u32::MAX),
            &plain,
        )?;
        // windows of 0 … 100 blocks (0: not measured)
        range(
            "run.continuity",
            u64::from(self.continuity),
            0,
            u64::from(super::super::continuity::MAX_WINDOW),
            &plain,
        )
    }
}

fn default_sample_interval() -> Duration {
    Duration(1_000_000_000)
}

fn default_request_sample_every() -> u32 {
    16
}

/// When measurement starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Warmup {
    /// When every terminal with a start event has begun display.
    #[default]
    Auto,
    /// After a fixed simulated time.
    Fixed(Duration),
}

impl Serialize for Warmup {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Warmup::Auto => s.serialize_str("auto"),
            Warmup::Fixed(d) => d.serialize(s),
        }
    }
}

impl JsonSchema for Warmup {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Warmup".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        auto_or_duration_schema("5min")
    }
}

impl<'de> Deserialize<'de> for Warmup {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(auto_or_duration(d, "5min")?.map_or(Warmup::Auto, Warmup::Fixed))
    }
}
