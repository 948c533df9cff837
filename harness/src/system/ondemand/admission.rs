//! Admission control (Jadav et al. §5, §7; Pappas et al. §3.3): the [`Admission`] plugin
//! decides, at each workload `start`, whether the stream is served; this component counts
//! the active streams it promises the plugin, and what it measured — requests, admissions,
//! refusals by reason, and the streams active at once (`summary.json`'s `admission`, when
//! the scenario has an `[admission]` table).
//!
//! A plugin that [observes](Admission::observes) (eq. 5, `retrieval`) is told where the
//! requested video lives (the storage nodes holding any of its blocks, from the layout) and
//! δ_S, and may name storage nodes to probe before it decides (§7.2: "the candidate I node
//! sends a dummy request to the remaining S nodes storing the requested stream. Each S node
//! sends a dummy data packet of size P_S"). Each probe is a request message from the stream's
//! interface node to the storage node and a reply of P_S bytes back, both real messages on
//! the interconnect (they wait for links and hold them); the storage node answers as soon as
//! the request arrives, without its CPU or disks. The decision waits until every reply is
//! back (the terminal's later events wait behind it, and the stream's start-up latency counts
//! from its request); the probes, their bytes and round trips are counted (`admission.probes`, and
//! `network.probe_messages` / `probe_bytes` among the interconnect's messages).
//!
//! Memory is not a policy: with `[server] interface_memory` (Jadav et al.'s B_I_tot) a stream
//! the policy admits is still refused (reason `interface_memory`) when its buffer does not fit
//! in its interface node's memory beside the buffers of the streams that node serves, so no
//! interface node ever holds more than it has, whatever the policy (`buffer`, eq. 4, makes the
//! same check when its B_I_tot is that memory, and then refuses first, as `buffer space`).

use super::measure::Window;
use super::stats::{DurStat, Level};
use crate::ids::{BlockId, NodeId, TerminalId, VideoId};
use crate::plugin::{Admission, Fetch, Layout, Placement, ServerLoad, StreamRequest, Verdict};
use crate::results::{AdmissionSummary, ProbeSummary};
use crate::time::{SimDuration, SimTime};
use std::collections::BTreeMap;

/// What [`AdmissionControl::request`] answers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Decision {
    Admit,
    Refuse,
    /// Probes are on their way ([`AdmissionControl::probes_to_send`]); the decision comes
    /// when the last reply is back ([`AdmissionControl::probe_back`]).
    Probing,
}

/// A probe on its way.
#[derive(Copy, Clone)]
struct Probe {
    terminal: u32,
    node: u32,
    sent: SimTime,
}

/// A request waiting for its probes.
#[derive(Copy, Clone)]
struct Waiting {
    request: StreamRequest,
    outstanding: u32,
}

/// The admission policy and the streams it admitted.
pub(super) struct AdmissionControl {
    plugin: Box<dyn Admission>,
    name: &'static str,
    /// Whether the summary reports it (the scenario has `[admission]`).
    reported: bool,
    /// Whether the plugin observes fetches and probes.
    observes: bool,
    terminals: u32,
    /// Each stream's buffer, and the interface nodes streams are dealt to (0: none).
    buffer_bytes: u64,
    interfaces: u32,
    /// `server.interface_memory` (0: not declared), told to the plugin and enforced.
    interface_memory: u64,
    /// With `interface_memory`: the buffer bytes each interface node holds for the streams it
    /// serves, and the interface node each terminal's admitted stream is charged to.
    interface_held: Vec<u64>,
    charged: Vec<Option<u32>>,
    /// δ_S and P_S, told to an observing plugin.
    round: SimDuration,
    fragment_bytes: u64,
    /// Each video's holders (storage nodes), found in the layout when first asked for.
    holders: Vec<Option<Vec<NodeId>>>,
    /// Requests waiting for probes, by terminal.
    waiting: Vec<Option<Waiting>>,
    probes: super::requests::Arena<Probe>,
    /// Probes named by the plugin for the request being decided: (probe slot, node).
    to_send: Vec<(u32, u32)>,
    scratch: Vec<NodeId>,
    active: Level,
    /// `server.stream_memory` with `[server.rounds]`: (the cap, each stream's reservation).
    stream_memory: Option<(u64, u64)>,
    /// Starts the stream memory's cap refused over the whole run (warm-up included).
    memory_refused: u64,
    // measured
    requests: u64,
    admitted: u64,
    refused: u64,
    by_reason: BTreeMap<&'static str, u64>,
    events_dropped: u64,
    probe_rtt: DurStat,
}

