//! Jadav et al. §6's schemes for a popular object (`[server.replication]`): the object
//! manager's popularity detection (§6.2), the routing of each viewing to an interface node,
//! and where each fragment of a viewing comes from — the storage nodes (RDSS), the dedicated
//! interface node's local disks (LDSS) or its memory (LMSS's prefix).
//!
//! * **Detection.** The manager logs every viewing request (every admitted start) with its
//!   time. The first object asked for at least `threshold` times within the last `window`
//!   (the request just made included) becomes the popular object; one dedicated interface
//!   node holds one copy, so no second object is replicated, and the object stays popular
//!   for the run (the paper's demotion, when the rate falls below the threshold, frees the
//!   node for another object: with one hot object in a run it never happens).
//! * **Routing.** The paper's "when the next request for that object comes in" (§6.2): the
//!   request that makes the object popular is still served as before; from the next one on,
//!   every viewing of it goes to the dedicated interface node (the last one). Every other
//!   viewing goes to the other interface nodes, terminal t to t mod (interface nodes − 1).
//!   Under RDSS, terminal t goes to t mod (interface nodes), as without the table.
//! * **The copy.** A fragment of the popular object that the dedicated node fetched from the
//!   storage nodes (for any of its viewings) is kept: within the prefix (LMSS) in memory,
//!   past it on the local disks, written in the background at no cost (§6.2: "disk writes
//!   are non-blocking and can proceed in the background"). A later viewing there reads a
//!   kept fragment locally; a fragment not kept yet (a viewing ahead of the first) is
//!   fetched from the storage nodes as under RDSS, and kept.
//! * **Local reads.** Fragment k is on local disk k mod `local_disks`, at offset
//!   (k div `local_disks`) × the stripe, contiguous; the access goes straight to that disk's
//!   queue (with its deadline, under `[disk.scheduler]`), and its data reaches the stream at
//!   the end of the access: N_C = N_Q = 0, S_Q the wait in the local disk's queue, D_S, D_R
//!   and D_T the local disk's. A prefix fragment in memory reaches the stream at once, with
//!   no disk access (a request with no disk components: `other_requests` in the delays).

use crate::ids::BlockId;
use crate::results::ReplicationSummary;
use crate::time::{SimDuration, SimTime};
use crate::units::Portion;
use std::collections::{BTreeMap, VecDeque};

use super::spec::{ReplicationSection, Scheme};

/// The object manager's popularity detection (§6.2): window Δ_t and threshold Th_pop.
pub(super) struct Manager {
    window: SimDuration,
    threshold: u32,
    /// Each object's requests within the window, oldest first.
    log: BTreeMap<u32, VecDeque<SimTime>>,
    /// The popular object and when it was detected.
    popular: Option<(u32, SimTime)>,
}

impl Manager {
    pub fn new(window: SimDuration, threshold: u32) -> Self {
        Manager {
            window,
            threshold: threshold.max(1),
            log: BTreeMap::new(),
            popular: None,
        }
    }

    /// A viewing request for `video` at `now` (in time order): whether `video` was popular
    /// before this request. The request is logged, and may make it popular.
    pub fn request(&mut self, video: u32, now: SimTime) -> bool {
        if let Some((p, _)) = self.popular {
            return p == video;
        }
        let times = self.log.entry(video).or_default();
        times.push_back(now);
        // the window is (now − Δ_t, now]
        while let Some(&t) = times.front() {
            if now.saturating_since(t) >= self.window {
                times.pop_front();
            } else {
                break;
            }
        }
        if times.len() >= self.threshold as usize {
            self.popular = Some((video, now));
            // nothing else is replicated: the log is not needed any more
            self.log.clear();
        }
        false
    }

    /// The popular object and when it became so.
    pub fn popular(&self) -> Option<(u32, SimTime)> {
        self.popular
    }
}

/// Where a fragment of a viewing comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// From its storage node over the interconnect (RDSS).
    Remote,
    /// From the dedicated interface node's local disk `disk` (an index among the local
    /// disks) at `offset`.
    Disk { disk: u32, offset: u64 },
    /// From the dedicated interface node's memory (LMSS's prefix).
    Memory,
}

