//! Piggybacking terminals (SPIFFI §8.2): a start delay during which later requests for the
//! same video join the first, after which the group is served as one terminal.
//!
//! A `start` at position 0 of a video with a non-zero delay (`[piggyback]`, see
//! [`crate::system::ondemand::spec::PiggybackSection`]) opens a group, or joins the group already open for
//! that video; the terminal then waits. When the delay since the group opened has passed, a
//! group of one simply starts its video; a larger group gets a *stream*: a hidden terminal
//! (an extra slot after the real terminals) that reads and plays the video exactly like one
//! terminal, so "the piggybacked terminals place the same demands on the video server as a
//! single terminal would". Its members read nothing themselves: they see the stream's data,
//! so a glitch of the stream is a glitch for every member (and its stalled time every
//! member's), and each member's start-up latency runs from its own request, the wait
//! included. A member that pauses, seeks, stops or searches leaves the group and continues on
//! its own from the group's current position (a re-prime there; a stop just stops); a member
//! leaving a group that has not started yet starts on its own from the beginning. When the
//! last member leaves, the stream stops; when the video ends, every member's video ends.
//!
//! The per-terminal table's `bytes_received` counts what a terminal read itself, so it is 0
//! for the time a terminal followed a stream (the stream's reads are in the totals).
//!
//! Recorded for the measured period (groups whose delay ends in it): groups formed (two or
//! more members), members that joined an open group, the wait of every delayed start, and
//! server streams saved (members beyond the first of each formed group).

use super::engine::{Ev, Sim};
use super::stats::DurStat;
use super::terminal::{PrimeKind, TState, Term};
use crate::results::PiggybackSummary;
use crate::system::ondemand::spec::PiggybackSection;
use crate::time::SimDuration;
use rustc_hash::FxHashMap;

/// One group of terminals waiting for the same video.
struct Group {
    video: u32,
    members: Vec<u32>,
}

/// Piggyback configuration, open groups and counters.
pub(super) struct Piggyback {
    config: Option<PiggybackSection>,
    groups: Vec<Group>,
    free_groups: Vec<u32>,
    /// Video → its group still open for joining.
    open: FxHashMap<u32, u32>,
    /// Stream slots (terminal indices) free for reuse.
    free_streams: Vec<u32>,
    groups_formed: u64,
    members_joined: u64,
    streams_saved: u64,
    wait: DurStat,
}

impl Piggyback {
    pub(super) fn new(config: Option<PiggybackSection>) -> Self {
        Piggyback {
            config,
            groups: Vec::new(),
            free_groups: Vec::new(),
            open: FxHashMap::default(),
            free_streams: Vec::new(),
            groups_formed: 0,
            members_joined: 0,
            streams_saved: 0,
            wait: DurStat::new(),
        }
    }

    /// What `summary.json` reports (only with a `[piggyback]` section).
    pub(super) fn summary(&self) -> Option<PiggybackSummary> {
        self.config.as_ref().map(|_| PiggybackSummary {
            groups_formed: self.groups_formed,
            members_joined: self.members_joined,
            streams_saved: self.streams_saved,
            wait: self.wait.stat(),
        })
    }
}

impl Sim<'_> {
    /// A `start` of `video` at `position` for idle terminal `t`: joins or opens a group when
    /// the video has a start delay (returns `true`), else leaves the start to the caller.
    pub(super) fn piggyback_start(&mut self, t: usize, video: u32, position: SimDuration) -> bool {
        let Some(cfg) = &self.pig.config else {
            return false;
        };
        let delay = cfg.delay_of(video);
        if delay.0 == 0 || position != SimDuration::ZERO {
            return false;
        }
        let now = self.q.now();
        let g = match self.pig.open.get(&video) {
            Some(&g) => {
                if self.acc.measuring {
                    self.pig.members_joined += 1;
                }
                g
            }
            None => {
                let g = match self.pig.free_groups.pop() {
                    Some(g) => {
                        self.pig.groups[g as usize].video = video;
                        g
                    }
                    None => {
                        self.pig.groups.push(Group {
                            video,
                            members: Vec::new(),
                        });
                        (self.pig.groups.len() - 1) as u32
                    }
                };
                self.pig.open.insert(video, g);
                self.q.schedule(now + delay.sim(), Ev::GroupStart(g));
                g
            }
        };
        self.pig.groups[g as usize].members.push(t as u32);
        let tm = &mut self.terms[t];
        tm.state = TState::Waiting;
        tm.group = g;
        tm.title = video;
        tm.video = video;
        tm.requested_at = now;
        tm.play_frame = 0;
        tm.first_block = 0;
        tm.frontier_block = 0;
        tm.next_block = 0;
        true
    }

    /// The delay of group `g` has passed: its members start, as one stream if several.
    pub(super) fn group_start(&mut self, g: u32) {
        let now = self.q.now();
        let video = self.pig.groups[g as usize].video;
        if self.pig.open.get(&video) == Some(&g) {
            self.pig.open.remove(&video);
        }
        let members = std::mem::take(&mut self.pig.groups[g as usize].members);
        self.pig.free_groups.push(g);
        if self.acc.measuring {
            for &m in &members {
                let wait = now.saturating_since(self.terms[m as usize].requested_at);
                self.pig.wait.record(wait.as_nanos());
            }
        }
        match members.len() {
            0 => {}
            1 => {
                let m = members[0] as usize;
                self.terms[m].title = video;
                self.setup_session(m, video, 0, PrimeKind::Start);
                // the start-up latency includes the wait
                self.terms[m].prime_since = self.terms[m].requested_at;
                self.fill(m);
                self.check_prime(m);
            }
            n => {
                if self.acc.measuring {
                    self.pig.groups_formed += 1;
                    self.pig.streams_saved += n as u64 - 1;
                }
                let s = match self.pig.free_streams.pop() {
                    Some(s) => s as usize,
                    None => {
                        self.terms.push(Term::new());
                        self.terms.len() - 1
                    }
                };
                for &m in &members {
                    let tm = &mut self.terms[m as usize];
                    tm.state = TState::Following;
                    tm.group = s as u32;
                }
                self.terms[s].members = members;
                self.terms[s].title = video;
                self.setup_session(s, video, 0, PrimeKind::Start);
                self.fill(s);
                self.check_prime(s);
            }
        }
    }

    /// Takes waiting or following terminal `t` out of its group (the caller decides what
    /// it does next); a stream left without members stops.
    pub(super) fn leave_group(&mut self, t: usize) {
        let g = self.terms[t].group as usize;
        match self.terms[t].state {
            TState::Waiting => self.pig.groups[g].members.retain(|&m| m as usize != t),
            TState::Following => {
                self.terms[g].members.retain(|&m| m as usize != t);
                if self.terms[g].members.is_empty() {
                    self.end_session(g);
                    self.terms[g].state = TState::Idle;
                    self.pig.free_streams.push(g as u32);
                }
            }
            _ => {}
        }
    }

    /// Stream `s` reached the end of its video: so did every member.
    pub(super) fn end_stream(&mut self, s: usize) {
        self.end_session(s);
        self.terms[s].state = TState::Idle;
        let members = std::mem::take(&mut self.terms[s].members);
        self.pig.free_streams.push(s as u32);
        for m in members {
            let m = m as usize;
            self.terms[m].state = TState::Idle;
            self.drain(m);
        }
    }
}
