//! Policies written as Python classes: registered in the [`Registry`] beside the built-ins
//! (one entry per class), and one adapter per kind implementing the kind's Rust trait over a
//! Python object, as `vodbench_harness::plugin_library`'s adapters do over C function tables.
//!
//! An adapter only translates; the engine checks every answer as it checks a built-in's. A
//! Python exception, or an answer of the wrong type, abandons the run with a
//! [`PluginFailure`] naming the class's source, the policy, the method and the traceback.

use crate::types::{self, LayoutView};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::sync::Arc;
use vodbench_harness::plugin_library::params::{table_json, ParamSchema};
use vodbench_harness::plugin_library::{abandon, PluginFailure};
use vodbench_plugin_api::ids::{DiskId, LinkId, NodeId, PageId, RequestId, TerminalId};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::{SimDuration, SimTime};

/// A registered Python class.
pub struct PyPolicy {
    pub kind: Kind,
    pub name: &'static str,
    description: &'static str,
    /// ``disk.scheduler `name` ``, for messages.
    label: String,
    pub class: Py<PyAny>,
    schema: ParamSchema,
    pub origin: Arc<Origin>,
    /// Which optional methods the class has (by the kind's method order).
    has: Vec<bool>,
}

/// Each kind's methods: required first, then optional.
pub fn methods(kind: Kind) -> (&'static [&'static str], &'static [&'static str]) {
    match kind {
        Kind::DiskModel => (
            &[
                "geometry",
                "cylinder_of",
                "head_cylinder",
                "service",
                "service_bound",
            ],
            &[],
        ),
        Kind::DiskScheduler => (&["enqueue", "dequeue", "len"], &[]),
        Kind::BufferPool => (
            &["release", "acquire", "evict"],
            &[
                "evict_for_prefetch",
                "set_capacity",
                "request",
                "needs_next_access",
            ],
        ),
        Kind::Prefetcher => (&["on_reference", "poll"], &[]),
        Kind::Layout => (
            &["locate", "next_on_same_disk"],
            &["pieces", "locate_piece"],
        ),
        Kind::Interconnect => (&["links", "route"], &[]),
        Kind::Admission => (
            &["admit"],
            &["ended", "observes", "probe", "probed", "fetched"],
        ),
        Kind::Transmission => (&["block_ready", "poll"], &[]),
        Kind::BroadcastSchedule => (&["schedule"], &["uses_chunk_hint"]),
        Kind::ClientBuffer => (
            &["batch_frames", "choose_victims"],
            &[
                "inserted",
                "removed",
                "played_direct",
                "written",
                "due_frame",
                "choose_reads",
            ],
        ),
        Kind::AnalyticModel => (&["evaluate"], &[]),
    }
}

/// The kind whose scenario key (`disk.scheduler`) or listing name (`disk-scheduler`) is `s`.
pub fn kind_named(s: &str) -> Option<Kind> {
    let norm = |k: &str| k.replace(['.', '_'], "-");
    Kind::ALL
        .iter()
        .copied()
        .find(|k| norm(k.key()) == norm(s) || k.trait_name().eq_ignore_ascii_case(s))
}

impl PyPolicy {
    /// Checks a class and its declaration; what is wrong, said for the class's author.
    pub fn new(
        py: Python<'_>,
        kind: Kind,
        name: &str,
        class: Py<PyAny>,
        description: &str,
        schema: Option<&str>,
        origin: Origin,
    ) -> Result<PyPolicy, String> {
        let label = format!("{} `{name}`", kind.key());
        vodbench_harness::plugin_library::check_name(&label, name)?;
        let (required, optional) = methods(kind);
        let cls = class.bind(py);
        for m in required {
            if !cls.hasattr(*m).unwrap_or(false) {
                return Err(format!(
                    "{label}: the class has no `{m}` method; a {} policy has {} (and may have {})",
                    kind.key(),
                    required.join(", "),
                    if optional.is_empty() {
                        "nothing else".to_string()
                    } else {
                        optional.join(", ")
                    }
                ));
            }
        }
        let has = optional
            .iter()
            .map(|m| cls.hasattr(*m).unwrap_or(false))
            .collect();
        let schema = ParamSchema::compile(schema).map_err(|e| format!("{label}: {e}"))?;
        Ok(PyPolicy {
            kind,
            name: Box::leak(name.to_string().into_boxed_str()),
            description: Box::leak(description.to_string().into_boxed_str()),
            label,
            class,
            schema,
            origin: Arc::new(origin),
            has,
        })
    }

