//! `broadcast.schedule`: a loaded periodic broadcast schedule ([`BroadcastSchedule`]; its
//! required calls and how an instance is wrapped: [`ImportKind`]).

use super::{req, ImportKind, Instance};
use std::ffi::c_void;
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::plugin::*;

struct FrameCollector {
    schedule: Schedule,
    error: Option<PluginError>,
}

unsafe extern "C" fn push_frame(ctx: *mut c_void, instants: *const u32, count: usize) -> i32 {
    let c = &mut *ctx.cast::<FrameCollector>();
    if c.error.is_some() {
        return VB_ERROR;
    }
    let mut v = if instants.is_null() || count == 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(instants, count).to_vec()
    };
    match c.schedule.push_frame(&mut v) {
        Ok(()) => VB_OK,
        Err(e) => {
            c.error = Some(e);
            VB_ERROR
        }
    }
}

struct CSchedule(Instance);

impl ImportKind for dyn BroadcastSchedule {
    type Table = VbBroadcastScheduleVtable;
    fn required(table: &VbBroadcastScheduleVtable) -> Vec<(&'static str, bool)> {
        vec![("schedule", table.schedule.is_some())]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CSchedule(instance))
    }
}

impl BroadcastSchedule for CSchedule {
    fn schedule(&self, spec: &ScheduleSpec) -> Result<Schedule, PluginError> {
        let vt = self.0.vt::<VbBroadcastScheduleVtable>();
        let s = VbScheduleSpec {
            frames: spec.frames,
            delay: spec.delay,
            horizon: spec.horizon,
            chunk_hint: spec.chunk_hint,
        };
        let mut c = FrameCollector {
            schedule: Schedule::builder(*spec),
            error: None,
        };
        let mut sink = VbFrameSink {
            ctx: (&mut c as *mut FrameCollector).cast(),
            push_frame,
        };
        let status = unsafe { req(vt.schedule)(self.0.state, &s, &mut sink) };
        if let Some(e) = c.error {
            return Err(e);
        }
        self.0.ok("schedule", status);
        Ok(c.schedule)
    }
    fn uses_chunk_hint(&self) -> bool {
        let Some(f) = self.0.vt::<VbBroadcastScheduleVtable>().uses_chunk_hint else {
            return true;
        };
        let mut out = 1u8;
        self.0
            .ok("uses_chunk_hint", unsafe { f(self.0.state, &mut out) });
        out != 0
    }
}
