//! Human-friendly quantities for scenario files: sizes, durations, bit rates and link
//! bandwidths.
//!
//! Each accepts either a plain integer in the base unit (bytes, nanoseconds, bits/s) or a
//! string with a unit: sizes `512KiB`, `2MiB`, `1GiB`, `1.25MiB` (binary) or `500KB`, `1MB`
//! (decimal); durations `5us`, `0.75ms`, `4s`, `10min`, `1h`; rates `4Mbit/s`, `1.5Gbit/s`;
//! bandwidths as rates or in bytes per second, `13.8MB/s`, `100MiB/s`.
//! Decimal fractions are converted exactly (no floating point), rounding down to the base unit.

use crate::time::SimDuration;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Parses a non-negative decimal number (`12`, `1.25`, `0.04`) times `scale` exactly,
/// rounding down. Returns `None` on syntax errors or overflow.
pub fn parse_scaled(num: &str, scale: u64) -> Option<u64> {
    let (int, frac) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let int_v: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut v = int_v.checked_mul(u128::from(scale))?;
    if !frac.is_empty() {
        let digits = frac.len().min(30) as u32;
        let frac_v: u128 = frac[..digits as usize].parse().ok()?;
        let denom = 10u128.checked_pow(digits)?;
        v = v.checked_add(frac_v.checked_mul(u128::from(scale))? / denom)?;
    }
    u64::try_from(v).ok()
}

/// When `s` is a well-formed quantity (a decimal number and a unit `parse` knows) that only
/// overflows 64 bits of the base unit: the largest whole value in `s`'s unit, to say so
/// instead of "expected …".
pub fn too_large(s: &str, parse: fn(&str) -> Option<u64>) -> Option<String> {
    let (num, unit) = split_unit(s);
    let well_formed = !num.is_empty()
        && num.matches('.').count() <= 1
        && num != "."
        && num.chars().all(|c| c.is_ascii_digit() || c == '.');
    if !well_formed || parse(s).is_some() {
        return None;
    }
    let scale = parse(&format!("1{unit}"))?;
    Some(format!("{}{unit}", u64::MAX / scale.max(1)))
}

fn split_unit(s: &str) -> (&str, &str) {
    let s = s.trim();
    let idx = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    (s[..idx].trim(), s[idx..].trim())
}

macro_rules! quantity {
    ($(#[$m:meta])* $name:ident, $expect:expr, $parse:ident, $fmt:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<$name, E> {
                        u64::try_from(v).map($name).map_err(|_| {
                            E::invalid_value(serde::de::Unexpected::Signed(v), &self)
                        })
                    }
                    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<$name, E> {
                        Ok($name(v))
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        $parse(v).map($name).ok_or_else(|| match too_large(v, $parse) {
                            Some(max) => E::custom(format!(
                                "{v:?} is too large: at most {max} ({})",
                                $expect
                            )),
                            None => E::invalid_value(serde::de::Unexpected::Str(v), &self),
                        })
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$fmt(self.0))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&$fmt(self.0))
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "description": $expect,
                    "anyOf": [
                        {"type": "integer", "minimum": 0},
                        {"type": "string"}
                    ]
                })
            }
        }
    };
}

/// Parses a size such as `512KiB`, `2MiB`, `1.25MiB`, `500KB`, `4096` or `4096B` into bytes.
pub fn parse_bytes(s: &str) -> Option<u64> {
    let (num, unit) = split_unit(s);
    let scale: u64 = match unit {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        _ => return None,
    };
    parse_scaled(num, scale)
}

/// Formats bytes with the largest binary unit that divides them exactly (`512KiB`, `1000B`).
pub fn fmt_bytes(b: u64) -> String {
    for (unit, scale) in [
        ("TiB", 1u64 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ] {
        if b >= scale && b % scale == 0 {
            return format!("{}{unit}", b / scale);
        }
    }
    format!("{b}B")
}

/// Parses a duration such as `5us`, `0.75ms`, `4s`, `10min`, `1h` or `250ns` into nanoseconds.
pub fn parse_duration_ns(s: &str) -> Option<u64> {
    let (num, unit) = split_unit(s);
    let scale: u64 = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    };
    parse_scaled(num, scale)
}

