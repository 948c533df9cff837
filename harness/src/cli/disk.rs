//! `vodbench disk replay`: a block trace replayed through one disk model
//! ([`crate::experiment::disk_replay`]), its figures printed and, with `--out`, its
//! `requests.csv` and `summary.json` written.

use super::CommandError;
use crate::experiment::disk_replay::{replay_trace, ReplayArgs, ReplayError, TraceFormat};
use crate::output;
use crate::plugin::Registry;
use std::path::PathBuf;

/// `vodbench disk` subcommands.
#[derive(clap::Subcommand)]
pub(crate) enum DiskCmd {
    /// Replay a block trace (DiskSim ASCII: `arrival_ms device lbn sectors flags`, flags bit 0 =
    /// read; or DiskSim's `validate` format of real drives, `--format validate`) through one
    /// disk model, first come first served; write requests.csv and summary.json.
    Replay(ReplayFlags),
}

/// Arguments of `vodbench disk replay`.
#[derive(clap::Args)]
pub(crate) struct ReplayFlags {
    /// The disk: a bundled name (`barracuda`, `hp_c2247a`, `cheetah9LP`, `st15150n`) or a
    /// DiskSim parameter file; passed to the model as its `spec` parameter.
    #[arg(long)]
    spec: String,
    /// Which disk in the file (block or instance name), passed as `disk`.
    #[arg(long)]
    disk: Option<String>,
    /// The trace file.
    #[arg(long)]
    trace: PathBuf,
    /// Disk model plugin (default: the binary's default for disk replay, `mechanical` in
    /// vodbench).
    #[arg(long)]
    model: Option<String>,
    /// Output folder for requests.csv and summary.json.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Reference response times (ms, one per line, trace order): adds the demerit figure
    /// and the mean per-request error to the summary.
    #[arg(long)]
    reference: Option<PathBuf>,
    /// Closed loop: each request arrives when the previous one completes (trace arrival
    /// times are ignored).
    #[arg(long)]
    closed: bool,
    /// The trace's format: `ascii` (DiskSim ASCII) or `validate` (DiskSim's real-drive
    /// validation traces, `R|W action lbn sectors drive_us think_us`: each request is issued
    /// its think time after the previous completes, and the replay is compared with the
    /// drive by DiskSim's validation figure).
    #[arg(long, value_enum, default_value_t = TraceFormat::Ascii)]
    format: TraceFormat,
}

/// The table whose registered default (`Registry::set_default`) is the model `disk replay`
/// uses when `--model` is not given.
pub const REPLAY_SLOT: &str = crate::plugin::slot_keys::DISK_REPLAY;

/// `vodbench disk …`.
pub(crate) fn cmd(registry: &Registry, cmd: DiskCmd) -> Result<(), CommandError> {
    match cmd {
        DiskCmd::Replay(f) => {
            let model = match f.model {
                Some(m) => m,
                None => registry
                    .default_choice(REPLAY_SLOT)
                    .map(|d| d.name.clone())
                    .ok_or_else(|| {
                        CommandError::input(format!(
                            "--model: this binary registers no default disk model for disk \
                             replay; choose one of: {}",
                            registry.names_of(crate::plugin::Kind::DiskModel).join(", ")
                        ))
                    })?,
            };
            let args = ReplayArgs {
                model,
                spec: f.spec,
                disk: f.disk,
                trace: f.trace,
                reference: f.reference,
                out: f.out,
                closed: f.closed,
                format: f.format,
            };
            let _lock = match &args.out {
                Some(dir) => Some(output::claim_output_dir(
                    dir,
                    output::Claim::Exclusive,
                    output::Writer::DiskReplay,
                )?),
                None => None,
            };
            print!("{}", replay(registry, &args)?);
            Ok(())
        }
    }
}

/// `vodbench disk replay` without its printing: replays the trace, writes the output folder
/// when `args.out` names one, and gives the report the command prints.
///
/// With `args.out`, `requests.csv` is written as the trace is replayed, into the folder's
/// staging copy, which is published (with `summary.json`) only when the replay succeeded.
pub fn replay(registry: &Registry, args: &ReplayArgs) -> Result<String, ReplayError> {
    let Some(dir) = &args.out else {
        return Ok(replay_trace(registry, args, None)?.report(args));
    };
    let replay = output::write_staged(
        dir,
        output::Writer::DiskReplay,
        |tmp| -> Result<_, ReplayError> {
            let path = tmp.join("requests.csv");
            let file = std::fs::File::create(&path).map_err(|e| output::oerr(&path, e))?;
            let mut rows = std::io::BufWriter::with_capacity(1 << 16, file);
            let replay = replay_trace(registry, args, Some(&mut rows))?;
            rows.into_inner()
                .map_err(|e| output::oerr(&path, e.error()))?
                .sync_all()
                .map_err(|e| output::oerr(&path, e))?;
            let summary = tmp.join("summary.json");
            std::fs::write(&summary, replay.summary_json(args))
                .map_err(|e| output::oerr(&summary, e))?;
            Ok(replay)
        },
    )?;
    let mut report = replay.report(args);
    report.push_str(&format!("wrote {}\n", dir.display()));
    Ok(report)
}
