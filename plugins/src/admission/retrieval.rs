//! `retrieval`: Jadav et al.'s retrieval-capacity condition (§7.2, eq. 5, Fig. 12). Interface
//! node i admits a new stream only if the largest current average time to obtain one fragment
//! (P_S bytes) from the storage nodes j holding the stream's data stays below the time one
//! service round's data lasts, less the node's operating-system overhead:
//!
//! ```text
//!     max_j w_ij < δ_S − δ_ov
//! ```
//!
//! * **w_ij from the I node's history.** When i has fetched fragments from j, w_ij is the
//!   mean of its last m round trips from j (request sent → data in, queueing and blocking
//!   included: the delay components' R_tot), m = `history` ("the average of the last m time
//!   delays to retrieve fragments from S_j").
//! * **w_ij from a probe, without history.** For a holder i has no history with, the policy
//!   asks the engine to probe j: a dummy request from i and a dummy reply of P_S bytes back,
//!   real messages on the interconnect. w_ij is then the probe's round trip (the paper's
//!   "network cost of retrieval", δ_rq plus the transfer of P_S with its blocking) plus j's own
//!   estimate sent in the reply: the mean of the storage-side times (disk-queue wait and
//!   disk service) of j's last m fragment retrievals for any interface node. A storage node
//!   that has retrieved nothing yet estimates 0 (nothing waits at it) — the paper does not
//!   say; this is the reading. The probe's own time is not added to any history: it fetches
//!   no fragment.
//! * **δ_S** is the playout time of one round's fragment set, B_I = S·P_S at the stream's
//!   rate (eq. 1, §5.1–5.2; the engine's [`Placement::round`]: `[terminals.rounds] blocks` ×
//!   P_S — not the terminal's whole memory, which may hold two sets). **δ_ov** is `overhead`
//!   (not given by the paper; the reading of `../shared/papers/notes/jadav.md` §4.11 is 5 ms,
//!   the default). A δ_ov at or above δ_S leaves no room: every stream is refused.
//! * **The holders** are the storage nodes holding any block of the video (the layout's
//!   placement, Fig. 12's S_1, S_3, S_4, S_6); the candidate I node is the stream's
//!   ([`StreamRequest::interface`]; node 0 without interface nodes).
//! * The history has no age limit: the last m fetches count however long ago they were (the
//!   paper gives none; "recent" is the window of m).
//!
//! With `buffer = B_I_tot` the policy also checks eq. 4 as `buffer` does (§7.1: "an interface
//! node can accept a new client request if the following conditions are satisfied", both):
//! eq. 4 is checked first and a refusal is counted as `buffer space`, otherwise as
//! `retrieval capacity`. An engine that never tells the policy the placement (it does not
//! call [`Admission::probe`]) leaves eq. 5 without a measurement: the stream is admitted on
//! it.

use super::buffer::Buffer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::ids::{NodeId, TerminalId};
use vodbench_plugin_api::plugin::{
    Admission, BuildContext, Fetch, Placement, Plugin, PluginError, ServerLoad, StreamRequest,
    Verdict,
};
use vodbench_plugin_api::time::{SimDuration, SimTime};
use vodbench_plugin_api::units::{Bytes, Duration};

/// The reason counted for an eq. 5 refusal.
pub const REASON: &str = "retrieval capacity";

/// Most fetches a history may hold.
const MAX_HISTORY: u32 = 1_000_000;

/// `retrieval`'s parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RetrievalParams {
    /// m: the fetches each average is taken over, per (interface node, storage node) and per
    /// storage node (1..=1000000; default 16, the reading of the notes §4.11: the paper leaves
    /// it open).
    pub history: u32,
    /// δ_ov: the interface node's operating-system overhead, taken off δ_S (default 5ms; at
    /// most 1h).
    pub overhead: Duration,
    /// B_I_tot: check eq. 4 (the `buffer` policy's `total`) as well; absent: eq. 5 only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Bytes>,
}

impl Default for RetrievalParams {
    fn default() -> Self {
        RetrievalParams {
            history: 16,
            overhead: Duration(5_000_000),
            buffer: None,
        }
    }
}

