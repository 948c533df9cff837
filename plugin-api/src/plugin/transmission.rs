use crate::ids::TerminalId;
use crate::time::SimTime;

/// A block that has landed in server memory and may now be sent to its client (Pappas et
/// al. §3.2: a D-Server puts it in the Communication Pool and notifies the Xmt-Server).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReadyBlock {
    /// The engine's handle of the block: a [`Packet`] names it to say whose bytes it sends.
    pub token: u32,
    /// The client (terminal) it goes to.
    pub client: TerminalId,
    /// Its bytes.
    pub bytes: u64,
    /// The client's stream rate (the video's bit rate), in bits per second.
    pub stream_rate_bps: u64,
    /// The largest rate the client may be sent at (its profile's `max_rate`; the stream rate
    /// when the client has no profile), in bits per second.
    pub max_rate_bps: u64,
    /// The client's packet size from its profile (`None`: the policy's own).
    pub packet_bytes: Option<u32>,
}

/// One packet a policy chose to send now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The [`ReadyBlock::token`] whose next bytes it carries.
    pub token: u32,
    /// Its bytes (more than 0, at most what is left of the block).
    pub bytes: u32,
    /// The deadline the policy gave it (reported; the engine does not enforce it).
    pub deadline: SimTime,
}

/// A policy's answer when the egress link is free.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TxPoll {
    /// Put this packet on the link now.
    Send(Packet),
    /// Nothing to send before this time (a non-work-conserving policy's next wake-up; the
    /// engine asks again then, or sooner when a block becomes ready).
    WaitUntil(SimTime),
    /// Nothing to send until another block becomes ready.
    Idle,
}

/// Transmission scheduling on the server's egress link (Pappas et al. §3.2, the
/// Xmt-Server): the order and timing of the packets that carry retrieved blocks to their
/// clients.
///
/// The engine tells the policy of each block as it becomes ready
/// ([`block_ready`](Transmission::block_ready)) and asks [`poll`](Transmission::poll)
/// whenever the egress link is free and after each block becomes ready or a wake-up time the
/// policy asked for comes. The policy cuts each block into packets, in order, from its
/// first byte: the engine keeps each block's bytes left and stops the run with an error
/// naming the policy if a packet names a block that is not ready, carries no bytes or more
/// than are left, or if a policy returns `WaitUntil` a time that is not in the future. A
/// block is sent when its last byte is; the policy forgets it then. How long a packet
/// holds the link and the server CPU is the engine's business (`[server.egress]`).
///
/// ```
/// use std::collections::VecDeque;
/// use vodbench_plugin_api::plugin::{Packet, ReadyBlock, Transmission, TxPoll};
/// use vodbench_plugin_api::time::SimTime;
///
/// /// Sends each block whole, as one packet, in the order they became ready.
/// #[derive(Default)]
/// struct Whole(VecDeque<ReadyBlock>);
/// impl Transmission for Whole {
///     fn block_ready(&mut self, b: ReadyBlock, _now: SimTime) { self.0.push_back(b) }
///     fn poll(&mut self, now: SimTime) -> TxPoll {
///         match self.0.pop_front() {
///             Some(b) => TxPoll::Send(Packet { token: b.token, bytes: b.bytes as u32, deadline: now }),
///             None => TxPoll::Idle,
///         }
///     }
/// }
///
/// let mut w = Whole::default();
/// assert_eq!(w.poll(SimTime::ZERO), TxPoll::Idle);
/// ```
pub trait Transmission: Send {
    /// `block` is in server memory and may be sent from `now` on.
    fn block_ready(&mut self, block: ReadyBlock, now: SimTime);
    /// The egress link is free at `now`: what to send next.
    fn poll(&mut self, now: SimTime) -> TxPoll;
}
