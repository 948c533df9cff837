//! `layout`: a data layout written as a Python class, adapted to [`Layout`] ([`PyKind`]: its
//! methods, its wrap).

use super::{none, Instance, PyKind};
use crate::types;
use pyo3::prelude::*;
use vodbench_plugin_api::ids::{DiskId, NodeId};
use vodbench_plugin_api::plugin::*;

struct PyLayout(Instance);

impl PyKind for dyn Layout {
    const REQUIRED: &'static [&'static str] = &["locate", "next_on_same_disk"];
    const OPTIONAL: &'static [&'static str] = &["pieces", "locate_piece"];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyLayout(instance))
    }
}

fn location((node, disk, offset): (u32, u32, u64)) -> Location {
    Location {
        node: NodeId(node),
        disk: DiskId(disk),
        offset,
    }
}

impl Layout for PyLayout {
    fn locate(&self, b: vodbench_plugin_api::ids::BlockId) -> Location {
        location(self.0.call(
            0,
            "locate",
            |py| (types::tuple(b),).into_pyobject(py),
            |o| o.extract(),
        ))
    }
    fn next_on_same_disk(
        &self,
        b: vodbench_plugin_api::ids::BlockId,
    ) -> Option<vodbench_plugin_api::ids::BlockId> {
        self.0
            .call(
                1,
                "next_on_same_disk",
                |py| (types::tuple(b),).into_pyobject(py),
                |o| o.extract::<Option<(u32, u32)>>(),
            )
            .map(types::block)
    }
    fn pieces(&self) -> u32 {
        if !self.0.has(2) {
            return 1;
        }
        self.0.call(2, "pieces", none, |o| o.extract())
    }
    fn locate_piece(&self, b: vodbench_plugin_api::ids::BlockId, piece: u32) -> Location {
        if !self.0.has(3) {
            return self.locate(b);
        }
        location(self.0.call(
            3,
            "locate_piece",
            |py| (types::tuple(b), piece).into_pyobject(py),
            |o| o.extract(),
        ))
    }
}
