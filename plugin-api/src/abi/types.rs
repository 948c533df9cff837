//! The data and function tables that cross the boundary, as plain `#[repr(C)]` items.
//!
//! `include/vodbench_plugin.h` is generated from this file by cbindgen (the test
//! `plugin-api/tests/header.rs` fails when the committed header is stale). Conventions:
//!
//! * times and durations are `uint64_t` nanoseconds (`*_ns`);
//! * an optional value is a `has_*` byte (0 or 1) beside the value;
//! * every call returns `VB_OK` (0) or `VB_ERROR`; after `VB_ERROR` the host asks the policy's
//!   `last_error` for a message and stops the run, naming the library, the policy and the call;
//! * answers come back through out-pointers the host owns; lists through a [`VbU32Sink`];
//! * strings are UTF-8 and NUL-terminated; a string the library returns must stay valid until
//!   the next call on the same state (names and descriptions: as long as the library is
//!   loaded);
//! * a function pointer marked optional may be NULL: the host then does what the Rust trait's
//!   default method does.

#![allow(missing_docs)] // every item is documented in the header's terms below

use std::ffi::{c_char, c_void};

/// The version of this ABI. A library built for another version is refused, both versions
/// named. Raised whenever a struct below changes.
pub const VB_ABI_VERSION: u32 = 1;

/// A call succeeded.
pub const VB_OK: i32 = 0;
/// A call failed: the host reads `last_error` and stops the run.
pub const VB_ERROR: i32 = 1;

/// `VbPolicy::kind` of a disk model (`[disk.model]`).
pub const VB_KIND_DISK_MODEL: u32 = 1;
/// `VbPolicy::kind` of a disk scheduler (`[disk.scheduler]`).
pub const VB_KIND_DISK_SCHEDULER: u32 = 2;
/// `VbPolicy::kind` of a buffer pool (`[buffer_pool]`).
pub const VB_KIND_BUFFER_POOL: u32 = 3;
/// `VbPolicy::kind` of a prefetcher (`[prefetcher]`).
pub const VB_KIND_PREFETCHER: u32 = 4;
/// `VbPolicy::kind` of a layout (`[layout]`).
pub const VB_KIND_LAYOUT: u32 = 5;
/// `VbPolicy::kind` of an interconnect (`[server.network]`).
pub const VB_KIND_INTERCONNECT: u32 = 6;
/// `VbPolicy::kind` of an admission policy (`[admission]`).
pub const VB_KIND_ADMISSION: u32 = 7;
/// `VbPolicy::kind` of a transmission scheduler (`[transmission]`).
pub const VB_KIND_TRANSMISSION: u32 = 8;
/// `VbPolicy::kind` of a broadcast schedule (`[broadcast.schedule]`).
pub const VB_KIND_BROADCAST_SCHEDULE: u32 = 9;
/// `VbPolicy::kind` of a broadcast receiver's buffer (`[receiver.buffer]`).
pub const VB_KIND_CLIENT_BUFFER: u32 = 10;
/// `VbPolicy::kind` of an analytic model (`[analytic]`).
pub const VB_KIND_ANALYTIC_MODEL: u32 = 11;

/// `VbPrefetchPoll::tag` and `VbTxPoll::tag`: nothing to do until the next event.
pub const VB_POLL_IDLE: u8 = 0;
/// `VbPrefetchPoll::tag`: read `candidate` now; `VbTxPoll::tag`: send `packet` now.
pub const VB_POLL_ACT: u8 = 1;
/// `VbPrefetchPoll::tag` and `VbTxPoll::tag`: nothing now, ask again at `wait_until_ns`.
pub const VB_POLL_WAIT: u8 = 2;

/// The name of the one symbol a library exports: a `VbLibraryFn`.
pub const VB_LIBRARY_SYMBOL: &str = "vodbench_plugin_library";

/// The sizes of the ABI's structs as the library was compiled: the host refuses a library
/// whose sizes differ from its own, naming the struct.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct VbSizes {
    pub library: u32,
    pub policy: u32,
    pub error: u32,
    pub build_context: u32,
    pub disk_model: u32,
    pub disk_scheduler: u32,
    pub buffer_pool: u32,
    pub prefetcher: u32,
    pub layout: u32,
    pub interconnect: u32,
    pub admission: u32,
    pub transmission: u32,
    pub broadcast_schedule: u32,
    pub client_buffer: u32,
    pub analytic_model: u32,
}

