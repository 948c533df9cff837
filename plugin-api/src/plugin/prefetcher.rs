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
    /// The terminal's hint when it is not reading the video sequentially (a skip search,
    /// SPIFFI §8.1: "the prefetching algorithm at the server can take hints from the
    /// terminals so that the appropriate blocks of video are always prefetched next"):
    /// the next block it will read from this reference's disk. `None` while it reads
    /// sequentially. A read-ahead policy should prefetch this block instead of the
    /// sequential next one; [`Reference::read_ahead`] does that choice.
    pub hint: Option<PrefetchHint>,
}

/// The next block a terminal will read from a disk, and when it will need it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PrefetchHint {
    /// The block.
    pub block: BlockId,
    /// The terminal's estimate of when it will need the block.
    pub deadline: SimTime,
}

impl Reference {
    /// The block a read-ahead policy should prefetch after this reference, with its
    /// estimated deadline: the terminal's [hint](Reference::hint) if it gave one, otherwise
    /// the layout's next block of the video on the same disk, due `k × block_playout` after
    /// this one's deadline, `k` being how many blocks further on it is.
    ///
    /// ```
    /// use vodbench_plugin_api::ids::{BlockId, DiskId, NodeId, TerminalId, VideoId};
    /// use vodbench_plugin_api::plugin::{Layout, Location, PrefetchHint, Reference};
    /// use vodbench_plugin_api::time::{SimDuration, SimTime};
    ///
    /// /// Two disks, block i on disk i % 2.
    /// struct Two;
    /// impl Layout for Two {
    ///     fn locate(&self, b: BlockId) -> Location {
    ///         Location { node: NodeId(0), disk: DiskId(b.index % 2), offset: u64::from(b.index) }
    ///     }
    ///     fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
    ///         Some(BlockId { index: b.index + 2, ..b })
    ///     }
    /// }
    /// let block = |index| BlockId { video: VideoId(0), index };
    /// let mut r = Reference {
    ///     terminal: TerminalId(0),
    ///     block: block(10),
    ///     disk: DiskId(0),
    ///     deadline: SimTime::from_nanos(5_000_000_000),
    ///     block_playout: SimDuration::from_secs(1),
    ///     now: SimTime::ZERO,
    ///     hint: None,
    /// };
    /// // sequential: block 12, two blocks (2 s) after block 10's deadline
    /// assert_eq!(r.read_ahead(&Two), Some((block(12), SimTime::from_nanos(7_000_000_000))));
    /// // a rewinding terminal hints block 4
    /// let hint = PrefetchHint { block: block(4), deadline: SimTime::from_nanos(6_000_000_000) };
    /// r.hint = Some(hint);
    /// assert_eq!(r.read_ahead(&Two), Some((hint.block, hint.deadline)));
    /// ```
    pub fn read_ahead(&self, layout: &dyn Layout) -> Option<(BlockId, SimTime)> {
        if let Some(h) = self.hint {
            return Some((h.block, h.deadline));
        }
        let next = layout.next_on_same_disk(self.block)?;
        let ahead = u64::from(next.index.saturating_sub(self.block.index).max(1));
        Some((
            next,
            self.deadline + self.block_playout.saturating_mul(ahead),
        ))
    }
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
/// The engine silently skips candidates that are already cached or being read, candidates
/// past the end of their video, and candidates for which no free page exists; a candidate
/// naming a video or a terminal that does not exist breaks the contract and stops the run.
///
/// ```
/// use vodbench_plugin_api::ids::DiskId;
/// use vodbench_plugin_api::plugin::{Layout, PrefetchPoll, Prefetcher, Reference};
/// use vodbench_plugin_api::time::SimTime;
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
