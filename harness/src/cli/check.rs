//! `vodbench check`: scenario files validated without running them — every point loaded,
//! built as a run would build it, and its workload generated.

use super::EXIT_INPUT;
use crate::plugin::Registry;
use crate::spec::{ScenarioError, Source};
use crate::system::broadcast::Broadcast;
use crate::system::ondemand::OnDemand;
use crate::system::{declared, Declared, System};
use std::path::PathBuf;
use std::process::ExitCode;

/// `vodbench check FILE...`: one `ok:` report per valid file, one `error:` per invalid one.
pub(crate) fn cmd(registry: &Registry, scenarios: &[PathBuf]) -> ExitCode {
    let mut bad = false;
    for p in scenarios {
        match check_file(registry, p) {
            Ok(text) => print!("{text}"),
            Err(e) => {
                eprintln!("error: {e}");
                bad = true;
            }
        }
    }
    if bad {
        ExitCode::from(EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
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
