//! The future-event list: a radix heap ordered by (time, sequence number).
//!
//! Events are plain values of a small `Copy` enum stored inline in the buckets' vectors, so
//! scheduling allocates nothing once the vectors have grown to the run's peak size. Ties in
//! time are broken by the order of scheduling (FIFO), which makes every run deterministic.
//!
//! The key packs time and sequence number into one `u128`. Keys only grow — nothing is
//! scheduled before now, and sequence numbers increase — which is what a radix heap needs
//! (Ahuja, Mehlhorn, Orlin & Tarjan 1990): an entry lives in the bucket numbered by the
//! highest bit in which its key differs from the last key popped, so scheduling is a push
//! onto a vector, and popping takes the single entry equal to the last key, or else finds the
//! smallest key of the lowest non-empty bucket and redistributes that bucket into lower ones.
//! Every entry moves down a few buckets in its life instead of being sifted through a tree on
//! every operation; popping the earliest event is the engine's most frequent operation.

use crate::time::SimTime;

#[derive(Clone, Copy)]
struct Entry<E> {
    /// `time << 64 | seq`.
    key: u128,
    event: E,
}

/// Bucket 0 holds keys equal to the last key popped; bucket `i` keys whose highest bit
/// differing from it is bit `i - 1`.
const BUCKETS: usize = 129;

/// A deterministic priority queue of timed events.
pub struct EventQueue<E> {
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `i - 1` set when bucket `i` (1..=128) is non-empty.
    occupied: u128,
    last: u128,
    len: usize,
    seq: u64,
    now: SimTime,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn bucket(key: u128, last: u128) -> usize {
    (128 - (key ^ last).leading_zeros()) as usize
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        EventQueue {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            occupied: 0,
            last: 0,
            len: 0,
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
        let key = (u128::from(time.as_nanos()) << 64) | u128::from(self.seq);
        self.seq += 1;
        self.put(Entry { key, event });
        self.len += 1;
    }

    #[inline]
    fn put(&mut self, e: Entry<E>) {
        let b = bucket(e.key, self.last);
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
        if self.buckets[0].is_empty() {
            // the lowest non-empty bucket holds the minimum: make it the last key and
            // spread the bucket's other entries over lower buckets
            let i = self.occupied.trailing_zeros() as usize + 1;
            self.occupied &= !(1 << (i - 1));
            let mut moved = std::mem::take(&mut self.buckets[i]);
            self.last = moved.iter().map(|e| e.key).min().expect("occupied bucket");
            for e in moved.drain(..) {
                self.put(e);
            }
            self.buckets[i] = moved;
        }
        let top = self.buckets[0].pop().expect("the minimum is in bucket 0");
        self.len -= 1;
        let time = SimTime::from_nanos((top.key >> 64) as u64);
        self.now = time;
        Some((time, top.event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        let min = if let Some(e) = self.buckets[0].first() {
            e.key
        } else if self.occupied != 0 {
            let i = self.occupied.trailing_zeros() as usize + 1;
            self.buckets[i].iter().map(|e| e.key).min()?
        } else {
            return None;
        };
        Some(SimTime::from_nanos((min >> 64) as u64))
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
