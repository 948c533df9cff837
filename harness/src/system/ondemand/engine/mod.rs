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

use super::admission::AdmissionControl;
use super::clients::{self, Clients};
use super::continuity::{Arrival, Continuity};
use super::delays::Delays;
use super::disk::Disks;
use super::disk_stations::DiskStations;
use super::egress::{self, Egress, Next};
use super::error::{Faults, SimError};
use super::event::{Ev, NONE};
use super::interface_cpu::{self, IfaceJob, InterfaceCpus};
use super::measure::{Period, Sample, Series, Window};
use super::message_work::{self, MessageHandlers, MessageJob};
use super::network::Network;
use super::node::{CpuJob, Lookup, Nodes};
use super::ports::Ports;
use super::prefetch::{Prefetching, MAX_CANDIDATES_PER_POLL};
use super::queue::EventQueue;
use super::replication::Replication;
use super::requests::{DReq, Requests};
use super::rounds::{self, Rounds};
use super::scenario::Release;
use super::scenario::{Scenario, ScenarioError, Warmup};
use super::setup::Setup;
use super::storage_thread::{Busy, StorageThreads};
use super::stream_memory::StreamMemory;
use super::terminal::Terminals;
use super::video::LibraryMemo;
use super::workload::{Digest, Events};
use crate::ids::{DiskId, NodeId, TerminalId};
use crate::plugin::{Endpoint, Fetch, Layout, PrefetchPoll, ReadyBlock, Reference, RequestClass};
use crate::results::stream_memory::{BufferWaits, StreamMemorySummary};
use crate::results::{Conservation, RunResults, Summary, TerminalBuffers};
use crate::time::{SimDuration, SimTime};
use crate::trace::TraceEvent;

mod delivery;
mod prefetch_path;
mod read_path;
mod report;
mod send_path;

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
    /// The server of `scenario`, each component built from its own sections of the
    /// scenario, in the order in which their errors are reported.
    fn build(
        scenario: &'a Scenario,
        events: Events<'a>,
        digest: &Digest,
        opts: SimOptions<'_>,
    ) -> Result<Engine<'a>, ScenarioError> {
        let f = &scenario.file;
        let lib = Terminals::library(scenario, opts.memo)?;
        let setup = Setup::new(scenario, &lib);
        let mut stations = DiskStations::build(&setup)?;
        let repl = Replication::build(&setup)?;
        if let Some(r) = &repl {
            stations.add_local(&setup, r)?;
        }
        let layout = setup.layout(stations.geometry())?;
        let prefetch = Prefetching::build(&setup, stations.geometry())?;
        let mut net = Network::build(&setup)?;
        let admission = AdmissionControl::build(&setup)?;
        net.count_probes = admission.observes();
        let egress = egress::build(&setup)?;
        let nodes = Nodes::build(&setup)?;
        let block_bytes = setup.block_bytes;
        Ok(Engine {
            scenario,
            q: EventQueue::new(),
            period: Period {
                w: Window::closed(),
                end: None,
                duration: f.run.duration.sim(),
                figures_only: opts.search_figures_only,
            },
            terms: Terminals::build(setup, lib, events, digest),
            nodes,
            disks: stations.into_disks(scenario, opts.search_figures_only),
            net,
            prefetch,
            admission,
            delays: Delays::new(f.run.request_delays),
            continuity: Continuity::new(
                f.run.continuity,
                scenario.terminals(),
                f.videos.bit_rate.0,
            ),
            iface_cpu: interface_cpu::build(scenario),
            msg_work: message_work::build(scenario),
            egress,
            rounds: rounds::build(scenario),
            repl,
            storage_disks: scenario.disks() as usize,
            threads: StorageThreads::new(f.server.storage_threading, f.server.nodes),
            reqs: Requests::new(),
            layout,
            layout_name: scenario.plugins.required(&super::scenario::LAYOUT).name,
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
        return Err(e.attributed(scenario.plugins.chosen()));
    }
    Ok(engine.results())
}
