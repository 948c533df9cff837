use crate::ids::{NodeId, TerminalId, VideoId};
use crate::time::{SimDuration, SimTime};

/// A viewer's request to start a stream: a `start` of the workload (SPIFFI §5.1), a new
/// stream at an interface node (Jadav §3), a client inserted (Pappas §4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StreamRequest {
    /// The terminal asking.
    pub terminal: TerminalId,
    /// The video it asks for.
    pub video: VideoId,
    /// The video's mean bit rate, in bits per second.
    pub bit_rate: u64,
    /// The buffer the stream takes while it is served (the terminal's buffer memory: Jadav's
    /// per-stream B_I), in bytes.
    pub buffer_bytes: u64,
    /// The interface node that would serve it (Jadav's I node: terminal t mod the interface
    /// nodes), if the server has interface nodes.
    pub interface: Option<u32>,
    /// Now.
    pub now: SimTime,
}

/// What the server serves when a request arrives, as the engine counts it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ServerLoad {
    /// Streams admitted and not yet ended (the request's own terminal's earlier stream has
    /// ended before it asks).
    pub active_streams: u32,
    /// Every terminal of the scenario.
    pub terminals: u32,
    /// The memory of each interface node for its streams' buffers (`[server]
    /// interface_memory`: Jadav et al.'s B_I_tot, eq. 4), in bytes; 0 when the scenario
    /// declares none.
    pub interface_memory: u64,
}

/// An admission policy's answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Serve the stream.
    Admit,
    /// Turn it away; `reason` names the limit it would break (counted per reason in
    /// `summary.json`'s `admission.refused_by_reason`).
    Refuse {
        /// A short name of the limit (`stream limit`, `buffer space`).
        reason: &'static str,
    },
}

impl Verdict {
    /// `reason` as the `&'static str` a [`Verdict::Refuse`] carries, for a reason known only
    /// at run time (a loaded or Python policy's string): each distinct reason is stored once
    /// for the life of the process, so a policy refusing millions of streams costs one copy
    /// per reason.
    ///
    /// ```
    /// use vodbench_plugin_api::plugin::Verdict;
    /// let a = Verdict::intern_reason(&String::from("disk bandwidth"));
    /// let b = Verdict::intern_reason("disk bandwidth");
    /// assert_eq!(a, "disk bandwidth");
    /// assert!(std::ptr::eq(a, b));
    /// ```
    pub fn intern_reason(reason: &str) -> &'static str {
        crate::intern::intern(reason)
    }
}

/// Where a requested stream's data lives and how long one service round lasts, told to a
/// policy that [observes](Admission::observes) before it decides (Jadav et al. §7.2, Fig. 12:
/// the S nodes on which the new stream's data is striped).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Placement<'a> {
    /// The storage nodes holding the video's fragments, in increasing order, each once.
    pub holders: &'a [NodeId],
    /// δ_S, the time the data fetched in one service round lasts at the interface node:
    /// the playout time of one fragment set (`[terminals.rounds] blocks` fragments), or of
    /// the stream's whole buffer when the server does not serve in rounds.
    pub round: SimDuration,
    /// P_S, one fragment's bytes (the size of a probe's dummy reply).
    pub fragment_bytes: u64,
}

impl<'a> Placement<'a> {
    /// A placement (for tests of policies and for other engines).
    pub fn new(holders: &'a [NodeId], round: SimDuration, fragment_bytes: u64) -> Self {
        Placement {
            holders,
            round,
            fragment_bytes,
        }
    }
}

/// One fragment fetched for a stream, as its interface node measured it (fed to a policy
/// that [observes](Admission::observes)).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fetch {
    /// The interface node that asked (`None` without interface nodes).
    pub interface: Option<u32>,
    /// The storage node that served it.
    pub storage: NodeId,
    /// From sending the request to the data's arrival at the interface node: the round trip
    /// the I node measures (Jadav's R_tot).
    pub round_trip: SimDuration,
    /// The storage node's part: its disk access's wait in the queue and service (S_Q + D_S +
    /// D_R + D_T), when the fetch had a disk access of its own (`None` when it was served
    /// from the node's memory or by a read already in progress).
    pub at_storage: Option<SimDuration>,
    /// When the data arrived.
    pub now: SimTime,
}

impl Fetch {
    /// A fetch (for tests of policies and for other engines).
    pub fn new(
        interface: Option<u32>,
        storage: NodeId,
        round_trip: SimDuration,
        at_storage: Option<SimDuration>,
        now: SimTime,
    ) -> Self {
        Fetch {
            interface,
            storage,
            round_trip,
            at_storage,
            now,
        }
    }
}

