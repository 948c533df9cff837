//! Policies that misbehave at the plugin boundary, for `tests/plugin_abi.rs`: each must end a
//! run with an error naming the library, the policy and what went wrong — never undefined
//! behaviour, never a result.
//!
//! * `panicky` (disk scheduler): serves first come, first served, and panics in `dequeue`
//!   once it has served `after` requests;
//! * `liar` (disk scheduler): answers `dequeue` with a request it was never given;
//! * `hoarder` (buffer pool): evicts a page the engine never released to it;
//! * `strict` (disk scheduler): first come, first served, with a parameter `depth` (1-64)
//!   that its own check refuses out of range;
//! * `wanderer` (prefetcher): asked to read ahead, names a block of a video past the
//!   library's last;
//! * `stray` (disk model): places every byte on a cylinder past its own geometry.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use vodbench_plugin_api::ids::{BlockId, DiskId, PageId, RequestId, VideoId};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::{SimDuration, SimTime};

/// First come, first served; panics in `dequeue` after `after` requests.
pub struct Panicky {
    queue: VecDeque<RequestId>,
    served: u64,
    after: u64,
}

/// `panicky`'s parameters.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PanickyParams {
    /// Requests served before it panics.
    pub after: u64,
}

impl Default for PanickyParams {
    fn default() -> Self {
        PanickyParams { after: 10 }
    }
}

impl DiskScheduler for Panicky {
    fn enqueue(&mut self, r: QueuedRequest) {
        self.queue.push_back(r.id);
    }
    fn dequeue(&mut self, _head: &HeadState) -> Option<RequestId> {
        if self.served >= self.after {
            panic!("boom after {} requests", self.served);
        }
        self.served += 1;
        self.queue.pop_front()
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
}

impl Plugin for Panicky {
    type Kind = dyn DiskScheduler;
    type Params = PanickyParams;
    const NAME: &'static str = "panicky";
    const DESCRIPTION: &'static str = "FCFS that panics in dequeue (test)";
    fn build(
        p: &PanickyParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::new(Panicky {
            queue: VecDeque::new(),
            served: 0,
            after: p.after,
        }))
    }
}

/// No parameters.
#[derive(Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NoParams {}

/// Answers `dequeue` with a request it was never given.
#[derive(Default)]
pub struct Liar {
    held: usize,
}

impl DiskScheduler for Liar {
    fn enqueue(&mut self, _r: QueuedRequest) {
        self.held += 1;
    }
    fn dequeue(&mut self, _head: &HeadState) -> Option<RequestId> {
        (self.held > 0).then(|| {
            self.held -= 1;
            RequestId(u32::MAX - 7)
        })
    }
    fn len(&self) -> usize {
        self.held
    }
}

impl Plugin for Liar {
    type Kind = dyn DiskScheduler;
    type Params = NoParams;
    const NAME: &'static str = "liar";
    const DESCRIPTION: &'static str = "dequeues a request it was never given (test)";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::<Liar>::default())
    }
}

/// Evicts the highest page of the pool, whether or not it was released.
pub struct Hoarder {
    pages: u32,
}

impl BufferPool for Hoarder {
    fn release(&mut self, _page: PageId, _referenced: bool) {}
    fn acquire(&mut self, _page: PageId) {}
    fn evict(&mut self) -> Option<PageId> {
        Some(PageId(self.pages.saturating_sub(1)))
    }
}

impl Plugin for Hoarder {
    type Kind = dyn BufferPool;
    type Params = NoParams;
    const NAME: &'static str = "hoarder";
    const DESCRIPTION: &'static str = "evicts a page it was never given (test)";
    fn build(_: &NoParams, ctx: &BuildContext<'_>) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(Hoarder { pages: ctx.pages }))
    }
}

/// First come, first served, with a checked parameter.
#[derive(Default)]
pub struct Strict(VecDeque<RequestId>);

/// `strict`'s parameters.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StrictParams {
    /// Queue depth, 1 to 64.
    pub depth: u32,
}

impl Default for StrictParams {
    fn default() -> Self {
        StrictParams { depth: 8 }
    }
}

