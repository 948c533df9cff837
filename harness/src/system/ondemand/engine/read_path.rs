//! A read inside the server: the buffer pool's lookup, the prefetcher hearing of the
//! reference, the disk access and its end, the pages released (SPIFFI §5.2–5.4).

use super::*;

impl<'a> Engine<'a> {
    /// A terminal's request reached the buffer pool of its node.
    pub(super) fn lookup(&mut self, r: u32) {
        let req = *self.reqs.read(r);
        let n = req.node as usize;
        let first_time = !req.counted;
        let now = self.q.now();
        let found =
            self.nodes
                .reference(n, r, &mut self.reqs, now, &self.period.w, &mut self.faults);
        match found {
            Lookup::Hit => self.cpu_push(n, CpuJob::Send(r)),
            Lookup::Join => {}
            Lookup::Miss(page) => {
                let loc = self.layout.locate(req.block);
                let dr = DReq {
                    page,
                    node: req.node,
                    disk: loc.disk.0,
                    class: RequestClass::Demand,
                    enqueued: now,
                    offset: loc.offset,
                    bytes: req.bytes,
                    queued: false,
                    deadline: Some(req.deadline),
                    terminal: req.terminal,
                    owner: r,
                    lead: NONE,
                    left: 1,
                };
                self.start_io(dr, req.block);
            }
            Lookup::NoPage => return,
        }
        if first_time {
            self.after_reference(r);
        }
    }

    /// A terminal's real reference: the prefetcher hears of it (with the terminal's hint
    /// when it searches) and may queue read-ahead.
    pub(super) fn after_reference(&mut self, r: u32) {
        let req = *self.reqs.read(r);
        let video = req.block.video.index();
        let blocks = self.terms.blocks[video];
        let block_playout = if blocks == 0 {
            SimDuration::ZERO
        } else {
            let lib = self.terms.lib();
            let total = lib.frame_time(lib.frames());
            SimDuration::from_nanos(total.as_nanos() / u64::from(blocks))
        };
        let hint = self.terms.search_hint(
            req.terminal as usize,
            req.block,
            DiskId(req.disk),
            req.deadline,
            self.layout.as_ref(),
            self.period.w.measuring,
        );
        let reference = Reference {
            terminal: TerminalId(req.terminal),
            block: req.block,
            disk: DiskId(req.disk),
            deadline: req.deadline,
            block_playout,
            now: self.q.now(),
            hint,
        };
        if let Some(d) = self.prefetch.on_reference(&reference, self.layout.as_ref()) {
            if d.index() >= self.storage_disks {
                let now = self.q.now();
                let name = self.prefetch.name;
                self.faults.plugin(
                    crate::system::ondemand::scenario::PREFETCHER.key,
                    name,
                    now,
                    format!("named disk {d}, which does not exist"),
                );
                return;
            }
            self.prefetch_poll(d.index());
        }
    }

    /// Disk access `dr` of `block` goes to its node's CPU: the whole block, or with
    /// fine-grained striping ([`Layout::pieces`]) one access per piece, issued together; the
    /// first counts for the block (`left`: pieces not yet read).
    pub(super) fn start_io(&mut self, mut dr: DReq, block: crate::ids::BlockId) {
        let n = dr.node as usize;
        let k = u64::from(self.layout.pieces().max(1)).min(dr.bytes.max(1));
        if k == 1 {
            let d = self.reqs.disk.put(dr);
            self.cpu_push(n, CpuJob::StartIo(d));
            return;
        }
        let (bytes, extra) = (dr.bytes / k, dr.bytes % k);
        let share = |i: u64| bytes + u64::from(i < extra);
        dr.bytes = share(0);
        dr.left = k as u32;
        let lead = self.reqs.disk.put(dr);
        self.cpu_push(n, CpuJob::StartIo(lead));
        for i in 1..k {
            let loc = self.layout.locate_piece(block, i as u32);
            if loc.disk.index() >= self.disks.len() || loc.node.0 != dr.node {
                let msg = format!(
                    "put piece {i} of {block:?} on disk {} of node {}, not a disk of the \
                     block's node {}",
                    loc.disk, loc.node, dr.node
                );
                self.faults.plugin(
                    crate::system::ondemand::scenario::LAYOUT.key,
                    self.layout_name,
                    self.q.now(),
                    msg,
                );
                return;
            }
            let d = self.reqs.disk.put(DReq {
                disk: loc.disk.0,
                offset: loc.offset,
                bytes: share(i),
                lead,
                left: 0,
                ..dr
            });
            self.cpu_push(n, CpuJob::StartIo(d));
        }
    }

    pub(super) fn disk_enqueue(&mut self, d: u32) {
        let now = self.q.now();
        let disk = self
            .disks
            .enqueue(d, &mut self.reqs.disk, now, &mut self.faults);
        self.disk_start(disk);
    }

    /// Disk `disk` starts its next access if it has one (no buffer or thread to wait for).
    pub(super) fn start_access(&mut self, disk: usize, now: SimTime) {
        self.disks.start(
            disk,
            now,
            &self.period.w,
            &mut self.reqs.disk,
            &mut self.faults,
            &mut self.q,
        );
    }

