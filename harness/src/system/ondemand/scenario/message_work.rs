//! `[server.message_work]`: the software work a node does for every message it sends or
//! receives (Jadav et al. §5, §5.2: "scheduling, processing and buffering (copying)
//! overhead" of messages), as work queued on one message handler per node, at the interface
//! and at the storage nodes alike. See `harness/src/system/ondemand/message_work.rs`.

use crate::units::{Bandwidth, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[server.message_work]`: each node's message handler (with `interface_nodes`), one
/// message at a time, first come first served, beside the node's application (the storage
/// node's CPU and disk, the interface node's streams). A message costs its sending node's
/// handler, then its receiving node's, `per_message` plus its bytes at `copy_rate` each. An
/// interface node's handler sends its streams' fragment requests and receives their
/// fragments; a storage node's receives the requests and sends the fragments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageWorkSection {
    /// Handler time per message at each end (0..=1s, default 0), e.g. `"14.8us"`.
    #[serde(default)]
    pub per_message: Duration,
    /// The rate the handler copies a message's bytes at, at each end (default: no copy
    /// time), e.g. `"552MB/s"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_rate: Option<Bandwidth>,
}

impl MessageWorkSection {
    /// Checks the section against the server it is in: `Err((key, what is allowed))`.
    pub fn check(
        &self,
        interface_nodes: u32,
        has_interface_cpu: bool,
        single_threaded: bool,
    ) -> Result<(), (String, String)> {
        let key = "server.message_work";
        if interface_nodes == 0 {
            return Err((
                key.into(),
                "describes the message handlers of interface and storage nodes, but there are \
                 no interface nodes: set server.interface_nodes, or remove this table"
                    .into(),
            ));
        }
        if has_interface_cpu {
            return Err((
                key.into(),
                "and [server.interface_cpu] both charge the interface nodes' work per \
                 message: keep one of them"
                    .into(),
            ));
        }
        if single_threaded {
            return Err((
                key.into(),
                "is a handler beside the storage node's application, which \
                 server.storage_threading = \"single\" makes one thread: use \"multi\" (the \
                 default) with this table"
                    .into(),
            ));
        }
        if self.per_message.0 > 1_000_000_000 {
            return Err((
                format!("{key}.per_message"),
                format!(
                    "must be in 0s..=1s, got {}",
                    crate::units::fmt_duration_ns(self.per_message.0)
                ),
            ));
        }
        if self.copy_rate.is_some_and(|r| r.0 == 0) {
            return Err((
                format!("{key}.copy_rate"),
                "must be above 0 (leave it out for no copy time)".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(per_message_ns: u64, copy: Option<u64>) -> MessageWorkSection {
        MessageWorkSection {
            per_message: Duration(per_message_ns),
            copy_rate: copy.map(Bandwidth),
        }
    }

    #[test]
    fn refuses_what_it_cannot_model_naming_the_key() {
        let ok = section(14_800, Some(552_000_000));
        assert_eq!(ok.check(6, false, false), Ok(()));
        let e = ok.check(0, false, false).unwrap_err();
        assert_eq!(e.0, "server.message_work");
        assert!(e.1.contains("interface_nodes"), "{}", e.1);
        assert!(ok
            .check(6, true, false)
            .unwrap_err()
            .1
            .contains("interface_cpu"));
        assert!(ok.check(6, false, true).unwrap_err().1.contains("multi"));
        let e = section(2_000_000_000, None)
            .check(6, false, false)
            .unwrap_err();
        assert_eq!(e.0, "server.message_work.per_message");
        assert!(e.1.contains("0s..=1s"), "{}", e.1);
        let e = section(0, Some(0)).check(6, false, false).unwrap_err();
        assert_eq!(e.0, "server.message_work.copy_rate");
    }
}
