//! The simulation state, its construction from a scenario, the event loop and the results.

use super::block_set::BlockSet;
use super::queue::EventQueue;
use super::stats::{DurStat, Level};
use super::terminal::{TState, Term};
use crate::ids::LinkId;
use crate::ids::{BlockId, VideoId};
use crate::plugin::{
    BufferPool, BuildContext, DiskModel, DiskScheduler, Endpoint, Interconnect, Layout,
    PluginError, Prefetcher, RequestClass, ServiceTime,
};
use crate::results::{
    BufferPools, Column, Conservation, Cpus, Disks, Glitches, IoTime, RunResults, SearchSummary,
    Summary, Table, TerminalBuffers,
};
use crate::system::ondemand::spec::{Scenario, ScenarioError, Warmup};
use crate::system::ondemand::video::{LibraryMemo, VideoLibrary};
use crate::time::{SimDuration, SimTime};
use crate::trace::TraceEvent;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Why a run stopped without results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The scenario cannot run, for a reason only visible once the video library exists
    /// (frame sizes depend on the seed) or a plugin is built for it (a layout that does not
    /// fit the disks, a disk parameter file that cannot be read). Reported like any scenario
    /// error (exit code 2).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// Simulated time stopped advancing: a livelock, which is a bug in vodbench or in a
    /// plugin. The run is void.
    #[error("simulation made no progress: {events} events at {time} without time advancing (last: {last}); please report this with the scenario")]
    NoProgress {
        /// The instant time stopped at.
        time: SimTime,
        /// Events processed at that instant.
        events: u64,
        /// The last event, for the report.
        last: String,
    },
    /// A plugin broke its contract during the run; the run is void.
    #[error("{kind} `{name}` broke its contract at {time}: {message}")]
    Plugin {
        /// Plugin kind key.
        kind: &'static str,
        /// Plugin name.
        name: String,
        /// Simulated time.
        time: SimTime,
        /// What it did.
        message: String,
    },
}

/// Events at one simulated instant after which the engine declares a livelock.
const MAX_EVENTS_PER_INSTANT: u64 = 50_000_000;

/// Progress callback: (current simulated time, time at which the run will end if known).
pub type ClockProgress<'a> = &'a mut dyn FnMut(SimTime, Option<SimTime>);

pub(super) const NONE: u32 = u32::MAX;

#[derive(Copy, Clone, Debug)]
pub(super) enum Ev {
    /// Trace event `i` at its trace time.
    Trace(u32),
    /// Trace event `i`, delayed for its terminal (lag or deferral).
    Delayed(u32),
    /// Request slot reaches its node.
    ReqAtNode(u32),
    /// A node's CPU finished its current job.
    CpuDone(u32),
    /// A disk finished its current access.
    DiskDone(u32),
    /// Request slot's data reaches its terminal.
    Arrive(u32),
    /// Terminal wake-up (terminal, generation).
    Wake(u32, u32),
    /// A piggyback group's start delay has passed.
    GroupStart(u32),
    /// Ask the prefetcher again for this disk.
    PrefetchWake(u32),
    /// Take a sample of terminal buffers.
    Sample,
    MeasureStart,
    MeasureEnd,
}

/// A terminal read in flight.
#[derive(Copy, Clone)]
pub(super) struct Req {
    pub terminal: u32,
    pub epoch: u32,
    pub block: BlockId,
    pub node: u32,
    pub disk: u32,
    pub page: u32,
    pub bytes: u64,
    pub deadline: SimTime,
    pub next_waiter: u32,
    pub counted: bool,
    /// 0 issued, 1 served by the pool (bytes accounted), 2 handed to the network.
    pub stage: u8,
}

/// A disk access in flight.
#[derive(Copy, Clone)]
pub(super) struct DReq {
    pub page: u32,
    pub node: u32,
    pub disk: u32,
    pub class: RequestClass,
    pub enqueued: SimTime,
    pub offset: u64,
    pub bytes: u64,
    pub queued: bool,
    pub deadline: Option<SimTime>,
    pub terminal: u32,
}

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
    pub waiters: u32,
    pub evictable: bool,
    pub referenced: bool,
    pub last_terminal: u32,
}

#[derive(Copy, Clone)]
pub(super) enum CpuJob {
    Receive(u32),
    StartIo(u32),
    Send(u32),
}

pub(super) struct Node {
    pub pages: Vec<Page>,
    pub table: FxHashMap<BlockId, u32>,
    pub free: Vec<u32>,
    pub pool: Box<dyn BufferPool>,
    pub cpu_queue: VecDeque<CpuJob>,
    pub cpu_current: Option<CpuJob>,
    pub cpu_busy: Level,
    pub waiting: VecDeque<u32>,
    pub used: Level,
    // measured counters
    pub references: u64,
    pub hits: u64,
}

pub(super) struct Disk {
    pub node: u32,
    pub model: Box<dyn DiskModel>,
    pub sched: Box<dyn DiskScheduler>,
    pub queued: u32,
    pub busy: Option<(u32, ServiceTime)>,
    pub busy_level: Level,
    pub prefetch_in_flight: u32,
    pub prefetch_wake: SimTime,
    pub cylinders: u32,
    // measured
    pub served: u64,
    pub served_prefetch: u64,
    pub queue_sum: u128,
    pub service_sum: u128,
    pub overhead_sum: u128,
    pub seek_sum: u128,
    pub rotation_sum: u128,
    pub transfer_sum: u128,
    pub max_total: u64,
}

