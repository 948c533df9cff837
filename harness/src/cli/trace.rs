//! `vodbench trace zipf`: a workload trace from the generator, its settings taken from a
//! scenario's `[workload.generate]` and overridden flag by flag.

use super::CommandError;
use crate::file_mark;
use crate::output;
use crate::plugin::Registry;
use crate::system::ondemand::runner;
use crate::system::ondemand::scenario::Scenario;
use crate::time::SimTime;
use crate::trace::{self, GeneratorParams, Popularity, TraceHeader};
use crate::units::Duration;
use std::path::PathBuf;

/// `vodbench trace` subcommands.
#[derive(clap::Subcommand)]
pub(crate) enum TraceCmd {
    /// Generate a workload trace (Zipf, uniform, distinct or hotspot popularity; the
    /// distinct and hotspot kinds from a --scenario).
    Zipf(ZipfArgs),
}

/// Arguments of `vodbench trace zipf`.
#[derive(clap::Args)]
pub(crate) struct ZipfArgs {
    /// Take every setting from this scenario's [workload.generate] (flags below override).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// Number of terminals.
    #[arg(long)]
    terminals: Option<u32>,
    /// Number of videos.
    #[arg(long)]
    videos: Option<u32>,
    /// Zipf parameter z (0 = uniform).
    #[arg(long)]
    z: Option<f64>,
    /// Uniform popularity instead of Zipf.
    #[arg(long)]
    uniform: bool,
    /// Video length, e.g. 60min.
    #[arg(long)]
    length: Option<String>,
    /// Terminals start uniformly within this span, e.g. 60s.
    #[arg(long)]
    start_spread: Option<String>,
    /// Generate events up to this time, e.g. 2h.
    #[arg(long)]
    horizon: Option<String>,
    /// Mean pauses per viewing.
    #[arg(long)]
    pauses_per_video: Option<f64>,
    /// Mean pause length, e.g. 2min.
    #[arg(long)]
    pause_mean: Option<String>,
    /// Mean seeks per viewing.
    #[arg(long)]
    seeks_per_video: Option<f64>,
    /// Mean seek distance, e.g. 5min.
    #[arg(long)]
    seek_mean: Option<String>,
    /// Seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Output file (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `vodbench trace …`.
pub(crate) fn cmd(registry: &Registry, cmd: TraceCmd) -> Result<(), CommandError> {
    match cmd {
        TraceCmd::Zipf(args) => zipf(registry, args),
    }
}

/// The duration given with `--flag`, if any.
fn duration(flag: &str, v: &Option<String>) -> Result<Option<Duration>, CommandError> {
    v.as_ref()
        .map(|s| {
            crate::units::parse_duration_ns(s)
                .map(Duration)
                .ok_or_else(|| {
                    CommandError::input(format!(
                        "--{flag}: expected a duration like 90s, 10min, 2h; got {s:?}"
                    ))
                })
        })
        .transpose()
}

/// `vodbench trace zipf`.
fn zipf(registry: &Registry, a: ZipfArgs) -> Result<(), CommandError> {
    let bad = |m: &str| CommandError::input(m);
    let base = match &a.scenario {
        Some(p) => Some(Scenario::load(p, registry)?),
        None => None,
    };
    if let (Some(p), Some(s)) = (&a.scenario, &base) {
        if let Some(t) = &s.file.workload.trace {
            return Err(CommandError::input(format!(
                "{}: its workload is the trace {} ([workload] trace), not generated: `trace \
                 zipf --scenario` writes a scenario's [workload.generate] workload; use that \
                 trace as it is, or give the generator's settings as flags without --scenario",
                p.display(),
                t.display()
            )));
        }
    }
    let mut params = base
        .as_ref()
        .and_then(|s| s.file.workload.generate.clone())
        .unwrap_or_else(GeneratorParams::default);
    if a.uniform {
        params.popularity = Popularity::Uniform;
    }
    if let Some(z) = a.z {
        params.popularity = Popularity::Zipf;
        params.z = z;
    }
    if let Some(d) = duration("start-spread", &a.start_spread)? {
        params.start_spread = d;
    }
    if let Some(x) = a.pauses_per_video {
        params.pauses_per_video = x;
    }
    if let Some(d) = duration("pause-mean", &a.pause_mean)? {
        params.pause_mean = d;
    }
    if let Some(x) = a.seeks_per_video {
        params.seeks_per_video = x;
    }
    if let Some(d) = duration("seek-mean", &a.seek_mean)? {
        params.seek_mean = d;
    }
    params
        .validate()
        .map_err(|(k, m)| CommandError::input(format!("{}: {m}", k.replace('_', "-"))))?;
    let terminals = a
        .terminals
        .or(base.as_ref().map(|s| s.terminals()))
        .ok_or_else(|| bad("--terminals is required (or --scenario)"))?;
    let videos = a
        .videos
        .or(base.as_ref().map(|s| s.file.videos.count))
        .ok_or_else(|| bad("--videos is required (or --scenario)"))?;
    if terminals == 0 || videos == 0 {
        return Err(bad("--terminals and --videos must be at least 1"));
    }
    let length = duration("length", &a.length)?
        .or(base.as_ref().map(|s| s.file.videos.length))
        .ok_or_else(|| bad("--length is required (or --scenario)"))?;
    let horizon = match duration("horizon", &a.horizon)? {
        Some(h) => SimTime::from_nanos(h.0),
        None => match &base {
            Some(s) => runner::horizon(s),
            None => return Err(bad("--horizon is required (or --scenario)")),
        },
    };
    let seed = a.seed.or(base.as_ref().map(|s| s.file.seed)).unwrap_or(1);
    // streamed as generated, never held; a workload that needs more videos of their own
    // than there are is refused before a line is written (a first pass counts them)
    let events = || {
        trace::generate_stream(&params, terminals, videos, length.sim(), horizon, seed)
            .map_err(CommandError::input)
    };
    if matches!(
        params.popularity,
        Popularity::Distinct | Popularity::Hotspot
    ) {
        let mut all = events()?;
        all.by_ref().for_each(drop);
        all.check_videos().map_err(CommandError::input)?;
    }
    let header = TraceHeader {
        terminals: Some(terminals),
        videos: Some(videos),
    };
    match a.out {
        Some(p) => {
            let _lock = output::lock_output(&p, output::Claim::Exclusive)?;
            file_mark::check_replaceable(&p, WORKLOAD_TRACE).map_err(CommandError::input)?;
            let events = events()?;
            output::write_atomic_with(&p, |w| trace::write_trace(w, &header, events))?;
            file_mark::mark(&p, WORKLOAD_TRACE)?
        }
        None => {
            let out = std::io::stdout().lock();
            trace::write_trace(std::io::BufWriter::new(out), &header, events()?)
                .map_err(CommandError::failure)?
        }
    }
    Ok(())
}

/// What `trace zipf --out` writes: a workload trace whose mark beside it
/// ([`crate::file_mark`]) lets a later `trace zipf` replace it. Its header alone would not
/// do: a trace of the user's begins with the same `# vodbench-trace v1`.
const WORKLOAD_TRACE: file_mark::FileKind = file_mark::FileKind {
    format: "vodbench-workload-trace/1",
    what: "a trace vodbench wrote",
};
