//! `standard`: SPIFFI's prefetcher (§5.2.3). Each real reference to a stripe block queues a
//! background read of the next block of the same video on the same disk (or, from a terminal
//! in a skip search, the block it hints it will read next there, §8.1), in a first-in
//! first-out queue per disk; a fixed number of prefetch processes per disk (`processes`)
//! bounds how many of those reads are outstanding at once, which sets how aggressive
//! prefetching is. Prefetches carry no deadline (lowest priority for deadline-aware
//! schedulers). A queued prefetch whose block a terminal references first is dropped (the
//! demand read overtook it), and a queue never holds the same block twice; when a queue is
//! full (`max_queue`) the oldest entry is dropped.
//!
//! Which block is "next" is one of the paper's open details (`target`): §5.2.3 says "the
//! next stripe block at the same disk" (`same-disk`, the default: with D disks striped, D
//! blocks — D seconds of video — ahead), while §5 says "a background prefetch request for
//! the next stripe block of the video file" (`next-block`: the block right after the one
//! referenced, on the next disk, one block ahead). They differ in how much server memory
//! prefetched pages hold: about D pages per terminal against one.

use super::queued_index::QueuedIndex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use vodbench_plugin_api::ids::{BlockId, DiskId};
use vodbench_plugin_api::plugin::{
    BuildContext, Layout, Plugin, PluginError, PrefetchCandidate, PrefetchPoll, Prefetcher,
    Reference,
};
use vodbench_plugin_api::time::SimTime;

/// Parameters of `standard`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StandardParams {
    /// Prefetch processes per disk: how many prefetches may be outstanding there (1..=64; default 1).
    pub processes: u32,
    /// Longest prefetch queue per disk; the oldest entry is dropped beyond it (1..=100000; default 1024).
    pub max_queue: u32,
    /// Which block to read ahead: `same-disk` (§5.2.3, default) or `next-block` (§5).
    pub target: Target,
}

/// Which block `standard` reads ahead after a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// The next block of the video on the same disk (SPIFFI §5.2.3).
    SameDisk,
    /// The next block of the video file, wherever it lives (SPIFFI §5).
    NextBlock,
}

impl Default for StandardParams {
    fn default() -> Self {
        StandardParams {
            processes: 1,
            max_queue: 1024,
            target: Target::SameDisk,
        }
    }
}

/// FIFO read-ahead of the next block on the same disk.
///
/// The queues hold candidates in arrival order; one index (`QueuedIndex`) says which block
/// is queued where (its disk and its position). A candidate dropped from the middle (its
/// block referenced first) is marked dead in place and skipped when it reaches the front, so
/// every operation is O(1) amortized however long the queues grow (with one prefetch process
/// per disk they hold hundreds of entries).
#[derive(Debug)]
pub struct Standard {
    queues: Vec<Queue>,
    /// Queued block → (disk index, position of its entry counted from the queue's start).
    queued: QueuedIndex<0>,
    processes: u32,
    max_queue: usize,
    target: Target,
}

/// One disk's queue: entries in arrival order, the dropped ones marked dead.
#[derive(Debug, Default)]
struct Queue {
    /// `(candidate, live)`.
    entries: VecDeque<(PrefetchCandidate, bool)>,
    /// Position of `entries[0]` (the index's positions are `base` + index).
    base: u64,
    live: usize,
}

impl Standard {
    /// A prefetcher for `disks` disks and a library of videos of `video_blocks[v]` blocks.
    pub fn new(disks: u32, video_blocks: &[u32], p: &StandardParams) -> Self {
        Standard {
            queues: (0..disks).map(|_| Queue::default()).collect(),
            queued: QueuedIndex::new(video_blocks),
            processes: p.processes,
            max_queue: p.max_queue as usize,
            target: p.target,
        }
    }

    /// Removes and returns the oldest live candidate of disk `d`'s queue.
    fn pop_oldest(&mut self, d: usize) -> Option<PrefetchCandidate> {
        let q = self.queues.get_mut(d)?;
        while let Some((c, live)) = q.entries.pop_front() {
            q.base += 1;
            if live {
                self.queued.remove(&c.block);
                q.live -= 1;
                return Some(c);
            }
        }
        None
    }

    /// Marks the candidate at `position` of disk `d`'s queue dead (already removed from the
    /// index).
    fn drop_queued(&mut self, d: u32, position: u64) {
        let q = &mut self.queues[d as usize];
        q.entries[(position - q.base) as usize].1 = false;
        q.live -= 1;
        // dead entries are skipped at the front; where the front rarely moves, keep them
        // from piling up: compact, renumbering the live ones
        if q.entries.len() > 2 * q.live + 64 {
            q.entries.retain(|e| e.1);
            for (i, (c, _)) in q.entries.iter().enumerate() {
                self.queued.insert(c.block, (d, q.base + i as u64, []));
            }
        }
    }

    /// Live candidates queued at disk `d` (for tests).
    #[cfg(test)]
    fn queue_len(&self, d: usize) -> usize {
        self.queues[d].live
    }
}

