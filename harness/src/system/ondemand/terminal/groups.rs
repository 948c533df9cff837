//! Piggybacking (SPIFFI §8.2): starts waiting for others to join them, the group's one
//! stream, and a terminal leaving its group.

use super::*;

impl<'a> Terminals<'a> {
    /// A `start` of `video` at `position` for idle terminal `t`: joins or opens a group when
    /// the video has a start delay (returns `true`), else leaves the start to the caller.
    pub(super) fn piggyback_start(
        &mut self,
        t: usize,
        video: u32,
        position: SimDuration,
        p: &mut Ports,
    ) -> bool {
        let now = p.now();
        let Some((g, opens)) = self
            .pig
            .join(t as u32, video, position, now, p.w().measuring)
        else {
            return false;
        };
        if let Some(at) = opens {
            p.q.schedule(at, Ev::GroupStart(g));
        }
        let tm = &mut self.terms[t];
        tm.state = TState::Waiting;
        tm.group.wait(g, now);
        tm.title = video;
        tm.read.wait_for(video);
        tm.play.set_play(0);
        true
    }

    /// The delay of group `g` has passed: its members start, as one stream if several.
    pub fn group_start(&mut self, g: u32, p: &mut Ports) {
        let now = p.now();
        let terms = &self.terms;
        let started = self.pig.start(g, now, p.w().measuring, |m| {
            terms[m as usize].group.requested_at()
        });
        let video = started.video;
        let members = started.members;
        match members.len() {
            0 => {}
            1 => {
                let m = members[0] as usize;
                self.terms[m].title = video;
                self.setup_session(m, video, 0, PrimeKind::Start, now);
                // the start-up latency includes the wait
                let asked = self.terms[m].group.requested_at();
                self.terms[m].stops.primed_since(asked);
                self.fill(m, p);
                self.check_prime(m, p);
            }
            _ => {
                let s = match self.pig.free_stream() {
                    Some(s) => s as usize,
                    None => {
                        self.terms.push(Term::new());
                        self.terms.len() - 1
                    }
                };
                for &m in &members {
                    let tm = &mut self.terms[m as usize];
                    tm.state = TState::Following;
                    tm.group.follow(s as u32);
                }
                self.terms[s].group.lead(members);
                self.terms[s].title = video;
                self.setup_session(s, video, 0, PrimeKind::Start, now);
                self.fill(s, p);
                self.check_prime(s, p);
            }
        }
    }

    /// Takes waiting or following terminal `t` out of its group (the caller decides what
    /// it does next); a stream left without members stops.
    pub(super) fn leave_group(&mut self, t: usize, p: &mut Ports) {
        let g = self.terms[t].group.index() as usize;
        let state = self.terms[t].state;
        match state {
            TState::Waiting => self.pig.leave(g as u32, t as u32),
            TState::Following if self.terms[g].group.leave(t) => {
                self.end_session(g, p);
                self.terms[g].state = TState::Idle;
                self.pig.stream_stopped(g as u32);
            }
            _ => {}
        }
    }

    /// Stream `s` reached the end of its video: so did every member.
    pub(super) fn end_stream(&mut self, s: usize, p: &mut Ports) {
        self.end_session(s, p);
        self.terms[s].state = TState::Idle;
        let members = self.terms[s].group.take_members();
        self.pig.stream_stopped(s as u32);
        for m in members {
            let m = m as usize;
            self.terms[m].state = TState::Idle;
            self.drain(m, p);
        }
    }

    // ----- measurements ------------------------------------------------------------------
}