/// What `vodbench_plugin_library()` returns: the ABI version, the struct sizes and the
/// policies. Must stay valid while the library is loaded.
#[repr(C)]
pub struct VbLibrary {
    /// `VB_ABI_VERSION` as the library was compiled; checked before anything else is read.
    pub abi_version: u32,
    pub sizes: VbSizes,
    pub policy_count: u32,
    pub policies: *const VbPolicy,
}

/// The exported symbol's type.
pub type VbLibraryFn = unsafe extern "C" fn() -> *const VbLibrary;

/// An error a library reports when creating or checking a policy: a message and, for a bad
/// parameter, its dotted key inside the policy's table (empty for the table itself).
#[repr(C)]
pub struct VbError {
    pub key: [c_char; 128],
    pub message: [c_char; 512],
}

/// Receives a list of numbers (request ids, nodes, links, frames, extents) from a call.
#[repr(C)]
pub struct VbU32Sink {
    pub ctx: *mut c_void,
    pub push: unsafe extern "C" fn(ctx: *mut c_void, value: u32),
}

/// Receives a string (UTF-8, `len` bytes, no NUL needed) from a call.
#[repr(C)]
pub struct VbStrSink {
    pub ctx: *mut c_void,
    pub push: unsafe extern "C" fn(ctx: *mut c_void, text: *const c_char, len: usize),
}

/// One policy of a library: its kind, name, description, parameter schema, constructor and
/// the kind's function table.
#[repr(C)]
pub struct VbPolicy {
    /// One of the `VB_KIND_*` constants.
    pub kind: u32,
    /// The name scenarios choose it by.
    pub name: *const c_char,
    /// One line for `vodbench plugins`.
    pub description: *const c_char,
    /// The JSON Schema of its parameters (an object schema with `properties`, `required`,
    /// `default`s; `additionalProperties: false` to refuse unknown keys). NULL: it takes none.
    pub params_schema: *const c_char,
    /// Optional: checks parameters (JSON, the scenario's table without `name`) beyond the
    /// schema and pushes them back with defaults filled in; `VB_ERROR` with `err` filled when
    /// they are wrong. NULL: the host fills the schema's defaults.
    pub check: Option<
        unsafe extern "C" fn(
            params_json: *const c_char,
            out: *mut VbStrSink,
            err: *mut VbError,
        ) -> i32,
    >,
    /// Creates one instance (as often as the Rust trait's `Plugin::build` is called) from the
    /// checked parameters; NULL with `err` filled when it cannot.
    pub create: Option<
        unsafe extern "C" fn(
            params_json: *const c_char,
            ctx: *const VbBuildContext,
            err: *mut VbError,
        ) -> *mut c_void,
    >,
    /// Frees an instance.
    pub destroy: Option<unsafe extern "C" fn(state: *mut c_void)>,
    /// The message of the last call on `state` that returned `VB_ERROR` (NULL: none).
    pub last_error: Option<unsafe extern "C" fn(state: *mut c_void) -> *const c_char>,
    /// The kind's function table: a `VbDiskSchedulerVtable` for `VB_KIND_DISK_SCHEDULER`, and
    /// so on.
    pub vtable: *const c_void,
}

/// The disk geometry (`DiskGeometry`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct VbDiskGeometry {
    pub capacity_bytes: u64,
    pub cylinders: u32,
}

/// What a policy may know when it is created (`BuildContext`).
#[repr(C)]
pub struct VbBuildContext {
    pub seed: u64,
    /// Component name for random streams (`disk`, `node`, `layout`).
    pub component: *const c_char,
    pub index: u64,
    pub nodes: u32,
    pub interfaces: u32,
    pub managers: u32,
    pub disks_per_node: u32,
    pub terminals: u32,
    pub pages: u32,
    pub block_bytes: u64,
    /// Blocks of each video, `videos` entries.
    pub video_blocks: *const u32,
    pub videos: usize,
    pub has_geometry: u8,
    pub geometry: VbDiskGeometry,
    /// The scenario's folder (UTF-8).
    pub base_dir: *const c_char,
}

