//! Loaded policies as the engine sees them: one adapter per kind implementing the kind's
//! Rust trait over the library's function table.
//!
//! An adapter only translates: plain `#[repr(C)]` data in, plain data out. What a policy
//! answers is then checked by the engine as any built-in's answer is (a request that was
//! never queued, a page that is not evictable, a path naming a link twice). What cannot even
//! be translated — `VB_ERROR`, a poll tag outside the three, a refusal reason that is not
//! UTF-8 — abandons the run with a [`PluginFailure`] naming the library, the policy and the
//! call.

use super::failure::{abandon, PluginFailure};
use super::{string_sink, Policy};
use std::collections::BTreeMap;
use std::ffi::{c_void, CStr, CString};
use std::sync::{Arc, Mutex, OnceLock};
use vodbench_plugin_api::abi::types::*;
use vodbench_plugin_api::ids::{
    BlockId, DiskId, LinkId, NodeId, PageId, RequestId, TerminalId, VideoId,
};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::{SimDuration, SimTime};

/// One instance of a loaded policy: its state, destroyed with the adapter.
pub(crate) struct Instance {
    policy: Arc<Policy>,
    state: *mut c_void,
}

// SAFETY: an instance is used as its Rust trait allows (see `Policy`).
unsafe impl Send for Instance {}
unsafe impl Sync for Instance {}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the state came from this policy's `create` and is destroyed once.
        unsafe { (self.policy.destroy)(self.state) }
    }
}

impl Instance {
    fn vt<T>(&self) -> &T {
        // SAFETY: `check_vtable` checked the table of this kind when the library was loaded.
        unsafe { &*self.policy.vtable.cast::<T>() }
    }

    fn fail(&self, call: &'static str, message: String) -> ! {
        abandon(PluginFailure {
            library: self.policy.library().to_string(),
            policy: self.policy.label.clone(),
            call,
            message,
        })
    }

    /// Checks a call's status: `VB_ERROR` (or any other) abandons the run.
    fn ok(&self, call: &'static str, status: i32) {
        if status != VB_OK {
            self.fail(call, self.policy.last_error(self.state));
        }
    }
}

/// A required entry of a function table, checked present at load time.
fn req<F: Copy>(f: Option<F>) -> F {
    f.expect("checked when the library was loaded")
}