/// Formats nanoseconds with the largest unit that divides them exactly (`4s`, `750us`).
pub fn fmt_duration_ns(ns: u64) -> String {
    if ns == 0 {
        return "0s".into();
    }
    for (unit, scale) in [
        ("h", 3_600_000_000_000u64),
        ("min", 60_000_000_000),
        ("s", 1_000_000_000),
        ("ms", 1_000_000),
        ("us", 1_000),
    ] {
        if ns % scale == 0 {
            return format!("{}{unit}", ns / scale);
        }
    }
    format!("{ns}ns")
}

/// Parses a bit rate such as `4Mbit/s`, `1.5Gbit/s`, `64kbit/s` or `4000000` into bits/s.
pub fn parse_bit_rate(s: &str) -> Option<u64> {
    let (num, unit) = split_unit(s);
    let scale: u64 = match unit {
        "" | "bit/s" | "bps" => 1,
        "kbit/s" | "Kbit/s" | "kbps" => 1_000,
        "Mbit/s" | "Mbps" => 1_000_000,
        "Gbit/s" | "Gbps" => 1_000_000_000,
        _ => return None,
    };
    parse_scaled(num, scale)
}

/// Formats bits/s (`4Mbit/s`, `1500kbit/s`).
pub fn fmt_bit_rate(b: u64) -> String {
    for (unit, scale) in [
        ("Gbit/s", 1_000_000_000u64),
        ("Mbit/s", 1_000_000),
        ("kbit/s", 1_000),
    ] {
        if b >= scale && b % scale == 0 {
            return format!("{}{unit}", b / scale);
        }
    }
    format!("{b}bit/s")
}

quantity!(
    /// A size in bytes. Scenario syntax: an integer, or `512KiB`, `2MiB`, `1GiB`, `500KB`.
    Bytes,
    "a size: a byte count or a string like \"512KiB\", \"2MiB\", \"1GiB\", \"500KB\"",
    parse_bytes,
    fmt_bytes
);
quantity!(
    /// A duration in nanoseconds. Scenario syntax: an integer (ns), or `5us`, `0.75ms`, `4s`, `10min`, `1h`.
    Duration,
    "a duration: nanoseconds or a string like \"5us\", \"0.75ms\", \"4s\", \"10min\", \"1h\"",
    parse_duration_ns,
    fmt_duration_ns
);
quantity!(
    /// A bit rate in bits per second. Scenario syntax: an integer, or `4Mbit/s`, `64kbit/s`.
    BitRate,
    "a bit rate: bits per second or a string like \"4Mbit/s\", \"64kbit/s\"",
    parse_bit_rate,
    fmt_bit_rate
);

quantity!(
    /// A link's bandwidth in bits per second. Scenario syntax: an integer (bits/s), a bit rate
    /// (`122Mbit/s`) or bytes per second (`13.8MB/s`, `25MB/s`, `100MiB/s`).
    Bandwidth,
    "a bandwidth: bits per second or a string like \"13.8MB/s\", \"100MiB/s\", \"122Mbit/s\"",
    parse_bandwidth,
    fmt_bandwidth
);

/// Parses a bandwidth into bits per second: a bit rate ([`parse_bit_rate`]) or bytes per
/// second with a decimal or binary unit (`B/s`, `kB/s`, `KB/s`, `MB/s`, `GB/s`, `KiB/s`,
/// `MiB/s`, `GiB/s`).
pub fn parse_bandwidth(s: &str) -> Option<u64> {
    if let Some(b) = parse_bit_rate(s) {
        return Some(b);
    }
    let (num, unit) = split_unit(s);
    let bytes: u64 = match unit {
        "B/s" => 1,
        "kB/s" | "KB/s" => 1_000,
        "MB/s" => 1_000_000,
        "GB/s" => 1_000_000_000,
        "KiB/s" => 1 << 10,
        "MiB/s" => 1 << 20,
        "GiB/s" => 1 << 30,
        _ => return None,
    };
    parse_scaled(num, bytes.checked_mul(8)?)
}

