//! `vodbench check`: scenario files validated without running them — every point loaded,
//! built as a run would build it, and its workload generated.

use super::CommandError;
use crate::plugin::Registry;
use crate::scenario::{ScenarioError, Source};
use crate::system::broadcast::Broadcast;
use crate::system::ondemand::OnDemand;
use crate::system::{declared, Declared, System};
use std::path::PathBuf;

/// Arguments of `vodbench check`.
#[derive(clap::Args)]
pub(crate) struct CheckArgs {
    /// Scenario files.
    #[arg(required = true)]
    scenarios: Vec<PathBuf>,
    /// Refuse an on-demand scenario whose run is estimated to need more memory than this
    /// (`8GiB`, `500MiB`; default 8GiB), naming what dominates.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
}

/// Sets the memory limit of on-demand runs from `--max-memory SIZE`, when given.
pub(crate) fn set_max_memory(size: Option<&str>) -> Result<(), CommandError> {
    if let Some(text) = size {
        let bytes = crate::units::parse_bytes(text).ok_or_else(|| {
            CommandError::input(format!(
                "--max-memory: `{text}` is not a size; give one such as `8GiB` or `500MiB`"
            ))
        })?;
        crate::system::ondemand::memory::set_limit(bytes);
    }
    Ok(())
}

/// `vodbench check FILE...`: one `ok:` report per valid file, one `error:` per invalid one,
/// each as it is met.
pub(crate) fn cmd(registry: &Registry, args: CheckArgs) -> Result<(), CommandError> {
    set_max_memory(args.max_memory.as_deref())?;
    let mut bad = false;
    for p in &args.scenarios {
        // a large sweep takes minutes to check: say which file is being checked, and for
        // how long (on a terminal only; nothing when standard error is not one)
        let bar = super::progress::progress_bar(false, "{spinner} checking {msg} ({elapsed})");
        bar.set_message(p.display().to_string());
        let checked = check_file(registry, p);
        bar.finish_and_clear();
        match checked {
            Ok(text) => print!("{text}"),
            Err(e) => {
                CommandError::from(e).report();
                bad = true;
            }
        }
    }
    if bad {
        Err(CommandError::Reported)
    } else {
        Ok(())
    }
}

fn check_file(registry: &Registry, path: &std::path::Path) -> Result<String, ScenarioError> {
    let source = Source::read(path)?;
    match declared(&source) {
        Declared::OnDemand => check::<OnDemand>(registry, &source),
        Declared::Broadcast => check::<Broadcast>(registry, &source),
    }
}

fn check<S: System>(
    registry: &Registry,
    source: &std::sync::Arc<Source>,
) -> Result<String, ScenarioError> {
    let suite = S::load(source, registry)?;
    S::validate(&suite)?;
    S::check_text(&suite)
}