/// Checks that the function table of a policy of `kind` has every required call.
pub(super) fn check_vtable(kind: Kind, vtable: *const c_void) -> Result<(), String> {
    let missing = |names: &[(&'static str, bool)]| {
        names
            .iter()
            .find(|(_, present)| !present)
            .map_or(Ok(()), |(n, _)| {
                Err(format!(
                    "its function table's `{n}` is NULL (a required call)"
                ))
            })
    };
    // SAFETY: the library says the table is of this kind; only present-ness is read.
    unsafe {
        match kind {
            Kind::DiskModel => {
                let v = &*vtable.cast::<VbDiskModelVtable>();
                missing(&[
                    ("geometry", v.geometry.is_some()),
                    ("cylinder_of", v.cylinder_of.is_some()),
                    ("head_cylinder", v.head_cylinder.is_some()),
                    ("service", v.service.is_some()),
                    ("service_bound", v.service_bound.is_some()),
                ])
            }
            Kind::DiskScheduler => {
                let v = &*vtable.cast::<VbDiskSchedulerVtable>();
                missing(&[
                    ("enqueue", v.enqueue.is_some()),
                    ("dequeue", v.dequeue.is_some()),
                    ("len", v.len.is_some()),
                ])
            }
            Kind::BufferPool => {
                let v = &*vtable.cast::<VbBufferPoolVtable>();
                missing(&[
                    ("release", v.release.is_some()),
                    ("acquire", v.acquire.is_some()),
                    ("evict", v.evict.is_some()),
                ])
            }
            Kind::Prefetcher => {
                let v = &*vtable.cast::<VbPrefetcherVtable>();
                missing(&[
                    ("on_reference", v.on_reference.is_some()),
                    ("poll", v.poll.is_some()),
                ])
            }
            Kind::Layout => {
                let v = &*vtable.cast::<VbLayoutVtable>();
                missing(&[
                    ("locate", v.locate.is_some()),
                    ("next_on_same_disk", v.next_on_same_disk.is_some()),
                ])
            }
            Kind::Interconnect => {
                let v = &*vtable.cast::<VbInterconnectVtable>();
                missing(&[("links", v.links.is_some()), ("route", v.route.is_some())])
            }
            Kind::Admission => {
                let v = &*vtable.cast::<VbAdmissionVtable>();
                missing(&[("admit", v.admit.is_some())])
            }
            Kind::Transmission => {
                let v = &*vtable.cast::<VbTransmissionVtable>();
                missing(&[
                    ("block_ready", v.block_ready.is_some()),
                    ("poll", v.poll.is_some()),
                ])
            }
            Kind::BroadcastSchedule => {
                let v = &*vtable.cast::<VbBroadcastScheduleVtable>();
                missing(&[("schedule", v.schedule.is_some())])
            }
            Kind::ClientBuffer => {
                let v = &*vtable.cast::<VbClientBufferVtable>();
                missing(&[
                    ("batch_frames", v.batch_frames.is_some()),
                    ("choose_victims", v.choose_victims.is_some()),
                ])
            }
            Kind::AnalyticModel => {
                let v = &*vtable.cast::<VbAnalyticModelVtable>();
                missing(&[("evaluate", v.evaluate.is_some())])
            }
        }
    }
}

/// Registers `policy` in `registry` as a plugin of its kind.
pub(super) fn register(registry: &mut Registry, policy: Arc<Policy>) -> Result<(), PluginError> {
    match policy.kind {
        Kind::DiskModel => add::<dyn DiskModel>(registry, policy, |i| Box::new(CDiskModel(i))),
        Kind::DiskScheduler => {
            add::<dyn DiskScheduler>(registry, policy, |i| Box::new(CScheduler(i)))
        }
        Kind::BufferPool => add::<dyn BufferPool>(registry, policy, |i| Box::new(CPool(i))),
        Kind::Prefetcher => add::<dyn Prefetcher>(registry, policy, |i| Box::new(CPrefetcher(i))),
        Kind::Layout => add::<dyn Layout>(registry, policy, |i| Box::new(CLayout(i))),
        Kind::Interconnect => {
            add::<dyn Interconnect>(registry, policy, |i| Box::new(CInterconnect(i)))
        }
        Kind::Admission => add::<dyn Admission>(registry, policy, |i| Box::new(CAdmission(i))),
        Kind::Transmission => {
            add::<dyn Transmission>(registry, policy, |i| Box::new(CTransmission(i)))
        }
        Kind::BroadcastSchedule => {
            add::<dyn BroadcastSchedule>(registry, policy, |i| Box::new(CSchedule(i)))
        }
        Kind::ClientBuffer => {
            add::<dyn ClientBuffer>(registry, policy, |i| Box::new(CClientBuffer(i)))
        }
        Kind::AnalyticModel => add::<dyn AnalyticModel>(registry, policy, |i| Box::new(CModel(i))),
    }
}

fn add<K: PluginKind + ?Sized>(
    registry: &mut Registry,
    policy: Arc<Policy>,
    wrap: fn(Instance) -> Box<K>,
) -> Result<(), PluginError> {
    let (p1, p2, p3) = (
        Arc::clone(&policy),
        Arc::clone(&policy),
        Arc::clone(&policy),
    );
    let loaded = Loaded::with_json_params(
        policy.name,
        policy.description,
        Arc::new(move || p3.param_infos()),
        move |table| p1.parse(table),
        move |params, ctx| {
            let state = p2.create(params, ctx)?;
            Ok(wrap(Instance {
                policy: Arc::clone(&p2),
                state,
            }))
        },
    );
    registry
        .add_loaded::<K>(loaded, Arc::clone(&policy.lib.origin))
        .map(|_| ())
}

// ------------------------------------------------------------------------------------------
// small conversions

fn ns(t: SimTime) -> u64 {
    t.as_nanos()
}

fn vb_block(b: BlockId) -> VbBlockId {
    VbBlockId {
        video: b.video.0,
        index: b.index,
    }
}

fn block(b: &VbBlockId) -> BlockId {
    BlockId {
        video: VideoId(b.video),
        index: b.index,
    }
}

fn location(l: &VbLocation) -> Location {
    Location {
        node: NodeId(l.node),
        disk: DiskId(l.disk),
        offset: l.offset,
    }
}

unsafe extern "C" fn push_u32(ctx: *mut c_void, v: u32) {
    (*ctx.cast::<Vec<u32>>()).push(v);
}

fn u32_sink(out: &mut Vec<u32>) -> VbU32Sink {
    VbU32Sink {
        ctx: (out as *mut Vec<u32>).cast(),
        push: push_u32,
    }
}

fn access(a: &DiskAccess) -> VbDiskAccess {
    VbDiskAccess {
        offset: a.offset,
        bytes: a.bytes,
        write: a.write as u8,
    }
}

// ------------------------------------------------------------------------------------------
// disk.model

struct CDiskModel(Instance);

impl DiskModel for CDiskModel {
    fn geometry(&self) -> DiskGeometry {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut g = VbDiskGeometry::default();
        // SAFETY (here and below): the ABI's call, with host-owned arguments.
        self.0.ok("geometry", unsafe {
            req(vt.geometry)(self.0.state, &mut g)
        });
        DiskGeometry {
            capacity_bytes: g.capacity_bytes,
            cylinders: g.cylinders,
        }
    }
    fn cylinder_of(&self, offset: u64) -> u32 {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut c = 0;
        self.0.ok("cylinder_of", unsafe {
            req(vt.cylinder_of)(self.0.state, offset, &mut c)
        });
        c
    }
    fn head_cylinder(&self) -> u32 {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut c = 0;
        self.0.ok("head_cylinder", unsafe {
            req(vt.head_cylinder)(self.0.state, &mut c)
        });
        c
    }
    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut t = VbServiceTime::default();
        self.0.ok("service", unsafe {
            req(vt.service)(self.0.state, &access(a), ns(now), &mut t)
        });
        ServiceTime {
            overhead: SimDuration::from_nanos(t.overhead_ns),
            seek: SimDuration::from_nanos(t.seek_ns),
            rotation: SimDuration::from_nanos(t.rotation_ns),
            transfer: SimDuration::from_nanos(t.transfer_ns),
            cache_hit: t.cache_hit != 0,
        }
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut t = 0;
        self.0.ok("service_bound", unsafe {
            req(vt.service_bound)(self.0.state, &access(a), &mut t)
        });
        SimDuration::from_nanos(t)
    }
    fn transfer_includes_bus(&self) -> bool {
        let Some(f) = self.0.vt::<VbDiskModelVtable>().transfer_includes_bus else {
            return false;
        };
        let mut out = 0u8;
        self.0.ok("transfer_includes_bus", unsafe {
            f(self.0.state, &mut out)
        });
        out != 0
    }
}

