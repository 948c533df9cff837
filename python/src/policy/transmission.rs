//! `transmission`: a transmission schedule on the egress link written as a Python class,
//! adapted to [`Transmission`] ([`PyKind`]: its methods, its wrap).

use super::{ns, Instance, PyKind};
use crate::types;
use pyo3::prelude::*;
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimTime;

struct PyTransmission(Instance);

impl PyKind for dyn Transmission {
    const REQUIRED: &'static [&'static str] = &["block_ready", "poll"];
    const OPTIONAL: &'static [&'static str] = &[];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyTransmission(instance))
    }
}

impl Transmission for PyTransmission {
    fn block_ready(&mut self, b: ReadyBlock, now: SimTime) {
        let r = types::ReadyBlock {
            token: b.token,
            client: b.client.0,
            bytes: b.bytes,
            stream_rate_bps: b.stream_rate_bps,
            max_rate_bps: b.max_rate_bps,
            packet_bytes: b.packet_bytes,
        };
        self.0
            .call0(0, "block_ready", |py| (r, ns(now)).into_pyobject(py));
    }
    fn poll(&mut self, now: SimTime) -> TxPoll {
        // None: idle; an integer: wait until then; (token, bytes, deadline): send
        let answer: Option<Result<u64, (u32, u32, u64)>> = self.0.call(
            1,
            "poll",
            |py| (ns(now),).into_pyobject(py),
            |o| {
                if o.is_none() {
                    Ok(None)
                } else if let Ok(t) = o.extract::<u64>() {
                    Ok(Some(Ok(t)))
                } else {
                    o.extract().map(|p| Some(Err(p))).map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(format!(
                            "poll answered {o}; it answers None (idle), a time in ns (wait \
                             until) or (token, bytes, deadline) (send)"
                        ))
                    })
                }
            },
        );
        match answer {
            None => TxPoll::Idle,
            Some(Ok(t)) => TxPoll::WaitUntil(SimTime::from_nanos(t)),
            Some(Err((token, bytes, deadline))) => TxPoll::Send(Packet {
                token,
                bytes,
                deadline: SimTime::from_nanos(deadline),
            }),
        }
    }
}
