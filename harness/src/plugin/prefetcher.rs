use crate::ids::{BlockId, DiskId, TerminalId};
use crate::plugin::Layout;
use crate::time::{SimDuration, SimTime};

/// A terminal's real reference to a stripe block, as the prefetcher sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// Who referenced it.
    pub terminal: TerminalId,
    /// What was referenced.
    pub block: BlockId,
    /// The disk holding it.
    pub disk: DiskId,
    /// When the terminal needs the block (its playout deadline).
    pub deadline: SimTime,
    /// Mean playout time of one block at the video's bit rate: the block `k` places later is
    /// due about `k × block_playout` after `deadline`.
    pub block_playout: SimDuration,
    /// Now.
    pub now: SimTime,
}

/// A block to read ahead.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PrefetchCandidate {
    /// The block.
    pub block: BlockId,
    /// The terminal whose reference led to it.
    pub terminal: TerminalId,
    /// Estimated deadline of the future real request (`None`: lowest priority).
    pub deadline: Option<SimTime>,
}

/// What a prefetcher wants to do at one disk now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrefetchPoll {
    /// Read this block now.
    Issue(PrefetchCandidate),
    /// Nothing now; ask again at this instant (delayed prefetching).
    WaitUntil(SimTime),
    /// Nothing to do until the next reference.
    Idle,
}

/// Read-ahead policy (SPIFFI §5.2.3).
///
/// The engine reports every real reference with [`on_reference`](Prefetcher::on_reference);
/// the prefetcher queues what it wants and returns the disk whose queue changed. The engine
/// then calls [`poll`](Prefetcher::poll) for that disk — and again whenever one of that disk's
/// prefetches completes or a `WaitUntil` instant arrives — until it answers `Idle` or
/// `WaitUntil`. `in_flight` is how many of this prefetcher's reads are outstanding at the disk.
/// The engine silently skips candidates that are already cached or being read, and candidates
/// for which no free page exists.
///
/// ```
/// use vodbench_harness::ids::DiskId;
/// use vodbench_harness::plugin::{Layout, PrefetchPoll, Prefetcher, Reference};
/// use vodbench_harness::time::SimTime;
///
/// /// Never reads ahead.
/// struct Never;
/// impl Prefetcher for Never {
///     fn on_reference(&mut self, _r: &Reference, _l: &dyn Layout) -> Option<DiskId> { None }
///     fn poll(&mut self, _d: DiskId, _in_flight: u32, _now: SimTime) -> PrefetchPoll {
///         PrefetchPoll::Idle
///     }
/// }
/// ```
pub trait Prefetcher: Send {
    /// A terminal referenced `r.block`; returns the disk whose prefetch queue changed.
    fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId>;
    /// What to do at `disk` now, with `in_flight` prefetches outstanding there.
    fn poll(&mut self, disk: DiskId, in_flight: u32, now: SimTime) -> PrefetchPoll;
}