// ------------------------------------------------------------------------------------------
// disk.scheduler

struct CScheduler(Instance);

impl DiskScheduler for CScheduler {
    fn enqueue(&mut self, r: QueuedRequest) {
        let vt = self.0.vt::<VbDiskSchedulerVtable>();
        let q = VbQueuedRequest {
            id: r.id.0,
            cylinder: r.cylinder,
            offset: r.offset,
            bytes: r.bytes,
            has_terminal: r.terminal.is_some() as u8,
            terminal: r.terminal.map_or(0, |t| t.0),
            class: (r.class == RequestClass::Prefetch) as u8,
            has_deadline: r.deadline.is_some() as u8,
            deadline_ns: r.deadline.map_or(0, ns),
            arrival_ns: ns(r.arrival),
        };
        self.0
            .ok("enqueue", unsafe { req(vt.enqueue)(self.0.state, &q) });
    }
    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        let vt = self.0.vt::<VbDiskSchedulerVtable>();
        let h = VbHeadState {
            now_ns: ns(head.now),
            cylinder: head.cylinder,
            cylinders: head.cylinders,
        };
        let (mut some, mut id) = (0u8, 0u32);
        self.0.ok("dequeue", unsafe {
            req(vt.dequeue)(self.0.state, &h, &mut some, &mut id)
        });
        (some != 0).then_some(RequestId(id))
    }
    fn len(&self) -> usize {
        let vt = self.0.vt::<VbDiskSchedulerVtable>();
        let mut n = 0u64;
        self.0
            .ok("len", unsafe { req(vt.len)(self.0.state, &mut n) });
        usize::try_from(n).unwrap_or(usize::MAX)
    }
}

// ------------------------------------------------------------------------------------------
// buffer_pool

struct CPool(Instance);