/// The last m values and their sum.
#[derive(Debug, Clone, Default)]
struct Recent {
    values: Vec<u64>,
    /// Where the next value goes once `values` is full.
    next: usize,
    sum: u128,
}

impl Recent {
    fn push(&mut self, m: usize, v: u64) {
        if self.values.len() < m {
            self.values.push(v);
        } else {
            self.sum -= u128::from(self.values[self.next]);
            self.values[self.next] = v;
            self.next = (self.next + 1) % m;
        }
        self.sum += u128::from(v);
    }

    /// The mean, rounded down; `None` without values.
    fn mean(&self) -> Option<u64> {
        (!self.values.is_empty()).then(|| (self.sum / self.values.len() as u128) as u64)
    }
}

/// A request between [`Admission::probe`] and [`Admission::admit`].
#[derive(Debug, Clone, Default)]
struct Asking {
    holders: Vec<NodeId>,
    round: SimDuration,
    /// w_ij of the probed holders.
    probed: Vec<(NodeId, u64)>,
}

/// Eq. 5 (and eq. 4 with `buffer`).
#[derive(Debug)]
pub struct Retrieval {
    m: usize,
    overhead: SimDuration,
    buffer: Option<Buffer>,
    /// Round trips of the last m fetches, by interface node then storage node.
    fetches: Vec<Vec<Recent>>,
    /// Storage-side times of each storage node's last m retrievals.
    at_storage: Vec<Recent>,
    /// Requests being decided, by terminal.
    asking: Vec<Option<Asking>>,
}

impl Retrieval {
    fn new(p: &RetrievalParams, interfaces: u32, terminals: u32) -> Self {
        Retrieval {
            m: p.history as usize,
            overhead: p.overhead.sim(),
            buffer: p
                .buffer
                .map(|b| Buffer::new(Some(b.0), interfaces, terminals)),
            fetches: Vec::new(),
            at_storage: Vec::new(),
            asking: Vec::new(),
        }
    }

    /// I node `i`'s mean round trip from storage node `j`, if it has fetched from it.
    fn history(&self, i: usize, j: NodeId) -> Option<u64> {
        self.fetches.get(i)?.get(j.index())?.mean()
    }

    /// Eq. 5 for `r`: `Ok` or the largest w_ij and the limit.
    fn eq5(&self, r: &StreamRequest) -> Result<(), (u64, u64)> {
        let Some(Some(a)) = self.asking.get(r.terminal.index()) else {
            return Ok(());
        };
        let i = r.interface.map_or(0, |i| i as usize);
        let w = a
            .holders
            .iter()
            .filter_map(|&j| {
                self.history(i, j)
                    .or_else(|| a.probed.iter().find(|(n, _)| *n == j).map(|&(_, w)| w))
            })
            .max();
        let limit = a.round.as_nanos().saturating_sub(self.overhead.as_nanos());
        match w {
            Some(w) if w >= limit => Err((w, limit)),
            // no holder measured (an empty video) and room left: nothing says no
            None if limit == 0 => Err((0, 0)),
            _ => Ok(()),
        }
    }
}

impl Admission for Retrieval {
    fn admit(&mut self, r: &StreamRequest, load: &ServerLoad) -> Verdict {
        let eq5 = self.eq5(r);
        if let Some(a) = self.asking.get_mut(r.terminal.index()) {
            *a = None;
        }
        if let Some(b) = self.buffer.as_mut() {
            if b.admit(r, load) != Verdict::Admit {
                return Verdict::Refuse {
                    reason: "buffer space",
                };
            }
            if eq5.is_err() {
                // eq. 4 reserved the stream's buffer: give it back
                b.ended(r.terminal, r.now);
            }
        }
        match eq5 {
            Ok(()) => Verdict::Admit,
            Err(_) => Verdict::Refuse { reason: REASON },
        }
    }

    fn ended(&mut self, terminal: TerminalId, now: SimTime) {
        if let Some(b) = self.buffer.as_mut() {
            b.ended(terminal, now);
        }
    }