/// How the engine is set up, as admission needs it.
pub(super) struct AdmissionSetup {
    pub reported: bool,
    pub terminals: u32,
    /// `server.stream_memory`: (the cap, each stream's reservation: 2S for `dblbuf`, S for
    /// `clbuf`; Pappas et al. §4, M1/M2).
    pub stream_memory: Option<(u64, u64)>,
    pub buffer_bytes: u64,
    pub interfaces: u32,
    /// `server.interface_memory` in bytes (0: not declared).
    pub interface_memory: u64,
    /// δ_S.
    pub round: SimDuration,
    /// P_S.
    pub fragment_bytes: u64,
    pub videos: usize,
}

impl AdmissionControl {
    pub fn new(plugin: Box<dyn Admission>, name: &'static str, s: AdmissionSetup) -> Self {
        let observes = plugin.observes();
        AdmissionControl {
            plugin,
            name,
            reported: s.reported,
            observes,
            terminals: s.terminals,
            buffer_bytes: s.buffer_bytes,
            interfaces: s.interfaces,
            interface_memory: s.interface_memory,
            interface_held: if s.interface_memory > 0 {
                vec![0; s.interfaces as usize]
            } else {
                Vec::new()
            },
            charged: Vec::new(),
            round: s.round,
            fragment_bytes: s.fragment_bytes,
            holders: if observes {
                vec![None; s.videos]
            } else {
                Vec::new()
            },
            waiting: Vec::new(),
            probes: super::requests::Arena::new(),
            to_send: Vec::new(),
            scratch: Vec::new(),
            active: Level::default(),
            stream_memory: s.stream_memory,
            memory_refused: 0,
            requests: 0,
            admitted: 0,
            refused: 0,
            by_reason: BTreeMap::new(),
            events_dropped: 0,
            probe_rtt: DurStat::new(),
        }
    }

    /// Whether the plugin observes fetches and probes (the engine then notes every fetch's
    /// storage-node time and calls [`AdmissionControl::fetched`]).
    #[inline]
    pub fn observes(&self) -> bool {
        self.observes
    }

    /// Opens the measured window.
    pub fn open(&mut self, now: SimTime) {
        self.active.open(now);
    }

    /// Terminal `t` asks for `video` (of `bit_rate` bits/s, `blocks` blocks, placed by
    /// `layout`) at `now`, its viewing delegated to interface node `interface` (an index
    /// among them; ignored without interface nodes): admitted, refused, or waiting for probes.
    #[allow(clippy::too_many_arguments)]
    pub fn request(
        &mut self,
        t: u32,
        interface: u32,
        video: u32,
        bit_rate: u64,
        blocks: u32,
        layout: &dyn Layout,
        now: SimTime,
        w: &Window,
    ) -> Decision {
        let request = StreamRequest {
            terminal: TerminalId(t),
            video: VideoId(video),
            bit_rate,
            buffer_bytes: self.buffer_bytes,
            interface: (self.interfaces > 0).then_some(interface),
            now,
        };
        if self.observes {
            let v = video as usize;
            if self.holders.len() <= v {
                self.holders.resize(v + 1, None);
            }
            let holders = self.holders[v].get_or_insert_with(|| {
                let mut h: Vec<NodeId> = (0..blocks)
                    .map(|index| {
                        layout
                            .locate(BlockId {
                                video: VideoId(video),
                                index,
                            })
                            .node
                    })
                    .collect();
                h.sort_unstable();
                h.dedup();
                h
            });
            let placement = Placement::new(holders, self.round, self.fragment_bytes);
            self.scratch.clear();
            self.plugin.probe(&request, &placement, &mut self.scratch);
            self.scratch.sort_unstable();
            self.scratch.dedup();
            if !self.scratch.is_empty() {
                self.to_send.clear();
                for j in 0..self.scratch.len() {
                    let node = self.scratch[j].0;
                    let slot = self.probes.put(Probe {
                        terminal: t,
                        node,
                        sent: now,
                    });
                    self.to_send.push((slot, node));
                }
                let i = t as usize;
                if self.waiting.len() <= i {
                    self.waiting.resize(i + 1, None);
                }
                self.waiting[i] = Some(Waiting {
                    request,
                    outstanding: self.to_send.len() as u32,
                });
                return Decision::Probing;
            }
        }
        self.decide(&request, now, w)
    }