    fn parse(&self, table: &toml::Table) -> Result<serde_json::Value, PluginError> {
        let json = table_json(table)?;
        self.schema.validate(&json)?;
        Ok(self.schema.with_defaults(json))
    }

    fn fail(&self, call: &'static str, message: String) -> ! {
        abandon(PluginFailure {
            library: self.origin.path.clone(),
            policy: self.label.clone(),
            call,
            message,
        })
    }

    /// One instance: `cls(params, ctx)`, its methods looked up once.
    fn create(self_: &Arc<Self>, params: &str, ctx: &BuildContext<'_>) -> Instance {
        let this = self_;
        keep_thread_state();
        let made = Python::with_gil(|py| -> PyResult<Instance> {
            let params = py.import("json")?.call_method1("loads", (params,))?;
            let c = PyDict::new(py);
            c.set_item("seed", ctx.seed)?;
            c.set_item("component", ctx.component)?;
            c.set_item("index", ctx.index)?;
            c.set_item("nodes", ctx.nodes)?;
            c.set_item("interfaces", ctx.interfaces)?;
            c.set_item("managers", ctx.managers)?;
            c.set_item("disks_per_node", ctx.disks_per_node)?;
            c.set_item("terminals", ctx.terminals)?;
            c.set_item("pages", ctx.pages)?;
            c.set_item("block_bytes", ctx.block_bytes)?;
            c.set_item("video_blocks", ctx.video_blocks.to_vec())?;
            c.set_item(
                "geometry",
                ctx.geometry.map(|g| (g.capacity_bytes, g.cylinders)),
            )?;
            c.set_item("base_dir", ctx.base_dir.display().to_string())?;
            let obj = this.class.bind(py).call1((params, c))?;
            let (required, optional) = methods(this.kind);
            let mut bound = Vec::with_capacity(required.len() + optional.len());
            for m in required {
                bound.push(Some(obj.getattr(*m)?.unbind()));
            }
            for (m, has) in optional.iter().zip(&this.has) {
                bound.push(if *has {
                    Some(obj.getattr(*m)?.unbind())
                } else {
                    None
                });
            }
            Ok(Instance {
                policy: Arc::clone(this),
                methods: bound,
            })
        });
        made.unwrap_or_else(|e| this.fail("__init__", Python::with_gil(|py| traceback(py, &e))))
    }
}

/// A Python exception as Python prints it (traceback included).
pub fn traceback(py: Python<'_>, e: &PyErr) -> String {
    let formatted = (|| -> PyResult<String> {
        let lines = py.import("traceback")?.call_method1(
            "format_exception",
            (e.get_type(py), e.value(py), e.traceback(py)),
        )?;
        let text: Vec<String> = lines.extract()?;
        Ok(text.concat())
    })();
    formatted
        .unwrap_or_else(|_| e.to_string())
        .trim_end()
        .to_string()
}