/// The scheme, the manager, the routing of viewings and the copy of the popular object.
pub(super) struct Replication {
    scheme: Scheme,
    manager: Manager,
    interfaces: u32,
    local_disks: u32,
    block_bytes: u64,
    /// LMSS's prefix, and each object's fragments (for the popular one's prefix).
    prefix: Option<Portion>,
    object_blocks: Vec<u32>,
    /// The dedicated interface node's network node number (after the storage nodes) and its
    /// first local disk's index among all disks ([`Replication::place`]).
    node: u32,
    first_disk: u32,
    /// Whether each terminal's current viewing is at the dedicated interface node.
    dedicated: Vec<bool>,
    /// Which fragments of the popular object the dedicated node keeps.
    kept: Vec<bool>,
    // counted over the whole run
    viewings: u64,
    viewings_dedicated: u64,
    kept_fragments: u64,
    // counted in the measured period
    from_disk: u64,
    from_memory: u64,
    fetched_dedicated: u64,
}

impl Replication {
    /// The scheme of `r` with `interfaces` interface nodes, `terminals` terminals and
    /// fragments of `block_bytes`, for objects of `blocks` fragments each.
    pub fn new(
        r: &ReplicationSection,
        interfaces: u32,
        terminals: u32,
        block_bytes: u64,
        blocks: &[u32],
    ) -> Self {
        Replication {
            scheme: r.scheme,
            manager: Manager::new(SimDuration::from_nanos(r.window.0), r.threshold),
            interfaces,
            local_disks: r.local_disks.max(1),
            block_bytes,
            prefix: (r.scheme == Scheme::Lmss).then_some(r.prefix).flatten(),
            object_blocks: blocks.to_vec(),
            node: 0,
            first_disk: 0,
            dedicated: vec![false; terminals as usize],
            kept: Vec::new(),
            viewings: 0,
            viewings_dedicated: 0,
            kept_fragments: 0,
            from_disk: 0,
            from_memory: 0,
            fetched_dedicated: 0,
        }
    }

    /// With `storage_nodes` storage nodes, the local disks are disks `first_disk ..` of the
    /// server.
    pub fn place(&mut self, storage_nodes: u32, first_disk: u32) {
        self.node = storage_nodes + self.dedicated_interface();
        self.first_disk = first_disk;
    }

    /// The dedicated interface node's network node number and the index among all disks
    /// of its local disk `disk`.
    pub fn local_disk(&self, disk: u32) -> (u32, u32) {
        (self.node, self.first_disk + disk)
    }

    /// The popular object's fragments held in memory (LMSS; 0 before detection).
    fn prefix_blocks(&self) -> u64 {
        let (Some(p), Some((v, _))) = (self.prefix, self.manager.popular()) else {
            return 0;
        };
        let blocks = u64::from(self.object_blocks.get(v as usize).copied().unwrap_or(0));
        p.of(blocks).min(blocks)
    }

    /// Whether the scheme keeps a copy (LDSS, LMSS), so that it needs the local disks.
    pub fn replicates(&self) -> bool {
        self.scheme != Scheme::Rdss
    }

    /// Local disks of the dedicated interface node.
    pub fn local_disks(&self) -> u32 {
        if self.replicates() {
            self.local_disks
        } else {
            0
        }
    }

    /// The dedicated interface node (an index among the interface nodes).
    pub fn dedicated_interface(&self) -> u32 {
        self.interfaces.saturating_sub(1)
    }

    /// Terminal `t` starts a viewing of `video` at `now`: the manager logs the request and
    /// delegates it; the interface node (an index among them) that serves the viewing.
    pub fn viewing(&mut self, t: u32, video: u32, now: SimTime) -> u32 {
        self.viewings += 1;
        if !self.replicates() {
            return t.checked_rem(self.interfaces).unwrap_or(0);
        }
        let popular = self.manager.request(video, now);
        self.dedicated[t as usize] = popular;
        if popular {
            self.viewings_dedicated += 1;
            self.dedicated_interface()
        } else {
            t.checked_rem(self.interfaces - 1).unwrap_or(0)
        }
    }

