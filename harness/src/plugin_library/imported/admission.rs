//! `admission`: a loaded admission policy ([`Admission`]; its required calls and how an
//! instance is wrapped: [`ImportKind`]); the refusal reasons it gives are kept by
//! [`Verdict::intern_reason`].

use super::{ns, req, u32_sink, ImportKind, Instance};
use std::ffi::CStr;
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::ids::{NodeId, TerminalId};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::{SimDuration, SimTime};

fn stream_request(r: &StreamRequest) -> VbStreamRequest {
    VbStreamRequest {
        terminal: r.terminal.0,
        video: r.video.0,
        bit_rate: r.bit_rate,
        buffer_bytes: r.buffer_bytes,
        has_interface: r.interface.is_some() as u8,
        interface: r.interface.unwrap_or(0),
        now_ns: ns(r.now),
    }
}

struct CAdmission(Instance);

impl ImportKind for dyn Admission {
    type Table = VbAdmissionVtable;
    fn required(table: &VbAdmissionVtable) -> Vec<(&'static str, bool)> {
        vec![("admit", table.admit.is_some())]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CAdmission(instance))
    }
}

impl Admission for CAdmission {
    fn admit(&mut self, r: &StreamRequest, load: &ServerLoad) -> Verdict {
        let vt = self.0.vt::<VbAdmissionVtable>();
        let l = VbServerLoad {
            active_streams: load.active_streams,
            terminals: load.terminals,
            interface_memory: load.interface_memory,
        };
        let mut v = VbVerdict {
            admit: 1,
            reason: std::ptr::null(),
        };
        self.0.ok("admit", unsafe {
            req(vt.admit)(self.0.state, &stream_request(r), &l, &mut v)
        });
        if v.admit != 0 {
            return Verdict::Admit;
        }
        let reason = if v.reason.is_null() {
            "refused"
        } else {
            // SAFETY: a NUL-terminated string, copied at once.
            match unsafe { CStr::from_ptr(v.reason) }.to_str() {
                Ok(s) if !s.is_empty() && s.len() <= 64 => Verdict::intern_reason(s),
                Ok(s) => self.0.fail(
                    "admit",
                    format!(
                        "gave a refusal reason of {} bytes (1 to 64 allowed)",
                        s.len()
                    ),
                ),
                Err(_) => self
                    .0
                    .fail("admit", "gave a refusal reason that is not UTF-8".into()),
            }
        };
        Verdict::Refuse { reason }
    }
    fn ended(&mut self, terminal: TerminalId, now: SimTime) {
        if let Some(f) = self.0.vt::<VbAdmissionVtable>().ended {
            self.0
                .ok("ended", unsafe { f(self.0.state, terminal.0, ns(now)) });
        }
    }
    fn observes(&self) -> bool {
        let Some(f) = self.0.vt::<VbAdmissionVtable>().observes else {
            return false;
        };
        let mut out = 0u8;
        self.0.ok("observes", unsafe { f(self.0.state, &mut out) });
        out != 0
    }
    fn probe(&mut self, r: &StreamRequest, placement: &Placement<'_>, probe: &mut Vec<NodeId>) {
        let Some(f) = self.0.vt::<VbAdmissionVtable>().probe else {
            return;
        };
        let holders: Vec<u32> = placement.holders.iter().map(|n| n.0).collect();
        let p = VbPlacement {
            holders: holders.as_ptr(),
            holder_count: holders.len(),
            round_ns: placement.round.as_nanos(),
            fragment_bytes: placement.fragment_bytes,
        };
        let mut nodes = Vec::new();
        let mut sink = u32_sink(&mut nodes);
        self.0.ok("probe", unsafe {
            f(self.0.state, &stream_request(r), &p, &mut sink)
        });
        probe.extend(nodes.into_iter().map(NodeId));
    }
    fn probed(&mut self, r: &StreamRequest, node: NodeId, round_trip: SimDuration) {
        if let Some(f) = self.0.vt::<VbAdmissionVtable>().probed {
            self.0.ok("probed", unsafe {
                f(
                    self.0.state,
                    &stream_request(r),
                    node.0,
                    round_trip.as_nanos(),
                )
            });
        }
    }
    fn fetched(&mut self, fetch: &Fetch) {
        if let Some(f) = self.0.vt::<VbAdmissionVtable>().fetched {
            let v = VbFetch {
                has_interface: fetch.interface.is_some() as u8,
                interface: fetch.interface.unwrap_or(0),
                storage: fetch.storage.0,
                round_trip_ns: fetch.round_trip.as_nanos(),
                has_at_storage: fetch.at_storage.is_some() as u8,
                at_storage_ns: fetch.at_storage.map_or(0, |d| d.as_nanos()),
                now_ns: ns(fetch.now),
            };
            self.0.ok("fetched", unsafe { f(self.0.state, &v) });
        }
    }
}
