//! Read-ahead: the prefetcher asked, at a disk, what to read next (SPIFFI §5.4).

use super::*;

impl<'a> Engine<'a> {
    /// Asks the prefetcher what to read at `disk` until it has nothing more for now.
    pub(super) fn prefetch_poll(&mut self, disk: usize) {
        let name = self.prefetch.name;
        for _ in 0..MAX_CANDIDATES_PER_POLL {
            let now = self.q.now();
            match self.prefetch.poll(disk, now) {
                PrefetchPoll::Idle => return,
                PrefetchPoll::WaitUntil(t) => {
                    if t <= now {
                        self.faults.plugin(
                            crate::system::ondemand::scenario::PREFETCHER.key,
                            name,
                            now,
                            format!("asked to wait until {t}, which is not in the future"),
                        );
                        return;
                    }
                    if self.prefetch.wake_at(disk, t) {
                        self.q.schedule(t, Ev::PrefetchWake(disk as u32));
                    }
                    return;
                }
                PrefetchPoll::Issue(c) => {
                    let v = c.block.video.index();
                    let (videos, slots) = (self.terms.blocks.len(), self.terms.terms.len());
                    let breach = if v >= videos {
                        Some(format!(
                            "named block {} of video {v}, which does not exist (the library \
                             has {videos} videos)",
                            c.block.index
                        ))
                    } else if c.terminal.index() >= slots {
                        Some(format!(
                            "named terminal {}, which does not exist (the run has {slots} \
                             terminal slots)",
                            c.terminal.0
                        ))
                    } else {
                        None
                    };
                    if let Some(message) = breach {
                        let key = crate::system::ondemand::scenario::PREFETCHER.key;
                        self.faults.plugin(key, name, now, message);
                        return;
                    }
                    if c.block.index >= self.terms.blocks[v] {
                        continue; // past the end of its video
                    }
                    let loc = self.layout.locate(c.block);
                    let n = loc.node.index();
                    if self.nodes.nodes[n].holds(c.block) {
                        continue; // already cached or being read
                    }
                    let w = self.period.w;
                    let Some(page) =
                        self.nodes
                            .prefetch_page(n, c.block, now, &w, &mut self.faults)
                    else {
                        return;
                    };
                    let bytes = self.block_len(c.block.video.0, c.block.index);
                    let dr = DReq {
                        page,
                        node: n as u32,
                        disk: loc.disk.0,
                        class: RequestClass::Prefetch,
                        enqueued: now,
                        offset: loc.offset,
                        bytes,
                        queued: false,
                        deadline: c.deadline,
                        terminal: c.terminal.0,
                        owner: NONE,
                        lead: NONE,
                        left: 1,
                    };
                    self.prefetch.issued(loc.disk.index());
                    self.start_io(dr, c.block);
                }
            }
        }
        let now = self.q.now();
        self.faults.plugin(
            crate::system::ondemand::scenario::PREFETCHER.key,
            name,
            now,
            format!("returned {MAX_CANDIDATES_PER_POLL} candidates in one poll"),
        );
    }

    pub(super) fn block_len(&self, video: u32, index: u32) -> u64 {
        let total = self.terms.lib().total_bytes(video as usize);
        let start = u64::from(index) * self.block_bytes;
        total.saturating_sub(start).min(self.block_bytes)
    }

    // ----- measurement -------------------------------------------------------------------
}
