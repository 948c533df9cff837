//! Jadav et al. §6's schemes for popular objects (`[server.replication]`): the object
//! manager's popularity detection and demotion (§6.2), the routing of each viewing to an
//! interface node, and where each fragment of a viewing comes from — the storage nodes
//! (RDSS), a dedicated interface node's local disks (LDSS) or its memory (LMSS's prefix).
//!
//! * **The log.** The manager logs every viewing request (every start, before admission
//!   decides it, so a refused one too) with its time, for the whole run, and counts each
//!   object's requests within the last `window` Δ_t: the window at `now` is
//!   (now − Δ_t, now], so a request made at t leaves it at exactly t + Δ_t.
//! * **Promotion (detection).** At a request for an object that is not popular, once the
//!   requests older than the window have left it and this one is logged: if the object's
//!   count is at least `threshold` Th_pop, it becomes popular at a free dedicated node — the
//!   one still holding its copy (it was popular there before) if that one is free, else the
//!   lowest-numbered free one. With no dedicated node free it is not promoted: the request is
//!   counted (`waiting_requests`), and the object is promoted at the first later request for
//!   it that finds a node free while its count is still at least `threshold`. Promotion
//!   happens only at a request for the object.
//! * **Demotion.** §6.2 (line 274): "it is also necessary to keep track of when the frequency
//!   of access of a object falls below the threshold". A popular object is demoted at the
//!   instant its count falls below `threshold`, which is the instant t + Δ_t its oldest
//!   counted request leaves the window. The manager applies the departures when it next
//!   hears of a request (first, before that request counts: a request exactly Δ_t old has
//!   left), each at its own instant, in time order; the node freed is used by nothing but a
//!   later request's promotion, so this decides the same as watching every instant, and
//!   everything depends on the requests' simulated times alone. The demotions still due at
//!   the end of the run are recorded when the run is reported.
//! * **Routing.** The paper's "when the next request for that object comes in" (§6.2): the
//!   request that makes an object popular is served as before; from the next one on, every
//!   viewing of it goes to its dedicated interface node, until it is demoted. The last
//!   `dedicated_interfaces` = n interface nodes are the dedicated ones, each holding at most
//!   one popular object at a time (dedicated node j, 0-based, is interface node
//!   interfaces − n + j); every other viewing — of an object not popular, or of a demoted
//!   one — goes to the other interface nodes, terminal t to t mod (interfaces − n). Under
//!   RDSS, terminal t goes to t mod (interfaces), as without the table.
//! * **The copy.** A fragment of a node's object that the node fetched from the storage
//!   nodes (for any of its viewings of that object) is kept: within the prefix (LMSS) in its
//!   memory, past it on its local disks, written in the background at no cost (§6.2: "disk
//!   writes are non-blocking and can proceed in the background"). A later viewing there
//!   reads a kept fragment locally; a fragment not kept yet (a viewing ahead of the first)
//!   is fetched from the storage nodes as under RDSS, and kept.
//! * **After demotion.** §6.2: "the disk space occupied by that object at the I node can be
//!   used to store another popular object". The copy stays on the node until another object
//!   is promoted there: viewings of the demoted object still in progress at the node keep
//!   being served there, keep reading the copy and keep adding to it. When the next object
//!   is promoted at the node, its fragments take the space of the old copy's as they are
//!   written: fragment k of either object has the same place (below), so keeping the new
//!   object's fragment k overwrites the old object's fragment k, and only that one. The
//!   demoted object's viewings still at the node read every fragment of the old copy not
//!   overwritten yet locally, and fetch the others from the storage nodes, keeping nothing
//!   (the space is the new object's). An object promoted again at a node still holding
//!   fragments of its copy reads them there.
//! * **Local reads.** Fragment k is on the node's local disk k mod `local_disks`, at offset
//!   (k div `local_disks`) × the stripe, contiguous; the access goes straight to that disk's
//!   queue (with its deadline, under `[disk.scheduler]`), and its data reaches the stream at
//!   the end of the access: N_C = N_Q = 0, S_Q the wait in the local disk's queue, D_S, D_R
//!   and D_T the local disk's. A prefix fragment in memory reaches the stream at once, with
//!   no disk access (a request with no disk components: `other_requests` in the delays).

use crate::ids::BlockId;
use crate::results::{PopularityChange, ReplicationSummary};
use crate::time::{SimDuration, SimTime};
use crate::units::Portion;
use std::collections::{BTreeMap, VecDeque};

use super::scenario::{ReplicationSection, Scheme};

/// Promotions and demotions listed in `summary.json` (each kind; all are counted).
const LISTED: usize = 1000;

