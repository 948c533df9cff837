//! `disk.model`: a disk timing model written as a Python class, adapted to [`DiskModel`]
//! ([`PyKind`]: its methods, its wrap).

use super::{none, ns, Instance, PyKind};
use crate::types;
use pyo3::prelude::*;
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::{SimDuration, SimTime};

struct PyDiskModel(Instance);

impl PyKind for dyn DiskModel {
    const REQUIRED: &'static [&'static str] = &[
        "geometry",
        "cylinder_of",
        "head_cylinder",
        "service",
        "service_bound",
    ];
    const OPTIONAL: &'static [&'static str] = &[];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyDiskModel(instance))
    }
}

impl DiskModel for PyDiskModel {
    fn geometry(&self) -> DiskGeometry {
        let (capacity_bytes, cylinders) = self.0.call(0, "geometry", none, |o| o.extract());
        DiskGeometry {
            capacity_bytes,
            cylinders,
        }
    }
    fn cylinder_of(&self, offset: u64) -> u32 {
        self.0.call(
            1,
            "cylinder_of",
            |py| (offset,).into_pyobject(py),
            |o| o.extract(),
        )
    }
    fn head_cylinder(&self) -> u32 {
        self.0.call(2, "head_cylinder", none, |o| o.extract())
    }
    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        let access = types::DiskAccess {
            offset: a.offset,
            bytes: a.bytes,
            write: a.write,
        };
        let (overhead, seek, rotation, transfer, cache_hit): (u64, u64, u64, u64, bool) =
            self.0.call(
                3,
                "service",
                |py| (access, ns(now)).into_pyobject(py),
                |o| o.extract(),
            );
        ServiceTime {
            overhead: SimDuration::from_nanos(overhead),
            seek: SimDuration::from_nanos(seek),
            rotation: SimDuration::from_nanos(rotation),
            transfer: SimDuration::from_nanos(transfer),
            cache_hit,
        }
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        let access = types::DiskAccess {
            offset: a.offset,
            bytes: a.bytes,
            write: a.write,
        };
        SimDuration::from_nanos(self.0.call(
            4,
            "service_bound",
            |py| (access,).into_pyobject(py),
            |o| o.extract(),
        ))
    }
}
