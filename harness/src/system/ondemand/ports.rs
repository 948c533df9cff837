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
use super::network::Network;
use super::node::Nodes;
use super::queue::EventQueue;
use super::requests::Requests;
use crate::plugin::Layout;
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
        self.q.schedule(end, Ev::MeasureEnd);
        if !p.figures_only {
            self.q.schedule(now, Ev::Sample);
        }
        true
    }
}
