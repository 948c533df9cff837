//! The way out of a node: its CPU's jobs, a block sent over the network or handed to the
//! egress (`[transmission]`), the server's rounds (`[server.rounds]`) and a single-threaded
//! storage node's thread (SPIFFI §5; Pappas et al. §3.2; Jadav et al. §4).

use super::*;

impl<'a> Engine<'a> {
    /// Queues `job` at node `n`'s CPU (scheduling its end if the CPU was idle).
    #[inline]
    pub(super) fn cpu_push(&mut self, n: usize, job: CpuJob) {
        let now = self.q.now();
        if let Some(at) = self.nodes.cpu_push(n, job, now, &self.period.w) {
            self.q.schedule(at, Ev::CpuDone(n as u32));
        }
    }

    pub(super) fn cpu_done(&mut self, n: usize) {
        let now = self.q.now();
        match self.nodes.cpu_done(n, now, &self.period.w) {
            CpuJob::Receive(r) => self.lookup(r),
            CpuJob::StartIo(d) => self.disk_enqueue(d),
            CpuJob::Send(r) if self.msg_work.is_some() => {
                let bytes = self.reqs.read(r).bytes;
                self.message_push(n, MessageJob::Send(r, bytes));
            }
            CpuJob::Send(r) => self.send_block(r),
        }
        self.cpu_kick(n);
    }

    /// Queues `job` at storage node `n`'s message handler (`[server.message_work]`).
    pub(super) fn message_push(&mut self, n: usize, job: MessageJob) {
        let now = self.q.now();
        let h = self.msg_work.as_mut().expect("message work configured");
        if let Some(at) = h.push(n, job, now, &self.period.w) {
            self.q.schedule(at, Ev::MessageDone(n as u32));
        }
    }

    /// Storage node `n`'s message handler finished a message: a request goes to the node's
    /// CPU, or a fragment into the interconnect; the handler starts its next message.
    pub(super) fn message_done(&mut self, n: usize) {
        let now = self.q.now();
        let h = self
            .msg_work
            .as_mut()
            .expect("MessageDone without handlers");
        let job = h.done(n, now, &self.period.w);
        if let Some(at) = h.kick(n, now, &self.period.w) {
            self.q.schedule(at, Ev::MessageDone(n as u32));
        }
        let (MessageJob::Receive(r, bytes) | MessageJob::Send(r, bytes)) = job;
        // the handler's own work is part of the message's time without blocking (N_C)
        self.reqs.read_mut(r).net_unloaded += h.cost(bytes);
        match job {
            MessageJob::Receive(..) => self.cpu_push(n, CpuJob::Receive(r)),
            MessageJob::Send(..) => self.send_block(r),
        }
    }

    /// Starts node `n`'s next CPU job if its CPU is idle; a single-threaded storage node
    /// whose thread is then free starts its next disk access.
    pub(super) fn cpu_kick(&mut self, n: usize) {
        let now = self.q.now();
        if let Some(at) = self.nodes.cpu_kick(n, now, &self.period.w) {
            self.q.schedule(at, Ev::CpuDone(n as u32));
        } else if self.threads.single(n) && self.nodes.cpu_free(n) {
            // one disk per single-threaded storage node: disk n
            self.disk_start(n);
        }
    }

