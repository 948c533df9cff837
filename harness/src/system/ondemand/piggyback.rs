//! Piggybacking terminals (SPIFFI §8.2): a start delay during which later requests for the
//! same video join the first, after which the group is served as one terminal.
//!
//! A `start` at position 0 of a video with a non-zero delay (`[piggyback]`, see
//! [`PiggybackSection`]) opens a group, or joins the group already open for
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
//!
//! This component keeps the groups and the counters; the terminals (`terminal.rs`) do what a
//! group's start, a member leaving, and a stream's end mean for each terminal.

use super::stats::DurStat;
use crate::results::PiggybackSummary;
use crate::system::ondemand::scenario::PiggybackSection;
use crate::time::{SimDuration, SimTime};
use rustc_hash::FxHashMap;

/// One group of terminals waiting for the same video.
struct Group {
    video: u32,
    members: Vec<u32>,
}

/// Piggyback configuration, open groups, free stream slots and counters.
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

/// A group whose start delay has passed.
pub(super) struct Started {
    /// Its video.
    pub video: u32,
    /// Its members, in the order they joined.
    pub members: Vec<u32>,
}

impl Piggyback {
    pub fn new(config: Option<PiggybackSection>) -> Self {
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
    pub fn summary(&self) -> Option<PiggybackSummary> {
        self.config.as_ref().map(|_| PiggybackSummary {
            groups_formed: self.groups_formed,
            members_joined: self.members_joined,
            streams_saved: self.streams_saved,
            wait: self.wait.stat(),
        })
    }

    /// Terminal `t`'s `start` of `video` at `position`, at `now`: the group it joins, or
    /// opens, when the video has a start delay — with, for a group it opens, the instant the
    /// group starts (`None` when the start is not delayed).
    pub fn join(
        &mut self,
        t: u32,
        video: u32,
        position: SimDuration,
        now: SimTime,
        measuring: bool,
    ) -> Option<(u32, Option<SimTime>)> {
        let delay = self.config.as_ref()?.delay_of(video);
        if delay.0 == 0 || position != SimDuration::ZERO {
            return None;
        }
        let (g, opens) = match self.open.get(&video) {
            Some(&g) => {
                if measuring {
                    self.members_joined += 1;
                }
                (g, None)
            }
            None => {
                let g = match self.free_groups.pop() {
                    Some(g) => {
                        self.groups[g as usize].video = video;
                        g
                    }
                    None => {
                        self.groups.push(Group {
                            video,
                            members: Vec::new(),
                        });
                        (self.groups.len() - 1) as u32
                    }
                };
                self.open.insert(video, g);
                (g, Some(now + delay.sim()))
            }
        };
        self.groups[g as usize].members.push(t);
        Some((g, opens))
    }

    /// Group `g`'s start delay passed at `now`: it closes; its video and members, each of
    /// whose wait (since `requested_at(member)`) is recorded, and, for two or more members,
    /// the group formed and the streams it saves.
    pub fn start(
        &mut self,
        g: u32,
        now: SimTime,
        measuring: bool,
        requested_at: impl Fn(u32) -> SimTime,
    ) -> Started {
        let video = self.groups[g as usize].video;
        if self.open.get(&video) == Some(&g) {
            self.open.remove(&video);
        }
        let members = std::mem::take(&mut self.groups[g as usize].members);
        self.free_groups.push(g);
        if measuring {
            for &m in &members {
                self.wait
                    .record(now.saturating_since(requested_at(m)).as_nanos());
            }
            if members.len() >= 2 {
                self.groups_formed += 1;
                self.streams_saved += members.len() as u64 - 1;
            }
        }
        Started { video, members }
    }

    /// A stream slot free for reuse, if any.
    pub fn free_stream(&mut self) -> Option<u32> {
        self.free_streams.pop()
    }

    /// Stream slot `s` stopped and is free again.
    pub fn stream_stopped(&mut self, s: u32) {
        self.free_streams.push(s);
    }

    /// Terminal `t` leaves group `g` before it started.
    pub fn leave(&mut self, g: u32, t: u32) {
        self.groups[g as usize].members.retain(|&m| m != t);
    }
}
