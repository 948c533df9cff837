//! The sizes of ABI version 1's structs as this build compiled them ([`VbSizes`]): what a
//! library states in `VbLibrary::sizes` and the host compares with its own, naming the first
//! struct that differs.
//!
//! The list is fixed with the version: the shared structs and the function tables of version
//! 1's eleven kinds, in the order of the header's `VB_SIZES`. A kind added later is not in it
//! (its table is checked by its kind number alone), so adding a kind changes neither this
//! function nor `VB_SIZES`; changing a struct listed here raises `VB_ABI_VERSION`.

use super::kinds::{
    VbAdmissionVtable, VbAnalyticModelVtable, VbBroadcastScheduleVtable, VbBufferPoolVtable,
    VbClientBufferVtable, VbDiskModelVtable, VbDiskSchedulerVtable, VbInterconnectVtable,
    VbLayoutVtable, VbPrefetcherVtable, VbTransmissionVtable,
};
use super::types::{VbBuildContext, VbError, VbLibrary, VbPolicy, VbSizes};

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
