//! A terminal reading its video: a request whenever its buffer has room (one block, or a
//! set of `[terminals.rounds] blocks`), or at each of the server's rounds; the data
//! arriving, priming, the display starting (SPIFFI §5.1; Jadav et al. §5.1).

use super::*;

impl<'a> Terminals<'a> {
    /// Requests blocks while there is room (reading in rounds with `issue = "latest"`, a
    /// playing terminal's next set waits until `lead` before its first frame is due).
    pub(super) fn fill(&mut self, t: usize, p: &mut Ports) {
        if self.cfg.server_rounds {
            return;
        }
        while self.playout().can_request(&self.terms[t]) {
            if self.set_due(t).is_some_and(|due| due > p.now()) {
                return;
            }
            self.issue(t, p);
        }
    }

    /// A round boundary of `[server.rounds]` (Pappas et al. §4): every terminal that is
    /// priming, playing or stalled and has blocks left asks for its next block now, in
    /// terminal order. Returns the bytes asked for.
    pub fn round(&mut self, p: &mut Ports) -> u64 {
        let mut bytes = 0;
        for t in 0..self.terms.len() {
            let tm = &self.terms[t];
            if !matches!(
                tm.state,
                TState::Priming | TState::Playing | TState::Stalled
            ) || tm.read.next() >= self.blocks[tm.read.video() as usize]
                || tm.read.next() >= tm.read.limit()
                || tm.read.next() - tm.read.frontier() >= 128
            {
                continue;
            }
            bytes += self.playout().block_len(tm.read.video(), tm.read.next());
            self.issue(t, p);
        }
        bytes
    }

    /// Reading in rounds with `issue = "latest"`, a playing terminal about to open a set:
    /// when it may (`lead` before the set's first frame is due; eq. 3's t_max).
    pub(super) fn set_due(&self, t: usize) -> Option<SimTime> {
        let (_, lead) = self.cfg.rounds?;
        let lead = lead?;
        let tm = &self.terms[t];
        if tm.read.set_left() > 0 || tm.state != TState::Playing {
            return None;
        }
        let f0 = self.playout().first_frame_of_next(tm);
        let due = self.playout().disp(tm, f0).as_nanos();
        Some(SimTime::from_nanos(due.saturating_sub(lead.as_nanos())))
    }

    /// Requests the terminal's next block from the node that holds it.
    pub(super) fn issue(&mut self, t: usize, p: &mut Ports) {
        let now = p.now();
        let pl = self.playout();
        let tm = &self.terms[t];
        let video = tm.read.video();
        let index = tm.read.next();
        let block = BlockId {
            video: VideoId(video),
            index,
        };
        let f0 = pl.first_frame_of_next(tm);
        let deadline = if tm.state == TState::Playing {
            pl.disp(tm, f0)
        } else {
            now + (self.lib.frame_time(f0) - self.lib.frame_time(tm.play.play()))
        };
        let loc = p.layout.locate(block);
        let bytes = pl.block_len(video, index);
        let req = Req {
            terminal: t as u32,
            epoch: tm.read.epoch(),
            block,
            node: loc.node.0,
            disk: loc.disk.0,
            page: NONE,
            bytes,
            deadline,
            next_waiter: NONE,
            counted: false,
            stage: 0,
            own_io: false,
            sent: now,
            net_unloaded: SimDuration::ZERO,
            io: [0; 4],
            buffered: 0,
        };
        if loc.node.index() >= p.nodes.nodes.len() || loc.disk.index() >= p.disks.len() {
            p.faults.plugin(
                "layout",
                p.layout_name,
                now,
                format!(
                    "placed block {index} of video {video} on node {} disk {}, which do not exist",
                    loc.node, loc.disk
                ),
            );
            self.terms[t].read.skip();
            return;
        }
        let r = p.reqs.new_read(req);
        let set = self.cfg.rounds.map_or(1, |r| r.0);
        self.terms[t].read.asked(set);
        self.issued += 1;
        if let Some(rep) = p.repl.as_ref() {
            let source = rep.source(t as u32, block);
            if source != Source::Remote {
                p.read_locally(r, source);
                return;
            }
        }
        let (from, to) = (p.net.terminal_endpoint(t as u32), Endpoint::Node(loc.node));
        let w = p.period.w;
        if let Some(cpus) = p.iface_cpu.as_mut() {
            // the interface node's CPU sends it when it comes to it
            let i = p.net.interface_of(t as u32);
            if let Some(at) = cpus.push(i, IfaceJob::Send(r), p.q.now(), &w) {
                p.q.schedule(at, Ev::IfaceDone(i as u32));
            }
            return;
        }
        let unloaded = p.net.send(
            from,
            to,
            self.cfg.request_bytes,
            Ev::ReqAtNode(r),
            p.q,
            &w,
            p.faults,
        );
        p.reqs.read_mut(r).net_unloaded = unloaded;
    }

