//! A Rust author's side of the C ABI: any [`Plugin`]s, of any kinds, exported as a library the
//! stock `vodbench` loads with `--plugin` — with one macro, [`export_plugins!`].
//!
//! ```
//! use vodbench_plugin_api::ids::RequestId;
//! use vodbench_plugin_api::plugin::*;
//!
//! #[derive(Default)]
//! struct Lifo(Vec<RequestId>);
//! impl DiskScheduler for Lifo {
//!     fn enqueue(&mut self, r: QueuedRequest) { self.0.push(r.id) }
//!     fn dequeue(&mut self, _h: &HeadState) -> Option<RequestId> { self.0.pop() }
//!     fn len(&self) -> usize { self.0.len() }
//! }
//! #[derive(Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
//! #[serde(deny_unknown_fields, default)]
//! struct NoParams {}
//! impl Plugin for Lifo {
//!     type Kind = dyn DiskScheduler;
//!     type Params = NoParams;
//!     const NAME: &'static str = "lifo";
//!     const DESCRIPTION: &'static str = "last in, first out";
//!     fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
//!         Ok(Box::new(Lifo::default()))
//!     }
//! }
//!
//! // in a crate with `crate-type = ["cdylib"]`: exports `vodbench_plugin_library`
//! vodbench_plugin_api::export_plugins!(Lifo);
//!
//! let lib = unsafe { &*vodbench_plugin_library() };
//! assert_eq!(lib.abi_version, vodbench_plugin_api::abi::VB_ABI_VERSION);
//! assert_eq!(lib.policy_count, 1);
//! ```
//!
//! Every call is guarded: a panic in the policy is caught here, its message kept for the
//! host (`last_error`), and the call returns `VB_ERROR`, so that the host stops the run with
//! an error naming the library, the policy and the call.

use super::types::*;
use crate::ids::{BlockId, DiskId, LinkId, NodeId, PageId, RequestId, TerminalId, VideoId};
use crate::plugin::*;
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// A policy kind that can be exported through the C ABI: its function table.
pub trait ExportKind: PluginKind {
    /// The kind's function table, calling a `State<Self>`.
    fn vtable() -> *const c_void;
}

/// One instance behind a state pointer: the policy and the message of its last failed call.
pub struct State<K: ?Sized> {
    obj: Box<K>,
    error: Mutex<CString>,
}

/// The library a crate exports: built once, alive for the process.
pub struct ExportedLibrary {
    library: VbLibrary,
    _policies: Vec<VbPolicy>,
}

// SAFETY: the raw pointers point into the leaked, never-mutated policy table and strings.
unsafe impl Send for ExportedLibrary {}
unsafe impl Sync for ExportedLibrary {}

impl ExportedLibrary {
    /// The library's policies, as the exported symbol returns them.
    pub fn new(policies: Vec<VbPolicy>) -> ExportedLibrary {
        let mut lib = ExportedLibrary {
            library: VbLibrary {
                abi_version: VB_ABI_VERSION,
                sizes: sizes(),
                policy_count: policies.len() as u32,
                policies: std::ptr::null(),
            },
            _policies: policies,
        };
        lib.library.policies = lib._policies.as_ptr();
        lib
    }

    /// The pointer the exported symbol returns.
    pub fn as_ptr(&self) -> *const VbLibrary {
        &self.library
    }
}

/// Exports plugins as a vodbench plugin library: defines the symbol
/// `vodbench_plugin_library` that the stock `vodbench --plugin lib.so` loads. List every
/// [`Plugin`] type of the crate, of any kinds; put `crate-type = ["cdylib"]` in its
/// `Cargo.toml` (with `"rlib"` too to keep linking it statically).
#[macro_export]
macro_rules! export_plugins {
    ($($plugin:ty),* $(,)?) => {
        /// The vodbench plugin library this crate exports (C ABI).
        #[no_mangle]
        pub extern "C" fn vodbench_plugin_library() -> *const $crate::abi::types::VbLibrary {
            static LIBRARY: ::std::sync::OnceLock<$crate::abi::export::ExportedLibrary> =
                ::std::sync::OnceLock::new();
            LIBRARY
                .get_or_init(|| {
                    $crate::abi::export::ExportedLibrary::new(vec![
                        $($crate::abi::export::policy::<$plugin>()),*
                    ])
                })
                .as_ptr()
        }
    };
}

/// A string that lives as long as the process (names, descriptions and schemas live as long
/// as the library; a few per policy).
fn leak(s: &str) -> *const c_char {
    CString::new(s.replace('\0', " "))
        .expect("no NUL")
        .into_raw()
}

/// The same `&'static str` for the same text (component names, quantity names).
fn intern(s: &str) -> &'static str {
    static TABLE: OnceLock<Mutex<BTreeMap<String, &'static str>>> = OnceLock::new();
    let mut t = TABLE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(v) = t.get(s) {
        return v;
    }
    let v: &'static str = Box::leak(s.to_string().into_boxed_str());
    t.insert(s.to_string(), v);
    v
}