// ---------------------------------------------------------------------------------------
// disk.model

/// One disk access (`DiskAccess`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbDiskAccess {
    pub offset: u64,
    pub bytes: u64,
    pub write: u8,
}

/// The time one access took, by part (`ServiceTime`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbServiceTime {
    pub overhead_ns: u64,
    pub seek_ns: u64,
    pub rotation_ns: u64,
    pub transfer_ns: u64,
    pub cache_hit: u8,
}

/// `[disk.model]`: the `DiskModel` trait.
#[repr(C)]
pub struct VbDiskModelVtable {
    pub geometry: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut VbDiskGeometry) -> i32>,
    pub cylinder_of:
        Option<unsafe extern "C" fn(state: *mut c_void, offset: u64, out: *mut u32) -> i32>,
    pub head_cylinder: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u32) -> i32>,
    pub service: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            access: *const VbDiskAccess,
            now_ns: u64,
            out: *mut VbServiceTime,
        ) -> i32,
    >,
    pub service_bound: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            access: *const VbDiskAccess,
            out_ns: *mut u64,
        ) -> i32,
    >,
    /// Optional (NULL: 0): whether `service`'s transfer includes the drive's own interface
    /// to the host, not only the media (such a model is refused behind a buffered
    /// `[server.bus]`).
    pub transfer_includes_bus:
        Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u8) -> i32>,
}

// ---------------------------------------------------------------------------------------
// disk.scheduler

/// A queued disk request (`QueuedRequest`). `class`: 0 demand, 1 prefetch.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbQueuedRequest {
    pub id: u32,
    pub cylinder: u32,
    pub offset: u64,
    pub bytes: u64,
    pub has_terminal: u8,
    pub terminal: u32,
    pub class: u8,
    pub has_deadline: u8,
    pub deadline_ns: u64,
    pub arrival_ns: u64,
}

/// The disk's state when the scheduler chooses (`HeadState`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbHeadState {
    pub now_ns: u64,
    pub cylinder: u32,
    pub cylinders: u32,
}

/// `[disk.scheduler]`: the `DiskScheduler` trait. `dequeue` sets `*some` to 0 when it holds
/// no request, else 1 and `*id` to a request it was given and has not returned.
#[repr(C)]
pub struct VbDiskSchedulerVtable {
    pub enqueue:
        Option<unsafe extern "C" fn(state: *mut c_void, request: *const VbQueuedRequest) -> i32>,
    pub dequeue: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            head: *const VbHeadState,
            some: *mut u8,
            id: *mut u32,
        ) -> i32,
    >,
    pub len: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u64) -> i32>,
}

// ---------------------------------------------------------------------------------------
// buffer_pool

/// One request of a cache replay (`CacheRequest`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbCacheRequest {
    pub object: u64,
    pub bytes: u64,
    pub has_next_access: u8,
    pub next_access: u64,
}

/// `[buffer_pool]`: the `BufferPool` trait. `evict` and `evict_for_prefetch` set `*some` to 0
/// when no page is evictable, else 1 and `*page`.
#[repr(C)]
pub struct VbBufferPoolVtable {
    pub release: Option<unsafe extern "C" fn(state: *mut c_void, page: u32, referenced: u8) -> i32>,
    pub acquire: Option<unsafe extern "C" fn(state: *mut c_void, page: u32) -> i32>,
    pub evict:
        Option<unsafe extern "C" fn(state: *mut c_void, some: *mut u8, page: *mut u32) -> i32>,
    /// Optional (NULL: `evict`).
    pub evict_for_prefetch:
        Option<unsafe extern "C" fn(state: *mut c_void, some: *mut u8, page: *mut u32) -> i32>,
    /// Optional (NULL: ignored).
    pub set_capacity: Option<unsafe extern "C" fn(state: *mut c_void, bytes: u64) -> i32>,
    /// Optional (NULL: ignored).
    pub request: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            request: *const VbCacheRequest,
            has_page: u8,
            page: u32,
        ) -> i32,
    >,
    /// Optional (NULL: 0).
    pub needs_next_access: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u8) -> i32>,
}