/// Measured-period accumulators shared across components.
pub(super) struct Acc {
    pub window: (SimTime, SimTime),
    pub measuring: bool,
    pub glitches: u64,
    pub stalled: u64,
    pub first_glitch: Option<SimTime>,
    pub startup: DurStat,
    pub videos_started: u64,
    pub queue: DurStat,
    pub overhead: DurStat,
    pub seek: DurStat,
    pub rotation: DurStat,
    pub transfer: DurStat,
    pub service: DurStat,
    pub total: DurStat,
    pub cache_hits: u64,
    pub demand_served: u64,
    pub prefetch_served: u64,
    pub references: u64,
    pub hits: u64,
    pub joins: u64,
    pub misses: u64,
    pub shared: u64,
    pub page_waits: u64,
    pub prefetch_issued: u64,
    pub prefetch_wasted: u64,
    pub prefetch_rereads: u64,
    pub prefetch_dropped: u64,
    pub buffer_samples: u64,
    pub buffer_sum: u128,
    pub buffer_peak: u64,
    pub events_ignored: u64,
    /// Fast-forward/rewind searches started.
    pub searches: u64,
    /// Skip-search segments shown.
    pub segments: u64,
    /// References that carried a skip-search prefetch hint.
    pub prefetch_hints: u64,
    pub series_time: Vec<u64>,
    pub series_buffer_mean: Vec<u64>,
    pub series_pages_used: Vec<u64>,
    pub series_glitches: Vec<u64>,
    pub series_disk_queue: Vec<u64>,
    pub series_disk_util: Vec<f64>,
    /// (time, summed busy integral of all disks) at the previous sample.
    pub last_busy: (SimTime, u128),
    /// Disk requests dispatched in the measured period (for every-n-th request samples).
    pub dispatched: u64,
    pub requests: RequestRows,
}

/// Whole-run conservation counters.
#[derive(Default)]
pub(super) struct Cons {
    pub issued: u64,
    pub delivered: u64,
    pub disk_demand_bytes: u64,
    pub hit_bytes: u64,
    pub join_bytes: u64,
    pub sent_bytes: u64,
    pub received_bytes: u64,
    pub consumed_bytes: u64,
    pub discarded_bytes: u64,
}

/// The whole simulated system.
pub(super) struct Sim<'a> {
    pub scenario: &'a Scenario,
    pub q: EventQueue<Ev>,
    pub lib: VideoLibrary,
    pub blocks: Vec<u32>,
    /// Blocks whose prefetched page was evicted unreferenced and not read since (re-reads).
    pub wasted: BlockSet,
    pub block_bytes: u64,
    pub layout: Box<dyn Layout>,
    pub prefetcher: Box<dyn Prefetcher>,
    pub net: Box<dyn Interconnect>,
    pub net_path: Vec<LinkId>,
    pub nodes: Vec<Node>,
    pub disks: Vec<Disk>,
    pub terms: Vec<Term>,
    pub events: &'a [TraceEvent],
    pub next_trace: usize,
    pub reqs: Vec<Req>,
    pub free_reqs: Vec<u32>,
    pub dreqs: Vec<DReq>,
    pub free_dreqs: Vec<u32>,
    pub acc: Acc,
    pub cons: Cons,
    pub ns_per_instr_milli: u64,
    pub term_memory: u64,
    pub prime_bytes: Option<u64>,
    pub to_start: u32,
    pub started_display: u32,
    pub last_first_start: SimTime,
    pub end: Option<SimTime>,
    pub error: Option<SimError>,
    pub sample_interval: SimDuration,
    pub q_events: u64,
    pub in_transit_bytes: u64,
    /// Real terminals (`terms` beyond them are piggyback streams).
    pub n_real: usize,
    /// `[interactive]` (defaults when absent).
    pub interactive: crate::system::ondemand::spec::InteractiveSection,
    pub pig: super::piggyback::Piggyback,
    /// [`SimOptions::stop_at_first_glitch`].
    pub stop_at_first_glitch: bool,
    /// [`SimOptions::search_figures_only`].
    pub search_figures_only: bool,
}

impl<'a> Sim<'a> {
    pub(super) fn fail(&mut self, kind: &'static str, name: &str, message: String) {
        if self.error.is_none() {
            self.error = Some(SimError::Plugin {
                kind,
                name: name.to_string(),
                time: self.q.now(),
                message,
            });
        }
    }

    /// CPU time of `instr` instructions.
    pub(super) fn cpu_cost(&self, instr: u64) -> SimDuration {
        SimDuration::from_nanos(instr.saturating_mul(self.ns_per_instr_milli) / 1000)
    }

    /// Wire delay of a message of `bytes` from `from` to `to`.
    pub(super) fn wire(&mut self, from: Endpoint, to: Endpoint, bytes: u64) -> SimDuration {
        self.net_path.clear();
        self.net
            .route(from, to, bytes, &mut self.net_path)
            .unloaded()
    }

