//! Server nodes (SPIFFI §5.2): a CPU that serves jobs first come first served (receiving a
//! request, starting a disk I/O, sending a block), and a buffer pool of stripe-block pages —
//! the page table, pins, pages being read and the requests waiting for them — with what they
//! measured: CPU busy time, references, hits, joins, misses, shared references (SPIFFI
//! Fig. 16), prefetches wasted and re-read, and the memory in use.
//!
//! The node owns the page table; the [`BufferPool`] plugin only ranks evictable pages, and
//! every page it gives up is checked (it must be evictable now).

use super::block_set::BlockSet;
use super::error::Faults;
use super::event::NONE;
use super::measure::{fmax, mean, ratio, utilization, Window};
use super::requests::Requests;
use super::stats::Level;
use crate::ids::{BlockId, PageId, VideoId};
use crate::plugin::BufferPool;
use crate::results::{BufferPools, Column, Cpus, Table};
use crate::system::ondemand::scenario::CpuCosts;
use crate::time::{SimDuration, SimTime};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum PageState {
    Free,
    Reading,
    Resident,
}

#[derive(Copy, Clone)]
pub(super) struct Page {
    pub state: PageState,
    pub block: BlockId,
    pub pins: u32,
    /// Requests waiting for the page's read (a list through the request arena).
    pub waiters: u32,
    pub evictable: bool,
    pub referenced: bool,
    pub last_terminal: u32,
}

/// A job of a node's CPU.
#[derive(Copy, Clone)]
pub(super) enum CpuJob {
    /// Receive terminal read `r`.
    Receive(u32),
    /// Start disk access `d`.
    StartIo(u32),
    /// Send the block of terminal read `r`.
    Send(u32),
}

/// A node's CPU: one job at a time, first come first served.
struct Cpu {
    queue: VecDeque<CpuJob>,
    current: Option<CpuJob>,
    /// Held by a single-threaded storage node's disk access or reply
    /// (`storage_thread.rs`): it starts no job until released.
    held: bool,
    busy: Level,
}

/// What a reference found at a node's buffer pool.
pub(super) enum Lookup {
    /// The block is resident (its page pinned for the request).
    Hit,
    /// The block is being read into page `p`; the request waits for it.
    Join,
    /// Not there: page `p` was allocated and its read must start.
    Miss(u32),
    /// Not there, and no page is free or evictable: the request waits for one.
    NoPage,
}

/// One node.
pub(super) struct Node {
    pages: Vec<Page>,
    table: FxHashMap<BlockId, u32>,
    free: Vec<u32>,
    pool: Box<dyn BufferPool>,
    cpu: Cpu,
    /// Requests waiting for a free page.
    waiting: VecDeque<u32>,
    used: Level,
    // measured
    references: u64,
    hits: u64,
}

impl Node {
    /// A node of `pages` pages with its buffer pool.
    pub fn new(pages: u32, pool: Box<dyn BufferPool>) -> Node {
        Node {
            pages: vec![
                Page {
                    state: PageState::Free,
                    block: BlockId {
                        video: VideoId(0),
                        index: 0
                    },
                    pins: 0,
                    waiters: NONE,
                    evictable: false,
                    referenced: false,
                    last_terminal: NONE,
                };
                pages as usize
            ],
            table: FxHashMap::default(),
            free: (0..pages).rev().collect(),
            pool,
            cpu: Cpu {
                queue: VecDeque::new(),
                current: None,
                held: false,
                busy: Level::default(),
            },
            waiting: VecDeque::new(),
            used: Level::default(),
            references: 0,
            hits: 0,
        }
    }

    /// Whether `block` is cached or being read here.
    pub fn holds(&self, block: BlockId) -> bool {
        self.table.contains_key(&block)
    }
}

/// Every node, their CPU costs and what their buffer pools measured together.
pub(super) struct Nodes {
    pub nodes: Vec<Node>,
    /// The buffer pool's name, for contract errors.
    pool_name: &'static str,
    costs: CpuCosts,
    ns_per_instr_milli: u64,
    /// Blocks whose prefetched page was evicted unreferenced and not read since (re-reads).
    wasted: BlockSet,
    block_bytes: u64,
    // measured
    references: u64,
    hits: u64,
    joins: u64,
    misses: u64,
    shared: u64,
    page_waits: u64,
    prefetch_issued: u64,
    prefetch_wasted: u64,
    prefetch_rereads: u64,
    prefetch_dropped: u64,
    // conservation
    pub disk_demand_bytes: u64,
    pub hit_bytes: u64,
    pub join_bytes: u64,
    pub sent_bytes: u64,
}

