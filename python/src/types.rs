//! What the engine hands a Python policy: small frozen records (times in nanoseconds, ids as
//! integers, blocks as `(video, index)` tuples). Their fields are documented in
//! `vodbench/__init__.pyi`.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vodbench_plugin_api::ids::BlockId;
use vodbench_plugin_api::plugin::Layout;

macro_rules! record {
    ($(#[$doc:meta])* $name:ident { $($field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[pyclass(frozen, get_all, module = "vodbench")]
        pub struct $name {
            $(pub $field: $ty,)*
        }

        #[pymethods]
        impl $name {
            fn __repr__(&self) -> String {
                let mut s = format!("{}(", stringify!($name));
                let mut first = true;
                $(
                    if !first { s.push_str(", "); }
                    first = false;
                    s.push_str(&format!("{}={:?}", stringify!($field), self.$field));
                )*
                let _ = first;
                s.push(')');
                s
            }
        }
    };
}

record!(
    /// A request waiting at a disk (`disk.scheduler`'s `enqueue`).
    QueuedRequest {
        id: u32,
        cylinder: u32,
        offset: u64,
        bytes: u64,
        terminal: Option<u32>,
        prefetch: bool,
        deadline: Option<u64>,
        arrival: u64,
    }
);

record!(
    /// Where a disk's head is when it asks for its next request (`dequeue`).
    HeadState {
        now: u64,
        cylinder: u32,
        cylinders: u32,
    }
);

record!(
    /// One access to a disk (`disk.model`).
    DiskAccess {
        offset: u64,
        bytes: u64,
        write: bool,
    }
);

record!(
    /// A request of a cache replay (`buffer_pool`'s `request`).
    CacheRequest {
        object: u64,
        bytes: u64,
        next_access: Option<u64>,
    }
);

record!(
    /// A terminal's reference to a block (`prefetcher`'s `on_reference`).
    Reference {
        terminal: u32,
        block: (u32, u32),
        disk: u32,
        deadline: u64,
        block_playout: u64,
        now: u64,
        hint: Option<((u32, u32), u64)>,
    }
);

record!(
    /// A new stream asking to be admitted (`admission`).
    StreamRequest {
        terminal: u32,
        video: u32,
        bit_rate: u64,
        buffer_bytes: u64,
        interface: Option<u32>,
        now: u64,
    }
);

record!(
    /// The server's load when a stream asks (`admission`'s `admit`).
    ServerLoad {
        active_streams: u32,
        terminals: u32,
        interface_memory: u64,
    }
);

record!(
    /// Where a stream's video lives (`admission`'s `probe`).
    Placement {
        holders: Vec<u32>,
        round: u64,
        fragment_bytes: u64,
    }
);

record!(
    /// A fetch from storage, observed (`admission`'s `fetched`).
    Fetch {
        interface: Option<u32>,
        storage: u32,
        round_trip: u64,
        at_storage: Option<u64>,
        now: u64,
    }
);

record!(
    /// A block ready to be sent (`transmission`'s `block_ready`).
    ReadyBlock {
        token: u32,
        client: u32,
        bytes: u64,
        stream_rate_bps: u64,
        max_rate_bps: u64,
        packet_bytes: Option<u32>,
    }
);

record!(
    /// What a broadcast schedule is asked for (`broadcast.schedule`).
    ScheduleSpec {
        frames: u32,
        delay: u32,
        horizon: u32,
        chunk_hint: u32,
    }
);

record!(
    /// A broadcast receiver's cache (`receiver.buffer`'s `choose_victims`): `words` is the
    /// bit set of cached frames, 64 frames a word.
    CacheView {
        words: Vec<u64>,
        len: u32,
        capacity: u32,
        pin_limit: Option<u32>,
    }
);

/// The run's layout, lent to a Python prefetcher for one `on_reference` call.
#[pyclass(frozen, module = "vodbench")]
pub struct LayoutView {
    layout: LayoutPtr,
    /// The library's videos' block counts: a block outside them is refused before the
    /// layout is asked (layouts index by video and may panic on a stranger).
    blocks: Arc<[u32]>,
    valid: AtomicBool,
    failure: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

struct LayoutPtr(*const (dyn Layout + 'static));
// SAFETY: the pointer is only followed while the call that lent it runs (`valid`), on the
// thread that runs it; layouts are `Sync`.
unsafe impl Send for LayoutPtr {}
unsafe impl Sync for LayoutPtr {}

impl LayoutView {
    /// Lends `layout` (of a library of `blocks[v]` blocks for each video `v`) until
    /// [`LayoutView::end`].
    pub fn lend(layout: &dyn Layout, blocks: Arc<[u32]>) -> LayoutView {
        // SAFETY: lifetime erased; `end` is called before the borrow ends and every use
        // checks `valid`.
        let ptr: *const (dyn Layout + 'static) = unsafe { std::mem::transmute(layout) };
        LayoutView {
            layout: LayoutPtr(ptr),
            blocks,
            valid: AtomicBool::new(true),
            failure: std::sync::Mutex::new(None),
        }
    }

    /// Ends the loan; a failure of the lent layout met meanwhile, to be raised again.
    pub fn end(&self) -> Option<Box<dyn std::any::Any + Send>> {
        self.valid.store(false, Ordering::SeqCst);
        self.failure.lock().ok()?.take()
    }

    /// `block` when the library has it, else the `ValueError` the policy's call raises.
    fn existing(&self, block: (u32, u32)) -> PyResult<BlockId> {
        let (video, index) = block;
        match self.blocks.get(video as usize) {
            Some(&n) if index < n => Ok(self::block(block)),
            Some(&n) => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "block {index} of video {video} does not exist (the video has {n} blocks)"
            ))),
            None => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "block {index} of video {video} does not exist (the library has {} videos)",
                self.blocks.len()
            ))),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&dyn Layout) -> T) -> PyResult<T> {
        if !self.valid.load(Ordering::SeqCst) {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "the layout is lent for one on_reference call only",
            ));
        }
        // SAFETY: valid: the lending call is still running.
        let layout = unsafe { &*self.layout.0 };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(layout))) {
            Ok(v) => Ok(v),
            Err(p) => {
                if let Ok(mut slot) = self.failure.lock() {
                    *slot = Some(p);
                }
                Err(pyo3::exceptions::PyRuntimeError::new_err(
                    "the run's layout failed",
                ))
            }
        }
    }
}

