//! Why an on-demand run stops without results, and how components report a plugin that
//! broke its contract.

use crate::contract_breach::{BreachAt, ContractBreach};
use crate::scenario::ScenarioError;
use crate::time::SimTime;

/// Why a run stopped without results.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The scenario cannot run, for a reason only visible once the video library exists
    /// (frame sizes depend on the seed) or a plugin is built for it (a layout that does not
    /// fit the disks, a disk parameter file that cannot be read). Reported like any scenario
    /// error (exit code 2).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// Simulated time stopped advancing: a livelock, which is a bug in vodbench or in a
    /// plugin. The run is void.
    #[error("simulation made no progress: {events} events at {time} without time advancing (last: {last}); please report this with the scenario")]
    NoProgress {
        /// The instant time stopped at.
        time: SimTime,
        /// Events processed at that instant.
        events: u64,
        /// The last event, for the report.
        last: String,
    },
    /// A plugin broke its contract during the run ([`BreachAt::Sim`]); the run is void. A
    /// loaded plugin's (`source` set) is bad input (exit code 2), a built-in's a bug (exit
    /// code 1).
    #[error(transparent)]
    Plugin(Box<ContractBreach>),
}

impl SimError {
    /// The error with a broken contract attributed to the library its plugin was loaded
    /// from, when the scenario chose a loaded plugin of that kind and name.
    pub fn attributed(mut self, chosen: &[crate::scenario::slots::Chosen]) -> SimError {
        if let SimError::Plugin(b) = &mut self {
            if let Some(o) = chosen
                .iter()
                .find(|c| c.key == b.kind && c.name == b.name.as_str())
                .and_then(|c| c.origin.as_ref())
            {
                b.source = Some(o.path.clone());
            }
        }
        self
    }
}

/// The first contract a plugin broke in a run, as components report it; the engine stops
/// after the event that found it.
#[derive(Default)]
pub(super) struct Faults {
    first: Option<SimError>,
}

impl Faults {
    /// Plugin `name` of kind `kind` broke its contract at `time` (only the first is kept).
    pub fn plugin(&mut self, kind: &'static str, name: &str, time: SimTime, message: String) {
        if self.first.is_none() {
            self.first = Some(SimError::Plugin(Box::new(ContractBreach {
                kind,
                name: name.to_string(),
                source: None,
                at: BreachAt::Sim(time),
                detail: message,
            })));
        }
    }

    /// Records a run-stopping error (only the first is kept).
    pub fn stop(&mut self, e: SimError) {
        self.first.get_or_insert(e);
    }

    /// Whether something broke.
    pub fn any(&self) -> bool {
        self.first.is_some()
    }

    /// The first error, taken.
    pub fn take(&mut self) -> Option<SimError> {
        self.first.take()
    }
}
