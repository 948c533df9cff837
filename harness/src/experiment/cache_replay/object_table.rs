//! The replayer's page table, object id → page of the cached objects: a plain vector for
//! dense ids, an open-addressing hash table for any others, and the prefetch hint that hides
//! their lookups' cache misses.

/// An object's page: none.
pub(super) const NONE: u32 = u32::MAX;

/// Object id → page of the cached objects.
pub(super) trait ObjectTable {
    fn get(&self, object: u64) -> Option<u32>;
    fn insert(&mut self, object: u64, page: u32);
    fn remove(&mut self, object: u64) -> Option<u32>;
    /// A hint that `object` is looked up soon.
    fn prefetch(&self, object: u64);
}

impl ObjectTable for Vec<u32> {
    #[inline]
    fn get(&self, object: u64) -> Option<u32> {
        match self.as_slice().get(object as usize) {
            Some(&p) if p != NONE => Some(p),
            _ => None,
        }
    }
    #[inline]
    fn insert(&mut self, object: u64, page: u32) {
        self[object as usize] = page;
    }
    #[inline]
    fn remove(&mut self, object: u64) -> Option<u32> {
        let slot = self.get_mut(object as usize)?;
        let p = std::mem::replace(slot, NONE);
        (p != NONE).then_some(p)
    }
    #[inline]
    fn prefetch(&self, object: u64) {
        if let Some(p) = self.as_slice().get(object as usize) {
            prefetch(p);
        }
    }
}

/// Object ids of any value: an open-addressing table with linear probing, one 16-byte slot
/// per entry (id and page together: one cache line to look at), at most half full, grown
/// by doubling; deletion shifts the following entries back (no tombstones).
pub(super) struct HashedIds {
    slots: Vec<Slot>,
    shift: u32,
    len: usize,
}

#[derive(Copy, Clone)]
struct Slot {
    key: u64,
    page: u32,
}

const EMPTY: Slot = Slot { key: 0, page: NONE };

impl HashedIds {
    pub(super) fn with_capacity(entries: usize) -> Self {
        let n = (entries.max(8) * 2).next_power_of_two();
        HashedIds {
            slots: vec![EMPTY; n],
            shift: 64 - n.trailing_zeros(),
            len: 0,
        }
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    fn find(&self, key: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s.page == NONE {
                return Err(i);
            }
            if s.key == key {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        *self = HashedIds::with_capacity(old.len());
        for s in old.into_iter().filter(|s| s.page != NONE) {
            ObjectTable::insert(self, s.key, s.page);
        }
    }
}

impl ObjectTable for HashedIds {
    #[inline]
    fn get(&self, object: u64) -> Option<u32> {
        self.find(object).ok().map(|i| self.slots[i].page)
    }
    #[inline]
    fn insert(&mut self, object: u64, page: u32) {
        match self.find(object) {
            Ok(i) => self.slots[i].page = page,
            Err(i) => {
                self.slots[i] = Slot { key: object, page };
                self.len += 1;
                if self.len * 2 > self.slots.len() {
                    self.grow();
                }
            }
        }
    }
    fn remove(&mut self, object: u64) -> Option<u32> {
        let mut i = self.find(object).ok()?;
        let page = self.slots[i].page;
        self.len -= 1;
        let mask = self.slots.len() - 1;
        // backward-shift deletion: move up each following entry whose home is not in (i, j]
        let mut j = i;
        loop {
            self.slots[i] = EMPTY;
            loop {
                j = (j + 1) & mask;
                let s = self.slots[j];
                if s.page == NONE {
                    return Some(page);
                }
                let home = self.home(s.key);
                let stays = if i <= j {
                    i < home && home <= j
                } else {
                    i < home || home <= j
                };
                if !stays {
                    self.slots[i] = s;
                    i = j;
                    break;
                }
            }
        }
    }
    #[inline]
    fn prefetch(&self, object: u64) {
        prefetch(&self.slots[self.home(object)]);
    }
}

/// Asks the processor to bring `at` into the cache (nothing elsewhere than x86-64).
#[inline]
fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint; it never faults, whatever the address
        unsafe { _mm_prefetch::<_MM_HINT_T0>((at as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_ids_behave_as_a_map() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut t = HashedIds::with_capacity(4);
        let mut m = std::collections::HashMap::new();
        for step in 0..200_000u32 {
            // few distinct keys, many collisions in a small table, growth from 16 slots
            let key = crate::rng::mix64(rng.random_range(0..3000u64)) >> rng.random_range(0..40u32);
            if rng.random_bool(0.55) {
                t.insert(key, step);
                m.insert(key, step);
            } else {
                assert_eq!(t.remove(key), m.remove(&key), "remove {key}");
            }
            if step % 1000 == 0 {
                for (k, v) in &m {
                    assert_eq!(t.get(*k), Some(*v));
                }
                assert_eq!(t.len, m.len());
            }
        }
    }
}
