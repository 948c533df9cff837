use crate::ids::{TerminalId, VideoId};
use crate::time::SimTime;

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

/// Admission control: accept or refuse a new stream (Jadav §5, eq. 4–5; Pappas §3.3).
///
/// The engine asks [`admit`](Admission::admit) once per request, before anything of the
/// stream is read, and counts active streams itself: an admitted stream is active until it
/// ends (its video ends or its viewer stops), when the engine calls
/// [`ended`](Admission::ended). A refused viewer gets nothing: the engine drops the rest of
/// that viewing's events (its pauses, seeks and stop) and the terminal waits for its next
/// `start`. A policy only decides; what it needs to remember between calls (recent fetch
/// times, reserved buffer) it keeps itself.
///
/// ```
/// use vodbench_plugin_api::plugin::{Admission, ServerLoad, StreamRequest, Verdict};
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
/// ```
pub trait Admission: Send {
    /// Whether to serve the stream `request` asks for, given the current `load`.
    fn admit(&mut self, request: &StreamRequest, load: &ServerLoad) -> Verdict;
    /// A stream this policy admitted for `terminal` ended.
    fn ended(&mut self, _terminal: TerminalId, _now: SimTime) {}
}