    pub(super) fn disk_start(&mut self, disk: usize) {
        let now = self.q.now();
        if disk < self.storage_disks {
            let n = self.disks.stations[disk].node as usize;
            if self.threads.single(n) {
                // the node's one thread starts an access only when it has nothing else to
                // do, and then waits it out
                if self.threads.busy(n) != Busy::Free || !self.nodes.cpu_free(n) {
                    return;
                }
                self.start_access(disk, now);
                if self.disks.busy(disk) {
                    self.threads.enter(n, Busy::Disk);
                    self.nodes.hold(n);
                }
                return;
            }
        }
        let Some((_, mem)) = self
            .rounds
            .as_mut()
            .filter(|(r, _)| r.release != Release::Dblbuf)
        else {
            self.start_access(disk, now);
            return;
        };
        // clbuf, clbufrate: a block's read takes its buffer as it starts (and waits for one
        // under the cap); a read no stream asked for (owner NONE) takes none
        let span = self.period.w.span;
        let reads = &mut self.reqs.reads;
        self.disks.start_gated(
            disk,
            now,
            &self.period.w,
            &mut self.reqs.disk,
            &mut self.faults,
            &mut self.q,
            &mut |a, dr| {
                if dr.owner == NONE {
                    return true;
                }
                let ok = mem.take(disk, a, dr.bytes, now, span);
                if ok {
                    reads.slots[dr.owner as usize].buffered += dr.bytes;
                }
                ok
            },
        );
    }

    /// Stream memory was freed (`clbuf`, `clbufrate`): the reads waiting under the cap
    /// whose buffers now fit start.
    pub(super) fn buffers_freed(&mut self) {
        let now = self.q.now();
        let Some((_, mem)) = self.rounds.as_mut() else {
            return;
        };
        if mem.waiting() == 0 {
            return;
        }
        for w in mem.wake(now, self.period.w.span) {
            let owner = self.reqs.disk.slots[w.access as usize].owner;
            self.reqs.read_mut(owner).buffered += w.bytes;
            self.disks.resume(
                w.disk,
                now,
                &self.period.w,
                &mut self.reqs.disk,
                &mut self.q,
            );
        }
    }

    pub(super) fn disk_done(&mut self, disk: usize) {
        let now = self.q.now();
        // on a bus, an access ends only with its transfer
        let Some((d, st, bus_wait)) = self.disks.finish(disk, now, &self.period.w, &mut self.q)
        else {
            return;
        };
        // the access (or the piece) that ended: with pieces, the last to end times the block
        let ended = self.reqs.disk.slots[d as usize];
        if disk < self.storage_disks && self.threads.single(ended.node as usize) {
            // a single-threaded node's thread is free of the access; its replies go first
            self.threads.leave(ended.node as usize, Busy::Disk);
            self.nodes.unhold(ended.node as usize);
        }
        // a piece of a block (fine-grained striping) counts for its block's first piece
        let lead = match self.reqs.disk.slots[d as usize].lead {
            NONE => d,
            l => {
                self.reqs.disk.release(d);
                l
            }
        };
        let first = &mut self.reqs.disk.slots[lead as usize];
        first.left -= 1;
        if first.left > 0 {
            if disk < self.storage_disks && self.threads.single(ended.node as usize) {
                // its thread receives what came during the access, then starts the next
                self.cpu_kick(ended.node as usize);
            } else {
                self.disk_start(disk);
            }
            return;
        }
        let dr = *first;
        self.reqs.disk.release(lead);
        if dr.node as usize >= self.nodes.nodes.len() {
            // a local disk of the dedicated interface node (`[server.replication]`): the
            // fragment is at its stream's node now
            let owner = self.reqs.read_mut(dr.owner);
            owner.own_io = true;
            owner.io = [
                now.saturating_since(ended.enqueued)
                    .as_nanos()
                    .saturating_sub(st.total().as_nanos()),
                st.seek.as_nanos(),
                st.rotation.as_nanos(),
                st.transfer.as_nanos(),
            ];
            self.local_arrive(dr.owner);
            self.disk_start(disk);
            return;
        }
        if dr.owner != NONE && (self.delays.on() || self.admission.observes()) {
            // the read whose miss made this access: its disk components (a wait for a bus
            // is left in N_Q with the rest of the round trip)
            let queued = now
                .saturating_since(ended.enqueued)
                .as_nanos()
                .saturating_sub(st.total().as_nanos() + bus_wait.as_nanos());
            let owner = self.reqs.read_mut(dr.owner);
            owner.own_io = true;
            owner.io = [
                queued,
                st.seek.as_nanos(),
                st.rotation.as_nanos(),
                st.transfer.as_nanos(),
            ];
        }
        // the disk the block was issued at (where a prefetch counts)
        let issued = dr.disk as usize;
        let n = dr.node as usize;
        let p = dr.page;
        let single = self.threads.single(n);
        let mut w = self.nodes.page_read(n, p);
        let mut replies = Vec::new();
        while w != NONE {
            let next = self.reqs.read(w).next_waiter;
            self.reqs.read_mut(w).next_waiter = NONE;
            if single {
                replies.push(w);
            } else {
                self.cpu_push(n, CpuJob::Send(w));
            }
            w = next;
        }
        if single {
            // a single-threaded node sends its replies first, in their order, ahead of the
            // receives queued during the access
            for &w in replies.iter().rev() {
                self.nodes.cpu_push_front_queued(n, CpuJob::Send(w));
            }
            self.cpu_kick(n);
        }
        if self.nodes.unpinned(n, p) {
            self.release_page(n, p);
        }
        if dr.class == RequestClass::Prefetch {
            self.prefetch.completed(issued);
        }
        self.disk_start(disk);
        if dr.class == RequestClass::Prefetch {
            self.prefetch_poll(issued);
        }
    }

    /// Makes page `p` of node `n` evictable and retries reads waiting for a page.
    pub(super) fn release_page(&mut self, n: usize, p: u32) {
        self.nodes.release(n, p);
        while self.nodes.waiting(n) > 0 {
            let before = self.nodes.waiting(n);
            let r = self.nodes.next_waiting(n).expect("one is waiting");
            self.lookup(r);
            if self.nodes.waiting(n) >= before {
                // it went back to waiting (at the end); put it back at the front and stop
                self.nodes.requeue_last_first(n);
                break;
            }
        }
    }
}