/// Registers `policy` in `registry` as a plugin of its kind.
pub fn register(registry: &mut Registry, policy: Arc<PyPolicy>) -> Result<(), PluginError> {
    match policy.kind {
        Kind::DiskModel => add::<dyn DiskModel>(registry, policy, |i| Box::new(PyDiskModel(i))),
        Kind::DiskScheduler => {
            add::<dyn DiskScheduler>(registry, policy, |i| Box::new(PyScheduler(i)))
        }
        Kind::BufferPool => add::<dyn BufferPool>(registry, policy, |i| Box::new(PyPool(i))),
        Kind::Prefetcher => add::<dyn Prefetcher>(registry, policy, |i| Box::new(PyPrefetcher(i))),
        Kind::Layout => add::<dyn Layout>(registry, policy, |i| Box::new(PyLayout(i))),
        Kind::Interconnect => {
            add::<dyn Interconnect>(registry, policy, |i| Box::new(PyInterconnect(i)))
        }
        Kind::Admission => add::<dyn Admission>(registry, policy, |i| Box::new(PyAdmission(i))),
        Kind::Transmission => {
            add::<dyn Transmission>(registry, policy, |i| Box::new(PyTransmission(i)))
        }
        Kind::BroadcastSchedule => {
            add::<dyn BroadcastSchedule>(registry, policy, |i| Box::new(PySchedule(i)))
        }
        Kind::ClientBuffer => {
            add::<dyn ClientBuffer>(registry, policy, |i| Box::new(PyClientBuffer(i)))
        }
        Kind::AnalyticModel => add::<dyn AnalyticModel>(registry, policy, |i| Box::new(PyModel(i))),
    }
}

fn add<K: PluginKind + ?Sized>(
    registry: &mut Registry,
    policy: Arc<PyPolicy>,
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
        Arc::new(move || {
            let defaults = p3.parse(&toml::Table::new()).ok();
            params_of_schema(&p3.schema.value, defaults.as_ref())
        }),
        move |table| p1.parse(table),
        move |params, ctx| Ok(wrap(PyPolicy::create(&p2, params, ctx))),
    );
    registry
        .add_loaded::<K>(loaded, Arc::clone(&policy.origin))
        .map(|_| ())
}

// ------------------------------------------------------------------------------------------
// one instance

/// One instance of a Python policy, its bound methods looked up once (required methods
/// first, then the optional ones, in [`methods`]' order).
pub struct Instance {
    policy: Arc<PyPolicy>,
    methods: Vec<Option<Py<PyAny>>>,
}

impl Instance {
    /// Whether the optional method `i` (counted from the first method) exists.
    fn has(&self, i: usize) -> bool {
        self.methods[i].is_some()
    }

    /// Calls method `i` (`name`) with the arguments `args` makes, converting the answer
    /// with `convert`; an exception or an unconvertible answer abandons the run.
    fn call<T>(
        &self,
        i: usize,
        name: &'static str,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>>,
        convert: impl for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T>,
    ) -> T {
        keep_thread_state();
        let method = self.methods[i].as_ref().expect("a method that exists");
        let r = Python::with_gil(|py| {
            let out = args(py).and_then(|a| method.bind(py).call1(a));
            match out.and_then(|o| convert(&o)) {
                Ok(v) => Ok(v),
                Err(e) => Err(traceback(py, &e)),
            }
        });
        r.unwrap_or_else(|m| self.policy.fail(name, m))
    }

    /// Calls method `i`, ignoring its answer.
    fn call0(
        &self,
        i: usize,
        name: &'static str,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>>,
    ) {
        self.call(i, name, args, |_| Ok(()))
    }

    fn fail(&self, call: &'static str, message: String) -> ! {
        self.policy.fail(call, message)
    }
}

/// This thread's Python thread state, made on its first call into a policy and kept until
/// the thread ends: without it each call would make and destroy one (`PyGILState_Ensure` on
/// a thread that has none), several times the cost of the call itself. Engine threads (the
/// command's, rayon's) never hold the GIL between calls, so the state is made with the GIL
/// released again at once.
struct KeptThreadState {
    gil: pyo3::ffi::PyGILState_STATE,
    state: *mut pyo3::ffi::PyThreadState,
}

impl Drop for KeptThreadState {
    fn drop(&mut self) {
        // SAFETY: the state this thread made in `keep_thread_state`, given back once; not
        // after the interpreter has gone.
        unsafe {
            if pyo3::ffi::Py_IsInitialized() != 0 {
                pyo3::ffi::PyEval_RestoreThread(self.state);
                pyo3::ffi::PyGILState_Release(self.gil);
            }
        }
    }
}

