//! What the sections of a scenario file share: the range check each section's `validate`
//! makes and how its error shows each kind of value, the keys that take `"auto"` or a
//! duration, and serde's tests that leave a default out of the resolved scenario.

use crate::units::Duration;
use serde::Deserialize;

/// The schema of a key that takes `"auto"` or a duration (`example` is one), as
/// [`auto_or_duration`] takes it: "auto", nanoseconds, or a duration string.
pub(super) fn auto_or_duration_schema(example: &str) -> schemars::Schema {
    schemars::json_schema!({
        "description": format!("\"auto\" or a duration such as \"{example}\" (or nanoseconds)"),
        "anyOf": [
            { "const": "auto" },
            { "type": "integer", "minimum": 0 },
            { "type": "string" }
        ]
    })
}

/// Reads `"auto"` (`None`), a duration string or nanoseconds; an error names `example` as
/// what is allowed.
pub(super) fn auto_or_duration<'de, D: serde::Deserializer<'de>>(
    d: D,
    example: &str,
) -> Result<Option<Duration>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        S(String),
        N(u64),
    }
    let expected = format!("expected \"auto\" or a duration such as \"{example}\"");
    match Raw::deserialize(d).map_err(|_| serde::de::Error::custom(&expected))? {
        Raw::S(s) if s == "auto" => Ok(None),
        Raw::S(s) => crate::units::parse_duration_ns(&s)
            .map(|n| Some(Duration(n)))
            .ok_or_else(|| serde::de::Error::custom(format!("invalid value \"{s}\", {expected}"))),
        Raw::N(n) => Ok(Some(Duration(n))),
    }
}

pub(super) fn is_zero(n: &u32) -> bool {
    *n == 0
}

pub(super) fn is_false(b: &bool) -> bool {
    !*b
}

pub(super) fn range<T: PartialOrd + std::fmt::Display>(
    key: &str,
    v: T,
    lo: T,
    hi: T,
    shown: &dyn Fn(&T) -> String,
) -> Result<(), (String, String)> {
    if v < lo || v > hi {
        Err((
            key.to_string(),
            format!(
                "must be in {}..={}, got {}",
                shown(&lo),
                shown(&hi),
                shown(&v)
            ),
        ))
    } else {
        Ok(())
    }
}

pub(super) const HOUR: u64 = 3_600_000_000_000;

pub(super) fn plain(v: &u64) -> String {
    v.to_string()
}

pub(super) fn dur(v: &u64) -> String {
    crate::units::fmt_duration_ns(*v)
}

pub(super) fn size(v: &u64) -> String {
    crate::units::fmt_bytes(*v)
}

pub(super) fn rate(v: &u64) -> String {
    crate::units::fmt_bit_rate(*v)
}