    /// The probes the last [`AdmissionControl::request`] answered `Probing` for: (probe,
    /// storage node).
    pub fn probes_to_send(&self) -> &[(u32, u32)] {
        &self.to_send
    }

    /// Probe `slot`'s storage node and its interface's terminal (whose endpoint it answers).
    pub fn probe_target(&self, slot: u32) -> (u32, u32) {
        let p = self.probes.slots[slot as usize];
        (p.terminal, p.node)
    }

    /// Probe `slot`'s reply is back at `now`: when it was the request's last, the decision
    /// (terminal, admitted).
    pub fn probe_back(&mut self, slot: u32, now: SimTime, w: &Window) -> Option<(u32, bool)> {
        let p = self.probes.slots[slot as usize];
        self.probes.release(slot);
        let rtt = now.saturating_since(p.sent);
        if w.measuring {
            self.probe_rtt.record(rtt.as_nanos());
        }
        let t = p.terminal as usize;
        let waiting = self.waiting[t]
            .as_mut()
            .expect("a probe of a waiting request");
        let request = waiting.request;
        self.plugin.probed(&request, NodeId(p.node), rtt);
        waiting.outstanding -= 1;
        if waiting.outstanding > 0 {
            return None;
        }
        self.waiting[t] = None;
        let request = StreamRequest { now, ..request };
        let d = self.decide(&request, now, w);
        Some((p.terminal, d == Decision::Admit))
    }

    fn decide(&mut self, request: &StreamRequest, now: SimTime, w: &Window) -> Decision {
        let load = ServerLoad {
            active_streams: self.active.level() as u32,
            terminals: self.terminals,
            interface_memory: self.interface_memory,
        };
        // the stream memory's cap comes first: a stream whose reservation does not fit is
        // refused whatever the policy would say
        let verdict = match self.stream_memory {
            Some((cap, per)) if (self.active.level() + 1).saturating_mul(per) > cap => {
                self.memory_refused += 1;
                Verdict::Refuse {
                    reason: "stream_memory",
                }
            }
            _ => self.plugin.admit(request, &load),
        };
        // the interface node's memory comes after the policy: it may not admit a stream
        // whose buffer its interface node cannot hold
        let verdict = match (verdict, request.interface) {
            (Verdict::Admit, Some(i)) if !self.interface_held.is_empty() => {
                let held = &mut self.interface_held[i as usize];
                if held.saturating_add(self.buffer_bytes) > self.interface_memory {
                    // the policy admitted it: it forgets the stream at once
                    self.plugin.ended(request.terminal, now);
                    Verdict::Refuse {
                        reason: "interface_memory",
                    }
                } else {
                    *held += self.buffer_bytes;
                    let t = request.terminal.index();
                    if self.charged.len() <= t {
                        self.charged.resize(t + 1, None);
                    }
                    self.charged[t] = Some(i);
                    Verdict::Admit
                }
            }
            (v, _) => v,
        };
        if w.measuring {
            self.requests += 1;
        }
        match verdict {
            Verdict::Admit => {
                if w.measuring {
                    self.admitted += 1;
                }
                let n = self.active.level() + 1;
                self.active.set(now, n, w.span);
                Decision::Admit
            }
            Verdict::Refuse { reason } => {
                if w.measuring {
                    self.refused += 1;
                    *self.by_reason.entry(reason).or_insert(0) += 1;
                }
                Decision::Refuse
            }
        }
    }

    /// A fragment was fetched (only when the plugin observes).
    #[inline]
    pub fn fetched(&mut self, fetch: &Fetch) {
        self.plugin.fetched(fetch);
    }

