//! `[videos]`: the video library (SPIFFI §6.1: its lengths, bit rate and MPEG frame sizes),
//! with its section check.

use super::values::{dur, plain, range, rate, HOUR};
use crate::units::{BitRate, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[videos]`: the library. Every video has the same length and bit rate.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VideoSection {
    /// Number of videos (1..=100000).
    pub count: u32,
    /// Length of each video (1s..=100h).
    pub length: Duration,
    /// Mean bit rate (1kbit/s..=10Gbit/s).
    pub bit_rate: BitRate,
    /// Frames per second (1..=240; default 30).
    #[serde(default = "default_fps")]
    pub fps: u32,
    /// Frame sizes: `"mpeg"` (SPIFFI §6.1 VBR, default) or `"cbr"` (all frames equal).
    #[serde(default)]
    pub frames: FrameModel,
    /// MPEG group-of-pictures pattern (default `IBBPBBPBBPBBPBB`: I:P:B frequency 1:4:10).
    #[serde(default = "default_gop")]
    pub gop: String,
    /// Mean I:P:B frame size ratio (default `[10, 5, 2]`).
    #[serde(default = "default_ratio")]
    pub size_ratio: [f64; 3],
}

impl VideoSection {
    /// Nominal stripe blocks per video of `stripe` bytes (at the mean bit rate, twice over
    /// for the frames' spread), for range checks before the library is generated.
    pub fn nominal_blocks(&self, stripe: u64) -> u64 {
        let bytes = u128::from(self.length.0) * u128::from(self.bit_rate.0) / 8 / 1_000_000_000;
        (bytes as u64).div_ceil(stripe.max(1)) * 2
    }

    /// `[videos]`: counts, lengths and rates in range, a GOP pattern, frame size ratios.
    pub(super) fn validate(&self) -> Result<(), (String, String)> {
        let v = self;
        range("videos.count", u64::from(v.count), 1, 100_000, &plain)?;
        range("videos.length", v.length.0, 1_000_000_000, 100 * HOUR, &dur)?;
        range(
            "videos.bit_rate",
            v.bit_rate.0,
            1_000,
            10_000_000_000,
            &rate,
        )?;
        range("videos.fps", u64::from(v.fps), 1, 240, &plain)?;
        if v.gop.is_empty()
            || !v.gop.starts_with('I')
            || !v.gop.chars().all(|c| matches!(c, 'I' | 'P' | 'B'))
            || v.gop.len() > 1000
        {
            return Err((
                "videos.gop".into(),
                format!(
                    "must be a pattern of I, P and B frames starting with I (at most 1000), got {:?}",
                    v.gop
                ),
            ));
        }
        if v.size_ratio
            .iter()
            .any(|r| !r.is_finite() || *r <= 0.0 || *r > 1e6)
        {
            return Err((
                "videos.size_ratio".into(),
                format!(
                    "must be three positive finite numbers (I, P, B), got {:?}",
                    v.size_ratio
                ),
            ));
        }
        Ok(())
    }
}

fn default_fps() -> u32 {
    30
}
fn default_gop() -> String {
    "IBBPBBPBBPBBPBB".into()
}
fn default_ratio() -> [f64; 3] {
    [10.0, 5.0, 2.0]
}

/// How frame sizes vary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FrameModel {
    /// Exponentially distributed I/P/B frame sizes (SPIFFI §6.1).
    #[default]
    Mpeg,
    /// Constant bit rate: every frame the same size.
    Cbr,
}
