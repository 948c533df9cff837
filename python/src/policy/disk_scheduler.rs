//! `disk.scheduler`: a disk scheduler written as a Python class, adapted to [`DiskScheduler`]
//! ([`PyKind`]: its methods, its wrap).

use super::{none, ns, Instance, PyKind};
use crate::types;
use pyo3::prelude::*;
use vodbench_plugin_api::ids::RequestId;
use vodbench_plugin_api::plugin::*;

struct PyScheduler(Instance);

impl PyKind for dyn DiskScheduler {
    const REQUIRED: &'static [&'static str] = &["enqueue", "dequeue", "len"];
    const OPTIONAL: &'static [&'static str] = &[];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyScheduler(instance))
    }
}

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