// ---------------------------------------------------------------------------------------
// layout

/// One stripe block (`BlockId`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbBlockId {
    pub video: u32,
    pub index: u32,
}

/// Where a block lives (`Location`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbLocation {
    pub node: u32,
    pub disk: u32,
    pub offset: u64,
}

/// `[layout]`: the `Layout` trait. Its calls only read the state and may come from several
/// threads at once.
#[repr(C)]
pub struct VbLayoutVtable {
    pub locate: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            block: *const VbBlockId,
            out: *mut VbLocation,
        ) -> i32,
    >,
    pub next_on_same_disk: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            block: *const VbBlockId,
            some: *mut u8,
            out: *mut VbBlockId,
        ) -> i32,
    >,
    /// Optional (NULL: 1).
    pub pieces: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u32) -> i32>,
    /// Optional (NULL: `locate`).
    pub locate_piece: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            block: *const VbBlockId,
            piece: u32,
            out: *mut VbLocation,
        ) -> i32,
    >,
}

/// The run's layout, as a prefetcher may ask it (host functions).
#[repr(C)]
pub struct VbLayoutView {
    pub ctx: *const c_void,
    pub locate:
        unsafe extern "C" fn(ctx: *const c_void, block: *const VbBlockId, out: *mut VbLocation),
    /// Returns 1 and sets `*out` when there is a next block on the same disk, else 0.
    pub next_on_same_disk: unsafe extern "C" fn(
        ctx: *const c_void,
        block: *const VbBlockId,
        out: *mut VbBlockId,
    ) -> u8,
}

// ---------------------------------------------------------------------------------------
// prefetcher

/// A terminal's reference to a block (`Reference`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbReference {
    pub terminal: u32,
    pub block: VbBlockId,
    pub disk: u32,
    pub deadline_ns: u64,
    pub block_playout_ns: u64,
    pub now_ns: u64,
    pub has_hint: u8,
    pub hint_block: VbBlockId,
    pub hint_deadline_ns: u64,
}

/// A block to read ahead (`PrefetchCandidate`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbPrefetchCandidate {
    pub block: VbBlockId,
    pub terminal: u32,
    pub has_deadline: u8,
    pub deadline_ns: u64,
}

/// A prefetcher's answer (`PrefetchPoll`): `tag` is `VB_POLL_IDLE`, `VB_POLL_ACT` (issue
/// `candidate`) or `VB_POLL_WAIT` (until `wait_until_ns`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbPrefetchPoll {
    pub tag: u8,
    pub candidate: VbPrefetchCandidate,
    pub wait_until_ns: u64,
}

/// `[prefetcher]`: the `Prefetcher` trait.
#[repr(C)]
pub struct VbPrefetcherVtable {
    pub on_reference: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            reference: *const VbReference,
            layout: *const VbLayoutView,
            some: *mut u8,
            disk: *mut u32,
        ) -> i32,
    >,
    pub poll: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            disk: u32,
            in_flight: u32,
            now_ns: u64,
            out: *mut VbPrefetchPoll,
        ) -> i32,
    >,
}

// ---------------------------------------------------------------------------------------
// server.network

/// One end of a message (`Endpoint`): `kind` 0 a node, 1 a terminal.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbEndpoint {
    pub kind: u8,
    pub id: u32,
}

/// A message's timing (`Transfer`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbTransfer {
    pub setup_ns: u64,
    pub hold_ns: u64,
    pub delivery_ns: u64,
}

/// `[server.network]`: the `Interconnect` trait. `links` pushes each link's name;
/// `route` pushes the path's link numbers into `path`.
#[repr(C)]
pub struct VbInterconnectVtable {
    pub links: Option<unsafe extern "C" fn(state: *mut c_void, names: *mut VbStrSink) -> i32>,
    pub route: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            from: VbEndpoint,
            to: VbEndpoint,
            bytes: u64,
            path: *mut VbU32Sink,
            out: *mut VbTransfer,
        ) -> i32,
    >,
}

// ---------------------------------------------------------------------------------------
// admission

