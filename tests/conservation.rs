//! Property tests of the engine's invariants over random small scenarios:
//! bytes from disk + hits + joins = bytes sent + bytes being served; sent = received + in
//! transit; received = consumed + discarded + buffered; no request is lost
//! (issued = delivered + still in the system). The workloads include pauses, seeks and
//! fast-forward/rewind searches (skip or search versions, SPIFFI §8.1), with and without
//! piggybacking (SPIFFI §8.2), over every registered plugin of every on-demand kind (disk
//! schedulers, prefetchers, buffer pools, layouts, interconnects, admission policies), with
//! and without interface nodes and the object manager as a node (Jadav et al. §3.2).

use proptest::prelude::*;
use std::path::Path;
use vodbench_harness::plugin::Kind;
use vodbench_harness::system::ondemand::runner;
use vodbench_harness::system::ondemand::scenario::{
    InterfaceCpuSection, RoundIssue, RoundsSection, Scenario,
};
use vodbench_harness::system::ondemand::video::VideoLibrary;
use vodbench_harness::units::{Bandwidth, Bytes, Duration};

#[allow(clippy::too_many_arguments)]
fn scenario_text(
    seed: u64,
    nodes: u32,
    disks: u32,
    pages: u32,
    stripe_kib: u32,
    terminals: u32,
    pauses: f64,
    seeks: f64,
    plugins: &Plugins,
    cbr: bool,
    interactive: &Interactive,
) -> String {
    let stripe = u64::from(stripe_kib) * 1024;
    // replaced after parsing by what the video library needs (see the test)
    let term_mem = stripe * 16;
    format!(
        r#"
seed = {seed}
[run]
duration = "40s"
[videos]
count = 6
length = "2min"
bit_rate = "4Mbit/s"
frames = "{frames}"
[server]
nodes = {nodes}
disks_per_node = {disks}
memory_per_node = {mem}
stripe = {stripe}
[disk.model]
name = "analytic"
spec = "st15150n"
{tables}
[terminals]
count = {terminals}
memory = {term_mem}
[workload.generate]
start_spread = "10s"
pauses_per_video = {pauses}
pause_mean = "5s"
seeks_per_video = {seeks}
seek_mean = "20s"
searches_per_video = {searches}
search_mean = "6s"
[interactive]
search = "{mode}"
show = "1s"
every = "{every}s"
speedup = {speedup}
{piggyback}
"#,
        frames = if cbr { "cbr" } else { "mpeg" },
        tables = plugins.tables(),
        mem = stripe * u64::from(pages),
        searches = interactive.searches,
        mode = if interactive.version {
            "version"
        } else {
            "skip"
        },
        every = interactive.every,
        speedup = interactive.every,
        piggyback = match interactive.piggyback_s {
            0 => String::new(),
            d => format!(
                "[piggyback]\ndelay = \"{d}s\"\nmost_popular = {}",
                interactive.most_popular
            ),
        },
    )
}