type EvictFn = unsafe extern "C" fn(*mut c_void, *mut u8, *mut u32) -> i32;

impl CPool {
    fn page(&self, call: &'static str, f: EvictFn) -> Option<PageId> {
        let (mut some, mut page) = (0u8, 0u32);
        self.0
            .ok(call, unsafe { f(self.0.state, &mut some, &mut page) });
        (some != 0).then_some(PageId(page))
    }
}

impl BufferPool for CPool {
    fn release(&mut self, page: PageId, referenced: bool) {
        let vt = self.0.vt::<VbBufferPoolVtable>();
        self.0.ok("release", unsafe {
            req(vt.release)(self.0.state, page.0, referenced as u8)
        });
    }
    fn acquire(&mut self, page: PageId) {
        let vt = self.0.vt::<VbBufferPoolVtable>();
        self.0
            .ok("acquire", unsafe { req(vt.acquire)(self.0.state, page.0) });
    }
    fn evict(&mut self) -> Option<PageId> {
        self.page("evict", req(self.0.vt::<VbBufferPoolVtable>().evict))
    }
    fn evict_for_prefetch(&mut self) -> Option<PageId> {
        match self.0.vt::<VbBufferPoolVtable>().evict_for_prefetch {
            Some(f) => self.page("evict_for_prefetch", f),
            None => self.evict(),
        }
    }
    fn set_capacity(&mut self, bytes: u64) {
        if let Some(f) = self.0.vt::<VbBufferPoolVtable>().set_capacity {
            self.0.ok("set_capacity", unsafe { f(self.0.state, bytes) });
        }
    }
    fn request(&mut self, r: &CacheRequest, page: Option<PageId>) {
        if let Some(f) = self.0.vt::<VbBufferPoolVtable>().request {
            let q = VbCacheRequest {
                object: r.object,
                bytes: r.bytes,
                has_next_access: r.next_access.is_some() as u8,
                next_access: r.next_access.unwrap_or(0),
            };
            self.0.ok("request", unsafe {
                f(
                    self.0.state,
                    &q,
                    page.is_some() as u8,
                    page.map_or(0, |p| p.0),
                )
            });
        }
    }
    fn needs_next_access(&self) -> bool {
        let Some(f) = self.0.vt::<VbBufferPoolVtable>().needs_next_access else {
            return false;
        };
        let mut out = 0u8;
        self.0
            .ok("needs_next_access", unsafe { f(self.0.state, &mut out) });
        out != 0
    }
}

// ------------------------------------------------------------------------------------------
// layout

struct CLayout(Instance);

impl Layout for CLayout {
    fn locate(&self, b: BlockId) -> Location {
        let vt = self.0.vt::<VbLayoutVtable>();
        let mut l = VbLocation::default();
        self.0.ok("locate", unsafe {
            req(vt.locate)(self.0.state, &vb_block(b), &mut l)
        });
        location(&l)
    }
    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        let vt = self.0.vt::<VbLayoutVtable>();
        let (mut some, mut out) = (0u8, VbBlockId::default());
        self.0.ok("next_on_same_disk", unsafe {
            req(vt.next_on_same_disk)(self.0.state, &vb_block(b), &mut some, &mut out)
        });
        (some != 0).then(|| block(&out))
    }
    fn pieces(&self) -> u32 {
        let Some(f) = self.0.vt::<VbLayoutVtable>().pieces else {
            return 1;
        };
        let mut n = 0;
        self.0.ok("pieces", unsafe { f(self.0.state, &mut n) });
        n
    }
    fn locate_piece(&self, b: BlockId, piece: u32) -> Location {
        let Some(f) = self.0.vt::<VbLayoutVtable>().locate_piece else {
            return self.locate(b);
        };
        let mut l = VbLocation::default();
        self.0.ok("locate_piece", unsafe {
            f(self.0.state, &vb_block(b), piece, &mut l)
        });
        location(&l)
    }
}

// ------------------------------------------------------------------------------------------
// prefetcher

/// The run's layout lent to a loaded prefetcher for one call; a failure inside it (a loaded
/// layout's) is held and raised again once the prefetcher's call has returned, never
/// unwound through the library's frames.
struct LentLayout<'a> {
    layout: &'a dyn Layout,
    failure: Option<Box<dyn std::any::Any + Send>>,
}