    pub(super) fn block_len(&self, video: u32, index: u32) -> u64 {
        let total = self.lib.total_bytes(video as usize);
        let start = u64::from(index) * self.block_bytes;
        total.saturating_sub(start).min(self.block_bytes)
    }

    fn build(
        scenario: &'a Scenario,
        events: &'a [TraceEvent],
        memo: Option<&LibraryMemo>,
    ) -> Result<Sim<'a>, ScenarioError> {
        let f = &scenario.file;
        let s = &f.server;
        let interactive = f.interactive.clone().unwrap_or_default();
        let block_bytes = s.stripe.0;
        let versions = interactive.search_versions();
        let lib = match memo {
            Some(m) => m.build(&f.videos, f.seed, Some(block_bytes), versions),
            None => VideoLibrary::build(&f.videos, f.seed, Some(block_bytes), versions),
        };
        check_terminal_memory(scenario, &lib)?;
        let blocks: Vec<u32> = (0..lib.len())
            .map(|v| lib.total_bytes(v).div_ceil(block_bytes) as u32)
            .collect();
        let ndisks = s.nodes * s.disks_per_node;
        let pages = (s.memory_per_node.0 / block_bytes) as u32;
        let p = &scenario.plugins;
        let ctx = |component: &'static str, index: u64| BuildContext {
            seed: f.seed,
            component,
            index,
            nodes: s.nodes,
            disks_per_node: s.disks_per_node,
            terminals: f.terminals.count,
            block_bytes,
            video_blocks: &blocks,
            geometry: None,
            pages,
            base_dir: &scenario.base_dir,
        };
        // a plugin that cannot be built for this scenario is a scenario error at its table
        let err = |kind: &'static str, name: &str| {
            let name = name.to_string();
            move |error: PluginError| {
                let line = |key: &str| scenario.source.line_of_key(key);
                ScenarioError::Invalid {
                    file: scenario.path.clone(),
                    // the table's header, or where the plugin is named in a dotted table
                    line: line(kind).or_else(|| line(&format!("{kind}.name"))),
                    key: kind.to_string(),
                    message: format!("cannot build {kind} `{name}`: {error}"),
                }
            }
        };
        let mut disks = Vec::with_capacity(ndisks as usize);
        let mut geometry = None;
        for d in 0..ndisks {
            let model = p
                .disk_model
                .build(&ctx("disk", u64::from(d)))
                .map_err(err("disk.model", p.disk_model.name))?;
            let g = model.geometry();
            geometry.get_or_insert(g);
            let mut c = ctx("disk.scheduler", u64::from(d));
            c.geometry = Some(g);
            let sched = p
                .scheduler
                .build(&c)
                .map_err(err("disk.scheduler", p.scheduler.name))?;
            disks.push(Disk {
                node: d / s.disks_per_node,
                cylinders: g.cylinders,
                model,
                sched,
                queued: 0,
                busy: None,
                busy_level: Level::default(),
                prefetch_in_flight: 0,
                prefetch_wake: SimTime::MAX,
                served: 0,
                served_prefetch: 0,
                queue_sum: 0,
                service_sum: 0,
                overhead_sum: 0,
                seek_sum: 0,
                rotation_sum: 0,
                transfer_sum: 0,
                max_total: 0,
            });
        }
        let mut c = ctx("layout", 0);
        c.geometry = geometry;
        let layout = p.layout.build(&c).map_err(|e| {
            // the search versions are extra videos the layout places; say so
            let e = match (e, interactive.search_versions()) {
                (PluginError::Build(m), Some(k)) => PluginError::Build(format!(
                    "{m} (the videos include a fast-forward and a rewind version of each, \
                     1/{k} of its length each: [interactive] search = \"version\")"
                )),
                (e, _) => e,
            };
            err("layout", p.layout.name)(e)
        })?;
        let mut c = ctx("prefetcher", 0);
        c.geometry = geometry;
        let prefetcher = p
            .prefetcher
            .build(&c)
            .map_err(err("prefetcher", p.prefetcher.name))?;
        let net = p
            .interconnect
            .build(&ctx("server.network", 0))
            .map_err(err("server.network", p.interconnect.name))?;
        if !net.links().is_empty() {
            return Err(err("server.network", p.interconnect.name)(
                PluginError::Build("an interconnect with links is not simulated yet".into()),
            ));
        }
        p.admission
            .build(&ctx("admission", 0))
            .map_err(err("admission", p.admission.name))?;
        let mut nodes = Vec::with_capacity(s.nodes as usize);
        for n in 0..s.nodes {
            let pool = p
                .buffer_pool
                .build(&ctx("buffer_pool", u64::from(n)))
                .map_err(err("buffer_pool", p.buffer_pool.name))?;
            nodes.push(Node {
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
                cpu_queue: VecDeque::new(),
                cpu_current: None,
                cpu_busy: Level::default(),
                waiting: VecDeque::new(),
                used: Level::default(),
                references: 0,
                hits: 0,
            });
        }
        let terms = (0..f.terminals.count).map(|_| Term::new()).collect();
        let mut to_start = vec![false; f.terminals.count as usize];
        let mut last_first_start = SimTime::ZERO;
        for e in events {
            if e.kind == crate::trace::EventKind::Start && !to_start[e.terminal.index()] {
                to_start[e.terminal.index()] = true;
                last_first_start = last_first_start.max(e.time);
            }
        }
        Ok(Sim {
            scenario,
            q: EventQueue::new(),
            lib,
            wasted: BlockSet::new(&blocks),
            blocks,
            block_bytes,
            layout,
            prefetcher,
            net,
            net_path: Vec::new(),
            nodes,
            disks,
            terms,
            events,
            next_trace: 0,
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            dreqs: Vec::new(),
            free_dreqs: Vec::new(),
            acc: Acc {
                window: (SimTime::MAX, SimTime::MAX),
                measuring: false,
                glitches: 0,
                stalled: 0,
                first_glitch: None,
                startup: DurStat::new(),
                videos_started: 0,
                queue: DurStat::new(),
                overhead: DurStat::new(),
                seek: DurStat::new(),
                rotation: DurStat::new(),
                transfer: DurStat::new(),
                service: DurStat::new(),
                total: DurStat::new(),
                cache_hits: 0,
                demand_served: 0,
                prefetch_served: 0,
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
                buffer_samples: 0,
                buffer_sum: 0,
                buffer_peak: 0,
                events_ignored: 0,
                searches: 0,
                segments: 0,
                prefetch_hints: 0,
                series_time: Vec::new(),
                series_buffer_mean: Vec::new(),
                series_pages_used: Vec::new(),
                series_glitches: Vec::new(),
                series_disk_queue: Vec::new(),
                series_disk_util: Vec::new(),
                last_busy: (SimTime::ZERO, 0),
                dispatched: 0,
                requests: RequestRows::default(),
            },
            cons: Cons::default(),
            ns_per_instr_milli: 1_000_000 / u64::from(s.cpu_mips.max(1)),
            term_memory: f.terminals.memory.0,
            prime_bytes: f.terminals.prime.map(|b| b.0),
            to_start: to_start.iter().filter(|x| **x).count() as u32,
            started_display: 0,
            last_first_start,
            end: None,
            error: None,
            sample_interval: SimDuration::from_nanos(f.run.sample_interval.0),
            q_events: 0,
            in_transit_bytes: 0,
            n_real: f.terminals.count as usize,
            interactive,
            pig: super::piggyback::Piggyback::new(f.piggyback.clone()),
            stop_at_first_glitch: false,
            search_figures_only: false,
        })
    }

    /// Opens the measured window now.
    pub(super) fn measure_start(&mut self) {
        if self.acc.measuring || self.end.is_some() {
            return;
        }
        let now = self.q.now();
        let dur = self.scenario.file.run.duration.sim();
        let end = now + dur;
        self.acc.window = (now, end);
        self.acc.measuring = true;
        self.end = Some(end);
        for n in &mut self.nodes {
            n.cpu_busy.open(now);
            n.used.open(now);
        }
        for d in &mut self.disks {
            d.busy_level.open(now);
        }
        for t in &mut self.terms {
            t.glitches_measured = 0;
            t.stalled_measured = 0;
            if t.state == TState::Stalled {
                t.stall_since = now;
            }
        }
        self.q.schedule(end, Ev::MeasureEnd);
        if !self.search_figures_only {
            self.q.schedule(now, Ev::Sample);
        }
    }

    /// A terminal began display for the first time (auto warm-up bookkeeping).
    pub(super) fn first_display(&mut self) {
        self.started_display += 1;
        if self.started_display >= self.to_start && self.scenario.file.run.warmup == Warmup::Auto {
            self.measure_start();
        }
    }

    fn schedule_next_trace(&mut self) {
        if let Some(e) = self.events.get(self.next_trace) {
            self.q.schedule(e.time, Ev::Trace(self.next_trace as u32));
            self.next_trace += 1;
        }
    }

    fn sample(&mut self) {
        let now = self.q.now();
        let mut sum: u128 = 0;
        for i in 0..self.n_real {
            let b = self.buffered_now(i);
            sum += u128::from(b);
            self.acc.buffer_peak = self.acc.buffer_peak.max(b);
        }
        self.acc.buffer_sum += sum;
        self.acc.buffer_samples += 1;
        let n = self.n_real.max(1) as u128;
        self.acc
            .series_time
            .push(now.as_nanos() - self.acc.window.0.as_nanos());
        self.acc.series_buffer_mean.push((sum / n) as u64);
        self.acc
            .series_pages_used
            .push(self.nodes.iter().map(|n| n.used.level()).sum());
        self.acc.series_glitches.push(self.acc.glitches);
        self.acc
            .series_disk_queue
            .push(self.disks.iter().map(|d| u64::from(d.queued)).sum());
        let window = self.acc.window;
        let busy: u128 = self
            .disks
            .iter()
            .map(|d| d.busy_level.integral_at(now, window))
            .sum();
        let (t0, b0) = self.acc.last_busy;
        let span = now.saturating_since(t0).as_nanos();
        let n_disks = self.disks.len().max(1) as f64;
        let util = if self.acc.series_time.len() > 1 && span > 0 {
            (busy - b0) as f64 / span as f64 / n_disks
        } else {
            // first sample: the fraction of disks busy at this instant
            self.disks.iter().filter(|d| d.busy.is_some()).count() as f64 / n_disks
        };
        self.acc.series_disk_util.push(util);
        self.acc.last_busy = (now, busy);
        let next = now + self.sample_interval;
        if next < self.acc.window.1 {
            self.q.schedule(next, Ev::Sample);
        }
    }

    fn run(&mut self, progress: ClockProgress<'_>) {
        self.schedule_next_trace();
        match self.scenario.file.run.warmup {
            Warmup::Fixed(d) => self.q.schedule(SimTime::ZERO + d.sim(), Ev::MeasureStart),
            Warmup::Auto => {
                if self.to_start == 0 {
                    self.q.schedule(SimTime::ZERO, Ev::MeasureStart);
                } else {
                    // If some terminal never manages to start, measure anyway after one
                    // measured duration past the last first start; reported as is.
                    let limit = self.last_first_start + self.scenario.file.run.duration.sim();
                    self.q.schedule(limit, Ev::MeasureStart);
                }
            }
        }
        let mut count: u64 = 0;
        let mut same_instant: u64 = 0;
        let mut last = SimTime::ZERO;
        while let Some((now, ev)) = self.q.pop() {
            count += 1;
            if now == last {
                same_instant += 1;
                if same_instant > MAX_EVENTS_PER_INSTANT {
                    self.error = Some(SimError::NoProgress {
                        time: now,
                        events: same_instant,
                        last: format!("{ev:?}"),
                    });
                    break;
                }
            } else {
                same_instant = 0;
                last = now;
            }
            if count & 0xFFFF == 0 {
                progress(now, self.end);
            }
            match ev {
                Ev::Trace(i) => {
                    self.schedule_next_trace();
                    self.trace_event(i as usize, false);
                }
                Ev::Delayed(i) => self.trace_event(i as usize, true),
                Ev::ReqAtNode(r) => {
                    let node = self.reqs[r as usize].node as usize;
                    self.cpu_push(node, CpuJob::Receive(r));
                }
                Ev::CpuDone(n) => self.cpu_done(n as usize),
                Ev::DiskDone(d) => self.disk_done(d as usize),
                Ev::Arrive(r) => self.arrive(r),
                Ev::Wake(t, g) => {
                    if self.terms[t as usize].gen == g {
                        self.terms[t as usize].wake_time = SimTime::MAX;
                        self.wake(t as usize);
                    }
                }
                Ev::GroupStart(g) => self.group_start(g),
                Ev::PrefetchWake(d) => {
                    let disk = &mut self.disks[d as usize];
                    if disk.prefetch_wake <= now {
                        disk.prefetch_wake = SimTime::MAX;
                        self.prefetch_poll(d as usize);
                    }
                }
                Ev::Sample => self.sample(),
                Ev::MeasureStart => self.measure_start(),
                Ev::MeasureEnd => break,
            }
            if self.error.is_some() || (self.stop_at_first_glitch && self.acc.glitches > 0) {
                break;
            }
        }
        self.q_events = count;
        progress(self.q.now(), self.end);
    }
}

