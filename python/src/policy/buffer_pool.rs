//! `buffer_pool`: a page replacement policy written as a Python class, adapted to
//! [`BufferPool`] ([`PyKind`]: its methods, its wrap).

use super::{none, Instance, PyKind};
use crate::types;
use pyo3::prelude::*;
use vodbench_plugin_api::ids::PageId;
use vodbench_plugin_api::plugin::*;

struct PyPool(Instance);

impl PyKind for dyn BufferPool {
    const REQUIRED: &'static [&'static str] = &["release", "acquire", "evict"];
    const OPTIONAL: &'static [&'static str] = &[
        "evict_for_prefetch",
        "set_capacity",
        "request",
        "needs_next_access",
    ];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyPool(instance))
    }
}

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