unsafe extern "C" fn view_locate(ctx: *const c_void, b: *const VbBlockId, out: *mut VbLocation) {
    let lent = &mut *(ctx as *mut LentLayout<'_>);
    if lent.failure.is_some() {
        return;
    }
    let b = block(&*b);
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lent.layout.locate(b))) {
        Ok(l) => {
            *out = VbLocation {
                node: l.node.0,
                disk: l.disk.0,
                offset: l.offset,
            }
        }
        Err(p) => lent.failure = Some(p),
    }
}

unsafe extern "C" fn view_next(ctx: *const c_void, b: *const VbBlockId, out: *mut VbBlockId) -> u8 {
    let lent = &mut *(ctx as *mut LentLayout<'_>);
    if lent.failure.is_some() {
        return 0;
    }
    let b = block(&*b);
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        lent.layout.next_on_same_disk(b)
    })) {
        Ok(Some(n)) => {
            *out = vb_block(n);
            1
        }
        Ok(None) => 0,
        Err(p) => {
            lent.failure = Some(p);
            0
        }
    }
}

struct CPrefetcher(Instance);

impl Prefetcher for CPrefetcher {
    fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
        let vt = self.0.vt::<VbPrefetcherVtable>();
        let reference = VbReference {
            terminal: r.terminal.0,
            block: vb_block(r.block),
            disk: r.disk.0,
            deadline_ns: ns(r.deadline),
            block_playout_ns: r.block_playout.as_nanos(),
            now_ns: ns(r.now),
            has_hint: r.hint.is_some() as u8,
            hint_block: r.hint.map_or(VbBlockId::default(), |h| vb_block(h.block)),
            hint_deadline_ns: r.hint.map_or(0, |h| ns(h.deadline)),
        };
        let mut lent = LentLayout {
            layout,
            failure: None,
        };
        let view = VbLayoutView {
            ctx: (&mut lent as *mut LentLayout<'_>).cast_const().cast(),
            locate: view_locate,
            next_on_same_disk: view_next,
        };
        let (mut some, mut disk) = (0u8, 0u32);
        let status =
            unsafe { req(vt.on_reference)(self.0.state, &reference, &view, &mut some, &mut disk) };
        if let Some(p) = lent.failure.take() {
            std::panic::resume_unwind(p);
        }
        self.0.ok("on_reference", status);
        (some != 0).then_some(DiskId(disk))
    }
    fn poll(&mut self, disk: DiskId, in_flight: u32, now: SimTime) -> PrefetchPoll {
        let vt = self.0.vt::<VbPrefetcherVtable>();
        let mut out = VbPrefetchPoll::default();
        self.0.ok("poll", unsafe {
            req(vt.poll)(self.0.state, disk.0, in_flight, ns(now), &mut out)
        });
        match out.tag {
            VB_POLL_IDLE => PrefetchPoll::Idle,
            VB_POLL_WAIT => PrefetchPoll::WaitUntil(SimTime::from_nanos(out.wait_until_ns)),
            VB_POLL_ACT => {
                let c = out.candidate;
                PrefetchPoll::Issue(PrefetchCandidate {
                    block: block(&c.block),
                    terminal: TerminalId(c.terminal),
                    deadline: (c.has_deadline != 0).then(|| SimTime::from_nanos(c.deadline_ns)),
                })
            }
            t => self.0.fail(
                "poll",
                format!("answered tag {t}; the tags are 0 (idle), 1 (issue) and 2 (wait)"),
            ),
        }
    }
}

// ------------------------------------------------------------------------------------------
// server.network

fn endpoint(e: Endpoint) -> VbEndpoint {
    match e {
        Endpoint::Node(n) => VbEndpoint { kind: 0, id: n.0 },
        Endpoint::Terminal(t) => VbEndpoint { kind: 1, id: t.0 },
    }
}

struct CInterconnect(Instance);

