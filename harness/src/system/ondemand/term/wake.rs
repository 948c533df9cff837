//! A terminal's pending wake-up: one at a time, the earlier ones made stale by a generation
//! number carried in the `Wake` event.

use crate::time::SimTime;

/// The terminal's pending wake-up.
pub(in crate::system::ondemand) struct Wake {
    /// Generation of the pending wake-up: a `Wake` event carrying another one is stale.
    gen: u32,
    /// When the pending wake-up fires (`SimTime::MAX`: none pending).
    at: SimTime,
}

impl Wake {
    pub fn new() -> Wake {
        Wake {
            gen: 0,
            at: SimTime::MAX,
        }
    }

    /// Makes the pending wake-up, if any, stale.
    #[inline]
    pub fn cancel(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        self.at = SimTime::MAX;
    }

    /// A wake-up at `at` replaces the pending one: its generation, to schedule with it, or
    /// `None` when the pending one is already at `at` (it stays, so no stale event is
    /// queued).
    #[inline]
    pub fn set(&mut self, at: SimTime) -> Option<u32> {
        if self.at == at {
            return None;
        }
        self.cancel();
        self.at = at;
        Some(self.gen)
    }

    /// A wake-up of generation `gen` fired: whether it is the pending one (then none is
    /// pending any more).
    #[inline]
    pub fn fired(&mut self, gen: u32) -> bool {
        if self.gen != gen {
            return false;
        }
        self.at = SimTime::MAX;
        true
    }
}