    /// The stream terminal `t` was admitted for ended at `now`.
    pub fn ended(&mut self, t: u32, now: SimTime, w: &Window) {
        if let Some(i) = self.charged.get_mut(t as usize).and_then(Option::take) {
            self.interface_held[i as usize] -= self.buffer_bytes;
        }
        let n = self.active.level().saturating_sub(1);
        self.active.set(now, n, w.span);
        self.plugin.ended(TerminalId(t), now);
    }

    /// Starts the stream memory's cap refused over the whole run.
    pub fn memory_refused(&self) -> u64 {
        self.memory_refused
    }

    /// A workload event of a refused viewing was dropped.
    pub fn dropped(&mut self, w: &Window) {
        if w.measuring {
            self.events_dropped += 1;
        }
    }

    /// The summary's `admission` section (when the scenario has `[admission]`), the window
    /// closed at `w1` after `measured` ns.
    pub fn report(
        &mut self,
        w1: SimTime,
        window: (SimTime, SimTime),
        measured: u64,
    ) -> Option<AdmissionSummary> {
        let (integral, peak) = self.active.close(w1, window);
        self.reported.then(|| AdmissionSummary {
            policy: self.name.to_string(),
            requests: self.requests,
            admitted: self.admitted,
            refused: self.refused,
            refused_by_reason: self
                .by_reason
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            events_dropped: self.events_dropped,
            active_streams_mean: if measured > 0 {
                integral as f64 / measured as f64
            } else {
                0.0
            },
            active_streams_peak: peak,
            probes: self.observes.then(|| ProbeSummary {
                probes: self.probe_rtt.count(),
                round_trip: self.probe_rtt.stat(),
            }),
        })
    }
}

impl AdmissionControl {
    /// Admission control from `[admission]` (its policy) and the memory it admits streams
    /// against: the interface nodes' (`[server] interface_memory`) and, under
    /// `[server.rounds]`, the server's (`[server] stream_memory`).
    pub(super) fn build(
        setup: &super::setup::Setup<'_>,
    ) -> Result<Self, super::scenario::ScenarioError> {
        use super::scenario::{Release, ADMISSION};
        let chosen = setup.scenario.plugins.required(&ADMISSION);
        let plugin = chosen
            .build(&setup.context(ADMISSION.key, 0))
            .map_err(setup.plugin_error(ADMISSION.key, chosen.name))?;
        let f = &setup.scenario.file;
        let s = &f.server;
        Ok(AdmissionControl::new(
            plugin,
            chosen.name,
            AdmissionSetup {
                reported: f.admission.is_some() || s.stream_memory.is_some(),
                terminals: setup.scenario.terminals(),
                // a stream's reservation: 2S under dblbuf, S under clbuf; none under
                // clbufrate, whose reads wait for buffers under the cap instead
                stream_memory: s
                    .stream_memory
                    .zip(s.rounds.as_ref())
                    .and_then(|(cap, r)| match r.release {
                        Release::Dblbuf => Some((cap.0, 2 * s.stripe.0)),
                        Release::Clbuf => Some((cap.0, s.stripe.0)),
                        Release::Clbufrate => None,
                    }),
                buffer_bytes: f.terminals.memory.0,
                interfaces: s.interface_nodes,
                interface_memory: s.interface_memory.map_or(0, |m| m.0),
                round: round_time(setup.scenario, setup.block_bytes),
                fragment_bytes: setup.block_bytes,
                videos: f.videos.count as usize,
            },
        ))
    }
}

/// δ_S (Jadav et al. eq. 1 and §5.1–5.2): the playout time of the data one service round
/// fetches, B_I = `[terminals.rounds] blocks` × P_S, at the videos' bit rate; without rounds,
/// the playout time of a terminal's whole buffer (`terminals.memory`), ns rounded down.
fn round_time(scenario: &super::scenario::Scenario, block_bytes: u64) -> SimDuration {
    let f = &scenario.file;
    let bytes = match &f.terminals.rounds {
        Some(r) => u64::from(r.blocks) * block_bytes,
        None => f.terminals.memory.0,
    };
    let bps = u128::from(f.videos.bit_rate.0.max(1));
    let ns = u128::from(bytes) * 8 * 1_000_000_000 / bps;
    SimDuration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
}
