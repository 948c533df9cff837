//! `admission`: an admission policy written as a Python class, adapted to [`Admission`]
//! ([`PyKind`]: its methods, its wrap); its refusal reasons kept as the `&'static str` a
//! verdict carries.

use super::{none, ns, Instance, PyKind};
use crate::types;
use pyo3::prelude::*;
use vodbench_plugin_api::ids::{NodeId, TerminalId};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::{SimDuration, SimTime};

fn stream_request(r: &StreamRequest) -> types::StreamRequest {
    types::StreamRequest {
        terminal: r.terminal.0,
        video: r.video.0,
        bit_rate: r.bit_rate,
        buffer_bytes: r.buffer_bytes,
        interface: r.interface,
        now: ns(r.now),
    }
}

struct PyAdmission(Instance);

impl PyKind for dyn Admission {
    const REQUIRED: &'static [&'static str] = &["admit"];
    const OPTIONAL: &'static [&'static str] = &["ended", "observes", "probe", "probed", "fetched"];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyAdmission(instance))
    }
}

impl Admission for PyAdmission {
    fn admit(&mut self, r: &StreamRequest, load: &ServerLoad) -> Verdict {
        let (req, l) = (
            stream_request(r),
            types::ServerLoad {
                active_streams: load.active_streams,
                terminals: load.terminals,
                interface_memory: load.interface_memory,
            },
        );
        // True: admit; a string: refused, for that reason
        let answer: Option<String> = self.0.call(
            0,
            "admit",
            |py| (req, l).into_pyobject(py),
            |o| {
                if o.is_instance_of::<pyo3::types::PyBool>() && o.extract::<bool>()? {
                    Ok(None)
                } else {
                    o.extract::<String>().map(Some).map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(format!(
                            "admit answered {o}; it answers True (admit) or a refusal \
                             reason (a string of 1 to 64 bytes)"
                        ))
                    })
                }
            },
        );
        match answer {
            None => Verdict::Admit,
            Some(s) if !s.is_empty() && s.len() <= 64 => Verdict::Refuse {
                reason: Verdict::intern_reason(&s),
            },
            Some(s) => self.0.fail(
                "admit",
                format!(
                    "gave a refusal reason of {} bytes (1 to 64 allowed)",
                    s.len()
                ),
            ),
        }
    }
    fn ended(&mut self, terminal: TerminalId, now: SimTime) {
        if self.0.has(1) {
            self.0
                .call0(1, "ended", |py| (terminal.0, ns(now)).into_pyobject(py));
        }
    }
    fn observes(&self) -> bool {
        self.0.has(2) && self.0.call(2, "observes", none, |o| o.extract())
    }
    fn probe(&mut self, r: &StreamRequest, placement: &Placement<'_>, probe: &mut Vec<NodeId>) {
        if !self.0.has(3) {
            return;
        }
        let (req, p) = (
            stream_request(r),
            types::Placement {
                holders: placement.holders.iter().map(|n| n.0).collect(),
                round: placement.round.as_nanos(),
                fragment_bytes: placement.fragment_bytes,
            },
        );
        let nodes: Vec<u32> =
            self.0
                .call(3, "probe", |py| (req, p).into_pyobject(py), |o| o.extract());
        probe.extend(nodes.into_iter().map(NodeId));
    }
    fn probed(&mut self, r: &StreamRequest, node: NodeId, round_trip: SimDuration) {
        if self.0.has(4) {
            let req = stream_request(r);
            self.0.call0(4, "probed", |py| {
                (req, node.0, round_trip.as_nanos()).into_pyobject(py)
            });
        }
    }
    fn fetched(&mut self, fetch: &Fetch) {
        if self.0.has(5) {
            let f = types::Fetch {
                interface: fetch.interface,
                storage: fetch.storage.0,
                round_trip: fetch.round_trip.as_nanos(),
                at_storage: fetch.at_storage.map(|d| d.as_nanos()),
                now: ns(fetch.now),
            };
            self.0.call0(5, "fetched", |py| (f,).into_pyobject(py));
        }
    }
}
