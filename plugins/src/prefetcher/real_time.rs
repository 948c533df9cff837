//! `real-time`: SPIFFI's real-time prefetching (§5.2.3), the companion of the real-time disk
//! scheduler. Like `standard`, each real reference to a stripe block queues a read of the
//! next block of the same video on the same disk, and `processes` prefetch processes per disk
//! bound how many are outstanding. Unlike `standard`, each prefetch carries the *estimated
//! deadline* of the real request it anticipates — the referenced block's deadline plus one
//! block's playout time per block between them — and each disk's queue is a priority queue,
//! earliest estimated deadline first. Deadline-aware schedulers (`real-time`, `edf`,
//! `scan-edf`) order the prefetches by that deadline, so an urgent prefetch can overtake a
//! relaxed real request. A terminal in a skip search hints the block it will read next from
//! the disk and when (§8.1); that block and deadline replace the sequential estimate
//! ([`Reference::read_ahead`]).
//!
//! A queued prefetch whose block a terminal references first is dropped (the demand read
//! overtook it); a queue never holds the same block twice; when a queue is full
//! (`max_queue`) the entry with the latest estimated deadline is dropped. This file also
//! holds the queue that `delayed` prefetching shares.
//!
//! Each disk's queue is a double-ended vector kept sorted from the most to the least urgent
//! entry: a new prefetch is usually due later than the ones queued before it on that disk,
//! so it is inserted near the back, and the most urgent leaves from the front, both without
//! shifting more than a few entries (a tree's node hopping cost more). An entry is 32 bytes
//! (its key, block and terminal; the candidate's deadline is the key's), and which block is
//! queued where is kept in a [`QueuedIndex`], one entry per library block, not a hash map.

use super::queued_index::QueuedIndex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use vodbench_plugin_api::ids::{BlockId, DiskId, TerminalId};
use vodbench_plugin_api::plugin::{
    BuildContext, Layout, Plugin, PluginError, PrefetchCandidate, PrefetchPoll, Prefetcher,
    Reference,
};
use vodbench_plugin_api::time::{SimDuration, SimTime};

/// Parameters of `real-time`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RealTimeParams {
    /// Prefetch processes per disk: how many prefetches may be outstanding there (1..=64; default 1).
    pub processes: u32,
    /// Longest prefetch queue per disk; the least urgent entry is dropped beyond it (1..=100000; default 1024).
    pub max_queue: u32,
}

impl Default for RealTimeParams {
    fn default() -> Self {
        RealTimeParams {
            processes: 1,
            max_queue: 1024,
        }
    }
}

/// Checks `processes` and `max_queue` (shared with `delayed`).
pub(crate) fn validate_limits(processes: u32, max_queue: u32) -> Result<(), PluginError> {
    if !(1..=64).contains(&processes) {
        return Err(PluginError::param(
            "processes",
            format!("must be in 1..=64, got {processes}"),
        ));
    }
    if !(1..=100_000).contains(&max_queue) {
        return Err(PluginError::param(
            "max_queue",
            format!("must be in 1..=100000, got {max_queue}"),
        ));
    }
    Ok(())
}

/// Queue key: (estimated deadline, arrival); smaller is more urgent.
type Key = (SimTime, u64);

/// A queued prefetch: the candidate [`Entry::candidate`] gives back, keyed.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: Key,
    block: BlockId,
    terminal: TerminalId,
}

impl Entry {
    fn candidate(self) -> PrefetchCandidate {
        PrefetchCandidate {
            block: self.block,
            terminal: self.terminal,
            deadline: Some(self.key.0),
        }
    }
}

/// One disk's queue, sorted by ascending key: the most urgent entry is first.
#[derive(Debug, Default)]
struct DiskQueue(VecDeque<Entry>);