    /// Where terminal `t`'s fragment `block` comes from (for its current viewing).
    pub fn source(&self, t: u32, block: BlockId) -> Source {
        if !self.dedicated.get(t as usize).copied().unwrap_or(false) {
            return Source::Remote;
        }
        let k = block.index as usize;
        if !self.kept.get(k).copied().unwrap_or(false) {
            return Source::Remote;
        }
        if (k as u64) < self.prefix_blocks() {
            return Source::Memory;
        }
        let l = u64::from(self.local_disks);
        Source::Disk {
            disk: (k as u64 % l) as u32,
            offset: (k as u64 / l) * self.block_bytes,
        }
    }

    /// A local read of `source` began (in the measured period when `measuring`).
    pub fn local(&mut self, source: Source, measuring: bool) {
        if measuring {
            match source {
                Source::Disk { .. } => self.from_disk += 1,
                Source::Memory => self.from_memory += 1,
                Source::Remote => {}
            }
        }
    }

    /// Terminal `t`'s fragment `block` arrived from the storage nodes: the dedicated node
    /// keeps a fragment of the popular object.
    pub fn fetched(&mut self, t: u32, block: BlockId, measuring: bool) {
        if !self.dedicated.get(t as usize).copied().unwrap_or(false) {
            return;
        }
        if self.manager.popular().map(|(v, _)| v) != Some(block.video.0) {
            return;
        }
        if measuring {
            self.fetched_dedicated += 1;
        }
        let k = block.index as usize;
        if self.kept.len() <= k {
            self.kept.resize(k + 1, false);
        }
        if !self.kept[k] {
            self.kept[k] = true;
            self.kept_fragments += 1;
        }
    }

