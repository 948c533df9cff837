//! The network between terminals and nodes (SPIFFI §6.2; Jadav et al.'s interconnect;
//! Pappas et al.'s egress link): the [`Interconnect`] plugin says which links a message holds
//! and for how long; this component queues messages at the links, first come first served,
//! and delivers them.
//!
//! A message waits its `setup`, then acquires the links of its path in order, holding those
//! it has while it waits for the next (as a cut-through or wormhole transfer does), keeps
//! them all for `hold`, releases them together and is delivered `delivery` later. A path
//! without links (the `ideal` interconnect) never waits: its message is delivered
//! `setup + hold + delivery` after it was sent, by one event, exactly as SPIFFI's network.
//!
//! Measured for the links (when the interconnect has any): each link's busy fraction, the
//! messages it carried and their waits for it; each message's wait for its whole path and
//! its time from sending to delivery (`summary.json`'s `network`, the `links` table); the
//! admission probes and, with a manager node, its control messages also apart.

use super::error::Faults;
use super::event::Ev;
use super::measure::{fmax, mean, utilization, Window};
use super::queue::EventQueue;
use super::requests::Arena;
use super::stats::{DurStat, Level};
use crate::ids::LinkId;
use crate::plugin::{Endpoint, Interconnect, Transfer};
use crate::results::{Column, NetworkSummary, Table};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// One link: a server of one message at a time.
struct Link {
    name: String,
    /// The message holding it.
    holder: Option<u32>,
    /// Messages waiting for it, first come first served.
    queue: VecDeque<u32>,
    busy: Level,
    // measured
    messages: u64,
    wait_sum: u128,
    wait_max: u64,
}

/// A message on its way.
#[derive(Copy, Clone)]
struct Msg {
    /// The event that delivers it.
    deliver: Ev,
    bytes: u64,
    /// Links of its path acquired so far.
    held: u32,
    hold: SimDuration,
    delivery: SimDuration,
    sent: SimTime,
    /// When it asked for its first link.
    asked: SimTime,
    /// When it asked for the link it waits for.
    link_asked: SimTime,
}

/// The interconnect, its links and their queues.
pub(super) struct Network {
    plugin: Box<dyn Interconnect>,
    /// Storage nodes, then `interfaces` interface nodes (`[server] interface_nodes`).
    storage: u32,
    interfaces: u32,
    /// Each terminal's interface node when the object manager delegates viewings
    /// (`[server.replication]`); empty: terminal t's is t mod `interfaces`.
    assigned: Vec<u32>,
    /// The interconnect's name, for contract errors and the summary.
    name: &'static str,
    links: Vec<Link>,
    msgs: Arena<Msg>,
    /// Each message slot's path (kept per slot, so reused slots reuse their vectors).
    paths: Vec<Vec<LinkId>>,
    scratch: Vec<LinkId>,
    // measured
    messages: u64,
    bytes: u64,
    wait: DurStat,
    delivered: DurStat,
    /// Whether admission probes are counted apart (an admission policy that probes).
    pub count_probes: bool,
    probe_messages: u64,
    probe_bytes: u64,
    /// The object manager's network node (`[server] manager_node`), numbered after the
    /// interface nodes; its control messages are counted apart.
    manager: Option<u32>,
    control_messages: u64,
    control_bytes: u64,
    control_delivered: DurStat,
    /// Block bytes handed to the network and not yet received (conservation).
    pub in_transit_bytes: u64,
}

impl Network {
    /// The network of interconnect `plugin` (named `name`).
    /// With `interfaces` interface nodes numbered after the `storage` nodes, terminal t's
    /// messages go through interface t mod `interfaces` ([`Network::terminal_endpoint`]).
    pub fn new(
        plugin: Box<dyn Interconnect>,
        name: &'static str,
        storage: u32,
        interfaces: u32,
    ) -> Self {
        let links = plugin
            .links()
            .into_iter()
            .map(|name| Link {
                name,
                holder: None,
                queue: VecDeque::new(),
                busy: Level::default(),
                messages: 0,
                wait_sum: 0,
                wait_max: 0,
            })
            .collect();
        Network {
            plugin,
            name,
            storage,
            interfaces,
            assigned: Vec::new(),
            links,
            msgs: Arena::new(),
            paths: Vec::new(),
            scratch: Vec::new(),
            messages: 0,
            bytes: 0,
            wait: DurStat::new(),
            delivered: DurStat::new(),
            count_probes: false,
            probe_messages: 0,
            probe_bytes: 0,
            manager: None,
            control_messages: 0,
            control_bytes: 0,
            control_delivered: DurStat::new(),
            in_transit_bytes: 0,
        }
    }