/// The policy table entry of plugin `P`.
pub fn policy<P: Plugin>() -> VbPolicy
where
    P::Kind: ExportKind,
{
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<P::Params>();
    VbPolicy {
        kind: <P::Kind as PluginKind>::KIND.abi_id(),
        name: leak(P::NAME),
        description: leak(P::DESCRIPTION),
        params_schema: leak(&schema.as_value().to_string()),
        check: Some(check::<P>),
        create: Some(create::<P>),
        destroy: Some(destroy::<P::Kind>),
        last_error: Some(last_error::<P::Kind>),
        vtable: <P::Kind as ExportKind>::vtable(),
    }
}

/// Writes `key` and `message` into an error the host gave.
///
/// # Safety
/// `err` is null or points to a writable `VbError`.
pub unsafe fn set_error(err: *mut VbError, key: &str, message: &str) {
    if err.is_null() {
        return;
    }
    fn copy(dst: &mut [c_char], s: &str) {
        let n = s.len().min(dst.len() - 1);
        for (d, b) in dst.iter_mut().zip(&s.as_bytes()[..n]) {
            *d = *b as c_char;
        }
        dst[n] = 0;
    }
    let e = &mut *err;
    copy(&mut e.key, key);
    copy(&mut e.message, message);
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    let m = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".into());
    format!("panicked: {m}")
}

fn plugin_error(e: &PluginError) -> (String, String) {
    match e {
        PluginError::InvalidParam { path, message } => (path.clone(), message.clone()),
        e => (String::new(), e.to_string()),
    }
}

unsafe fn params_of<P: Plugin>(json: *const c_char) -> Result<P::Params, PluginError> {
    let text = if json.is_null() {
        "{}"
    } else {
        CStr::from_ptr(json)
            .to_str()
            .map_err(|_| PluginError::Build("parameters are not UTF-8".into()))?
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let params: P::Params = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        PluginError::InvalidParam {
            path: if path == "." { String::new() } else { path },
            message: e.into_inner().to_string().trim_end().to_string(),
        }
    })?;
    P::validate(&params)?;
    Ok(params)
}

unsafe extern "C" fn check<P: Plugin>(
    json: *const c_char,
    out: *mut VbStrSink,
    err: *mut VbError,
) -> i32 {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let params = params_of::<P>(json)?;
        serde_json::to_string(&params).map_err(|e| PluginError::Build(e.to_string()))
    }));
    match r {
        Ok(Ok(text)) => {
            if !out.is_null() {
                ((*out).push)((*out).ctx, text.as_ptr().cast(), text.len());
            }
            VB_OK
        }
        Ok(Err(e)) => {
            let (k, m) = plugin_error(&e);
            set_error(err, &k, &m);
            VB_ERROR
        }
        Err(p) => {
            set_error(err, "", &panic_message(p.as_ref()));
            VB_ERROR
        }
    }
}

unsafe fn build_context<'a>(c: &'a VbBuildContext) -> Result<BuildContext<'a>, PluginError> {
    let text = |p: *const c_char| -> Result<&'a str, PluginError> {
        if p.is_null() {
            return Ok("");
        }
        CStr::from_ptr(p)
            .to_str()
            .map_err(|_| PluginError::Build("build context string is not UTF-8".into()))
    };
    let blocks: &[u32] = if c.video_blocks.is_null() || c.videos == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(c.video_blocks, c.videos)
    };
    Ok(BuildContext::new(
        c.seed,
        intern(text(c.component)?),
        c.index,
        Path::new(text(c.base_dir)?),
    )
    .with_nodes(c.nodes)
    .with_interfaces(c.interfaces)
    .with_managers(c.managers)
    .with_disks_per_node(c.disks_per_node)
    .with_terminals(c.terminals)
    .with_block_bytes(c.block_bytes)
    .with_video_blocks(blocks)
    .with_geometry((c.has_geometry != 0).then_some(DiskGeometry {
        capacity_bytes: c.geometry.capacity_bytes,
        cylinders: c.geometry.cylinders,
    }))
    .with_pages(c.pages))
}

unsafe extern "C" fn create<P: Plugin>(
    json: *const c_char,
    ctx: *const VbBuildContext,
    err: *mut VbError,
) -> *mut c_void {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let params = params_of::<P>(json)?;
        if ctx.is_null() {
            return Err(PluginError::Build("no build context".into()));
        }
        let ctx = build_context(&*ctx)?;
        P::build(&params, &ctx)
    }));
    match r {
        Ok(Ok(obj)) => Box::into_raw(Box::new(State::<P::Kind> {
            obj,
            error: Mutex::new(CString::default()),
        }))
        .cast(),
        Ok(Err(e)) => {
            let (k, m) = plugin_error(&e);
            set_error(err, &k, &m);
            std::ptr::null_mut()
        }
        Err(p) => {
            set_error(err, "", &panic_message(p.as_ref()));
            std::ptr::null_mut()
        }
    }
}