/// A request to start a stream (`StreamRequest`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbStreamRequest {
    pub terminal: u32,
    pub video: u32,
    pub bit_rate: u64,
    pub buffer_bytes: u64,
    pub has_interface: u8,
    pub interface: u32,
    pub now_ns: u64,
}

/// The server's load (`ServerLoad`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbServerLoad {
    pub active_streams: u32,
    pub terminals: u32,
    pub interface_memory: u64,
}

/// An admission answer (`Verdict`): `admit` 1, or 0 with a short `reason`.
#[repr(C)]
pub struct VbVerdict {
    pub admit: u8,
    pub reason: *const c_char,
}

/// Where a video lives (`Placement`).
#[repr(C)]
pub struct VbPlacement {
    pub holders: *const u32,
    pub holder_count: usize,
    pub round_ns: u64,
    pub fragment_bytes: u64,
}

/// One fragment fetched (`Fetch`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbFetch {
    pub has_interface: u8,
    pub interface: u32,
    pub storage: u32,
    pub round_trip_ns: u64,
    pub has_at_storage: u8,
    pub at_storage_ns: u64,
    pub now_ns: u64,
}

/// `[admission]`: the `Admission` trait.
#[repr(C)]
pub struct VbAdmissionVtable {
    pub admit: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            request: *const VbStreamRequest,
            load: *const VbServerLoad,
            out: *mut VbVerdict,
        ) -> i32,
    >,
    /// Optional (NULL: ignored).
    pub ended: Option<unsafe extern "C" fn(state: *mut c_void, terminal: u32, now_ns: u64) -> i32>,
    /// Optional (NULL: 0, and the three calls below are never made).
    pub observes: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u8) -> i32>,
    /// Optional: pushes the nodes to probe.
    pub probe: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            request: *const VbStreamRequest,
            placement: *const VbPlacement,
            nodes: *mut VbU32Sink,
        ) -> i32,
    >,
    /// Optional.
    pub probed: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            request: *const VbStreamRequest,
            node: u32,
            round_trip_ns: u64,
        ) -> i32,
    >,
    /// Optional.
    pub fetched: Option<unsafe extern "C" fn(state: *mut c_void, fetch: *const VbFetch) -> i32>,
}

// ---------------------------------------------------------------------------------------
// transmission

/// A block ready to send (`ReadyBlock`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbReadyBlock {
    pub token: u32,
    pub client: u32,
    pub bytes: u64,
    pub stream_rate_bps: u64,
    pub max_rate_bps: u64,
    pub has_packet_bytes: u8,
    pub packet_bytes: u32,
}

/// A packet to send now (`Packet`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbPacket {
    pub token: u32,
    pub bytes: u32,
    pub deadline_ns: u64,
}

/// A transmission answer (`TxPoll`): `tag` is `VB_POLL_IDLE`, `VB_POLL_ACT` (send `packet`)
/// or `VB_POLL_WAIT` (until `wait_until_ns`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbTxPoll {
    pub tag: u8,
    pub packet: VbPacket,
    pub wait_until_ns: u64,
}

/// `[transmission]`: the `Transmission` trait.
#[repr(C)]
pub struct VbTransmissionVtable {
    pub block_ready: Option<
        unsafe extern "C" fn(state: *mut c_void, block: *const VbReadyBlock, now_ns: u64) -> i32,
    >,
    pub poll:
        Option<unsafe extern "C" fn(state: *mut c_void, now_ns: u64, out: *mut VbTxPoll) -> i32>,
}

// ---------------------------------------------------------------------------------------
// broadcast.schedule

/// What a schedule must cover (`ScheduleSpec`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct VbScheduleSpec {
    pub frames: u32,
    pub delay: u32,
    pub horizon: u32,
    pub chunk_hint: u32,
}

/// Receives a schedule frame by frame, in order: frame `i`'s transmission instants.
#[repr(C)]
pub struct VbFrameSink {
    pub ctx: *mut c_void,
    /// Returns `VB_ERROR` (and the schedule fails) for an instant outside `1..=horizon` or a
    /// frame too many.
    pub push_frame:
        unsafe extern "C" fn(ctx: *mut c_void, instants: *const u32, count: usize) -> i32,
}