impl Nodes {
    pub fn new(
        nodes: Vec<Node>,
        pool_name: &'static str,
        costs: CpuCosts,
        cpu_mips: u32,
        blocks: &[u32],
        block_bytes: u64,
    ) -> Self {
        Nodes {
            nodes,
            pool_name,
            costs,
            ns_per_instr_milli: 1_000_000 / u64::from(cpu_mips.max(1)),
            wasted: BlockSet::new(blocks),
            block_bytes,
            references: 0,
            hits: 0,
            joins: 0,
            misses: 0,
            shared: 0,
            page_waits: 0,
            prefetch_issued: 0,
            prefetch_wasted: 0,
            prefetch_rereads: 0,
            prefetch_dropped: 0,
            disk_demand_bytes: 0,
            hit_bytes: 0,
            join_bytes: 0,
            sent_bytes: 0,
        }
    }

    /// Opens the measured window: busy time and memory in use count from `now`.
    pub fn open(&mut self, now: SimTime) {
        for n in &mut self.nodes {
            n.cpu.busy.open(now);
            n.used.open(now);
        }
    }

    // ----- CPU ---------------------------------------------------------------------------

    /// Queues `job` at node `n`'s CPU; when the job it starts (if the CPU was idle) ends.
    #[inline]
    pub fn cpu_push(&mut self, n: usize, job: CpuJob, now: SimTime, w: &Window) -> Option<SimTime> {
        let cpu = &self.nodes[n].cpu;
        if cpu.current.is_none() && cpu.queue.is_empty() && !cpu.held {
            // an idle CPU with nothing queued starts the job at once
            return Some(self.cpu_start(n, job, now, w));
        }
        self.nodes[n].cpu.queue.push_back(job);
        self.cpu_kick(n, now, w)
    }

    /// Starts the next job at node `n`'s CPU if it is idle; when it ends.
    pub fn cpu_kick(&mut self, n: usize, now: SimTime, w: &Window) -> Option<SimTime> {
        let cpu = &mut self.nodes[n].cpu;
        if cpu.current.is_some() || cpu.held {
            return None;
        }
        let job = cpu.queue.pop_front()?;
        Some(self.cpu_start(n, job, now, w))
    }

    /// Queues `job` first in line at node `n`'s CPU without starting it (a single-threaded
    /// storage node's reply, sent before the requests that came during the access are
    /// received); [`Nodes::cpu_kick`] starts it.
    pub fn cpu_push_front_queued(&mut self, n: usize, job: CpuJob) {
        self.nodes[n].cpu.queue.push_front(job);
    }

    /// Holds node `n`'s CPU (its one thread is in a disk access or a send): queued jobs wait.
    pub fn hold(&mut self, n: usize) {
        self.nodes[n].cpu.held = true;
    }

    /// Releases node `n`'s CPU; the caller starts its next job ([`Nodes::cpu_kick`]).
    pub fn unhold(&mut self, n: usize) {
        self.nodes[n].cpu.held = false;
    }

    /// Whether node `n`'s CPU has nothing to do and is not held: its thread is free.
    pub fn cpu_free(&self, n: usize) -> bool {
        let cpu = &self.nodes[n].cpu;
        cpu.current.is_none() && cpu.queue.is_empty() && !cpu.held
    }

    /// Node `n`'s idle CPU starts `job` at `now`; when it ends.
    #[inline]
    fn cpu_start(&mut self, n: usize, job: CpuJob, now: SimTime, w: &Window) -> SimTime {
        let instr = match job {
            CpuJob::Receive(_) => self.costs.receive,
            CpuJob::StartIo(_) => self.costs.start_io,
            CpuJob::Send(_) => self.costs.send,
        };
        let cost = SimDuration::from_nanos(instr.saturating_mul(self.ns_per_instr_milli) / 1000);
        let cpu = &mut self.nodes[n].cpu;
        cpu.current = Some(job);
        cpu.busy.set(now, 1, w.span);
        now + cost
    }

