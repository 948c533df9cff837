//! Where a fragment request's time goes, split as Jadav et al. split it (§5, §5.1): with
//! `[run] request_delays = true`, every terminal read of the measured period that was served
//! by a disk access made for it is decomposed into
//!
//! * **N_C** — its two messages (the request to the node, the data back) on an idle
//!   network: the interconnect's setup, hold and delivery times, per-message software costs
//!   included ([`crate::plugin::Transfer::unloaded`]);
//! * **S_Q** — its wait in the storage node's disk queue (behind earlier deadlines under
//!   `edf`);
//! * **D_S**, **D_R**, **D_T** — the disk's seek, rotational latency and transfer;
//! * **N_Q** — the rest of its round trip: R_tot − (N_C + S_Q + D_S + D_R + D_T). The paper
//!   measures N_Q the same way, as what is left ("not measured directly"), so it holds the
//!   waits for links (blocking) and, here, the nodes' CPU time and queueing and a disk
//!   model's controller overhead as well;
//! * **R_tot** — from the terminal's sending the request to its data's arrival (the I node's
//!   measured round trip).
//!
//! For each, the mean, maximum, p99 and p99.9 over the requests, and the sum of the six
//! components' maxima — what the paper's stacked maximum figures (Figs. 5, 8) show. A
//! request served from the buffer pool, by a read already in progress or by read-ahead has
//! no disk components of its own: it is counted apart (`other_requests`), not decomposed.
//! A request counts in the measured period when its data arrives in it.

use super::requests::Req;
use super::stats::DurStat;
use crate::results::{Column, DelayStat, RequestDelays, Table};
use crate::time::SimTime;

/// The components in the paper's stacking order (bottom to top), then R_tot.
pub const COMPONENTS: [&str; 7] = ["n_c", "d_t", "d_s", "d_r", "n_q", "s_q", "r_tot"];

/// The accumulators of every component.
pub(super) struct Delays {
    on: bool,
    /// In [`COMPONENTS`] order.
    parts: [DurStat; 7],
    other: u64,
}

impl Delays {
    /// Accumulators that record only when `on` (`[run] request_delays`).
    pub fn new(on: bool) -> Self {
        Delays {
            on,
            parts: std::array::from_fn(|_| DurStat::new()),
            other: 0,
        }
    }

    /// Whether the scenario asked for the delays (`[run] request_delays`): without them the
    /// engine need not note a request's disk components.
    #[inline]
    pub fn on(&self) -> bool {
        self.on
    }

    /// Read `req`'s data arrived at `now` (in the measured period when `measuring`).
    #[inline]
    pub fn arrived(&mut self, req: &Req, now: SimTime, measuring: bool) {
        if !(self.on && measuring) {
            return;
        }
        if !req.own_io {
            self.other += 1;
            return;
        }
        let [n_c, d_t, d_s, d_r, n_q, s_q, r_tot] = split(req, now);
        for (part, v) in self
            .parts
            .iter_mut()
            .zip([n_c, d_t, d_s, d_r, n_q, s_q, r_tot])
        {
            part.record(v);
        }
    }

    /// The summary's `request_delays` and the `delays` table (a row per component), or
    /// nothing when not asked for.
    pub fn report(&self) -> Option<(RequestDelays, Table)> {
        if !self.on {
            return None;
        }
        let stat = |i: usize| {
            let s = &self.parts[i];
            DelayStat {
                mean_ns: s.mean(),
                max_ns: s.max(),
                p99_ns: s.quantile(0.99),
                p999_ns: s.quantile(0.999),
            }
        };
        let stats: Vec<DelayStat> = (0..COMPONENTS.len()).map(stat).collect();
        let sum_of_max_ns = stats[..6].iter().map(|s| s.max_ns).sum();
        let summary = RequestDelays {
            requests: self.parts[6].count(),
            other_requests: self.other,
            n_c: stats[0],
            d_t: stats[1],
            d_s: stats[2],
            d_r: stats[3],
            n_q: stats[4],
            s_q: stats[5],
            r_tot: stats[6],
            sum_of_max_ns,
        };
        let col = |f: fn(&DelayStat) -> u64| Column::U64(stats.iter().map(f).collect());
        let table = Table {
            name: "delays".into(),
            columns: vec![
                (
                    "component".into(),
                    Column::Str(COMPONENTS.iter().map(|c| c.to_string()).collect()),
                ),
                ("mean_ns".into(), col(|s| s.mean_ns)),
                ("max_ns".into(), col(|s| s.max_ns)),
                ("p99_ns".into(), col(|s| s.p99_ns)),
                ("p999_ns".into(), col(|s| s.p999_ns)),
            ],
        };
        Some((summary, table))
    }
}

/// The components of read `req` whose data arrived at `now`, in [`COMPONENTS`] order, ns.
/// N_Q is the remainder, never negative: every other component is a part of the round trip
/// (the messages' idle-network times and the disk's times all lie between sending and
/// arrival, and do not overlap).
pub(super) fn split(req: &Req, now: SimTime) -> [u64; 7] {
    let r_tot = now.saturating_since(req.sent).as_nanos();
    let n_c = req.net_unloaded.as_nanos();
    let [s_q, d_s, d_r, d_t] = req.io;
    let known = n_c + s_q + d_s + d_r + d_t;
    debug_assert!(
        known <= r_tot,
        "components {known} ns > round trip {r_tot} ns"
    );
    [n_c, d_t, d_s, d_r, r_tot.saturating_sub(known), s_q, r_tot]
}