thread_local! {
    static KEPT: std::cell::RefCell<Option<KeptThreadState>> =
        const { std::cell::RefCell::new(None) };
}

fn keep_thread_state() {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        if k.is_none() {
            // SAFETY: this thread does not hold the GIL (see above): Ensure takes it with a
            // new thread state, SaveThread releases it keeping the state.
            unsafe {
                let gil = pyo3::ffi::PyGILState_Ensure();
                let state = pyo3::ffi::PyEval_SaveThread();
                *k = Some(KeptThreadState { gil, state });
            }
        }
    });
}

fn none(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    Ok(PyTuple::empty(py))
}

fn ns(t: SimTime) -> u64 {
    t.as_nanos()
}

// ------------------------------------------------------------------------------------------
// disk.model

struct PyDiskModel(Instance);

impl DiskModel for PyDiskModel {
    fn geometry(&self) -> DiskGeometry {
        let (capacity_bytes, cylinders) = self.0.call(0, "geometry", none, |o| o.extract());
        DiskGeometry {
            capacity_bytes,
            cylinders,
        }
    }
    fn cylinder_of(&self, offset: u64) -> u32 {
        self.0.call(
            1,
            "cylinder_of",
            |py| (offset,).into_pyobject(py),
            |o| o.extract(),
        )
    }
    fn head_cylinder(&self) -> u32 {
        self.0.call(2, "head_cylinder", none, |o| o.extract())
    }
    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        let access = types::DiskAccess {
            offset: a.offset,
            bytes: a.bytes,
            write: a.write,
        };
        let (overhead, seek, rotation, transfer, cache_hit): (u64, u64, u64, u64, bool) =
            self.0.call(
                3,
                "service",
                |py| (access, ns(now)).into_pyobject(py),
                |o| o.extract(),
            );
        ServiceTime {
            overhead: SimDuration::from_nanos(overhead),
            seek: SimDuration::from_nanos(seek),
            rotation: SimDuration::from_nanos(rotation),
            transfer: SimDuration::from_nanos(transfer),
            cache_hit,
        }
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        let access = types::DiskAccess {
            offset: a.offset,
            bytes: a.bytes,
            write: a.write,
        };
        SimDuration::from_nanos(self.0.call(
            4,
            "service_bound",
            |py| (access,).into_pyobject(py),
            |o| o.extract(),
        ))
    }
}

// ------------------------------------------------------------------------------------------
// disk.scheduler

struct PyScheduler(Instance);

impl DiskScheduler for PyScheduler {
    fn enqueue(&mut self, r: QueuedRequest) {
        let q = types::QueuedRequest {
            id: r.id.0,
            cylinder: r.cylinder,
            offset: r.offset,
            bytes: r.bytes,
            terminal: r.terminal.map(|t| t.0),
            prefetch: r.class == RequestClass::Prefetch,
            deadline: r.deadline.map(ns),
            arrival: ns(r.arrival),
        };
        self.0.call0(0, "enqueue", |py| (q,).into_pyobject(py));
    }
    fn dequeue(&mut self, head: &HeadState) -> Option<RequestId> {
        let h = types::HeadState {
            now: ns(head.now),
            cylinder: head.cylinder,
            cylinders: head.cylinders,
        };
        self.0
            .call(
                1,
                "dequeue",
                |py| (h,).into_pyobject(py),
                |o| o.extract::<Option<u32>>(),
            )
            .map(RequestId)
    }
    fn len(&self) -> usize {
        self.0.call(2, "len", none, |o| o.extract())
    }
}

// ------------------------------------------------------------------------------------------
// buffer_pool

struct PyPool(Instance);

