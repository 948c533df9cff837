//! Server nodes: CPU (FCFS), buffer-pool bookkeeping, disks and prefetching (SPIFFI §5.2).
//!
//! The engine owns every page table, pin count and queue; plugins only decide (which page to
//! evict, which request to serve, what to prefetch). Every answer a plugin gives is checked
//! here, and a broken contract stops the run with an error naming the plugin.

use super::engine::{CpuJob, DReq, Ev, PageState, Sim, NONE};
use crate::ids::{DiskId, NodeId, PageId, RequestId, TerminalId};
use crate::plugin::{
    DiskAccess, Endpoint, HeadState, PrefetchPoll, QueuedRequest, Reference, RequestClass,
};

impl Sim<'_> {
    pub(super) fn cpu_push(&mut self, node: usize, job: CpuJob) {
        self.nodes[node].cpu_queue.push_back(job);
        self.cpu_kick(node);
    }

    fn cpu_kick(&mut self, node: usize) {
        if self.nodes[node].cpu_current.is_some() {
            return;
        }
        let Some(job) = self.nodes[node].cpu_queue.pop_front() else {
            return;
        };
        let c = &self.scenario.file.server.cpu;
        let instr = match job {
            CpuJob::Receive(_) => c.receive,
            CpuJob::StartIo(_) => c.start_io,
            CpuJob::Send(_) => c.send,
        };
        let now = self.q.now();
        let cost = self.cpu_cost(instr);
        let window = self.acc.window;
        let n = &mut self.nodes[node];
        n.cpu_current = Some(job);
        n.cpu_busy.set(now, 1, window);
        self.q.schedule(now + cost, Ev::CpuDone(node as u32));
    }

    pub(super) fn cpu_done(&mut self, node: usize) {
        let now = self.q.now();
        let window = self.acc.window;
        let n = &mut self.nodes[node];
        let job = n.cpu_current.take().expect("CpuDone without a job");
        n.cpu_busy.set(now, 0, window);
        match job {
            CpuJob::Receive(r) => self.lookup(r),
            CpuJob::StartIo(d) => self.disk_enqueue(d),
            CpuJob::Send(r) => {
                let bytes = self.reqs[r as usize].bytes;
                self.reqs[r as usize].stage = 2;
                self.cons.sent_bytes += bytes;
                self.in_transit_bytes += bytes;
                let r_ = self.reqs[r as usize];
                let (from, to) = (
                    Endpoint::Node(NodeId(r_.node)),
                    Endpoint::Terminal(TerminalId(r_.terminal)),
                );
                let at = now + self.wire(from, to, bytes);
                self.q.schedule(at, Ev::Arrive(r));
            }
        }
        self.cpu_kick(node);
    }

    /// A terminal's request reached the buffer pool of its node.
    fn lookup(&mut self, r: u32) {
        let req = self.reqs[r as usize];
        let node = req.node as usize;
        let measuring = self.acc.measuring;
        let first_time = !req.counted;
        self.reqs[r as usize].counted = true;
        if first_time && measuring {
            self.acc.references += 1;
            self.nodes[node].references += 1;
        }
        if let Some(&p) = self.nodes[node].table.get(&req.block) {
            let page = self.nodes[node].pages[p as usize];
            if first_time
                && measuring
                && page.last_terminal != NONE
                && page.last_terminal != req.terminal
            {
                self.acc.shared += 1;
            }
            {
                let pg = &mut self.nodes[node].pages[p as usize];
                pg.last_terminal = req.terminal;
                pg.referenced = true;
            }
            self.reqs[r as usize].page = p;
            match page.state {
                PageState::Resident => {
                    if measuring && first_time {
                        self.acc.hits += 1;
                        self.nodes[node].hits += 1;
                    }
                    self.cons.hit_bytes += req.bytes;
                    self.reqs[r as usize].stage = 1;
                    if page.evictable {
                        self.nodes[node].pages[p as usize].evictable = false;
                        self.nodes[node].pool.acquire(PageId(p));
                    }
                    self.nodes[node].pages[p as usize].pins += 1;
                    self.cpu_push(node, CpuJob::Send(r));
                }
                PageState::Reading => {
                    if measuring && first_time {
                        self.acc.joins += 1;
                    }
                    self.cons.join_bytes += req.bytes;
                    self.reqs[r as usize].stage = 1;
                    let pg = &mut self.nodes[node].pages[p as usize];
                    pg.pins += 1;
                    self.reqs[r as usize].next_waiter = pg.waiters;
                    pg.waiters = r;
                }
                PageState::Free => unreachable!("free page in the page table"),
            }
        } else {
            let Some(p) = self.alloc_page(node, false) else {
                if measuring && first_time {
                    self.acc.page_waits += 1;
                }
                self.nodes[node].waiting.push_back(r);
                return;
            };
            if measuring && first_time {
                self.acc.misses += 1;
            }
            self.count_reread(req.block);
            self.cons.disk_demand_bytes += req.bytes;
            self.reqs[r as usize].stage = 1;
            let window = self.acc.window;
            let now = self.q.now();
            let n = &mut self.nodes[node];
            let pg = &mut n.pages[p as usize];
            pg.state = PageState::Reading;
            pg.block = req.block;
            pg.pins = 1;
            pg.waiters = r;
            pg.referenced = true;
            pg.last_terminal = req.terminal;
            n.table.insert(req.block, p);
            let used = n.used.level() + 1;
            n.used.set(now, used, window);
            self.reqs[r as usize].page = p;
            self.reqs[r as usize].next_waiter = NONE;
            let loc = self.layout.locate(req.block);
            let d = self.new_dreq(DReq {
                page: p,
                node: req.node,
                disk: loc.disk.0,
                class: RequestClass::Demand,
                enqueued: now,
                offset: loc.offset,
                bytes: req.bytes,
                queued: false,
                deadline: Some(req.deadline),
                terminal: req.terminal,
            });
            self.cpu_push(node, CpuJob::StartIo(d));
        }
        if first_time {
            self.after_reference(r);
        }
    }

    fn after_reference(&mut self, r: u32) {
        let req = self.reqs[r as usize];
        let video = req.block.video.index();
        let block_playout = if self.blocks[video] == 0 {
            crate::time::SimDuration::ZERO
        } else {
            let total = self.lib.frame_time(self.lib.frames());
            crate::time::SimDuration::from_nanos(total.as_nanos() / u64::from(self.blocks[video]))
        };
        let hint = self.search_hint(
            req.terminal as usize,
            req.block,
            DiskId(req.disk),
            req.deadline,
        );
        if hint.is_some() && self.acc.measuring {
            self.acc.prefetch_hints += 1;
        }
        let reference = Reference {
            terminal: TerminalId(req.terminal),
            block: req.block,
            disk: DiskId(req.disk),
            deadline: req.deadline,
            block_playout,
            now: self.q.now(),
            hint,
        };
        if let Some(d) = self
            .prefetcher
            .on_reference(&reference, self.layout.as_ref())
        {
            if d.index() >= self.disks.len() {
                let name = self.scenario.plugins.prefetcher.name;
                self.fail(
                    "prefetcher",
                    name,
                    format!("named disk {d}, which does not exist"),
                );
                return;
            }
            self.prefetch_poll(d.index());
        }
    }

    pub(super) fn new_dreq(&mut self, d: DReq) -> u32 {
        if let Some(i) = self.free_dreqs.pop() {
            self.dreqs[i as usize] = d;
            i
        } else {
            self.dreqs.push(d);
            (self.dreqs.len() - 1) as u32
        }
    }

    /// A free page, evicting one if needed; `None` when every page is pinned or being read,
    /// or, for a prefetch, when the buffer pool declines to evict for it.
    fn alloc_page(&mut self, node: usize, prefetch: bool) -> Option<u32> {
        if let Some(p) = self.nodes[node].free.pop() {
            return Some(p);
        }
        let pool = &mut self.nodes[node].pool;
        let victim = if prefetch {
            pool.evict_for_prefetch()
        } else {
            pool.evict()
        }?;
        let p = victim.0;
        let ok = self.nodes[node]
            .pages
            .get(p as usize)
            .is_some_and(|pg| pg.evictable && pg.state == PageState::Resident && pg.pins == 0);
        if !ok {
            let name = self.scenario.plugins.buffer_pool.name;
            self.fail(
                "buffer_pool",
                name,
                format!("evicted page {p} of node {node}, which is not evictable"),
            );
            return None;
        }
        let n = &mut self.nodes[node];
        let pg = &mut n.pages[p as usize];
        pg.evictable = false;
        pg.state = PageState::Free;
        let wasted = !pg.referenced;
        if wasted && self.acc.measuring {
            self.acc.prefetch_wasted += 1;
        }
        pg.referenced = false;
        pg.last_terminal = NONE;
        let block = pg.block;
        n.table.remove(&block);
        if wasted {
            self.wasted.insert(block);
        }
        let now = self.q.now();
        let used = n.used.level() - 1;
        n.used.set(now, used, self.acc.window);
        Some(p)
    }

    /// `block` is about to be read from disk: a re-read if its prefetched page was
    /// evicted unreferenced since it was last read.
    fn count_reread(&mut self, block: crate::ids::BlockId) {
        if self.wasted.remove(block) && self.acc.measuring {
            self.acc.prefetch_rereads += 1;
        }
    }

    /// Makes `page` evictable and retries reads waiting for a page.
    fn release_page(&mut self, node: usize, p: u32) {
        let pg = &mut self.nodes[node].pages[p as usize];
        debug_assert!(pg.pins == 0 && pg.state == PageState::Resident && !pg.evictable);
        pg.evictable = true;
        let referenced = pg.referenced;
        self.nodes[node].pool.release(PageId(p), referenced);
        while let Some(&r) = self.nodes[node].waiting.front() {
            let before = self.nodes[node].waiting.len();
            self.nodes[node].waiting.pop_front();
            self.lookup(r);
            if self.nodes[node].waiting.len() >= before {
                // it went back to waiting (at the end); put it back at the front and stop
                let back = self.nodes[node].waiting.pop_back().expect("just pushed");
                self.nodes[node].waiting.push_front(back);
                break;
            }
        }
    }

    fn disk_enqueue(&mut self, d: u32) {
        let dr = self.dreqs[d as usize];
        let disk = dr.disk as usize;
        let now = self.q.now();
        let cyl = self.disks[disk].model.cylinder_of(dr.offset);
        self.dreqs[d as usize].queued = true;
        self.dreqs[d as usize].enqueued = now;
        let ds = &mut self.disks[disk];
        ds.sched.enqueue(QueuedRequest {
            id: RequestId(d),
            cylinder: cyl,
            offset: dr.offset,
            bytes: dr.bytes,
            terminal: Some(TerminalId(dr.terminal)),
            class: dr.class,
            deadline: dr.deadline,
            arrival: now,
        });
        ds.queued += 1;
        self.disk_start(disk);
    }

    fn disk_start(&mut self, disk: usize) {
        if self.disks[disk].busy.is_some() || self.disks[disk].queued == 0 {
            return;
        }
        let now = self.q.now();
        let ds = &mut self.disks[disk];
        let head = HeadState {
            now,
            cylinder: ds.model.head_cylinder(),
            cylinders: ds.cylinders,
        };
        let held = ds.sched.len();
        let choice = ds.sched.dequeue(&head);
        let name = self.scenario.plugins.scheduler.name;
        if held != ds.queued as usize {
            let msg = format!(
                "len() says {held} but {} requests are queued at disk {disk}",
                ds.queued
            );
            self.fail("disk.scheduler", name, msg);
            return;
        }
        let Some(RequestId(d)) = choice else {
            let msg = format!("returned no request while {held} are queued at disk {disk}");
            self.fail("disk.scheduler", name, msg);
            return;
        };
        let valid = self
            .dreqs
            .get(d as usize)
            .is_some_and(|r| r.queued && r.disk as usize == disk);
        if !valid {
            let msg = format!("returned request {d}, which is not queued at disk {disk}");
            self.fail("disk.scheduler", name, msg);
            return;
        }
        let dr = &mut self.dreqs[d as usize];
        dr.queued = false;
        let access = DiskAccess {
            offset: dr.offset,
            bytes: dr.bytes,
            write: false,
        };
        let queue_ns = now.saturating_since(dr.enqueued).as_nanos();
        let class = dr.class;
        let ds = &mut self.disks[disk];
        ds.queued -= 1;
        let st = ds.model.service(&access, now);
        let service = st.total();
        ds.busy = Some((d, st));
        ds.busy_level.set(now, 1, self.acc.window);
        if self.acc.measuring {
            let a = &mut self.acc;
            if !self.search_figures_only {
                a.queue.record(queue_ns);
                a.overhead.record(st.overhead.as_nanos());
                a.seek.record(st.seek.as_nanos());
                a.rotation.record(st.rotation.as_nanos());
                a.transfer.record(st.transfer.as_nanos());
                a.service.record(service.as_nanos());
                a.total.record(queue_ns + service.as_nanos());
            }
            if st.cache_hit {
                a.cache_hits += 1;
            }
            match class {
                RequestClass::Demand => a.demand_served += 1,
                RequestClass::Prefetch => a.prefetch_served += 1,
            }
            ds.served += 1;
            if class == RequestClass::Prefetch {
                ds.served_prefetch += 1;
            }
            ds.queue_sum += u128::from(queue_ns);
            ds.service_sum += u128::from(service.as_nanos());
            ds.overhead_sum += u128::from(st.overhead.as_nanos());
            ds.seek_sum += u128::from(st.seek.as_nanos());
            ds.rotation_sum += u128::from(st.rotation.as_nanos());
            ds.transfer_sum += u128::from(st.transfer.as_nanos());
            let every = u64::from(self.scenario.file.run.request_sample_every);
            if every > 0 && a.dispatched % every == 0 && !self.search_figures_only {
                let since = now.saturating_since(a.window.0).as_nanos();
                let pf = class == RequestClass::Prefetch;
                a.requests.push(since, disk, pf, queue_ns, &st);
            }
            a.dispatched += 1;
            ds.max_total = ds.max_total.max(queue_ns + service.as_nanos());
        }
        self.q.schedule(now + service, Ev::DiskDone(disk as u32));
    }

    pub(super) fn disk_done(&mut self, disk: usize) {
        let now = self.q.now();
        let (d, _st) = self.disks[disk]
            .busy
            .take()
            .expect("DiskDone on an idle disk");
        self.disks[disk].busy_level.set(now, 0, self.acc.window);
        let dr = self.dreqs[d as usize];
        self.free_dreqs.push(d);
        let node = dr.node as usize;
        let p = dr.page;
        self.nodes[node].pages[p as usize].state = PageState::Resident;
        let mut w = std::mem::replace(&mut self.nodes[node].pages[p as usize].waiters, NONE);
        while w != NONE {
            let next = self.reqs[w as usize].next_waiter;
            self.reqs[w as usize].next_waiter = NONE;
            self.cpu_push(node, CpuJob::Send(w));
            w = next;
        }
        if self.nodes[node].pages[p as usize].pins == 0 {
            self.release_page(node, p);
        }
        if dr.class == RequestClass::Prefetch {
            self.disks[disk].prefetch_in_flight -= 1;
        }
        self.disk_start(disk);
        if dr.class == RequestClass::Prefetch {
            self.prefetch_poll(disk);
        }
    }

    /// The server side of a delivery: the page is no longer needed for this request.
    pub(super) fn unpin(&mut self, r: u32) {
        let req = self.reqs[r as usize];
        let node = req.node as usize;
        let p = req.page;
        let pg = &mut self.nodes[node].pages[p as usize];
        pg.pins -= 1;
        if pg.pins == 0 && pg.state == PageState::Resident {
            self.release_page(node, p);
        }
    }

    /// Asks the prefetcher what to read at `disk` until it has nothing more for now.
    pub(super) fn prefetch_poll(&mut self, disk: usize) {
        let name = self.scenario.plugins.prefetcher.name;
        for _ in 0..100_000 {
            let now = self.q.now();
            let in_flight = self.disks[disk].prefetch_in_flight;
            match self.prefetcher.poll(DiskId(disk as u32), in_flight, now) {
                PrefetchPoll::Idle => return,
                PrefetchPoll::WaitUntil(t) => {
                    if t <= now {
                        self.fail(
                            "prefetcher",
                            name,
                            format!("asked to wait until {t}, which is not in the future"),
                        );
                        return;
                    }
                    if t < self.disks[disk].prefetch_wake {
                        self.disks[disk].prefetch_wake = t;
                        self.q.schedule(t, Ev::PrefetchWake(disk as u32));
                    }
                    return;
                }
                PrefetchPoll::Issue(c) => {
                    let v = c.block.video.index();
                    if v >= self.blocks.len() || c.block.index >= self.blocks[v] {
                        continue; // past the end of the video
                    }
                    let loc = self.layout.locate(c.block);
                    let node = loc.node.index();
                    if self.nodes[node].table.contains_key(&c.block) {
                        continue; // already cached or being read
                    }
                    let Some(p) = self.alloc_page(node, true) else {
                        if self.acc.measuring {
                            self.acc.prefetch_dropped += 1;
                        }
                        return;
                    };
                    self.count_reread(c.block);
                    let window = self.acc.window;
                    let n = &mut self.nodes[node];
                    let pg = &mut n.pages[p as usize];
                    pg.state = PageState::Reading;
                    pg.block = c.block;
                    pg.pins = 0;
                    pg.waiters = NONE;
                    pg.referenced = false;
                    pg.last_terminal = NONE;
                    n.table.insert(c.block, p);
                    let used = n.used.level() + 1;
                    n.used.set(now, used, window);
                    let bytes = self.block_len(c.block.video.0, c.block.index);
                    let d = self.new_dreq(DReq {
                        page: p,
                        node: node as u32,
                        disk: loc.disk.0,
                        class: RequestClass::Prefetch,
                        enqueued: now,
                        offset: loc.offset,
                        bytes,
                        queued: false,
                        deadline: c.deadline,
                        terminal: c.terminal.0,
                    });
                    self.disks[loc.disk.index()].prefetch_in_flight += 1;
                    if self.acc.measuring {
                        self.acc.prefetch_issued += 1;
                    }
                    self.cpu_push(node, CpuJob::StartIo(d));
                }
            }
        }
        self.fail(
            "prefetcher",
            name,
            "returned 100000 candidates in one poll".into(),
        );
    }
}