    fn observes(&self) -> bool {
        true
    }

    fn probe(&mut self, r: &StreamRequest, at: &Placement<'_>, probe: &mut Vec<NodeId>) {
        let i = r.interface.map_or(0, |i| i as usize);
        for &j in at.holders {
            if self.history(i, j).is_none() {
                probe.push(j);
            }
        }
        let t = r.terminal.index();
        if self.asking.len() <= t {
            self.asking.resize(t + 1, None);
        }
        self.asking[t] = Some(Asking {
            holders: at.holders.to_vec(),
            round: at.round,
            probed: Vec::new(),
        });
    }

    fn probed(&mut self, r: &StreamRequest, node: NodeId, round_trip: SimDuration) {
        // the storage node's estimate, sent back in its dummy reply
        let estimate = self
            .at_storage
            .get(node.index())
            .and_then(Recent::mean)
            .unwrap_or(0);
        if let Some(Some(a)) = self.asking.get_mut(r.terminal.index()) {
            a.probed
                .push((node, round_trip.as_nanos().saturating_add(estimate)));
        }
    }

    fn fetched(&mut self, f: &Fetch) {
        let (i, j) = (f.interface.map_or(0, |i| i as usize), f.storage.index());
        if self.fetches.len() <= i {
            self.fetches.resize(i + 1, Vec::new());
        }
        if self.fetches[i].len() <= j {
            self.fetches[i].resize(j + 1, Recent::default());
        }
        self.fetches[i][j].push(self.m, f.round_trip.as_nanos());
        if let Some(s) = f.at_storage {
            if self.at_storage.len() <= j {
                self.at_storage.resize(j + 1, Recent::default());
            }
            self.at_storage[j].push(self.m, s.as_nanos());
        }
    }
}

impl Plugin for Retrieval {
    type Kind = dyn Admission;
    type Params = RetrievalParams;
    const NAME: &'static str = "retrieval";
    const DESCRIPTION: &'static str =
        "admit a stream only if the largest recent average fragment fetch time from the \
         storage nodes holding it stays below delta_S - overhead, probing nodes without \
         history over the interconnect (Jadav et al. eq. 5; with buffer, eq. 4 too)";

    fn validate(p: &RetrievalParams) -> Result<(), PluginError> {
        if !(1..=MAX_HISTORY).contains(&p.history) {
            return Err(PluginError::param(
                "history",
                format!(
                    "must be in 1..={MAX_HISTORY} fetches (the m of Jadav eq. 5), got {}",
                    p.history
                ),
            ));
        }
        if p.overhead.0 > 3_600_000_000_000 {
            return Err(PluginError::param(
                "overhead",
                format!("must be at most 1h, got {}", p.overhead),
            ));
        }
        if p.buffer.is_some_and(|b| b.0 == 0) {
            return Err(PluginError::param(
                "buffer",
                "must be above 0 (no stream could be admitted), or left out for eq. 5 alone",
            ));
        }
        Ok(())
    }

