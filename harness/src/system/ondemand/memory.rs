//! A memory budget before allocating: an estimate of what a run of an on-demand scenario
//! holds at its peak, made from the scenario alone, and the refusal of a scenario whose
//! estimate exceeds the limit (`--max-memory`, [`DEFAULT_LIMIT`] unless raised), naming the
//! part that dominates and the key that sets it.
//!
//! The parts: the video library (each video's GOP offsets and block-boundary table, and one
//! video's frame sizes while it is built), the time series (`run.sample_interval` over the
//! whole horizon), the sampled disk requests (`run.request_sample_every`), the buffer pools'
//! page tables, the workload's stream (each terminal's generator and the viewing it is on:
//! the events themselves are read as the run reaches them, never held), the disk requests
//! in flight (a slot per piece of every block the terminals may have asked for: with
//! fine-grained striping a block is read in [`Layout::pieces`](crate::plugin::Layout::pieces)
//! pieces, each an access of its own), per-terminal and per-disk state, and the process
//! itself. Each is sized as the engine stores it and counted about three times where the
//! outputs copy it (tables, CSV, Parquet); the estimate aims at the right order of magnitude
//! (a factor of two of the measured peak), not at the byte.

use super::scenario::{Scenario, ScenarioError, LAYOUT};
use super::video::{blocks_per_video, frames_per_video};

pub use crate::system::memory::{limit, set_limit, Estimate, Part, DEFAULT_LIMIT};

/// The process itself: code, allocator, the output writers' buffers.
const PROCESS: u64 = 24 << 20;
/// Bytes per time-series sample (six columns of 8 bytes).
const SAMPLE: u64 = 48;
/// Bytes per sampled disk request (eight numbers and a class name).
const REQUEST: u64 = 100;
/// Copies of a table a run holds while its outputs are written.
const COPIES: u64 = 3;
/// Bytes per disk access in flight: its slot, its free-list entry and its events.
const ACCESS: u64 = std::mem::size_of::<super::requests::DReq>() as u64 + 4 + 2 * 24;

/// The pieces a block is read in ([`Layout::pieces`](crate::plugin::Layout::pieces)), asked
/// of the scenario's layout built for a library of one video on disks that hold anything
/// (nothing large is built, and only the pieces are asked); 1 when it cannot be built so (a
/// run's own build then says why).
fn pieces(s: &Scenario) -> u64 {
    let f = &s.file;
    let blocks = [blocks_per_video(&f.videos, s.block_bytes()).min(u64::from(u32::MAX)) as u32];
    let ctx = s
        .server_context(LAYOUT.key, 0)
        .with_video_blocks(&blocks)
        .with_geometry(Some(crate::plugin::DiskGeometry {
            capacity_bytes: u64::MAX,
            cylinders: 1,
        }))
        .with_pages(1);
    s.plugins
        .required(&LAYOUT)
        .build(&ctx)
        .map_or(1, |l| u64::from(l.pieces().max(1)))
}

