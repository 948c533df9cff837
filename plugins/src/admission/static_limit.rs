//! `static-limit`: at most `max_streams` streams at once — the simplest admission control a
//! server can do, a fixed limit found offline (Jadav et al. §5 compare their dynamic,
//! measurement-based tests against it; Pappas et al. §3.3 admit up to the number of streams
//! the storage sustains).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    Admission, BuildContext, Plugin, PluginError, ServerLoad, StreamRequest, Verdict,
};

/// `static-limit`'s parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StaticLimitParams {
    /// Most streams served at once (1..=1000000).
    pub max_streams: u32,
}

/// Refuses a stream once `max_streams` are active.
#[derive(Debug)]
pub struct StaticLimit {
    max_streams: u32,
}

impl Admission for StaticLimit {
    fn admit(&mut self, _: &StreamRequest, load: &ServerLoad) -> Verdict {
        if load.active_streams < self.max_streams {
            Verdict::Admit
        } else {
            Verdict::Refuse {
                reason: "stream limit",
            }
        }
    }
}

impl Plugin for StaticLimit {
    type Kind = dyn Admission;
    type Params = StaticLimitParams;
    const NAME: &'static str = "static-limit";
    const DESCRIPTION: &'static str = "admit at most max_streams streams at once";

    fn validate(p: &StaticLimitParams) -> Result<(), PluginError> {
        if !(1..=1_000_000).contains(&p.max_streams) {
            return Err(PluginError::param(
                "max_streams",
                format!("must be in 1..=1000000, got {}", p.max_streams),
            ));
        }
        Ok(())
    }

    fn build(
        p: &StaticLimitParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn Admission>, PluginError> {
        Ok(Box::new(StaticLimit {
            max_streams: p.max_streams,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::{TerminalId, VideoId};
    use vodbench_plugin_api::time::SimTime;

    #[test]
    fn refuses_from_the_limit_on() {
        let mut a = StaticLimit { max_streams: 2 };
        let r = StreamRequest {
            terminal: TerminalId(0),
            video: VideoId(0),
            bit_rate: 4_000_000,
            buffer_bytes: 1 << 20,
            interface: None,
            now: SimTime::ZERO,
        };
        let at = |n| ServerLoad {
            active_streams: n,
            terminals: 10,
            interface_memory: 0,
        };
        assert_eq!(a.admit(&r, &at(0)), Verdict::Admit);
        assert_eq!(a.admit(&r, &at(1)), Verdict::Admit);
        assert_eq!(
            a.admit(&r, &at(2)),
            Verdict::Refuse {
                reason: "stream limit"
            }
        );
    }

    #[test]
    fn the_limit_is_required_and_at_least_one() {
        let err = toml::from_str::<StaticLimitParams>("")
            .unwrap_err()
            .to_string();
        assert!(err.contains("max_streams"), "{err}");
        assert!(StaticLimit::validate(&StaticLimitParams { max_streams: 0 }).is_err());
    }
}
