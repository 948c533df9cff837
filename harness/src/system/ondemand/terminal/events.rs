//! The workload's events as the terminals take them: each due event applied, a start put to
//! admission control (`[admission]`) or first delegated by the object manager (`[server]
//! manager_node`), the probes of an observing policy (Jadav et al. §4.3).

use super::*;

impl<'a> Terminals<'a> {
    /// Takes the next workload event from the stream, if any, and schedules it at its time.
    /// An error reading it ends the workload and is kept for the engine
    /// ([`Terminals::take_read_error`]).
    pub fn schedule_next_trace(&mut self, p: &mut Ports) {
        if self.read_error.is_some() {
            return;
        }
        match self.events.next() {
            Some(Ok(e)) => {
                let slot = self.pending.put(e);
                p.q.schedule(e.time, Ev::Trace(slot));
            }
            Some(Err(e)) => self.read_error = Some(e),
            None => {}
        }
    }

    /// The error that ended the workload's stream, if one did (taken once).
    pub fn take_read_error(&mut self) -> Option<ScenarioError> {
        self.read_error.take()
    }

    /// The pending workload event in `slot`.
    #[inline]
    pub(super) fn event(&self, slot: u32) -> TraceEvent {
        self.pending.slots[slot as usize]
    }

    /// Applies the pending workload event in `slot` and frees the slot.
    pub(super) fn apply_slot(&mut self, slot: u32, p: &mut Ports) {
        let e = self.event(slot);
        self.pending.release(slot);
        self.apply(e, p);
    }

    /// The workload event in `slot` is due (`delayed`: after waiting for its terminal).
    pub fn trace_event(&mut self, slot: u32, delayed: bool, p: &mut Ports) {
        let e = self.event(slot);
        let t = e.terminal.index();
        let tm = &mut self.terms[t];
        if tm.events.holds() || (e.kind == EventKind::Start && tm.state != TState::Idle) {
            tm.events.push(slot);
            return;
        }
        let lag = tm.events.lag();
        if !delayed && lag > SimDuration::ZERO {
            p.q.schedule(e.time + lag, Ev::Delayed(slot));
            return;
        }
        self.apply_slot(slot, p);
    }

    /// Runs deferred events of an idle terminal (its viewing, if admission counted one, is
    /// over).
    pub(super) fn drain(&mut self, t: usize, p: &mut Ports) {
        let now = p.now();
        if self.terms[t].state == TState::Idle && self.terms[t].events.release() {
            p.admission.ended(t as u32, now, &p.period.w);
        }
        while let Some(i) = self.terms[t].events.front() {
            let e = self.event(i);
            if e.kind == EventKind::Start && self.terms[t].state != TState::Idle {
                return;
            }
            let due = e.time + self.terms[t].events.lag();
            if e.kind == EventKind::Start && due <= now {
                // the start waited: everything after it shifts by the same delay
                self.terms[t].events.set_lag(now.saturating_since(e.time));
            } else if due > now {
                // the rest keep their trace spacing
                let rest = self.terms[t].events.take_all();
                for j in rest {
                    let due = self.event(j).time + self.terms[t].events.lag();
                    p.q.schedule(due.max(now), Ev::Delayed(j));
                }
                return;
            }
            self.terms[t].events.pop();
            self.apply_slot(i, p);
        }
    }