    /// `summary.json`'s `replication`.
    pub fn report(&self) -> ReplicationSummary {
        let popular = self.manager.popular();
        ReplicationSummary {
            scheme: self.scheme.name().to_string(),
            popular_video: popular.map(|(v, _)| u64::from(v)),
            detected_ns: popular.map(|(_, t)| t.as_nanos()),
            dedicated_interface: self
                .replicates()
                .then(|| u64::from(self.dedicated_interface())),
            viewings: self.viewings,
            viewings_dedicated: self.viewings_dedicated,
            kept_fragments: self.kept_fragments,
            prefix_fragments: self.prefix_blocks(),
            local_disk_reads: self.from_disk,
            memory_reads: self.from_memory,
            dedicated_remote_reads: self.fetched_dedicated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VideoId;
    use crate::units::{Duration, Portion};

    fn at(s: u64) -> SimTime {
        SimTime::from_nanos(s * 1_000_000_000)
    }

    fn section(scheme: Scheme, prefix: Option<Portion>) -> ReplicationSection {
        ReplicationSection {
            scheme,
            window: Duration(60_000_000_000),
            threshold: 3,
            local_disks: 2,
            prefix,
        }
    }

    fn block(video: u32, index: u32) -> BlockId {
        BlockId {
            video: VideoId(video),
            index,
        }
    }

    #[test]
    fn detection_after_exactly_threshold_requests_in_the_window() {
        let mut m = Manager::new(SimDuration::from_nanos(60_000_000_000), 3);
        // video 7 at 0 s and 10 s, video 9 in between: two in the window, not popular
        assert!(!m.request(7, at(0)));
        assert!(!m.request(9, at(5)));
        assert!(!m.request(7, at(10)));
        assert_eq!(m.popular(), None);
        // 65 s: the request at 0 s left the window (60 s), so 10 s and 65 s make two
        assert!(!m.request(7, at(65)));
        assert_eq!(m.popular(), None);
        // the third within (9 s, 69 s]: popular from now, but this request was not yet
        assert!(!m.request(7, at(69)));
        assert_eq!(m.popular(), Some((7, at(69))));
        // the next request for it is a popular one; others never become popular
        assert!(m.request(7, at(70)));
        for s in 71..80 {
            assert!(!m.request(9, at(s)));
        }
        assert_eq!(m.popular(), Some((7, at(69))));
    }

    #[test]
    fn a_request_exactly_one_window_old_has_left_it() {
        let mut m = Manager::new(SimDuration::from_nanos(60_000_000_000), 2);
        m.request(1, at(0));
        m.request(1, at(60));
        assert_eq!(m.popular(), None);
        m.request(1, at(61));
        assert_eq!(m.popular(), Some((1, at(61))));
    }

    #[test]
    fn popular_viewings_go_to_the_dedicated_interface_node_per_viewing() {
        let mut r = Replication::new(&section(Scheme::Ldss, None), 6, 12, 65_536, &[100; 50]);
        assert_eq!(r.dedicated_interface(), 5);
        // three requests for video 0 make it popular; they are served at t mod 5
        assert_eq!(r.viewing(0, 0, at(1)), 0);
        assert_eq!(r.viewing(6, 0, at(2)), 1);
        assert_eq!(r.viewing(7, 0, at(3)), 2);
        // a distinct object never goes to the dedicated node
        assert_eq!(r.viewing(10, 44, at(4)), 0);
        // the next viewing of video 0 does, whatever its terminal slot
        assert_eq!(r.viewing(10, 0, at(5)), 5);
        assert_eq!(r.viewing(3, 0, at(6)), 5);
        // and the same slot's next viewing of another object leaves it
        assert_eq!(r.viewing(10, 45, at(7)), 0);
        assert_eq!(r.source(10, block(45, 0)), Source::Remote);
        let s = r.report();
        assert_eq!((s.viewings, s.viewings_dedicated), (7, 2));
        assert_eq!(s.popular_video, Some(0));
        assert_eq!(s.detected_ns, Some(at(3).as_nanos()));
        // RDSS deals slots over every interface node and never dedicates one
        let mut rdss = Replication::new(&section(Scheme::Rdss, None), 6, 12, 65_536, &[100; 50]);
        for s in 0..5 {
            assert_eq!(rdss.viewing(11, 0, at(s)), 5);
        }
        assert_eq!(rdss.source(11, block(0, 0)), Source::Remote);
        // and without interface nodes every terminal is its own endpoint (interface 0)
        let mut none = Replication::new(&section(Scheme::Rdss, None), 0, 2, 65_536, &[1; 1]);
        none.place(4, 4);
        assert_eq!(none.viewing(1, 0, at(0)), 0);
    }

    #[test]
    fn fragments_fetched_at_the_dedicated_node_are_read_locally_afterwards() {
        let mut r = Replication::new(&section(Scheme::Ldss, None), 3, 4, 65_536, &[100; 50]);
        for s in 0..3 {
            r.viewing(0, 0, at(s));
        }
        assert_eq!(r.viewing(1, 0, at(4)), 2);
        assert_eq!(r.viewing(2, 0, at(5)), 2);
        // the first viewing at the dedicated node fetches fragment 3 remotely and keeps it
        assert_eq!(r.source(1, block(0, 3)), Source::Remote);
        r.fetched(1, block(0, 3), true);
        // fragment 3 is now on local disk 3 mod 2 = 1, at offset 1 fragment in
        assert_eq!(
            r.source(2, block(0, 3)),
            Source::Disk {
                disk: 1,
                offset: 65_536
            }
        );
        // a fragment not kept yet comes from the storage nodes
        assert_eq!(r.source(2, block(0, 4)), Source::Remote);
        // a viewing not at the dedicated node keeps nothing
        r.fetched(0, block(0, 4), true);
        assert_eq!(r.source(2, block(0, 4)), Source::Remote);
        assert_eq!(r.report().kept_fragments, 1);
    }

    #[test]
    fn the_prefix_is_read_from_memory_with_no_disk_access() {
        let lmss = section(Scheme::Lmss, Some(Portion::Count(2)));
        let mut r = Replication::new(&lmss, 2, 2, 65_536, &[10; 5]);
        for s in 0..4 {
            r.viewing(0, 0, at(s));
        }
        assert_eq!(r.viewing(1, 0, at(5)), 1);
        for k in 0..4 {
            r.fetched(0, block(0, k), true);
        }
        assert_eq!(r.source(0, block(0, 0)), Source::Memory);
        assert_eq!(r.source(0, block(0, 1)), Source::Memory);
        assert_eq!(
            r.source(0, block(0, 2)),
            Source::Disk {
                disk: 0,
                offset: 65_536
            }
        );
        r.local(Source::Memory, true);
        r.local(Source::Disk { disk: 0, offset: 0 }, true);
        let s = r.report();
        assert_eq!((s.memory_reads, s.local_disk_reads), (1, 1));
        assert_eq!(s.prefix_fragments, 2);
    }
}
