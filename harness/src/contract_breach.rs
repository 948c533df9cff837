//! A policy's broken contract: an answer the engine refused (a request that is not queued, a
//! frame the cache does not hold, no victim while the cache is full), as the on-demand
//! engine, the broadcast run and the cache replay report it. It travels typed from where it
//! was found to [`crate::cli::ArgsError::Breach`], so a program driving vodbench in-process
//! (the Python package) tells a loaded policy's breach from a built-in's without reading the
//! message; the command line prints its [`Display`](std::fmt::Display) text.

use crate::time::SimTime;

/// Where a contract was broken: what the message names besides the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreachAt {
    /// In an on-demand simulation, at this simulated time.
    Sim(SimTime),
    /// In a broadcast run: a schedule, or a client's reception.
    Broadcast,
    /// In a cache replay.
    Replay {
        /// The pool as it was chosen: its name, or its name and parameters
        /// (`s3-fifo{small_ratio=0.2}`).
        label: String,
        /// The cache size in bytes.
        size: u64,
        /// The 1-based request.
        request: u64,
    },
}

/// A policy that broke its contract: which, where it came from, when, and what it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContractBreach {
    /// The kind's key (`disk.scheduler`, `receiver.buffer`, `buffer_pool`).
    pub kind: &'static str,
    /// The policy's name.
    pub name: String,
    /// Where the policy was loaded from: a library's path, or a Python class's
    /// `file#Class`; `None` for a built-in (whose breach is a bug in vodbench).
    pub source: Option<String>,
    /// Where in the run.
    pub at: BreachAt,
    /// What the policy did.
    pub detail: String,
}

impl ContractBreach {
    /// The policy's kind and name (``disk.scheduler `my-sstf` ``).
    pub fn policy(&self) -> String {
        format!("{} `{}`", self.kind, self.name)
    }

    /// Whether a loaded policy broke it (the user's input: exit code 2) rather than a
    /// built-in (a bug in vodbench: exit code 1).
    pub fn by_loaded_policy(&self) -> bool {
        self.source.is_some()
    }
}

impl std::fmt::Display for ContractBreach {
    /// Every form names a loaded policy's source (`(plugin library PATH)`, which the Python
    /// package turns into `(Python class FILE#CLASS)` for its classes) right after the
    /// policy.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (name, detail) = (&self.name, &self.detail);
        let source = self
            .source
            .as_ref()
            .map_or(String::new(), |s| format!(" (plugin library {s})"));
        match &self.at {
            BreachAt::Sim(time) => write!(
                f,
                "{} `{name}`{source} broke its contract at {time}: {detail}",
                self.kind
            ),
            BreachAt::Broadcast => {
                write!(f, "plugin `{name}`{source} broke its contract: {detail}")
            }
            BreachAt::Replay {
                label,
                size,
                request,
            } => write!(
                f,
                "buffer pool `{label}`{source} at {size} bytes, request {request}: {detail}"
            ),
        }
    }
}

impl std::error::Error for ContractBreach {}

#[cfg(test)]
mod tests {
    use super::*;

    fn breach(source: Option<&str>, at: BreachAt) -> ContractBreach {
        ContractBreach {
            kind: "disk.scheduler",
            name: "liar".into(),
            source: source.map(String::from),
            at,
            detail: "returned request 7, which is not queued".into(),
        }
    }

    #[test]
    fn an_on_demand_breach_reads_as_the_engine_has_always_written_it() {
        let at = BreachAt::Sim(SimTime::from_nanos(1_500_000_000));
        assert_eq!(
            breach(Some("/tmp/libfaulty.so"), at.clone()).to_string(),
            "disk.scheduler `liar` (plugin library /tmp/libfaulty.so) broke its contract at \
             1.5s: returned request 7, which is not queued"
        );
        assert_eq!(
            breach(None, at).to_string(),
            "disk.scheduler `liar` broke its contract at 1.5s: returned request 7, which \
             is not queued"
        );
    }

    #[test]
    fn a_broadcast_breach_and_a_replay_breach_name_the_policy_and_its_source() {
        let mut b = breach(Some("/tmp/libfaulty.so"), BreachAt::Broadcast);
        assert_eq!(
            b.to_string(),
            "plugin `liar` (plugin library /tmp/libfaulty.so) broke its contract: returned \
             request 7, which is not queued"
        );
        b.at = BreachAt::Replay {
            label: "liar{depth=2}".into(),
            size: 4096,
            request: 12,
        };
        assert_eq!(
            b.to_string(),
            "buffer pool `liar{depth=2}` (plugin library /tmp/libfaulty.so) at 4096 bytes, \
             request 12: returned request 7, which is not queued"
        );
        b.source = None;
        assert_eq!(
            b.to_string(),
            "buffer pool `liar{depth=2}` at 4096 bytes, request 12: returned request 7, which \
             is not queued"
        );
        assert_eq!(b.policy(), "disk.scheduler `liar`");
    }
}