impl Interconnect for CInterconnect {
    fn links(&self) -> Vec<String> {
        let vt = self.0.vt::<VbInterconnectVtable>();
        let mut names = Vec::new();
        let mut sink = string_sink(&mut names);
        self.0
            .ok("links", unsafe { req(vt.links)(self.0.state, &mut sink) });
        names
    }
    fn route(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        path: &mut Vec<LinkId>,
    ) -> Transfer {
        let vt = self.0.vt::<VbInterconnectVtable>();
        let mut links = Vec::new();
        let mut sink = u32_sink(&mut links);
        let mut t = VbTransfer::default();
        self.0.ok("route", unsafe {
            req(vt.route)(
                self.0.state,
                endpoint(from),
                endpoint(to),
                bytes,
                &mut sink,
                &mut t,
            )
        });
        path.extend(links.into_iter().map(LinkId));
        Transfer {
            setup: SimDuration::from_nanos(t.setup_ns),
            hold: SimDuration::from_nanos(t.hold_ns),
            delivery: SimDuration::from_nanos(t.delivery_ns),
        }
    }
}

// ------------------------------------------------------------------------------------------
// admission

fn stream_request(r: &StreamRequest) -> VbStreamRequest {
    VbStreamRequest {
        terminal: r.terminal.0,
        video: r.video.0,
        bit_rate: r.bit_rate,
        buffer_bytes: r.buffer_bytes,
        has_interface: r.interface.is_some() as u8,
        interface: r.interface.unwrap_or(0),
        now_ns: ns(r.now),
    }
}

/// A refusal reason as the `&'static str` a verdict carries: one copy per distinct reason.
fn intern_reason(reason: &str) -> &'static str {
    static TABLE: OnceLock<Mutex<BTreeMap<String, &'static str>>> = OnceLock::new();
    let mut t = TABLE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(r) = t.get(reason) {
        return r;
    }
    let r: &'static str = Box::leak(reason.to_string().into_boxed_str());
    t.insert(reason.to_string(), r);
    r
}

struct CAdmission(Instance);

impl Admission for CAdmission {
    fn admit(&mut self, r: &StreamRequest, load: &ServerLoad) -> Verdict {
        let vt = self.0.vt::<VbAdmissionVtable>();
        let l = VbServerLoad {
            active_streams: load.active_streams,
            terminals: load.terminals,
            interface_memory: load.interface_memory,
        };
        let mut v = VbVerdict {
            admit: 1,
            reason: std::ptr::null(),
        };
        self.0.ok("admit", unsafe {
            req(vt.admit)(self.0.state, &stream_request(r), &l, &mut v)
        });
        if v.admit != 0 {
            return Verdict::Admit;
        }
        let reason = if v.reason.is_null() {
            "refused"
        } else {
            // SAFETY: a NUL-terminated string, copied at once.
            match unsafe { CStr::from_ptr(v.reason) }.to_str() {
                Ok(s) if !s.is_empty() && s.len() <= 64 => intern_reason(s),
                Ok(s) => self.0.fail(
                    "admit",
                    format!(
                        "gave a refusal reason of {} bytes (1 to 64 allowed)",
                        s.len()
                    ),
                ),
                Err(_) => self
                    .0
                    .fail("admit", "gave a refusal reason that is not UTF-8".into()),
            }
        };
        Verdict::Refuse { reason }
    }
    fn ended(&mut self, terminal: TerminalId, now: SimTime) {
        if let Some(f) = self.0.vt::<VbAdmissionVtable>().ended {
            self.0
                .ok("ended", unsafe { f(self.0.state, terminal.0, ns(now)) });
        }
    }
    fn observes(&self) -> bool {
        let Some(f) = self.0.vt::<VbAdmissionVtable>().observes else {
            return false;
        };
        let mut out = 0u8;
        self.0.ok("observes", unsafe { f(self.0.state, &mut out) });
        out != 0
    }
    fn probe(&mut self, r: &StreamRequest, placement: &Placement<'_>, probe: &mut Vec<NodeId>) {
        let Some(f) = self.0.vt::<VbAdmissionVtable>().probe else {
            return;
        };
        let holders: Vec<u32> = placement.holders.iter().map(|n| n.0).collect();
        let p = VbPlacement {
            holders: holders.as_ptr(),
            holder_count: holders.len(),
            round_ns: placement.round.as_nanos(),
            fragment_bytes: placement.fragment_bytes,
        };
        let mut nodes = Vec::new();
        let mut sink = u32_sink(&mut nodes);
        self.0.ok("probe", unsafe {
            f(self.0.state, &stream_request(r), &p, &mut sink)
        });
        probe.extend(nodes.into_iter().map(NodeId));
    }
    fn probed(&mut self, r: &StreamRequest, node: NodeId, round_trip: SimDuration) {
        if let Some(f) = self.0.vt::<VbAdmissionVtable>().probed {
            self.0.ok("probed", unsafe {
                f(
                    self.0.state,
                    &stream_request(r),
                    node.0,
                    round_trip.as_nanos(),
                )
            });
        }
    }
    fn fetched(&mut self, fetch: &Fetch) {
        if let Some(f) = self.0.vt::<VbAdmissionVtable>().fetched {
            let v = VbFetch {
                has_interface: fetch.interface.is_some() as u8,
                interface: fetch.interface.unwrap_or(0),
                storage: fetch.storage.0,
                round_trip_ns: fetch.round_trip.as_nanos(),
                has_at_storage: fetch.at_storage.is_some() as u8,
                at_storage_ns: fetch.at_storage.map_or(0, |d| d.as_nanos()),
                now_ns: ns(fetch.now),
            };
            self.0.ok("fetched", unsafe { f(self.0.state, &v) });
        }
    }
}

