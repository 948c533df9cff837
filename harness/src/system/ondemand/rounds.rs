//! Server-push retrieval in rounds (Pappas et al. §3.1, §4; `[server.rounds]`): the round
//! clock and the release policy of the blocks read.
//!
//! How it maps onto the on-demand engine (the least new machinery):
//!
//! * **Requests.** At every round boundary (multiples of `length` from time 0) every
//!   terminal that is priming, playing or stalled and has blocks left (a paused or
//!   searching one gets nothing) asks for its next block, all in the same
//!   instant, so they reach the disks' queues together and the disk scheduler orders the
//!   round (`gss` with `groups = 1` serves each stream once per pass in SCAN order). A
//!   terminal asks for nothing between boundaries: the round clock, not its buffer's room,
//!   drives its requests (a terminal that starts mid-round waits for the next boundary).
//!   Its buffer (`terminals.memory`) is the client's and does not throttle the server.
//! * **Release.** A block read goes to the transmission policy (`[transmission]`) at once
//!   under `clbuf` and `clbufrate`; under `dblbuf` it is held until the next round boundary
//!   after its issue (read in round k, sent from round k+1). A block whose read ends after
//!   that boundary is late (counted, `stream_memory.late_blocks`) and is released at once.
//! * **Pace.** Under `clbufrate` the block is handed to the policy with the client's
//!   `max_rate` as its stream rate, so any policy that paces (e.g. `edf`, `rate-edf`) sends
//!   it at the client's maximum rate; under `dblbuf` and `clbuf` at the videos' bit rate.
//!
//! Memory is accounted in [`StreamMemory`](super::stream_memory::StreamMemory).

use super::scenario::Release;
use crate::plugin::ReadyBlock;
use crate::time::SimTime;

/// The round clock and the blocks held for the next round.
pub(super) struct Rounds {
    /// The round length in nanoseconds.
    pub length: u64,
    pub release: Release,
    /// `dblbuf`: blocks read and waiting for the next boundary.
    held: Vec<ReadyBlock>,
}

impl Rounds {
    pub fn new(length: u64, release: Release) -> Self {
        Rounds {
            length,
            release,
            held: Vec::new(),
        }
    }

    /// The boundary after the round in which `t` falls.
    pub fn next_boundary(&self, t: SimTime) -> SimTime {
        SimTime::from_nanos((t.as_nanos() / self.length + 1) * self.length)
    }

    /// A block issued at `issued` was read at `now`: whether it is late (read after the
    /// boundary that ends its round).
    pub fn late(&self, issued: SimTime, now: SimTime) -> bool {
        now > self.next_boundary(issued)
    }

    /// A block issued at `issued` is read at `now`: the block to hand to the transmission
    /// policy now, or `None` when it is held until the next boundary.
    pub fn read(&mut self, b: ReadyBlock, issued: SimTime, now: SimTime) -> Option<ReadyBlock> {
        let mut b = b;
        match self.release {
            Release::Dblbuf if now < self.next_boundary(issued) => {
                self.held.push(b);
                None
            }
            Release::Dblbuf | Release::Clbuf => Some(b),
            Release::Clbufrate => {
                b.stream_rate_bps = b.max_rate_bps;
                Some(b)
            }
        }
    }

    /// A round boundary: the blocks held for it, in the order they were read.
    pub fn boundary(&mut self) -> Vec<ReadyBlock> {
        std::mem::take(&mut self.held)
    }
}

/// Round-based retrieval and the server's stream memory, when the scenario has
/// `[server.rounds]`: reads wait for buffers under `[server] stream_memory` where buffers are
/// taken as blocks are read (clbuf, clbufrate).
pub(super) fn build(
    scenario: &super::scenario::Scenario,
) -> Option<(Rounds, super::stream_memory::StreamMemory)> {
    let f = &scenario.file;
    let s = &f.server;
    s.rounds.as_ref().map(|r| {
        (
            Rounds::new(r.length.nanos(s.stripe, f.videos.bit_rate.0), r.release),
            super::stream_memory::StreamMemory::capped(match r.release {
                Release::Dblbuf => None,
                Release::Clbuf | Release::Clbufrate => s.stream_memory.map(|c| c.0),
            }),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TerminalId;

    fn block(token: u32) -> ReadyBlock {
        ReadyBlock {
            token,
            client: TerminalId(token),
            bytes: 100,
            stream_rate_bps: 1_000,
            max_rate_bps: 9_000,
            packet_bytes: None,
        }
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_nanos(x * 1_000_000)
    }

    #[test]
    fn dblbuf_holds_until_the_next_boundary_and_late_blocks_go_at_once() {
        let mut r = Rounds::new(1_000_000_000, Release::Dblbuf);
        assert_eq!(r.next_boundary(ms(0)), ms(1000));
        assert_eq!(r.next_boundary(ms(1000)), ms(2000));
        assert_eq!(r.read(block(1), ms(1000), ms(1400)), None);
        assert_eq!(r.read(block(2), ms(1000), ms(1999)), None);
        // read after its round ended: late, sent at once
        assert!(r.late(ms(1000), ms(2001)));
        assert!(!r.late(ms(1000), ms(2000)));
        assert_eq!(r.read(block(3), ms(1000), ms(2001)), Some(block(3)));
        let out: Vec<u32> = r.boundary().iter().map(|b| b.token).collect();
        assert_eq!(out, vec![1, 2]);
        assert!(r.boundary().is_empty());
    }

    #[test]
    fn clbuf_sends_at_once_and_clbufrate_at_the_maximum_rate() {
        let mut r = Rounds::new(1_000_000_000, Release::Clbuf);
        assert_eq!(r.read(block(1), ms(0), ms(10)), Some(block(1)));
        let mut r = Rounds::new(1_000_000_000, Release::Clbufrate);
        let b = r.read(block(1), ms(0), ms(10)).unwrap();
        assert_eq!((b.stream_rate_bps, b.max_rate_bps), (9_000, 9_000));
    }
}
