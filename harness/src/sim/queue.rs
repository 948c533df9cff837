//! The future-event list: a four-ary min-heap ordered by (time, sequence number).
//!
//! Events are plain values of a small `Copy` enum stored inline in the heap's vector, so
//! scheduling allocates nothing once the vector has grown to the run's peak size. Ties in time
//! are broken by the order of scheduling (FIFO), which makes every run deterministic. The key
//! packs time and sequence number into one `u128`, so an ordering test is one comparison, and
//! each node has four children, which halves the depth of the heap: popping the earliest
//! event is the engine's most frequent operation.

use crate::time::SimTime;

#[derive(Clone, Copy)]
struct Entry<E> {
    /// `time << 64 | seq`.
    key: u128,
    event: E,
}

const ARITY: usize = 4;

/// A deterministic priority queue of timed events.
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    seq: u64,
    now: SimTime,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1024),
            seq: 0,
            now: SimTime::ZERO,
        }
    }

    /// The time of the last event popped.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at `time` (never earlier than now).
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let time = time.max(self.now);
        let entry = Entry {
            key: (u128::from(time.as_nanos()) << 64) | u128::from(self.seq),
            event,
        };
        self.seq += 1;
        // sift up: move parents down until the new entry's place is found
        let mut i = self.heap.len();
        self.heap.push(entry);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= entry.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = entry;
    }

    /// Removes the earliest event and advances the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = self.heap[0];
            // sift `last` down from the root: move the smallest child up until it fits
            let n = self.heap.len();
            let mut i = 0;
            loop {
                let first = i * ARITY + 1;
                if first >= n {
                    break;
                }
                let end = (first + ARITY).min(n);
                let mut best = first;
                for c in first + 1..end {
                    if self.heap[c].key < self.heap[best].key {
                        best = c;
                    }
                }
                if self.heap[best].key >= last.key {
                    break;
                }
                self.heap[i] = self.heap[best];
                i = best;
            }
            self.heap[i] = last;
            top
        };
        let time = SimTime::from_nanos((top.key >> 64) as u64);
        self.now = time;
        Some((time, top.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap
            .first()
            .map(|e| SimTime::from_nanos((e.key >> 64) as u64))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Total events ever scheduled.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_fifo() {
        let mut q = EventQueue::new();
        q.schedule(SimTime::from_nanos(5), 'a');
        q.schedule(SimTime::from_nanos(1), 'b');
        q.schedule(SimTime::from_nanos(5), 'c');
        q.schedule(SimTime::from_nanos(1), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), SimTime::from_nanos(5));
        assert_eq!(q.scheduled(), 4);
    }

    #[test]
    fn matches_a_sorted_reference_under_interleaving() {
        use crate::rng::SimRng;
        use rand::{Rng, SeedableRng};
        let mut rng = SimRng::seed_from_u64(3);
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new(); // (time, seq), seq = the event
        let mut seq = 0u64;
        for _ in 0..20_000 {
            if rng.random_bool(0.55) || reference.is_empty() {
                // ties are frequent: times from a small range above now
                let t = q.now().as_nanos() + rng.random_range(0..50u64);
                q.schedule(SimTime::from_nanos(t), seq);
                reference.push((t, seq));
                seq += 1;
            } else {
                let i = (0..reference.len()).min_by_key(|&i| reference[i]).unwrap();
                let (t, e) = reference.swap_remove(i);
                assert_eq!(q.pop(), Some((SimTime::from_nanos(t), e)));
                assert_eq!(q.now(), SimTime::from_nanos(t));
            }
            assert_eq!(q.len(), reference.len());
            assert_eq!(
                q.peek_time(),
                reference.iter().min().map(|r| SimTime::from_nanos(r.0))
            );
        }
        while let Some(r) = q.pop() {
            let i = (0..reference.len()).min_by_key(|&i| reference[i]).unwrap();
            let (t, e) = reference.swap_remove(i);
            assert_eq!(r, (SimTime::from_nanos(t), e));
        }
        assert!(reference.is_empty() && q.is_empty());
    }
}