impl BufferPool for PyPool {
    fn release(&mut self, page: PageId, referenced: bool) {
        self.0
            .call0(0, "release", |py| (page.0, referenced).into_pyobject(py));
    }
    fn acquire(&mut self, page: PageId) {
        self.0.call0(1, "acquire", |py| (page.0,).into_pyobject(py));
    }
    fn evict(&mut self) -> Option<PageId> {
        self.0
            .call(2, "evict", none, |o| o.extract::<Option<u32>>())
            .map(PageId)
    }
    fn evict_for_prefetch(&mut self) -> Option<PageId> {
        if !self.0.has(3) {
            return self.evict();
        }
        self.0
            .call(3, "evict_for_prefetch", none, |o| {
                o.extract::<Option<u32>>()
            })
            .map(PageId)
    }
    fn set_capacity(&mut self, bytes: u64) {
        if self.0.has(4) {
            self.0
                .call0(4, "set_capacity", |py| (bytes,).into_pyobject(py));
        }
    }
    fn request(&mut self, r: &CacheRequest, page: Option<PageId>) {
        if self.0.has(5) {
            let q = types::CacheRequest {
                object: r.object,
                bytes: r.bytes,
                next_access: r.next_access,
            };
            self.0
                .call0(5, "request", |py| (q, page.map(|p| p.0)).into_pyobject(py));
        }
    }
    fn needs_next_access(&self) -> bool {
        self.0.has(6) && self.0.call(6, "needs_next_access", none, |o| o.extract())
    }
}

// ------------------------------------------------------------------------------------------
// layout

struct PyLayout(Instance);

fn location((node, disk, offset): (u32, u32, u64)) -> Location {
    Location {
        node: NodeId(node),
        disk: DiskId(disk),
        offset,
    }
}

impl Layout for PyLayout {
    fn locate(&self, b: vodbench_plugin_api::ids::BlockId) -> Location {
        location(self.0.call(
            0,
            "locate",
            |py| (types::tuple(b),).into_pyobject(py),
            |o| o.extract(),
        ))
    }
    fn next_on_same_disk(
        &self,
        b: vodbench_plugin_api::ids::BlockId,
    ) -> Option<vodbench_plugin_api::ids::BlockId> {
        self.0
            .call(
                1,
                "next_on_same_disk",
                |py| (types::tuple(b),).into_pyobject(py),
                |o| o.extract::<Option<(u32, u32)>>(),
            )
            .map(types::block)
    }
    fn pieces(&self) -> u32 {
        if !self.0.has(2) {
            return 1;
        }
        self.0.call(2, "pieces", none, |o| o.extract())
    }
    fn locate_piece(&self, b: vodbench_plugin_api::ids::BlockId, piece: u32) -> Location {
        if !self.0.has(3) {
            return self.locate(b);
        }
        location(self.0.call(
            3,
            "locate_piece",
            |py| (types::tuple(b), piece).into_pyobject(py),
            |o| o.extract(),
        ))
    }
}

// ------------------------------------------------------------------------------------------
// prefetcher

struct PyPrefetcher(Instance);