    /// The object manager is a node of the network (`[server] manager_node`): node
    /// `storage + interfaces`, after the interface nodes.
    pub fn with_manager(mut self) -> Self {
        self.manager = Some(self.storage + self.interfaces);
        self
    }

    /// The object manager's endpoint, when it is a node of the network.
    #[inline]
    pub fn manager_endpoint(&self) -> Option<Endpoint> {
        self.manager.map(|n| Endpoint::Node(crate::ids::NodeId(n)))
    }

    /// Interface node `i`'s endpoint (an index among the interface nodes).
    #[inline]
    pub fn interface_endpoint(&self, i: u32) -> Endpoint {
        Endpoint::Node(crate::ids::NodeId(self.storage + i))
    }

    /// Where terminal (or piggyback stream) `t`'s messages enter and leave the network: the
    /// terminal itself, or its interface node (t mod `interface_nodes`, numbered after the
    /// storage nodes).
    #[inline]
    pub fn terminal_endpoint(&self, t: u32) -> Endpoint {
        if self.interfaces == 0 {
            Endpoint::Terminal(crate::ids::TerminalId(t))
        } else {
            Endpoint::Node(crate::ids::NodeId(
                self.storage + self.interface_of(t) as u32,
            ))
        }
    }

    /// The interface node terminal `t` reaches the network through (0 without interface
    /// nodes): the one its viewing was delegated to ([`Network::assign`]), or t mod
    /// `interface_nodes`.
    #[inline]
    pub fn interface_of(&self, t: u32) -> usize {
        match self.assigned.get(t as usize) {
            Some(&i) => i as usize,
            None => t.checked_rem(self.interfaces).unwrap_or(0) as usize,
        }
    }

    /// Terminal `t`'s viewing is served by interface node `i` (an index among them), among
    /// `terminals` terminals: from now on its messages pass there.
    pub fn assign(&mut self, t: u32, i: u32, terminals: u32) {
        if self.assigned.is_empty() {
            self.assigned = (0..terminals)
                .map(|t| t.checked_rem(self.interfaces).unwrap_or(0))
                .collect();
        }
        self.assigned[t as usize] = i;
    }

    /// Opens the measured window: link busy time counts from `now`.
    pub fn open(&mut self, now: SimTime) {
        for l in &mut self.links {
            l.busy.open(now);
        }
    }

