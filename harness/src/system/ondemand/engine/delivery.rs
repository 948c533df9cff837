//! A read's data on its way to its terminal: released by its node, received by an
//! interface node's CPU (`[server.interface_cpu]`), delivered; admission probes answered at
//! the storage nodes (Jadav et al. §4–5).

use super::*;

impl<'a> Engine<'a> {
    /// Data for read `r` reached its terminal: the node is done with the page, the
    /// terminal takes the data.
    /// With interface CPUs, the fragment waits for its interface node's CPU to receive it
    /// (the node's page is released now, the bytes stay in transit until then).
    pub(super) fn arrive(&mut self, r: u32) {
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
    pub(super) fn local_arrive(&mut self, r: u32) {
        let req = self.reqs.read_mut(r);
        req.stage = 2;
        let bytes = req.bytes;
        self.nodes.sent(bytes);
        self.net.in_transit_bytes += bytes;
        self.deliver(r);
    }

    /// Read `r`'s data reaches its terminal.
    pub(super) fn deliver(&mut self, r: u32) {
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
    pub(super) fn probe_at_storage(&mut self, m: u32) {
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
    pub(super) fn iface_done(&mut self, i: usize) {
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
}