impl Prefetcher for PyPrefetcher {
    fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
        let reference = types::Reference {
            terminal: r.terminal.0,
            block: types::tuple(r.block),
            disk: r.disk.0,
            deadline: ns(r.deadline),
            block_playout: r.block_playout.as_nanos(),
            now: ns(r.now),
            hint: r.hint.map(|h| (types::tuple(h.block), ns(h.deadline))),
        };
        let view = Python::with_gil(|py| Py::new(py, LayoutView::lend(layout)))
            .unwrap_or_else(|e| self.0.fail("on_reference", e.to_string()));
        let v2 = Python::with_gil(|py| view.clone_ref(py));
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.0.call(
                0,
                "on_reference",
                |py| (reference, v2).into_pyobject(py),
                |o| o.extract::<Option<u32>>(),
            )
        }));
        // the lent layout's own failure first: it is the cause
        if let Some(p) = view.get().end() {
            std::panic::resume_unwind(p);
        }
        out.unwrap_or_else(|p| std::panic::resume_unwind(p))
            .map(DiskId)
    }
    fn poll(&mut self, disk: DiskId, in_flight: u32, now: SimTime) -> PrefetchPoll {
        // None: idle; an integer: wait until that time; (block, terminal, deadline): issue
        type Issue = ((u32, u32), u32, Option<u64>);
        let answer: Option<Result<u64, Issue>> = self.0.call(
            1,
            "poll",
            |py| (disk.0, in_flight, ns(now)).into_pyobject(py),
            |o| {
                if o.is_none() {
                    Ok(None)
                } else if let Ok(t) = o.extract::<u64>() {
                    Ok(Some(Ok(t)))
                } else {
                    o.extract::<Issue>().map(|i| Some(Err(i))).map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(format!(
                            "poll answered {o}; it answers None (idle), a time in ns (wait \
                             until) or ((video, index), terminal, deadline or None) (issue)"
                        ))
                    })
                }
            },
        );
        match answer {
            None => PrefetchPoll::Idle,
            Some(Ok(t)) => PrefetchPoll::WaitUntil(SimTime::from_nanos(t)),
            Some(Err((b, terminal, deadline))) => PrefetchPoll::Issue(PrefetchCandidate {
                block: types::block(b),
                terminal: TerminalId(terminal),
                deadline: deadline.map(SimTime::from_nanos),
            }),
        }
    }
}

// ------------------------------------------------------------------------------------------
// server.network

fn endpoint(e: Endpoint) -> (&'static str, u32) {
    match e {
        Endpoint::Node(n) => ("node", n.0),
        Endpoint::Terminal(t) => ("terminal", t.0),
    }
}

struct PyInterconnect(Instance);

impl Interconnect for PyInterconnect {
    fn links(&self) -> Vec<String> {
        self.0.call(0, "links", none, |o| o.extract())
    }
    fn route(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        path: &mut Vec<LinkId>,
    ) -> Transfer {
        let (links, setup, hold, delivery): (Vec<u32>, u64, u64, u64) = self.0.call(
            1,
            "route",
            |py| (endpoint(from), endpoint(to), bytes).into_pyobject(py),
            |o| o.extract(),
        );
        path.extend(links.into_iter().map(LinkId));
        Transfer {
            setup: SimDuration::from_nanos(setup),
            hold: SimDuration::from_nanos(hold),
            delivery: SimDuration::from_nanos(delivery),
        }
    }
}

// ------------------------------------------------------------------------------------------
// admission

fn stream_request(r: &StreamRequest) -> types::StreamRequest {
    types::StreamRequest {
        terminal: r.terminal.0,
        video: r.video.0,
        bit_rate: r.bit_rate,
        buffer_bytes: r.buffer_bytes,
        interface: r.interface,
        now: ns(r.now),
    }
}

/// A refusal reason as the `&'static str` a verdict carries: one copy per distinct reason.
fn intern_reason(reason: &str) -> &'static str {
    use std::collections::BTreeMap;
    use std::sync::{Mutex, OnceLock};
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

struct PyAdmission(Instance);

