//! The on-demand server as a [`Searchable`] system: its load is the terminal count, and one
//! probe of a search is one simulation of the scenario with another seed and terminal count,
//! of which the search keeps the glitches — every terminal never served counted as one, and
//! with `[transmission]` every packet a client lost (Pappas et al.: the most clients served
//! "without packet loss"), with `[server.rounds]` every block read too late for its round's
//! boundary (the storage's share of Pappas's capacity, §3.1) — and at its answer the disk utilization and buffer-pool ratios.

use super::engine::SimOptions;
use super::runner;
use super::scenario::{Scenario, MAX_TERMINALS};
use super::video::LibraryMemo;
use super::OnDemand;
use crate::results::search::AnswerStats;
use crate::scenario::ScenarioError;
use crate::system::{CacheIdentity, ProbeOptions, ProbeOutcome, RunError, Searchable};

impl Searchable for OnDemand {
    type Point = Scenario;
    type Shared = LibraryMemo;
    const MAX_LOAD: u32 = MAX_TERMINALS;

    fn point_name(s: &Scenario) -> &str {
        s.name()
    }

    fn seed(s: &Scenario) -> u64 {
        s.file.seed
    }

    fn expected_load(s: &Scenario) -> u32 {
        s.terminals()
    }

    fn published_max(s: &Scenario) -> Option<f64> {
        s.file.paper.get("max_terminals").copied()
    }

    fn failures(s: &Scenario) -> Option<&'static str> {
        match (
            s.file.transmission.is_some(),
            s.file.server.rounds.is_some(),
        ) {
            (_, true) if s.file.server.stream_memory.is_some() => {
                Some("glitches, lost packets, late blocks or starts refused for memory")
            }
            (_, true) => Some("glitches, lost packets or late blocks"),
            (true, false) => Some("glitches or lost packets"),
            (false, false) => None,
        }
    }

    fn model_max(s: &Scenario) -> Result<Option<f64>, ScenarioError> {
        Ok(s.analysis()?
            .and_then(|a| a.values.get("max_terminals").copied()))
    }

    fn shared(threads: usize) -> LibraryMemo {
        // the runs of one replication share its seed, hence its video library; replications
        // run side by side, one per thread
        LibraryMemo::new(2 * threads + 2)
    }

    fn probe(
        scenario: &Scenario,
        seed: u64,
        terminals: u32,
        memo: &LibraryMemo,
        opts: ProbeOptions,
    ) -> Result<ProbeOutcome, RunError> {
        let mut s = scenario.clone();
        s.file.seed = seed;
        s.set_terminals(terminals).map_err(ScenarioError::from)?;
        let sim = SimOptions {
            memo: Some(memo),
            stop_at_first_glitch: opts.stop_at_glitch,
            search_figures_only: true,
        };
        let (results, _) = runner::run_with(&s, &mut |_, _| {}, sim)?;
        // a terminal never served is as much a failure as a glitch, and so is a packet lost
        // at a client
        let g = &results.summary.glitches;
        let lost = results
            .summary
            .transmission
            .as_ref()
            .map_or(0, |t| t.client_packets_lost);
        // and so is a block a round read too late to send from its boundary (Pappas §3.1),
        // and a start the stream memory's cap refused (Pappas §4: the clients served)
        let late = results
            .summary
            .stream_memory
            .as_ref()
            .map_or(0, |m| m.late_blocks + m.refused_starts);
        Ok(ProbeOutcome {
            glitches: g.count + g.never_displayed + lost + late,
            stats: AnswerStats::of(&results.summary),
        })
    }

    fn cache_identity(s: &Scenario) -> Result<CacheIdentity, String> {
        let file =
            serde_json::to_value(&s.file).map_err(|e| format!("{}: {e}", s.path.display()))?;
        let mut configuration = configuration(file);
        // a plugin library is identified by its bytes, not its path
        if let (Some(o), false) = (
            configuration.as_object_mut(),
            s.plugins.libraries.is_empty(),
        ) {
            o.remove("plugins");
            o.insert(
                "plugin_libraries".into(),
                serde_json::json!(s
                    .plugins
                    .libraries
                    .iter()
                    .map(|l| l.sha256.as_str())
                    .collect::<Vec<_>>()),
            );
        }
        Ok(CacheIdentity {
            configuration,
            base_dir: s.base_dir.clone(),
            file: s.path.clone(),
        })
    }

    fn search_manifest(s: &Scenario) -> serde_json::Value {
        runner::manifest(s, None)
    }
}

/// A resolved scenario (as JSON) without what cannot change what its simulations measure:
/// `name`, `description`, `[paper]`, `[cost]`, `[analytic]`, and the seed and terminal count,
/// which a search sets for each run.
fn configuration(mut v: serde_json::Value) -> serde_json::Value {
    if let Some(o) = v.as_object_mut() {
        for k in ["name", "description", "paper", "cost", "analytic", "seed"] {
            o.remove(k);
        }
        if let Some(t) = o.get_mut("terminals").and_then(|t| t.as_object_mut()) {
            t.remove("count");
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scenario(memory: &str) -> serde_json::Value {
        json!({
            "name": "a", "description": "d", "seed": 7, "paper": {"max_terminals": 18.0},
            "cost": {"disk": 4000.0}, "server": {"memory_per_node": memory},
            "terminals": {"count": 12, "memory": "2MiB"},
        })
    }

    #[test]
    fn labels_prices_seed_and_count_do_not_change_the_configuration_and_the_rest_does() {
        let base = configuration(scenario("8MiB"));
        let mut relabelled = scenario("8MiB");
        for (k, v) in [
            ("name", json!("b")),
            ("description", json!("e")),
            ("seed", json!(8)),
            ("paper", json!({})),
            ("cost", json!({"disk": 1500.0})),
            ("terminals", json!({"count": 99, "memory": "2MiB"})),
        ] {
            relabelled[k] = v;
        }
        assert_eq!(configuration(relabelled), base);
        assert_ne!(configuration(scenario("4MiB")), base);
        let mut terminal_memory = scenario("8MiB");
        terminal_memory["terminals"]["memory"] = json!("1MiB");
        assert_ne!(configuration(terminal_memory), base);
    }
}