// ------------------------------------------------------------------------------------------
// transmission

struct CTransmission(Instance);

impl Transmission for CTransmission {
    fn block_ready(&mut self, b: ReadyBlock, now: SimTime) {
        let vt = self.0.vt::<VbTransmissionVtable>();
        let r = VbReadyBlock {
            token: b.token,
            client: b.client.0,
            bytes: b.bytes,
            stream_rate_bps: b.stream_rate_bps,
            max_rate_bps: b.max_rate_bps,
            has_packet_bytes: b.packet_bytes.is_some() as u8,
            packet_bytes: b.packet_bytes.unwrap_or(0),
        };
        self.0.ok("block_ready", unsafe {
            req(vt.block_ready)(self.0.state, &r, ns(now))
        });
    }
    fn poll(&mut self, now: SimTime) -> TxPoll {
        let vt = self.0.vt::<VbTransmissionVtable>();
        let mut out = VbTxPoll::default();
        self.0.ok("poll", unsafe {
            req(vt.poll)(self.0.state, ns(now), &mut out)
        });
        match out.tag {
            VB_POLL_IDLE => TxPoll::Idle,
            VB_POLL_WAIT => TxPoll::WaitUntil(SimTime::from_nanos(out.wait_until_ns)),
            VB_POLL_ACT => TxPoll::Send(Packet {
                token: out.packet.token,
                bytes: out.packet.bytes,
                deadline: SimTime::from_nanos(out.packet.deadline_ns),
            }),
            t => self.0.fail(
                "poll",
                format!("answered tag {t}; the tags are 0 (idle), 1 (send) and 2 (wait)"),
            ),
        }
    }
}

// ------------------------------------------------------------------------------------------
// broadcast.schedule

struct FrameCollector {
    schedule: Schedule,
    error: Option<PluginError>,
}

unsafe extern "C" fn push_frame(ctx: *mut c_void, instants: *const u32, count: usize) -> i32 {
    let c = &mut *ctx.cast::<FrameCollector>();
    if c.error.is_some() {
        return VB_ERROR;
    }
    let mut v = if instants.is_null() || count == 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(instants, count).to_vec()
    };
    match c.schedule.push_frame(&mut v) {
        Ok(()) => VB_OK,
        Err(e) => {
            c.error = Some(e);
            VB_ERROR
        }
    }
}

struct CSchedule(Instance);

impl BroadcastSchedule for CSchedule {
    fn schedule(&self, spec: &ScheduleSpec) -> Result<Schedule, PluginError> {
        let vt = self.0.vt::<VbBroadcastScheduleVtable>();
        let s = VbScheduleSpec {
            frames: spec.frames,
            delay: spec.delay,
            horizon: spec.horizon,
            chunk_hint: spec.chunk_hint,
        };
        let mut c = FrameCollector {
            schedule: Schedule::builder(*spec),
            error: None,
        };
        let mut sink = VbFrameSink {
            ctx: (&mut c as *mut FrameCollector).cast(),
            push_frame,
        };
        let status = unsafe { req(vt.schedule)(self.0.state, &s, &mut sink) };
        if let Some(e) = c.error {
            return Err(e);
        }
        self.0.ok("schedule", status);
        Ok(c.schedule)
    }
    fn uses_chunk_hint(&self) -> bool {
        let Some(f) = self.0.vt::<VbBroadcastScheduleVtable>().uses_chunk_hint else {
            return true;
        };
        let mut out = 1u8;
        self.0
            .ok("uses_chunk_hint", unsafe { f(self.0.state, &mut out) });
        out != 0
    }
}