pub fn block(b: (u32, u32)) -> BlockId {
    BlockId {
        video: vodbench_plugin_api::ids::VideoId(b.0),
        index: b.1,
    }
}

pub fn tuple(b: BlockId) -> (u32, u32) {
    (b.video.0, b.index)
}

#[pymethods]
impl LayoutView {
    /// `(node, disk, offset)` of `block` (a `(video, index)` tuple of the library; another
    /// raises `ValueError`).
    fn locate(&self, block: (u32, u32)) -> PyResult<(u32, u32, u64)> {
        let block = self.existing(block)?;
        self.with(|l| {
            let at = l.locate(block);
            (at.node.0, at.disk.0, at.offset)
        })
    }

    /// The next block on the same disk, or `None` (`block` as for `locate`).
    fn next_on_same_disk(&self, block: (u32, u32)) -> PyResult<Option<(u32, u32)>> {
        let block = self.existing(block)?;
        self.with(|l| l.next_on_same_disk(block).map(tuple))
    }
}

pub fn add_all(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<QueuedRequest>()?;
    m.add_class::<HeadState>()?;
    m.add_class::<DiskAccess>()?;
    m.add_class::<CacheRequest>()?;
    m.add_class::<Reference>()?;
    m.add_class::<StreamRequest>()?;
    m.add_class::<ServerLoad>()?;
    m.add_class::<Placement>()?;
    m.add_class::<Fetch>()?;
    m.add_class::<ReadyBlock>()?;
    m.add_class::<ScheduleSpec>()?;
    m.add_class::<CacheView>()?;
    m.add_class::<LayoutView>()?;
    Ok(())
}
