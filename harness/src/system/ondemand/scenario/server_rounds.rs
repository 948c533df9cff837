//! `[server.rounds]`: server-push retrieval in rounds and the release policy of the blocks
//! read (Pappas et al. §3.1 and §4: one block of S bytes per active stream per round, each
//! disk serving its round in SCAN order; Normal/DblBuf, ClBuf, ClBufRate). Only read with
//! `[transmission]` (the blocks leave through the egress). What the engine does with it:
//! `harness/src/system/ondemand/rounds.rs`.

use crate::units::{Bytes, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[server.rounds]`: at every round boundary the server asks for one block of every active
/// stream at once (so the disk scheduler can order them, e.g. `gss` with `groups = 1`), and
/// `release` says when a block read is handed to the transmission policy and how long its
/// server memory is held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerRoundsSection {
    /// The round length: `"auto"` (default) = one stripe block at the videos' bit rate
    /// (Pappas: 192 KiB at 1.5 Mbit/s = 1 s), or a duration (1ms..=1h).
    #[serde(default)]
    pub length: RoundLength,
    /// When a block read is transmitted and its memory freed: `"dblbuf"` (default; read in
    /// round k, sent from round k+1: 2S per stream), `"clbuf"` (sent as soon as it is read,
    /// at the stream rate; the client buffers), `"clbufrate"` (sent as soon as it is read, at
    /// the client profile's `max_rate`).
    #[serde(default)]
    pub release: Release,
}

/// The release policy of `[server.rounds]` (Pappas et al. §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Release {
    /// Normal / double buffering: a block read in round k is sent from round k+1.
    #[default]
    Dblbuf,
    /// The block is sent as soon as it is read, at the stream rate.
    Clbuf,
    /// The block is sent as soon as it is read, at the client's maximum rate.
    Clbufrate,
}

impl Release {
    /// The name in the scenario file.
    pub fn name(self) -> &'static str {
        match self {
            Release::Dblbuf => "dblbuf",
            Release::Clbuf => "clbuf",
            Release::Clbufrate => "clbufrate",
        }
    }
}

/// `[server.rounds] length`: `"auto"` or a duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RoundLength {
    /// One stripe block at the videos' bit rate.
    #[default]
    Auto,
    /// A fixed length.
    Fixed(Duration),
}

impl RoundLength {
    /// The length in nanoseconds for blocks of `stripe` at `bit_rate` bits per second.
    pub fn nanos(self, stripe: Bytes, bit_rate: u64) -> u64 {
        match self {
            RoundLength::Fixed(d) => d.0,
            RoundLength::Auto => {
                (u128::from(stripe.0) * 8 * 1_000_000_000 / u128::from(bit_rate.max(1))) as u64
            }
        }
    }
}

impl Serialize for RoundLength {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RoundLength::Auto => s.serialize_str("auto"),
            RoundLength::Fixed(d) => d.serialize(s),
        }
    }
}

impl JsonSchema for RoundLength {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RoundLength".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        super::values::auto_or_duration_schema("1s")
    }
}

impl<'de> Deserialize<'de> for RoundLength {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(super::values::auto_or_duration(d, "1s")?.map_or(RoundLength::Auto, RoundLength::Fixed))
    }
}

impl ServerRoundsSection {
    /// Checks the round length (1ms..=1h) for blocks of `stripe` at `bit_rate`.
    pub fn validate(&self, stripe: Bytes, bit_rate: u64) -> Result<(), (String, String)> {
        let n = self.length.nanos(stripe, bit_rate);
        if !(1_000_000..=3_600_000_000_000).contains(&n) {
            return Err((
                "server.rounds.length".into(),
                format!(
                    "must be between 1ms and 1h, got {}{}",
                    crate::units::fmt_duration_ns(n),
                    if self.length == RoundLength::Auto {
                        " (\"auto\": server.stripe at videos.bit_rate)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_a_stripe_block_at_the_bit_rate() {
        // Pappas: 192 KiB at 1.5 × 2^20 bit/s is 1 s; 1 MiB at 1.5 Mbit/s is 5.59 s
        assert_eq!(
            RoundLength::Auto.nanos(Bytes(192 * 1024), 1_572_864),
            1_000_000_000
        );
        assert_eq!(
            RoundLength::Auto.nanos(Bytes(1 << 20), 1_500_000),
            5_592_405_333
        );
        assert_eq!(RoundLength::Fixed(Duration(7)).nanos(Bytes(1 << 20), 1), 7);
    }

    #[test]
    fn parses_and_checks_its_keys() {
        let s: ServerRoundsSection =
            toml::from_str("length = \"2s\"\nrelease = \"clbufrate\"").unwrap();
        assert_eq!(s.length, RoundLength::Fixed(Duration(2_000_000_000)));
        assert_eq!(s.release, Release::Clbufrate);
        let d: ServerRoundsSection = toml::from_str("").unwrap();
        assert_eq!((d.length, d.release), (RoundLength::Auto, Release::Dblbuf));
        let e = toml::from_str::<ServerRoundsSection>("release = \"triple\"").unwrap_err();
        assert!(e.to_string().contains("dblbuf"), "{e}");
        let e = toml::from_str::<ServerRoundsSection>("length = \"soon\"").unwrap_err();
        assert!(e.to_string().contains("\"auto\""), "{e}");
        let short = ServerRoundsSection {
            length: RoundLength::Fixed(Duration(10)),
            release: Release::Dblbuf,
        };
        assert_eq!(
            short.validate(Bytes(4096), 1_000_000).unwrap_err().0,
            "server.rounds.length"
        );
        let auto = ServerRoundsSection {
            length: RoundLength::Auto,
            release: Release::Clbuf,
        };
        assert_eq!(auto.validate(Bytes(192 * 1024), 1_572_864), Ok(()));
    }
}
