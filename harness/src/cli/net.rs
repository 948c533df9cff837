//! `vodbench net calibrate`: a scenario's interconnect measured on its own
//! ([`crate::system::ondemand::calibrate`]): messages of each size from node to node, alone
//! (point-to-point bandwidth, Jadav et al. §5.1) or from several senders at once (blocking).

use super::search::read_on_demand;
use super::CommandError;
use crate::output::{self, Writers};
use crate::plugin::Registry;
use crate::system::ondemand::calibrate::{calibrate, calibration_csv, CalibrateOptions};
use crate::system::ondemand::scenario::Scenario;
use crate::units::{fmt_bytes, parse_bytes};
use std::path::PathBuf;

/// The message sizes of Jadav et al.'s calibration (`../shared/papers/notes/jadav.md`,
/// `calib-network`): powers of two from 8 KiB to 512 KiB and the fragment sizes the paper
/// uses (40, 80, 106, 120, 160, 320 KiB).
pub const DEFAULT_SIZES: &str =
    "8KiB,16KiB,32KiB,40KiB,64KiB,80KiB,106KiB,120KiB,128KiB,160KiB,256KiB,320KiB,512KiB";

/// `vodbench net` subcommands.
#[derive(clap::Subcommand)]
pub(crate) enum NetCmd {
    /// Measure the scenario's interconnect (`[server.network]`) on its own: a message of
    /// each size from node to node on an idle network (its time and bandwidth), or from
    /// several senders at once (how long they wait for the links they share).
    Calibrate(CalibrateArgs),
}

/// Arguments of `vodbench net calibrate`.
#[derive(clap::Args)]
pub(crate) struct CalibrateArgs {
    /// Scenario file (TOML): its `[server]` nodes and `[server.network]` interconnect.
    scenario: PathBuf,
    /// Message sizes (default: 8KiB to 512KiB, Jadav et al.'s).
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_SIZES)]
    sizes: Vec<String>,
    /// Sending nodes, each sending one message of each size at the same instant (default:
    /// node 0 alone).
    #[arg(long, value_delimiter = ',', default_value = "0")]
    from: Vec<u32>,
    /// Receiving node.
    #[arg(long, default_value_t = 1)]
    to: u32,
    /// Output folder for calibration.json and calibration.csv.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `vodbench net …`.
pub(crate) fn cmd(registry: &Registry, cmd: NetCmd) -> Result<(), CommandError> {
    match cmd {
        NetCmd::Calibrate(a) => {
            let sizes = a
                .sizes
                .iter()
                .map(|s| {
                    parse_bytes(s.trim())
                        .filter(|&b| b > 0 && b <= 1 << 40)
                        .ok_or_else(|| {
                            CommandError::input(format!(
                                "--sizes: `{s}` is not a message size (1B..=1TiB: `64KiB`, \
                             `106KB`, `4096`)"
                            ))
                        })
                })
                .collect::<Result<Vec<u64>, _>>()?;
            let source = read_on_demand(
                &a.scenario,
                "net calibrate measures an on-demand scenario's interconnect; this is a \
                 broadcast scenario",
            )?;
            let scenario = Scenario::from_source(&source?, registry)?;
            let c = calibrate(
                &scenario,
                &CalibrateOptions {
                    sizes,
                    to: a.to,
                    from: a.from.clone(),
                },
            )?;
            print!(
                "{} from node{} {} to node {} ({} nodes), `{}` {}\n\
                 {:>10} {:>8} {:>14} {:>14} {:>14} {:>14} {:>11}\n",
                scenario.name(),
                if a.from.len() > 1 { "s" } else { "" },
                a.from
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                c.to,
                c.nodes,
                c.interconnect,
                c.params,
                "size",
                "messages",
                "unloaded (µs)",
                "mean (µs)",
                "max (µs)",
                "max wait (µs)",
                "MB/s"
            );
            for r in &c.rows {
                println!(
                    "{:>10} {:>8} {:>14.3} {:>14.3} {:>14.3} {:>14.3} {:>11.3}",
                    fmt_bytes(r.bytes),
                    r.messages,
                    r.unloaded_ns as f64 / 1e3,
                    r.mean_ns as f64 / 1e3,
                    r.max_ns as f64 / 1e3,
                    r.blocking_max_ns as f64 / 1e3,
                    r.bandwidth_mb_s
                );
            }
            if let Some(dir) = &a.out {
                let writer = output::Writer::NetCalibrate;
                let _lock = output::claim_output_dir(dir, output::Claim::Exclusive, writer)?;
                output::write_folder(
                    dir,
                    writer,
                    &[
                        ("calibration.json", output::to_json(&c)),
                        ("calibration.csv", calibration_csv(&c)),
                    ],
                    &[],
                    Writers::default(),
                    &[],
                )?;
                println!("wrote {}", dir.display());
            }
            Ok(())
        }
    }
}