/// What the manager did with one viewing request ([`Manager::request`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Delegation {
    /// The dedicated node (0-based among them) serving this viewing: the object was popular
    /// there before the request.
    pub serving: Option<u32>,
    /// The dedicated node the request made the object popular at.
    pub promoted: Option<u32>,
}

/// One promotion or demotion: the object, its dedicated node (0-based among them) and when.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Change {
    pub video: u32,
    pub node: u32,
    pub at: SimTime,
}

/// The object manager's popularity detection and demotion (§6.2): window Δ_t, threshold
/// Th_pop, and `nodes` dedicated interface nodes.
#[derive(Clone)]
pub(super) struct Manager {
    window: SimDuration,
    threshold: u32,
    /// Every request within the window, oldest first.
    recent: VecDeque<(SimTime, u32)>,
    /// Each object's requests within the window (objects with none are absent).
    count: BTreeMap<u32, u32>,
    /// Each dedicated node's popular object (`None`: free).
    held: Vec<Option<u32>>,
    /// Each dedicated node's copy: the object it last held (kept after its demotion until
    /// the next promotion there).
    copy: Vec<Option<u32>>,
    promotions: Vec<Change>,
    demotions: Vec<Change>,
    promoted: u64,
    demoted: u64,
    /// Requests that found their object at the threshold, not popular, and no node free.
    waiting: u64,
}

impl Manager {
    pub fn new(window: SimDuration, threshold: u32, nodes: u32) -> Self {
        let nodes = nodes.max(1) as usize;
        Manager {
            window,
            threshold: threshold.max(1),
            recent: VecDeque::new(),
            count: BTreeMap::new(),
            held: vec![None; nodes],
            copy: vec![None; nodes],
            promotions: Vec::new(),
            demotions: Vec::new(),
            promoted: 0,
            demoted: 0,
            waiting: 0,
        }
    }

    /// The requests that left the window by `now` (those made at or before now − Δ_t)
    /// leave it, each at its own instant: a popular object whose count falls below the
    /// threshold is demoted then.
    fn expire(&mut self, now: SimTime) {
        while let Some(&(t, video)) = self.recent.front() {
            if now.saturating_since(t) < self.window {
                break;
            }
            self.recent.pop_front();
            let left = match self.count.get_mut(&video) {
                Some(c) => {
                    *c -= 1;
                    *c
                }
                None => continue,
            };
            if left == 0 {
                self.count.remove(&video);
            }
            if left < self.threshold {
                if let Some(node) = self.node_of(video) {
                    self.held[node as usize] = None;
                    let change = Change {
                        video,
                        node,
                        at: t + self.window,
                    };
                    self.demoted += 1;
                    if self.demotions.len() < LISTED {
                        self.demotions.push(change);
                    }
                }
            }
        }
    }

    /// The dedicated node `video` is popular at.
    fn node_of(&self, video: u32) -> Option<u32> {
        self.held
            .iter()
            .position(|h| *h == Some(video))
            .map(|n| n as u32)
    }

    /// A viewing request for `video` at `now` (in time order): whether and where it was
    /// popular before this request, and where this request made it popular.
    pub fn request(&mut self, video: u32, now: SimTime) -> Delegation {
        self.expire(now);
        let serving = self.node_of(video);
        self.recent.push_back((now, video));
        let c = self.count.entry(video).or_insert(0);
        *c += 1;
        let mut promoted = None;
        if serving.is_none() && *c >= self.threshold {
            let again = self
                .copy
                .iter()
                .position(|o| *o == Some(video))
                .filter(|&n| self.held[n].is_none());
            match again.or_else(|| self.held.iter().position(Option::is_none)) {
                Some(n) => {
                    self.held[n] = Some(video);
                    self.copy[n] = Some(video);
                    let change = Change {
                        video,
                        node: n as u32,
                        at: now,
                    };
                    self.promoted += 1;
                    if self.promotions.len() < LISTED {
                        self.promotions.push(change);
                    }
                    promoted = Some(n as u32);
                }
                None => self.waiting += 1,
            }
        }
        Delegation { serving, promoted }
    }

    /// The first object found popular, and when.
    pub fn first(&self) -> Option<Change> {
        self.promotions.first().copied()
    }

    /// The object each dedicated node holds now.
    #[cfg(test)]
    pub fn held(&self) -> &[Option<u32>] {
        &self.held
    }
}

/// Where a fragment of a viewing comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// From its storage node over the interconnect (RDSS).
    Remote,
    /// From dedicated node `node`'s (0-based among them) local disk `disk` (an index among
    /// its local disks) at `offset`.
    Disk { node: u32, disk: u32, offset: u64 },
    /// From dedicated node `node`'s memory (LMSS's prefix).
    Memory { node: u32 },
}