/// Formats bits/s as bytes per second when whole bytes (`25MB/s`, `13800kB/s`), else as a
/// bit rate.
pub fn fmt_bandwidth(bits: u64) -> String {
    if bits > 0 && bits % 8 == 0 {
        let bytes = bits / 8;
        for (unit, scale) in [
            ("GB/s", 1_000_000_000u64),
            ("MB/s", 1_000_000),
            ("kB/s", 1_000),
        ] {
            if bytes >= scale && bytes % scale == 0 {
                return format!("{}{unit}", bytes / scale);
            }
        }
        return format!("{bytes}B/s");
    }
    fmt_bit_rate(bits)
}

impl Bandwidth {
    /// Time to send `bytes` at this bandwidth, rounded up to the nanosecond (the longest
    /// span for a zero bandwidth).
    pub fn time_for(self, bytes: u64) -> SimDuration {
        if self.0 == 0 {
            return SimDuration::MAX;
        }
        let ns = (u128::from(bytes) * 8 * 1_000_000_000).div_ceil(u128::from(self.0));
        SimDuration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }
}

impl Duration {
    /// As a simulated span.
    pub fn sim(self) -> SimDuration {
        SimDuration::from_nanos(self.0)
    }
}

/// An amount given either as a count or as a share of some reference amount: `54` or
/// `"2.5%"` (for instance a cache of `"1%"` of the movie's frames, or a write batch κ of
/// `"2.5%"` of the cache). Percentages are kept exactly, in parts per million.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Portion {
    /// An absolute count.
    Count(u64),
    /// A share of the reference, in parts per million (`"2.5%"` = 25 000).
    Ppm(u64),
}

impl Portion {
    /// The amount for reference `base`: a count as is, a share rounded to the nearest whole
    /// unit (at least 1 when the share is non-zero).
    pub fn of(self, base: u64) -> u64 {
        match self {
            Portion::Count(c) => c,
            Portion::Ppm(0) => 0,
            Portion::Ppm(p) => {
                let v = (u128::from(base) * u128::from(p) + 500_000) / 1_000_000;
                u64::try_from(v).unwrap_or(u64::MAX).max(1)
            }
        }
    }
}

impl<'de> Deserialize<'de> for Portion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Portion;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a count (integer) or a percentage string like \"2.5%\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Portion, E> {
                u64::try_from(v)
                    .map(Portion::Count)
                    .map_err(|_| E::custom(format!("expected a non-negative count, got {v}")))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Portion, E> {
                Ok(Portion::Count(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Portion, E> {
                v.trim()
                    .strip_suffix('%')
                    .and_then(|n| parse_scaled(n.trim(), 10_000))
                    .map(Portion::Ppm)
                    .ok_or_else(|| {
                        E::custom(format!(
                            "invalid amount {v:?}: expected a count (integer) or a percentage like \"2.5%\""
                        ))
                    })
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Portion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Portion::Count(c) => s.serialize_u64(*c),
            Portion::Ppm(_) => s.collect_str(self),
        }
    }
}

impl fmt::Display for Portion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Portion::Count(c) => write!(f, "{c}"),
            Portion::Ppm(p) => {
                let int = p / 10_000;
                let frac = p % 10_000;
                if frac == 0 {
                    write!(f, "{int}%")
                } else {
                    let digits = format!("{frac:04}");
                    write!(f, "{int}.{}%", digits.trim_end_matches('0'))
                }
            }
        }
    }
}

