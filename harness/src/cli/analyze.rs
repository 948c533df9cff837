//! `vodbench analyze`: the analytic model a scenario declares (`[analytic]`, or
//! `[broadcast.analytic]`), evaluated at every point of the file, without simulating
//! ([`crate::experiment::analyze`]); prints the values beside the published ones and writes
//! `analysis.json`, `analysis.csv` and a CSV per table.

use super::CommandError;
use crate::experiment::analyze::{analysis_folder, analysis_manifest, analyze, text};
use crate::output;
use crate::plugin::{Kind, Registry};
use crate::scenario::Source;
use crate::system::broadcast::Broadcast;
use crate::system::ondemand::OnDemand;
use crate::system::{declared, Declared, System};
use std::path::PathBuf;

/// Arguments of `vodbench analyze`.
#[derive(clap::Args)]
pub(crate) struct AnalyzeArgs {
    /// Scenario file (TOML), with or without a `[sweep]`.
    scenario: PathBuf,
    /// Output folder (default: out/NAME-analysis, NAME being the scenario's name with
    /// characters other than letters, digits, '.', '_' and '-' made '_').
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// `vodbench analyze`.
pub(crate) fn cmd(registry: &Registry, args: AnalyzeArgs) -> Result<(), CommandError> {
    let source = Source::read(&args.scenario)?;
    match declared(&source) {
        Declared::OnDemand => analyze_file::<OnDemand>(registry, &source, &args),
        Declared::Broadcast => analyze_file::<Broadcast>(registry, &source, &args),
    }
}

fn analyze_file<S: System>(
    registry: &Registry,
    source: &std::sync::Arc<Source>,
    args: &AnalyzeArgs,
) -> Result<(), CommandError> {
    let suite = S::load(source, registry)?;
    let result = analyze::<S>(&suite)?.ok_or_else(|| {
        CommandError::input(format!(
            "{}: names no analytic model: add an [analytic] table choosing one of: {} \
             (`vodbench plugins` lists their parameters)",
            source.path().display(),
            registry.names_of(Kind::AnalyticModel).join(", ")
        ))
    })?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_dir(&format!("{}-analysis", S::name(&suite))));
    let _lock = output::claim_output_dir(&dir, output::Claim::Exclusive, output::Writer::Analyze)?;
    let folder = analysis_folder(&analysis_manifest(&result, source.path()), &result);
    output::write_tree(
        &dir,
        output::Writer::Analyze,
        &folder,
        output::Writers::default(),
    )?;
    if !args.quiet {
        print!("{}", text(&result));
        println!("output: {}", dir.display());
    }
    Ok(())
}