impl Prefetcher for Standard {
    fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
        if let Some((d, position, [])) = self.queued.remove(&r.block) {
            if d == r.disk.0 {
                self.drop_queued(d, position);
            } else {
                // queued at another disk than the one referenced: not this disk's to drop
                self.queued.insert(r.block, (d, position, []));
            }
        }
        let next = match (self.target, r.hint) {
            (Target::NextBlock, None) => BlockId {
                index: r.block.index.checked_add(1)?,
                ..r.block
            },
            _ => r.read_ahead(layout)?.0,
        };
        let disk = layout.locate(next).disk;
        let d = disk.index();
        if d >= self.queues.len() || self.queued.contains_key(&next) {
            return None;
        }
        if self.queues[d].live >= self.max_queue {
            self.pop_oldest(d);
        }
        let q = &mut self.queues[d];
        self.queued
            .insert(next, (disk.0, q.base + q.entries.len() as u64, []));
        q.live += 1;
        q.entries.push_back((
            PrefetchCandidate {
                block: next,
                terminal: r.terminal,
                deadline: None,
            },
            true,
        ));
        Some(disk)
    }

    fn poll(&mut self, disk: DiskId, in_flight: u32, _now: SimTime) -> PrefetchPoll {
        if in_flight >= self.processes {
            return PrefetchPoll::Idle;
        }
        match self.pop_oldest(disk.index()) {
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
        "after each reference, read ahead the next block on the same disk (or of the file); N prefetch processes per disk (SPIFFI §5.2.3)";

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
        Ok(Box::new(Standard::new(ctx.disks(), ctx.video_blocks, p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // two disks; block i on disk i % 2
    use crate::prefetcher::real_time::tests::RoundRobin;
    use vodbench_plugin_api::ids::{TerminalId, VideoId};
    use vodbench_plugin_api::time::SimDuration;

    /// One video of 30 blocks: the tests' later blocks lie past its end, so both ways of
    /// keeping the queued blocks are used.
    const LIBRARY: &[u32] = &[30];

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
            LIBRARY,
            &StandardParams {
                processes: 2,
                max_queue: 10,
                target: Target::SameDisk,
            },
        );
        assert_eq!(
            s.on_reference(&reference(0), &RoundRobin(2)),
            Some(DiskId(0))
        );
        assert_eq!(
            s.on_reference(&reference(4), &RoundRobin(2)),
            Some(DiskId(0))
        );
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
        let mut s = Standard::new(2, LIBRARY, &StandardParams::default());
        s.on_reference(&reference(0), &RoundRobin(2)); // queues 2
        s.on_reference(&reference(2), &RoundRobin(2)); // 2 referenced first: drop it, queue 4
        match s.poll(DiskId(0), 0, SimTime::ZERO) {
            PrefetchPoll::Issue(c) => assert_eq!(c.block.index, 4),
            other => panic!("{other:?}"),
        }
        assert_eq!(s.poll(DiskId(0), 0, SimTime::ZERO), PrefetchPoll::Idle);
    }

    #[test]
    fn a_full_queue_drops_its_oldest_live_entry_and_dropped_entries_do_not_pile_up() {
        let p = StandardParams {
            max_queue: 3,
            ..StandardParams::default()
        };
        let mut s = Standard::new(2, LIBRARY, &p);
        for i in [0, 10, 20] {
            s.on_reference(&reference(i), &RoundRobin(2)); // queues 2, 12, 22 at disk 0
        }
        s.on_reference(&reference(2), &RoundRobin(2)); // drops 2 (the front), queues 4
        s.on_reference(&reference(12), &RoundRobin(2)); // drops 12 (the middle), queues 14
        assert_eq!(s.queue_len(0), 3);
        // full: the oldest live entry, 22, makes room for 32; the dropped 2 and 12 are skipped
        s.on_reference(&reference(30), &RoundRobin(2));
        let mut issued = Vec::new();
        while let PrefetchPoll::Issue(c) = s.poll(DiskId(0), 0, SimTime::ZERO) {
            issued.push(c.block.index);
        }
        assert_eq!(issued, [4, 14, 32]);
        // a block already queued is not queued again
        s.on_reference(&reference(40), &RoundRobin(2));
        assert_eq!(s.on_reference(&reference(40), &RoundRobin(2)), None);
        assert_eq!(s.queue_len(0), 1);
        // many queue-then-drop cycles without a poll: the queue's storage stays bounded
        let mut s = Standard::new(2, LIBRARY, &StandardParams::default());
        for i in 0..10_000u32 {
            s.on_reference(&reference(4 * i), &RoundRobin(2)); // queues 4i + 2
            s.on_reference(&reference(4 * i + 2), &RoundRobin(2)); // drops it, queues 4i + 4
        }
        assert_eq!(s.queue_len(0), 1);
        assert!(s.queues[0].entries.len() <= 2 * s.queue_len(0) + 65);
        match s.poll(DiskId(0), 0, SimTime::ZERO) {
            PrefetchPoll::Issue(c) => assert_eq!(c.block.index, 40_000),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn next_block_reads_the_following_block_of_the_file() {
        let p = StandardParams {
            target: Target::NextBlock,
            ..StandardParams::default()
        };
        let mut s = Standard::new(2, LIBRARY, &p);
        // block 4 (disk 0) is followed by block 5, on disk 1
        assert_eq!(
            s.on_reference(&reference(4), &RoundRobin(2)),
            Some(DiskId(1))
        );
        match s.poll(DiskId(1), 0, SimTime::ZERO) {
            PrefetchPoll::Issue(c) => assert_eq!(c.block.index, 5),
            other => panic!("{other:?}"),
        }
        assert_eq!(s.poll(DiskId(0), 0, SimTime::ZERO), PrefetchPoll::Idle);
        // a hint still wins
        let mut r = reference(4);
        r.hint = Some(vodbench_plugin_api::plugin::PrefetchHint {
            block: BlockId {
                video: VideoId(0),
                index: 1,
            },
            deadline: SimTime::ZERO,
        });
        assert_eq!(s.on_reference(&r, &RoundRobin(2)), Some(DiskId(1)));
        match s.poll(DiskId(1), 0, SimTime::ZERO) {
            PrefetchPoll::Issue(c) => assert_eq!(c.block.index, 1),
            other => panic!("{other:?}"),
        }
    }
}