    /// Node `n`'s CPU finished its job at `now`; the job.
    pub fn cpu_done(&mut self, n: usize, now: SimTime, w: &Window) -> CpuJob {
        let cpu = &mut self.nodes[n].cpu;
        let job = cpu.current.take().expect("CpuDone without a job");
        cpu.busy.set(now, 0, w.span);
        job
    }

    /// Node `n` hands `bytes` of a block to the network.
    pub fn sent(&mut self, bytes: u64) {
        self.sent_bytes += bytes;
    }

    // ----- buffer pool -----------------------------------------------------------------

    /// Terminal read `r` reached node `n`'s buffer pool: counts the reference (once per
    /// request), and finds the block resident, being read, or not there (allocating a page
    /// for its read when one is free or evictable).
    pub fn reference(
        &mut self,
        n: usize,
        r: u32,
        reqs: &mut Requests,
        now: SimTime,
        w: &Window,
        faults: &mut Faults,
    ) -> Lookup {
        let req = *reqs.read(r);
        let measuring = w.measuring;
        let first_time = !req.counted;
        reqs.read_mut(r).counted = true;
        if first_time && measuring {
            self.references += 1;
            self.nodes[n].references += 1;
        }
        if let Some(&p) = self.nodes[n].table.get(&req.block) {
            let page = self.nodes[n].pages[p as usize];
            if first_time
                && measuring
                && page.last_terminal != NONE
                && page.last_terminal != req.terminal
            {
                self.shared += 1;
            }
            {
                let pg = &mut self.nodes[n].pages[p as usize];
                pg.last_terminal = req.terminal;
                pg.referenced = true;
            }
            reqs.read_mut(r).page = p;
            match page.state {
                PageState::Resident => {
                    if measuring && first_time {
                        self.hits += 1;
                        self.nodes[n].hits += 1;
                    }
                    self.hit_bytes += req.bytes;
                    reqs.read_mut(r).stage = 1;
                    let node = &mut self.nodes[n];
                    if page.evictable {
                        node.pages[p as usize].evictable = false;
                        node.pool.acquire(PageId(p));
                    }
                    node.pages[p as usize].pins += 1;
                    Lookup::Hit
                }
                PageState::Reading => {
                    if measuring && first_time {
                        self.joins += 1;
                    }
                    self.join_bytes += req.bytes;
                    reqs.read_mut(r).stage = 1;
                    let pg = &mut self.nodes[n].pages[p as usize];
                    pg.pins += 1;
                    reqs.read_mut(r).next_waiter = pg.waiters;
                    pg.waiters = r;
                    Lookup::Join
                }
                PageState::Free => unreachable!("free page in the page table"),
            }
        } else {
            let Some(p) = self.alloc_page(n, false, now, w, faults) else {
                if measuring && first_time {
                    self.page_waits += 1;
                }
                self.nodes[n].waiting.push_back(r);
                return Lookup::NoPage;
            };
            if measuring && first_time {
                self.misses += 1;
            }
            self.count_reread(req.block, w);
            self.disk_demand_bytes += req.bytes;
            reqs.read_mut(r).stage = 1;
            let node = &mut self.nodes[n];
            let pg = &mut node.pages[p as usize];
            pg.state = PageState::Reading;
            pg.block = req.block;
            pg.pins = 1;
            pg.waiters = r;
            pg.referenced = true;
            pg.last_terminal = req.terminal;
            node.table.insert(req.block, p);
            let used = node.used.level() + 1;
            node.used.set(now, used, w.span);
            let rq = reqs.read_mut(r);
            rq.page = p;
            rq.next_waiter = NONE;
            Lookup::Miss(p)
        }
    }

    /// A page of node `n` for a prefetch of `block`, set up to be read; `None` when none is
    /// free and the pool evicts none for a prefetch (the prefetch is dropped and counted).
    pub fn prefetch_page(
        &mut self,
        n: usize,
        block: BlockId,
        now: SimTime,
        w: &Window,
        faults: &mut Faults,
    ) -> Option<u32> {
        let Some(p) = self.alloc_page(n, true, now, w, faults) else {
            if w.measuring {
                self.prefetch_dropped += 1;
            }
            return None;
        };
        self.count_reread(block, w);
        let node = &mut self.nodes[n];
        let pg = &mut node.pages[p as usize];
        pg.state = PageState::Reading;
        pg.block = block;
        pg.pins = 0;
        pg.waiters = NONE;
        pg.referenced = false;
        pg.last_terminal = NONE;
        node.table.insert(block, p);
        let used = node.used.level() + 1;
        node.used.set(now, used, w.span);
        if w.measuring {
            self.prefetch_issued += 1;
        }
        Some(p)
    }