impl DiskScheduler for Strict {
    fn enqueue(&mut self, r: QueuedRequest) {
        self.0.push_back(r.id);
    }
    fn dequeue(&mut self, _head: &HeadState) -> Option<RequestId> {
        self.0.pop_front()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

impl Plugin for Strict {
    type Kind = dyn DiskScheduler;
    type Params = StrictParams;
    const NAME: &'static str = "strict";
    const DESCRIPTION: &'static str = "FCFS with a checked parameter (test)";
    fn validate(p: &StrictParams) -> Result<(), PluginError> {
        if !(1..=64).contains(&p.depth) {
            return Err(PluginError::param(
                "depth",
                format!("{} is not in 1..=64", p.depth),
            ));
        }
        Ok(())
    }
    fn build(
        _: &StrictParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn DiskScheduler>, PluginError> {
        Ok(Box::<Strict>::default())
    }
}

/// Reads ahead a block of a video the library does not have.
#[derive(Default)]
pub struct Wanderer {
    /// The last reference's terminal, while its candidate is not yet given.
    pending: Option<Reference>,
}

impl Prefetcher for Wanderer {
    fn on_reference(&mut self, r: &Reference, _layout: &dyn Layout) -> Option<DiskId> {
        self.pending = Some(*r);
        Some(r.disk)
    }
    fn poll(&mut self, _disk: DiskId, _in_flight: u32, _now: SimTime) -> PrefetchPoll {
        match self.pending.take() {
            Some(r) => PrefetchPoll::Issue(PrefetchCandidate {
                block: BlockId {
                    video: VideoId(1_000_000),
                    index: r.block.index,
                },
                terminal: r.terminal,
                deadline: None,
            }),
            None => PrefetchPoll::Idle,
        }
    }
}

impl Plugin for Wanderer {
    type Kind = dyn Prefetcher;
    type Params = NoParams;
    const NAME: &'static str = "wanderer";
    const DESCRIPTION: &'static str = "reads ahead a video the library does not have (test)";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn Prefetcher>, PluginError> {
        Ok(Box::<Wanderer>::default())
    }
}

/// A disk model that reports the geometry and the cylinder it is given, whatever they are,
/// and takes a nanosecond per byte.
struct Reported {
    geometry: DiskGeometry,
    cylinder: u32,
}

impl DiskModel for Reported {
    fn geometry(&self) -> DiskGeometry {
        self.geometry
    }
    fn cylinder_of(&self, _offset: u64) -> u32 {
        self.cylinder
    }
    fn head_cylinder(&self) -> u32 {
        0
    }
    fn service(&mut self, a: &DiskAccess, _now: SimTime) -> ServiceTime {
        ServiceTime {
            transfer: SimDuration::from_nanos(a.bytes),
            ..ServiceTime::default()
        }
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        SimDuration::from_nanos(a.bytes)
    }
}

/// A disk of 100 cylinders that places every byte on cylinder 105.
pub struct Stray;

impl Plugin for Stray {
    type Kind = dyn DiskModel;
    type Params = NoParams;
    const NAME: &'static str = "stray";
    const DESCRIPTION: &'static str = "places bytes past its own cylinders (test)";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskModel>, PluginError> {
        let geometry = DiskGeometry {
            capacity_bytes: 8 << 30,
            cylinders: 100,
        };
        Ok(Box::new(Reported {
            geometry,
            cylinder: 105,
        }))
    }
}

/// A disk with no cylinder and no byte.
pub struct Flat;

impl Plugin for Flat {
    type Kind = dyn DiskModel;
    type Params = NoParams;
    const NAME: &'static str = "flat";
    const DESCRIPTION: &'static str = "a disk of no cylinder and no byte (test)";
    fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskModel>, PluginError> {
        let geometry = DiskGeometry {
            capacity_bytes: 0,
            cylinders: 0,
        };
        Ok(Box::new(Reported {
            geometry,
            cylinder: 0,
        }))
    }
}

vodbench_plugin_api::export_plugins!(Panicky, Liar, Hoarder, Strict, Wanderer, Stray, Flat);
