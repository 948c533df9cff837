//! `disk.model`: a loaded disk timing model ([`DiskModel`]; its required calls and how an
//! instance is wrapped: [`ImportKind`]).

use super::{access, ns, req, ImportKind, Instance};
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::{SimDuration, SimTime};

struct CDiskModel(Instance);

impl ImportKind for dyn DiskModel {
    type Table = VbDiskModelVtable;
    fn required(table: &VbDiskModelVtable) -> Vec<(&'static str, bool)> {
        vec![
            ("geometry", table.geometry.is_some()),
            ("cylinder_of", table.cylinder_of.is_some()),
            ("head_cylinder", table.head_cylinder.is_some()),
            ("service", table.service.is_some()),
            ("service_bound", table.service_bound.is_some()),
        ]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CDiskModel(instance))
    }
}

impl DiskModel for CDiskModel {
    fn geometry(&self) -> DiskGeometry {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut g = VbDiskGeometry::default();
        // SAFETY (here and below): the ABI's call, with host-owned arguments.
        self.0.ok("geometry", unsafe {
            req(vt.geometry)(self.0.state, &mut g)
        });
        DiskGeometry {
            capacity_bytes: g.capacity_bytes,
            cylinders: g.cylinders,
        }
    }
    fn cylinder_of(&self, offset: u64) -> u32 {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut c = 0;
        self.0.ok("cylinder_of", unsafe {
            req(vt.cylinder_of)(self.0.state, offset, &mut c)
        });
        c
    }
    fn head_cylinder(&self) -> u32 {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut c = 0;
        self.0.ok("head_cylinder", unsafe {
            req(vt.head_cylinder)(self.0.state, &mut c)
        });
        c
    }
    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut t = VbServiceTime::default();
        self.0.ok("service", unsafe {
            req(vt.service)(self.0.state, &access(a), ns(now), &mut t)
        });
        ServiceTime {
            overhead: SimDuration::from_nanos(t.overhead_ns),
            seek: SimDuration::from_nanos(t.seek_ns),
            rotation: SimDuration::from_nanos(t.rotation_ns),
            transfer: SimDuration::from_nanos(t.transfer_ns),
            cache_hit: t.cache_hit != 0,
        }
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        let vt = self.0.vt::<VbDiskModelVtable>();
        let mut t = 0;
        self.0.ok("service_bound", unsafe {
            req(vt.service_bound)(self.0.state, &access(a), &mut t)
        });
        SimDuration::from_nanos(t)
    }
    fn transfer_includes_bus(&self) -> bool {
        let Some(f) = self.0.vt::<VbDiskModelVtable>().transfer_includes_bus else {
            return false;
        };
        let mut out = 0u8;
        self.0.ok("transfer_includes_bus", unsafe {
            f(self.0.state, &mut out)
        });
        out != 0
    }
}
