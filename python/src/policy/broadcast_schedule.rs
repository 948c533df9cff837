//! `broadcast.schedule`: a periodic broadcast schedule written as a Python class, adapted to
//! [`BroadcastSchedule`] ([`PyKind`]: its methods, its wrap).

use super::{none, Instance, PyKind};
use crate::types;
use pyo3::prelude::*;
use vodbench_plugin_api::plugin::*;

struct PySchedule(Instance);

impl PyKind for dyn BroadcastSchedule {
    const REQUIRED: &'static [&'static str] = &["schedule"];
    const OPTIONAL: &'static [&'static str] = &["uses_chunk_hint"];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PySchedule(instance))
    }
}

impl BroadcastSchedule for PySchedule {
    fn schedule(&self, spec: &ScheduleSpec) -> Result<Schedule, PluginError> {
        let s = types::ScheduleSpec {
            frames: spec.frames,
            delay: spec.delay,
            horizon: spec.horizon,
            chunk_hint: spec.chunk_hint,
        };
        // one list of transmission instants per frame, in frame order
        let frames: Vec<Vec<u32>> =
            self.0
                .call(0, "schedule", |py| (s,).into_pyobject(py), |o| o.extract());
        let mut schedule = Schedule::builder(*spec);
        for mut f in frames {
            schedule.push_frame(&mut f)?;
        }
        Ok(schedule)
    }
    fn uses_chunk_hint(&self) -> bool {
        !self.0.has(1) || self.0.call(1, "uses_chunk_hint", none, |o| o.extract())
    }
}