// ------------------------------------------------------------------------------------------
// receiver.buffer

struct CClientBuffer(Instance);

impl ClientBuffer for CClientBuffer {
    fn batch_frames(&self) -> u32 {
        let vt = self.0.vt::<VbClientBufferVtable>();
        let mut n = 0;
        self.0.ok("batch_frames", unsafe {
            req(vt.batch_frames)(self.0.state, &mut n)
        });
        n
    }
    fn inserted(&mut self, frame: u32) {
        if let Some(f) = self.0.vt::<VbClientBufferVtable>().inserted {
            self.0.ok("inserted", unsafe { f(self.0.state, frame) });
        }
    }
    fn removed(&mut self, frame: u32, why: Removal) {
        if let Some(f) = self.0.vt::<VbClientBufferVtable>().removed {
            let why = match why {
                Removal::Played => 0,
                Removal::Written => 1,
            };
            self.0.ok("removed", unsafe { f(self.0.state, frame, why) });
        }
    }
    fn played_direct(&mut self, frame: u32) {
        if let Some(f) = self.0.vt::<VbClientBufferVtable>().played_direct {
            self.0
                .ok("played_direct", unsafe { f(self.0.state, frame) });
        }
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        let vt = self.0.vt::<VbClientBufferVtable>();
        let words = cache.words();
        let v = VbCacheView {
            words: words.as_ptr(),
            word_count: words.len(),
            len: cache.len(),
            capacity: cache.capacity(),
            has_pin_limit: cache.pin_limit().is_some() as u8,
            pin_limit: cache.pin_limit().unwrap_or(0),
        };
        let mut sink = u32_sink(out);
        self.0.ok("choose_victims", unsafe {
            req(vt.choose_victims)(self.0.state, &v, &mut sink)
        });
    }
    fn written(&mut self, extent: ExtentId, frames: &[u32]) {
        if let Some(f) = self.0.vt::<VbClientBufferVtable>().written {
            self.0.ok("written", unsafe {
                f(self.0.state, extent.0, frames.as_ptr(), frames.len())
            });
        }
    }
    fn due_frame(&mut self, extent: ExtentId, frames: &[u32]) -> u32 {
        let Some(f) = self.0.vt::<VbClientBufferVtable>().due_frame else {
            return frames[0];
        };
        let mut out = frames[0];
        self.0.ok("due_frame", unsafe {
            f(
                self.0.state,
                extent.0,
                frames.as_ptr(),
                frames.len(),
                &mut out,
            )
        });
        out
    }
    fn choose_reads(&mut self, due: u32, extent: ExtentId, room: u32, out: &mut Vec<ExtentId>) {
        let Some(f) = self.0.vt::<VbClientBufferVtable>().choose_reads else {
            out.push(extent);
            return;
        };
        let mut extents = Vec::new();
        let mut sink = u32_sink(&mut extents);
        self.0.ok("choose_reads", unsafe {
            f(self.0.state, due, extent.0, room, &mut sink)
        });
        out.extend(extents.into_iter().map(ExtentId));
    }
}

// ------------------------------------------------------------------------------------------
// analytic

struct CModel(Instance);

impl AnalyticModel for CModel {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let vt = self.0.vt::<VbAnalyticModelVtable>();
        let json = vodbench_plugin_api::abi::export::model_input_json(input);
        let text = CString::new(json).map_err(|_| PluginError::Build("NUL in input".into()))?;
        let mut out = Vec::new();
        let mut sink = string_sink(&mut out);
        let mut err = super::empty_error();
        let status = unsafe { req(vt.evaluate)(self.0.state, text.as_ptr(), &mut sink, &mut err) };
        if status != VB_OK {
            let (key, message) = super::read_error(&err);
            if message.is_empty() {
                // not an input it refuses: a failed call
                self.0.ok("evaluate", status);
            }
            return Err(if key.is_empty() {
                PluginError::Build(message)
            } else {
                PluginError::param(key, message)
            });
        }
        serde_json::from_str(&out.concat()).map_err(|e| {
            self.0.fail(
                "evaluate",
                format!("answered JSON that is not an analysis: {e}"),
            )
        })
    }
}
