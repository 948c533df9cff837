//! The events of an on-demand run: plain values (no boxing) that the engine routes to the
//! component they concern. Indices name request slots, nodes, disks, terminals and
//! messages in the components' arenas.

/// "No slot" in the arenas' linked lists.
pub(super) const NONE: u32 = u32::MAX;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Ev {
    /// Trace event `i` at its trace time.
    Trace(u32),
    /// Trace event `i`, delayed for its terminal (lag or deferral).
    Delayed(u32),
    /// Request slot reaches its node.
    ReqAtNode(u32),
    /// A node's CPU finished its current job.
    CpuDone(u32),
    /// A disk finished its current access.
    DiskDone(u32),
    /// Request slot's data reaches its terminal.
    Arrive(u32),
    /// Request slot's data is in its interface node's memory (`[server.replication]`'s
    /// prefix): it reaches its terminal with no disk access or message.
    Local(u32),
    /// Terminal wake-up (terminal, generation).
    Wake(u32, u32),
    /// A piggyback group's start delay has passed.
    GroupStart(u32),
    /// Ask the prefetcher again for this disk.
    PrefetchWake(u32),
    /// A network message's setup is over: it asks for its first link.
    NetAcquire(u32),
    /// A network message has held its whole path long enough: it releases the links.
    NetRelease(u32),
    /// An interface node's CPU finished its job.
    IfaceDone(u32),
    /// A storage node's message handler finished its message (`[server.message_work]`).
    MessageDone(u32),
    /// A playing client's next packet is due at its interface node (terminal).
    ClientPacket(u32),
    /// An admission probe (its slot) reaches its storage node, which replies.
    ProbeAtStorage(u32),
    /// An admission probe's reply reaches the interface node.
    ProbeBack(u32),
    /// The object manager's delegation of terminal's viewing reaches its interface node,
    /// which decides admission (`[server] manager_node`).
    Delegation(u32),
    /// The interface node's answer (terminal, admitted) reaches the object manager.
    Answer(u32, bool),
    /// The egress link finished sending its packet.
    EgressDone,
    /// The transmission policy's wake-up (it asked to wait until now).
    EgressWake,
    /// A round boundary of `[server.rounds]`.
    Round,
    /// Take a sample of terminal buffers.
    Sample,
    MeasureStart,
    MeasureEnd,
}