/// The plugin tables of a generated scenario: a registered plugin of each kind, by name
/// (its index among the kind's registered plugins, sorted), with the parameters it requires.
#[derive(Debug)]
struct Plugins(Vec<(&'static str, Kind, usize)>);

impl Plugins {
    /// Plugins given by name.
    fn named(choice: &[(&'static str, Kind, &str)]) -> Plugins {
        let registry = vodbench_plugins::registry();
        Plugins(
            choice
                .iter()
                .map(|&(key, kind, name)| {
                    let i = registry
                        .names_of(kind)
                        .iter()
                        .position(|n| *n == name)
                        .unwrap();
                    (key, kind, i)
                })
                .collect(),
        )
    }

    fn tables(&self) -> String {
        let registry = vodbench_plugins::registry();
        let mut out = String::new();
        for &(key, kind, i) in &self.0 {
            let infos = registry.infos(kind);
            let info = &infos[i % infos.len()];
            let params = info.plain_params().expect("plain parameters");
            out += &format!(
                "[{key}]\nname = \"{}\"\n{}",
                info.name,
                toml::to_string(&params).unwrap()
            );
        }
        out
    }
}

/// The interactive part of a generated scenario.
#[derive(Debug)]
struct Interactive {
    searches: f64,
    version: bool,
    /// Skip distance in seconds, and the search versions' speed-up.
    every: u32,
    /// Piggyback delay in seconds (0: none) on the `most_popular` videos.
    piggyback_s: u32,
    most_popular: u32,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn issue2_bytes_and_requests_are_conserved(
        seed in 0u64..1000,
        nodes in 1u32..3,
        disks in 1u32..3,
        pages in 2u32..40,
        stripe_kib in prop::sample::select(vec![64u32, 128, 256, 512]),
        terminals in 1u32..30,
        term_blocks_x2 in 2u32..9,
        pauses in 0.0f64..2.0,
        seeks in 0.0f64..2.0,
        // a registered plugin of each kind, chosen by its index among the kind's plugins
        plugins in proptest::collection::vec(0usize..64, 6),
        cbr in any::<bool>(),
        searches in prop::sample::select(vec![0.0f64, 0.0, 1.0, 3.0]),
        version in any::<bool>(),
        every in 2u32..10,
        piggyback_s in prop::sample::select(vec![0u32, 0, 5, 20]),
        most_popular in 1u32..7,
        // `[terminals.rounds]`: blocks per round (0: none), and eager or a lead in ms
        round in prop::sample::select(vec![0u32, 0, 2, 4]),
        lead_ms in prop::sample::select(vec![0u64, 0, 1, 200]),
        // interface nodes the terminals' messages pass through (0: none)
        interfaces in 0u32..3,
        // their CPUs' cost per message in µs (0: not modelled)
        iface_us in prop::sample::select(vec![0u64, 0, 30, 2000, 45]),
        // the object manager a node of the network (with interface nodes)
        manager in any::<bool>(),
    ) {
        let interactive = Interactive { searches, version, every, piggyback_s, most_popular };
        let plugins = Plugins(vec![
            ("disk.scheduler", Kind::DiskScheduler, plugins[0]),
            ("prefetcher", Kind::Prefetcher, plugins[1]),
            ("buffer_pool", Kind::BufferPool, plugins[2]),
            ("layout", Kind::Layout, plugins[3]),
            ("server.network", Kind::Interconnect, plugins[4]),
            ("admission", Kind::Admission, plugins[5]),
        ]);
        let text = scenario_text(seed, nodes, disks, pages, stripe_kib, terminals,
            pauses, seeks, &plugins, cbr, &interactive);
        let registry = vodbench_plugins::registry();
        let mut s = Scenario::parse(&text, Path::new("prop.toml"), &registry)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Terminal memory from just enough for the largest frame (the tightest legal
        // configuration) up to a few stripe blocks more.
        let stripe = u64::from(stripe_kib) * 1024;
        let versions = s.file.interactive.as_ref().and_then(|i| i.search_versions());
        let need = VideoLibrary::with_search_versions(&s.file.videos, s.file.seed, versions)
            .memory_needed(stripe)
            .bytes;
        // reading in rounds, room for the rest of a round beside the frame
        let set = u64::from(round.max(1));
        s.file.terminals.memory =
            Bytes(need + (set - 1) * stripe + stripe * u64::from(term_blocks_x2 - 2) / 2);
        s.file.server.interface_nodes = interfaces;
        s.file.server.manager_node = manager && interfaces > 0;
        if interfaces > 0 && iface_us > 0 {
            s.file.server.interface_cpu = Some(InterfaceCpuSection {
                send: Duration(iface_us * 1000),
                receive: Duration(iface_us * 1000),
                copy_rate: Some(Bandwidth(800_000_000)),
                // client packets every δ_I of a block's size, costing the same
                client_packet: (iface_us % 2 == 1).then_some(Bytes(stripe)),
                client_send: Duration(if iface_us % 2 == 1 { iface_us * 1000 } else { 0 }),
            });
        }
        if round > 0 {
            s.file.terminals.rounds = Some(RoundsSection {
                blocks: round,
                issue: if lead_ms > 0 { RoundIssue::Latest } else { RoundIssue::Eager },
                lead: (lead_ms > 0).then_some(Duration(lead_ms * 1_000_000)),
            });
        }
        let (results, _) = runner::run(&s, &mut |_, _| {}).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(results.summary.measured_ns > 0 && results.summary.conservation.requests_issued > 0);
        let c = &results.summary.conservation;
        prop_assert_eq!(c.requests_issued, c.requests_delivered + c.requests_in_system);
        prop_assert_eq!(c.disk_demand_bytes + c.hit_bytes + c.join_bytes, c.sent_bytes + c.serving_bytes);
        prop_assert_eq!(c.sent_bytes, c.received_bytes + c.in_transit_bytes);
        prop_assert_eq!(c.received_bytes, c.consumed_bytes + c.discarded_bytes + c.buffered_bytes);
        let mem = s.file.terminals.memory.0;
        prop_assert_eq!(results.summary.terminal_buffer.memory_bytes, mem);
        prop_assert!(results.summary.terminal_buffer.occupancy_peak_bytes <= mem,
            "a terminal held {} bytes in {} of memory", results.summary.terminal_buffer.occupancy_peak_bytes, mem);
        let pool = &results.summary.buffer_pool;
        prop_assert!(pool.memory_in_use_peak_bytes <= pool.pages_per_node * u64::from(nodes) * u64::from(stripe_kib) * 1024);
        prop_assert_eq!(pool.references, pool.hits + pool.joins + pool.misses + pool.page_waits);
        prop_assert!(pool.prefetches_wasted <= pool.prefetches_issued + pool.pages_per_node * u64::from(nodes),
            "more prefetches wasted than issued");
        prop_assert!(results.summary.disks.utilization_max_ratio <= 1.0 + 1e-12);
        if let Some(p) = &results.summary.piggyback {
            // each formed group's members all waited: Σ members = saved + groups ≤ waits
            prop_assert!(p.streams_saved + p.groups_formed <= p.wait.count);
            prop_assert!(2 * p.groups_formed <= p.wait.count);
        }
        let search = results.summary.search.as_ref().expect("an [interactive] section");
        if !version {
            prop_assert_eq!(search.search_version_bytes, 0);
        } else {
            prop_assert_eq!(search.segments_shown, 0);
            prop_assert!(search.search_version_bytes > 0);
        }
    }
}

/// A case the property test once drew: a backward search on a search version whose last
/// block is short (15 s at 4 Mbit/s: 114 blocks of 64 KiB and 28,896 bytes) arrived before
/// the block ahead of it. The terminal held two blocks and the short one (159,968 bytes in
/// 180,502 of memory) but its occupancy counted the short block as a whole one (196,608).
#[test]
fn a_short_last_block_held_out_of_order_counts_its_own_length() {
    let interactive = Interactive {
        searches: 3.0,
        version: true,
        every: 8,
        piggyback_s: 20,
        most_popular: 6,
    };
    let text = scenario_text(
        827,
        1,
        1,
        20,
        64,
        27,
        0.7320792807447474,
        1.4327025766731498,
        &Plugins::named(&[
            ("disk.scheduler", Kind::DiskScheduler, "scan-edf"),
            ("prefetcher", Kind::Prefetcher, "standard"),
            ("buffer_pool", Kind::BufferPool, "global-lru"),
            ("layout", Kind::Layout, "striped"),
        ]),
        true,
        &interactive,
    );
    let registry = vodbench_plugins::registry();
    let mut s = Scenario::parse(&text, Path::new("case.toml"), &registry).unwrap();
    s.file.terminals.memory = Bytes(180_502);
    let (results, _) = runner::run(&s, &mut |_, _| {}).unwrap();
    let buffer = &results.summary.terminal_buffer;
    assert_eq!(buffer.memory_bytes, 180_502);
    assert_eq!(buffer.occupancy_peak_bytes, 159_968);
}
