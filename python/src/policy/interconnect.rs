//! `server.network`: an interconnect written as a Python class, adapted to [`Interconnect`]
//! ([`PyKind`]: its methods, its wrap).

use super::{none, Instance, PyKind};
use pyo3::prelude::*;
use vodbench_plugin_api::ids::LinkId;
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimDuration;

fn endpoint(e: Endpoint) -> (&'static str, u32) {
    match e {
        Endpoint::Node(n) => ("node", n.0),
        Endpoint::Terminal(t) => ("terminal", t.0),
    }
}

struct PyInterconnect(Instance);

impl PyKind for dyn Interconnect {
    const REQUIRED: &'static [&'static str] = &["links", "route"];
    const OPTIONAL: &'static [&'static str] = &[];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyInterconnect(instance))
    }
}

impl Interconnect for PyInterconnect {
    fn links(&self) -> Vec<String> {
        self.0.call(0, "links", none, |o| o.extract())
    }
    fn route(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        path: &mut Vec<LinkId>,
    ) -> Transfer {
        let (links, setup, hold, delivery): (Vec<u32>, u64, u64, u64) = self.0.call(
            1,
            "route",
            |py| (endpoint(from), endpoint(to), bytes).into_pyobject(py),
            |o| o.extract(),
        );
        path.extend(links.into_iter().map(LinkId));
        Transfer {
            setup: SimDuration::from_nanos(setup),
            hold: SimDuration::from_nanos(hold),
            delivery: SimDuration::from_nanos(delivery),
        }
    }
}
