//! What the terminals reach of the rest of the server: the event queue, the measured period,
//! the request arena, the network their requests travel, the layout that says where blocks
//! live, admission control — and, to open the measured period when the last terminal starts
//! displaying (SPIFFI §6's warm-up), every component that measures.

use super::admission::AdmissionControl;
use super::disk::Disks;
use super::error::Faults;
use super::event::Ev;
use super::interface_cpu::InterfaceCpus;
use super::measure::{Period, Window};
use super::message_work::MessageHandlers;
use super::network::Network;
use super::node::Nodes;
use super::queue::EventQueue;
use super::replication::{Replication, Source};
use super::requests::DReq;
use super::requests::Requests;
use crate::plugin::{Layout, RequestClass};
use crate::time::SimTime;

/// The engine's parts other than the terminals, borrowed for one terminal handler.
pub(super) struct Ports<'e> {
    pub q: &'e mut EventQueue<Ev>,
    pub period: &'e mut Period,
    pub reqs: &'e mut Requests,
    pub net: &'e mut Network,
    pub nodes: &'e mut Nodes,
    pub disks: &'e mut Disks,
    pub admission: &'e mut AdmissionControl,
    pub layout: &'e dyn Layout,
    /// The layout plugin's name, for contract errors.
    pub layout_name: &'static str,
    pub faults: &'e mut Faults,
    /// The interface nodes' CPUs, when modelled.
    pub iface_cpu: &'e mut Option<InterfaceCpus>,
    /// The storage nodes' message handlers (`[server.message_work]`).
    pub msg_work: &'e mut Option<MessageHandlers>,
    /// The object manager and the popular object's copy (`[server.replication]`).
    pub repl: &'e mut Option<Replication>,
}

impl Ports<'_> {
    /// Now.
    #[inline]
    pub fn now(&self) -> SimTime {
        self.q.now()
    }

    /// The measured window.
    #[inline]
    pub fn w(&self) -> &Window {
        &self.period.w
    }

    /// Terminal read `r` is served at its dedicated interface node from `source`
    /// (`[server.replication]`): from memory its data is there now (`Ev::Local`); from a
    /// local disk, an access of its own goes straight to that disk's queue, and its data is
    /// there when the access ends. No message crosses the interconnect.
    pub fn read_locally(&mut self, r: u32, source: Source) {
        let now = self.q.now();
        let repl = self
            .repl
            .as_mut()
            .expect("a local read without [server.replication]");
        repl.local(source, self.period.w.measuring);
        let req = *self.reqs.read(r);
        match source {
            Source::Remote => unreachable!("a remote fragment read locally"),
            Source::Memory { node } => {
                let read = self.reqs.read_mut(r);
                read.node = repl.network_node(node);
                // served (its bytes counted as a hit), not yet handed on
                read.stage = 1;
                self.nodes.hit_bytes += req.bytes;
                self.q.schedule(now, Ev::Local(r));
            }
            Source::Disk { node, disk, offset } => {
                let (node, disk) = repl.local_disk(node, disk);
                let read = self.reqs.read_mut(r);
                read.node = node;
                read.disk = disk;
                // its bytes counted as a disk read from now, as a storage node's miss
                read.stage = 1;
                self.nodes.disk_demand_bytes += req.bytes;
                let d = self.reqs.disk.put(DReq {
                    page: super::event::NONE,
                    node,
                    disk,
                    class: RequestClass::Demand,
                    enqueued: now,
                    offset,
                    bytes: req.bytes,
                    queued: false,
                    deadline: Some(req.deadline),
                    terminal: req.terminal,
                    owner: r,
                    lead: super::event::NONE,
                    left: 1,
                });
                let disk = self.disks.enqueue(d, &mut self.reqs.disk, now, self.faults);
                self.disks.start(
                    disk,
                    now,
                    &self.period.w,
                    &mut self.reqs.disk,
                    self.faults,
                    self.q,
                );
            }
        }
    }

    /// Opens the measured period now, in every component but the terminals (which open
    /// theirs themselves), and schedules its end and its first sample; `false` when it is
    /// open already or over.
    pub fn open_window(&mut self) -> bool {
        let p = &mut *self.period;
        if p.w.measuring || p.end.is_some() {
            return false;
        }
        let now = self.q.now();
        let end = now + p.duration;
        p.w = Window {
            span: (now, end),
            measuring: true,
        };
        p.end = Some(end);
        self.nodes.open(now);
        self.disks.open(now);
        self.net.open(now);
        self.admission.open(now);
        if let Some(c) = self.iface_cpu.as_mut() {
            c.open(now);
        }
        if let Some(h) = self.msg_work.as_mut() {
            h.open(now);
        }
        self.q.schedule(end, Ev::MeasureEnd);
        if !p.figures_only {
            self.q.schedule(now, Ev::Sample);
        }
        true
    }
}