    fn build(
        p: &RetrievalParams,
        ctx: &BuildContext<'_>,
    ) -> Result<Box<dyn Admission>, PluginError> {
        Ok(Box::new(Retrieval::new(p, ctx.interfaces, ctx.terminals)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::ids::VideoId;

    const MS: u64 = 1_000_000;

    fn req(t: u32, interface: u32) -> StreamRequest {
        StreamRequest {
            terminal: TerminalId(t),
            video: VideoId(t),
            bit_rate: 1_500_000,
            buffer_bytes: 300,
            interface: Some(interface),
            now: SimTime::ZERO,
        }
    }

    const LOAD: ServerLoad = ServerLoad {
        active_streams: 0,
        terminals: 8,
        interface_memory: 0,
    };

    fn policy(history: u32, overhead_ms: u64, buffer: Option<u64>) -> Retrieval {
        let p = RetrievalParams {
            history,
            overhead: Duration(overhead_ms * MS),
            buffer: buffer.map(Bytes),
        };
        Retrieval::validate(&p).unwrap();
        Retrieval::new(&p, 2, 8)
    }

    fn fetch(r: &mut Retrieval, i: u32, j: u32, rtt_ms: u64, at_ms: Option<u64>) {
        r.fetched(&Fetch::new(
            Some(i),
            NodeId(j),
            SimDuration::from_millis(rtt_ms),
            at_ms.map(SimDuration::from_millis),
            SimTime::ZERO,
        ));
    }

    /// Asks for `req` on `holders` with δ_S = `round_ms`: the nodes named for probing, then
    /// (after `replies` come back) the verdict.
    fn ask(
        r: &mut Retrieval,
        q: &StreamRequest,
        holders: &[u32],
        round_ms: u64,
        replies: &[(u32, u64)],
    ) -> (Vec<u32>, Verdict) {
        let holders: Vec<NodeId> = holders.iter().map(|&j| NodeId(j)).collect();
        let mut probe = Vec::new();
        let at = Placement::new(&holders, SimDuration::from_millis(round_ms), 65536);
        r.probe(q, &at, &mut probe);
        for &(j, rtt) in replies {
            r.probed(q, NodeId(j), SimDuration::from_millis(rtt));
        }
        (probe.iter().map(|n| n.0).collect(), r.admit(q, &LOAD))
    }

    const NO: Verdict = Verdict::Refuse { reason: REASON };

    /// The average runs over the last m fetches only: old slow ones fall out of it.
    #[test]
    fn the_average_is_over_the_last_m_fetches() {
        let mut r = policy(3, 0, None);
        for rtt in [900, 900, 900] {
            fetch(&mut r, 0, 5, rtt, None);
        }
        // mean 900 ≥ 500: refused
        assert_eq!(ask(&mut r, &req(0, 0), &[5], 500, &[]), (vec![], NO));
        // two fast fetches: (900 + 100 + 100) / 3 = 366 < 500
        fetch(&mut r, 0, 5, 100, None);
        fetch(&mut r, 0, 5, 100, None);
        assert_eq!(
            ask(&mut r, &req(0, 0), &[5], 500, &[]),
            (vec![], Verdict::Admit)
        );
        // a third: the last slow one is gone, (100+100+100)/3
        fetch(&mut r, 0, 5, 100, None);
        assert_eq!(r.history(0, NodeId(5)), Some(100 * MS));
        // m = 1: only the last
        let mut one = policy(1, 0, None);
        fetch(&mut one, 0, 2, 10, None);
        fetch(&mut one, 0, 2, 40, None);
        assert_eq!(one.history(0, NodeId(2)), Some(40 * MS));
    }

    /// The largest w_ij over the holders decides; nodes that do not hold the video, and
    /// other interface nodes' histories, do not count.
    #[test]
    fn the_max_over_the_holders_decides() {
        let mut r = policy(4, 0, None);
        for (j, rtt) in [(1, 100), (3, 300), (4, 450), (6, 200)] {
            fetch(&mut r, 1, j, rtt, None);
        }
        fetch(&mut r, 1, 2, 5000, None); // not a holder
        fetch(&mut r, 0, 4, 5000, None); // another interface node's
        let q = req(3, 1);
        assert_eq!(
            ask(&mut r, &q, &[1, 3, 4, 6], 460, &[]),
            (vec![], Verdict::Admit)
        );
        assert_eq!(ask(&mut r, &q, &[1, 3, 4, 6], 450, &[]), (vec![], NO));
        // Fig. 12 without node 4: max 300
        assert_eq!(
            ask(&mut r, &q, &[1, 3, 6], 301, &[]),
            (vec![], Verdict::Admit)
        );
    }

    /// The check is strict, and δ_ov comes off δ_S.
    #[test]
    fn the_threshold_is_round_less_overhead_strictly() {
        let mut r = policy(2, 5, None);
        fetch(&mut r, 0, 0, 95, None);
        // 95 < 100 − 5 is false
        assert_eq!(ask(&mut r, &req(0, 0), &[0], 100, &[]), (vec![], NO));
        assert_eq!(
            ask(&mut r, &req(0, 0), &[0], 101, &[]),
            (vec![], Verdict::Admit)
        );
        // δ_ov ≥ δ_S: no room at all
        let mut r = policy(2, 200, None);
        fetch(&mut r, 0, 0, 1, None);
        assert_eq!(ask(&mut r, &req(0, 0), &[0], 100, &[]), (vec![], NO));
    }

    /// Without history the holders are probed; w_ij is the probe's round trip plus the
    /// storage node's mean over its last m retrievals (0 when it has none).
    #[test]
    fn holders_without_history_are_probed() {
        let mut r = policy(2, 0, None);
        let q = req(2, 0);
        // nothing known: every holder is probed
        let (probe, v) = ask(&mut r, &q, &[0, 1], 100, &[(0, 30), (1, 40)]);
        assert_eq!((probe, v), (vec![0, 1], Verdict::Admit));
        // node 1 served interface 1 slowly at the disk: 50 and 70 → its estimate is 60;
        // interface 0 has no history with node 1, so it probes it: 40 + 60 = 100 ≥ 100
        fetch(&mut r, 1, 1, 80, Some(50));
        fetch(&mut r, 1, 1, 90, Some(70));
        let (probe, v) = ask(&mut r, &q, &[0, 1], 100, &[(0, 30), (1, 40)]);
        assert_eq!((probe, v), (vec![0, 1], NO));
        // interface 0's own history with node 0 spares that probe
        fetch(&mut r, 0, 0, 20, Some(10));
        let (probe, v) = ask(&mut r, &q, &[0, 1], 101, &[(1, 40)]);
        assert_eq!((probe, v), (vec![1], Verdict::Admit));
        // a probe's round trip is not history: node 1 is probed again
        let (probe, _) = ask(&mut r, &q, &[0, 1], 101, &[(1, 40)]);
        assert_eq!(probe, vec![1]);
        // no placement told (an engine that does not probe): eq. 5 has nothing to refuse on
        let mut r = policy(2, 0, None);
        assert_eq!(r.admit(&q, &LOAD), Verdict::Admit);
    }

    /// With `buffer`, eq. 4 is checked first and names itself; a stream eq. 5 refuses
    /// keeps no buffer.
    #[test]
    fn with_buffer_both_conditions_hold_and_the_reason_names_the_limit() {
        // B_I_tot = 1000, 300 per stream: three fit at an interface node
        let mut r = policy(1, 0, Some(1000));
        fetch(&mut r, 0, 0, 10, None);
        for t in [0, 2, 4] {
            let (_, v) = ask(&mut r, &req(t, 0), &[0], 100, &[]);
            assert_eq!(v, Verdict::Admit, "{t}");
        }
        let (_, v) = ask(&mut r, &req(6, 0), &[0], 100, &[]);
        assert_eq!(
            v,
            Verdict::Refuse {
                reason: "buffer space"
            }
        );
        r.ended(TerminalId(0), SimTime::ZERO);
        // room again, but eq. 5 refuses (10 ≥ 10) …
        assert_eq!(ask(&mut r, &req(6, 0), &[0], 10, &[]).1, NO);
        // … and gave the buffer back: one stream still fits
        assert_eq!(ask(&mut r, &req(6, 0), &[0], 100, &[]).1, Verdict::Admit);
        assert_ne!(ask(&mut r, &req(7, 0), &[0], 100, &[]).1, Verdict::Admit);
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let bad = |p: RetrievalParams, key: &str| match Retrieval::validate(&p) {
            Err(PluginError::InvalidParam { path, message }) => {
                assert_eq!(path, key, "{message}");
                assert!(message.contains("must be"), "{message}");
            }
            other => panic!("{key}: {other:?}"),
        };
        bad(
            RetrievalParams {
                history: 0,
                ..Default::default()
            },
            "history",
        );
        bad(
            RetrievalParams {
                overhead: Duration(3_600_000_000_001),
                ..Default::default()
            },
            "overhead",
        );
        bad(
            RetrievalParams {
                buffer: Some(Bytes(0)),
                ..Default::default()
            },
            "buffer",
        );
        assert!(Retrieval::validate(&RetrievalParams::default()).is_ok());
    }
}
