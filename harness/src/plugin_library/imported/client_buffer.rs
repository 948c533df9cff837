//! `receiver.buffer`: a loaded broadcast receiver's buffer policy ([`ClientBuffer`]; its
//! required calls and how an instance is wrapped: [`ImportKind`]).

use super::{req, u32_sink, ImportKind, Instance};
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::plugin::*;

struct CClientBuffer(Instance);

impl ImportKind for dyn ClientBuffer {
    type Table = VbClientBufferVtable;
    fn required(table: &VbClientBufferVtable) -> Vec<(&'static str, bool)> {
        vec![
            ("batch_frames", table.batch_frames.is_some()),
            ("choose_victims", table.choose_victims.is_some()),
        ]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CClientBuffer(instance))
    }
}

impl ClientBuffer for CClientBuffer {
    fn batch_frames(&self) -> u32 {
        let vt = self.0.vt::<VbClientBufferVtable>();
        let mut n = 0;
        self.0.ok("batch_frames", unsafe {
            req(vt.batch_frames)(self.0.state, &mut n)
        });
        n
    }
    fn inserted(&mut self, frame: u32) {
        if let Some(f) = self.0.vt::<VbClientBufferVtable>().inserted {
            self.0.ok("inserted", unsafe { f(self.0.state, frame) });
        }
    }
    fn removed(&mut self, frame: u32, why: Removal) {
        if let Some(f) = self.0.vt::<VbClientBufferVtable>().removed {
            let why = match why {
                Removal::Played => 0,
                Removal::Written => 1,
            };
            self.0.ok("removed", unsafe { f(self.0.state, frame, why) });
        }
    }
    fn played_direct(&mut self, frame: u32) {
        if let Some(f) = self.0.vt::<VbClientBufferVtable>().played_direct {
            self.0
                .ok("played_direct", unsafe { f(self.0.state, frame) });
        }
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        let vt = self.0.vt::<VbClientBufferVtable>();
        let words = cache.words();
        let v = VbCacheView {
            words: words.as_ptr(),
            word_count: words.len(),
            len: cache.len(),
            capacity: cache.capacity(),
            has_pin_limit: cache.pin_limit().is_some() as u8,
            pin_limit: cache.pin_limit().unwrap_or(0),
        };
        let mut sink = u32_sink(out);
        self.0.ok("choose_victims", unsafe {
            req(vt.choose_victims)(self.0.state, &v, &mut sink)
        });
    }
    fn written(&mut self, extent: ExtentId, frames: &[u32]) {
        if let Some(f) = self.0.vt::<VbClientBufferVtable>().written {
            self.0.ok("written", unsafe {
                f(self.0.state, extent.0, frames.as_ptr(), frames.len())
            });
        }
    }
    fn due_frame(&mut self, extent: ExtentId, frames: &[u32]) -> u32 {
        let Some(f) = self.0.vt::<VbClientBufferVtable>().due_frame else {
            return frames[0];
        };
        let mut out = frames[0];
        self.0.ok("due_frame", unsafe {
            f(
                self.0.state,
                extent.0,
                frames.as_ptr(),
                frames.len(),
                &mut out,
            )
        });
        out
    }
    fn choose_reads(&mut self, due: u32, extent: ExtentId, room: u32, out: &mut Vec<ExtentId>) {
        let Some(f) = self.0.vt::<VbClientBufferVtable>().choose_reads else {
            out.push(extent);
            return;
        };
        let mut extents = Vec::new();
        let mut sink = u32_sink(&mut extents);
        self.0.ok("choose_reads", unsafe {
            f(self.0.state, due, extent.0, room, &mut sink)
        });
        out.extend(extents.into_iter().map(ExtentId));
    }
}