unsafe extern "C" fn destroy<K: ?Sized + 'static>(state: *mut c_void) {
    if !state.is_null() {
        let b = Box::from_raw(state.cast::<State<K>>());
        // a panicking destructor must not unwind into the host
        let _ = catch_unwind(AssertUnwindSafe(move || drop(b)));
    }
}

unsafe extern "C" fn last_error<K: ?Sized + 'static>(state: *mut c_void) -> *const c_char {
    if state.is_null() {
        return std::ptr::null();
    }
    let s = &*state.cast::<State<K>>();
    let e = s.error.lock().unwrap_or_else(|e| e.into_inner());
    if e.as_bytes().is_empty() {
        std::ptr::null()
    } else {
        // stays valid until the next failed call replaces it
        e.as_ptr()
    }
}

/// Runs `f` on the instance behind `state` (a call that may change it), catching a panic.
unsafe fn with_mut<K: ?Sized + 'static>(state: *mut c_void, f: impl FnOnce(&mut K)) -> i32 {
    let s = &mut *state.cast::<State<K>>();
    match catch_unwind(AssertUnwindSafe(|| f(&mut *s.obj))) {
        Ok(()) => VB_OK,
        Err(p) => {
            let m = panic_message(p.as_ref());
            *s.error.lock().unwrap_or_else(|e| e.into_inner()) =
                CString::new(m.replace('\0', " ")).unwrap_or_default();
            VB_ERROR
        }
    }
}

/// Runs `f` on the instance behind `state` (a call that only reads it), catching a panic.
unsafe fn with_ref<K: ?Sized + 'static>(state: *mut c_void, f: impl FnOnce(&K)) -> i32 {
    let s = &*state.cast::<State<K>>();
    match catch_unwind(AssertUnwindSafe(|| f(&*s.obj))) {
        Ok(()) => VB_OK,
        Err(p) => {
            let m = panic_message(p.as_ref());
            *s.error.lock().unwrap_or_else(|e| e.into_inner()) =
                CString::new(m.replace('\0', " ")).unwrap_or_default();
            VB_ERROR
        }
    }
}

/// Records a failure that is not a panic (an error the trait returns).
unsafe fn fail<K: ?Sized + 'static>(state: *mut c_void, message: &str) -> i32 {
    let s = &*state.cast::<State<K>>();
    *s.error.lock().unwrap_or_else(|e| e.into_inner()) =
        CString::new(message.replace('\0', " ")).unwrap_or_default();
    VB_ERROR
}

fn opt<T: Copy>(has: u8, v: T) -> Option<T> {
    (has != 0).then_some(v)
}

fn block(b: &VbBlockId) -> BlockId {
    BlockId {
        video: VideoId(b.video),
        index: b.index,
    }
}

fn vb_block(b: BlockId) -> VbBlockId {
    VbBlockId {
        video: b.video.0,
        index: b.index,
    }
}

fn vb_location(l: Location) -> VbLocation {
    VbLocation {
        node: l.node.0,
        disk: l.disk.0,
        offset: l.offset,
    }
}

fn time(ns: u64) -> SimTime {
    SimTime::from_nanos(ns)
}

fn span(ns: u64) -> SimDuration {
    SimDuration::from_nanos(ns)
}

unsafe fn push_all(sink: *mut VbU32Sink, values: impl IntoIterator<Item = u32>) {
    if sink.is_null() {
        return;
    }
    let s = &*sink;
    for v in values {
        (s.push)(s.ctx, v);
    }
}

// ------------------------------------------------------------------------------------------
// disk.model

impl ExportKind for dyn DiskModel {
    fn vtable() -> *const c_void {
        static V: VbDiskModelVtable = VbDiskModelVtable {
            geometry: Some(dm_geometry),
            cylinder_of: Some(dm_cylinder_of),
            head_cylinder: Some(dm_head_cylinder),
            service: Some(dm_service),
            service_bound: Some(dm_service_bound),
            transfer_includes_bus: Some(dm_transfer_includes_bus),
        };
        (&V as *const VbDiskModelVtable).cast()
    }
}

fn access(a: &VbDiskAccess) -> DiskAccess {
    DiskAccess {
        offset: a.offset,
        bytes: a.bytes,
        write: a.write != 0,
    }
}

unsafe extern "C" fn dm_geometry(s: *mut c_void, out: *mut VbDiskGeometry) -> i32 {
    with_mut::<dyn DiskModel>(s, |m| {
        let g = m.geometry();
        *out = VbDiskGeometry {
            capacity_bytes: g.capacity_bytes,
            cylinders: g.cylinders,
        };
    })
}
unsafe extern "C" fn dm_cylinder_of(s: *mut c_void, offset: u64, out: *mut u32) -> i32 {
    with_mut::<dyn DiskModel>(s, |m| *out = m.cylinder_of(offset))
}
unsafe extern "C" fn dm_head_cylinder(s: *mut c_void, out: *mut u32) -> i32 {
    with_mut::<dyn DiskModel>(s, |m| *out = m.head_cylinder())
}
unsafe extern "C" fn dm_service(
    s: *mut c_void,
    a: *const VbDiskAccess,
    now: u64,
    out: *mut VbServiceTime,
) -> i32 {
    with_mut::<dyn DiskModel>(s, |m| {
        let t = m.service(&access(&*a), time(now));
        *out = VbServiceTime {
            overhead_ns: t.overhead.as_nanos(),
            seek_ns: t.seek.as_nanos(),
            rotation_ns: t.rotation.as_nanos(),
            transfer_ns: t.transfer.as_nanos(),
            cache_hit: t.cache_hit as u8,
        };
    })
}
unsafe extern "C" fn dm_service_bound(
    s: *mut c_void,
    a: *const VbDiskAccess,
    out: *mut u64,
) -> i32 {
    with_mut::<dyn DiskModel>(s, |m| *out = m.service_bound(&access(&*a)).as_nanos())
}