impl Sim<'_> {
    fn results(mut self) -> RunResults {
        let now = self.q.now();
        let f = &self.scenario.file;
        let (w0, w1) = if self.acc.measuring {
            (self.acc.window.0, now.min(self.acc.window.1))
        } else {
            (now, now)
        };
        let window = (w0, w1);
        let measured = w1.saturating_since(w0).as_nanos();
        // close stalls still in progress
        let mut affected = 0u64;
        let mut term_rows = TermRows::default();
        for i in (0..self.terms.len()).rev() {
            // streams (after the real terminals) first: their stall is their members'
            let t = &self.terms[i];
            if t.state == TState::Stalled && self.acc.measuring {
                let s = super::stats::clip(t.stall_since, w1, window);
                let members: Vec<usize> = if i < self.n_real {
                    vec![i]
                } else {
                    t.members.iter().map(|&m| m as usize).collect()
                };
                for m in members {
                    self.terms[m].stalled_measured += s;
                    self.acc.stalled += s;
                }
            }
        }
        let mut never_displayed = 0u64;
        for (i, t) in self.terms[..self.n_real].iter().enumerate() {
            if t.glitches_measured > 0 {
                affected += 1;
            }
            if self.acc.measuring && t.never_displayed_since(w0) {
                never_displayed += 1;
            }
            term_rows.push(i, t);
        }
        let mut util = Vec::new();
        let mut disk_rows = DiskRows::default();
        for (i, d) in self.disks.iter_mut().enumerate() {
            let (busy, _) = d.busy_level.close(w1, window);
            let u = if measured > 0 {
                busy as f64 / measured as f64
            } else {
                0.0
            };
            util.push(u);
            disk_rows.push(i, d, u);
        }
        let mut cpu_util = Vec::new();
        let mut used_mean = 0u128;
        let mut used_peak = 0u64;
        let mut node_rows = NodeRows::default();
        for (i, n) in self.nodes.iter_mut().enumerate() {
            let (busy, _) = n.cpu_busy.close(w1, window);
            let u = if measured > 0 {
                busy as f64 / measured as f64
            } else {
                0.0
            };
            cpu_util.push(u);
            let (integral, peak) = n.used.close(w1, window);
            let mean = if measured > 0 {
                integral / u128::from(measured)
            } else {
                0
            };
            used_mean += mean;
            used_peak += peak;
            node_rows.push(i, n, u, mean as u64, peak);
        }
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        let fmax = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
        let fmin = |v: &[f64]| v.iter().cloned().fold(f64::INFINITY, f64::min);
        let a = &self.acc;
        let ratio = |x: u64, y: u64| if y == 0 { 0.0 } else { x as f64 / y as f64 };
        let in_system = self.reqs.len() as u64 - self.free_reqs.len() as u64;
        let mut live = vec![true; self.reqs.len()];
        for &i in &self.free_reqs {
            live[i as usize] = false;
        }
        let serving: u64 = self
            .reqs
            .iter()
            .zip(&live)
            .filter(|(r, l)| **l && r.stage == 1)
            .map(|(r, _)| r.bytes)
            .sum();
        // Live sessions: what they displayed so far is consumed, the rest is still buffered.
        let mut buffered = 0u64;
        let mut consumed_live = 0u64;
        for i in 0..self.terms.len() {
            buffered += self.session_buffered(i);
            consumed_live += self.session_consumed(i);
        }
        let in_transit = self.in_transit_bytes;
        let summary = Summary {
            scenario: self.scenario.name().to_string(),
            seed: f.seed,
            terminals: u64::from(f.terminals.count),
            warmup_ns: w0.as_nanos(),
            measured_ns: measured,
            simulated_ns: now.as_nanos(),
            ended_early: measured < f.run.duration.0,
            glitches: Glitches {
                count: a.glitches,
                stalled_ns: a.stalled,
                terminals_affected: affected,
                first_glitch_ns: a.first_glitch.map(|g| g.saturating_since(w0).as_nanos()),
                never_displayed,
            },
            startup_latency: a.startup.stat(),
            videos_started: a.videos_started,
            events_ignored: a.events_ignored,
            disks: Disks {
                count: self.disks.len() as u64,
                utilization_mean_ratio: mean(&util),
                utilization_min_ratio: if util.is_empty() { 0.0 } else { fmin(&util) },
                utilization_max_ratio: fmax(&util),
                requests: a.demand_served + a.prefetch_served,
                demand_requests: a.demand_served,
                prefetch_requests: a.prefetch_served,
                cache_hits: a.cache_hits,
                io_time: IoTime {
                    queue: a.queue.stat(),
                    overhead: a.overhead.stat(),
                    seek: a.seek.stat(),
                    rotation: a.rotation.stat(),
                    transfer: a.transfer.stat(),
                    service: a.service.stat(),
                    total: a.total.stat(),
                },
            },
            cpu: Cpus {
                utilization_mean_ratio: mean(&cpu_util),
                utilization_max_ratio: fmax(&cpu_util),
            },
            buffer_pool: BufferPools {
                pages_per_node: self.nodes.first().map_or(0, |n| n.pages.len() as u64),
                references: a.references,
                hits: a.hits,
                joins: a.joins,
                misses: a.misses,
                hit_ratio: ratio(a.hits, a.references),
                shared_references: a.shared,
                shared_ratio: ratio(a.shared, a.references),
                page_waits: a.page_waits,
                prefetches_issued: a.prefetch_issued,
                prefetches_wasted: a.prefetch_wasted,
                prefetches_reread: a.prefetch_rereads,
                prefetches_dropped: a.prefetch_dropped,
                memory_in_use_mean_bytes: (used_mean * u128::from(self.block_bytes)) as u64,
                memory_in_use_peak_bytes: used_peak * self.block_bytes,
            },
            terminal_buffer: TerminalBuffers {
                memory_bytes: self.term_memory,
                occupancy_mean_bytes: if a.buffer_samples == 0 || self.n_real == 0 {
                    0
                } else {
                    (a.buffer_sum / u128::from(a.buffer_samples) / self.n_real as u128) as u64
                },
                occupancy_peak_bytes: a.buffer_peak,
                sample_interval_ns: self.sample_interval.as_nanos(),
            },
            conservation: Conservation {
                requests_issued: self.cons.issued,
                requests_delivered: self.cons.delivered,
                requests_in_system: in_system,
                disk_demand_bytes: self.cons.disk_demand_bytes,
                hit_bytes: self.cons.hit_bytes,
                join_bytes: self.cons.join_bytes,
                serving_bytes: serving,
                sent_bytes: self.cons.sent_bytes,
                in_transit_bytes: in_transit,
                received_bytes: self.cons.received_bytes,
                consumed_bytes: self.cons.consumed_bytes + consumed_live,
                discarded_bytes: self.cons.discarded_bytes,
                buffered_bytes: buffered,
            },
            events: self.q_events,
            paper: f.paper.clone(),
            search: self.search_summary(),
            piggyback: self.pig.summary(),
            network: None,
            admission: None,
        };
        let series = Table {
            name: "timeseries".into(),
            columns: vec![
                ("time_ns".into(), Column::U64(a.series_time.clone())),
                (
                    "terminal_buffer_mean_bytes".into(),
                    Column::U64(a.series_buffer_mean.clone()),
                ),
                (
                    "server_memory_in_use_bytes".into(),
                    Column::U64(
                        a.series_pages_used
                            .iter()
                            .map(|p| p * self.block_bytes)
                            .collect(),
                    ),
                ),
                ("glitches".into(), Column::U64(a.series_glitches.clone())),
                (
                    "disk_queue_total".into(),
                    Column::U64(a.series_disk_queue.clone()),
                ),
                (
                    "disk_utilization_mean_ratio".into(),
                    Column::F64(a.series_disk_util.clone()),
                ),
            ],
        };
        let requests = std::mem::take(&mut self.acc.requests).table();
        RunResults {
            summary,
            tables: vec![
                disk_rows.table(),
                node_rows.table(),
                term_rows.table(),
                series,
                requests,
            ],
        }
    }
}