    /// Admission decided on terminal `e.terminal`'s `start` `e`, asked for at `asked` (now,
    /// or earlier when the decision waited for probes): a refused viewing shows nothing, an
    /// admitted one begins, its start-up latency counted from `asked`.
    pub(super) fn start_decided(
        &mut self,
        e: TraceEvent,
        asked: SimTime,
        admitted: bool,
        p: &mut Ports,
    ) {
        let t = e.terminal.index();
        let now = p.now();
        let measuring = p.w().measuring;
        if !admitted {
            self.terms[t].events.refuse(e.video.0);
            if self.terms[t].counts.warm() {
                // nothing to wait for: the warm-up counts it as started
                self.first_display(p);
            }
            return;
        }
        self.terms[t].events.admit();
        if measuring {
            self.videos_started += 1;
        }
        self.terms[t].counts.started(asked);
        if self.piggyback_start(t, e.video.0, e.position, p) {
            self.terms[t].group.asked_at(asked);
            return;
        }
        let begun = self.begin_session(t, e.video.0, e.position, PrimeKind::Start, p);
        if begun && self.terms[t].state == TState::Priming {
            // the wait for admission's probes is part of the start-up
            self.terms[t].stops.primed_since(asked);
        }
        if !begun {
            self.terms[t].counts.unstarted();
            if measuring {
                self.videos_started -= 1;
            }
            self.events_ignored += 1;
            self.terms[t].state = TState::Idle;
            self.terms[t].events.release();
            p.admission.ended(t as u32, now, &p.period.w);
        }
    }

    /// Admission probe `m`'s reply is back: when it was its request's last, the `start`
    /// waiting for it is decided and the terminal's events that waited behind it run.
    pub fn probe_back(&mut self, m: u32, p: &mut Ports) {
        let now = p.now();
        let Some((t, admitted)) = p.admission.probe_back(m, now, &p.period.w) else {
            return;
        };
        if p.net.manager_endpoint().is_some() {
            // the interface node decided: it answers the object manager
            super::super::manager::answer(p, t, admitted, self.cfg.request_bytes);
            return;
        }
        self.decided(t as usize, admitted, p);
    }

    /// Terminal `t`'s `start`, waiting for admission, is decided now (`admitted` or not): it
    /// begins or is refused, and the terminal's events that waited behind it run.
    pub(super) fn decided(&mut self, t: usize, admitted: bool, p: &mut Ports) {
        let (e, asked) = self.terms[t]
            .events
            .take_admitting()
            .expect("a terminal waiting for admission");
        self.start_decided(e, asked, admitted, p);
        self.drain(t, p);
    }

    /// The object manager's delegation of terminal `t`'s viewing reached its interface node
    /// (`[server] manager_node`), which decides admission now, or sends its probes; once
    /// decided, it answers the manager ([`super::super::manager`]).
    pub fn delegation(&mut self, t: usize, p: &mut Ports) {
        let (e, _) = self.terms[t]
            .events
            .admitting()
            .expect("a delegation of a viewing waiting for admission");
        match self.ask_admission(e, p) {
            Decision::Admit => {
                super::super::manager::answer(p, t as u32, true, self.cfg.request_bytes)
            }
            Decision::Refuse => {
                super::super::manager::answer(p, t as u32, false, self.cfg.request_bytes)
            }
            Decision::Probing => self.send_probes(t, p),
        }
    }

    /// The interface node's answer for terminal `t`'s viewing reached the object manager
    /// (`[server] manager_node`): the viewing begins, or is refused, now.
    pub fn answer(&mut self, t: usize, admitted: bool, p: &mut Ports) {
        self.decided(t, admitted, p);
    }

    /// Puts terminal `e.terminal`'s `start` `e` to admission control now.
    pub(super) fn ask_admission(&mut self, e: TraceEvent, p: &mut Ports) -> Decision {
        let blocks = self.blocks.get(e.video.index()).copied().unwrap_or(0);
        p.admission.request(
            e.terminal.0,
            p.net.interface_of(e.terminal.0) as u32,
            e.video.0,
            self.cfg.bit_rate,
            blocks,
            p.layout,
            p.q.now(),
            &p.period.w,
        )
    }

    /// Sends the admission probes named for terminal `t`'s start, from its interface node to
    /// the storage nodes.
    pub(super) fn send_probes(&mut self, t: usize, p: &mut Ports) {
        let from = p.net.terminal_endpoint(t as u32);
        for &(slot, node) in p.admission.probes_to_send() {
            p.net.send(
                from,
                Endpoint::Node(crate::ids::NodeId(node)),
                self.cfg.request_bytes,
                Ev::ProbeAtStorage(slot),
                p.q,
                &p.period.w,
                p.faults,
            );
        }
    }
}
