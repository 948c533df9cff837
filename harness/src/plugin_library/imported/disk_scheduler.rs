//! `disk.scheduler`: a loaded disk scheduler ([`DiskScheduler`]; its required calls and how an
//! instance is wrapped: [`ImportKind`]).

use super::{ns, req, ImportKind, Instance};
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::*;

struct CScheduler(Instance);

impl ImportKind for dyn DiskScheduler {
    type Table = VbDiskSchedulerVtable;
    fn required(table: &VbDiskSchedulerVtable) -> Vec<(&'static str, bool)> {
        vec![
            ("enqueue", table.enqueue.is_some()),
            ("dequeue", table.dequeue.is_some()),
            ("len", table.len.is_some()),
        ]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CScheduler(instance))
    }
}

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