impl Sim<'_> {
    /// The `search` section of the summary: when the scenario has `[interactive]` or its
    /// workload has `ff`/`rewind` events.
    fn search_summary(&self) -> Option<SearchSummary> {
        use crate::trace::EventKind;
        let any = self
            .events
            .iter()
            .any(|e| matches!(e.kind, EventKind::FastForward | EventKind::Rewind));
        if self.scenario.file.interactive.is_none() && !any {
            return None;
        }
        let count = self.scenario.file.videos.count as usize;
        let stored = |range: std::ops::Range<usize>| -> u64 {
            range
                .map(|v| u64::from(self.blocks[v]) * self.block_bytes)
                .sum()
        };
        Some(SearchSummary {
            mode: self.interactive.search,
            searches: self.acc.searches,
            segments_shown: self.acc.segments,
            prefetch_hints: self.acc.prefetch_hints,
            video_bytes: stored(0..count),
            search_version_bytes: stored(count..self.blocks.len()),
        })
    }
}

#[derive(Default)]
struct DiskRows {
    disk: Vec<u64>,
    node: Vec<u64>,
    util: Vec<f64>,
    requests: Vec<u64>,
    prefetch: Vec<u64>,
    queue_mean: Vec<u64>,
    service_mean: Vec<u64>,
    overhead_mean: Vec<u64>,
    seek_mean: Vec<u64>,
    rotation_mean: Vec<u64>,
    transfer_mean: Vec<u64>,
    max_total: Vec<u64>,
}
impl DiskRows {
    fn push(&mut self, i: usize, d: &Disk, u: f64) {
        self.disk.push(i as u64);
        self.node.push(u64::from(d.node));
        self.util.push(u);
        self.requests.push(d.served);
        self.prefetch.push(d.served_prefetch);
        let m = |s: u128| {
            if d.served == 0 {
                0
            } else {
                (s / u128::from(d.served)) as u64
            }
        };
        self.queue_mean.push(m(d.queue_sum));
        self.service_mean.push(m(d.service_sum));
        self.overhead_mean.push(m(d.overhead_sum));
        self.seek_mean.push(m(d.seek_sum));
        self.rotation_mean.push(m(d.rotation_sum));
        self.transfer_mean.push(m(d.transfer_sum));
        self.max_total.push(d.max_total);
    }
    fn table(self) -> Table {
        Table {
            name: "disks".into(),
            columns: vec![
                ("disk".into(), Column::U64(self.disk)),
                ("node".into(), Column::U64(self.node)),
                ("utilization_ratio".into(), Column::F64(self.util)),
                ("requests".into(), Column::U64(self.requests)),
                ("prefetch_requests".into(), Column::U64(self.prefetch)),
                ("queue_mean_ns".into(), Column::U64(self.queue_mean)),
                ("service_mean_ns".into(), Column::U64(self.service_mean)),
                ("io_time_max_ns".into(), Column::U64(self.max_total)),
                ("overhead_mean_ns".into(), Column::U64(self.overhead_mean)),
                ("seek_mean_ns".into(), Column::U64(self.seek_mean)),
                ("rotation_mean_ns".into(), Column::U64(self.rotation_mean)),
                ("transfer_mean_ns".into(), Column::U64(self.transfer_mean)),
            ],
        }
    }
}

