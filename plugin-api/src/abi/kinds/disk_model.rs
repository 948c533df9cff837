//! The C form of the `[disk.model]` kind, mirroring the [`DiskModel`] trait: its number
//! `VB_KIND_DISK_MODEL`, its function table [`VbDiskModelVtable`] (one function pointer per call of
//! the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry, and its
//! export: [`ExportKind`] for `dyn DiskModel`, the `extern "C"` functions through which a Rust
//! policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{time, with_mut, ExportKind};
use crate::abi::types::VbDiskGeometry;
use crate::plugin::*;
use std::ffi::c_void;

/// `VbPolicy::kind` of a disk model (`[disk.model]`).
pub const VB_KIND_DISK_MODEL: u32 = 1;

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
