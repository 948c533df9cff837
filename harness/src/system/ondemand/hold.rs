//! The event queue's speed on its own, under the classic hold model: `pending` events wait,
//! and every pop schedules one new event a random increment after the popped one, so the
//! queue stays at its size, as in a simulation in steady state. [`hold_queue`] runs it on
//! the engine's queue (a radix heap, ties first-in first-out) with the engine's event type;
//! [`hold_heap`] runs the same loop on a bare `std::collections::BinaryHeap` of the same
//! events, ordered by (time, scheduling order) to keep the same ties: the yardstick of
//! `harness/benches/event_queue.rs`.

use super::event::Ev;
use super::queue::EventQueue;
use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Increments between an event and the one it schedules: nanoseconds drawn uniformly below
/// 2 ms from the random stream of `seed`, 4096 of them used round-robin.
fn increments(seed: u64) -> Vec<u64> {
    use rand::Rng;
    let mut rng = crate::rng::stream(seed, "hold", 0);
    (0..4096)
        .map(|_| rng.random_range(0..2_000_000u64))
        .collect()
}

/// `pops` pops of a hold model of `pending` events on the engine's [`EventQueue`]; the sum of
/// the popped times (the same as [`hold_heap`]'s).
pub fn hold_queue(pending: usize, pops: u64, seed: u64) -> u64 {
    let inc = increments(seed);
    let mut q = EventQueue::new();
    for i in 0..pending {
        q.schedule(
            SimTime::from_nanos(inc[i % inc.len()]),
            Ev::Wake(i as u32, 0),
        );
    }
    let mut sum = 0u64;
    for k in 0..pops {
        let Some((t, e)) = q.pop() else { break };
        sum = sum.wrapping_add(t.as_nanos());
        let next = t.as_nanos() + inc[k as usize % inc.len()];
        q.schedule(SimTime::from_nanos(next), e);
    }
    sum
}

/// An event in the bare heap, ordered by (time, scheduling order) reversed (a min-heap).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Timed {
    time: u64,
    seq: u64,
    event: Ev,
}

impl Ord for Timed {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

impl PartialOrd for Timed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// [`hold_queue`] on a bare `BinaryHeap` of the same events.
pub fn hold_heap(pending: usize, pops: u64, seed: u64) -> u64 {
    let inc = increments(seed);
    let mut h = BinaryHeap::with_capacity(pending + 1);
    let mut seq = 0u64;
    for i in 0..pending {
        h.push(Timed {
            time: inc[i % inc.len()],
            seq,
            event: Ev::Wake(i as u32, 0),
        });
        seq += 1;
    }
    let mut sum = 0u64;
    for k in 0..pops {
        let Some(top) = h.pop() else { break };
        sum = sum.wrapping_add(top.time);
        h.push(Timed {
            time: top.time + inc[k as usize % inc.len()],
            seq,
            event: top.event,
        });
        seq += 1;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_queues_pop_the_same_times() {
        for pending in [1, 100, 5000] {
            assert_eq!(
                hold_queue(pending, 20_000, 7),
                hold_heap(pending, 20_000, 7)
            );
        }
    }
}