impl JsonSchema for Portion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Portion".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "a count (integer) or a percentage string like \"2.5%\"",
            "oneOf": [
                { "type": "integer", "minimum": 0 },
                { "type": "string", "pattern": "^[0-9]*\\.?[0-9]+ *%$" }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue49_a_quantity_too_large_says_so_with_the_largest() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            d: Duration,
        }
        let e = toml::from_str::<T>("d = \"250000000h\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"250000000h\" is too large: at most 5124095h (a duration"),
            "{e}"
        );
        let e = toml::from_str::<T>("d = \"12 fortnights\"")
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a duration"), "{e}");
        assert_eq!(
            too_large("30000000TiB", parse_bytes).as_deref(),
            Some("16777215TiB")
        );
        assert_eq!(too_large("3TiB", parse_bytes), None);
        assert_eq!(too_large("3 parsecs", parse_bytes), None);
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("512KiB"), Some(524_288));
        assert_eq!(parse_bytes("1.25MiB"), Some(1_310_720));
        assert_eq!(parse_bytes("500KB"), Some(500_000));
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("12 furlongs"), None);
        assert_eq!(parse_bytes("-1KiB"), None);
        assert_eq!(fmt_bytes(524_288), "512KiB");
        assert_eq!(fmt_bytes(1_310_720), "1280KiB");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("0.75ms"), Some(750_000));
        assert_eq!(parse_duration_ns("0.04us"), Some(40));
        assert_eq!(parse_duration_ns("10min"), Some(600_000_000_000));
        assert_eq!(parse_duration_ns("3"), None);
        assert_eq!(fmt_duration_ns(600_000_000_000), "10min");
        assert_eq!(fmt_duration_ns(750_000), "750us");
    }

    #[test]
    fn rates() {
        assert_eq!(parse_bit_rate("4Mbit/s"), Some(4_000_000));
        assert_eq!(parse_bit_rate("1.5Gbit/s"), Some(1_500_000_000));
        assert_eq!(fmt_bit_rate(4_000_000), "4Mbit/s");
    }

    #[test]
    fn portions() {
        let p: Portion = serde_json::from_str("\"2.5%\"").unwrap();
        assert_eq!(p, Portion::Ppm(25_000));
        assert_eq!(p.of(2160), 54);
        assert_eq!(p.to_string(), "2.5%");
        assert_eq!(
            Portion::Ppm(1).of(10),
            1,
            "a non-zero share is at least one"
        );
        let c: Portion = serde_json::from_str("54").unwrap();
        assert_eq!(c.of(1_000_000), 54);
        assert!(serde_json::from_str::<Portion>("\"2.5\"").is_err());
        assert!(serde_json::from_str::<Portion>("-3").is_err());
    }

    #[test]
    fn bandwidths() {
        assert_eq!(parse_bandwidth("13.8MB/s"), Some(110_400_000));
        assert_eq!(parse_bandwidth("25MB/s"), Some(200_000_000));
        assert_eq!(parse_bandwidth("1MiB/s"), Some(8 << 20));
        assert_eq!(parse_bandwidth("122Mbit/s"), Some(122_000_000));
        assert_eq!(parse_bandwidth("12 furlongs"), None);
        assert_eq!(fmt_bandwidth(200_000_000), "25MB/s");
        assert_eq!(fmt_bandwidth(110_400_000), "13800kB/s");
        assert_eq!(fmt_bandwidth(122_000_001), "122000001bit/s");
        // 25 MB/s is SPIFFI's 0.04 µs per byte
        assert_eq!(
            Bandwidth(200_000_000).time_for(1000),
            SimDuration::from_nanos(40_000)
        );
        assert_eq!(
            Bandwidth(3).time_for(1),
            SimDuration::from_nanos(2_666_666_667)
        );
        assert_eq!(Bandwidth(0).time_for(1), SimDuration::MAX);
    }

    #[test]
    fn overflow_is_rejected_not_wrapped() {
        assert_eq!(parse_bytes("99999999999TiB"), None);
    }
}
