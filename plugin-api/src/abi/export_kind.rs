//! What exporting one kind through the C ABI takes ([`ExportKind`]: its function table), and
//! the guarded calls every kind's `extern "C"` functions in `kinds/` are made of: the
//! instance behind the state pointer ([`State`]), each call run under `guard::guarded` with a
//! panic kept as the state's last error, and the conversions of the items all kinds share.

use super::types::*;
use crate::ids::{BlockId, VideoId};
use crate::plugin::*;
use crate::time::{SimDuration, SimTime};
use std::ffi::{c_char, c_void, CString};
use std::sync::Mutex;

/// A policy kind that can be exported through the C ABI: its function table.
pub trait ExportKind: PluginKind {
    /// The kind's function table, calling a `State<Self>`.
    fn vtable() -> *const c_void;
}

/// One instance behind a state pointer: the policy and the message of its last failed call.
pub struct State<K: ?Sized> {
    pub(super) obj: Box<K>,
    pub(super) error: Mutex<CString>,
}

/// A string that lives as long as the process (names, descriptions and schemas live as long
/// as the library; a few per policy).
pub(super) fn leak(s: &str) -> *const c_char {
    CString::new(s.replace('\0', " "))
        .expect("no NUL")
        .into_raw()
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

pub(super) fn plugin_error(e: &PluginError) -> (String, String) {
    match e {
        PluginError::InvalidParam { path, message } => (path.clone(), message.clone()),
        e => (String::new(), e.to_string()),
    }
}

/// Runs `f` on the instance behind `state` (a call that may change it), catching a panic.
pub(super) unsafe fn with_mut<K: ?Sized + 'static>(
    state: *mut c_void,
    f: impl FnOnce(&mut K),
) -> i32 {
    let s = &mut *state.cast::<State<K>>();
    match super::guard::guarded(|| f(&mut *s.obj)) {
        Ok(()) => VB_OK,
        Err(m) => {
            *s.error.lock().unwrap_or_else(|e| e.into_inner()) =
                CString::new(m.replace('\0', " ")).unwrap_or_default();
            VB_ERROR
        }
    }
}

/// Runs `f` on the instance behind `state` (a call that only reads it), catching a panic.
pub(super) unsafe fn with_ref<K: ?Sized + 'static>(state: *mut c_void, f: impl FnOnce(&K)) -> i32 {
    let s = &*state.cast::<State<K>>();
    match super::guard::guarded(|| f(&*s.obj)) {
        Ok(()) => VB_OK,
        Err(m) => {
            *s.error.lock().unwrap_or_else(|e| e.into_inner()) =
                CString::new(m.replace('\0', " ")).unwrap_or_default();
            VB_ERROR
        }
    }
}

/// Records a failure that is not a panic (an error the trait returns).
pub(super) unsafe fn fail<K: ?Sized + 'static>(state: *mut c_void, message: &str) -> i32 {
    let s = &*state.cast::<State<K>>();
    *s.error.lock().unwrap_or_else(|e| e.into_inner()) =
        CString::new(message.replace('\0', " ")).unwrap_or_default();
    VB_ERROR
}

pub(super) fn opt<T: Copy>(has: u8, v: T) -> Option<T> {
    (has != 0).then_some(v)
}

pub(super) fn block(b: &VbBlockId) -> BlockId {
    BlockId {
        video: VideoId(b.video),
        index: b.index,
    }
}

pub(super) fn vb_block(b: BlockId) -> VbBlockId {
    VbBlockId {
        video: b.video.0,
        index: b.index,
    }
}

pub(super) fn time(ns: u64) -> SimTime {
    SimTime::from_nanos(ns)
}

pub(super) fn span(ns: u64) -> SimDuration {
    SimDuration::from_nanos(ns)
}

pub(super) unsafe fn push_all(sink: *mut VbU32Sink, values: impl IntoIterator<Item = u32>) {
    if sink.is_null() {
        return;
    }
    let s = &*sink;
    for v in values {
        (s.push)(s.ctx, v);
    }
}
