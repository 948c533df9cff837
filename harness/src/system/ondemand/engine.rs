//! The on-demand engine: the components of a SPIFFI-style server, the event loop that routes
//! each event to the component it concerns, and the data path that passes a read from one
//! component to the next (SPIFFI §5–6).
//!
//! ```text
//!  terminal ──request──► network ──► node CPU (receive) ──► buffer pool ──hit──────────┐
//!     ▲                                                       │ miss / prefetch          │
//!     │                                                       ▼                          ▼
//!     └──── network ◄── node CPU (send) ◄── page read ◄── disk station ◄── CPU (start I/O)
//! ```
//!
//! Each component owns its state and what it measures: [`Terminals`] (playout, glitches,
//! the workload), [`Nodes`] (CPUs and buffer pools), [`Disks`] (queues, schedulers, disk
//! models), [`Network`] (the interconnect's links), [`Prefetching`] and
//! [`AdmissionControl`]; with `[transmission]`, a block the node sends goes to the
//! [`Egress`] (the transmission policy cuts it into packets, Pappas et al. §3.2) and each
//! packet to its terminal's client model ([`Clients`]) instead of over the network. The
//! engine asks each for its part and schedules the events that follow, in an order that is
//! the same on every run: a scenario and seed give byte-identical results.
//!
//! Events are block-granular: a terminal schedules one wake-up for the earliest of "a frame's
//! display time comes before its data" (a glitch), "enough frames consumed to make room for
//! another block" and "end of video", computed exactly from the frame offsets, instead of one
//! event per frame.

use super::admission::{AdmissionControl, AdmissionSetup};
use super::bus::BusConfig;
use super::clients::{self, Clients};
use super::continuity::{Arrival, Continuity};
use super::delays::Delays;
use super::disk::{DiskStation, Disks};
use super::egress::{Egress, Next};
use super::error::{Faults, SimError};
use super::event::{Ev, NONE};
use super::interface_cpu::{IfaceJob, InterfaceCpus};
use super::measure::{Period, Sample, Series, Window};
use super::message_work::{MessageCost, MessageHandlers, MessageJob};
use super::network::Network;
use super::node::{CpuJob, Lookup, Node, Nodes};
use super::piggyback::Piggyback;
use super::ports::Ports;
use super::prefetch::{Prefetching, MAX_CANDIDATES_PER_POLL};
use super::queue::EventQueue;
use super::replication::Replication;
use super::requests::{DReq, Requests};
use super::rounds::Rounds;
use super::spec::Release;
use super::spec::{RoundIssue, Scenario, ScenarioError, Warmup};
use super::storage_thread::{Busy, StorageThreads};
use super::stream_memory::StreamMemory;
use super::terminal::{TerminalConfig, Terminals};
use super::video::{FrameNeed, LibraryMemo, VideoLibrary};
use super::visual_search::VisualSearch;
use super::workload::{Digest, Events};
use crate::ids::{DiskId, NodeId, TerminalId};
use crate::plugin::{
    BuildContext, Endpoint, Fetch, Layout, PluginError, PrefetchPoll, ReadyBlock, Reference,
    RequestClass,
};
use crate::results::stream_memory::{BufferWaits, StreamMemorySummary};
use crate::results::{Conservation, RunResults, Summary, TerminalBuffers};
use crate::time::{SimDuration, SimTime};
use crate::trace::TraceEvent;

/// Events at one simulated instant after which the engine declares a livelock.
const MAX_EVENTS_PER_INSTANT: u64 = 50_000_000;

/// Progress callback: (current simulated time, time at which the run will end if known).
pub type ClockProgress<'a> = &'a mut dyn FnMut(SimTime, Option<SimTime>);

/// The whole simulated server.
struct Engine<'a> {
    scenario: &'a Scenario,
    q: EventQueue<Ev>,
    period: Period,
    terms: Terminals<'a>,
    nodes: Nodes,
    disks: Disks,
    net: Network,
    prefetch: Prefetching,
    admission: AdmissionControl,
    delays: Delays,
    continuity: Continuity,
    /// The interface nodes' CPUs (`[server.interface_cpu]`).
    iface_cpu: Option<InterfaceCpus>,
    /// The storage nodes' message handlers (`[server.message_work]`; the interface nodes'
    /// are `iface_cpu`).
    msg_work: Option<MessageHandlers>,
    /// The egress link and its clients (`[transmission]`, `[server.egress]`,
    /// `[[clients.profile]]`).
    egress: Option<(Egress, Clients)>,
    /// Round-based retrieval and the server's stream memory (`[server.rounds]`).
    rounds: Option<(Rounds, StreamMemory)>,
    /// The object manager and the popular object's copy (`[server.replication]`).
    repl: Option<Replication>,
    /// The storage nodes' disks (the dedicated interface nodes' local disks follow them).
    storage_disks: usize,
    /// Single-threaded storage nodes (`[server] storage_threading`).
    threads: StorageThreads,
    reqs: Requests,
    layout: Box<dyn Layout>,
    layout_name: &'static str,
    faults: Faults,
    series: Series,
    sample_interval: SimDuration,
    block_bytes: u64,
    /// Events processed.
    events: u64,
    /// [`SimOptions::stop_at_first_glitch`].
    stop_at_first_glitch: bool,
}