unsafe extern "C" fn dm_transfer_includes_bus(s: *mut c_void, out: *mut u8) -> i32 {
    with_mut::<dyn DiskModel>(s, |m| *out = m.transfer_includes_bus() as u8)
}

// ------------------------------------------------------------------------------------------
// disk.scheduler

impl ExportKind for dyn DiskScheduler {
    fn vtable() -> *const c_void {
        static V: VbDiskSchedulerVtable = VbDiskSchedulerVtable {
            enqueue: Some(ds_enqueue),
            dequeue: Some(ds_dequeue),
            len: Some(ds_len),
        };
        (&V as *const VbDiskSchedulerVtable).cast()
    }
}

unsafe extern "C" fn ds_enqueue(s: *mut c_void, r: *const VbQueuedRequest) -> i32 {
    let r = &*r;
    let q = QueuedRequest {
        id: RequestId(r.id),
        cylinder: r.cylinder,
        offset: r.offset,
        bytes: r.bytes,
        terminal: opt(r.has_terminal, TerminalId(r.terminal)),
        class: if r.class == 0 {
            RequestClass::Demand
        } else {
            RequestClass::Prefetch
        },
        deadline: opt(r.has_deadline, time(r.deadline_ns)),
        arrival: time(r.arrival_ns),
    };
    with_mut::<dyn DiskScheduler>(s, |d| d.enqueue(q))
}
unsafe extern "C" fn ds_dequeue(
    s: *mut c_void,
    h: *const VbHeadState,
    some: *mut u8,
    id: *mut u32,
) -> i32 {
    let h = &*h;
    let head = HeadState {
        now: time(h.now_ns),
        cylinder: h.cylinder,
        cylinders: h.cylinders,
    };
    with_mut::<dyn DiskScheduler>(s, |d| match d.dequeue(&head) {
        Some(r) => {
            *some = 1;
            *id = r.0;
        }
        None => *some = 0,
    })
}
unsafe extern "C" fn ds_len(s: *mut c_void, out: *mut u64) -> i32 {
    with_mut::<dyn DiskScheduler>(s, |d| *out = d.len() as u64)
}

// ------------------------------------------------------------------------------------------
// buffer_pool

impl ExportKind for dyn BufferPool {
    fn vtable() -> *const c_void {
        static V: VbBufferPoolVtable = VbBufferPoolVtable {
            release: Some(bp_release),
            acquire: Some(bp_acquire),
            evict: Some(bp_evict),
            evict_for_prefetch: Some(bp_evict_for_prefetch),
            set_capacity: Some(bp_set_capacity),
            request: Some(bp_request),
            needs_next_access: Some(bp_needs_next_access),
        };
        (&V as *const VbBufferPoolVtable).cast()
    }
}

unsafe extern "C" fn bp_release(s: *mut c_void, page: u32, referenced: u8) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| p.release(PageId(page), referenced != 0))
}
unsafe extern "C" fn bp_acquire(s: *mut c_void, page: u32) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| p.acquire(PageId(page)))
}
unsafe fn put_page(v: Option<PageId>, some: *mut u8, page: *mut u32) {
    match v {
        Some(p) => {
            *some = 1;
            *page = p.0;
        }
        None => *some = 0,
    }
}
unsafe extern "C" fn bp_evict(s: *mut c_void, some: *mut u8, page: *mut u32) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| put_page(p.evict(), some, page))
}
unsafe extern "C" fn bp_evict_for_prefetch(s: *mut c_void, some: *mut u8, page: *mut u32) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| put_page(p.evict_for_prefetch(), some, page))
}
unsafe extern "C" fn bp_set_capacity(s: *mut c_void, bytes: u64) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| p.set_capacity(bytes))
}
unsafe extern "C" fn bp_request(
    s: *mut c_void,
    r: *const VbCacheRequest,
    has_page: u8,
    page: u32,
) -> i32 {
    let r = &*r;
    let req = CacheRequest {
        object: r.object,
        bytes: r.bytes,
        next_access: opt(r.has_next_access, r.next_access),
    };
    with_mut::<dyn BufferPool>(s, |p| p.request(&req, opt(has_page, PageId(page))))
}
unsafe extern "C" fn bp_needs_next_access(s: *mut c_void, out: *mut u8) -> i32 {
    with_mut::<dyn BufferPool>(s, |p| *out = p.needs_next_access() as u8)
}