impl DiskQueue {
    /// Where `key` is (`Ok`), or would be inserted keeping the order (`Err`), as
    /// `binary_search` answers, found by galloping from the back (`from_back`) or the front
    /// and then bisecting the bracket. New prefetches land a few entries from the back and
    /// overtaken ones leave near the front, so each touches a few cache lines of a long
    /// queue instead of the dozen scattered ones a bisection of the whole queue does.
    fn search(&self, key: Key, from_back: bool) -> Result<usize, usize> {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let q = &self.0;
        let n = q.len();
        // entries before `lo` are below `key`, entries from `hi` on above it
        let (mut lo, mut hi) = (0, n);
        let mut step = 1;
        if from_back {
            while hi > 0 {
                let probe = hi.saturating_sub(step);
                match q[probe].key.cmp(&key) {
                    Less => {
                        lo = probe + 1;
                        break;
                    }
                    Equal => return Ok(probe),
                    Greater => hi = probe,
                }
                step *= 2;
            }
        } else {
            while lo < n {
                let probe = (lo + step - 1).min(n - 1);
                match q[probe].key.cmp(&key) {
                    Greater => {
                        hi = probe;
                        break;
                    }
                    Equal => return Ok(probe),
                    Less => lo = probe + 1,
                }
                step *= 2;
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match q[mid].key.cmp(&key) {
                Less => lo = mid + 1,
                Greater => hi = mid,
                Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    fn insert(&mut self, e: Entry) {
        let (Ok(i) | Err(i)) = self.search(e.key, true);
        self.0.insert(i, e);
    }

    fn remove(&mut self, key: Key) {
        if let Ok(i) = self.search(key, false) {
            self.0.remove(i);
        }
    }

    /// The least urgent entry (largest key).
    fn pop_least_urgent(&mut self) -> Option<Entry> {
        self.0.pop_back()
    }

    fn most_urgent(&self) -> Option<Key> {
        self.0.front().map(|e| e.key)
    }

    fn pop_most_urgent(&mut self) -> Option<Entry> {
        self.0.pop_front()
    }
}

/// Per-disk priority queues of prefetches by estimated deadline, optionally holding each one
/// back until it is within `max_advance` of its deadline (`delayed`).
#[derive(Debug)]
pub struct DeadlinePrefetch {
    /// Per disk: candidates by (estimated deadline, arrival).
    queues: Vec<DiskQueue>,
    /// Where each queued block sits: (disk, the key's arrival, [the key's deadline]).
    queued: QueuedIndex<1>,
    processes: u32,
    max_queue: usize,
    max_advance: Option<SimDuration>,
    seq: u64,
}

impl DeadlinePrefetch {
    /// A prefetcher for `disks` disks and a library of videos of `video_blocks[v]` blocks;
    /// `max_advance: None` issues prefetches as soon as a process is free (`real-time`),
    /// `Some(a)` only within `a` of their deadline (`delayed`).
    pub fn new(
        disks: u32,
        video_blocks: &[u32],
        processes: u32,
        max_queue: u32,
        max_advance: Option<SimDuration>,
    ) -> Self {
        DeadlinePrefetch {
            queues: (0..disks).map(|_| DiskQueue::default()).collect(),
            queued: QueuedIndex::new(video_blocks),
            processes,
            max_queue: max_queue.max(1) as usize,
            max_advance,
            seq: 0,
        }
    }
}

impl Prefetcher for DeadlinePrefetch {
    fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
        if let Some((d, seq, [deadline])) = self.queued.remove(&r.block) {
            self.queues[d as usize].remove((SimTime::from_nanos(deadline), seq));
        }
        let (next, deadline) = r.read_ahead(layout)?;
        let disk = layout.locate(next).disk;
        let d = disk.index();
        if d >= self.queues.len() || self.queued.contains_key(&next) {
            return None;
        }
        let q = &mut self.queues[d];
        if q.0.len() >= self.max_queue {
            if let Some(e) = q.pop_least_urgent() {
                self.queued.remove(&e.block);
            }
        }
        let key = (deadline, self.seq);
        self.seq += 1;
        q.insert(Entry {
            key,
            block: next,
            terminal: r.terminal,
        });
        self.queued
            .insert(next, (disk.0, key.1, [deadline.as_nanos()]));
        Some(disk)
    }

    fn poll(&mut self, disk: DiskId, in_flight: u32, now: SimTime) -> PrefetchPoll {
        if in_flight >= self.processes {
            return PrefetchPoll::Idle;
        }
        let Some(q) = self.queues.get_mut(disk.index()) else {
            return PrefetchPoll::Idle;
        };
        let Some((deadline, _)) = q.most_urgent() else {
            return PrefetchPoll::Idle;
        };
        if let Some(a) = self.max_advance {
            let issue_at = deadline.saturating_sub(a);
            if issue_at > now {
                return PrefetchPoll::WaitUntil(issue_at);
            }
        }
        let e = q.pop_most_urgent().expect("not empty");
        self.queued.remove(&e.block);
        PrefetchPoll::Issue(e.candidate())
    }
}

/// The `real-time` prefetcher.
#[derive(Debug)]
pub struct RealTimePrefetch;

impl Plugin for RealTimePrefetch {
    type Kind = dyn Prefetcher;
    type Params = RealTimeParams;
    const NAME: &'static str = "real-time";
    const DESCRIPTION: &'static str =
        "read ahead the next block on the same disk with its estimated deadline, most urgent first (SPIFFI §5.2.3)";

    fn validate(p: &RealTimeParams) -> Result<(), PluginError> {
        validate_limits(p.processes, p.max_queue)
    }

    fn build(
        p: &RealTimeParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn Prefetcher>, PluginError> {
        Ok(Box::new(DeadlinePrefetch::new(
            ctx.disks(),
            ctx.video_blocks,
            p.processes,
            p.max_queue,
            None,
        )))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use vodbench_plugin_api::ids::{NodeId, TerminalId, VideoId};
    use vodbench_plugin_api::plugin::Location;

    /// `n` disks; block i of every video on disk i % n, the next block there i + n.
    pub(crate) struct RoundRobin(pub(crate) u32);
    impl Layout for RoundRobin {
        fn locate(&self, b: BlockId) -> Location {
            Location {
                node: NodeId(0),
                disk: DiskId(b.index % self.0),
                offset: u64::from(b.index),
            }
        }
        fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
            Some(BlockId {
                index: b.index + self.0,
                ..b
            })
        }
    }

    /// Three videos of 3 blocks: the tests' later blocks lie past their ends, so both ways
    /// of keeping the queued blocks are used.
    pub(crate) const LIBRARY: &[u32] = &[3, 3, 3];

    pub(crate) fn secs(s: u64) -> SimTime {
        SimTime::from_nanos(s * 1_000_000_000)
    }

    /// Terminal `t` references block `index` of video `t`, due at `deadline_s`, 1 s per block.
    pub(crate) fn reference(t: u32, index: u32, deadline_s: u64) -> Reference {
        Reference {
            hint: None,
            terminal: TerminalId(t),
            block: BlockId {
                video: VideoId(t),
                index,
            },
            disk: DiskId(index % 2),
            deadline: secs(deadline_s),
            block_playout: SimDuration::from_secs(1),
            now: SimTime::ZERO,
        }
    }

    pub(crate) fn issued(p: PrefetchPoll) -> (u32, u32, SimTime) {
        match p {
            PrefetchPoll::Issue(c) => (c.block.video.0, c.block.index, c.deadline.unwrap()),
            other => panic!("expected an issue, got {other:?}"),
        }
    }

    #[test]
    fn prefetches_carry_estimated_deadlines_most_urgent_first() {
        let mut p = DeadlinePrefetch::new(2, LIBRARY, 2, 10, None);
        // terminal 0: block 0 due at 30 s → block 2 due at 32 s, on disk 0
        assert_eq!(
            p.on_reference(&reference(0, 0, 30), &RoundRobin(2)),
            Some(DiskId(0))
        );
        // terminal 1: block 4 due at 10 s → block 6 due at 12 s, on disk 0
        assert_eq!(
            p.on_reference(&reference(1, 4, 10), &RoundRobin(2)),
            Some(DiskId(0))
        );
        assert_eq!(
            issued(p.poll(DiskId(0), 0, SimTime::ZERO)),
            (1, 6, secs(12))
        );
        // two processes: a second may go, not a third
        assert_eq!(p.poll(DiskId(0), 2, SimTime::ZERO), PrefetchPoll::Idle);
        assert_eq!(
            issued(p.poll(DiskId(0), 1, SimTime::ZERO)),
            (0, 2, secs(32))
        );
        assert_eq!(p.poll(DiskId(0), 0, SimTime::ZERO), PrefetchPoll::Idle);
        assert_eq!(p.poll(DiskId(1), 0, SimTime::ZERO), PrefetchPoll::Idle);
    }

    #[test]
    fn a_demand_reference_cancels_its_prefetch_and_a_full_queue_drops_the_least_urgent() {
        let mut p = DeadlinePrefetch::new(2, LIBRARY, 1, 2, None);
        p.on_reference(&reference(0, 0, 30), &RoundRobin(2)); // queues (0, 2) due 32
        p.on_reference(&reference(0, 2, 32), &RoundRobin(2)); // 2 referenced first: drop it, queue (0, 4) due 34
        p.on_reference(&reference(1, 0, 5), &RoundRobin(2)); // queues (1, 2) due 7
        p.on_reference(&reference(2, 0, 1), &RoundRobin(2)); // full: drops (0, 4), queues (2, 2) due 3
        assert_eq!(issued(p.poll(DiskId(0), 0, SimTime::ZERO)), (2, 2, secs(3)));
        assert_eq!(issued(p.poll(DiskId(0), 0, SimTime::ZERO)), (1, 2, secs(7)));
        assert_eq!(p.poll(DiskId(0), 0, SimTime::ZERO), PrefetchPoll::Idle);
        // the dropped block can be queued again
        p.on_reference(&reference(0, 2, 32), &RoundRobin(2));
        assert_eq!(
            issued(p.poll(DiskId(0), 0, SimTime::ZERO)),
            (0, 4, secs(34))
        );
    }
}

#[cfg(test)]
mod search_tests {
    use super::*;
    use vodbench_plugin_api::ids::{TerminalId, VideoId};

    #[test]
    fn galloping_search_answers_as_binary_search() {
        use rand::{Rng, SeedableRng};
        let mut rng = vodbench_plugin_api::rng::SimRng::seed_from_u64(4);
        let c = PrefetchCandidate {
            block: BlockId {
                video: VideoId(0),
                index: 0,
            },
            terminal: TerminalId(0),
            deadline: None,
        };
        for n in [0usize, 1, 2, 3, 5, 17, 100] {
            let mut keys: Vec<Key> = (0..n)
                .map(|i| (SimTime::from_nanos(rng.random_range(0..40)), i as u64))
                .collect();
            keys.sort();
            let q = DiskQueue(
                keys.iter()
                    .map(|&key| Entry {
                        key,
                        block: c.block,
                        terminal: c.terminal,
                    })
                    .collect(),
            );
            for t in 0..42 {
                for seq in [0, n as u64 / 2, n as u64] {
                    let key = (SimTime::from_nanos(t), seq);
                    let want = keys.binary_search(&key);
                    assert_eq!(q.search(key, true), want, "back, n {n}, key {key:?}");
                    assert_eq!(q.search(key, false), want, "front, n {n}, key {key:?}");
                }
            }
        }
    }
}

#[cfg(test)]
mod against_a_map {
    use super::tests::RoundRobin;
    use super::*;
    use rustc_hash::FxHashMap;
    use vodbench_plugin_api::ids::{TerminalId, VideoId};
    use vodbench_plugin_api::plugin::PrefetchHint;

    /// The prefetcher as a hash map of the queued blocks and a sorted vector of (key,
    /// candidate) per disk, as it was kept before its index and entries were made compact:
    /// [`DeadlinePrefetch`] must answer every call as it does.
    struct MapModel {
        queues: Vec<Vec<(Key, PrefetchCandidate)>>,
        queued: FxHashMap<BlockId, (usize, Key)>,
        processes: u32,
        max_queue: usize,
        max_advance: Option<SimDuration>,
        seq: u64,
    }

    impl MapModel {
        fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
            if let Some((d, key)) = self.queued.remove(&r.block) {
                let q = &mut self.queues[d];
                if let Ok(i) = q.binary_search_by(|e| e.0.cmp(&key)) {
                    q.remove(i);
                }
            }
            let (next, deadline) = r.read_ahead(layout)?;
            let disk = layout.locate(next).disk;
            let d = disk.index();
            if d >= self.queues.len() || self.queued.contains_key(&next) {
                return None;
            }
            let q = &mut self.queues[d];
            if q.len() >= self.max_queue {
                if let Some((_, c)) = q.pop() {
                    self.queued.remove(&c.block);
                }
            }
            let key = (deadline, self.seq);
            self.seq += 1;
            let (Ok(i) | Err(i)) = q.binary_search_by(|e| e.0.cmp(&key));
            let c = PrefetchCandidate {
                block: next,
                terminal: r.terminal,
                deadline: Some(deadline),
            };
            q.insert(i, (key, c));
            self.queued.insert(next, (d, key));
            Some(disk)
        }

        fn poll(&mut self, disk: DiskId, in_flight: u32, now: SimTime) -> PrefetchPoll {
            if in_flight >= self.processes {
                return PrefetchPoll::Idle;
            }
            let Some(q) = self.queues.get_mut(disk.index()) else {
                return PrefetchPoll::Idle;
            };
            let Some(&((deadline, _), _)) = q.first() else {
                return PrefetchPoll::Idle;
            };
            if let Some(a) = self.max_advance {
                let issue_at = deadline.saturating_sub(a);
                if issue_at > now {
                    return PrefetchPoll::WaitUntil(issue_at);
                }
            }
            let (_, c) = q.remove(0);
            self.queued.remove(&c.block);
            PrefetchPoll::Issue(c)
        }
    }

    #[test]
    fn answers_every_call_as_a_hash_map_of_sorted_queues_does() {
        use rand::{Rng, SeedableRng};
        // blocks inside and outside the library (video 3 is not in it; the others end
        // early), ties of deadlines, full queues, hints, and a disk that does not exist
        let library = [20, 5, 0];
        for (max_queue, max_advance) in [(4, None), (6, Some(3)), (1000, Some(1)), (2, None)] {
            let mut rng = vodbench_plugin_api::rng::SimRng::seed_from_u64(max_queue);
            let max_advance = max_advance.map(SimDuration::from_secs);
            let mut p = DeadlinePrefetch::new(3, &library, 2, max_queue as u32, max_advance);
            let mut model = MapModel {
                queues: vec![Vec::new(); 3],
                queued: FxHashMap::default(),
                processes: 2,
                max_queue: max_queue as usize,
                max_advance,
                seq: 0,
            };
            for step in 0..20_000 {
                let block = |rng: &mut vodbench_plugin_api::rng::SimRng| BlockId {
                    video: VideoId(rng.random_range(0..4)),
                    index: rng.random_range(0..30),
                };
                let now = SimTime::from_nanos(rng.random_range(0..20) * 1_000_000_000);
                if rng.random_bool(0.55) {
                    let b = block(&mut rng);
                    let hint = rng.random_bool(0.1).then(|| PrefetchHint {
                        block: block(&mut rng),
                        deadline: SimTime::from_nanos(rng.random_range(0..30) * 500_000_000),
                    });
                    let r = Reference {
                        hint,
                        terminal: TerminalId(rng.random_range(0..5)),
                        block: b,
                        disk: DiskId(b.index % 3),
                        deadline: SimTime::from_nanos(rng.random_range(0..20) * 1_000_000_000),
                        block_playout: SimDuration::from_secs(rng.random_range(0..3)),
                        now,
                    };
                    assert_eq!(
                        p.on_reference(&r, &RoundRobin(3)),
                        model.on_reference(&r, &RoundRobin(3)),
                        "step {step}"
                    );
                } else {
                    let disk = DiskId(rng.random_range(0..4));
                    let in_flight = rng.random_range(0..3);
                    assert_eq!(
                        p.poll(disk, in_flight, now),
                        model.poll(disk, in_flight, now),
                        "step {step}"
                    );
                }
            }
        }
    }
}
