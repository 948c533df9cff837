//! `prefetcher`: a prefetcher written as a Python class, adapted to [`Prefetcher`] ([`PyKind`]:
//! its methods, its wrap); the run's layout is lent to it for one call ([`LayoutView`]).

use super::{ns, Instance, PyKind};
use crate::types::{self, LayoutView};
use pyo3::prelude::*;
use std::sync::Arc;
use vodbench_plugin_api::ids::{DiskId, TerminalId};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimTime;

struct PyPrefetcher(Instance);

impl PyKind for dyn Prefetcher {
    const REQUIRED: &'static [&'static str] = &["on_reference", "poll"];
    const OPTIONAL: &'static [&'static str] = &[];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyPrefetcher(instance))
    }
}

impl Prefetcher for PyPrefetcher {
    fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
        let reference = types::Reference {
            terminal: r.terminal.0,
            block: types::tuple(r.block),
            disk: r.disk.0,
            deadline: ns(r.deadline),
            block_playout: r.block_playout.as_nanos(),
            now: ns(r.now),
            hint: r.hint.map(|h| (types::tuple(h.block), ns(h.deadline))),
        };
        let view = Python::with_gil(|py| {
            Py::new(
                py,
                LayoutView::lend(layout, Arc::clone(&self.0.video_blocks)),
            )
        })
        .unwrap_or_else(|e| self.0.fail("on_reference", e.to_string()));
        let v2 = Python::with_gil(|py| view.clone_ref(py));
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.0.call(
                0,
                "on_reference",
                |py| (reference, v2).into_pyobject(py),
                |o| o.extract::<Option<u32>>(),
            )
        }));
        // the lent layout's own failure first: it is the cause
        if let Some(p) = view.get().end() {
            std::panic::resume_unwind(p);
        }
        out.unwrap_or_else(|p| std::panic::resume_unwind(p))
            .map(DiskId)
    }
    fn poll(&mut self, disk: DiskId, in_flight: u32, now: SimTime) -> PrefetchPoll {
        // None: idle; an integer: wait until that time; (block, terminal, deadline): issue
        type Issue = ((u32, u32), u32, Option<u64>);
        let answer: Option<Result<u64, Issue>> = self.0.call(
            1,
            "poll",
            |py| (disk.0, in_flight, ns(now)).into_pyobject(py),
            |o| {
                if o.is_none() {
                    Ok(None)
                } else if let Ok(t) = o.extract::<u64>() {
                    Ok(Some(Ok(t)))
                } else {
                    o.extract::<Issue>().map(|i| Some(Err(i))).map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(format!(
                            "poll answered {o}; it answers None (idle), a time in ns (wait \
                             until) or ((video, index), terminal, deadline or None) (issue)"
                        ))
                    })
                }
            },
        );
        match answer {
            None => PrefetchPoll::Idle,
            Some(Ok(t)) => PrefetchPoll::WaitUntil(SimTime::from_nanos(t)),
            Some(Err((b, terminal, deadline))) => PrefetchPoll::Issue(PrefetchCandidate {
                block: types::block(b),
                terminal: TerminalId(terminal),
                deadline: deadline.map(SimTime::from_nanos),
            }),
        }
    }
}
