use crate::ids::{LinkId, NodeId, TerminalId};
use crate::time::SimDuration;

/// One end of a message: a server node or a terminal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// A server node.
    Node(NodeId),
    /// A terminal (client). Numbers at or past the scenario's terminal count are streams the
    /// server runs on behalf of several terminals (SPIFFI §8.2's piggybacked groups).
    Terminal(TerminalId),
}

/// The timing of one message on its path.
///
/// The message waits `setup`, then acquires the links of its path one after the other, each
/// first come first served, holding those it has while it waits for the next; once it holds
/// them all it keeps them for `hold`, releases them together and is delivered `delivery`
/// later. With an empty path it is delivered `setup + hold + delivery` after it was sent.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Transfer {
    /// Before the message asks for its first link (a sender's software cost paid off the
    /// links).
    pub setup: SimDuration,
    /// How long it holds its whole path: its bytes at the path's bandwidth, and whatever the
    /// links charge per message.
    pub hold: SimDuration,
    /// From releasing the path to delivery (propagation, a receiver's cost off the links).
    pub delivery: SimDuration,
}

impl Transfer {
    /// The whole time of the message when it never waits for a link.
    pub fn unloaded(&self) -> SimDuration {
        self.setup + self.hold + self.delivery
    }
}

/// The network between terminals and server nodes, and between nodes (SPIFFI §6.2's bus;
/// Jadav's mesh; Pappas's egress link).
///
/// The engine owns the links' queues and the clocks: for each message it asks
/// [`route`](Interconnect::route) which links the message holds, in the order it acquires
/// them, and for how long ([`Transfer`]); it then queues the message at each link first come
/// first served, records every link's busy time and every message's wait, and delivers it.
/// A path must not name a link twice or a link past [`links`](Interconnect::links) (the
/// engine stops the run with an error naming the interconnect), and paths must acquire links
/// in an order consistent with one global order of the links (a node's send port before any
/// receive port; dimension order on a mesh) or messages can deadlock.
///
/// ```
/// use vodbench_plugin_api::ids::{LinkId, NodeId};
/// use vodbench_plugin_api::plugin::{Endpoint, Interconnect, Transfer};
/// use vodbench_plugin_api::time::SimDuration;
///
/// /// One shared bus at 1 byte per nanosecond that every message holds.
/// struct Bus;
/// impl Interconnect for Bus {
///     fn links(&self) -> Vec<String> { vec!["bus".into()] }
///     fn route(&mut self, _from: Endpoint, _to: Endpoint, bytes: u64, path: &mut Vec<LinkId>) -> Transfer {
///         path.push(LinkId(0));
///         Transfer { hold: SimDuration::from_nanos(bytes), ..Transfer::default() }
///     }
/// }
/// let mut path = Vec::new();
/// let t = Bus.route(Endpoint::Node(NodeId(0)), Endpoint::Node(NodeId(1)), 1000, &mut path);
/// assert_eq!((path, t.unloaded()), (vec![LinkId(0)], SimDuration::from_micros(1)));
/// ```
pub trait Interconnect: Send {
    /// The links, by name (`node 3 send`), numbered by their position ([`LinkId`]). Asked
    /// once, when the run is built; an interconnect without contention has none.
    fn links(&self) -> Vec<String>;
    /// The links a message of `bytes` from `from` to `to` holds, appended to `path` (empty
    /// when called) in the order it acquires them, and its timing.
    fn route(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        path: &mut Vec<LinkId>,
    ) -> Transfer;
}
