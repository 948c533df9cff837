//! Read-ahead (SPIFFI §5.2.3): the [`Prefetcher`] plugin and, per disk, the prefetches it
//! has outstanding and the instant it asked to be polled again.
//!
//! The engine reports every real reference and polls the prefetcher for a disk whenever its
//! queue may have changed; this component keeps the per-disk state the plugin is promised
//! (its in-flight count) and checks its answers (a disk that exists; a wake-up in the
//! future; not endless candidates in one poll).

use crate::ids::DiskId;
use crate::plugin::{Layout, PrefetchPoll, Prefetcher, Reference};
use crate::time::SimTime;

/// Most candidates one poll may return before the prefetcher is declared broken.
pub(super) const MAX_CANDIDATES_PER_POLL: usize = 100_000;

/// The prefetcher and its per-disk state.
pub(super) struct Prefetching {
    plugin: Box<dyn Prefetcher>,
    /// The plugin's name, for contract errors.
    pub name: &'static str,
    in_flight: Vec<u32>,
    wake: Vec<SimTime>,
}

impl Prefetching {
    /// `plugin` over `disks` disks.
    pub fn new(plugin: Box<dyn Prefetcher>, name: &'static str, disks: usize) -> Self {
        Prefetching {
            plugin,
            name,
            in_flight: vec![0; disks],
            wake: vec![SimTime::MAX; disks],
        }
    }

    /// A terminal's real reference; the disk whose prefetch queue changed, if any.
    pub fn on_reference(&mut self, r: &Reference, layout: &dyn Layout) -> Option<DiskId> {
        self.plugin.on_reference(r, layout)
    }

    /// What the prefetcher wants at `disk` now.
    pub fn poll(&mut self, disk: usize, now: SimTime) -> PrefetchPoll {
        self.plugin
            .poll(DiskId(disk as u32), self.in_flight[disk], now)
    }

    /// The prefetcher asked to be polled for `disk` at `t`: whether that is earlier than the
    /// wake-up already pending (then a wake-up event is due at `t`).
    pub fn wake_at(&mut self, disk: usize, t: SimTime) -> bool {
        if t < self.wake[disk] {
            self.wake[disk] = t;
            true
        } else {
            false
        }
    }

    /// A wake-up event for `disk` fired at `now`: whether it is the pending one (stale
    /// events, superseded by an earlier one, are ignored).
    pub fn woken(&mut self, disk: usize, now: SimTime) -> bool {
        if self.wake[disk] <= now {
            self.wake[disk] = SimTime::MAX;
            true
        } else {
            false
        }
    }

    /// A prefetch was issued at `disk`.
    pub fn issued(&mut self, disk: usize) {
        self.in_flight[disk] += 1;
    }

    /// A prefetch at `disk` completed.
    pub fn completed(&mut self, disk: usize) {
        self.in_flight[disk] -= 1;
    }
}

impl Prefetching {
    /// `[prefetcher]` over the storage disks, the prefetcher seeing the disks' `geometry`.
    pub(super) fn build(
        setup: &super::setup::Setup<'_>,
        geometry: Option<crate::plugin::DiskGeometry>,
    ) -> Result<Self, super::scenario::ScenarioError> {
        use super::scenario::PREFETCHER;
        let chosen = setup.scenario.plugins.required(&PREFETCHER);
        let mut c = setup.context(PREFETCHER.key, 0);
        c.geometry = geometry;
        let plugin = chosen
            .build(&c)
            .map_err(setup.plugin_error(PREFETCHER.key, chosen.name))?;
        Ok(Prefetching::new(
            plugin,
            chosen.name,
            setup.scenario.disks() as usize,
        ))
    }
}
