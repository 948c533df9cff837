//! `prefetcher`: a loaded prefetcher ([`Prefetcher`]; its required calls and how an instance is
//! wrapped: [`ImportKind`]), and the run's layout lent to it for one call.

use super::{block, ns, req, vb_block, ImportKind, Instance};
use std::ffi::c_void;
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::ids::{BlockId, DiskId, TerminalId};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimTime;

/// The run's layout lent to a loaded prefetcher for one call; a failure inside it (a loaded
/// layout's) is held and raised again once the prefetcher's call has returned, never
/// unwound through the library's frames. A block outside the library (`blocks[v]` blocks
/// for each video `v`) is refused before the layout is asked: the prefetcher's breach,
/// reported once its call has returned.
struct LentLayout<'a> {
    layout: &'a dyn Layout,
    blocks: &'a [u32],
    failure: Option<Box<dyn std::any::Any + Send>>,
    refused: Option<String>,
}

impl LentLayout<'_> {
    /// Whether the call must not go on (an earlier failure or refusal, or `b` not in the
    /// library: then refused, naming `call`).
    fn stopped(&mut self, call: &str, b: BlockId) -> bool {
        if self.failure.is_some() || self.refused.is_some() {
            return true;
        }
        let (video, index) = (b.video.0, b.index);
        let why = match self.blocks.get(video as usize) {
            Some(&n) if index < n => return false,
            Some(&n) => format!("the video has {n} blocks"),
            None => format!("the library has {} videos", self.blocks.len()),
        };
        self.refused = Some(format!(
            "asked the layout's {call} for block {index} of video {video}, which does not \
             exist ({why})"
        ));
        true
    }
}

unsafe extern "C" fn view_locate(ctx: *const c_void, b: *const VbBlockId, out: *mut VbLocation) {
    let lent = &mut *(ctx as *mut LentLayout<'_>);
    let b = block(&*b);
    if lent.stopped("locate", b) {
        return;
    }
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lent.layout.locate(b))) {
        Ok(l) => {
            *out = VbLocation {
                node: l.node.0,
                disk: l.disk.0,
                offset: l.offset,
            }
        }
        Err(p) => lent.failure = Some(p),
    }
}

unsafe extern "C" fn view_next(ctx: *const c_void, b: *const VbBlockId, out: *mut VbBlockId) -> u8 {
    let lent = &mut *(ctx as *mut LentLayout<'_>);
    let b = block(&*b);
    if lent.stopped("next_on_same_disk", b) {
        return 0;
    }
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        lent.layout.next_on_same_disk(b)
    })) {
        Ok(Some(n)) => {
            *out = vb_block(n);
            1
        }
        Ok(None) => 0,
        Err(p) => {
            lent.failure = Some(p);
            0
        }
    }
}

struct CPrefetcher(Instance);

impl ImportKind for dyn Prefetcher {
    type Table = VbPrefetcherVtable;
    fn required(table: &VbPrefetcherVtable) -> Vec<(&'static str, bool)> {
        vec![
            ("on_reference", table.on_reference.is_some()),
            ("poll", table.poll.is_some()),
        ]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CPrefetcher(instance))
    }
}

impl Prefetcher for CPrefetcher {
    fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
        let vt = self.0.vt::<VbPrefetcherVtable>();
        let reference = VbReference {
            terminal: r.terminal.0,
            block: vb_block(r.block),
            disk: r.disk.0,
            deadline_ns: ns(r.deadline),
            block_playout_ns: r.block_playout.as_nanos(),
            now_ns: ns(r.now),
            has_hint: r.hint.is_some() as u8,
            hint_block: r.hint.map_or(VbBlockId::default(), |h| vb_block(h.block)),
            hint_deadline_ns: r.hint.map_or(0, |h| ns(h.deadline)),
        };
        let mut lent = LentLayout {
            layout,
            blocks: &self.0.video_blocks,
            failure: None,
            refused: None,
        };
        let view = VbLayoutView {
            ctx: (&mut lent as *mut LentLayout<'_>).cast_const().cast(),
            locate: view_locate,
            next_on_same_disk: view_next,
        };
        let (mut some, mut disk) = (0u8, 0u32);
        let status =
            unsafe { req(vt.on_reference)(self.0.state, &reference, &view, &mut some, &mut disk) };
        if let Some(p) = lent.failure.take() {
            std::panic::resume_unwind(p);
        }
        if let Some(m) = lent.refused.take() {
            self.0.fail("on_reference", m);
        }
        self.0.ok("on_reference", status);
        (some != 0).then_some(DiskId(disk))
    }
    fn poll(&mut self, disk: DiskId, in_flight: u32, now: SimTime) -> PrefetchPoll {
        let vt = self.0.vt::<VbPrefetcherVtable>();
        let mut out = VbPrefetchPoll::default();
        self.0.ok("poll", unsafe {
            req(vt.poll)(self.0.state, disk.0, in_flight, ns(now), &mut out)
        });
        match out.tag {
            VB_POLL_IDLE => PrefetchPoll::Idle,
            VB_POLL_WAIT => PrefetchPoll::WaitUntil(SimTime::from_nanos(out.wait_until_ns)),
            VB_POLL_ACT => {
                let c = out.candidate;
                PrefetchPoll::Issue(PrefetchCandidate {
                    block: block(&c.block),
                    terminal: TerminalId(c.terminal),
                    deadline: (c.has_deadline != 0).then(|| SimTime::from_nanos(c.deadline_ns)),
                })
            }
            t => self.0.fail(
                "poll",
                format!("answered tag {t}; the tags are 0 (idle), 1 (issue) and 2 (wait)"),
            ),
        }
    }
}