// ------------------------------------------------------------------------------------------
// layout

impl ExportKind for dyn Layout {
    fn vtable() -> *const c_void {
        static V: VbLayoutVtable = VbLayoutVtable {
            locate: Some(ly_locate),
            next_on_same_disk: Some(ly_next),
            pieces: Some(ly_pieces),
            locate_piece: Some(ly_locate_piece),
        };
        (&V as *const VbLayoutVtable).cast()
    }
}

unsafe extern "C" fn ly_locate(s: *mut c_void, b: *const VbBlockId, out: *mut VbLocation) -> i32 {
    let b = block(&*b);
    with_ref::<dyn Layout>(s, |l| *out = vb_location(l.locate(b)))
}
unsafe extern "C" fn ly_next(
    s: *mut c_void,
    b: *const VbBlockId,
    some: *mut u8,
    out: *mut VbBlockId,
) -> i32 {
    let b = block(&*b);
    with_ref::<dyn Layout>(s, |l| match l.next_on_same_disk(b) {
        Some(n) => {
            *some = 1;
            *out = vb_block(n);
        }
        None => *some = 0,
    })
}
unsafe extern "C" fn ly_pieces(s: *mut c_void, out: *mut u32) -> i32 {
    with_ref::<dyn Layout>(s, |l| *out = l.pieces())
}
unsafe extern "C" fn ly_locate_piece(
    s: *mut c_void,
    b: *const VbBlockId,
    piece: u32,
    out: *mut VbLocation,
) -> i32 {
    let b = block(&*b);
    with_ref::<dyn Layout>(s, |l| *out = vb_location(l.locate_piece(b, piece)))
}

/// The host's layout, as a loaded prefetcher sees it through a [`VbLayoutView`].
struct ViewLayout<'a>(&'a VbLayoutView);

impl Layout for ViewLayout<'_> {
    fn locate(&self, b: BlockId) -> Location {
        let mut out = VbLocation::default();
        // SAFETY: the host's view is valid for the duration of the call it was passed to.
        unsafe { (self.0.locate)(self.0.ctx, &vb_block(b), &mut out) };
        Location {
            node: NodeId(out.node),
            disk: DiskId(out.disk),
            offset: out.offset,
        }
    }
    fn next_on_same_disk(&self, b: BlockId) -> Option<BlockId> {
        let mut out = VbBlockId::default();
        // SAFETY: as above.
        let some = unsafe { (self.0.next_on_same_disk)(self.0.ctx, &vb_block(b), &mut out) };
        (some != 0).then(|| block(&out))
    }
}

// SAFETY: a view is only used during the call it was passed to, on the calling thread.
unsafe impl Send for ViewLayout<'_> {}
unsafe impl Sync for ViewLayout<'_> {}

// ------------------------------------------------------------------------------------------
// prefetcher

impl ExportKind for dyn Prefetcher {
    fn vtable() -> *const c_void {
        static V: VbPrefetcherVtable = VbPrefetcherVtable {
            on_reference: Some(pf_on_reference),
            poll: Some(pf_poll),
        };
        (&V as *const VbPrefetcherVtable).cast()
    }
}

unsafe extern "C" fn pf_on_reference(
    s: *mut c_void,
    r: *const VbReference,
    layout: *const VbLayoutView,
    some: *mut u8,
    disk: *mut u32,
) -> i32 {
    let r = &*r;
    let reference = Reference {
        terminal: TerminalId(r.terminal),
        block: block(&r.block),
        disk: DiskId(r.disk),
        deadline: time(r.deadline_ns),
        block_playout: span(r.block_playout_ns),
        now: time(r.now_ns),
        hint: opt(r.has_hint, ()).map(|()| PrefetchHint {
            block: block(&r.hint_block),
            deadline: time(r.hint_deadline_ns),
        }),
    };
    let view = ViewLayout(&*layout);
    with_mut::<dyn Prefetcher>(s, |p| match p.on_reference(&reference, &view) {
        Some(d) => {
            *some = 1;
            *disk = d.0;
        }
        None => *some = 0,
    })
}
unsafe extern "C" fn pf_poll(
    s: *mut c_void,
    disk: u32,
    in_flight: u32,
    now: u64,
    out: *mut VbPrefetchPoll,
) -> i32 {
    with_mut::<dyn Prefetcher>(s, |p| {
        *out = match p.poll(DiskId(disk), in_flight, time(now)) {
            PrefetchPoll::Idle => VbPrefetchPoll::default(),
            PrefetchPoll::WaitUntil(t) => VbPrefetchPoll {
                tag: VB_POLL_WAIT,
                wait_until_ns: t.as_nanos(),
                ..VbPrefetchPoll::default()
            },
            PrefetchPoll::Issue(c) => VbPrefetchPoll {
                tag: VB_POLL_ACT,
                candidate: VbPrefetchCandidate {
                    block: vb_block(c.block),
                    terminal: c.terminal.0,
                    has_deadline: c.deadline.is_some() as u8,
                    deadline_ns: c.deadline.map_or(0, SimTime::as_nanos),
                },
                wait_until_ns: 0,
            },
        }
    })
}