    /// Data for read `req` reached its terminal (the node has released its page).
    pub fn arrive(&mut self, req: &Req, p: &mut Ports) {
        self.delivered += 1;
        self.received_bytes += req.bytes;
        let t = req.terminal as usize;
        let tm = &mut self.terms[t];
        tm.counts.received(req.bytes);
        if req.epoch != tm.read.epoch() || tm.state == TState::Idle {
            self.discarded_bytes += req.bytes;
            return;
        }
        tm.read.arrived(req.block.index, req.bytes);
        match tm.state {
            TState::Priming | TState::Stalled | TState::Searching => self.check_prime(t, p),
            TState::Playing => self.schedule_wake(t, p),
            TState::Paused | TState::Idle | TState::Waiting | TState::Following => {}
        }
        self.fill(t, p);
    }

    // ----- playout -----------------------------------------------------------------------

    pub(super) fn check_prime(&mut self, t: usize, p: &mut Ports) {
        let tm = &self.terms[t];
        if tm.state == TState::Searching {
            self.segment_check(t, p);
            return;
        }
        if !matches!(tm.state, TState::Priming | TState::Stalled) {
            return;
        }
        if self.playout().primed(tm) {
            self.start_display(t, p);
        }
    }

    /// Records a start-up latency (display start after a start, a seek or a search).
    pub(super) fn record_startup(&mut self, t: usize, lat: u64, w: bool) {
        if w {
            self.startup.record(lat);
            self.terms[t].counts.startup(lat);
        }
    }

    pub(super) fn start_display(&mut self, t: usize, p: &mut Ports) {
        let now = p.now();
        let window = p.w().span;
        let measuring = p.w().measuring;
        let tm = &self.terms[t];
        match tm.stops.prime_kind() {
            PrimeKind::Glitch => {
                let s = clip(tm.stops.stall_since(), now, window);
                self.add_stall(t, s);
            }
            PrimeKind::Start | PrimeKind::Seek if t >= self.cfg.count => {
                // a piggyback stream: every member waited since its own request
                for i in 0..self.terms[t].group.members().len() {
                    let m = self.terms[t].group.members()[i] as usize;
                    let lat = now
                        .saturating_since(self.terms[m].group.requested_at())
                        .as_nanos();
                    self.record_startup(m, lat, measuring);
                }
            }
            PrimeKind::Start | PrimeKind::Seek => {
                let lat = now.saturating_since(tm.stops.prime_since()).as_nanos();
                self.record_startup(t, lat, measuring);
            }
        }
        let tm = &mut self.terms[t];
        tm.state = TState::Playing;
        tm.play.anchor(now);
        if t < self.cfg.count {
            self.arm_packets(t, p);
        } else {
            for i in 0..self.terms[t].group.members().len() {
                let m = self.terms[t].group.members()[i] as usize;
                self.arm_packets(m, p);
            }
        }
        let tm = &mut self.terms[t];
        tm.counts.displayed();
        let first = tm.counts.warm();
        self.schedule_wake(t, p);
        if t >= self.cfg.count {
            for i in 0..self.terms[t].group.members().len() {
                let m = self.terms[t].group.members()[i] as usize;
                self.terms[m].counts.displayed();
                if self.terms[m].counts.warm() {
                    self.first_display(p);
                }
            }
        } else if first {
            self.first_display(p);
        }
    }

    /// Starts sending real terminal `t`'s client its packets, one now and one every δ_I
    /// (`client_packet`), unless they are already being sent.
    pub(super) fn arm_packets(&mut self, t: usize, p: &mut Ports) {
        if self.cfg.client_packet.is_none() || self.terms[t].packets_armed {
            return;
        }
        self.terms[t].packets_armed = true;
        p.q.schedule(p.now(), Ev::ClientPacket(t as u32));
    }

    /// Terminal `t`'s next client packet is due: while its display runs, its interface node's
    /// CPU sends it (Jadav §3.2: a packet of P_I bytes at least every δ_I) and the next is
    /// due δ_I later; otherwise the packets stop until display starts again.
    pub fn client_packet(&mut self, t: usize, p: &mut Ports) {
        let Some((bytes, every)) = self.cfg.client_packet else {
            return;
        };
        let tm = &self.terms[t];
        let playing = match tm.state {
            TState::Playing => true,
            TState::Following => self.terms[tm.group.index() as usize].state == TState::Playing,
            _ => false,
        };
        if !playing {
            self.terms[t].packets_armed = false;
            return;
        }
        let now = p.now();
        let w = p.period.w;
        if let Some(cpus) = p.iface_cpu.as_mut() {
            let i = p.net.interface_of(t as u32);
            if let Some(at) = cpus.push(i, IfaceJob::Packet(bytes), now, &w) {
                p.q.schedule(at, Ev::IfaceDone(i as u32));
            }
        }
        p.q.schedule(now + every, Ev::ClientPacket(t as u32));
    }

    /// A terminal began display for the first time (auto warm-up bookkeeping).
    pub(super) fn first_display(&mut self, p: &mut Ports) {
        self.started_display += 1;
        if self.started_display >= self.to_start && self.cfg.warmup == Warmup::Auto {
            self.open_window(p);
        }
    }
}
