//! `[server.replication]`: Jadav et al. §6's stream scheduling schemes — RDSS (every stream
//! fetches its fragments from the storage nodes), LDSS (a popular object copied to the local
//! disk of a dedicated interface node, which serves every later viewing of it) and LMSS (LDSS
//! plus a prefix of the object in that node's memory) — with the object manager's popularity
//! detection and demotion over a window and a threshold (§6.2), and `dedicated_interfaces`
//! dedicated nodes for as many popular objects at once. What the engine does with it:
//! `harness/src/system/ondemand/replication.rs`.

use crate::units::{Duration, Portion};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which of §6's schemes serves the streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Remote Disk Stream Scheduling (§6.1): every fragment from the storage nodes; the same
    /// as no `[server.replication]` table.
    #[default]
    Rdss,
    /// Local Disk Stream Scheduling (§6.2): a popular object is copied to the local disks of
    /// a dedicated interface node as its first viewing there fetches it; later viewings read
    /// the copy with no interconnect hop.
    Ldss,
    /// Local Memory Stream Scheduling (§6.3): LDSS, with the copy's first `prefix` fragments
    /// held in the dedicated node's memory (no disk access).
    Lmss,
}

impl Scheme {
    /// The name in the scenario file.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Rdss => "rdss",
            Scheme::Ldss => "ldss",
            Scheme::Lmss => "lmss",
        }
    }
}

/// `[server.replication]` (with `server.interface_nodes` > `dedicated_interfaces` for `ldss`
/// and `lmss`). The object manager logs every viewing request; an object asked for at least
/// `threshold` times within the last `window` becomes popular at a free dedicated interface
/// node (the last `dedicated_interfaces` ones, each holding one popular object at a time),
/// and from the next request on its viewings go there; it is demoted, freeing the node, when
/// its requests within the window fall below `threshold`. Every other viewing goes to the
/// other interface nodes, terminal t to interface t mod (interface_nodes −
/// dedicated_interfaces).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplicationSection {
    /// `"rdss"` (default), `"ldss"` or `"lmss"`.
    #[serde(default)]
    pub scheme: Scheme,
    /// Δ_t, the manager's window over the viewing requests (default 60s; 1ms..=1h).
    #[serde(default = "default_window")]
    pub window: Duration,
    /// Th_pop, the requests for one object within `window` that make it popular (default 3;
    /// 1..=1000000).
    #[serde(default = "default_threshold")]
    pub threshold: u32,
    /// Disks of the dedicated interface node holding the copy (default 1; 1..=64): fragment
    /// k on local disk k mod `local_disks`, contiguous on it, with `[disk.model]` and
    /// `[disk.scheduler]` as the storage nodes' disks.
    #[serde(default = "default_local_disks")]
    pub local_disks: u32,
    /// `ldss` and `lmss`: how many interface nodes (the last ones) are dedicated to popular
    /// objects, each to one at a time with its own `local_disks` disks and (LMSS) prefix
    /// memory (default 1; 1..interface_nodes).
    #[serde(
        default = "default_dedicated_interfaces",
        skip_serializing_if = "is_one"
    )]
    pub dedicated_interfaces: u32,
    /// `lmss` only: the copy's prefix held in memory, a count of fragments (stripe blocks) or
    /// a share of the object's fragments such as `"50%"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<Portion>,
}

fn default_window() -> Duration {
    Duration(60_000_000_000)
}

fn default_threshold() -> u32 {
    3
}

fn default_local_disks() -> u32 {
    1
}

fn default_dedicated_interfaces() -> u32 {
    1
}

// (left out of the resolved scenario at its default, so that scenarios written before it
// existed keep their resolved form and hash)
fn is_one(n: &u32) -> bool {
    *n == 1
}