impl Admission for PyAdmission {
    fn admit(&mut self, r: &StreamRequest, load: &ServerLoad) -> Verdict {
        let (req, l) = (
            stream_request(r),
            types::ServerLoad {
                active_streams: load.active_streams,
                terminals: load.terminals,
                interface_memory: load.interface_memory,
            },
        );
        // True: admit; a string: refused, for that reason
        let answer: Option<String> = self.0.call(
            0,
            "admit",
            |py| (req, l).into_pyobject(py),
            |o| {
                if o.is_instance_of::<pyo3::types::PyBool>() && o.extract::<bool>()? {
                    Ok(None)
                } else {
                    o.extract::<String>().map(Some).map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(format!(
                            "admit answered {o}; it answers True (admit) or a refusal \
                             reason (a string of 1 to 64 bytes)"
                        ))
                    })
                }
            },
        );
        match answer {
            None => Verdict::Admit,
            Some(s) if !s.is_empty() && s.len() <= 64 => Verdict::Refuse {
                reason: intern_reason(&s),
            },
            Some(s) => self.0.fail(
                "admit",
                format!(
                    "gave a refusal reason of {} bytes (1 to 64 allowed)",
                    s.len()
                ),
            ),
        }
    }
    fn ended(&mut self, terminal: TerminalId, now: SimTime) {
        if self.0.has(1) {
            self.0
                .call0(1, "ended", |py| (terminal.0, ns(now)).into_pyobject(py));
        }
    }
    fn observes(&self) -> bool {
        self.0.has(2) && self.0.call(2, "observes", none, |o| o.extract())
    }
    fn probe(&mut self, r: &StreamRequest, placement: &Placement<'_>, probe: &mut Vec<NodeId>) {
        if !self.0.has(3) {
            return;
        }
        let (req, p) = (
            stream_request(r),
            types::Placement {
                holders: placement.holders.iter().map(|n| n.0).collect(),
                round: placement.round.as_nanos(),
                fragment_bytes: placement.fragment_bytes,
            },
        );
        let nodes: Vec<u32> =
            self.0
                .call(3, "probe", |py| (req, p).into_pyobject(py), |o| o.extract());
        probe.extend(nodes.into_iter().map(NodeId));
    }
    fn probed(&mut self, r: &StreamRequest, node: NodeId, round_trip: SimDuration) {
        if self.0.has(4) {
            let req = stream_request(r);
            self.0.call0(4, "probed", |py| {
                (req, node.0, round_trip.as_nanos()).into_pyobject(py)
            });
        }
    }
    fn fetched(&mut self, fetch: &Fetch) {
        if self.0.has(5) {
            let f = types::Fetch {
                interface: fetch.interface,
                storage: fetch.storage.0,
                round_trip: fetch.round_trip.as_nanos(),
                at_storage: fetch.at_storage.map(|d| d.as_nanos()),
                now: ns(fetch.now),
            };
            self.0.call0(5, "fetched", |py| (f,).into_pyobject(py));
        }
    }
}

// ------------------------------------------------------------------------------------------
// transmission

struct PyTransmission(Instance);

impl Transmission for PyTransmission {
    fn block_ready(&mut self, b: ReadyBlock, now: SimTime) {
        let r = types::ReadyBlock {
            token: b.token,
            client: b.client.0,
            bytes: b.bytes,
            stream_rate_bps: b.stream_rate_bps,
            max_rate_bps: b.max_rate_bps,
            packet_bytes: b.packet_bytes,
        };
        self.0
            .call0(0, "block_ready", |py| (r, ns(now)).into_pyobject(py));
    }
    fn poll(&mut self, now: SimTime) -> TxPoll {
        // None: idle; an integer: wait until then; (token, bytes, deadline): send
        let answer: Option<Result<u64, (u32, u32, u64)>> = self.0.call(
            1,
            "poll",
            |py| (ns(now),).into_pyobject(py),
            |o| {
                if o.is_none() {
                    Ok(None)
                } else if let Ok(t) = o.extract::<u64>() {
                    Ok(Some(Ok(t)))
                } else {
                    o.extract().map(|p| Some(Err(p))).map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(format!(
                            "poll answered {o}; it answers None (idle), a time in ns (wait \
                             until) or (token, bytes, deadline) (send)"
                        ))
                    })
                }
            },
        );
        match answer {
            None => TxPoll::Idle,
            Some(Ok(t)) => TxPoll::WaitUntil(SimTime::from_nanos(t)),
            Some(Err((token, bytes, deadline))) => TxPoll::Send(Packet {
                token,
                bytes,
                deadline: SimTime::from_nanos(deadline),
            }),
        }
    }
}

// ------------------------------------------------------------------------------------------
// broadcast.schedule

struct PySchedule(Instance);

