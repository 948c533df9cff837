//! A terminal's piggyback group (SPIFFI §8.2): the group it waits for or the stream it
//! follows, when it asked, and for a stream slot the terminals watching it.

use crate::time::SimTime;

/// The terminal's place in piggybacking.
pub(in crate::system::ondemand) struct Group {
    /// The pending group (`Waiting`) or the stream slot (`Following`).
    index: u32,
    /// When this terminal asked for its video.
    requested_at: SimTime,
    /// A stream slot's members: the terminals watching it (empty for real terminals).
    members: Vec<u32>,
}

impl Group {
    pub fn new() -> Group {
        Group {
            index: 0,
            requested_at: SimTime::ZERO,
            members: Vec::new(),
        }
    }

    /// The pending group (`Waiting`) or the stream slot (`Following`).
    #[inline]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// When the terminal asked for its video.
    #[inline]
    pub fn requested_at(&self) -> SimTime {
        self.requested_at
    }

    /// A stream slot's members.
    #[inline]
    pub fn members(&self) -> &[u32] {
        &self.members
    }

    /// It waits for group `g`, asked now.
    pub fn wait(&mut self, g: u32, now: SimTime) {
        self.index = g;
        self.requested_at = now;
    }

    /// It asked at `at` (before it waited: for admission's probes).
    pub fn asked_at(&mut self, at: SimTime) {
        self.requested_at = at;
    }

    /// It follows stream slot `s`.
    pub fn follow(&mut self, s: u32) {
        self.index = s;
    }

    /// A stream slot: `members` watch it.
    pub fn lead(&mut self, members: Vec<u32>) {
        self.members = members;
    }

    /// A stream slot: terminal `t` stops watching it; whether none is left.
    pub fn leave(&mut self, t: usize) -> bool {
        self.members.retain(|&m| m as usize != t);
        self.members.is_empty()
    }

    /// A stream slot: its members, none left.
    pub fn take_members(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.members)
    }
}