// ------------------------------------------------------------------------------------------
// server.network

impl ExportKind for dyn Interconnect {
    fn vtable() -> *const c_void {
        static V: VbInterconnectVtable = VbInterconnectVtable {
            links: Some(ic_links),
            route: Some(ic_route),
        };
        (&V as *const VbInterconnectVtable).cast()
    }
}

fn endpoint(e: VbEndpoint) -> Endpoint {
    if e.kind == 0 {
        Endpoint::Node(NodeId(e.id))
    } else {
        Endpoint::Terminal(TerminalId(e.id))
    }
}

unsafe extern "C" fn ic_links(s: *mut c_void, names: *mut VbStrSink) -> i32 {
    with_mut::<dyn Interconnect>(s, |n| {
        for name in n.links() {
            ((*names).push)((*names).ctx, name.as_ptr().cast(), name.len());
        }
    })
}
unsafe extern "C" fn ic_route(
    s: *mut c_void,
    from: VbEndpoint,
    to: VbEndpoint,
    bytes: u64,
    path: *mut VbU32Sink,
    out: *mut VbTransfer,
) -> i32 {
    let mut p: Vec<LinkId> = Vec::new();
    with_mut::<dyn Interconnect>(s, |n| {
        let t = n.route(endpoint(from), endpoint(to), bytes, &mut p);
        push_all(path, p.iter().map(|l| l.0));
        *out = VbTransfer {
            setup_ns: t.setup.as_nanos(),
            hold_ns: t.hold.as_nanos(),
            delivery_ns: t.delivery.as_nanos(),
        };
    })
}

// ------------------------------------------------------------------------------------------
// admission

impl ExportKind for dyn Admission {
    fn vtable() -> *const c_void {
        static V: VbAdmissionVtable = VbAdmissionVtable {
            admit: Some(ad_admit),
            ended: Some(ad_ended),
            observes: Some(ad_observes),
            probe: Some(ad_probe),
            probed: Some(ad_probed),
            fetched: Some(ad_fetched),
        };
        (&V as *const VbAdmissionVtable).cast()
    }
}

fn stream_request(r: &VbStreamRequest) -> StreamRequest {
    StreamRequest {
        terminal: TerminalId(r.terminal),
        video: VideoId(r.video),
        bit_rate: r.bit_rate,
        buffer_bytes: r.buffer_bytes,
        interface: opt(r.has_interface, r.interface),
        now: time(r.now_ns),
    }
}

unsafe extern "C" fn ad_admit(
    s: *mut c_void,
    r: *const VbStreamRequest,
    load: *const VbServerLoad,
    out: *mut VbVerdict,
) -> i32 {
    let req = stream_request(&*r);
    let l = &*load;
    let load = ServerLoad {
        active_streams: l.active_streams,
        terminals: l.terminals,
        interface_memory: l.interface_memory,
    };
    with_mut::<dyn Admission>(s, |a| {
        *out = match a.admit(&req, &load) {
            Verdict::Admit => VbVerdict {
                admit: 1,
                reason: std::ptr::null(),
            },
            Verdict::Refuse { reason } => VbVerdict {
                admit: 0,
                reason: leak_reason(reason),
            },
        }
    })
}

/// A refusal reason as a C string that outlives the call (one per distinct reason).
fn leak_reason(reason: &'static str) -> *const c_char {
    static TABLE: OnceLock<Mutex<BTreeMap<&'static str, usize>>> = OnceLock::new();
    let mut t = TABLE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    *t.entry(reason).or_insert_with(|| leak(reason) as usize) as *const c_char
}

unsafe extern "C" fn ad_ended(s: *mut c_void, terminal: u32, now: u64) -> i32 {
    with_mut::<dyn Admission>(s, |a| a.ended(TerminalId(terminal), time(now)))
}
unsafe extern "C" fn ad_observes(s: *mut c_void, out: *mut u8) -> i32 {
    with_mut::<dyn Admission>(s, |a| *out = a.observes() as u8)
}
unsafe extern "C" fn ad_probe(
    s: *mut c_void,
    r: *const VbStreamRequest,
    p: *const VbPlacement,
    nodes: *mut VbU32Sink,
) -> i32 {
    let req = stream_request(&*r);
    let p = &*p;
    let holders: Vec<NodeId> = if p.holders.is_null() {
        Vec::new()
    } else {
        std::slice::from_raw_parts(p.holders, p.holder_count)
            .iter()
            .map(|&n| NodeId(n))
            .collect()
    };
    let placement = Placement::new(&holders, span(p.round_ns), p.fragment_bytes);
    let mut probe = Vec::new();
    with_mut::<dyn Admission>(s, |a| {
        a.probe(&req, &placement, &mut probe);
        push_all(nodes, probe.iter().map(|n| n.0));
    })
}
unsafe extern "C" fn ad_probed(
    s: *mut c_void,
    r: *const VbStreamRequest,
    node: u32,
    rtt: u64,
) -> i32 {
    let req = stream_request(&*r);
    with_mut::<dyn Admission>(s, |a| a.probed(&req, NodeId(node), span(rtt)))
}
unsafe extern "C" fn ad_fetched(s: *mut c_void, f: *const VbFetch) -> i32 {
    let f = &*f;
    let fetch = Fetch::new(
        opt(f.has_interface, f.interface),
        NodeId(f.storage),
        span(f.round_trip_ns),
        opt(f.has_at_storage, span(f.at_storage_ns)),
        time(f.now_ns),
    );
    with_mut::<dyn Admission>(s, |a| a.fetched(&fetch))
}