    /// Node's CPU sent read `r`'s block: it goes to the terminal over the network.
    pub(super) fn send_block(&mut self, r: u32) {
        let req = self.reqs.read_mut(r);
        req.stage = 2;
        let (bytes, node, terminal) = (req.bytes, req.node, req.terminal);
        self.nodes.sent(bytes);
        self.net.in_transit_bytes += bytes;
        let issued = self.reqs.read(r).sent;
        if let Some((e, c)) = self.egress.as_mut() {
            let stream_rate_bps = self.scenario.file.videos.bit_rate.0;
            let profile = c.profile(terminal);
            let block = ReadyBlock {
                token: r,
                client: TerminalId(terminal),
                bytes,
                stream_rate_bps,
                max_rate_bps: profile.map_or(stream_rate_bps, |p| p.max_rate.0),
                packet_bytes: profile.and_then(|p| p.packet).map(|b| b.0 as u32),
            };
            let now = self.q.now();
            let block = match self.rounds.as_mut() {
                Some((rounds, mem)) => {
                    let span = self.period.w.span;
                    mem.read(bytes, rounds.late(issued, now), now, span);
                    // its buffer was taken when its disk accesses started; a block that
                    // needed none (a buffer-pool hit, a read joining another's) takes it now
                    let buffered = self.reqs.read(r).buffered;
                    if rounds.release != Release::Dblbuf && bytes > buffered {
                        mem.reserve(bytes - buffered, now, span);
                    }
                    match rounds.read(block, issued, now) {
                        Some(b) => b,
                        None => return,
                    }
                }
                None => block,
            };
            e.ready(block, now);
            if !e.busy() {
                self.egress_poll();
            }
            return;
        }
        let to = self.net.terminal_endpoint(terminal);
        let unloaded = self.net.send(
            Endpoint::Node(NodeId(node)),
            to,
            bytes,
            Ev::Arrive(r),
            &mut self.q,
            &self.period.w,
            &mut self.faults,
        );
        self.reqs.read_mut(r).net_unloaded += unloaded;
        let n = node as usize;
        if self.threads.single(n) {
            // the one thread waits for its reply to be delivered ([`Engine::arrive`])
            self.threads.enter(n, Busy::Sending);
            self.nodes.hold(n);
        }
    }

    /// A single-threaded storage node's `what` (its disk access, its reply's delivery) is
    /// over: its thread takes its next CPU job, or starts its next disk access.
    pub(super) fn thread_free(&mut self, n: usize, what: Busy) {
        self.threads.leave(n, what);
        self.nodes.unhold(n);
        self.cpu_kick(n);
    }

    /// A round boundary (`[server.rounds]`): the blocks held for it go to the transmission
    /// policy, then every active stream asks for its next block.
    pub(super) fn round(&mut self) {
        let now = self.q.now();
        let Some((rounds, _)) = self.rounds.as_mut() else {
            return;
        };
        let held = rounds.boundary();
        let next = now + SimDuration::from_nanos(rounds.length);
        if let Some((e, _)) = self.egress.as_mut() {
            let any = !held.is_empty();
            for b in held {
                e.ready(b, now);
            }
            if any && !e.busy() {
                self.egress_poll();
            }
        }
        let bytes = {
            let (terms, mut p) = self.split();
            terms.round(&mut p)
        };
        if let Some((rounds, mem)) = self.rounds.as_mut() {
            if rounds.release == Release::Dblbuf {
                mem.reserve(bytes, now, self.period.w.span);
            }
        }
        self.q.schedule(next, Ev::Round);
    }

    /// The egress link is free: asks the transmission policy what to send.
    pub(super) fn egress_poll(&mut self) {
        let now = self.q.now();
        let Some((e, _)) = self.egress.as_mut() else {
            return;
        };
        match e.poll(now, &self.period.w) {
            Next::Busy(at) => self.q.schedule(at, Ev::EgressDone),
            Next::Wake(at) => {
                if e.wake != Some(at) {
                    e.wake = Some(at);
                    self.q.schedule(at, Ev::EgressWake);
                }
            }
            Next::Idle => {}
            Next::Broken(m) => self.faults.plugin(
                crate::system::ondemand::scenario::TRANSMISSION.key,
                e.name,
                now,
                m,
            ),
        }
    }

    /// The egress sent its packet: its client receives it (or loses it); a block whose
    /// last packet is done reaches its terminal then.
    pub(super) fn egress_done(&mut self) {
        let now = self.q.now();
        let Some((e, c)) = self.egress.as_mut() else {
            return;
        };
        let (token, bytes, s) = e.done(now, &self.period.w);
        if let Some((rounds, mem)) = self.rounds.as_mut() {
            let span = self.period.w.span;
            mem.sent(bytes, now, span);
            match rounds.release {
                // the block's buffer is given back whole with its last packet
                Release::Dblbuf if s.left == 0 => {
                    mem.release(self.reqs.read(token).bytes, now, span)
                }
                Release::Dblbuf => {}
                Release::Clbuf | Release::Clbufrate => mem.release(bytes, now, span),
            }
        }
        let fate = c.packet(
            s.terminal,
            bytes,
            (s.ready, now),
            s.rate_bps,
            &self.period.w,
        );
        let s = e.client_done(token, fate.done);
        if s.left == 0 {
            self.q.schedule(s.done, Ev::Arrive(token));
        }
        // the packet's buffer space is free: reads waiting under the cap may start
        self.buffers_freed();
        self.egress_poll();
    }
}