impl BroadcastSchedule for PySchedule {
    fn schedule(&self, spec: &ScheduleSpec) -> Result<Schedule, PluginError> {
        let s = types::ScheduleSpec {
            frames: spec.frames,
            delay: spec.delay,
            horizon: spec.horizon,
            chunk_hint: spec.chunk_hint,
        };
        // one list of transmission instants per frame, in frame order
        let frames: Vec<Vec<u32>> =
            self.0
                .call(0, "schedule", |py| (s,).into_pyobject(py), |o| o.extract());
        let mut schedule = Schedule::builder(*spec);
        for mut f in frames {
            schedule.push_frame(&mut f)?;
        }
        Ok(schedule)
    }
    fn uses_chunk_hint(&self) -> bool {
        !self.0.has(1) || self.0.call(1, "uses_chunk_hint", none, |o| o.extract())
    }
}

// ------------------------------------------------------------------------------------------
// receiver.buffer

struct PyClientBuffer(Instance);

impl ClientBuffer for PyClientBuffer {
    fn batch_frames(&self) -> u32 {
        self.0.call(0, "batch_frames", none, |o| o.extract())
    }
    fn inserted(&mut self, frame: u32) {
        if self.0.has(2) {
            self.0.call0(2, "inserted", |py| (frame,).into_pyobject(py));
        }
    }
    fn removed(&mut self, frame: u32, why: Removal) {
        if self.0.has(3) {
            let why = match why {
                Removal::Played => "played",
                Removal::Written => "written",
            };
            self.0
                .call0(3, "removed", |py| (frame, why).into_pyobject(py));
        }
    }
    fn played_direct(&mut self, frame: u32) {
        if self.0.has(4) {
            self.0
                .call0(4, "played_direct", |py| (frame,).into_pyobject(py));
        }
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        let v = types::CacheView {
            words: cache.words().to_vec(),
            len: cache.len(),
            capacity: cache.capacity(),
            pin_limit: cache.pin_limit(),
        };
        let victims: Vec<u32> = self.0.call(
            1,
            "choose_victims",
            |py| (v,).into_pyobject(py),
            |o| o.extract(),
        );
        out.extend(victims);
    }
    fn written(&mut self, extent: ExtentId, frames: &[u32]) {
        if self.0.has(5) {
            let f = frames.to_vec();
            self.0.call0(5, "written", |py| {
                (extent.0, PyList::new(py, f)?).into_pyobject(py)
            });
        }
    }
    fn due_frame(&mut self, extent: ExtentId, frames: &[u32]) -> u32 {
        if !self.0.has(6) {
            return frames[0];
        }
        let f = frames.to_vec();
        self.0.call(
            6,
            "due_frame",
            |py| (extent.0, PyList::new(py, f)?).into_pyobject(py),
            |o| o.extract(),
        )
    }
    fn choose_reads(&mut self, due: u32, extent: ExtentId, room: u32, out: &mut Vec<ExtentId>) {
        if !self.0.has(7) {
            out.push(extent);
            return;
        }
        let extents: Vec<u32> = self.0.call(
            7,
            "choose_reads",
            |py| (due, extent.0, room).into_pyobject(py),
            |o| o.extract(),
        );
        out.extend(extents.into_iter().map(ExtentId));
    }
}

// ------------------------------------------------------------------------------------------
// analytic

struct PyModel(Instance);

impl AnalyticModel for PyModel {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let json = vodbench_plugin_api::abi::model_input_json(input);
        // a dict in (the input's quantities and more), a dict out (values, tables, notes)
        let text: String = self.0.call(
            0,
            "evaluate",
            |py| {
                let input = py.import("json")?.call_method1("loads", (json,))?;
                (input,).into_pyobject(py)
            },
            |o| {
                o.py()
                    .import("json")?
                    .call_method1("dumps", (o,))?
                    .extract()
            },
        );
        serde_json::from_str(&text).map_err(|e| {
            self.0.fail(
                "evaluate",
                format!("answered a dict that is not an analysis: {e}"),
            )
        })
    }
}