impl<'a> Engine<'a> {
    fn build(
        scenario: &'a Scenario,
        events: Events<'a>,
        digest: &Digest,
        opts: SimOptions<'_>,
    ) -> Result<Engine<'a>, ScenarioError> {
        let f = &scenario.file;
        let s = &f.server;
        let interactive = f.interactive.clone().unwrap_or_default();
        let block_bytes = scenario.block_bytes();
        let versions = interactive.search_versions();
        // the terminals' memory checked against the first video's first frames before the
        // library is built: a library of many long videos takes gigabytes and a minute to
        // build, and a configuration error must not wait for it
        if let Some(first) =
            VideoLibrary::memory_needed_at_least(&f.videos, f.seed, block_bytes, 1 << 20)
        {
            check_terminal_need(scenario, first)?;
        }
        let lib = match opts.memo {
            Some(m) => m.build(&f.videos, f.seed, Some(block_bytes), versions),
            None => VideoLibrary::build(&f.videos, f.seed, Some(block_bytes), versions),
        };
        check_terminal_memory(scenario, &lib)?;
        let blocks: Vec<u32> = (0..lib.len())
            .map(|v| lib.total_bytes(v).div_ceil(block_bytes) as u32)
            .collect();
        let ndisks = scenario.disks();
        let pages = scenario.pages_per_node();
        let p = &scenario.plugins;
        let ctx = |component: &'static str, index: u64| BuildContext {
            seed: f.seed,
            component,
            index,
            nodes: s.nodes,
            interfaces: s.interface_nodes,
            managers: u32::from(s.manager_node),
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
                // the parameter at fault when the plugin names one
                let key = error.key_in(kind);
                ScenarioError::Invalid {
                    file: scenario.path.clone(),
                    // the parameter's line, the table's header, or where the plugin is named
                    // in a dotted table
                    line: line(&key)
                        .or_else(|| line(kind))
                        .or_else(|| line(&format!("{kind}.name"))),
                    key,
                    message: format!("cannot build {kind} `{name}`: {error}"),
                }
            }
        };
        let mut stations = Vec::with_capacity(ndisks as usize);
        let mut geometry = None;
        // disk `d`'s model and its scheduler (which sees the model's geometry), each with a
        // random stream of its own
        let build_disk = |d: u32| {
            let model = p
                .disk_model
                .build(&ctx("disk", u64::from(d)))
                .map_err(err("disk.model", p.disk_model.name))?;
            let mut c = ctx("disk.scheduler", u64::from(d));
            c.geometry = Some(model.geometry());
            let sched = p
                .scheduler
                .build(&c)
                .map_err(err("disk.scheduler", p.scheduler.name))?;
            Ok::<_, ScenarioError>((model, sched))
        };
        for d in 0..ndisks {
            let (model, sched) = build_disk(d)?;
            if d == 0 {
                check_buffered_bus(scenario, model.as_ref())?;
            }
            geometry.get_or_insert(model.geometry());
            stations.push(DiskStation::new(d / s.disks_per_node, model, sched));
        }
        if let Some(r) = s.replication.as_ref() {
            check_prefix(scenario, r, &blocks)?;
        }
        let repl = s.replication.as_ref().map(|r| {
            let mut repl = Replication::new(
                r,
                s.interface_nodes,
                f.terminals.count,
                block_bytes,
                &blocks,
            );
            repl.place(s.nodes, ndisks);
            repl
        });
        let local_disks = repl.as_ref().map_or(0, Replication::local_disks);
        let per_node = repl.as_ref().map_or(0, Replication::disks_per_node);
        for l in 0..local_disks {
            // the dedicated interface nodes' local disks: the storage disks' model and
            // scheduler, each with a random stream of its own
            let (model, sched) = build_disk(ndisks + l)?;
            let g = model.geometry();
            // a popular object (at most the longest video) must fit its share of the disks
            let longest = blocks.iter().copied().max().unwrap_or(0);
            let per_disk = u64::from(longest.div_ceil(per_node)) * block_bytes;
            if per_disk > g.capacity_bytes {
                return Err(ScenarioError::Invalid {
                    file: scenario.path.clone(),
                    line: scenario
                        .source
                        .line_of_key("server.replication.local_disks")
                        .or_else(|| scenario.source.line_of_key("server.replication")),
                    key: "server.replication.local_disks".into(),
                    message: format!(
                        "the popular object needs {per_disk} bytes on each of {per_node} \
                         local disks, but a disk holds {} ([disk.model]): give more local disks",
                        g.capacity_bytes
                    ),
                });
            }
            let node = repl.as_ref().map_or(0, |r| r.local_disk_node(l));
            stations.push(DiskStation::new(node, model, sched));
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
        let interconnect = p
            .interconnect
            .build(&ctx("server.network", 0))
            .map_err(err("server.network", p.interconnect.name))?;
        let admission = p
            .admission
            .build(&ctx("admission", 0))
            .map_err(err("admission", p.admission.name))?;
        let egress = match (&p.transmission, &s.egress) {
            (Some(t), Some(e)) => {
                let policy = t
                    .build(&ctx("transmission", 0))
                    .map_err(err("transmission", t.name))?;
                Some((
                    Egress::new(
                        policy,
                        t.name,
                        e.rate,
                        e.cpu_per_packet.sim(),
                        e.cpu_ns_per_byte,
                    )
                    .with_cpu_share(e.cpu_share()),
                    Clients::new(f.clients.as_ref(), f.terminals.count),
                ))
            }
            _ => None,
        };
        let mut nodes = Vec::with_capacity(s.nodes as usize);
        for n in 0..s.nodes {
            let pool = p
                .buffer_pool
                .build(&ctx("buffer_pool", u64::from(n)))
                .map_err(err("buffer_pool", p.buffer_pool.name))?;
            nodes.push(Node::new(pages, pool));
        }
        let report_searches = f.interactive.is_some() || digest.searches;
        let search = VisualSearch::new(&interactive, f.videos.count);
        let terms = Terminals::new(
            TerminalConfig {
                count: f.terminals.count as usize,
                rounds: f.terminals.rounds.as_ref().map(|r| {
                    (
                        r.blocks,
                        match r.issue {
                            RoundIssue::Latest => r.lead.map(|l| l.sim()),
                            RoundIssue::Eager => None,
                        },
                    )
                }),
                memory: f.terminals.memory.0,
                prime: f.terminals.prime.map(|b| b.0),
                request_bytes: s.network.request_bytes.0,
                bit_rate: f.videos.bit_rate.0,
                block_bytes,
                warmup: f.run.warmup,
                report_searches,
                client_packet: s.interface_cpu.as_ref().and_then(|c| {
                    let bytes = c.client_packet?.0;
                    let every = u128::from(bytes) * 8 * 1_000_000_000
                        / u128::from(f.videos.bit_rate.0.max(1));
                    Some((bytes, SimDuration::from_nanos(every as u64)))
                }),
                server_rounds: s.rounds.is_some(),
            },
            lib,
            blocks,
            events,
            (digest.starting, digest.last_first_start),
            Piggyback::new(f.piggyback.clone()),
            search,
        );
        let nodes = Nodes::new(
            nodes,
            p.buffer_pool.name,
            s.cpu.clone(),
            s.cpu_mips,
            &terms.blocks,
            block_bytes,
        );
        let mut net = Network::new(
            interconnect,
            p.interconnect.name,
            s.nodes,
            s.interface_nodes,
        );
        if s.manager_node {
            net = net.with_manager();
        }
        net.count_probes = admission.observes();
        Ok(Engine {
            scenario,
            q: EventQueue::new(),
            period: Period {
                w: Window::closed(),
                end: None,
                duration: f.run.duration.sim(),
                figures_only: opts.search_figures_only,
            },
            terms,
            nodes,
            disks: with_buses(
                Disks::new(
                    stations,
                    p.scheduler.name,
                    f.run.request_sample_every,
                    opts.search_figures_only,
                ),
                s,
            ),
            net,
            prefetch: Prefetching::new(prefetcher, p.prefetcher.name, ndisks as usize),
            admission: AdmissionControl::new(
                admission,
                p.admission.name,
                AdmissionSetup {
                    reported: f.admission.is_some() || s.stream_memory.is_some(),
                    terminals: f.terminals.count,
                    // a stream's reservation: 2S under dblbuf, S under clbuf; none under
                    // clbufrate, whose reads wait for buffers under the cap instead
                    stream_memory: s.stream_memory.zip(s.rounds.as_ref()).and_then(|(cap, r)| {
                        match r.release {
                            Release::Dblbuf => Some((cap.0, 2 * s.stripe.0)),
                            Release::Clbuf => Some((cap.0, s.stripe.0)),
                            Release::Clbufrate => None,
                        }
                    }),
                    buffer_bytes: f.terminals.memory.0,
                    interfaces: s.interface_nodes,
                    interface_memory: s.interface_memory.map_or(0, |m| m.0),
                    round: round_time(scenario, block_bytes),
                    fragment_bytes: block_bytes,
                    videos: f.videos.count as usize,
                },
            ),
            delays: Delays::new(f.run.request_delays),
            continuity: Continuity::new(f.run.continuity, f.terminals.count, f.videos.bit_rate.0),
            iface_cpu: match (&s.interface_cpu, &s.message_work) {
                (Some(c), _) => Some(InterfaceCpus::new(
                    s.interface_nodes,
                    c.send.sim(),
                    c.receive.sim(),
                    c.copy_rate,
                    c.client_send.sim(),
                )),
                // an interface node's message handler: it sends requests, receives fragments
                (None, Some(m)) => Some(InterfaceCpus::new(
                    s.interface_nodes,
                    message_cost(m).of(s.network.request_bytes.0),
                    m.per_message.sim(),
                    m.copy_rate,
                    SimDuration::ZERO,
                )),
                (None, None) => None,
            },
            msg_work: s
                .message_work
                .as_ref()
                .map(|m| MessageHandlers::new(s.nodes, message_cost(m))),
            egress,
            rounds: s.rounds.as_ref().map(|r| {
                (
                    Rounds::new(r.length.nanos(s.stripe, f.videos.bit_rate.0), r.release),
                    // reads wait for buffers under the cap where buffers are taken as
                    // blocks are read (clbuf, clbufrate)
                    StreamMemory::capped(match r.release {
                        Release::Dblbuf => None,
                        Release::Clbuf | Release::Clbufrate => s.stream_memory.map(|c| c.0),
                    }),
                )
            }),
            repl,
            storage_disks: ndisks as usize,
            threads: StorageThreads::new(s.storage_threading, s.nodes),
            reqs: Requests::new(),
            layout,
            layout_name: p.layout.name,
            faults: Faults::default(),
            series: Series::default(),
            sample_interval: SimDuration::from_nanos(f.run.sample_interval.0),
            block_bytes,
            events: 0,
            stop_at_first_glitch: opts.stop_at_first_glitch,
        })
    }

    /// The terminals, and everything else as their ports.
    #[inline]
    fn split(&mut self) -> (&mut Terminals<'a>, Ports<'_>) {
        let Engine {
            q,
            period,
            terms,
            nodes,
            disks,
            net,
            admission,
            reqs,
            layout,
            layout_name,
            faults,
            iface_cpu,
            msg_work,
            repl,
            ..
        } = self;
        (
            terms,
            Ports {
                q,
                period,
                reqs,
                net,
                nodes,
                disks,
                admission,
                layout: &**layout,
                layout_name,
                faults,
                iface_cpu,
                msg_work,
                repl,
            },
        )
    }

    fn run(&mut self, progress: ClockProgress<'_>) {
        {
            let (terms, mut p) = self.split();
            terms.schedule_next_trace(&mut p);
        }
        if self.rounds.is_some() {
            self.q.schedule(SimTime::ZERO, Ev::Round);
        }
        let (to_start, last_first_start) = self.terms.warmup_limit();
        match self.scenario.file.run.warmup {
            Warmup::Fixed(d) => self.q.schedule(SimTime::ZERO + d.sim(), Ev::MeasureStart),
            Warmup::Auto => {
                if to_start == 0 {
                    self.q.schedule(SimTime::ZERO, Ev::MeasureStart);
                } else {
                    // If some terminal never manages to start, measure anyway after one
                    // measured duration past the last first start; reported as is.
                    let limit = last_first_start + self.period.duration;
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
                    self.faults.stop(SimError::NoProgress {
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
                progress(now, self.period.end);
                crate::interrupt::check();
            }
            match ev {
                Ev::Trace(i) => {
                    let (terms, mut p) = self.split();
                    terms.schedule_next_trace(&mut p);
                    terms.trace_event(i, false, &mut p);
                    if let Some(e) = self.terms.take_read_error() {
                        // the workload's stream ended in an error (its file changed since
                        // it was checked): the run is void
                        self.faults.stop(SimError::Scenario(e));
                    }
                }
                Ev::Delayed(i) => {
                    let (terms, mut p) = self.split();
                    terms.trace_event(i, true, &mut p);
                }
                Ev::ReqAtNode(r) => {
                    let node = self.reqs.read(r).node as usize;
                    if self.msg_work.is_some() {
                        let bytes = self.terms.request_bytes();
                        self.message_push(node, MessageJob::Receive(r, bytes));
                    } else {
                        self.cpu_push(node, CpuJob::Receive(r));
                    }
                }
                Ev::CpuDone(n) => self.cpu_done(n as usize),
                Ev::DiskDone(d) => self.disk_done(d as usize),
                Ev::Arrive(r) => self.arrive(r),
                Ev::Local(r) => self.local_arrive(r),
                Ev::IfaceDone(i) => self.iface_done(i as usize),
                Ev::MessageDone(n) => self.message_done(n as usize),
                Ev::ClientPacket(t) => {
                    let (terms, mut p) = self.split();
                    terms.client_packet(t as usize, &mut p);
                }
                Ev::Wake(t, g) => {
                    let (terms, mut p) = self.split();
                    terms.woken(t as usize, g, &mut p);
                }
                Ev::GroupStart(g) => {
                    let (terms, mut p) = self.split();
                    terms.group_start(g, &mut p);
                }
                Ev::PrefetchWake(d) => {
                    if self.prefetch.woken(d as usize, now) {
                        self.prefetch_poll(d as usize);
                    }
                }
                Ev::ProbeAtStorage(m) => self.probe_at_storage(m),
                Ev::ProbeBack(m) => {
                    let (terms, mut p) = self.split();
                    terms.probe_back(m, &mut p);
                }
                Ev::Delegation(t) => {
                    let (terms, mut p) = self.split();
                    terms.delegation(t as usize, &mut p);
                }
                Ev::Answer(t, admitted) => {
                    let (terms, mut p) = self.split();
                    terms.answer(t as usize, admitted, &mut p);
                }
                Ev::NetAcquire(m) => self.net.setup_done(m, &mut self.q, &self.period.w),
                Ev::NetRelease(m) => self.net.release(m, &mut self.q, &self.period.w),
                Ev::EgressDone => self.egress_done(),
                Ev::EgressWake => {
                    if let Some((e, _)) = self.egress.as_mut() {
                        if e.wake == Some(now) {
                            e.wake = None;
                            if !e.busy() {
                                self.egress_poll();
                            }
                        }
                    }
                }
                Ev::Round => self.round(),
                Ev::Sample => self.sample(),
                Ev::MeasureStart => {
                    let (terms, mut p) = self.split();
                    terms.open_window(&mut p);
                }
                Ev::MeasureEnd => break,
            }
            if self.faults.any() || (self.stop_at_first_glitch && self.terms.glitches() > 0) {
                break;
            }
        }
        self.events = count;
        progress(self.q.now(), self.period.end);
    }

    // ----- the data path -----------------------------------------------------------------

    /// Queues `job` at node `n`'s CPU (scheduling its end if the CPU was idle).
    #[inline]
    fn cpu_push(&mut self, n: usize, job: CpuJob) {
        let now = self.q.now();
        if let Some(at) = self.nodes.cpu_push(n, job, now, &self.period.w) {
            self.q.schedule(at, Ev::CpuDone(n as u32));
        }
    }

    fn cpu_done(&mut self, n: usize) {
        let now = self.q.now();
        match self.nodes.cpu_done(n, now, &self.period.w) {
            CpuJob::Receive(r) => self.lookup(r),
            CpuJob::StartIo(d) => self.disk_enqueue(d),
            CpuJob::Send(r) if self.msg_work.is_some() => {
                let bytes = self.reqs.read(r).bytes;
                self.message_push(n, MessageJob::Send(r, bytes));
            }
            CpuJob::Send(r) => self.send_block(r),
        }
        self.cpu_kick(n);
    }

    /// Queues `job` at storage node `n`'s message handler (`[server.message_work]`).
    fn message_push(&mut self, n: usize, job: MessageJob) {
        let now = self.q.now();
        let h = self.msg_work.as_mut().expect("message work configured");
        if let Some(at) = h.push(n, job, now, &self.period.w) {
            self.q.schedule(at, Ev::MessageDone(n as u32));
        }
    }

    /// Storage node `n`'s message handler finished a message: a request goes to the node's
    /// CPU, or a fragment into the interconnect; the handler starts its next message.
    fn message_done(&mut self, n: usize) {
        let now = self.q.now();
        let h = self
            .msg_work
            .as_mut()
            .expect("MessageDone without handlers");
        let job = h.done(n, now, &self.period.w);
        if let Some(at) = h.kick(n, now, &self.period.w) {
            self.q.schedule(at, Ev::MessageDone(n as u32));
        }
        let (MessageJob::Receive(r, bytes) | MessageJob::Send(r, bytes)) = job;
        // the handler's own work is part of the message's time without blocking (N_C)
        self.reqs.read_mut(r).net_unloaded += h.cost(bytes);
        match job {
            MessageJob::Receive(..) => self.cpu_push(n, CpuJob::Receive(r)),
            MessageJob::Send(..) => self.send_block(r),
        }
    }

    /// Starts node `n`'s next CPU job if its CPU is idle; a single-threaded storage node
    /// whose thread is then free starts its next disk access.
    fn cpu_kick(&mut self, n: usize) {
        let now = self.q.now();
        if let Some(at) = self.nodes.cpu_kick(n, now, &self.period.w) {
            self.q.schedule(at, Ev::CpuDone(n as u32));
        } else if self.threads.single(n) && self.nodes.cpu_free(n) {
            // one disk per single-threaded storage node: disk n
            self.disk_start(n);
        }
    }

    /// Node's CPU sent read `r`'s block: it goes to the terminal over the network.
    fn send_block(&mut self, r: u32) {
        let req = self.reqs.read_mut(r);
        req.stage = 2;
        let (bytes, node, terminal) = (req.bytes, req.node, req.terminal);
        self.nodes.sent(bytes);
        self.net.in_transit_bytes += bytes;
        let issued = self.reqs.read(r).sent;
        if let Some((e, c)) = self.egress.as_mut() {
            let stream_rate_bps = self.scenario.file.videos.bit_rate.0;
            let profile = c.profile(terminal);
            let block = ReadyBlock {
                token: r,
                client: TerminalId(terminal),
                bytes,
                stream_rate_bps,
                max_rate_bps: profile.map_or(stream_rate_bps, |p| p.max_rate.0),
                packet_bytes: profile.and_then(|p| p.packet).map(|b| b.0 as u32),
            };
            let now = self.q.now();
            let block = match self.rounds.as_mut() {
                Some((rounds, mem)) => {
                    let span = self.period.w.span;
                    mem.read(bytes, rounds.late(issued, now), now, span);
                    // its buffer was taken when its disk accesses started; a block that
                    // needed none (a buffer-pool hit, a read joining another's) takes it now
                    let buffered = self.reqs.read(r).buffered;
                    if rounds.release != Release::Dblbuf && bytes > buffered {
                        mem.reserve(bytes - buffered, now, span);
                    }
                    match rounds.read(block, issued, now) {
                        Some(b) => b,
                        None => return,
                    }
                }
                None => block,
            };
            e.ready(block, now);
            if !e.busy() {
                self.egress_poll();
            }
            return;
        }
        let to = self.net.terminal_endpoint(terminal);
        let unloaded = self.net.send(
            Endpoint::Node(NodeId(node)),
            to,
            bytes,
            Ev::Arrive(r),
            &mut self.q,
            &self.period.w,
            &mut self.faults,
        );
        self.reqs.read_mut(r).net_unloaded += unloaded;
        let n = node as usize;
        if self.threads.single(n) {
            // the one thread waits for its reply to be delivered ([`Engine::arrive`])
            self.threads.enter(n, Busy::Sending);
            self.nodes.hold(n);
        }
    }

    /// A single-threaded storage node's `what` (its disk access, its reply's delivery) is
    /// over: its thread takes its next CPU job, or starts its next disk access.
    fn thread_free(&mut self, n: usize, what: Busy) {
        self.threads.leave(n, what);
        self.nodes.unhold(n);
        self.cpu_kick(n);
    }

    /// A round boundary (`[server.rounds]`): the blocks held for it go to the transmission
    /// policy, then every active stream asks for its next block.
    fn round(&mut self) {
        let now = self.q.now();
        let Some((rounds, _)) = self.rounds.as_mut() else {
            return;
        };
        let held = rounds.boundary();
        let next = now + SimDuration::from_nanos(rounds.length);
        if let Some((e, _)) = self.egress.as_mut() {
            let any = !held.is_empty();
            for b in held {
                e.ready(b, now);
            }
            if any && !e.busy() {
                self.egress_poll();
            }
        }
        let bytes = {
            let (terms, mut p) = self.split();
            terms.round(&mut p)
        };
        if let Some((rounds, mem)) = self.rounds.as_mut() {
            if rounds.release == Release::Dblbuf {
                mem.reserve(bytes, now, self.period.w.span);
            }
        }
        self.q.schedule(next, Ev::Round);
    }

    /// The egress link is free: asks the transmission policy what to send.
    fn egress_poll(&mut self) {
        let now = self.q.now();
        let Some((e, _)) = self.egress.as_mut() else {
            return;
        };
        match e.poll(now, &self.period.w) {
            Next::Busy(at) => self.q.schedule(at, Ev::EgressDone),
            Next::Wake(at) => {
                if e.wake != Some(at) {
                    e.wake = Some(at);
                    self.q.schedule(at, Ev::EgressWake);
                }
            }
            Next::Idle => {}
            Next::Broken(m) => self.faults.plugin("transmission", e.name, now, m),
        }
    }

    /// The egress sent its packet: its client receives it (or loses it); a block whose
    /// last packet is done reaches its terminal then.
    fn egress_done(&mut self) {
        let now = self.q.now();
        let Some((e, c)) = self.egress.as_mut() else {
            return;
        };
        let (token, bytes, s) = e.done(now, &self.period.w);
        if let Some((rounds, mem)) = self.rounds.as_mut() {
            let span = self.period.w.span;
            mem.sent(bytes, now, span);
            match rounds.release {
                // the block's buffer is given back whole with its last packet
                Release::Dblbuf if s.left == 0 => {
                    mem.release(self.reqs.read(token).bytes, now, span)
                }
                Release::Dblbuf => {}
                Release::Clbuf | Release::Clbufrate => mem.release(bytes, now, span),
            }
        }
        let fate = c.packet(
            s.terminal,
            bytes,
            (s.ready, now),
            s.rate_bps,
            &self.period.w,
        );
        let s = e.client_done(token, fate.done);
        if s.left == 0 {
            self.q.schedule(s.done, Ev::Arrive(token));
        }
        // the packet's buffer space is free: reads waiting under the cap may start
        self.buffers_freed();
        self.egress_poll();
    }

    /// A terminal's request reached the buffer pool of its node.
    fn lookup(&mut self, r: u32) {
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
    fn after_reference(&mut self, r: u32) {
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
                    "prefetcher",
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
    fn start_io(&mut self, mut dr: DReq, block: crate::ids::BlockId) {
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
                self.faults
                    .plugin("layout", self.layout_name, self.q.now(), msg);
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

    fn disk_enqueue(&mut self, d: u32) {
        let now = self.q.now();
        let disk = self.disks.enqueue(d, &mut self.reqs.disk, now);
        self.disk_start(disk);
    }

    /// Disk `disk` starts its next access if it has one (no buffer or thread to wait for).
    fn start_access(&mut self, disk: usize, now: SimTime) {
        self.disks.start(
            disk,
            now,
            &self.period.w,
            &mut self.reqs.disk,
            &mut self.faults,
            &mut self.q,
        );
    }

    fn disk_start(&mut self, disk: usize) {
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
    fn buffers_freed(&mut self) {
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

    fn disk_done(&mut self, disk: usize) {
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
    fn release_page(&mut self, n: usize, p: u32) {
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

    /// Data for read `r` reached its terminal: the node is done with the page, the
    /// terminal takes the data.
    /// With interface CPUs, the fragment waits for its interface node's CPU to receive it
    /// (the node's page is released now, the bytes stay in transit until then).
    fn arrive(&mut self, r: u32) {
        let req = *self.reqs.read(r);
        if self.threads.single(req.node as usize) {
            // its storage node's thread waited for this reply's delivery
            self.thread_free(req.node as usize, Busy::Sending);
        }
        if self.nodes.unpin(req.node as usize, req.page) {
            self.release_page(req.node as usize, req.page);
        }
        if let Some(cpus) = self.iface_cpu.as_mut() {
            let i = self.net.interface_of(req.terminal);
            let now = self.q.now();
            if let Some(at) = cpus.push(i, IfaceJob::Receive(r, req.bytes), now, &self.period.w) {
                self.q.schedule(at, Ev::IfaceDone(i as u32));
            }
            return;
        }
        self.deliver(r);
    }

    /// Read `r`'s data, read at its dedicated interface node (`[server.replication]`),
    /// reaches its terminal: it was never on the interconnect.
    fn local_arrive(&mut self, r: u32) {
        let req = self.reqs.read_mut(r);
        req.stage = 2;
        let bytes = req.bytes;
        self.nodes.sent(bytes);
        self.net.in_transit_bytes += bytes;
        self.deliver(r);
    }

    /// Read `r`'s data reaches its terminal.
    fn deliver(&mut self, r: u32) {
        let req = *self.reqs.read(r);
        if let Some(repl) = self.repl.as_mut() {
            if (req.node as usize) < self.nodes.nodes.len() {
                repl.fetched(req.terminal, req.block, self.period.w.measuring);
            }
        }
        self.reqs.reads.release(r);
        self.net.in_transit_bytes -= req.bytes;
        let (now, measuring) = (self.q.now(), self.period.w.measuring);
        self.delays.arrived(&req, now, measuring);
        self.continuity.arrived(
            Arrival {
                terminal: req.terminal,
                epoch: req.epoch,
                block: req.block.index,
                bytes: req.bytes,
                sent: req.sent,
            },
            now,
            measuring,
        );
        if self.admission.observes() {
            let [s_q, d_s, d_r, d_t] = req.io;
            self.admission.fetched(&Fetch::new(
                req.terminal
                    .checked_rem(self.scenario.file.server.interface_nodes),
                NodeId(req.node),
                now.saturating_since(req.sent),
                req.own_io
                    .then(|| SimDuration::from_nanos(s_q + d_s + d_r + d_t)),
                now,
            ));
        }
        let (terms, mut p) = self.split();
        terms.arrive(&req, &mut p);
    }

    /// Admission probe `m` reached its storage node, which sends a dummy reply of one
    /// fragment back to the probing interface node at once (no CPU or disk time).
    fn probe_at_storage(&mut self, m: u32) {
        let (t, node) = self.admission.probe_target(m);
        let to = self.net.terminal_endpoint(t);
        self.net.send(
            Endpoint::Node(NodeId(node)),
            to,
            self.block_bytes,
            Ev::ProbeBack(m),
            &mut self.q,
            &self.period.w,
            &mut self.faults,
        );
    }

    /// Interface node `i`'s CPU finished a job: a request goes into the network, or a
    /// fragment reaches its stream; the CPU starts its next job.
    fn iface_done(&mut self, i: usize) {
        let now = self.q.now();
        let cpus = self
            .iface_cpu
            .as_mut()
            .expect("IfaceDone without interface CPUs");
        let job = cpus.done(i, now, &self.period.w);
        let work = cpus.cost(job);
        if let Some(at) = cpus.kick(i, now, &self.period.w) {
            self.q.schedule(at, Ev::IfaceDone(i as u32));
        }
        if let (Some(_), IfaceJob::Send(r) | IfaceJob::Receive(r, _)) = (&self.msg_work, job) {
            // `[server.message_work]`: the handler's own work is part of N_C
            self.reqs.read_mut(r).net_unloaded += work;
        }
        match job {
            IfaceJob::Send(r) => {
                let req = *self.reqs.read(r);
                let from = self.net.terminal_endpoint(req.terminal);
                let unloaded = self.net.send(
                    from,
                    Endpoint::Node(NodeId(req.node)),
                    self.terms.request_bytes(),
                    Ev::ReqAtNode(r),
                    &mut self.q,
                    &self.period.w,
                    &mut self.faults,
                );
                self.reqs.read_mut(r).net_unloaded += unloaded;
            }
            IfaceJob::Receive(r, _) => self.deliver(r),
            // sent to the client, outside the server's interconnect: nothing follows
            IfaceJob::Packet(_) => {}
        }
    }

    /// Asks the prefetcher what to read at `disk` until it has nothing more for now.
    fn prefetch_poll(&mut self, disk: usize) {
        let name = self.prefetch.name;
        for _ in 0..MAX_CANDIDATES_PER_POLL {
            let now = self.q.now();
            match self.prefetch.poll(disk, now) {
                PrefetchPoll::Idle => return,
                PrefetchPoll::WaitUntil(t) => {
                    if t <= now {
                        self.faults.plugin(
                            "prefetcher",
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
                    let blocks = &self.terms.blocks;
                    if v >= blocks.len() || c.block.index >= blocks[v] {
                        continue; // past the end of the video
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
            "prefetcher",
            name,
            now,
            format!("returned {MAX_CANDIDATES_PER_POLL} candidates in one poll"),
        );
    }

    fn block_len(&self, video: u32, index: u32) -> u64 {
        let total = self.terms.lib().total_bytes(video as usize);
        let start = u64::from(index) * self.block_bytes;
        total.saturating_sub(start).min(self.block_bytes)
    }

    // ----- measurement -------------------------------------------------------------------

    /// A sample of the time series.
    fn sample(&mut self) {
        let now = self.q.now();
        let w = self.period.w;
        let buffered = self.terms.sample(now);
        let s = Sample {
            buffered,
            pages_used: self.nodes.pages_used(),
            glitches: self.terms.glitches(),
            disk_queue: self.disks.queued(),
            disk_busy: self.disks.busy_integral(now, w.span),
            disks_busy_now: self.disks.busy_now(),
            stream_memory: self.rounds.as_ref().map(|(_, m)| m.levels()),
        };
        self.series
            .push(now, &w, s, self.terms.real(), self.disks.len());
        if let Some((_, c)) = self.egress.as_mut() {
            c.sample(now, &w);
        }
        let next = now + self.sample_interval;
        if next < w.span.1 {
            self.q.schedule(next, Ev::Sample);
        }
    }

    /// Every metric, each component reporting its own.
    fn results(mut self) -> RunResults {
        let now = self.q.now();
        let f = &self.scenario.file;
        let w = self.period.w;
        let (w0, w1) = if w.measuring {
            (w.span.0, now.min(w.span.1))
        } else {
            (now, now)
        };
        let window = (w0, w1);
        let measured = w1.saturating_since(w0).as_nanos();
        self.terms.close_stalls(w1, window, w.measuring);
        let (glitches, startup_latency, videos_started, events_ignored, term_table) =
            self.terms.report(w0, w.measuring);
        let (disks, disk_table, request_table) = self.disks.report(w1, window, measured);
        let buses = self
            .disks
            .bus_report(w1, window, measured, self.bus_model());
        let (cpu, buffer_pool, node_table) = self.nodes.report(w1, window, measured);
        let mut network = self.net.report(w1, window, measured);
        if let (Some(cpus), Some((n, _))) = (self.iface_cpu.as_mut(), network.as_mut()) {
            let (mean, max) = cpus.report(w1, window, measured);
            n.interface_cpu_utilization_mean_ratio = Some(mean);
            n.interface_cpu_utilization_max_ratio = Some(max);
        }
        if let (Some(h), Some((n, _))) = (self.msg_work.as_mut(), network.as_mut()) {
            let (mean, max) = h.report(w1, window, measured);
            n.storage_message_utilization_mean_ratio = Some(mean);
            n.storage_message_utilization_max_ratio = Some(max);
        }
        let admission = self.admission.report(w1, window, measured);
        let delays = self.delays.report();
        let continuity = self.continuity.report();
        let transmission = self.egress.as_ref().map(|(e, c)| {
            let rows = c.figures(measured);
            (
                transmission_summary(e, &rows, measured),
                [clients::table(&rows), c.monitored_table()],
            )
        });
        let stream_memory = self.rounds.as_mut().map(|(r, m)| {
            let f = m.figures(w1, window, measured);
            StreamMemorySummary {
                release: r.release.name().to_string(),
                round_ns: r.length,
                reserved_peak_bytes: f.reserved_peak,
                reserved_mean_bytes: f.reserved_mean,
                used_peak_bytes: f.used_peak,
                used_mean_bytes: f.used_mean,
                blocks_read: f.blocks_read,
                late_blocks: f.late_blocks,
                buffer_waits: f.waits.map(|(reads, total, max)| BufferWaits {
                    cap_bytes: self.scenario.file.server.stream_memory.map_or(0, |c| c.0),
                    reads,
                    total_ns: total as u64,
                    mean_ns: total.checked_div(u128::from(reads)).unwrap_or(0) as u64,
                    max_ns: max,
                }),
                refused_starts: self.admission.memory_refused(),
            }
        });
        let live = self.reqs.reads.live();
        let serving: u64 = self
            .reqs
            .reads
            .slots
            .iter()
            .zip(&live)
            .filter(|(r, l)| **l && r.stage == 1)
            .map(|(r, _)| r.bytes)
            .sum();
        let (issued, delivered, received, consumed, discarded, buffered) =
            self.terms.conservation();
        let summary = Summary {
            scenario: self.scenario.name().to_string(),
            seed: f.seed,
            terminals: u64::from(f.terminals.count),
            warmup_ns: w0.as_nanos(),
            measured_ns: measured,
            simulated_ns: now.as_nanos(),
            ended_early: measured < f.run.duration.0,
            glitches,
            startup_latency,
            videos_started,
            events_ignored,
            disks,
            cpu,
            buffer_pool,
            terminal_buffer: TerminalBuffers {
                memory_bytes: f.terminals.memory.0,
                occupancy_mean_bytes: self.terms.occupancy_mean(),
                occupancy_peak_bytes: self.terms.occupancy_peak(),
                sample_interval_ns: self.sample_interval.as_nanos(),
            },
            conservation: Conservation {
                requests_issued: issued,
                requests_delivered: delivered,
                requests_in_system: self.reqs.reads.in_use(),
                disk_demand_bytes: self.nodes.disk_demand_bytes,
                hit_bytes: self.nodes.hit_bytes,
                join_bytes: self.nodes.join_bytes,
                serving_bytes: serving,
                sent_bytes: self.nodes.sent_bytes,
                in_transit_bytes: self.net.in_transit_bytes,
                received_bytes: received,
                consumed_bytes: consumed,
                discarded_bytes: discarded,
                buffered_bytes: buffered,
            },
            events: self.events,
            paper: f.paper.clone(),
            search: self.terms.search_summary(),
            piggyback: self.terms.piggyback_summary(),
            network: network.as_ref().map(|(s, _)| s.clone()),
            admission,
            request_delays: delays.as_ref().map(|(s, _)| s.clone()),
            buses: buses.as_ref().map(|(s, _)| s.clone()),
            continuity: continuity.as_ref().map(|(s, _)| s.clone()),
            transmission: transmission.as_ref().map(|(s, _)| s.clone()),
            stream_memory,
            replication: self
                .repl
                .as_ref()
                .map(|r| r.report(self.period.end.unwrap_or(now))),
        };
        let mut tables = vec![
            disk_table,
            node_table,
            term_table,
            self.series.table(self.block_bytes),
            request_table,
        ];
        if let Some((_, links)) = network {
            tables.push(links);
        }
        if let Some((_, t)) = delays {
            tables.push(t);
        }
        if let Some((_, t)) = buses {
            tables.push(t);
        }
        if let Some((_, t)) = continuity {
            tables.push(t);
        }
        if let Some((_, t)) = transmission {
            tables.extend(t);
        }
        RunResults { summary, tables }
    }

    /// Wu's eq. 5 for this scenario: μ = n·a / r_bus per bus, the terminals' bit rate spread
    /// over the buses (0 without buses).
    fn bus_model(&self) -> f64 {
        let f = &self.scenario.file;
        match &f.server.bus {
            Some(b) if self.disks.buses() > 0 => {
                f64::from(f.terminals.count) * f.videos.bit_rate.0 as f64
                    / (b.rate.0 as f64 * self.disks.buses() as f64)
            }
            _ => 0.0,
        }
    }
}

/// `summary.json`'s `transmission` from the egress's counters and the clients' figures.
fn transmission_summary(
    e: &Egress,
    rows: &[crate::results::transmission::ClientFigures],
    measured: u64,
) -> crate::results::transmission::TransmissionSummary {
    let (packets, bytes, busy, cpu) = e.counters();
    let share = |x: u64| {
        if measured > 0 {
            x as f64 / measured as f64
        } else {
            0.0
        }
    };
    let n = rows.len().max(1) as f64;
    let client_packets: u64 = rows.iter().map(|r| r.packets).sum();
    let lost: u64 = rows.iter().map(|r| r.packets_lost).sum();
    crate::results::transmission::TransmissionSummary {
        policy: e.name.to_string(),
        egress_rate_bps: e.rate_bps(),
        packets,
        bytes,
        throughput_bps: if measured > 0 {
            bytes as f64 * 8.0 * 1e9 / measured as f64
        } else {
            0.0
        },
        egress_utilization_ratio: share(busy),
        cpu_utilization_ratio: share(cpu),
        client_packets,
        client_packets_lost: lost,
        loss_ratio: if client_packets > 0 {
            lost as f64 / client_packets as f64
        } else {
            0.0
        },
        goodput_mean_bps: rows.iter().map(|r| r.goodput_bps).sum::<f64>() / n,
        jitter_mean_ns: (rows
            .iter()
            .map(|r| u128::from(r.jitter_mean_ns))
            .sum::<u128>()
            / rows.len().max(1) as u128) as u64,
        jitter_max_ns: rows.iter().map(|r| r.jitter_max_ns).max().unwrap_or(0),
        frame_rate_mean_fps: rows.iter().map(|r| r.frame_rate_fps).sum::<f64>() / n,
        monitored: rows.iter().find(|r| r.terminal == 0).cloned(),
    }
}

/// Refuses `[server.bus] buffered = true` in front of a disk model whose transfer already
/// carries the data over the drive's own bus ([`DiskModel::transfer_includes_bus`]): the
/// media read and the model's bus would take place before the burst at the bus rate, and
/// the bus would be counted twice. Unbuffered, the transfer holds the bus for the longer of
/// the model's transfer and the bus time, which counts it once.
fn check_buffered_bus(
    scenario: &Scenario,
    model: &dyn crate::plugin::DiskModel,
) -> Result<(), ScenarioError> {
    let buffered = scenario
        .file
        .server
        .bus
        .as_ref()
        .is_some_and(|b| b.buffered);
    if !buffered || !model.transfer_includes_bus() {
        return Ok(());
    }
    let line = |k: &str| scenario.source.line_of_key(k);
    Err(ScenarioError::Invalid {
        file: scenario.path.clone(),
        line: line("server.bus.buffered").or_else(|| line("server.bus")),
        key: "server.bus.buffered".into(),
        message: format!(
            "buffered = true with disk model `{}`, whose transfer already moves the data \
             over the drive's own bus: the burst at the bus rate after it would count the \
             bus twice; use buffered = false (the transfer then holds the bus for the longer \
             of the model's transfer and the bus time) or a model of the media alone \
             (`analytic`, `linear`)",
            scenario.plugins.disk_model.name
        ),
    })
}

/// The disks on the scenario's SCSI buses (`[server.bus]`), if it has any.
fn with_buses(disks: Disks, s: &super::spec::ServerSection) -> Disks {
    match &s.bus {
        None => disks,
        Some(b) => disks.with_buses(
            BusConfig {
                rate: b.rate,
                command: b.command.sim(),
                disconnect: b.disconnect,
                buffered: b.buffered,
                arbitration: b.arbitration,
            },
            s.disks_per_node,
            b.disks_per_bus.unwrap_or(s.disks_per_node),
        ),
    }
}

/// `[server.replication] prefix`, a count of fragments, fits every object (the scenario's
/// check could only bound their lengths), and, with `[server] interface_memory`, a dedicated
/// interface node's memory holds the largest object's prefix beside the buffers of every
/// stream (LMSS runs without admission control, and the manager may send any share of the
/// viewings to one dedicated node).
fn check_prefix(
    scenario: &Scenario,
    r: &super::spec::ReplicationSection,
    blocks: &[u32],
) -> Result<(), ScenarioError> {
    let invalid = |key: &str, message: String| ScenarioError::Invalid {
        file: scenario.path.clone(),
        line: scenario
            .source
            .line_of_key(key)
            .or_else(|| scenario.source.line_of_key("server.replication")),
        key: key.into(),
        message,
    };
    let f = &scenario.file;
    if let (Some(p), Some(memory), super::spec::Scheme::Lmss) =
        (r.prefix, f.server.interface_memory, r.scheme)
    {
        let (v, most) = blocks
            .iter()
            .enumerate()
            .map(|(v, &b)| (v, p.of(u64::from(b)).min(u64::from(b))))
            .max_by_key(|&(v, n)| (n, std::cmp::Reverse(v)))
            .unwrap_or((0, 0));
        let prefix = most.saturating_mul(f.server.stripe.0);
        let count = u64::from(f.terminals.count);
        let buffers = count.saturating_mul(f.terminals.memory.0);
        let need = prefix.saturating_add(buffers);
        if need > memory.0 {
            let size = crate::units::fmt_bytes;
            return Err(invalid(
                "server.interface_memory",
                format!(
                    "{} cannot hold a dedicated interface node's prefix and buffers: video \
                     {v}'s prefix is {most} fragments of server.stripe {} = {} \
                     (server.replication.prefix), and the {count} streams, any share of which \
                     the object manager may send there, need {count} × terminals.memory {} = \
                     {}; raise it to at least {}, or give a smaller prefix",
                    size(memory.0),
                    size(f.server.stripe.0),
                    size(prefix),
                    size(f.terminals.memory.0),
                    size(buffers),
                    size(need)
                ),
            ));
        }
    }
    let Some(crate::units::Portion::Count(c)) = r.prefix else {
        return Ok(());
    };
    let Some((v, &b)) = blocks.iter().enumerate().min_by_key(|(_, b)| **b) else {
        return Ok(());
    };
    if c <= u64::from(b) {
        return Ok(());
    }
    Err(invalid(
        "server.replication.prefix",
        format!(
            "is {c} fragments, larger than the object: video {v} has {b} (server.stripe \
             blocks); give at most {b}, or a share such as \"50%\""
        ),
    ))
}

/// Checks that a terminal's memory can hold every frame of the library together with the
/// stripe blocks it spans (see [`VideoLibrary::memory_needed`]); otherwise a terminal would
/// wait forever for a block it has no room to request.
fn check_terminal_memory(scenario: &Scenario, lib: &VideoLibrary) -> Result<(), ScenarioError> {
    check_terminal_need(scenario, lib.memory_needed(scenario.file.server.stripe.0))
}

/// [`check_terminal_memory`] against `need`, the frame needing the most memory (of the
/// library, or of a part of it: a lower bound).
fn check_terminal_need(scenario: &Scenario, need: FrameNeed) -> Result<(), ScenarioError> {
    let f = &scenario.file;
    let block = f.server.stripe.0;
    // reading in rounds, the set holding the frame's last block may reach `blocks - 1`
    // blocks past it, and it is asked for only when all of it fits beside the frame
    let set = f
        .terminals
        .rounds
        .as_ref()
        .map_or(1, |r| u64::from(r.blocks));
    let needed = need.bytes.saturating_add((set - 1).saturating_mul(block));
    let memory = f.terminals.memory.0;
    if memory >= needed {
        return Ok(());
    }
    let size = crate::units::fmt_bytes;
    let rounds = if set > 1 {
        format!(
            ", and reading {set} blocks a round (terminals.rounds.blocks) the {} more blocks \
             of the round that block may open: {needed} bytes",
            set - 1
        )
    } else {
        String::new()
    };
    let message = format!(
        "{} cannot display frame {} of video {}: a terminal must hold that frame's {} bytes \
         together with the rest of the {} stripe blocks it spans, {} bytes in all{rounds}; must \
         be at least {needed} bytes for these videos and this stripe (or choose a smaller \
         stripe)",
        size(memory),
        need.frame,
        need.video,
        need.frame_bytes,
        size(block),
        need.bytes,
    );
    Err(scenario.source.at("terminals.memory", message))
}

/// Builds what a run of `scenario` builds — the video library, every disk model and
/// scheduler, the layout, the prefetcher, the interconnect, admission control and the
/// buffer pools — without simulating, and reports the first thing that cannot be built, at
/// its key in the scenario file. `vodbench check`, `search` and `sweep` run this before
/// anything else.
pub fn check_buildable(scenario: &Scenario) -> Result<(), ScenarioError> {
    let none: &[TraceEvent] = &[];
    Engine::build(
        scenario,
        Box::new(none.iter().map(|e| Ok(*e))),
        &Digest::of(none),
        SimOptions::default(),
    )
    .map(|_| ())
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
    simulate_stream(
        scenario,
        Box::new(events.iter().map(|e| Ok(*e))),
        &Digest::of(events),
        progress,
        opts,
    )
}

/// [`simulate_with`] over a stream of events (a [`Workload`](super::workload::Workload)'s),
/// taken one at a time as the run reaches them; `digest` must be the digest of the whole
/// stream ([`Digest`]: which terminals start and when, whether any event is a search). An
/// error in the stream ends the run with it.
pub fn simulate_stream(
    scenario: &Scenario,
    events: Events<'_>,
    digest: &Digest,
    progress: ClockProgress<'_>,
    opts: SimOptions<'_>,
) -> Result<RunResults, SimError> {
    let mut engine = Engine::build(scenario, events, digest, opts)?;
    engine.run(progress);
    if let Some(e) = engine.faults.take() {
        return Err(e.attributed(&scenario.plugins.chosen));
    }
    Ok(engine.results())
}

/// δ_S (Jadav et al. eq. 1 and §5.1–5.2): the playout time of the data one service round
/// fetches, B_I = `[terminals.rounds] blocks` × P_S, at the videos' bit rate; without rounds,
/// the playout time of a terminal's whole buffer (`terminals.memory`), ns rounded down.
fn round_time(scenario: &Scenario, block_bytes: u64) -> SimDuration {
    let f = &scenario.file;
    let bytes = match &f.terminals.rounds {
        Some(r) => u64::from(r.blocks) * block_bytes,
        None => f.terminals.memory.0,
    };
    let bps = u128::from(f.videos.bit_rate.0.max(1));
    let ns = u128::from(bytes) * 8 * 1_000_000_000 / bps;
    SimDuration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
}

/// `[server.message_work]`'s costs of one message at one end.
fn message_cost(m: &super::spec::MessageWorkSection) -> MessageCost {
    MessageCost {
        per_message: m.per_message.sim(),
        copy_rate: m.copy_rate,
    }
}