// ------------------------------------------------------------------------------------------
// transmission

impl ExportKind for dyn Transmission {
    fn vtable() -> *const c_void {
        static V: VbTransmissionVtable = VbTransmissionVtable {
            block_ready: Some(tx_block_ready),
            poll: Some(tx_poll),
        };
        (&V as *const VbTransmissionVtable).cast()
    }
}

unsafe extern "C" fn tx_block_ready(s: *mut c_void, b: *const VbReadyBlock, now: u64) -> i32 {
    let b = &*b;
    let block = ReadyBlock {
        token: b.token,
        client: TerminalId(b.client),
        bytes: b.bytes,
        stream_rate_bps: b.stream_rate_bps,
        max_rate_bps: b.max_rate_bps,
        packet_bytes: opt(b.has_packet_bytes, b.packet_bytes),
    };
    with_mut::<dyn Transmission>(s, |t| t.block_ready(block, time(now)))
}
unsafe extern "C" fn tx_poll(s: *mut c_void, now: u64, out: *mut VbTxPoll) -> i32 {
    with_mut::<dyn Transmission>(s, |t| {
        *out = match t.poll(time(now)) {
            TxPoll::Idle => VbTxPoll::default(),
            TxPoll::WaitUntil(w) => VbTxPoll {
                tag: VB_POLL_WAIT,
                wait_until_ns: w.as_nanos(),
                ..VbTxPoll::default()
            },
            TxPoll::Send(p) => VbTxPoll {
                tag: VB_POLL_ACT,
                packet: VbPacket {
                    token: p.token,
                    bytes: p.bytes,
                    deadline_ns: p.deadline.as_nanos(),
                },
                wait_until_ns: 0,
            },
        }
    })
}

// ------------------------------------------------------------------------------------------
// broadcast.schedule

impl ExportKind for dyn BroadcastSchedule {
    fn vtable() -> *const c_void {
        static V: VbBroadcastScheduleVtable = VbBroadcastScheduleVtable {
            schedule: Some(bs_schedule),
            uses_chunk_hint: Some(bs_uses_chunk_hint),
        };
        (&V as *const VbBroadcastScheduleVtable).cast()
    }
}

unsafe extern "C" fn bs_schedule(
    s: *mut c_void,
    spec: *const VbScheduleSpec,
    frames: *mut VbFrameSink,
) -> i32 {
    let sp = &*spec;
    let spec = ScheduleSpec {
        frames: sp.frames,
        delay: sp.delay,
        horizon: sp.horizon,
        chunk_hint: sp.chunk_hint,
    };
    let mut result = Ok(());
    let status = with_ref::<dyn BroadcastSchedule>(s, |b| {
        result = b.schedule(&spec).map(|sched| {
            for f in 0..sched.frames_pushed() {
                let t = sched.transmissions(f);
                if ((*frames).push_frame)((*frames).ctx, t.as_ptr(), t.len()) != VB_OK {
                    break;
                }
            }
        });
    });
    match result {
        Err(e) if status == VB_OK => fail::<dyn BroadcastSchedule>(s, &e.to_string()),
        _ => status,
    }
}
unsafe extern "C" fn bs_uses_chunk_hint(s: *mut c_void, out: *mut u8) -> i32 {
    with_ref::<dyn BroadcastSchedule>(s, |b| *out = b.uses_chunk_hint() as u8)
}

// ------------------------------------------------------------------------------------------
// receiver.buffer

impl ExportKind for dyn ClientBuffer {
    fn vtable() -> *const c_void {
        static V: VbClientBufferVtable = VbClientBufferVtable {
            batch_frames: Some(cb_batch_frames),
            inserted: Some(cb_inserted),
            removed: Some(cb_removed),
            played_direct: Some(cb_played_direct),
            choose_victims: Some(cb_choose_victims),
            written: Some(cb_written),
            due_frame: Some(cb_due_frame),
            choose_reads: Some(cb_choose_reads),
        };
        (&V as *const VbClientBufferVtable).cast()
    }
}

