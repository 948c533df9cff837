//! `receiver.buffer`: a broadcast receiver's buffer policy written as a Python class, adapted
//! to [`ClientBuffer`] ([`PyKind`]: its methods, its wrap).

use super::{none, Instance, PyKind};
use crate::types;
use pyo3::prelude::*;
use pyo3::types::PyList;
use vodbench_plugin_api::plugin::*;

struct PyClientBuffer(Instance);

impl PyKind for dyn ClientBuffer {
    const REQUIRED: &'static [&'static str] = &["batch_frames", "choose_victims"];
    const OPTIONAL: &'static [&'static str] = &[
        "inserted",
        "removed",
        "played_direct",
        "written",
        "due_frame",
        "choose_reads",
    ];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyClientBuffer(instance))
    }
}

impl ClientBuffer for PyClientBuffer {
    fn batch_frames(&self) -> u32 {
        self.0.call(0, "batch_frames", none, |o| o.extract())
    }
    fn inserted(&mut self, frame: u32) {
        if self.0.has(2) {
            self.0.call0(2, "inserted", |py| (frame,).into_pyobject(py));
        }
    }
    fn removed(&mut self, frame: u32, why: Removal) {
        if self.0.has(3) {
            let why = match why {
                Removal::Played => "played",
                Removal::Written => "written",
            };
            self.0
                .call0(3, "removed", |py| (frame, why).into_pyobject(py));
        }
    }
    fn played_direct(&mut self, frame: u32) {
        if self.0.has(4) {
            self.0
                .call0(4, "played_direct", |py| (frame,).into_pyobject(py));
        }
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        let v = types::CacheView {
            words: cache.words().to_vec(),
            len: cache.len(),
            capacity: cache.capacity(),
            pin_limit: cache.pin_limit(),
        };
        let victims: Vec<u32> = self.0.call(
            1,
            "choose_victims",
            |py| (v,).into_pyobject(py),
            |o| o.extract(),
        );
        out.extend(victims);
    }
    fn written(&mut self, extent: ExtentId, frames: &[u32]) {
        if self.0.has(5) {
            let f = frames.to_vec();
            self.0.call0(5, "written", |py| {
                (extent.0, PyList::new(py, f)?).into_pyobject(py)
            });
        }
    }
    fn due_frame(&mut self, extent: ExtentId, frames: &[u32]) -> u32 {
        if !self.0.has(6) {
            return frames[0];
        }
        let f = frames.to_vec();
        self.0.call(
            6,
            "due_frame",
            |py| (extent.0, PyList::new(py, f)?).into_pyobject(py),
            |o| o.extract(),
        )
    }
    fn choose_reads(&mut self, due: u32, extent: ExtentId, room: u32, out: &mut Vec<ExtentId>) {
        if !self.0.has(7) {
            out.push(extent);
            return;
        }
        let extents: Vec<u32> = self.0.call(
            7,
            "choose_reads",
            |py| (due, extent.0, room).into_pyobject(py),
            |o| o.extract(),
        );
        out.extend(extents.into_iter().map(ExtentId));
    }
}
