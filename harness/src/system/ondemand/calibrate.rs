//! Calibrating a scenario's interconnect (`vodbench net calibrate`): messages of each size sent
//! from node to node through the same network component a run uses (the `[server.network]`
//! plugin's paths and timing, its links' first-come-first-served queues), and what each took.
//!
//! This is how Jadav et al. calibrated their server (§5.1: point-to-point bandwidth "nearly
//! constant … 13.8 Mbytes/sec" over the message sizes of interest; claim J0 in
//! `../shared/papers/notes/jadav.md`): on an idle network a message of `b` bytes takes its
//! unloaded time N_C (the interconnect's `setup + hold + delivery`) and waits for no link
//! (N_Q = 0), so its bandwidth is `b / N_C`. With several senders at once the messages that
//! share a link queue for it, and their waits (blocking, N_Q) show how the interconnect
//! contends.
//!
//! With `[server.message_work]` each message also costs its sending node's and its receiving
//! node's message handler (`message_work.rs`): the sender's handler is idle, so the message
//! leaves it `per_message + bytes / copy_rate` after it is sent; the receiver's handler takes
//! the arrivals one at a time in the order they arrive. Both ends' work counts in the unloaded
//! time, and a wait for the receiver's handler in the blocking, as in a run's N_C and N_Q.

use super::error::Faults;
use super::event::Ev;
use super::measure::Window;
use super::message_work::MessageCost;
use super::network::Network;
use super::queue::EventQueue;
use super::scenario::{Scenario, ScenarioError};
use crate::ids::NodeId;
use crate::plugin::Endpoint;
use crate::time::SimTime;
use serde::Serialize;

/// What to send.
#[derive(Clone, Debug)]
pub struct CalibrateOptions {
    /// Message sizes in bytes.
    pub sizes: Vec<u64>,
    /// The receiving node.
    pub to: u32,
    /// The sending nodes, each sending one message of each size at the same instant.
    pub from: Vec<u32>,
}

/// The messages of one size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrationRow {
    /// Message size (bytes).
    pub bytes: u64,
    /// Messages sent at once (one per sender).
    pub messages: u32,
    /// A message's time on an idle network (ns): the interconnect's setup, hold and
    /// delivery (N_C).
    pub unloaded_ns: u64,
    /// Mean time from sending to delivery (ns).
    pub mean_ns: u64,
    /// Longest time from sending to delivery (ns).
    pub max_ns: u64,
    /// Mean time waiting for links (ns): delivery time minus the unloaded time (N_Q).
    pub blocking_mean_ns: u64,
    /// Longest wait for links (ns).
    pub blocking_max_ns: u64,
    /// Bytes over the mean delivery time, in MB/s (10⁶ bytes per second).
    pub bandwidth_mb_s: f64,
}

/// The calibration of a scenario's interconnect.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// The interconnect plugin's name.
    pub interconnect: String,
    /// Its resolved parameters.
    pub params: serde_json::Value,
    /// Nodes of the scenario.
    pub nodes: u32,
    /// Sending nodes.
    pub from: Vec<u32>,
    /// Receiving node.
    pub to: u32,
    /// One row per message size, in the order given.
    pub rows: Vec<CalibrationRow>,
}