unsafe fn frames_of<'a>(p: *const u32, n: usize) -> &'a [u32] {
    if p.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

unsafe extern "C" fn cb_batch_frames(s: *mut c_void, out: *mut u32) -> i32 {
    with_mut::<dyn ClientBuffer>(s, |c| *out = c.batch_frames())
}
unsafe extern "C" fn cb_inserted(s: *mut c_void, frame: u32) -> i32 {
    with_mut::<dyn ClientBuffer>(s, |c| c.inserted(frame))
}
unsafe extern "C" fn cb_removed(s: *mut c_void, frame: u32, why: u8) -> i32 {
    let why = if why == 0 {
        Removal::Played
    } else {
        Removal::Written
    };
    with_mut::<dyn ClientBuffer>(s, |c| c.removed(frame, why))
}
unsafe extern "C" fn cb_played_direct(s: *mut c_void, frame: u32) -> i32 {
    with_mut::<dyn ClientBuffer>(s, |c| c.played_direct(frame))
}
unsafe extern "C" fn cb_choose_victims(
    s: *mut c_void,
    cache: *const VbCacheView,
    victims: *mut VbU32Sink,
) -> i32 {
    let v = &*cache;
    let words = if v.words.is_null() {
        &[][..]
    } else {
        std::slice::from_raw_parts(v.words, v.word_count)
    };
    let view = CacheView::new(words, v.len, v.capacity, opt(v.has_pin_limit, v.pin_limit));
    let mut out = Vec::new();
    with_mut::<dyn ClientBuffer>(s, |c| {
        c.choose_victims(&view, &mut out);
        push_all(victims, out.iter().copied());
    })
}
unsafe extern "C" fn cb_written(s: *mut c_void, extent: u32, frames: *const u32, n: usize) -> i32 {
    let f = frames_of(frames, n);
    with_mut::<dyn ClientBuffer>(s, |c| c.written(ExtentId(extent), f))
}
unsafe extern "C" fn cb_due_frame(
    s: *mut c_void,
    extent: u32,
    frames: *const u32,
    n: usize,
    out: *mut u32,
) -> i32 {
    let f = frames_of(frames, n);
    with_mut::<dyn ClientBuffer>(s, |c| *out = c.due_frame(ExtentId(extent), f))
}
unsafe extern "C" fn cb_choose_reads(
    s: *mut c_void,
    due: u32,
    extent: u32,
    room: u32,
    extents: *mut VbU32Sink,
) -> i32 {
    let mut out = Vec::new();
    with_mut::<dyn ClientBuffer>(s, |c| {
        c.choose_reads(due, ExtentId(extent), room, &mut out);
        push_all(extents, out.iter().map(|e| e.0));
    })
}

// ------------------------------------------------------------------------------------------
// analytic

impl ExportKind for dyn AnalyticModel {
    fn vtable() -> *const c_void {
        static V: VbAnalyticModelVtable = VbAnalyticModelVtable {
            evaluate: Some(am_evaluate),
        };
        (&V as *const VbAnalyticModelVtable).cast()
    }
}

/// A model input as it crosses the boundary (JSON): the inverse of [`model_input_json`].
fn model_input(text: &str) -> Result<ModelInput, PluginError> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| PluginError::Build(format!("model input is not JSON: {e}")))?;
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("");
    let mut input = ModelInput::new(intern(s("system")), intern(s("slot")));
    if let Some(q) = v.get("quantities").and_then(|q| q.as_object()) {
        for (name, q) in q {
            let value = q.get("value").and_then(|x| x.as_f64()).unwrap_or(f64::NAN);
            let key = q.get("key").and_then(|x| x.as_str()).unwrap_or("");
            input.set(intern(name), value, intern(key));
        }
    }
    Ok(input)
}

/// A model input as JSON, as it crosses the boundary: `{"system", "slot", "quantities":
/// {name: {"value", "key"}}}`.
pub fn model_input_json(input: &ModelInput) -> String {
    let q: serde_json::Map<String, serde_json::Value> = input
        .quantities()
        .map(|(n, q)| {
            (
                n.to_string(),
                serde_json::json!({"value": q.value, "key": q.key}),
            )
        })
        .collect();
    serde_json::json!({"system": input.system(), "slot": input.slot(), "quantities": q}).to_string()
}

unsafe extern "C" fn am_evaluate(
    s: *mut c_void,
    input: *const c_char,
    out: *mut VbStrSink,
    err: *mut VbError,
) -> i32 {
    let text = if input.is_null() {
        ""
    } else {
        CStr::from_ptr(input).to_str().unwrap_or("")
    };
    let mut result = Err(PluginError::Build("not evaluated".into()));
    let status = with_ref::<dyn AnalyticModel>(s, |m| {
        result = model_input(text).and_then(|i| m.evaluate(&i));
    });
    if status != VB_OK {
        return status;
    }
    match result {
        Ok(a) => {
            let json = serde_json::to_string(&a).unwrap_or_default();
            ((*out).push)((*out).ctx, json.as_ptr().cast(), json.len());
            VB_OK
        }
        Err(e) => {
            let (k, m) = plugin_error(&e);
            set_error(err, &k, &m);
            VB_ERROR
        }
    }
}
