//! The reads in flight: a terminal's request for a block (from the moment it is sent until
//! its data reaches the terminal) and a disk access (from the buffer pool's miss or the
//! prefetcher's choice until the disk has served it), each in an arena of reusable slots so
//! the hot path allocates nothing.

use super::event::NONE;
use crate::ids::BlockId;
use crate::plugin::RequestClass;
use crate::time::{SimDuration, SimTime};

/// A terminal read in flight.
#[derive(Copy, Clone)]
pub(super) struct Req {
    pub terminal: u32,
    /// The terminal's session when it asked (data for an older session is discarded).
    pub epoch: u32,
    pub block: BlockId,
    pub node: u32,
    pub disk: u32,
    pub page: u32,
    pub bytes: u64,
    pub deadline: SimTime,
    /// Next request waiting for the same page being read (a list through the arena).
    pub next_waiter: u32,
    /// Whether its reference was counted (a request that waits for a page is looked up
    /// again, but counts once).
    pub counted: bool,
    /// 0 issued, 1 served by the pool (bytes accounted), 2 handed to the network.
    pub stage: u8,
    /// Whether the disk access that served it was made for it (its own miss), so its delay
    /// splits into the components of [`super::delays`].
    pub own_io: bool,
    /// When the terminal sent it.
    pub sent: SimTime,
    /// Its messages' times on an idle network (request and data): N_C.
    pub net_unloaded: SimDuration,
    /// Its own disk access's wait in the disk queue and seek, rotation and transfer times
    /// (S_Q, D_S, D_R, D_T), ns; zero unless `own_io`.
    pub io: [u64; 4],
    /// Stream memory taken for this read's block by its disk accesses as they started
    /// (`[server.rounds]` with `clbuf` / `clbufrate`).
    pub buffered: u64,
}

/// A disk access in flight.
#[derive(Copy, Clone)]
pub(super) struct DReq {
    pub page: u32,
    pub node: u32,
    pub disk: u32,
    pub class: RequestClass,
    pub enqueued: SimTime,
    pub offset: u64,
    pub bytes: u64,
    /// Whether it is in its disk's queue (what a scheduler may return).
    pub queued: bool,
    pub deadline: Option<SimTime>,
    pub terminal: u32,
    /// The terminal read whose miss made it ([`NONE`] for read-ahead).
    pub owner: u32,
    /// With fine-grained striping ([`Layout::pieces`](crate::plugin::Layout::pieces)), the
    /// slot of the block's first piece, which counts for the block; [`NONE`] for that first
    /// piece and for a whole block.
    pub lead: u32,
    /// On a block's first piece (or a whole block): its pieces not yet read.
    pub left: u32,
}

/// A free list over a vector of slots.
pub(super) struct Arena<T> {
    pub slots: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy> Arena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Arena {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Stores `x` in a free slot (or a new one); its index.
    #[inline]
    pub fn put(&mut self, x: T) -> u32 {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = x;
            i
        } else {
            self.slots.push(x);
            (self.slots.len() - 1) as u32
        }
    }

    /// Frees slot `i`.
    #[inline]
    pub fn release(&mut self, i: u32) {
        self.free.push(i);
    }

    /// Whether each slot is in use.
    pub fn live(&self) -> Vec<bool> {
        let mut live = vec![true; self.slots.len()];
        for &i in &self.free {
            live[i as usize] = false;
        }
        live
    }

    /// Slots in use.
    pub fn in_use(&self) -> u64 {
        self.slots.len() as u64 - self.free.len() as u64
    }
}

/// Both arenas.
pub(super) struct Requests {
    /// Terminal reads.
    pub reads: Arena<Req>,
    /// Disk accesses.
    pub disk: Arena<DReq>,
}

impl Requests {
    pub fn new() -> Self {
        Requests {
            reads: Arena::new(),
            disk: Arena::new(),
        }
    }

    /// Terminal read `r`.
    #[inline]
    pub fn read(&self, r: u32) -> &Req {
        &self.reads.slots[r as usize]
    }

    /// Terminal read `r`, to change.
    #[inline]
    pub fn read_mut(&mut self, r: u32) -> &mut Req {
        &mut self.reads.slots[r as usize]
    }

    /// A new terminal read for `block`, not yet at its node.
    pub fn new_read(&mut self, r: Req) -> u32 {
        debug_assert_eq!(r.next_waiter, NONE);
        self.reads.put(r)
    }
}
