//! Loaded policies as the engine sees them: one adapter per kind implementing the kind's
//! Rust trait over the library's function table. This file holds what every adapter shares
//! (the instance, the check of a function table, the registration, small conversions); each
//! kind's adapter is in `imported/`, in a file named as the kind's trait is in `plugin-api`.
//!
//! An adapter only translates: plain `#[repr(C)]` data in, plain data out. What a policy
//! answers is then checked by the engine as any built-in's answer is (a request that was
//! never queued, a page that is not evictable, a path naming a link twice). What cannot even
//! be translated — `VB_ERROR`, a poll tag outside the three, a refusal reason that is not
//! UTF-8 — abandons the run with a [`PluginFailure`] naming the library, the policy and the
//! call.

mod admission;
mod analytic_model;
mod broadcast_schedule;
mod buffer_pool;
mod client_buffer;
mod disk_model;
mod disk_scheduler;
mod interconnect;
mod layout;
mod prefetcher;
mod transmission;

use super::failure::{abandon, PluginFailure};
use super::{string_sink, Policy};
use admission::CAdmission;
use analytic_model::CModel;
use broadcast_schedule::CSchedule;
use buffer_pool::CPool;
use client_buffer::CClientBuffer;
use disk_model::CDiskModel;
use disk_scheduler::CScheduler;
use interconnect::CInterconnect;
use layout::CLayout;
use prefetcher::CPrefetcher;
use std::ffi::c_void;
use std::sync::Arc;
use transmission::CTransmission;
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::ids::{BlockId, DiskId, NodeId, VideoId};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimTime;

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