/// The estimate for one run of `s`.
pub fn estimate(s: &Scenario) -> Estimate {
    let f = &s.file;
    let v = &f.videos;
    let mul = |a: u64, b: u64| a.saturating_mul(b);
    let frames = frames_per_video(v);
    let gop = (v.gop.len() as u64).max(1);
    let gops = frames.div_ceil(gop);
    let blocks = blocks_per_video(v, f.server.stripe.0).min(2 * gops);
    let per_video = mul(gops + 1, 8).saturating_add(mul(blocks, 4));
    let library = mul(u64::from(v.count), per_video).saturating_add(mul(frames, 4));
    let horizon = s.horizon().as_nanos();
    let samples = horizon / f.run.sample_interval.0.max(1);
    let series = mul(mul(samples, SAMPLE), COPIES);
    let seconds = f.run.duration.0 / 1_000_000_000 + 1;
    let bytes_read = mul(mul(u64::from(s.terminals()), v.bit_rate.0 / 8), seconds);
    let reads = bytes_read / f.server.stripe.0.max(1);
    let kept = reads / u64::from(f.run.request_sample_every.max(1));
    let requests = mul(mul(kept, REQUEST), COPIES);
    let pages = mul(
        mul(
            u64::from(f.server.nodes),
            f.server.memory_per_node.0 / f.server.stripe.0.max(1),
        ),
        48,
    );
    // a generator per terminal (its random stream, its current viewing's events, its place
    // among those due) or a trace's read buffer, and the events waiting behind a terminal
    let per_viewing = f.workload.generate.as_ref().map_or(4.0, |g| {
        2.0 + 2.0 * g.pauses_per_video + g.seeks_per_video + 2.0 * g.searches_per_video
    });
    let events = mul(
        u64::from(s.terminals()),
        96 + (per_viewing * 32.0).min(1e6) as u64,
    )
    .saturating_add(64 << 10);
    let state = mul(u64::from(s.terminals()), 1024).saturating_add(mul(
        mul(
            u64::from(f.server.nodes),
            u64::from(f.server.disks_per_node),
        ),
        4096,
    ));
    // every terminal may have asked for as many blocks as its memory holds (at most 128
    // past what arrived), each read in `pieces` accesses
    let asked = (f.terminals.memory.0 / f.server.stripe.0.max(1) + 1).min(128);
    let in_flight = mul(mul(mul(u64::from(s.terminals()), asked), pieces(s)), ACCESS);
    let mut parts = vec![
        Part {
            what: "the disk requests in flight (an access per piece of every block asked for)",
            key: "terminals.memory",
            bytes: in_flight,
        },
        Part {
            what: "the video library (GOP offsets and block tables of every video)",
            key: "videos.count",
            bytes: library,
        },
        Part {
            what: "the time series (one sample per run.sample_interval)",
            key: "run.sample_interval",
            bytes: series,
        },
        Part {
            what: "the sampled disk requests (every run.request_sample_every-th)",
            key: "run.request_sample_every",
            bytes: requests,
        },
        Part {
            what: "the buffer pools' page tables",
            key: "server.memory_per_node",
            bytes: pages,
        },
        Part {
            what: "the workload's stream (a generator per terminal)",
            key: "terminals.count",
            bytes: events,
        },
        Part {
            what: "the terminals' and disks' state",
            key: "terminals.count",
            bytes: state,
        },
        Part {
            what: "the process itself",
            key: "",
            bytes: PROCESS,
        },
    ];
    if f.transmission.is_some() {
        // each client's state and jitter histogram (clients.rs)
        parts.push(Part {
            what: "the clients of [transmission] (a jitter histogram each)",
            key: "terminals.count",
            bytes: mul(u64::from(s.terminals()), 32 << 10),
        });
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    Estimate { parts }
}

/// Whether a part is held until the end of a sweep's run (its results, kept for the
/// folder written at the end) rather than only while its point runs.
fn held_to_the_end(p: &Part) -> bool {
    matches!(p.key, "run.sample_interval" | "run.request_sample_every")
}

/// The estimate of a run of every one of `points` (a sweep file's), `parallel` at a time:
/// every point's results are held until the folder is written, the rest by each running
/// point (the largest `parallel` of them), the process once.
pub fn estimate_points(points: &[&Scenario], parallel: usize) -> Estimate {
    let each: Vec<Estimate> = points.iter().map(|s| estimate(s)).collect();
    let Some(first) = each.first() else {
        return Estimate { parts: Vec::new() };
    };
    let mut parts: Vec<Part> = first
        .parts
        .iter()
        .map(|p| {
            let of_each = each
                .iter()
                .filter_map(|e| e.parts.iter().find(|q| q.what == p.what).map(|q| q.bytes));
            let bytes = if p.key.is_empty() {
                p.bytes
            } else if held_to_the_end(p) {
                of_each.fold(0u64, u64::saturating_add)
            } else {
                let mut v: Vec<u64> = of_each.collect();
                v.sort_unstable_by(|a, b| b.cmp(a));
                v.iter()
                    .take(parallel.max(1))
                    .fold(0u64, |a, b| a.saturating_add(*b))
            };
            Part { bytes, ..p.clone() }
        })
        .collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.bytes));
    Estimate { parts }
}

/// Refuses `s` when its estimate exceeds the limit in force ([`set_limit`]), naming the
/// dominant part at the key that sizes it, before anything is allocated.
pub fn check(s: &Scenario) -> Result<(), ScenarioError> {
    check_estimate(s, estimate(s))
}

/// [`check`] for the run of every one of `points`, `parallel` at a time
/// ([`estimate_points`]); the error is placed in the first point's file.
pub fn check_points(points: &[&Scenario], parallel: usize) -> Result<(), ScenarioError> {
    match points.first() {
        Some(s) => check_estimate(s, estimate_points(points, parallel)),
        None => Ok(()),
    }
}

fn check_estimate(s: &Scenario, e: Estimate) -> Result<(), ScenarioError> {
    crate::system::memory::refuse_above_limit(&s.source, &e)
}
