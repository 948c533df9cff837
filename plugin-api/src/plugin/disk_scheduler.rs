use crate::ids::{RequestId, TerminalId};
use crate::time::SimTime;
use serde::Serialize;

/// Why a disk request exists.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum RequestClass {
    /// A terminal is waiting for this block.
    Demand,
    /// Read ahead by the prefetcher; nobody is waiting yet.
    Prefetch,
}

/// What a scheduler knows about one queued request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct QueuedRequest {
    /// The handle to return from [`DiskScheduler::dequeue`].
    pub id: RequestId,
    /// Cylinder of the first byte.
    pub cylinder: u32,
    /// First byte address on the disk.
    pub offset: u64,
    /// Length in bytes.
    pub bytes: u64,
    /// The terminal the request is for (prefetches carry the terminal that triggered them).
    pub terminal: Option<TerminalId>,
    /// Demand or prefetch.
    pub class: RequestClass,
    /// When the data must reach the terminal to avoid a glitch, if known.
    pub deadline: Option<SimTime>,
    /// When the request entered the queue.
    pub arrival: SimTime,
}

/// The disk's state when the scheduler is asked to choose.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HeadState {
    /// Current simulated time.
    pub now: SimTime,
    /// Cylinder the head is on.
    pub cylinder: u32,
    /// Number of cylinders of the disk.
    pub cylinders: u32,
}

/// Chooses which queued request a disk serves next.
///
/// Contract: the engine calls [`enqueue`](DiskScheduler::enqueue) once per request and
/// [`dequeue`](DiskScheduler::dequeue) whenever the disk is idle. `dequeue` must return the id
/// of a request that was enqueued and not yet returned, or `None` only when it holds none.
/// [`len`](DiskScheduler::len) is the number of requests held. The engine checks all three and
/// stops the run with an error naming the scheduler if they are broken.
///
/// ```
/// use std::collections::VecDeque;
/// use vodbench_plugin_api::ids::RequestId;
/// use vodbench_plugin_api::plugin::{DiskScheduler, HeadState, QueuedRequest};
///
/// /// Last in, first out: a deliberately unfair example.
/// #[derive(Default)]
/// struct Lifo(Vec<RequestId>);
/// impl DiskScheduler for Lifo {
///     fn enqueue(&mut self, r: QueuedRequest) { self.0.push(r.id) }
///     fn dequeue(&mut self, _head: &HeadState) -> Option<RequestId> { self.0.pop() }
///     fn len(&self) -> usize { self.0.len() }
/// }
/// ```
pub trait DiskScheduler: Send {
    /// Adds a request to the queue.
    fn enqueue(&mut self, request: QueuedRequest);
    /// Removes and returns the request to serve next.
    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId>;
    /// Number of requests held.
    fn len(&self) -> usize;
    /// Whether no request is held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