/// `[broadcast.schedule]`: the `BroadcastSchedule` trait. Its calls only read the state.
#[repr(C)]
pub struct VbBroadcastScheduleVtable {
    pub schedule: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            spec: *const VbScheduleSpec,
            frames: *mut VbFrameSink,
        ) -> i32,
    >,
    /// Optional (NULL: 1).
    pub uses_chunk_hint: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u8) -> i32>,
}

// ---------------------------------------------------------------------------------------
// receiver.buffer

/// A receiver's memory cache (`CacheView`): bit `f % 64` of `words[f / 64]` is frame `f`;
/// frames up to `pin_limit` (when `has_pin_limit`) may not be evicted.
#[repr(C)]
pub struct VbCacheView {
    pub words: *const u64,
    pub word_count: usize,
    pub len: u32,
    pub capacity: u32,
    pub has_pin_limit: u8,
    pub pin_limit: u32,
}

/// `[receiver.buffer]`: the `ClientBuffer` trait. `removed`'s `why`: 0 played, 1 written.
#[repr(C)]
pub struct VbClientBufferVtable {
    pub batch_frames: Option<unsafe extern "C" fn(state: *mut c_void, out: *mut u32) -> i32>,
    /// Optional.
    pub inserted: Option<unsafe extern "C" fn(state: *mut c_void, frame: u32) -> i32>,
    /// Optional.
    pub removed: Option<unsafe extern "C" fn(state: *mut c_void, frame: u32, why: u8) -> i32>,
    /// Optional.
    pub played_direct: Option<unsafe extern "C" fn(state: *mut c_void, frame: u32) -> i32>,
    pub choose_victims: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            cache: *const VbCacheView,
            victims: *mut VbU32Sink,
        ) -> i32,
    >,
    /// Optional.
    pub written: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            extent: u32,
            frames: *const u32,
            count: usize,
        ) -> i32,
    >,
    /// Optional (NULL: `frames[0]`).
    pub due_frame: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            extent: u32,
            frames: *const u32,
            count: usize,
            out: *mut u32,
        ) -> i32,
    >,
    /// Optional (NULL: just `extent`).
    pub choose_reads: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            due: u32,
            extent: u32,
            room: u32,
            extents: *mut VbU32Sink,
        ) -> i32,
    >,
}

// ---------------------------------------------------------------------------------------
// analytic

/// `[analytic]`: the `AnalyticModel` trait. `input_json` is
/// `{"system": "on-demand", "slot": "analytic", "quantities": {"block_bytes": {"value":
/// 524288.0, "key": "server.stripe"}, ...}}`; the model pushes into `out` the JSON of an
/// `Analysis`: `{"values": {...}, "tables": [{"name", "description", "columns", "rows"}],
/// "notes": [...]}`. An input it cannot take: `VB_ERROR` with `err` naming the key.
#[repr(C)]
pub struct VbAnalyticModelVtable {
    pub evaluate: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            input_json: *const c_char,
            out: *mut VbStrSink,
            err: *mut VbError,
        ) -> i32,
    >,
}

/// The sizes of this build's structs.
pub const fn sizes() -> VbSizes {
    use std::mem::size_of;
    VbSizes {
        library: size_of::<VbLibrary>() as u32,
        policy: size_of::<VbPolicy>() as u32,
        error: size_of::<VbError>() as u32,
        build_context: size_of::<VbBuildContext>() as u32,
        disk_model: size_of::<VbDiskModelVtable>() as u32,
        disk_scheduler: size_of::<VbDiskSchedulerVtable>() as u32,
        buffer_pool: size_of::<VbBufferPoolVtable>() as u32,
        prefetcher: size_of::<VbPrefetcherVtable>() as u32,
        layout: size_of::<VbLayoutVtable>() as u32,
        interconnect: size_of::<VbInterconnectVtable>() as u32,
        admission: size_of::<VbAdmissionVtable>() as u32,
        transmission: size_of::<VbTransmissionVtable>() as u32,
        broadcast_schedule: size_of::<VbBroadcastScheduleVtable>() as u32,
        client_buffer: size_of::<VbClientBufferVtable>() as u32,
        analytic_model: size_of::<VbAnalyticModelVtable>() as u32,
    }
}
