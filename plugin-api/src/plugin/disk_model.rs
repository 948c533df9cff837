use crate::time::{SimDuration, SimTime};
use serde::Serialize;

/// The fixed shape of a disk that schedulers and layouts may rely on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiskGeometry {
    /// Usable capacity in bytes.
    pub capacity_bytes: u64,
    /// Number of cylinders (positions the head seeks between).
    pub cylinders: u32,
}

/// One access to a disk: a contiguous byte range.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DiskAccess {
    /// First byte address on the disk.
    pub offset: u64,
    /// Length in bytes (> 0).
    pub bytes: u64,
    /// `true` for a write.
    pub write: bool,
}

/// How long one access took, by part. The parts add up to the service time.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ServiceTime {
    /// Controller and bus overhead.
    pub overhead: SimDuration,
    /// Head movement, including settle and head switches.
    pub seek: SimDuration,
    /// Waiting for the first sector to rotate under the head.
    pub rotation: SimDuration,
    /// Media (and bus) transfer of the data.
    pub transfer: SimDuration,
    /// Whether the on-board cache served the access.
    pub cache_hit: bool,
}

impl ServiceTime {
    /// Total service time: the sum of the parts.
    pub fn total(&self) -> SimDuration {
        self.overhead + self.seek + self.rotation + self.transfer
    }
}

/// The timing model of one disk.
///
/// The engine creates one instance per simulated disk, serves one access at a time, and calls
/// [`service`](DiskModel::service) at the instant the access starts. The model updates its own
/// mechanical state (head cylinder, rotational phase, cache) and returns the time the access
/// takes, by part. Models must be deterministic given their construction-time random stream.
///
/// ```
/// use vodbench_plugin_api::plugin::{DiskAccess, DiskGeometry, DiskModel, ServiceTime};
/// use vodbench_plugin_api::time::{SimDuration, SimTime};
///
/// /// Every access costs 1 ms plus 1 ns per byte; no seeks.
/// struct Flat;
/// impl DiskModel for Flat {
///     fn geometry(&self) -> DiskGeometry {
///         DiskGeometry { capacity_bytes: 1 << 30, cylinders: 1 }
///     }
///     fn cylinder_of(&self, _offset: u64) -> u32 { 0 }
///     fn head_cylinder(&self) -> u32 { 0 }
///     fn service(&mut self, a: &DiskAccess, _now: SimTime) -> ServiceTime {
///         ServiceTime {
///             overhead: SimDuration::from_millis(1),
///             transfer: SimDuration::from_nanos(a.bytes),
///             ..ServiceTime::default()
///         }
///     }
///     fn service_bound(&self, a: &DiskAccess) -> SimDuration {
///         SimDuration::from_millis(1) + SimDuration::from_nanos(a.bytes)
///     }
/// }
/// let mut d = Flat;
/// let t = d.service(&DiskAccess { offset: 0, bytes: 1000, write: false }, SimTime::ZERO);
/// assert_eq!(t.total(), SimDuration::from_nanos(1_001_000));
/// ```
pub trait DiskModel: Send {
    /// Capacity and cylinder count.
    fn geometry(&self) -> DiskGeometry;
    /// The cylinder holding byte `offset` (used by seek-aware schedulers).
    fn cylinder_of(&self, offset: u64) -> u32;
    /// The cylinder the head is on now.
    fn head_cylinder(&self) -> u32;
    /// Serves `access` starting at `now`; returns its duration by part and updates the state.
    fn service(&mut self, access: &DiskAccess, now: SimTime) -> ServiceTime;
    /// An upper bound on `service(access, t).total()` for any start time `t` and any state
    /// the disk can be in, without changing the state. Planners use it to issue I/O early
    /// enough (a broadcast receiver reads frames back so they arrive before their playout).
    /// It must never be below the real service time; the tighter, the less memory planners
    /// tie up. A broadcast receiver checks every access against it and stops the run,
    /// naming the model, when one takes longer.
    fn service_bound(&self, access: &DiskAccess) -> SimDuration;
    /// Whether the `transfer` [`service`](DiskModel::service) reports includes the data's
    /// trip over the drive's own interface to the host (as DiskSim's buses and controllers
    /// do), not only the media. Behind a `[server.bus]` with `buffered = true`, which adds a
    /// burst at the bus rate after the model's transfer, such a model would count the bus
    /// twice, so that combination is refused. Default `false`: the media only.
    fn transfer_includes_bus(&self) -> bool {
        false
    }
}
