//! What the terminals are built from: `[terminals]` (their count, memory, priming and
//! `[terminals.rounds]`), the videos' bit rate, `[server.interface_cpu] client_packet`,
//! `[server.rounds]`, `[interactive]` and `[piggyback]`; and the video library they play,
//! checked against their memory before the run.

use super::super::piggyback::Piggyback;
use super::super::scenario::{RoundIssue, Scenario, ScenarioError, Warmup};
use super::super::setup::Setup;
use super::super::video::{FrameNeed, LibraryMemo, VideoLibrary};
use super::super::visual_search::VisualSearch;
use super::super::workload::{Digest, Events};
use super::Terminals;
use crate::time::SimDuration;

/// What the terminals are configured with.
pub(super) struct TerminalConfig {
    /// Real terminals (`terminals.count`).
    pub count: usize,
    /// `[terminals.rounds]`: blocks per set, and with `issue = "latest"` the lead.
    pub rounds: Option<(u32, Option<SimDuration>)>,
    /// Each terminal's buffer memory.
    pub memory: u64,
    /// `terminals.prime`.
    pub prime: Option<u64>,
    /// A read request message's size (`server.network.request_bytes`).
    pub request_bytes: u64,
    /// The videos' mean bit rate (what admission is told).
    pub bit_rate: u64,
    /// Stripe block size.
    pub block_bytes: u64,
    /// How the measured period starts.
    pub warmup: Warmup,
    /// Whether the summary reports searches (`[interactive]` present, or `ff`/`rewind`
    /// events in the workload).
    pub report_searches: bool,
    /// `[server.interface_cpu] client_packet`: the packet's bytes and δ_I, its playout time.
    pub client_packet: Option<(u64, SimDuration)>,
    /// `[server.rounds]`: the round clock, not the buffer's room, drives the requests.
    pub server_rounds: bool,
}

impl<'a> Terminals<'a> {
    /// The terminals of `setup`'s scenario over the video library `lib`, driven by the
    /// workload `events` (of which `digest` tells the starts and the searches).
    pub fn build(setup: Setup<'_>, lib: VideoLibrary, events: Events<'a>, digest: &Digest) -> Self {
        let f = &setup.scenario.file;
        let s = &f.server;
        let interactive = f.interactive.clone().unwrap_or_default();
        let cfg = TerminalConfig {
            count: setup.scenario.terminals() as usize,
            rounds: f.terminals.rounds.as_ref().map(|r| {
                (
                    r.blocks,
                    match r.issue {
                        RoundIssue::Latest => r.lead.map(|l| l.sim()),
                        RoundIssue::Eager => None,
                    },
                )
            }),
            memory: f.terminals.memory.0,
            prime: f.terminals.prime.map(|b| b.0),
            request_bytes: s.network.request_bytes.0,
            bit_rate: f.videos.bit_rate.0,
            block_bytes: setup.block_bytes,
            warmup: f.run.warmup,
            report_searches: f.interactive.is_some() || digest.searches,
            client_packet: s.interface_cpu.as_ref().and_then(|c| {
                let bytes = c.client_packet?.0;
                let every =
                    u128::from(bytes) * 8 * 1_000_000_000 / u128::from(f.videos.bit_rate.0.max(1));
                Some((bytes, SimDuration::from_nanos(every as u64)))
            }),
            server_rounds: s.rounds.is_some(),
        };
        let search = VisualSearch::new(&interactive, f.videos.count);
        Terminals::new(
            cfg,
            lib,
            setup.blocks,
            events,
            (digest.starting, digest.last_first_start),
            Piggyback::new(f.piggyback.clone()),
            search,
        )
    }

    /// The video library of `scenario` (from `memo` when it holds it), checked against the
    /// terminals' memory: first against the first video's first frames, before the library is
    /// built (a library of many long videos takes gigabytes and a minute to build, and a
    /// configuration error must not wait for it), then against every frame.
    pub fn library(
        scenario: &Scenario,
        memo: Option<&LibraryMemo>,
    ) -> Result<VideoLibrary, ScenarioError> {
        let f = &scenario.file;
        let block_bytes = scenario.block_bytes();
        let versions = f.interactive.clone().unwrap_or_default().search_versions();
        if let Some(first) =
            VideoLibrary::memory_needed_at_least(&f.videos, f.seed, block_bytes, 1 << 20)
        {
            check_terminal_need(scenario, first)?;
        }
        let lib = match memo {
            Some(m) => m.build(&f.videos, f.seed, Some(block_bytes), versions),
            None => VideoLibrary::build(&f.videos, f.seed, Some(block_bytes), versions),
        };
        check_terminal_memory(scenario, &lib)?;
        Ok(lib)
    }
}

/// Checks that a terminal's memory can hold every frame of the library together with the
/// stripe blocks it spans (see [`VideoLibrary::memory_needed`]); otherwise a terminal would
/// wait forever for a block it has no room to request.
fn check_terminal_memory(scenario: &Scenario, lib: &VideoLibrary) -> Result<(), ScenarioError> {
    check_terminal_need(scenario, lib.memory_needed(scenario.file.server.stripe.0))
}

/// [`check_terminal_memory`] against `need`, the frame needing the most memory (of the
/// library, or of a part of it: a lower bound).
fn check_terminal_need(scenario: &Scenario, need: FrameNeed) -> Result<(), ScenarioError> {
    let f = &scenario.file;
    let block = f.server.stripe.0;
    // reading in rounds, the set holding the frame's last block may reach `blocks - 1`
    // blocks past it, and it is asked for only when all of it fits beside the frame
    let set = f
        .terminals
        .rounds
        .as_ref()
        .map_or(1, |r| u64::from(r.blocks));
    let needed = need.bytes.saturating_add((set - 1).saturating_mul(block));
    let memory = f.terminals.memory.0;
    if memory >= needed {
        return Ok(());
    }
    let size = crate::units::fmt_bytes;
    let rounds = if set > 1 {
        format!(
            ", and reading {set} blocks a round (terminals.rounds.blocks) the {} more blocks \
             of the round that block may open: {needed} bytes",
            set - 1
        )
    } else {
        String::new()
    };
    let message = format!(
        "{} cannot display frame {} of video {}: a terminal must hold that frame's {} bytes \
         together with the rest of the {} stripe blocks it spans, {} bytes in all{rounds}; must \
         be at least {needed} bytes for these videos and this stripe (or choose a smaller \
         stripe)",
        size(memory),
        need.frame,
        need.video,
        need.frame_bytes,
        size(block),
        need.bytes,
    );
    Err(scenario.source.at("terminals.memory", message))
}