/// Sends, for each size of `opts`, one message from every sender to the receiver at once on
/// an idle network of `s`'s interconnect, and measures each message's time to delivery.
pub fn calibrate(s: &Scenario, opts: &CalibrateOptions) -> Result<Calibration, ScenarioError> {
    let f = &s.file;
    // the storage nodes, the interface nodes, then the manager: every node of the network
    let nodes = f.server.nodes + f.server.interface_nodes + u32::from(f.server.manager_node);
    let bad = |key: &str, message: String| ScenarioError::Invalid {
        file: s.path.clone(),
        line: s
            .source
            .line_of_key(key)
            .or_else(|| s.source.line_of_key(&format!("{key}.name"))),
        key: key.to_string(),
        message,
    };
    for &n in opts.from.iter().chain([&opts.to]) {
        if n >= nodes {
            return Err(bad(
                "server.nodes",
                format!("node {n} is not a node of the scenario (nodes 0..{nodes})"),
            ));
        }
    }
    let p = s.plugins.required(&super::scenario::SERVER_NETWORK);
    let ctx = s
        .server_context(super::scenario::SERVER_NETWORK.key, 0)
        .with_pages(s.pages_per_node());
    let build = || {
        p.build(&ctx).map_err(|e| {
            bad(
                &e.key_in(super::scenario::SERVER_NETWORK.key),
                format!("cannot build server.network `{}`: {e}", p.name),
            )
        })
    };
    let w = Window {
        span: (SimTime::ZERO, SimTime::MAX),
        measuring: true,
    };
    let mut rows = Vec::with_capacity(opts.sizes.len());
    for &bytes in &opts.sizes {
        // a fresh, idle network for every size
        let mut plugin = build()?;
        let mut scratch = Vec::new();
        let unloaded = plugin
            .route(
                Endpoint::Node(NodeId(opts.from[0])),
                Endpoint::Node(NodeId(opts.to)),
                bytes,
                &mut scratch,
            )
            .unloaded()
            .as_nanos();
        let mut net = Network::new(build()?, p.name, f.server.nodes, f.server.interface_nodes);
        let mut q = EventQueue::new();
        let mut faults = Faults::default();
        for (i, &from) in opts.from.iter().enumerate() {
            net.send(
                Endpoint::Node(NodeId(from)),
                Endpoint::Node(NodeId(opts.to)),
                bytes,
                Ev::Arrive(i as u32),
                &mut q,
                &w,
                &mut faults,
            );
        }
        let mut times = Vec::with_capacity(opts.from.len());
        while let Some((t, e)) = q.pop() {
            match e {
                Ev::NetAcquire(m) => net.setup_done(m, &mut q, &w),
                Ev::NetRelease(m) => net.release(m, &mut q, &w),
                _ => times.push(t.as_nanos()),
            }
        }
        if let Some(e) = faults.take() {
            return Err(bad(super::scenario::SERVER_NETWORK.key, e.to_string()));
        }
        let (unloaded, times) = match &f.server.message_work {
            None => (unloaded, times),
            Some(m) => {
                let cost = MessageCost {
                    per_message: m.per_message.sim(),
                    copy_rate: m.copy_rate,
                }
                .of(bytes)
                .as_nanos();
                (unloaded + 2 * cost, through_handlers(times, cost))
            }
        };
        let n = times.len().max(1) as u64;
        let mean = times.iter().sum::<u64>() / n;
        let max = times.iter().copied().max().unwrap_or(0);
        rows.push(CalibrationRow {
            bytes,
            messages: times.len() as u32,
            unloaded_ns: unloaded,
            mean_ns: mean,
            max_ns: max,
            blocking_mean_ns: times
                .iter()
                .map(|t| t.saturating_sub(unloaded))
                .sum::<u64>()
                / n,
            blocking_max_ns: max.saturating_sub(unloaded),
            bandwidth_mb_s: if mean == 0 {
                0.0
            } else {
                bytes as f64 / (mean as f64 * 1e-9) / 1e6
            },
        });
    }
    Ok(Calibration {
        interconnect: p.name.to_string(),
        params: p.params.clone(),
        nodes,
        from: opts.from.clone(),
        to: opts.to,
        rows,
    })
}

/// The delivery times of messages whose network deliveries are `times` (ns) when each costs
/// `cost` at its sender's idle handler before it is sent and at the one receiver's handler,
/// first come first served, after it arrives.
fn through_handlers(mut times: Vec<u64>, cost: u64) -> Vec<u64> {
    times.sort_unstable();
    let mut free = 0;
    for t in &mut times {
        let start = (*t + cost).max(free);
        free = start + cost;
        *t = free;
    }
    times
}

/// `calibration.csv`: one row per message size.
pub fn calibration_csv(c: &Calibration) -> String {
    let mut out = String::from(
        "bytes,messages,unloaded_ns,mean_ns,max_ns,blocking_mean_ns,blocking_max_ns,bandwidth_mb_s\n",
    );
    for r in &c.rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            r.bytes,
            r.messages,
            r.unloaded_ns,
            r.mean_ns,
            r.max_ns,
            r.blocking_mean_ns,
            r.blocking_max_ns,
            r.bandwidth_mb_s
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::through_handlers;

    #[test]
    fn the_receivers_handler_takes_arrivals_one_at_a_time() {
        // the sender's handler adds its cost before the send; the receiver's queues
        assert_eq!(through_handlers(vec![100], 10), vec![120]);
        assert_eq!(through_handlers(vec![105, 100], 10), vec![120, 130]);
        assert_eq!(through_handlers(vec![100, 500], 10), vec![120, 520]);
    }
}