/// A place of a copy that holds nothing.
const EMPTY_SLOT: u32 = u32::MAX;

/// One dedicated node's copy: the object whose fragments it keeps, and what each place
/// holds (place k holds fragment k of some object, kept there until fragment k of another
/// object overwrites it).
#[derive(Default)]
struct LocalCopy {
    /// The object whose fetched fragments are kept (`None`: nothing yet).
    video: Option<u32>,
    /// Place k: the object whose fragment k it holds ([`EMPTY_SLOT`]: none).
    slots: Vec<u32>,
    /// Places holding a fragment.
    fragments: u64,
}

impl LocalCopy {
    /// Whether the copy holds fragment `k` of `video`.
    fn holds(&self, video: u32, k: usize) -> bool {
        self.slots.get(k) == Some(&video)
    }
}

/// The scheme, the manager, the routing of viewings and the dedicated nodes' copies.
pub(super) struct Replication {
    scheme: Scheme,
    manager: Manager,
    interfaces: u32,
    /// Dedicated interface nodes (the last ones).
    dedicated_nodes: u32,
    local_disks: u32,
    block_bytes: u64,
    /// LMSS's prefix, and each object's fragments (for a popular one's prefix).
    prefix: Option<Portion>,
    object_blocks: Vec<u32>,
    /// The storage nodes (network node numbers before the interface nodes) and the index
    /// among all disks of the first dedicated node's first local disk
    /// ([`Replication::place`]).
    storage_nodes: u32,
    first_disk: u32,
    /// The dedicated node (0-based among them) each terminal's current viewing is at.
    dedicated: Vec<Option<u32>>,
    copies: Vec<LocalCopy>,
    // counted over the whole run
    viewings: u64,
    viewings_dedicated: u64,
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
        let dedicated_nodes = if r.scheme == Scheme::Rdss {
            0
        } else {
            r.dedicated_interfaces.max(1)
        };
        Replication {
            scheme: r.scheme,
            manager: Manager::new(
                SimDuration::from_nanos(r.window.0),
                r.threshold,
                dedicated_nodes,
            ),
            interfaces,
            dedicated_nodes,
            local_disks: r.local_disks.max(1),
            block_bytes,
            prefix: (r.scheme == Scheme::Lmss).then_some(r.prefix).flatten(),
            object_blocks: blocks.to_vec(),
            storage_nodes: 0,
            first_disk: 0,
            dedicated: vec![None; terminals as usize],
            copies: (0..dedicated_nodes).map(|_| LocalCopy::default()).collect(),
            viewings: 0,
            viewings_dedicated: 0,
            from_disk: 0,
            from_memory: 0,
            fetched_dedicated: 0,
        }
    }

    /// With `storage_nodes` storage nodes, the local disks are disks `first_disk ..` of the
    /// server: dedicated node j's local disk k is disk first_disk + j × `local_disks` + k.
    pub fn place(&mut self, storage_nodes: u32, first_disk: u32) {
        self.storage_nodes = storage_nodes;
        self.first_disk = first_disk;
    }

    /// Dedicated node `node`'s (0-based among them) index among the interface nodes.
    fn interface(&self, node: u32) -> u32 {
        self.interfaces - self.dedicated_nodes + node
    }

    /// Dedicated node `node`'s network node number (after the storage nodes).
    pub fn network_node(&self, node: u32) -> u32 {
        self.storage_nodes + self.interface(node)
    }

    /// Dedicated node `node`'s network node number and the index among all disks of its
    /// local disk `disk`.
    pub fn local_disk(&self, node: u32, disk: u32) -> (u32, u32) {
        (
            self.network_node(node),
            self.first_disk + node * self.local_disks + disk,
        )
    }

    /// The network node of the server's local disk `l` (0-based among all the dedicated
    /// nodes' local disks, [`Replication::local_disks`] of them).
    pub fn local_disk_node(&self, l: u32) -> u32 {
        self.network_node(l / self.local_disks)
    }

    /// Local disks of each dedicated node (0 under RDSS).
    pub fn disks_per_node(&self) -> u32 {
        if self.replicates() {
            self.local_disks
        } else {
            0
        }
    }

    /// The fragments of `video` held in memory (LMSS).
    fn prefix_of(&self, video: u32) -> u64 {
        let Some(p) = self.prefix else {
            return 0;
        };
        let blocks = u64::from(self.object_blocks.get(video as usize).copied().unwrap_or(0));
        p.of(blocks).min(blocks)
    }

    /// Whether the scheme keeps a copy (LDSS, LMSS), so that it needs the local disks.
    pub fn replicates(&self) -> bool {
        self.scheme != Scheme::Rdss
    }

    /// Local disks of all the dedicated nodes together (0 under RDSS).
    pub fn local_disks(&self) -> u32 {
        self.disks_per_node() * self.dedicated_nodes
    }

    /// Terminal `t` starts a viewing of `video` at `now`: the manager logs the request and
    /// delegates it; the interface node (an index among them) that serves the viewing.
    pub fn viewing(&mut self, t: u32, video: u32, now: SimTime) -> u32 {
        self.viewings += 1;
        if !self.replicates() {
            return t.checked_rem(self.interfaces).unwrap_or(0);
        }
        let d = self.manager.request(video, now);
        if let Some(n) = d.promoted {
            // the node's space is the new object's: its fragments overwrite the old copy's
            // as they are kept ([`Replication::fetched`])
            self.copies[n as usize].video = Some(video);
        }
        self.dedicated[t as usize] = d.serving;
        match d.serving {
            Some(n) => {
                self.viewings_dedicated += 1;
                self.interface(n)
            }
            None => t
                .checked_rem(self.interfaces - self.dedicated_nodes)
                .unwrap_or(0),
        }
    }

    /// Where terminal `t`'s fragment `block` comes from (for its current viewing).
    pub fn source(&self, t: u32, block: BlockId) -> Source {
        let Some(node) = self.dedicated.get(t as usize).copied().flatten() else {
            return Source::Remote;
        };
        let k = block.index as usize;
        if !self.copies[node as usize].holds(block.video.0, k) {
            return Source::Remote;
        }
        if (k as u64) < self.prefix_of(block.video.0) {
            return Source::Memory { node };
        }
        let l = u64::from(self.local_disks);
        Source::Disk {
            node,
            disk: (k as u64 % l) as u32,
            offset: (k as u64 / l) * self.block_bytes,
        }
    }

    /// A local read of `source` began (in the measured period when `measuring`).
    pub fn local(&mut self, source: Source, measuring: bool) {
        if measuring {
            match source {
                Source::Disk { .. } => self.from_disk += 1,
                Source::Memory { .. } => self.from_memory += 1,
                Source::Remote => {}
            }
        }
    }

    /// Terminal `t`'s fragment `block` arrived from the storage nodes: a dedicated node
    /// keeps a fragment of the object it holds the copy of.
    pub fn fetched(&mut self, t: u32, block: BlockId, measuring: bool) {
        let Some(node) = self.dedicated.get(t as usize).copied().flatten() else {
            return;
        };
        let copy = &mut self.copies[node as usize];
        if copy.video != Some(block.video.0) {
            return;
        }
        if measuring {
            self.fetched_dedicated += 1;
        }
        let k = block.index as usize;
        if copy.slots.len() <= k {
            copy.slots.resize(k + 1, EMPTY_SLOT);
        }
        if copy.slots[k] == EMPTY_SLOT {
            copy.fragments += 1;
        }
        // fragment k of the object the node holds, in place of whatever was there
        copy.slots[k] = block.video.0;
    }

    /// `summary.json`'s `replication` for a run that ended at `end`.
    pub fn report(&self, end: SimTime) -> ReplicationSummary {
        // the demotions due by the end (the manager applies them at the next request)
        let mut manager = self.manager.clone();
        manager.expire(end);
        let first = manager.first();
        let listed = |changes: &[Change]| {
            changes
                .iter()
                .map(|c| PopularityChange {
                    video: u64::from(c.video),
                    interface: u64::from(self.interface(c.node)),
                    at_ns: c.at.as_nanos(),
                })
                .collect()
        };
        ReplicationSummary {
            scheme: self.scheme.name().to_string(),
            popular_video: first.map(|c| u64::from(c.video)),
            detected_ns: first.map(|c| c.at.as_nanos()),
            dedicated_interface: self
                .replicates()
                .then(|| u64::from(self.interface(first.map_or(0, |c| c.node)))),
            viewings: self.viewings,
            viewings_dedicated: self.viewings_dedicated,
            kept_fragments: self.copies.iter().map(|c| c.fragments).sum(),
            prefix_fragments: first.map_or(0, |c| self.prefix_of(c.video)),
            local_disk_reads: self.from_disk,
            memory_reads: self.from_memory,
            dedicated_remote_reads: self.fetched_dedicated,
            dedicated_interfaces: u64::from(self.dedicated_nodes),
            promotions: listed(&manager.promotions),
            demotions: listed(&manager.demotions),
            promotion_count: manager.promoted,
            demotion_count: manager.demoted,
            waiting_requests: manager.waiting,
        }
    }
}

