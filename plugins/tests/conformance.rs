//! Conformance tests every built-in (and future) plugin of each kind must pass. They iterate
//! the registry, so a newly registered plugin is covered without touching this file.

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use vodbench_harness::ids::{BlockId, NodeId, PageId, RequestId, TerminalId, VideoId};
use vodbench_harness::plugin::*;
use vodbench_harness::time::{SimDuration, SimTime};

fn ctx<'a>(blocks: &'a [u32], geometry: Option<DiskGeometry>, pages: u32) -> BuildContext<'a> {
    BuildContext::for_test()
        .with_seed(7)
        .with_nodes(2)
        .with_disks_per_node(3)
        .with_terminals(4)
        .with_block_bytes(1 << 19)
        .with_video_blocks(blocks)
        .with_geometry(geometry)
        .with_pages(pages)
}

fn geometry() -> DiskGeometry {
    DiskGeometry {
        capacity_bytes: 1 << 40,
        cylinders: 5000,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Every scheduler (each with its default parameters and a few others) serves each
    /// enqueued request exactly once, returns only requests it holds, reports its length
    /// exactly, and empties its queue — with terminals, deadlines, prefetches and a clock
    /// that moves forward, so deadline-driven schedulers change their minds between calls.
    #[test]
    fn schedulers_serve_each_request_exactly_once(
        ops in proptest::collection::vec(
            (any::<bool>(), 0u32..5000, 0u32..5000, 0u32..6, proptest::option::of(0u64..20_000), 0u64..500),
            1..200,
        )
    ) {
        let registry = vodbench_plugins::registry();
        for (name, params) in scheduler_configs(&registry) {
            let r = registry.resolve::<dyn DiskScheduler>(name, &params).unwrap();
            let mut s = r.build(&ctx(&[], Some(geometry()), 0)).unwrap();
            let mut held = BTreeSet::new();
            let mut served = HashSet::new();
            let mut next = 0u32;
            let mut now = 0u64;
            for (enqueue, cyl, head, terminal, deadline_ms, step_ms) in &ops {
                now += step_ms * 1_000_000;
                if *enqueue {
                    s.enqueue(QueuedRequest {
                        id: RequestId(next), cylinder: *cyl, offset: u64::from(*cyl) << 20, bytes: 1 << 19,
                        terminal: (*terminal < 5).then_some(TerminalId(*terminal)),
                        class: if deadline_ms.is_some() { RequestClass::Demand } else { RequestClass::Prefetch },
                        deadline: deadline_ms.map(|d| SimTime::from_nanos(d * 1_000_000)),
                        arrival: SimTime::from_nanos(now),
                    });
                    held.insert(next);
                    next += 1;
                } else {
                    let h = HeadState { now: SimTime::from_nanos(now), cylinder: *head, cylinders: 5000 };
                    match s.dequeue(&h) {
                        Some(RequestId(id)) => {
                            prop_assert!(held.remove(&id), "{name} {params:?} returned {id}, which it does not hold");
                            prop_assert!(served.insert(id), "{name} {params:?} served {id} twice");
                        }
                        None => prop_assert!(held.is_empty(), "{name} {params:?} returned nothing while holding {}", held.len()),
                    }
                }
                prop_assert_eq!(s.len(), held.len(), "{} {:?} len()", name, params);
            }
            let h = HeadState { now: SimTime::from_nanos(now), cylinder: 0, cylinders: 5000 };
            while let Some(RequestId(id)) = s.dequeue(&h) {
                prop_assert!(held.remove(&id), "{name} {params:?} returned {id} at drain");
            }
            prop_assert!(held.is_empty(), "{name} {params:?} lost requests");
            prop_assert!(s.is_empty());
        }
    }

    /// Every buffer pool evicts only evictable pages, each once, and `None` only when empty.
    #[test]
    fn pools_evict_only_evictable_pages(ops in proptest::collection::vec((0u8..3, 0u32..16, any::<bool>()), 1..300)) {
        let registry = vodbench_plugins::registry();
        for name in registry.names::<dyn BufferPool>() {
            let r = registry.resolve::<dyn BufferPool>(name, &toml::Table::new()).unwrap();
            let mut pool = r.build(&ctx(&[], None, 16)).unwrap();
            let mut evictable = BTreeSet::new();
            for (op, page, referenced) in &ops {
                match op {
                    0 if !evictable.contains(page) => {
                        pool.release(PageId(*page), *referenced);
                        evictable.insert(*page);
                    }
                    1 if evictable.contains(page) => {
                        pool.acquire(PageId(*page));
                        evictable.remove(page);
                    }
                    2 => match pool.evict() {
                        Some(PageId(p)) => prop_assert!(evictable.remove(&p), "{name} evicted {p}, not evictable"),
                        None => prop_assert!(evictable.is_empty(), "{name} evicted nothing with {} evictable", evictable.len()),
                    },
                    _ => {}
                }
            }
            // nothing is lost: the remaining evictable pages come out, each once
            while let Some(PageId(p)) = pool.evict() {
                prop_assert!(evictable.remove(&p), "{name} evicted {p} at drain, not evictable");
            }
            prop_assert!(evictable.is_empty(), "{name} lost evictable pages {evictable:?}");
        }
    }
}

/// Each registered scheduler with its defaults, plus non-default settings of the
/// parameterised ones.
fn scheduler_configs(registry: &Registry) -> Vec<(&'static str, toml::Table)> {
    let mut v: Vec<(&'static str, toml::Table)> = registry
        .names::<dyn DiskScheduler>()
        .into_iter()
        .map(|n| (n, toml::Table::new()))
        .collect();
    for (name, text) in [
        ("gss", "groups = 2"),
        ("gss", "groups = 5"),
        ("gss", "batch_sweep = \"from-innermost\""),
        ("gss", "groups = 3\nbatch_sweep = \"from-innermost\""),
        ("real-time", "classes = 1"),
        ("real-time", "classes = 5\nspacing = \"1s\""),
        ("scan-edf", "bucket = \"1ns\""),
    ] {
        let name = registry
            .names::<dyn DiskScheduler>()
            .into_iter()
            .find(|n| *n == name)
            .expect("registered");
        v.push((name, text.parse().unwrap()));
    }
    v
}

/// Every layout places every block (or, with fine-grained striping, every piece of it, each
/// `⌈block / pieces⌉` bytes, on a disk of the block's node) inside its disk, never
/// overlapping another, and `next_on_same_disk` stays on the same disk.
#[test]
fn layouts_place_blocks_without_overlap() {
    let registry = vodbench_plugins::registry();
    let blocks: Vec<u32> = vec![37, 12, 1, 60, 25, 6, 6, 19];
    let block = 1u64 << 19;
    for name in registry.names::<dyn Layout>() {
        let r = registry
            .resolve::<dyn Layout>(name, &toml::Table::new())
            .unwrap();
        let g = DiskGeometry {
            capacity_bytes: 64 << 20,
            cylinders: 100,
        };
        let layout = r.build(&ctx(&blocks, Some(g), 0)).unwrap();
        let pieces = layout.pieces();
        assert!(
            (1..=3).contains(&pieces),
            "{name}: {pieces} pieces on 3 disks a node"
        );
        let unit = block.div_ceil(u64::from(pieces));
        let mut used: BTreeMap<(u32, u64), (BlockId, u32)> = BTreeMap::new();
        for (v, &n) in blocks.iter().enumerate() {
            for i in 0..n {
                let b = BlockId {
                    video: VideoId(v as u32),
                    index: i,
                };
                let loc = layout.locate(b);
                assert_eq!(
                    loc,
                    layout.locate_piece(b, 0),
                    "{name}: piece 0 is the block"
                );
                for j in 0..pieces {
                    let at = layout.locate_piece(b, j);
                    assert!(at.disk.0 < 6, "{name}: disk {} out of range", at.disk);
                    assert_eq!(at.node.0, at.disk.0 / 3, "{name}: node/disk mismatch");
                    assert_eq!(at.node, loc.node, "{name}: a piece on another node");
                    assert_eq!(at.offset % unit, 0, "{name}: unaligned block");
                    assert!(
                        at.offset + unit <= g.capacity_bytes,
                        "{name}: beyond capacity"
                    );
                    if let Some(prev) = used.insert((at.disk.0, at.offset), (b, j)) {
                        panic!("{name}: {b:?} piece {j} overlaps {prev:?}");
                    }
                }
                if let Some(nx) = layout.next_on_same_disk(b) {
                    if nx.index < n {
                        assert_eq!(
                            layout.locate(nx).disk,
                            loc.disk,
                            "{name}: next_on_same_disk moved disks"
                        );
                    }
                }
            }
        }
        // too small a disk is a clear error, not a silent overlap
        let tiny = DiskGeometry {
            capacity_bytes: 1 << 20,
            cylinders: 1,
        };
        let err = r
            .build(&ctx(&blocks, Some(tiny), 0))
            .err()
            .expect("must not fit");
        assert!(err.to_string().contains("need"), "{name}: {err}");
    }
}

/// Every disk model's parts add up to its total, and two instances with the same stream agree.
#[test]
fn disk_models_are_deterministic_and_consistent() {
    let registry = vodbench_plugins::registry();
    for name in registry.names::<dyn DiskModel>() {
        let r = registry
            .resolve::<dyn DiskModel>(name, &toml::Table::new())
            .unwrap();
        let mut a = r.build(&ctx(&[], None, 0)).unwrap();
        let mut b = r.build(&ctx(&[], None, 0)).unwrap();
        let cap = a.geometry().capacity_bytes;
        let mut now = SimTime::ZERO;
        for k in 0..200u64 {
            let access = DiskAccess {
                offset: (k * 7_919_113 * 4096) % (cap - (1 << 20)),
                bytes: 1 << 19,
                write: false,
            };
            let ta = a.service(&access, now);
            let tb = b.service(&access, now);
            assert_eq!(ta, tb, "{name} not deterministic");
            assert_eq!(
                ta.total(),
                ta.overhead + ta.seek + ta.rotation + ta.transfer
            );
            assert!(a.head_cylinder() < a.geometry().cylinders);
            now += ta.total();
        }
    }
}

/// A table of parameters `name` of `kind` accepts ([`EntryInfo::plain_params`]), so that a
/// plugin with required parameters is covered like the others.
fn valid_params(registry: &Registry, kind: Kind, name: &str) -> toml::Table {
    registry
        .infos(kind)
        .into_iter()
        .find(|e| e.name == name)
        .and_then(|e| e.plain_params())
        .unwrap_or_else(|| panic!("{name}: no plain parameters it accepts"))
}

/// Every interconnect routes every message over links it has, each at most once, in an
/// order consistent with one global order of its links (so messages cannot deadlock), and
/// two instances route alike.
#[test]
fn interconnects_route_over_their_own_links_in_one_order() {
    let registry = vodbench_plugins::registry();
    let names = registry.names::<dyn Interconnect>();
    assert!(names.contains(&"ideal") && names.contains(&"ports"));
    for name in names {
        let params = valid_params(&registry, Kind::Interconnect, name);
        let r = registry.resolve::<dyn Interconnect>(name, &params).unwrap();
        let mut a = r.build(&ctx(&[], None, 0)).unwrap();
        let mut b = r.build(&ctx(&[], None, 0)).unwrap();
        let links = a.links();
        assert_eq!(links, b.links(), "{name}");
        let ends: Vec<Endpoint> = (0..2)
            .map(|n| Endpoint::Node(NodeId(n)))
            .chain((0..5).map(|t| Endpoint::Terminal(TerminalId(t))))
            .collect();
        // link → links some path took after it
        let mut after: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for &from in &ends {
            for &to in &ends {
                for bytes in [0u64, 1, 128, 1 << 19, 1 << 26] {
                    let (mut pa, mut pb) = (Vec::new(), Vec::new());
                    let ta = a.route(from, to, bytes, &mut pa);
                    let tb = b.route(from, to, bytes, &mut pb);
                    assert_eq!((ta, &pa), (tb, &pb), "{name} not deterministic");
                    assert!(
                        ta.unloaded() < SimDuration::from_secs(3600),
                        "{name}: {ta:?}"
                    );
                    for (i, l) in pa.iter().enumerate() {
                        assert!(
                            l.index() < links.len(),
                            "{name}: link {l} of {}",
                            links.len()
                        );
                        assert!(!pa[..i].contains(l), "{name}: link {l} twice in {pa:?}");
                        for later in &pa[i + 1..] {
                            after.entry(l.0).or_default().insert(later.0);
                        }
                    }
                }
            }
        }
        // no cycle in "acquired before": a topological order exists
        let mut left: BTreeSet<u32> = after.keys().copied().collect();
        while !left.is_empty() {
            let free: Vec<u32> = left
                .iter()
                .copied()
                .filter(|l| {
                    !left
                        .iter()
                        .any(|o| after.get(o).is_some_and(|s| s.contains(l)))
                })
                .collect();
            assert!(
                !free.is_empty(),
                "{name}: links {left:?} are taken in a cycle"
            );
            for l in free {
                left.remove(&l);
            }
        }
    }
}

/// Every admission policy answers the same requests alike (two instances), and a refusal
/// names its reason.
#[test]
fn admission_policies_answer_deterministically() {
    let registry = vodbench_plugins::registry();
    let names = registry.names::<dyn Admission>();
    assert!(names.contains(&"accept-all") && names.contains(&"static-limit"));
    for name in names {
        let params = valid_params(&registry, Kind::Admission, name);
        let r = registry.resolve::<dyn Admission>(name, &params).unwrap();
        let mut a = r.build(&ctx(&[], None, 0)).unwrap();
        let mut b = r.build(&ctx(&[], None, 0)).unwrap();
        let mut active = 0u32;
        let mut running = Vec::new();
        for k in 0..200u32 {
            let t = k % 7;
            let now = SimTime::from_nanos(u64::from(k) * 1_000_000_000);
            if k % 3 == 2 {
                if let Some(t) = running.pop() {
                    a.ended(TerminalId(t), now);
                    b.ended(TerminalId(t), now);
                    active -= 1;
                }
                continue;
            }
            let req = StreamRequest {
                terminal: TerminalId(t),
                video: VideoId(k % 5),
                bit_rate: 4_000_000,
                buffer_bytes: 1 << 20,
                interface: Some(t % 2),
                now,
            };
            let load = ServerLoad {
                active_streams: active,
                terminals: 7,
                interface_memory: 0,
            };
            let va = a.admit(&req, &load);
            assert_eq!(va, b.admit(&req, &load), "{name} not deterministic");
            match va {
                Verdict::Admit => {
                    active += 1;
                    running.push(t);
                }
                Verdict::Refuse { reason } => assert!(!reason.is_empty(), "{name}"),
            }
        }
    }
}

/// The SPIFFI policies of issue 4 are registered, so the conformance tests above cover them.
#[test]
fn issue4_spiffi_policies_are_registered() {
    let r = vodbench_plugins::registry();
    let schedulers = r.names::<dyn DiskScheduler>();
    for n in [
        "round-robin",
        "gss",
        "real-time",
        "edf",
        "scan-edf",
        "c-scan",
    ] {
        assert!(schedulers.contains(&n), "scheduler {n} missing");
    }
    assert!(r.names::<dyn BufferPool>().contains(&"love-prefetch"));
    let prefetchers = r.names::<dyn Prefetcher>();
    for n in ["standard", "real-time", "delayed"] {
        assert!(prefetchers.contains(&n), "prefetcher {n} missing");
    }
    // parameters are checked, and errors name the key
    for (name, text, key) in [
        ("gss", "groups = 0", "groups"),
        ("real-time", "classes = 0", "classes"),
        ("real-time", "spacing = \"0s\"", "spacing"),
        ("scan-edf", "bucket = 0", "bucket"),
    ] {
        let err = r
            .resolve::<dyn DiskScheduler>(name, &text.parse().unwrap())
            .err()
            .unwrap_or_else(|| panic!("{name}: {text} accepted"));
        assert!(format!("{err:?}").contains(key), "{name}: {err:?}");
    }
    let err = r
        .resolve::<dyn Prefetcher>("delayed", &"max_advance = \"0s\"".parse().unwrap())
        .expect_err("zero max_advance rejected");
    assert!(format!("{err:?}").contains("max_advance"), "{err:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Every transmission policy sends every byte of every ready block exactly once, as
    /// packets of at most its packet size (or the client's), each block's packets in order of
    /// its bytes; it never sends a block that is not ready, and a wake-up it asks for is in
    /// the future. Blocks of random clients and sizes become ready at random times while the
    /// engine's loop (poll when free, wait until a wake-up or the next block) runs.
    #[test]
    fn transmission_policies_send_every_byte_once(
        blocks in prop::collection::vec((0u32..5, 1u64..400_000, 0u64..2_000_000_000, prop::option::of(64u32..=65_536)), 1..30),
    ) {
        let registry = vodbench_plugins::registry();
        for name in registry.names::<dyn Transmission>() {
            let params = valid_params(&registry, Kind::Transmission, name);
            let r = registry.resolve::<dyn Transmission>(name, &params).unwrap();
            let mut p = r.build(&ctx(&[], None, 0)).unwrap();
            let packet_limit = |own: Option<u32>| own.map_or(64 << 10, |b| b.min(64 << 10));
            let mut arrivals: Vec<_> = blocks.iter().enumerate().map(|(i, b)| (b.2, i)).collect();
            arrivals.sort();
            let mut left: BTreeMap<u32, u64> = BTreeMap::new();
            let mut limit: BTreeMap<u32, u64> = BTreeMap::new();
            let mut now = SimTime::ZERO;
            let mut next = 0;
            for _ in 0..1_000_000 {
                // blocks ready by now
                while next < arrivals.len() && SimTime::from_nanos(arrivals[next].0) <= now {
                    let i = arrivals[next].1;
                    let (client, bytes, _, own) = blocks[i];
                    p.block_ready(ReadyBlock {
                        token: i as u32,
                        client: TerminalId(client),
                        bytes,
                        stream_rate_bps: 1_500_000,
                        max_rate_bps: 10_000_000,
                        packet_bytes: own,
                    }, now);
                    left.insert(i as u32, bytes);
                    limit.insert(i as u32, u64::from(packet_limit(own)));
                    next += 1;
                }
                let upcoming = arrivals.get(next).map(|a| SimTime::from_nanos(a.0));
                match p.poll(now) {
                    TxPoll::Send(k) => {
                        let l = left.get_mut(&k.token);
                        prop_assert!(l.is_some(), "{name} sent block {} that is not ready", k.token);
                        let l = l.unwrap();
                        prop_assert!(k.bytes > 0 && u64::from(k.bytes) <= *l, "{name}: {} bytes of {}", k.bytes, l);
                        // fifo-blocks uses its own size for every client
                        if name != "fifo-blocks" {
                            prop_assert!(u64::from(k.bytes) <= limit[&k.token], "{name}: packet of {} > {}", k.bytes, limit[&k.token]);
                        }
                        *l -= u64::from(k.bytes);
                        if *l == 0 {
                            left.remove(&k.token);
                        }
                        // a packet takes 100 µs on the link
                        now += SimDuration::from_micros(100);
                    }
                    TxPoll::WaitUntil(t) => {
                        prop_assert!(t > now, "{name} asked to wait until {t:?} at {now:?}");
                        now = upcoming.map_or(t, |u| u.min(t));
                    }
                    TxPoll::Idle => match upcoming {
                        Some(u) => now = u.max(now),
                        None => break,
                    },
                }
            }
            prop_assert!(next == arrivals.len() && left.is_empty(), "{name} left {left:?} unsent");
        }
    }
}