    /// A free page of node `n`, evicting one if needed; `None` when every page is pinned or
    /// being read, or, for a prefetch, when the buffer pool declines to evict for it.
    fn alloc_page(
        &mut self,
        n: usize,
        prefetch: bool,
        now: SimTime,
        w: &Window,
        faults: &mut Faults,
    ) -> Option<u32> {
        if let Some(p) = self.nodes[n].free.pop() {
            return Some(p);
        }
        let pool = &mut self.nodes[n].pool;
        let victim = if prefetch {
            pool.evict_for_prefetch()
        } else {
            pool.evict()
        }?;
        let p = victim.0;
        let ok = self.nodes[n]
            .pages
            .get(p as usize)
            .is_some_and(|pg| pg.evictable && pg.state == PageState::Resident && pg.pins == 0);
        if !ok {
            faults.plugin(
                super::scenario::BUFFER_POOL.key,
                self.pool_name,
                now,
                format!("evicted page {p} of node {n}, which is not evictable"),
            );
            return None;
        }
        let node = &mut self.nodes[n];
        let pg = &mut node.pages[p as usize];
        pg.evictable = false;
        pg.state = PageState::Free;
        let wasted = !pg.referenced;
        if wasted && w.measuring {
            self.prefetch_wasted += 1;
        }
        pg.referenced = false;
        pg.last_terminal = NONE;
        let block = pg.block;
        node.table.remove(&block);
        if wasted {
            self.wasted.insert(block);
        }
        let used = node.used.level() - 1;
        node.used.set(now, used, w.span);
        Some(p)
    }

    /// `block` is about to be read from disk: a re-read if its prefetched page was evicted
    /// unreferenced since it was last read.
    fn count_reread(&mut self, block: BlockId, w: &Window) {
        if self.wasted.remove(block) && w.measuring {
            self.prefetch_rereads += 1;
        }
    }

    /// Page `p` of node `n` has been read: it is resident; the requests that waited for it
    /// (a list through the request arena, to be sent).
    pub fn page_read(&mut self, n: usize, p: u32) -> u32 {
        let pg = &mut self.nodes[n].pages[p as usize];
        pg.state = PageState::Resident;
        std::mem::replace(&mut pg.waiters, NONE)
    }

    /// Whether page `p` of node `n` is pinned by no request.
    pub fn unpinned(&self, n: usize, p: u32) -> bool {
        self.nodes[n].pages[p as usize].pins == 0
    }

    /// A request is done with page `p` of node `n`; whether the page became unpinned and
    /// resident (to be released).
    pub fn unpin(&mut self, n: usize, p: u32) -> bool {
        let pg = &mut self.nodes[n].pages[p as usize];
        pg.pins -= 1;
        pg.pins == 0 && pg.state == PageState::Resident
    }

    /// Makes page `p` of node `n` evictable: the pool may now choose it.
    pub fn release(&mut self, n: usize, p: u32) {
        let pg = &mut self.nodes[n].pages[p as usize];
        debug_assert!(pg.pins == 0 && pg.state == PageState::Resident && !pg.evictable);
        pg.evictable = true;
        let referenced = pg.referenced;
        self.nodes[n].pool.release(PageId(p), referenced);
    }

    /// The request waiting longest at node `n` for a free page, taken out of the queue.
    pub fn next_waiting(&mut self, n: usize) -> Option<u32> {
        self.nodes[n].waiting.pop_front()
    }

    /// Requests waiting for a free page at node `n`.
    pub fn waiting(&self, n: usize) -> usize {
        self.nodes[n].waiting.len()
    }

    /// Puts back, first in line, the request that was taken last but went back to waiting
    /// (at the end of the queue).
    pub fn requeue_last_first(&mut self, n: usize) {
        let w = &mut self.nodes[n].waiting;
        let back = w.pop_back().expect("just pushed");
        w.push_front(back);
    }

