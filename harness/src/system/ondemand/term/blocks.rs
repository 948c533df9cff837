//! The blocks of a terminal's session (SPIFFI §5.1): the object it reads, the blocks asked
//! for and not yet arrived, the frontier below which every block has arrived, and the bytes
//! received. Changed only as a session begins and ends, a block is asked for, and a block
//! arrives.

/// A terminal's session, block by block.
pub(in crate::system::ondemand) struct Blocks {
    /// The object being read: the video itself or one of its search versions.
    video: u32,
    /// The session: data of an older one is discarded on arrival.
    epoch: u32,
    first: u32,
    next: u32,
    frontier: u32,
    /// Blocks arrived past the frontier (bit `i`: block `frontier + i`).
    mask: u128,
    outstanding: u32,
    /// Blocks of the current round's set still to ask for (`[terminals.rounds]`; the set's
    /// room was reserved when its first block was asked for).
    set_left: u32,
    /// Skip search: no block at or past this one is requested (`u32::MAX` otherwise).
    limit: u32,
    /// Bytes received in this session.
    received: u64,
}

impl Blocks {
    pub fn new() -> Blocks {
        Blocks {
            video: 0,
            epoch: 0,
            first: 0,
            next: 0,
            frontier: 0,
            mask: 0,
            outstanding: 0,
            set_left: 0,
            limit: u32::MAX,
            received: 0,
        }
    }

    /// The object being read.
    #[inline]
    pub fn video(&self) -> u32 {
        self.video
    }

    /// The session's number: data of an older one is discarded on arrival.
    #[inline]
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The session's first block.
    #[inline]
    pub fn first(&self) -> u32 {
        self.first
    }

    /// The next block to ask for.
    #[inline]
    pub fn next(&self) -> u32 {
        self.next
    }

    /// The first block not yet arrived (every block before it has).
    #[inline]
    pub fn frontier(&self) -> u32 {
        self.frontier
    }

    /// Blocks arrived past the frontier (bit `i`: block `frontier + i`).
    #[inline]
    pub fn mask(&self) -> u128 {
        self.mask
    }

    /// Blocks asked for and not yet arrived.
    #[inline]
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Blocks of the current round's set still to ask for (0: none under way).
    #[inline]
    pub fn set_left(&self) -> u32 {
        self.set_left
    }

    /// No block at or past this one is asked for (`u32::MAX`: no limit).
    #[inline]
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Bytes received in this session.
    #[inline]
    pub fn received(&self) -> u64 {
        self.received
    }

    /// A session of object `video` begins at `block`: nothing asked for, nothing arrived.
    pub fn begin(&mut self, video: u32, block: u32) {
        self.video = video;
        self.limit = u32::MAX;
        self.first = block;
        self.next = block;
        self.frontier = block;
        self.mask = 0;
        self.outstanding = 0;
        self.set_left = 0;
        self.received = 0;
    }

    /// The session ends: what is still on its way belongs to an older session.
    pub fn end(&mut self) {
        self.received = 0;
        self.epoch = self.epoch.wrapping_add(1);
        self.outstanding = 0;
    }

    /// Waiting for a group's start (piggyback): `video` from its beginning, nothing read.
    pub fn wait_for(&mut self, video: u32) {
        self.video = video;
        self.first = 0;
        self.frontier = 0;
        self.next = 0;
    }

    /// Skip search: nothing at or past `block` is asked for.
    pub fn limit_to(&mut self, block: u32) {
        self.limit = block;
    }

    /// The next block was asked for, in sets of `set` blocks (the first of a set opens it:
    /// its room is reserved for all of it).
    pub fn asked(&mut self, set: u32) {
        if set > 1 {
            self.set_left = if self.set_left == 0 {
                set - 1
            } else {
                self.set_left - 1
            };
        }
        self.next += 1;
        self.outstanding += 1;
    }

    /// The next block is passed over (it could not be asked for).
    pub fn skip(&mut self) {
        self.next += 1;
    }

    /// Block `index` of this session arrived with `bytes`: the frontier moves past every
    /// block arrived in a row.
    pub fn arrived(&mut self, index: u32, bytes: u64) {
        self.outstanding -= 1;
        self.received += bytes;
        let i = index - self.frontier;
        self.mask |= 1u128 << i;
        while self.mask & 1 == 1 {
            self.mask >>= 1;
            self.frontier += 1;
        }
    }
}