/// Admission control: accept or refuse a new stream (Jadav §5, eq. 4–5; Pappas §3.3).
///
/// The engine asks [`admit`](Admission::admit) once per request, before anything of the
/// stream is read, and counts active streams itself: an admitted stream is active until it
/// ends (its video ends or its viewer stops), when the engine calls
/// [`ended`](Admission::ended) (at once when the engine refuses a stream the policy admitted
/// because its interface node's memory, `[server] interface_memory`, cannot hold its buffer).
/// A refused viewer gets nothing: the engine drops the rest of
/// that viewing's events (its pauses, seeks and stop) and the terminal waits for its next
/// `start`. A policy only decides; what it needs to remember between calls (recent fetch
/// times, reserved buffer) it keeps itself.
///
/// A policy that decides on measured retrieval times (Jadav's eq. 5) says so with
/// [`observes`](Admission::observes). The engine then
///
/// * tells it of every fragment fetched, as its interface node measured it
///   ([`fetched`](Admission::fetched));
/// * before [`admit`](Admission::admit), tells it where the video lives
///   ([`probe`](Admission::probe)), and the policy names the storage nodes it must probe;
/// * sends each named node a probe — a request message from the stream's interface node and
///   a reply of one fragment's bytes back, both real messages on the interconnect, counted in
///   the network summary — and reports each round trip ([`probed`](Admission::probed));
/// * once every reply is back (at once when none was named), calls
///   [`admit`](Admission::admit), with the time then in the request.
///
/// The stream's later workload events wait behind the decision. The defaults observe
/// nothing, so a policy that only implements [`admit`](Admission::admit) is asked exactly as
/// before.
///
/// ```
/// use vodbench_plugin_api::ids::NodeId;
/// use vodbench_plugin_api::plugin::{
///     Admission, Fetch, Placement, ServerLoad, StreamRequest, Verdict,
/// };
/// use vodbench_plugin_api::time::SimDuration;
///
/// /// Admits every other request.
/// #[derive(Default)]
/// struct EveryOther(bool);
/// impl Admission for EveryOther {
///     fn admit(&mut self, _r: &StreamRequest, _load: &ServerLoad) -> Verdict {
///         self.0 = !self.0;
///         if self.0 { Verdict::Admit } else { Verdict::Refuse { reason: "odd one out" } }
///     }
/// }
///
/// /// Refuses while the last fetch took longer than half a round; probes every holder
/// /// before the first fetch.
/// #[derive(Default)]
/// struct LastFetch { last: Option<SimDuration>, round: SimDuration }
/// impl Admission for LastFetch {
///     fn admit(&mut self, _r: &StreamRequest, _load: &ServerLoad) -> Verdict {
///         match self.last {
///             Some(t) if t.as_nanos() * 2 >= self.round.as_nanos() => Verdict::Refuse { reason: "slow" },
///             _ => Verdict::Admit,
///         }
///     }
///     fn observes(&self) -> bool {
///         true
///     }
///     fn probe(&mut self, _r: &StreamRequest, at: &Placement<'_>, probe: &mut Vec<NodeId>) {
///         self.round = at.round;
///         if self.last.is_none() {
///             probe.extend_from_slice(at.holders);
///         }
///     }
///     fn probed(&mut self, _r: &StreamRequest, _node: NodeId, round_trip: SimDuration) {
///         self.last = self.last.max(Some(round_trip));
///     }
///     fn fetched(&mut self, f: &Fetch) {
///         self.last = Some(f.round_trip);
///     }
/// }
/// ```
pub trait Admission: Send {
    /// Whether to serve the stream `request` asks for, given the current `load`.
    fn admit(&mut self, request: &StreamRequest, load: &ServerLoad) -> Verdict;
    /// A stream this policy admitted for `terminal` ended.
    fn ended(&mut self, _terminal: TerminalId, _now: SimTime) {}
    /// Whether the policy observes fetches and probes storage nodes (the methods below);
    /// `false` by default, and then the engine never calls them.
    fn observes(&self) -> bool {
        false
    }
    /// Before deciding on `request`: the video is held by `placement.holders`; push onto
    /// `probe` the nodes to probe first (each at most once; none by default).
    fn probe(
        &mut self,
        _request: &StreamRequest,
        _placement: &Placement<'_>,
        _probe: &mut Vec<NodeId>,
    ) {
    }
    /// The probe of `node` for `request` came back after `round_trip` (the dummy request
    /// there and the fragment-sized dummy reply back, with their waits for links).
    fn probed(&mut self, _request: &StreamRequest, _node: NodeId, _round_trip: SimDuration) {}
    /// A fragment was fetched for a stream.
    fn fetched(&mut self, _fetch: &Fetch) {}
}
