//! `server.network`: a loaded interconnect ([`Interconnect`]; its required calls and how an
//! instance is wrapped: [`ImportKind`]).

use super::{req, string_sink, u32_sink, ImportKind, Instance};
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::ids::LinkId;
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimDuration;

fn endpoint(e: Endpoint) -> VbEndpoint {
    match e {
        Endpoint::Node(n) => VbEndpoint { kind: 0, id: n.0 },
        Endpoint::Terminal(t) => VbEndpoint { kind: 1, id: t.0 },
    }
}

struct CInterconnect(Instance);

impl ImportKind for dyn Interconnect {
    type Table = VbInterconnectVtable;
    fn required(table: &VbInterconnectVtable) -> Vec<(&'static str, bool)> {
        vec![
            ("links", table.links.is_some()),
            ("route", table.route.is_some()),
        ]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CInterconnect(instance))
    }
}

impl Interconnect for CInterconnect {
    fn links(&self) -> Vec<String> {
        let vt = self.0.vt::<VbInterconnectVtable>();
        let mut names = Vec::new();
        let mut sink = string_sink(&mut names);
        self.0
            .ok("links", unsafe { req(vt.links)(self.0.state, &mut sink) });
        names
    }
    fn route(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        path: &mut Vec<LinkId>,
    ) -> Transfer {
        let vt = self.0.vt::<VbInterconnectVtable>();
        let mut links = Vec::new();
        let mut sink = u32_sink(&mut links);
        let mut t = VbTransfer::default();
        self.0.ok("route", unsafe {
            req(vt.route)(
                self.0.state,
                endpoint(from),
                endpoint(to),
                bytes,
                &mut sink,
                &mut t,
            )
        });
        path.extend(links.into_iter().map(LinkId));
        Transfer {
            setup: SimDuration::from_nanos(t.setup_ns),
            hold: SimDuration::from_nanos(t.hold_ns),
            delivery: SimDuration::from_nanos(t.delivery_ns),
        }
    }
}