    /// Sends a message of `bytes` from `from` to `to`, delivered by the event `deliver`;
    /// returns its time from sending to delivery on an idle network (N_C of the message).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn send(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        bytes: u64,
        deliver: Ev,
        q: &mut EventQueue<Ev>,
        w: &Window,
        faults: &mut Faults,
    ) -> SimDuration {
        let now = q.now();
        self.scratch.clear();
        let t = self.plugin.route(from, to, bytes, &mut self.scratch);
        if self.scratch.is_empty() {
            q.schedule(now + t.unloaded(), deliver);
            return t.unloaded();
        }
        self.send_over_links(t, bytes, deliver, q, w, faults);
        t.unloaded()
    }

    /// The rest of [`Network::send`] for a message routed over the links in `scratch`
    /// (out of line: a contention-free interconnect never gets here).
    #[inline(never)]
    fn send_over_links(
        &mut self,
        t: Transfer,
        bytes: u64,
        deliver: Ev,
        q: &mut EventQueue<Ev>,
        w: &Window,
        faults: &mut Faults,
    ) {
        let now = q.now();
        if let Some(m) = self.bad_path() {
            faults.plugin(super::scenario::SERVER_NETWORK.key, self.name, now, m);
            return;
        }
        let m = self.msgs.put(Msg {
            deliver,
            bytes,
            held: 0,
            hold: t.hold,
            delivery: t.delivery,
            sent: now,
            asked: now,
            link_asked: now,
        });
        if self.paths.len() <= m as usize {
            self.paths.resize_with(m as usize + 1, Vec::new);
        }
        let path = &mut self.paths[m as usize];
        path.clear();
        path.extend_from_slice(&self.scratch);
        if t.setup == SimDuration::ZERO {
            self.acquire(m, q, w);
        } else {
            q.schedule(now + t.setup, Ev::NetAcquire(m));
        }
    }

    /// What is wrong with the path in `scratch`: a link that does not exist, or one named
    /// twice.
    fn bad_path(&self) -> Option<String> {
        let p = &self.scratch;
        for (i, l) in p.iter().enumerate() {
            if l.index() >= self.links.len() {
                return Some(format!(
                    "routed a message over link {l}, but it has {} links",
                    self.links.len()
                ));
            }
            if p[..i].contains(l) {
                return Some(format!("routed a message over link {l} twice"));
            }
        }
        None
    }

    /// Message `m`'s setup is over (`Ev::NetAcquire`): it asks for its first link.
    pub fn setup_done(&mut self, m: u32, q: &mut EventQueue<Ev>, w: &Window) {
        let now = q.now();
        let msg = &mut self.msgs.slots[m as usize];
        msg.asked = now;
        msg.link_asked = now;
        self.acquire(m, q, w);
    }

    /// Message `m` acquires the links of its path from the next one on, until one is taken
    /// (it waits there) or it holds them all (it is then released after its hold time).
    fn acquire(&mut self, m: u32, q: &mut EventQueue<Ev>, w: &Window) {
        let now = q.now();
        let len = self.paths[m as usize].len() as u32;
        loop {
            let msg = self.msgs.slots[m as usize];
            if msg.held == len {
                if w.measuring {
                    self.wait.record(now.saturating_since(msg.asked).as_nanos());
                }
                q.schedule(now + msg.hold, Ev::NetRelease(m));
                return;
            }
            let l = self.paths[m as usize][msg.held as usize].index();
            let link = &mut self.links[l];
            if link.holder.is_some() {
                link.queue.push_back(m);
                self.msgs.slots[m as usize].link_asked = now;
                return;
            }
            self.take(l, m, now, w);
        }
    }

    /// Link `l` goes to message `m` at `now`.
    fn take(&mut self, l: usize, m: u32, now: SimTime, w: &Window) {
        let msg = &mut self.msgs.slots[m as usize];
        let link = &mut self.links[l];
        link.holder = Some(m);
        link.busy.set(now, 1, w.span);
        if w.measuring {
            let waited = now.saturating_since(msg.link_asked).as_nanos();
            link.messages += 1;
            link.wait_sum += u128::from(waited);
            link.wait_max = link.wait_max.max(waited);
        }
        msg.held += 1;
        msg.link_asked = now;
    }

    /// Message `m` has held its path for its hold time (`Ev::NetRelease`): it is delivered
    /// after its delivery time, and each of its links goes to the next message waiting.
    pub fn release(&mut self, m: u32, q: &mut EventQueue<Ev>, w: &Window) {
        let now = q.now();
        let msg = self.msgs.slots[m as usize];
        q.schedule(now + msg.delivery, msg.deliver);
        if w.measuring {
            self.messages += 1;
            self.bytes += msg.bytes;
            let delivered = (now + msg.delivery).saturating_since(msg.sent).as_nanos();
            self.delivered.record(delivered);
            if matches!(msg.deliver, Ev::ProbeAtStorage(_) | Ev::ProbeBack(_)) {
                self.probe_messages += 1;
                self.probe_bytes += msg.bytes;
            }
            if matches!(msg.deliver, Ev::Delegation(_) | Ev::Answer(..)) {
                self.control_messages += 1;
                self.control_bytes += msg.bytes;
                self.control_delivered.record(delivered);
            }
        }
        let path = std::mem::take(&mut self.paths[m as usize]);
        self.msgs.release(m);
        for l in &path {
            let l = l.index();
            let link = &mut self.links[l];
            debug_assert_eq!(link.holder, Some(m));
            link.holder = None;
            link.busy.set(now, 0, w.span);
            if let Some(next) = link.queue.pop_front() {
                self.take(l, next, now, w);
                self.acquire(next, q, w);
            }
        }
        self.paths[m as usize] = path;
    }

    /// The summary's `network` section and the `links` table (none for an interconnect
    /// without links), the window closed at `w1` after `measured` ns.
    pub fn report(
        &mut self,
        w1: SimTime,
        window: (SimTime, SimTime),
        measured: u64,
    ) -> Option<(NetworkSummary, Table)> {
        if self.links.is_empty() {
            return None;
        }
        let mut util = Vec::new();
        let (mut name, mut msgs, mut waits, mut wait_max) = (vec![], vec![], vec![], vec![]);
        for l in &mut self.links {
            util.push(utilization(&mut l.busy, w1, window, measured));
            name.push(l.name.clone());
            msgs.push(l.messages);
            waits.push(if l.messages == 0 {
                0
            } else {
                (l.wait_sum / u128::from(l.messages)) as u64
            });
            wait_max.push(l.wait_max);
        }
        let busiest = (0..util.len())
            .max_by(|&a, &b| util[a].total_cmp(&util[b]).then(b.cmp(&a)))
            .unwrap_or(0);
        let summary = NetworkSummary {
            interconnect: self.name.to_string(),
            links: self.links.len() as u64,
            messages: self.messages,
            bytes: self.bytes,
            wait: self.wait.stat(),
            delivery: self.delivered.stat(),
            utilization_mean_ratio: mean(&util),
            utilization_max_ratio: fmax(&util),
            busiest_link: self.links[busiest].name.clone(),
            interface_cpu_utilization_mean_ratio: None,
            interface_cpu_utilization_max_ratio: None,
            storage_message_utilization_mean_ratio: None,
            storage_message_utilization_max_ratio: None,
            probe_messages: self.count_probes.then_some(self.probe_messages),
            probe_bytes: self.count_probes.then_some(self.probe_bytes),
            control_messages: self.manager.map(|_| self.control_messages),
            control_bytes: self.manager.map(|_| self.control_bytes),
            control_delivery: self.manager.map(|_| self.control_delivered.stat()),
        };
        let table = Table {
            name: "links".into(),
            columns: vec![
                (
                    "link".into(),
                    Column::U64((0..self.links.len() as u64).collect()),
                ),
                ("name".into(), Column::Str(name)),
                ("utilization_ratio".into(), Column::F64(util)),
                ("messages".into(), Column::U64(msgs)),
                ("wait_mean_ns".into(), Column::U64(waits)),
                ("wait_max_ns".into(), Column::U64(wait_max)),
            ],
        };
        Some((summary, table))
    }
}