impl ReplicationSection {
    /// Checks the table on its own and against `interface_nodes` and `blocks`, at least the
    /// fragments of any object (the engine checks a prefix against each object's own): the
    /// key at fault and why.
    pub fn validate(&self, interface_nodes: u32, blocks: u64) -> Result<(), (String, String)> {
        let key = |k: &str| format!("server.replication.{k}");
        if !(1_000_000..=3_600_000_000_000).contains(&self.window.0) {
            return Err((
                key("window"),
                format!(
                    "must be 1ms..=1h, got {}",
                    crate::units::fmt_duration_ns(self.window.0)
                ),
            ));
        }
        if !(1..=1_000_000).contains(&self.threshold) {
            return Err((
                key("threshold"),
                format!("must be 1..=1000000 requests, got {}", self.threshold),
            ));
        }
        if self.scheme == Scheme::Rdss {
            if self.dedicated_interfaces != 1 {
                return Err((
                    key("dedicated_interfaces"),
                    format!(
                        "is the number of interface nodes dedicated to popular objects under \
                         scheme = \"ldss\" or \"lmss\", but rdss dedicates none (got {}): \
                         remove it, or set scheme = \"ldss\" or \"lmss\"",
                        self.dedicated_interfaces
                    ),
                ));
            }
            if self.prefix.is_some() {
                return Err((
                    key("prefix"),
                    "is the part of the popular object held in memory under scheme = \"lmss\"; \
                     remove it, or set scheme = \"lmss\""
                        .into(),
                ));
            }
            return Ok(());
        }
        let scheme = self.scheme.name();
        if interface_nodes < 2 {
            return Err((
                key("scheme"),
                format!(
                    "{scheme} dedicates one interface node to the popular object and serves the \
                     other viewings at the rest, so it needs server.interface_nodes ≥ 2 (got \
                     {interface_nodes})"
                ),
            ));
        }
        let n = self.dedicated_interfaces;
        if n == 0 || n >= interface_nodes {
            return Err((
                key("dedicated_interfaces"),
                format!(
                    "{scheme} dedicates the last dedicated_interfaces interface nodes to popular \
                     objects and serves the other viewings at the rest, so it must be \
                     1..={} with server.interface_nodes = {interface_nodes}, got {n}",
                    interface_nodes - 1
                ),
            ));
        }
        if !(1..=64).contains(&self.local_disks) {
            return Err((
                key("local_disks"),
                format!(
                    "{scheme} keeps the popular object on the dedicated interface node's local \
                     disks: give 1..=64, got {}",
                    self.local_disks
                ),
            ));
        }
        match (self.scheme, self.prefix) {
            (Scheme::Ldss, Some(_)) => Err((
                key("prefix"),
                "is the part of the popular object held in memory under scheme = \"lmss\"; \
                 remove it, or set scheme = \"lmss\""
                    .into(),
            )),
            (Scheme::Lmss, None) => Err((
                key("prefix"),
                "lmss needs the prefix of the popular object held in memory: a count of \
                 fragments such as 8, or a share such as \"50%\""
                    .into(),
            )),
            (Scheme::Lmss, Some(p)) => {
                let n = match p {
                    Portion::Count(c) => c,
                    Portion::Ppm(ppm) if ppm > 1_000_000 => {
                        return Err((key("prefix"), format!("is {p} of the object; at most 100%")))
                    }
                    Portion::Ppm(_) => p.of(blocks),
                };
                if n == 0 || n > blocks {
                    return Err((
                        key("prefix"),
                        format!(
                            "is {n} fragments, but an object has {blocks} (server.stripe \
                             blocks): give 1..={blocks} or a share such as \"50%\""
                        ),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(scheme: Scheme, prefix: Option<Portion>) -> ReplicationSection {
        ReplicationSection {
            scheme,
            window: default_window(),
            threshold: 3,
            local_disks: 1,
            dedicated_interfaces: 1,
            prefix,
        }
    }

    #[test]
    fn bad_input_names_its_key() {
        let key = |r: &ReplicationSection, i: u32| r.validate(i, 100).unwrap_err().0;
        assert!(section(Scheme::Rdss, None).validate(1, 100).is_ok());
        assert_eq!(
            key(&section(Scheme::Ldss, None), 1),
            "server.replication.scheme"
        );
        let mut no_disk = section(Scheme::Ldss, None);
        no_disk.local_disks = 0;
        assert_eq!(key(&no_disk, 6), "server.replication.local_disks");
        assert_eq!(
            key(&section(Scheme::Lmss, None), 6),
            "server.replication.prefix"
        );
        assert_eq!(
            key(&section(Scheme::Lmss, Some(Portion::Count(101))), 6),
            "server.replication.prefix"
        );
        assert_eq!(
            key(&section(Scheme::Ldss, Some(Portion::Count(1))), 6),
            "server.replication.prefix"
        );
        let mut t0 = section(Scheme::Ldss, None);
        t0.threshold = 0;
        assert_eq!(key(&t0, 6), "server.replication.threshold");
        // dedicated nodes: at least one, and at least one ordinary node left
        let mut two = section(Scheme::Ldss, None);
        two.dedicated_interfaces = 2;
        assert!(two.validate(3, 100).is_ok());
        let e = two.validate(2, 100).unwrap_err();
        assert_eq!(e.0, "server.replication.dedicated_interfaces");
        assert!(e.1.contains("1..=1") && e.1.contains("got 2"), "{}", e.1);
        two.dedicated_interfaces = 0;
        assert_eq!(key(&two, 6), "server.replication.dedicated_interfaces");
        let mut rdss = section(Scheme::Rdss, None);
        rdss.dedicated_interfaces = 2;
        let e = rdss.validate(6, 100).unwrap_err();
        assert_eq!(e.0, "server.replication.dedicated_interfaces");
        assert!(e.1.contains("rdss dedicates none"), "{}", e.1);
        let half = section(Scheme::Lmss, Some(Portion::Ppm(500_000)));
        assert!(half.validate(6, 100).is_ok());
        assert_eq!(
            key(&section(Scheme::Lmss, Some(Portion::Ppm(1_000_001))), 6),
            "server.replication.prefix"
        );
    }
}
