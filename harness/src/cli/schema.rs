//! `vodbench schema`: the JSON Schema of the scenario format, of on-demand scenarios or, with
//! `--broadcast`, of broadcast ones (each lists the registered plugins' parameters).

use super::CommandError;
use crate::output;
use crate::plugin::Registry;

/// Arguments of `vodbench schema`.
#[derive(clap::Args)]
pub(crate) struct SchemaArgs {
    /// The schema of broadcast scenarios (files with a `[broadcast]` table) instead.
    #[arg(long)]
    broadcast: bool,
}

/// `vodbench schema [--broadcast]`.
pub(crate) fn cmd(registry: &Registry, args: SchemaArgs) -> Result<(), CommandError> {
    let schema = if args.broadcast {
        crate::system::broadcast::scenario::json_schema(registry)
    } else {
        crate::system::ondemand::scenario::json_schema(registry)
    };
    println!("{}", output::to_json(&schema).trim_end());
    Ok(())
}
