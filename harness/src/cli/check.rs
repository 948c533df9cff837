//! `vodbench check`: scenario files validated without running them — every point loaded,
//! built as a run would build it, and its workload generated.

use super::CommandError;
use crate::plugin::Registry;
use crate::spec::{ScenarioError, Source};
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
}

/// `vodbench check FILE...`: one `ok:` report per valid file, one `error:` per invalid one,
/// each as it is met.
pub(crate) fn cmd(registry: &Registry, args: CheckArgs) -> Result<(), CommandError> {
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
