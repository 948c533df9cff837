//! `delayed`: SPIFFI's delayed prefetching (§5.2.3, Fig. 7), real-time prefetching that
//! holds each prefetch back until it is within `max_advance` (the *maximum advance prefetch
//! time*) of its estimated deadline. Prefetched pages then wait in the buffer pool for at
//! most about `max_advance` before their reader arrives, which cuts the server memory needed
//! (SPIFFI Fig. 12: 8 s works well with 512 MB; 4 s issues prefetches too late). Queues,
//! estimates and limits are those of `real-time`; a disk whose most urgent prefetch is not
//! due yet answers [`PrefetchPoll::WaitUntil`](vodbench_plugin_api::plugin::PrefetchPoll::WaitUntil)
//! the instant it becomes due.

use super::real_time::{validate_limits, DeadlinePrefetch};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{BuildContext, Plugin, PluginError, Prefetcher};
use vodbench_plugin_api::units::Duration;

/// Parameters of `delayed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DelayedParams {
    /// Issue a prefetch no earlier than this before its estimated deadline (more than 0; default 8s).
    pub max_advance: Duration,
    /// Prefetch processes per disk: how many prefetches may be outstanding there (1..=64; default 1).
    pub processes: u32,
    /// Longest prefetch queue per disk; the least urgent entry is dropped beyond it (1..=100000; default 1024).
    pub max_queue: u32,
}

impl Default for DelayedParams {
    fn default() -> Self {
        DelayedParams {
            max_advance: Duration(8_000_000_000),
            processes: 1,
            max_queue: 1024,
        }
    }
}

/// The `delayed` prefetcher.
#[derive(Debug)]
pub struct Delayed;

impl Plugin for Delayed {
    type Kind = dyn Prefetcher;
    type Params = DelayedParams;
    const NAME: &'static str = "delayed";
    const DESCRIPTION: &'static str =
        "real-time prefetching issued only within max_advance of the estimated deadline (SPIFFI §5.2.3)";

    fn validate(p: &DelayedParams) -> Result<(), PluginError> {
        if p.max_advance.0 == 0 {
            return Err(PluginError::param("max_advance", "must be more than 0"));
        }
        validate_limits(p.processes, p.max_queue)
    }

    fn build(
        p: &DelayedParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn Prefetcher>, PluginError> {
        Ok(Box::new(DeadlinePrefetch::new(
            ctx.disks(),
            ctx.video_blocks,
            p.processes,
            p.max_queue,
            Some(p.max_advance.sim()),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prefetcher::real_time::tests::{issued, reference, secs, RoundRobin, LIBRARY};
    use vodbench_plugin_api::ids::DiskId;
    use vodbench_plugin_api::plugin::PrefetchPoll;
    use vodbench_plugin_api::time::{SimDuration, SimTime};

    #[test]
    fn waits_until_within_max_advance_of_the_deadline() {
        let mut p = DeadlinePrefetch::new(2, LIBRARY, 1, 10, Some(SimDuration::from_secs(8)));
        // block 0 due at 30 s → block 2 estimated at 32 s: may go from 24 s on
        p.on_reference(&reference(0, 0, 30), &RoundRobin(2));
        assert_eq!(
            p.poll(DiskId(0), 0, secs(0)),
            PrefetchPoll::WaitUntil(secs(24))
        );
        assert_eq!(
            p.poll(DiskId(0), 0, SimTime::from_nanos(23_999_999_999)),
            PrefetchPoll::WaitUntil(secs(24))
        );
        // a more urgent prefetch arrives: the wait shortens (block 6 estimated at 12 s → 4 s)
        p.on_reference(&reference(1, 4, 10), &RoundRobin(2));
        assert_eq!(
            p.poll(DiskId(0), 0, secs(1)),
            PrefetchPoll::WaitUntil(secs(4))
        );
        assert_eq!(issued(p.poll(DiskId(0), 0, secs(4))), (1, 6, secs(12)));
        // busy processes come first: nothing, not a wait, while the process is in use
        assert_eq!(p.poll(DiskId(0), 1, secs(30)), PrefetchPoll::Idle);
        assert_eq!(issued(p.poll(DiskId(0), 0, secs(24))), (0, 2, secs(32)));
        assert_eq!(p.poll(DiskId(0), 0, secs(24)), PrefetchPoll::Idle);
    }

    #[test]
    fn late_prefetches_go_at_once() {
        let mut p = DeadlinePrefetch::new(2, LIBRARY, 1, 10, Some(SimDuration::from_secs(4)));
        p.on_reference(&reference(0, 0, 1), &RoundRobin(2)); // estimated 3 s, already within 4 s
        assert_eq!(issued(p.poll(DiskId(0), 0, secs(0))), (0, 2, secs(3)));
    }
}
