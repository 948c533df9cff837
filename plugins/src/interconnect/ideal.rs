//! `ideal`: SPIFFI's network (§6.2, Table 1), "a bus with unlimited aggregate bandwidth":
//! every message arrives `latency + per_byte × size` after it is sent (5 µs + 0.04 µs/byte by
//! default), however many are in flight. No links, so nothing ever waits.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::LinkId;
use vodbench_plugin_api::plugin::{
    BuildContext, Endpoint, Interconnect, Plugin, PluginError, Transfer,
};
use vodbench_plugin_api::time::SimDuration;
use vodbench_plugin_api::units::{fmt_duration_ns, Duration};

/// `ideal`'s parameters (SPIFFI Table 1's network).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IdealParams {
    /// Fixed delay per message (default 5us).
    pub latency: Duration,
    /// Delay per byte (default 40ns = 0.04 µs, i.e. 25 MB/s).
    pub per_byte: Duration,
}

impl Default for IdealParams {
    fn default() -> Self {
        IdealParams {
            latency: Duration(5_000),
            per_byte: Duration(40),
        }
    }
}

/// A wire without contention.
#[derive(Debug, Clone)]
pub struct Ideal {
    latency: u64,
    per_byte: u64,
}

impl Interconnect for Ideal {
    fn links(&self) -> Vec<String> {
        Vec::new()
    }

    fn route(&mut self, _: Endpoint, _: Endpoint, bytes: u64, _: &mut Vec<LinkId>) -> Transfer {
        Transfer {
            delivery: SimDuration::from_nanos(
                self.latency
                    .saturating_add(self.per_byte.saturating_mul(bytes)),
            ),
            ..Transfer::default()
        }
    }
}

impl Plugin for Ideal {
    type Kind = dyn Interconnect;
    type Params = IdealParams;
    const NAME: &'static str = "ideal";
    const DESCRIPTION: &'static str =
        "no contention: every message takes latency + per_byte × size (SPIFFI §6.2)";

    fn validate(p: &IdealParams) -> Result<(), PluginError> {
        let check = |key: &str, v: u64, max: u64| {
            if v > max {
                Err(PluginError::param(
                    key,
                    format!(
                        "must be in 0s..={}, got {}",
                        fmt_duration_ns(max),
                        fmt_duration_ns(v)
                    ),
                ))
            } else {
                Ok(())
            }
        };
        check("latency", p.latency.0, 10_000_000_000)?;
        check("per_byte", p.per_byte.0, 1_000_000)
    }

    fn build(p: &IdealParams, _: &BuildContext<'_>) -> Result<Box<dyn Interconnect>, PluginError> {
        Ok(Box::new(Ideal {
            latency: p.latency.0,
            per_byte: p.per_byte.0,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::{NodeId, TerminalId};

    #[test]
    fn a_message_takes_latency_plus_per_byte_and_holds_no_link() {
        let mut net = Ideal {
            latency: 5_000,
            per_byte: 40,
        };
        let mut path = Vec::new();
        let t = net.route(
            Endpoint::Node(NodeId(0)),
            Endpoint::Terminal(TerminalId(3)),
            512 * 1024,
            &mut path,
        );
        assert!(path.is_empty() && net.links().is_empty());
        assert_eq!(
            t.unloaded(),
            SimDuration::from_nanos(5_000 + 40 * 512 * 1024)
        );
        assert_eq!(t.delivery, t.unloaded());
    }

    #[test]
    fn ranges_name_the_key() {
        let p = IdealParams {
            per_byte: Duration(2_000_000),
            ..IdealParams::default()
        };
        match Ideal::validate(&p) {
            Err(PluginError::InvalidParam { path, message }) => {
                assert_eq!(path, "per_byte");
                assert!(message.contains("0s..=1ms"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
