//! The memory budget every system checks a scenario against before allocating: what a run
//! holds at its peak, estimated by part from the scenario alone (each system sizes its own
//! parts: `ondemand::memory`, `broadcast::memory`), and the refusal of a scenario whose
//! estimate exceeds the limit (`--max-memory`, [`DEFAULT_LIMIT`] unless raised), naming the
//! part that dominates and the key that sets it.

use crate::scenario::{ScenarioError, Source};
use std::sync::atomic::{AtomicU64, Ordering};

/// The limit without `--max-memory`: 8 GiB.
pub const DEFAULT_LIMIT: u64 = 8 << 30;

static LIMIT: AtomicU64 = AtomicU64::new(DEFAULT_LIMIT);

/// Sets the limit every later check in this process uses (the command line's
/// `--max-memory`).
pub fn set_limit(bytes: u64) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// The limit in force.
pub fn limit() -> u64 {
    LIMIT.load(Ordering::Relaxed)
}

/// One part of an estimate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// What it holds.
    pub what: &'static str,
    /// The scenario key that sizes it.
    pub key: &'static str,
    /// Bytes.
    pub bytes: u64,
}

/// What a run of a scenario holds at its peak, by part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// Every part, largest first.
    pub parts: Vec<Part>,
}

impl Estimate {
    /// The sum of the parts.
    pub fn total(&self) -> u64 {
        self.parts
            .iter()
            .fold(0u64, |a, p| a.saturating_add(p.bytes))
    }

    /// The largest part.
    pub fn dominant(&self) -> &Part {
        &self.parts[0]
    }
}

/// Refuses the scenario of `source` when the estimate `e` exceeds the limit in force
/// ([`set_limit`]), naming the dominant part at the key that sizes it.
pub fn refuse_above_limit(source: &Source, e: &Estimate) -> Result<(), ScenarioError> {
    match refusal(e) {
        None => Ok(()),
        Some((key, message)) => Err(source.at(key, message)),
    }
}

/// When the estimate `e` exceeds the limit in force ([`set_limit`]): the key that sizes its
/// dominant part, and what to say there.
pub fn refusal(e: &Estimate) -> Option<(&'static str, String)> {
    let limit = limit();
    if e.total() <= limit {
        return None;
    }
    let size = |b: u64| format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20));
    let d = e.dominant();
    let parts: Vec<String> = e
        .parts
        .iter()
        .take(4)
        .map(|p| format!("{} {}", p.what, size(p.bytes)))
        .collect();
    let message = format!(
        "a run would need about {} of memory, more than the limit of {} (--max-memory); \
         dominated by {} ({}); largest parts: {}. Make it smaller, or raise --max-memory",
        size(e.total()),
        size(limit),
        d.what,
        size(d.bytes),
        parts.join(", ")
    );
    Some((d.key, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_saturates_and_names_its_largest_part() {
        let e = Estimate {
            parts: vec![
                Part {
                    what: "a",
                    key: "x",
                    bytes: u64::MAX,
                },
                Part {
                    what: "b",
                    key: "y",
                    bytes: 5,
                },
            ],
        };
        assert_eq!(e.total(), u64::MAX, "saturates instead of wrapping");
        assert_eq!(e.dominant().what, "a");
    }
}