impl Network {
    /// The interconnect of `[server.network]` between the storage nodes, the interface nodes
    /// (`[server] interface_nodes`) and the object manager's node (`[server] manager_node`).
    pub(super) fn build(
        setup: &super::setup::Setup<'_>,
    ) -> Result<Self, super::scenario::ScenarioError> {
        use super::scenario::SERVER_NETWORK;
        let chosen = setup.scenario.plugins.required(&SERVER_NETWORK);
        let s = &setup.scenario.file.server;
        let interconnect = chosen
            .build(&setup.context(SERVER_NETWORK.key, 0))
            .map_err(setup.plugin_error(SERVER_NETWORK.key, chosen.name))?;
        let net = Network::new(interconnect, chosen.name, s.nodes, s.interface_nodes);
        Ok(if s.manager_node {
            net.with_manager()
        } else {
            net
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{NodeId, TerminalId};
    use crate::plugin::Transfer;

    /// Two ports per node, `ns_per_byte` each, no other cost: what `ports` does, by hand.
    struct TwoPorts {
        nodes: u32,
        ns_per_byte: u64,
    }
    impl Interconnect for TwoPorts {
        fn links(&self) -> Vec<String> {
            (0..2 * self.nodes).map(|i| format!("l{i}")).collect()
        }
        fn route(
            &mut self,
            from: Endpoint,
            to: Endpoint,
            bytes: u64,
            path: &mut Vec<LinkId>,
        ) -> Transfer {
            if let Endpoint::Node(n) = from {
                path.push(LinkId(n.0));
            }
            if let Endpoint::Node(n) = to {
                path.push(LinkId(self.nodes + n.0));
            }
            Transfer {
                hold: SimDuration::from_nanos(bytes * self.ns_per_byte),
                delivery: SimDuration::from_nanos(7),
                ..Transfer::default()
            }
        }
    }

    fn open() -> Window {
        Window {
            span: (SimTime::ZERO, SimTime::MAX),
            measuring: true,
        }
    }

    /// Runs the queue to the end; (delivery time, delivered event) in order.
    fn deliveries(net: &mut Network, q: &mut EventQueue<Ev>, w: &Window) -> Vec<(u64, Ev)> {
        let mut out = Vec::new();
        while let Some((t, e)) = q.pop() {
            match e {
                Ev::NetAcquire(m) => net.setup_done(m, q, w),
                Ev::NetRelease(m) => net.release(m, q, w),
                other => out.push((t.as_nanos(), other)),
            }
        }
        out
    }

    #[test]
    fn one_transfer_takes_its_hold_and_delivery_two_into_one_port_serialize() {
        let w = open();
        let mut faults = Faults::default();
        let two = || {
            Network::new(
                Box::new(TwoPorts {
                    nodes: 2,
                    ns_per_byte: 10,
                }),
                "two",
                2,
                0,
            )
        };
        let to = |n| Endpoint::Node(NodeId(n));
        let from = |t| Endpoint::Terminal(TerminalId(t));
        // alone: 100 bytes × 10 ns + 7 ns
        let (mut net, mut q) = (two(), EventQueue::new());
        net.send(from(0), to(1), 100, Ev::Arrive(1), &mut q, &w, &mut faults);
        assert_eq!(deliveries(&mut net, &mut q, &w), [(1007, Ev::Arrive(1))]);
        // into different nodes at once: no waiting
        let (mut net, mut q) = (two(), EventQueue::new());
        net.send(from(0), to(0), 100, Ev::Arrive(4), &mut q, &w, &mut faults);
        net.send(from(0), to(1), 100, Ev::Arrive(5), &mut q, &w, &mut faults);
        assert_eq!(
            deliveries(&mut net, &mut q, &w),
            [(1007, Ev::Arrive(4)), (1007, Ev::Arrive(5))]
        );
        // two terminals send to node 1 at once: the second waits for the receive port
        let (mut net, mut q) = (two(), EventQueue::new());
        net.send(from(0), to(1), 100, Ev::Arrive(2), &mut q, &w, &mut faults);
        net.send(from(1), to(1), 100, Ev::Arrive(3), &mut q, &w, &mut faults);
        assert_eq!(
            deliveries(&mut net, &mut q, &w),
            [(1007, Ev::Arrive(2)), (2007, Ev::Arrive(3))]
        );
        assert!(!faults.any());
        let (s, table) = net.report(SimTime::from_nanos(2007), w.span, 2007).unwrap();
        assert_eq!((s.messages, s.bytes, s.links), (2, 200, 4));
        // the message that waited, waited one whole transfer; the other not at all
        assert_eq!((s.wait.max_ns, s.wait.mean_ns), (1000, 500));
        assert_eq!(s.delivery.max_ns, 2007);
        assert_eq!(s.busiest_link, "l3");
        assert!((s.utilization_max_ratio - 2000.0 / 2007.0).abs() < 1e-12);
        assert_eq!(table.rows(), 4);
    }

    #[test]
    fn a_message_holds_its_send_port_while_it_waits_for_the_receive_port() {
        let w = open();
        let mut faults = Faults::default();
        let mut net = Network::new(
            Box::new(TwoPorts {
                nodes: 3,
                ns_per_byte: 1,
            }),
            "two",
            3,
            0,
        );
        let mut q = EventQueue::new();
        // node 0 → node 2 (1000 ns) holds node 2's receive port; node 1 → node 2 waits for
        // it while holding node 1's send port; node 1 → node 0 then waits for node 1's send
        // port although node 0's receive port is free
        let sends = [(0, 2, 1000, 1), (1, 2, 1000, 2), (1, 0, 10, 3)];
        for (a, b, bytes, e) in sends {
            net.send(
                Endpoint::Node(NodeId(a)),
                Endpoint::Node(NodeId(b)),
                bytes,
                Ev::Arrive(e),
                &mut q,
                &w,
                &mut faults,
            );
        }
        assert_eq!(
            deliveries(&mut net, &mut q, &w),
            [
                (1007, Ev::Arrive(1)),
                (2007, Ev::Arrive(2)),
                (2017, Ev::Arrive(3))
            ]
        );
    }

    #[test]
    fn the_managers_control_messages_use_its_own_ports_and_are_counted_apart() {
        let w = open();
        let mut faults = Faults::default();
        // 2 storage nodes, 1 interface node (network node 2), the manager (network node 3)
        let mut net = Network::new(
            Box::new(TwoPorts {
                nodes: 4,
                ns_per_byte: 10,
            }),
            "two",
            2,
            1,
        )
        .with_manager();
        let a = net.manager_endpoint().unwrap();
        assert_eq!(a, Endpoint::Node(NodeId(3)));
        assert_eq!(net.interface_endpoint(0), Endpoint::Node(NodeId(2)));
        let mut q = EventQueue::new();
        net.send(
            a,
            net.interface_endpoint(0),
            128,
            Ev::Delegation(7),
            &mut q,
            &w,
            &mut faults,
        );
        // a fragment into the interface node at once waits for its receive port
        let s = Endpoint::Node(NodeId(0));
        net.send(
            s,
            net.terminal_endpoint(0),
            100,
            Ev::Arrive(1),
            &mut q,
            &w,
            &mut faults,
        );
        assert_eq!(
            deliveries(&mut net, &mut q, &w),
            [(1287, Ev::Delegation(7)), (2287, Ev::Arrive(1))]
        );
        net.send(
            net.terminal_endpoint(7),
            a,
            128,
            Ev::Answer(7, true),
            &mut q,
            &w,
            &mut faults,
        );
        assert_eq!(
            deliveries(&mut net, &mut q, &w),
            [(2287 + 1287, Ev::Answer(7, true))]
        );
        let (s, _) = net.report(SimTime::from_nanos(4000), w.span, 4000).unwrap();
        assert_eq!((s.messages, s.bytes), (3, 356));
        assert_eq!((s.control_messages, s.control_bytes), (Some(2), Some(256)));
        // the delegation waited for nothing, the answer neither: 1287 ns each
        let d = s.control_delivery.unwrap();
        assert_eq!((d.count, d.mean_ns, d.max_ns), (2, 1287, 1287));
        // without a manager node the summary has no control counts
        let mut plain = Network::new(
            Box::new(TwoPorts {
                nodes: 1,
                ns_per_byte: 1,
            }),
            "two",
            1,
            0,
        );
        assert!(plain.manager_endpoint().is_none());
        let (s, _) = plain.report(SimTime::from_nanos(1), w.span, 1).unwrap();
        assert_eq!((s.control_messages, s.control_bytes), (None, None));
    }

    #[test]
    fn a_path_naming_a_missing_or_repeated_link_is_a_contract_error() {
        struct Bad(Vec<LinkId>);
        impl Interconnect for Bad {
            fn links(&self) -> Vec<String> {
                vec!["only".into()]
            }
            fn route(
                &mut self,
                _: Endpoint,
                _: Endpoint,
                _: u64,
                path: &mut Vec<LinkId>,
            ) -> Transfer {
                path.extend_from_slice(&self.0);
                Transfer::default()
            }
        }
        for path in [vec![LinkId(1)], vec![LinkId(0), LinkId(0)]] {
            let w = open();
            let mut faults = Faults::default();
            let mut net = Network::new(Box::new(Bad(path)), "bad", 1, 0);
            let mut q = EventQueue::new();
            let n = Endpoint::Node(NodeId(0));
            net.send(n, n, 1, Ev::Arrive(0), &mut q, &w, &mut faults);
            let e = faults.take().expect("a contract error").to_string();
            assert!(
                e.starts_with("server.network `bad` broke its contract"),
                "{e}"
            );
            assert!(q.is_empty());
        }
    }
}
