//! Video libraries built once and shared by the runs that need the same one (a search's runs
//! of one seed at several terminal counts): [`LibraryMemo`].

use super::VideoLibrary;
use crate::system::ondemand::scenario::VideoSection;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Libraries already built, for runs that differ only in what leaves the library unchanged:
/// the same `[videos]`, seed, block size and search versions always give the same library,
/// so a search's runs of one seed at several terminal counts build it once (building is
/// about a fifth of a SPIFFI run). Holds at most `capacity` libraries, the least recently
/// used leaving first; safe to share between threads. Results do not depend on it.
pub struct LibraryMemo {
    capacity: usize,
    entries: Mutex<VecDeque<(String, VideoLibrary)>>,
}

impl LibraryMemo {
    /// An empty memo keeping up to `capacity` libraries (at least 1).
    pub fn new(capacity: usize) -> LibraryMemo {
        LibraryMemo {
            capacity: capacity.max(1),
            entries: Mutex::new(VecDeque::new()),
        }
    }

    /// [`VideoLibrary::build`] with these arguments, or a copy of the one built before.
    pub fn build(
        &self,
        v: &VideoSection,
        seed: u64,
        block: Option<u64>,
        speedup: Option<u32>,
    ) -> VideoLibrary {
        let key = format!(
            "{}|{seed}|{block:?}|{speedup:?}",
            serde_json::to_string(v).unwrap_or_default()
        );
        {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(i) = entries.iter().position(|(k, _)| *k == key) {
                let entry = entries.remove(i).expect("found");
                let lib = entry.1.clone();
                entries.push_back(entry);
                return lib;
            }
        }
        // built outside the lock; two threads may build the same one, with the same result
        let lib = VideoLibrary::build(v, seed, block, speedup);
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if !entries.iter().any(|(k, _)| *k == key) {
            if entries.len() >= self.capacity {
                entries.pop_front();
            }
            entries.push_back((key, lib.clone()));
        }
        lib
    }

    /// Libraries held.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl VideoLibrary {
    /// Whether `self` and `other` share one built set of videos (see [`LibraryMemo`]).
    pub fn shares_videos_with(&self, other: &VideoLibrary) -> bool {
        Arc::ptr_eq(&self.videos, &other.videos)
    }
}
