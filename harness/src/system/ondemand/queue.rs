//! The future-event list: a radix heap ordered by time, ties first-in first-out.
//!
//! Events are plain values of a small `Copy` enum stored inline in the buckets' vectors, so
//! scheduling allocates nothing once the vectors have grown to the run's peak size. Ties in
//! time are broken by the order of scheduling (FIFO), which makes every run deterministic.
//!
//! Keys (times) never fall below the last one popped — nothing is scheduled before now —
//! which is what a radix heap needs (Ahuja, Mehlhorn, Orlin & Tarjan 1990): an entry lives in
//! the bucket numbered by the highest bit in which its time differs from the last time
//! popped, so scheduling is a push onto a vector, and popping takes the next entry of bucket
//! 0 (times equal to the last one popped), or else finds the earliest time of the lowest
//! non-empty bucket and redistributes that bucket into lower ones. Every entry moves down a
//! few buckets in its life instead of being sifted through a tree on every operation;
//! popping the earliest event is the engine's most frequent operation.
//!
//! FIFO among equal times needs no sequence number in the key: every bucket holds its
//! entries in scheduling order. Direct pushes arrive in that order, and a bucket is only
//! ever refilled by redistribution while it is empty (all buckets below the lowest non-empty
//! one are empty), from a bucket already in order, with entries taken front to back.

use crate::time::SimTime;

#[derive(Clone, Copy)]
struct Entry<E> {
    /// Nanoseconds.
    time: u64,
    event: E,
}

/// Bucket 0 holds times equal to the last time popped; bucket `i` times whose highest bit
/// differing from it is bit `i - 1`.
const BUCKETS: usize = 65;

/// A deterministic priority queue of timed events.
pub struct EventQueue<E> {
    buckets: Vec<Vec<Entry<E>>>,
    /// The next entry of bucket 0 to pop (bucket 0 is a FIFO; it is cleared when exhausted).
    head: usize,
    /// Bit `i - 1` set when bucket `i` (1..=64) is non-empty.
    occupied: u64,
    last: u64,
    len: usize,
    scheduled: u64,
    now: SimTime,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn bucket(time: u64, last: u64) -> usize {
    (64 - (time ^ last).leading_zeros()) as usize
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            head: 0,
            occupied: 0,
            last: 0,
            len: 0,
            scheduled: 0,
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
        let time = time.max(self.now).as_nanos();
        self.scheduled += 1;
        self.put(Entry { time, event });
        self.len += 1;
    }

    #[inline]
    fn put(&mut self, e: Entry<E>) {
        let b = bucket(e.time, self.last);
        self.buckets[b].push(e);
        if b > 0 {
            self.occupied |= 1 << (b - 1);
        }
    }

    /// Removes the earliest event and advances the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.len == 0 {
            return None;
        }
        if self.head == self.buckets[0].len() {
            // bucket 0 is exhausted: the lowest non-empty bucket holds the minimum; make it
            // the last time and spread the bucket's entries, in order, over lower buckets
            self.buckets[0].clear();
            self.head = 0;
            let i = self.occupied.trailing_zeros() as usize + 1;
            self.occupied &= !(1 << (i - 1));
            let mut moved = std::mem::take(&mut self.buckets[i]);
            self.last = moved.iter().map(|e| e.time).min().expect("occupied bucket");
            for e in moved.drain(..) {
                self.put(e);
            }
            self.buckets[i] = moved;
        }
        let top = self.buckets[0][self.head];
        self.head += 1;
        self.len -= 1;
        let time = SimTime::from_nanos(top.time);
        self.now = time;
        Some((time, top.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        let min = if let Some(e) = self.buckets[0].get(self.head) {
            e.time
        } else if self.occupied != 0 {
            let i = self.occupied.trailing_zeros() as usize + 1;
            self.buckets[i].iter().map(|e| e.time).min()?
        } else {
            return None;
        };
        Some(SimTime::from_nanos(min))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Total events ever scheduled.
    pub fn scheduled(&self) -> u64 {
        self.scheduled
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
    fn a_redistributed_bucket_keeps_its_ties_in_order() {
        // all four share one bucket above time 0; the pop that spreads it keeps the two
        // entries of the earliest time in their order, ahead of an event scheduled at that
        // time afterwards
        let mut q = EventQueue::new();
        for (t, e) in [(8, 'a'), (9, 'b'), (8, 'c'), (12, 'd')] {
            q.schedule(SimTime::from_nanos(t), e);
        }
        assert_eq!(q.pop(), Some((SimTime::from_nanos(8), 'a')));
        assert_eq!(q.peek_time(), Some(SimTime::from_nanos(8)));
        q.schedule(SimTime::from_nanos(8), 'e');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['c', 'e', 'b', 'd']);
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