    /// Pages in use at all nodes.
    pub fn pages_used(&self) -> u64 {
        self.nodes.iter().map(|n| n.used.level()).sum()
    }

    /// The summary's `cpu` and `buffer_pool` sections and the `nodes` table, the window
    /// closed at `w1` after `measured` ns.
    pub fn report(
        &mut self,
        w1: SimTime,
        window: (SimTime, SimTime),
        measured: u64,
    ) -> (Cpus, BufferPools, Table) {
        let mut cpu_util = Vec::new();
        let mut used_mean = 0u128;
        let mut used_peak = 0u64;
        let mut rows = NodeRows::default();
        for (i, n) in self.nodes.iter_mut().enumerate() {
            let u = utilization(&mut n.cpu.busy, w1, window, measured);
            cpu_util.push(u);
            let (integral, peak) = n.used.close(w1, window);
            let mean = if measured > 0 {
                integral / u128::from(measured)
            } else {
                0
            };
            used_mean += mean;
            used_peak += peak;
            rows.push(i, n, u, mean as u64, peak);
        }
        let cpus = Cpus {
            utilization_mean_ratio: mean(&cpu_util),
            utilization_max_ratio: fmax(&cpu_util),
        };
        let pools = BufferPools {
            pages_per_node: self.nodes.first().map_or(0, |n| n.pages.len() as u64),
            references: self.references,
            hits: self.hits,
            joins: self.joins,
            misses: self.misses,
            hit_ratio: ratio(self.hits, self.references),
            shared_references: self.shared,
            shared_ratio: ratio(self.shared, self.references),
            page_waits: self.page_waits,
            prefetches_issued: self.prefetch_issued,
            prefetches_wasted: self.prefetch_wasted,
            prefetches_reread: self.prefetch_rereads,
            prefetches_dropped: self.prefetch_dropped,
            memory_in_use_mean_bytes: (used_mean * u128::from(self.block_bytes)) as u64,
            memory_in_use_peak_bytes: used_peak * self.block_bytes,
        };
        (cpus, pools, rows.table())
    }
}

#[derive(Default)]
struct NodeRows {
    node: Vec<u64>,
    cpu: Vec<f64>,
    refs: Vec<u64>,
    hits: Vec<u64>,
    pages: Vec<u64>,
    mean_used: Vec<u64>,
    peak_used: Vec<u64>,
}

impl NodeRows {
    fn push(&mut self, i: usize, n: &Node, cpu: f64, mean: u64, peak: u64) {
        self.node.push(i as u64);
        self.cpu.push(cpu);
        self.refs.push(n.references);
        self.hits.push(n.hits);
        self.pages.push(n.pages.len() as u64);
        self.mean_used.push(mean);
        self.peak_used.push(peak);
    }

    fn table(self) -> Table {
        Table {
            name: "nodes".into(),
            columns: vec![
                ("node".into(), Column::U64(self.node)),
                ("cpu_utilization_ratio".into(), Column::F64(self.cpu)),
                ("references".into(), Column::U64(self.refs)),
                ("hits".into(), Column::U64(self.hits)),
                ("pages".into(), Column::U64(self.pages)),
                ("pages_in_use_mean".into(), Column::U64(self.mean_used)),
                ("pages_in_use_peak".into(), Column::U64(self.peak_used)),
            ],
        }
    }
}

impl Nodes {
    /// The storage nodes: `[server]`'s CPUs and memory, each node's `[buffer_pool]`.
    pub(super) fn build(
        setup: &super::setup::Setup<'_>,
    ) -> Result<Self, super::scenario::ScenarioError> {
        use super::scenario::BUFFER_POOL;
        let chosen = setup.scenario.plugins.required(&BUFFER_POOL);
        let s = &setup.scenario.file.server;
        let mut nodes = Vec::with_capacity(s.nodes as usize);
        for n in 0..s.nodes {
            let pool = chosen
                .build(&setup.context(BUFFER_POOL.key, u64::from(n)))
                .map_err(setup.plugin_error(BUFFER_POOL.key, chosen.name))?;
            nodes.push(Node::new(setup.pages, pool));
        }
        Ok(Nodes::new(
            nodes,
            chosen.name,
            s.cpu.clone(),
            s.cpu_mips,
            &setup.blocks,
            setup.block_bytes,
        ))
    }
}