/// Every n-th disk request of the measured period (`run.request_sample_every`), with its
/// I/O time parts: the `requests` table.
#[derive(Default)]
pub(super) struct RequestRows {
    time: Vec<u64>,
    disk: Vec<u64>,
    class: Vec<String>,
    queue: Vec<u64>,
    overhead: Vec<u64>,
    seek: Vec<u64>,
    rotation: Vec<u64>,
    transfer: Vec<u64>,
    total: Vec<u64>,
}
impl RequestRows {
    /// One dispatched request: `since_start` is its dispatch time from the window start.
    pub(super) fn push(
        &mut self,
        since_start: u64,
        disk: usize,
        prefetch: bool,
        queue: u64,
        st: &ServiceTime,
    ) {
        self.time.push(since_start);
        self.disk.push(disk as u64);
        self.class
            .push(if prefetch { "prefetch" } else { "demand" }.to_string());
        self.queue.push(queue);
        self.overhead.push(st.overhead.as_nanos());
        self.seek.push(st.seek.as_nanos());
        self.rotation.push(st.rotation.as_nanos());
        self.transfer.push(st.transfer.as_nanos());
        self.total.push(queue + st.total().as_nanos());
    }
    fn table(self) -> Table {
        Table {
            name: "requests".into(),
            columns: vec![
                ("time_ns".into(), Column::U64(self.time)),
                ("disk".into(), Column::U64(self.disk)),
                ("class".into(), Column::Str(self.class)),
                ("queue_ns".into(), Column::U64(self.queue)),
                ("overhead_ns".into(), Column::U64(self.overhead)),
                ("seek_ns".into(), Column::U64(self.seek)),
                ("rotation_ns".into(), Column::U64(self.rotation)),
                ("transfer_ns".into(), Column::U64(self.transfer)),
                ("io_time_ns".into(), Column::U64(self.total)),
            ],
        }
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

#[derive(Default)]
struct TermRows {
    id: Vec<u64>,
    videos: Vec<u64>,
    glitches: Vec<u64>,
    stalled: Vec<u64>,
    received: Vec<u64>,
    startup_mean: Vec<u64>,
}
impl TermRows {
    fn push(&mut self, i: usize, t: &Term) {
        self.id.push(i as u64);
        self.videos.push(t.videos_started);
        self.glitches.push(t.glitches_measured);
        self.stalled.push(t.stalled_measured);
        self.received.push(t.bytes_received);
        self.startup_mean
            .push(t.startup_sum.checked_div(t.startups).unwrap_or(0));
    }
    fn table(self) -> Table {
        Table {
            name: "terminals".into(),
            columns: vec![
                ("terminal".into(), Column::U64(self.id)),
                ("videos_started".into(), Column::U64(self.videos)),
                ("glitches".into(), Column::U64(self.glitches)),
                ("stalled_ns".into(), Column::U64(self.stalled)),
                ("bytes_received".into(), Column::U64(self.received)),
                (
                    "startup_latency_mean_ns".into(),
                    Column::U64(self.startup_mean),
                ),
            ],
        }
    }
}

/// Checks that a terminal's memory can hold every frame of the library together with the
/// stripe blocks it spans (see [`VideoLibrary::memory_needed`]); otherwise a terminal would
/// wait forever for a block it has no room to request.
fn check_terminal_memory(scenario: &Scenario, lib: &VideoLibrary) -> Result<(), ScenarioError> {
    let f = &scenario.file;
    let block = f.server.stripe.0;
    let need = lib.memory_needed(block);
    let memory = f.terminals.memory.0;
    if memory >= need.bytes {
        return Ok(());
    }
    let size = crate::units::fmt_bytes;
    let message = format!(
        "{} cannot display frame {} of video {}: a terminal must hold that frame's {} bytes \
         together with the rest of the {} stripe blocks it spans, {} bytes in all; must be at \
         least {} bytes for these videos and this stripe (or choose a smaller stripe)",
        size(memory),
        need.frame,
        need.video,
        need.frame_bytes,
        size(block),
        need.bytes,
        need.bytes
    );
    let text = std::fs::read_to_string(&scenario.path).unwrap_or_default();
    Err(ScenarioError::at(
        &scenario.path,
        &text,
        "terminals.memory",
        message,
    ))
}

/// Builds what a run of `scenario` builds — the video library, every disk model and
/// scheduler, the layout, the prefetcher and the buffer pools — without simulating, and
/// reports the first thing that cannot be built, at its key in the scenario file.
/// `vodbench check`, `search` and `sweep` run this before anything else.
pub fn check_buildable(scenario: &Scenario) -> Result<(), ScenarioError> {
    Sim::build(scenario, &[], None).map(|_| ())
}

/// Runs one scenario over its workload events and returns every metric.
///
/// The result depends only on the scenario (including its seed) and `events`.
pub fn simulate(
    scenario: &Scenario,
    events: &[TraceEvent],
    progress: ClockProgress<'_>,
) -> Result<RunResults, SimError> {
    simulate_with(scenario, events, progress, SimOptions::default())
}

/// How [`simulate_with`] runs, beyond the scenario itself.
#[derive(Clone, Copy, Default)]
pub struct SimOptions<'m> {
    /// Take the video library from here when it holds the scenario's (see [`LibraryMemo`]);
    /// the results are the same.
    pub memo: Option<&'m LibraryMemo>,
    /// End the run at the first glitch of the measured period (right after the event whose
    /// handling counted it), for a caller that only needs to know whether a run glitches, as
    /// `vodbench search` does. A run without a glitch is unaffected; one with a glitch then
    /// reports at least one glitch, and every other figure covers the measured period only up
    /// to it.
    pub stop_at_first_glitch: bool,
    /// Measure only what `vodbench search` reads — glitches, disk utilization and the buffer
    /// pool's hit and shared ratios — and skip what only `vodbench run`'s outputs show: the
    /// time series (no samples are taken), the I/O time distributions and the request
    /// samples, which are left empty (zero), and the event count leaves out the samples.
    /// Samples and measurements never change what is simulated, so every figure a search
    /// reads is the same as without this option.
    pub search_figures_only: bool,
}

/// [`simulate`] with [`SimOptions`].
pub fn simulate_with(
    scenario: &Scenario,
    events: &[TraceEvent],
    progress: ClockProgress<'_>,
    opts: SimOptions<'_>,
) -> Result<RunResults, SimError> {
    let mut sim = Sim::build(scenario, events, opts.memo)?;
    sim.stop_at_first_glitch = opts.stop_at_first_glitch;
    sim.search_figures_only = opts.search_figures_only;
    sim.run(progress);
    if let Some(e) = sim.error.take() {
        return Err(e);
    }
    Ok(sim.results())
}