impl Replication {
    /// The object manager and the popular object's copy, when the scenario has
    /// `[server.replication]`: its prefix checked against the objects, its local disks
    /// placed after the storage disks.
    pub(super) fn build(
        setup: &super::setup::Setup<'_>,
    ) -> Result<Option<Self>, super::scenario::ScenarioError> {
        let scenario = setup.scenario;
        let f = &scenario.file;
        let s = &f.server;
        let Some(r) = s.replication.as_ref() else {
            return Ok(None);
        };
        check_prefix(scenario, r, &setup.blocks)?;
        let mut repl = Replication::new(
            r,
            s.interface_nodes,
            scenario.terminals(),
            setup.block_bytes,
            &setup.blocks,
        );
        repl.place(s.nodes, scenario.disks());
        Ok(Some(repl))
    }
}

/// `[server.replication] prefix`, a count of fragments, fits every object (the scenario's
/// check could only bound their lengths), and, with `[server] interface_memory`, a dedicated
/// interface node's memory holds the largest object's prefix beside the buffers of every
/// stream (LMSS runs without admission control, and the manager may send any share of the
/// viewings to one dedicated node).
fn check_prefix(
    scenario: &super::scenario::Scenario,
    r: &ReplicationSection,
    blocks: &[u32],
) -> Result<(), super::scenario::ScenarioError> {
    let invalid = |key: &str, message: String| super::scenario::ScenarioError::Invalid {
        file: scenario.path.clone(),
        line: scenario
            .source
            .line_of_key(key)
            .or_else(|| scenario.source.line_of_key("server.replication")),
        key: key.into(),
        message,
    };
    let f = &scenario.file;
    if let (Some(p), Some(memory), Scheme::Lmss) = (r.prefix, f.server.interface_memory, r.scheme) {
        let (v, most) = blocks
            .iter()
            .enumerate()
            .map(|(v, &b)| (v, p.of(u64::from(b)).min(u64::from(b))))
            .max_by_key(|&(v, n)| (n, std::cmp::Reverse(v)))
            .unwrap_or((0, 0));
        let prefix = most.saturating_mul(f.server.stripe.0);
        let count = u64::from(scenario.terminals());
        let buffers = count.saturating_mul(f.terminals.memory.0);
        let need = prefix.saturating_add(buffers);
        if need > memory.0 {
            let size = crate::units::fmt_bytes;
            return Err(invalid(
                "server.interface_memory",
                format!(
                    "{} cannot hold a dedicated interface node's prefix and buffers: video \
                     {v}'s prefix is {most} fragments of server.stripe {} = {} \
                     (server.replication.prefix), and the {count} streams, any share of which \
                     the object manager may send there, need {count} × terminals.memory {} = \
                     {}; raise it to at least {}, or give a smaller prefix",
                    size(memory.0),
                    size(f.server.stripe.0),
                    size(prefix),
                    size(f.terminals.memory.0),
                    size(buffers),
                    size(need)
                ),
            ));
        }
    }
    let Some(Portion::Count(c)) = r.prefix else {
        return Ok(());
    };
    let Some((v, &b)) = blocks.iter().enumerate().min_by_key(|(_, b)| **b) else {
        return Ok(());
    };
    if c <= u64::from(b) {
        return Ok(());
    }
    Err(invalid(
        "server.replication.prefix",
        format!(
            "is {c} fragments, larger than the object: video {v} has {b} (server.stripe \
             blocks); give at most {b}, or a share such as \"50%\""
        ),
    ))
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
            dedicated_interfaces: 1,
            prefix,
        }
    }

    fn block(video: u32, index: u32) -> BlockId {
        BlockId {
            video: VideoId(video),
            index,
        }
    }

    fn manager(threshold: u32, nodes: u32) -> Manager {
        Manager::new(SimDuration::from_nanos(60_000_000_000), threshold, nodes)
    }

    /// Whether the request found `video` popular (at any node).
    fn popular(m: &mut Manager, video: u32, s: u64) -> bool {
        m.request(video, at(s)).serving.is_some()
    }

    fn change(video: u32, node: u32, s: u64) -> Change {
        Change {
            video,
            node,
            at: at(s),
        }
    }

    #[test]
    fn detection_after_exactly_threshold_requests_in_the_window() {
        let mut m = manager(3, 1);
        // video 7 at 0 s and 10 s, video 9 in between: two in the window, not popular
        assert!(!popular(&mut m, 7, 0));
        assert!(!popular(&mut m, 9, 5));
        assert!(!popular(&mut m, 7, 10));
        assert_eq!(m.first(), None);
        // 65 s: the request at 0 s left the window (60 s), so 10 s and 65 s make two
        assert!(!popular(&mut m, 7, 65));
        assert_eq!(m.first(), None);
        // the third within (9 s, 69 s]: popular from now, but this request was not yet
        let d = m.request(7, at(69));
        assert_eq!((d.serving, d.promoted), (None, Some(0)));
        assert_eq!(m.first(), Some(change(7, 0, 69)));
        // the next request for it is a popular one (four in the window); at 70 s the one at
        // 10 s leaves, three remain: still popular. With the node taken, video 9 waits
        assert!(popular(&mut m, 7, 69));
        assert!(popular(&mut m, 7, 70));
        for s in 71..75 {
            assert!(!popular(&mut m, 9, s));
        }
        // its third and fourth requests (73 s, 74 s) found it at the threshold, no node free
        assert_eq!(m.waiting, 2);
        assert_eq!(m.held(), &[Some(7)]);
    }

    #[test]
    fn a_request_exactly_one_window_old_has_left_it() {
        let mut m = manager(2, 1);
        m.request(1, at(0));
        m.request(1, at(60));
        assert_eq!(m.first(), None);
        m.request(1, at(61));
        assert_eq!(m.first(), Some(change(1, 0, 61)));
    }

    #[test]
    fn demotion_exactly_when_the_count_in_the_window_drops_below_the_threshold() {
        let mut m = manager(3, 1);
        for s in [0, 10, 20] {
            m.request(5, at(s));
        }
        assert_eq!(m.promotions, [change(5, 0, 20)]);
        // 30 s: four in the window; at 65 s the one at 0 s has left (10, 20, 30, 65 s) and at
        // 70 s the one at 10 s leaves (three remain): still popular
        assert!(popular(&mut m, 5, 30));
        assert!(popular(&mut m, 5, 65));
        // at 80 s the one at 20 s leaves (30 s and 65 s remain): two, below the threshold.
        // The manager hears of it at the next request (any object's, 85 s), and dates the
        // demotion 80 s, when it happened
        assert!(!popular(&mut m, 8, 85));
        assert_eq!(m.demotions, [change(5, 0, 80)]);
        assert_eq!(m.held(), &[None]);
        // a request for the demoted object is an ordinary one, and (3 in the window again:
        // 30, 65, 86 s) promotes it again at the node still holding its copy
        let d = m.request(5, at(86));
        assert_eq!((d.serving, d.promoted), (None, Some(0)));
        assert!(popular(&mut m, 5, 87));
        assert_eq!((m.promoted, m.demoted), (2, 1));
    }

    #[test]
    fn a_departure_and_a_request_at_the_same_instant_demote_then_promote() {
        let mut m = manager(2, 1);
        m.request(3, at(0));
        m.request(3, at(1));
        // at 60 s the request at 0 s leaves before the one at 60 s counts: demoted at 60 s,
        // and that request (1 s and 60 s: two) promotes it again at once
        let d = m.request(3, at(60));
        assert_eq!((d.serving, d.promoted), (None, Some(0)));
        assert_eq!(m.demotions, [change(3, 0, 60)]);
        assert_eq!(m.promotions, [change(3, 0, 1), change(3, 0, 60)]);
    }

    #[test]
    fn two_dedicated_nodes_hold_two_popular_objects_and_a_third_waits() {
        let mut m = manager(2, 2);
        // video 1 popular at node 0 (5 s), video 2 at node 1 (7 s)
        for (v, s) in [(1, 0), (2, 2), (1, 5), (2, 7)] {
            m.request(v, at(s));
        }
        assert_eq!(m.held(), &[Some(1), Some(2)]);
        // video 3 reaches the threshold at 11 s and 12 s with no node free: it waits
        for s in [10, 11, 12] {
            let d = m.request(3, at(s));
            assert_eq!((d.serving, d.promoted), (None, None));
        }
        assert_eq!(m.waiting, 2);
        // video 1 keeps being asked for; video 2's requests (2 s, 7 s) leave at 62 s and
        // 67 s: demoted at 62 s, node 1 is free (video 1 keeps two: 30 s and 50 s)
        for s in [30, 50] {
            assert!(popular(&mut m, 1, s));
        }
        // video 3's requests at 10–12 s have left by 72 s; at 75 s and 76 s it is at the
        // threshold again and takes the free node, 1
        m.request(3, at(75));
        let d = m.request(3, at(76));
        assert_eq!(d.promoted, Some(1));
        assert_eq!(m.held(), &[Some(1), Some(3)]);
        // video 1 is demoted at 90 s (50 s left), video 3 at 135 s (75 s left): at 140 s
        // both nodes are free, and video 3 takes node 1 again, which holds its copy, not the
        // lowest-numbered
        m.request(3, at(140));
        let d = m.request(3, at(141));
        assert_eq!(d.promoted, Some(1));
        assert_eq!(
            m.demotions,
            [change(2, 1, 62), change(1, 0, 90), change(3, 1, 135)]
        );
        assert_eq!(m.held(), &[None, Some(3)]);
    }

    #[test]
    fn popular_viewings_go_to_the_dedicated_interface_node_per_viewing() {
        let mut r = Replication::new(&section(Scheme::Ldss, None), 6, 12, 65_536, &[100; 50]);
        assert_eq!(r.interface(0), 5);
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
        let s = r.report(at(8));
        assert_eq!((s.viewings, s.viewings_dedicated), (7, 2));
        assert_eq!(s.popular_video, Some(0));
        assert_eq!(s.detected_ns, Some(at(3).as_nanos()));
        assert_eq!(s.dedicated_interface, Some(5));
        // reported at 70 s, the requests at 1–6 s have left the window: video 0 was demoted
        // at 63 s (its third-last request, at 3 s, leaving)
        let s = r.report(at(70));
        assert_eq!(s.demotion_count, 1);
        assert_eq!(s.demotions[0].at_ns, at(63).as_nanos());
        assert_eq!(s.demotions[0].interface, 5);
        // RDSS deals slots over every interface node and never dedicates one
        let mut rdss = Replication::new(&section(Scheme::Rdss, None), 6, 12, 65_536, &[100; 50]);
        for s in 0..5 {
            assert_eq!(rdss.viewing(11, 0, at(s)), 5);
        }
        assert_eq!(rdss.source(11, block(0, 0)), Source::Remote);
        assert_eq!(rdss.report(at(5)).dedicated_interfaces, 0);
        // and without interface nodes every terminal is its own endpoint (interface 0)
        let mut none = Replication::new(&section(Scheme::Rdss, None), 0, 2, 65_536, &[1; 1]);
        none.place(4, 4);
        assert_eq!(none.viewing(1, 0, at(0)), 0);
    }

    #[test]
    fn two_dedicated_nodes_route_and_place_their_local_disks() {
        let mut two = section(Scheme::Ldss, None);
        two.dedicated_interfaces = 2;
        two.threshold = 1;
        let mut r = Replication::new(&two, 5, 8, 65_536, &[100; 50]);
        r.place(10, 10);
        assert_eq!(r.local_disks(), 4);
        // dedicated node j is interface 3 + j, network node 13 + j, disks 10 + 2j, 11 + 2j
        assert_eq!(r.local_disk(1, 1), (14, 13));
        assert_eq!(
            (0..4).map(|l| r.local_disk_node(l)).collect::<Vec<_>>(),
            [13, 13, 14, 14]
        );
        // threshold 1: the first request promotes; the others go to t mod 3
        assert_eq!(r.viewing(4, 9, at(0)), 1);
        assert_eq!(r.viewing(5, 8, at(1)), 2);
        assert_eq!(r.viewing(6, 9, at(2)), 3);
        assert_eq!(r.viewing(7, 8, at(3)), 4);
        r.fetched(7, block(8, 0), true);
        assert_eq!(
            r.source(7, block(8, 0)),
            Source::Disk {
                node: 1,
                disk: 0,
                offset: 0
            }
        );
        // the viewing of video 9 at node 0 does not see node 1's copy
        assert_eq!(r.source(6, block(8, 0)), Source::Remote);
    }

    #[test]
    fn a_demoted_objects_copy_serves_its_viewings_until_another_object_takes_the_node() {
        let mut two = section(Scheme::Ldss, None);
        two.threshold = 2;
        let mut r = Replication::new(&two, 2, 4, 65_536, &[100; 50]);
        // video 0 popular at 1 s; terminal 1 views it at the dedicated node (1) and keeps
        // fragments 0 and 1
        r.viewing(0, 0, at(0));
        r.viewing(2, 0, at(1));
        assert_eq!(r.viewing(1, 0, at(2)), 1);
        r.fetched(1, block(0, 0), true);
        r.fetched(1, block(0, 1), true);
        // its requests leave at 60, 61 and 62 s: demoted at 61 s (one left), which the
        // manager applies at the next request (video 5 at 70 s, not popular)
        assert_eq!(r.viewing(2, 5, at(70)), 0);
        let s = r.report(at(70));
        assert_eq!(s.demotion_count, 1);
        assert_eq!(s.demotions[0].at_ns, at(61).as_nanos());
        // terminal 1, still viewing video 0 at the node, reads the copy and adds to it
        assert_eq!(
            r.source(1, block(0, 1)),
            Source::Disk {
                node: 0,
                disk: 1,
                offset: 0
            }
        );
        r.fetched(1, block(0, 2), true);
        assert_eq!(r.report(at(70)).kept_fragments, 3);
        // a new viewing of video 0 goes to the ordinary interface node
        assert_eq!(r.viewing(3, 0, at(71)), 0);
        // video 5 becomes popular at 72 s: the node's space is video 5's now; the viewing of
        // video 0 there still reads the fragments of the old copy not overwritten, fetches
        // the others from the storage nodes and keeps nothing
        r.viewing(0, 5, at(72));
        assert_eq!(
            r.source(1, block(0, 0)),
            Source::Disk {
                node: 0,
                disk: 0,
                offset: 0
            }
        );
        r.fetched(1, block(0, 3), true);
        assert_eq!(r.source(1, block(0, 3)), Source::Remote);
        let s = r.report(at(73));
        assert_eq!(s.kept_fragments, 3);
        assert_eq!(
            s.promotions
                .iter()
                .map(|c| (c.video, c.interface, c.at_ns / 1_000_000_000))
                .collect::<Vec<_>>(),
            [(0, 1, 1), (5, 1, 72)]
        );
        assert_eq!((s.promotion_count, s.waiting_requests), (2, 0));
    }

    /// Issue 49, item 13: at a handover the new object's fragments overwrite the demoted
    /// object's copy one place at a time; the demoted object's viewings at the node read
    /// each of its fragments locally until that very place is overwritten.
    #[test]
    fn issue49_a_handover_overwrites_the_demoted_copy_fragment_by_fragment() {
        let mut one = section(Scheme::Lmss, Some(Portion::Count(3)));
        one.threshold = 2;
        let mut r = Replication::new(&one, 2, 6, 65_536, &[150; 20]);
        // video 3 popular at 11 s; terminal 4 views it at the dedicated node (1) and keeps
        // fragments 0..=6 (0..=2 its prefix, in memory)
        r.viewing(0, 3, at(10));
        r.viewing(1, 3, at(11));
        assert_eq!(r.viewing(4, 3, at(12)), 1);
        for k in 0..7 {
            r.fetched(4, block(3, k), true);
        }
        // its requests leave the window at 70 and 71 s: demoted at 71 s; video 8, asked
        // for at 80 and 81 s, is promoted at the node at 81 s
        r.viewing(2, 8, at(80));
        r.viewing(3, 8, at(81));
        let s = r.report(at(81));
        assert_eq!((s.demotion_count, s.promotion_count), (1, 2));
        // terminal 5 views video 8 at the node and keeps its fragments 0, 1 and 4
        assert_eq!(r.viewing(5, 8, at(82)), 1);
        for k in [0, 1, 4] {
            assert_eq!(r.source(5, block(8, k)), Source::Remote);
            r.fetched(5, block(8, k), true);
        }
        assert_eq!(r.source(5, block(8, 0)), Source::Memory { node: 0 });
        // terminal 4, still viewing video 3 at the node: the overwritten places come from
        // the storage nodes, the others from the node's memory and disks as before
        for k in [0, 1, 4] {
            assert_eq!(r.source(4, block(3, k)), Source::Remote, "fragment {k}");
        }
        assert_eq!(r.source(4, block(3, 2)), Source::Memory { node: 0 });
        for k in [3u32, 5, 6] {
            assert_eq!(
                r.source(4, block(3, k)),
                Source::Disk {
                    node: 0,
                    disk: k % 2,
                    offset: u64::from(k / 2) * 65_536
                },
                "fragment {k}"
            );
        }
        // what it fetches again is not kept: the places are video 8's
        r.fetched(4, block(3, 0), true);
        assert_eq!(r.source(5, block(8, 0)), Source::Memory { node: 0 });
        assert_eq!(r.report(at(83)).kept_fragments, 7);
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
                node: 0,
                disk: 1,
                offset: 65_536
            }
        );
        // a fragment not kept yet comes from the storage nodes
        assert_eq!(r.source(2, block(0, 4)), Source::Remote);
        // a viewing not at the dedicated node keeps nothing
        r.fetched(0, block(0, 4), true);
        assert_eq!(r.source(2, block(0, 4)), Source::Remote);
        assert_eq!(r.report(at(6)).kept_fragments, 1);
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
        assert_eq!(r.source(0, block(0, 0)), Source::Memory { node: 0 });
        assert_eq!(r.source(0, block(0, 1)), Source::Memory { node: 0 });
        assert_eq!(
            r.source(0, block(0, 2)),
            Source::Disk {
                node: 0,
                disk: 0,
                offset: 65_536
            }
        );
        r.local(Source::Memory { node: 0 }, true);
        r.local(
            Source::Disk {
                node: 0,
                disk: 0,
                offset: 0,
            },
            true,
        );
        let s = r.report(at(6));
        assert_eq!((s.memory_reads, s.local_disk_reads), (1, 1));
        assert_eq!(s.prefix_fragments, 2);
    }
}
