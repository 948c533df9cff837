//! `standard`: SPIFFI's prefetcher (§5.2.3). Each real reference to a stripe block queues a
//! background read of the next block of the same video on the same disk (or, from a terminal
//! in a skip search, the block it hints it will read next there, §8.1), in a first-in
//! first-out queue per disk; a fixed number of prefetch processes per disk (`processes`)
//! bounds how many of those reads are outstanding at once, which sets how aggressive
//! prefetching is. Prefetches carry no deadline (lowest priority for deadline-aware
//! schedulers). A queued prefetch whose block a terminal references first is dropped (the
//! demand read overtook it), and a queue never holds the same block twice; when a queue is
//! full (`max_queue`) the oldest entry is dropped.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use vodbench_harness::ids::DiskId;
use vodbench_harness::plugin::{
    BuildContext, Layout, Plugin, PluginError, PrefetchCandidate, PrefetchPoll, Prefetcher,
    Reference,
};
use vodbench_harness::time::SimTime;

/// Parameters of `standard`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StandardParams {
    /// Prefetch processes per disk: how many prefetches may be outstanding there (1..=64; default 1).
    pub processes: u32,
    /// Longest prefetch queue per disk; the oldest entry is dropped beyond it (1..=100000; default 1024).
    pub max_queue: u32,
}

impl Default for StandardParams {
    fn default() -> Self {
        StandardParams {
            processes: 1,
            max_queue: 1024,
        }
    }
}

/// FIFO read-ahead of the next block on the same disk.
#[derive(Debug)]
pub struct Standard {
    queues: Vec<VecDeque<PrefetchCandidate>>,
    processes: u32,
    max_queue: usize,
}

impl Standard {
    /// A prefetcher for `disks` disks.
    pub fn new(disks: u32, p: &StandardParams) -> Self {
        Standard {
            queues: (0..disks).map(|_| VecDeque::new()).collect(),
            processes: p.processes,
            max_queue: p.max_queue as usize,
        }
    }
}

impl Prefetcher for Standard {
    fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
        if let Some(q) = self.queues.get_mut(r.disk.index()) {
            if let Some(i) = q.iter().position(|c| c.block == r.block) {
                q.remove(i);
            }
        }
        let (next, _) = r.read_ahead(layout)?;
        let disk = layout.locate(next).disk;
        let q = self.queues.get_mut(disk.index())?;
        if q.iter().any(|c| c.block == next) {
            return None;
        }
        if q.len() >= self.max_queue {
            q.pop_front();
        }
        q.push_back(PrefetchCandidate {
            block: next,
            terminal: r.terminal,
            deadline: None,
        });
        Some(disk)
    }

    fn poll(&mut self, disk: DiskId, in_flight: u32, _now: SimTime) -> PrefetchPoll {
        if in_flight >= self.processes {
            return PrefetchPoll::Idle;
        }
        match self
            .queues
            .get_mut(disk.index())
            .and_then(|q| q.pop_front())
        {
            Some(c) => PrefetchPoll::Issue(c),
            None => PrefetchPoll::Idle,
        }
    }
}

impl Plugin for Standard {
    type Kind = dyn Prefetcher;
    type Params = StandardParams;
    const NAME: &'static str = "standard";
    const DESCRIPTION: &'static str =
        "after each reference, read ahead the next block on the same disk; N prefetch processes per disk (SPIFFI §5.2.3)";

    fn validate(p: &StandardParams) -> Result<(), PluginError> {
        if !(1..=64).contains(&p.processes) {
            return Err(PluginError::param(
                "processes",
                format!("must be in 1..=64, got {}", p.processes),
            ));
        }
        if !(1..=100_000).contains(&p.max_queue) {
            return Err(PluginError::param(
                "max_queue",
                format!("must be in 1..=100000, got {}", p.max_queue),
            ));
        }
        Ok(())
    }

    fn build(
        p: &StandardParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn Prefetcher>, PluginError> {
        Ok(Box::new(Standard::new(ctx.disks(), p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // two disks; block i on disk i % 2
    use crate::prefetcher::real_time::tests::Two;
    use vodbench_harness::ids::{BlockId, TerminalId, VideoId};
    use vodbench_harness::time::SimDuration;

    fn reference(index: u32) -> Reference {
        Reference {
            hint: None,
            terminal: TerminalId(0),
            block: BlockId {
                video: VideoId(0),
                index,
            },
            disk: DiskId(index % 2),
            deadline: SimTime::ZERO,
            block_playout: SimDuration::from_secs(1),
            now: SimTime::ZERO,
        }
    }

    #[test]
    fn queues_the_next_block_on_the_same_disk_fifo() {
        let mut s = Standard::new(
            2,
            &StandardParams {
                processes: 2,
                max_queue: 10,
            },
        );
        assert_eq!(s.on_reference(&reference(0), &Two), Some(DiskId(0)));
        assert_eq!(s.on_reference(&reference(4), &Two), Some(DiskId(0)));
        let b = |i| {
            PrefetchPoll::Issue(PrefetchCandidate {
                block: BlockId {
                    video: VideoId(0),
                    index: i,
                },
                terminal: TerminalId(0),
                deadline: None,
            })
        };
        assert_eq!(s.poll(DiskId(0), 0, SimTime::ZERO), b(2));
        // two processes: one more may go while one is in flight, not a third
        assert_eq!(s.poll(DiskId(0), 2, SimTime::ZERO), PrefetchPoll::Idle);
        assert_eq!(s.poll(DiskId(0), 1, SimTime::ZERO), b(6));
        assert_eq!(s.poll(DiskId(1), 0, SimTime::ZERO), PrefetchPoll::Idle);
    }

    #[test]
    fn a_demand_reference_cancels_its_queued_prefetch() {
        let mut s = Standard::new(2, &StandardParams::default());
        s.on_reference(&reference(0), &Two); // queues 2
        s.on_reference(&reference(2), &Two); // 2 referenced first: drop it, queue 4
        match s.poll(DiskId(0), 0, SimTime::ZERO) {
            PrefetchPoll::Issue(c) => assert_eq!(c.block.index, 4),
            other => panic!("{other:?}"),
        }
        assert_eq!(s.poll(DiskId(0), 0, SimTime::ZERO), PrefetchPoll::Idle);
    }
}
