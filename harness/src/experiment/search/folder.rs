//! What a search writes and prints: its output folder (`manifest.json`, `search.json`,
//! `curve.csv`, the report) and the lines `vodbench search` prints.

use super::{SearchOptions, CONFIDENCE, PRECISION};
use crate::output::Folder;
use crate::results::search::{Probe, SearchResult};
use crate::system::Searchable;

/// `curve.csv`: one row per simulation (terminals, glitches, replication index), sorted by
/// terminals then replication. Each replication's seed is in `search.json`.
pub fn curve_csv(probes: &[Probe]) -> String {
    let mut rows: Vec<&Probe> = probes.iter().collect();
    rows.sort_by_key(|p| (p.terminals, p.replication));
    let mut out = String::from("terminals,glitches,replication\n");
    for p in rows {
        out.push_str(&format!(
            "{},{},{}\n",
            p.terminals, p.glitches, p.replication
        ));
    }
    out
}

/// The manifest of a search: the run manifest of its scenario (plugins, resolved scenario,
/// hashes, host) with `"kind": "search"` and the search's limits; the workload is generated
/// anew for every simulation, so it carries no event count or fingerprint
/// ([`Searchable::search_manifest`]).
pub fn search_manifest<S: Searchable>(point: &S::Point, opts: &SearchOptions) -> serde_json::Value {
    let mut m = S::search_manifest(point);
    if let Some(o) = m.as_object_mut() {
        o.insert("kind".into(), "search".into());
        o.insert(
            "search".into(),
            serde_json::json!({
                "min_replications": opts.replication_limits().0,
                "max_replications": opts.replication_limits().1,
                "max_terminals": opts.max_terminals,
                "confidence": CONFIDENCE,
                "precision": PRECISION,
            }),
        );
        opts.record_method(&mut o["search"]);
    }
    m
}

/// The output folder of a search of `point` under `opts`: `manifest.json`
/// ([`search_manifest`]), `search.json`, `curve.csv`, and the report drawn from them.
pub fn search_folder<S: Searchable>(
    point: &S::Point,
    opts: &SearchOptions,
    result: &SearchResult,
) -> Folder {
    Folder {
        files: vec![
            (
                "manifest.json".into(),
                crate::output::to_json(&search_manifest::<S>(point, opts)),
            ),
            ("search.json".into(), crate::output::to_json(result)),
            ("curve.csv".into(), curve_csv(&result.probes)),
        ],
        report: true,
        ..Folder::default()
    }
}

/// The lines `vodbench search` prints.
pub fn summary_text(r: &SearchResult) -> String {
    let ci = &r.confidence_interval;
    let capped = r.per_replication.iter().filter(|x| x.capped).count();
    let mut out = format!(
        "{}: at most {} terminals without {} (90 % CI {:.1}–{:.1}, ±{:.1} %; {} \
         replications, {} runs)\n",
        r.scenario,
        r.max_terminals,
        r.failures.as_deref().unwrap_or("glitches"),
        ci.low,
        ci.high,
        ci.relative_half_width * 100.0,
        r.replications,
        r.runs
    );
    let maxima: Vec<String> = r
        .per_replication
        .iter()
        .map(|x| x.max_terminals.to_string())
        .collect();
    out.push_str(&format!("per replication: {}\n", maxima.join(", ")));
    let opts = SearchOptions {
        resolution_percent: r.resolution_percent,
        climb_from_percent: r.climb_from_percent,
        bracket: r.bracket,
        ..SearchOptions::default()
    };
    if let Some(m) = opts.method_text() {
        out.push_str(&format!("{m}\n"));
    }
    if !r.converged {
        out.push_str(&format!(
            "not converged: the interval is wider than ±{:.0} % after {} replications \
             (raise --seeds)\n",
            r.precision * 100.0,
            r.replications
        ));
    }
    if capped > 0 {
        out.push_str(&format!(
            "{capped} replication(s) never glitched up to {} terminals (raise --max-terminals)\n",
            r.terminal_cap
        ));
    }
    if let Some(a) = &r.at_answer {
        out.push_str(&format!(
            "at the answer: disk utilization {:.1} %, buffer hits {:.1} %, references to \
             pages another terminal referenced {:.1} %\n",
            a.disk_utilization_mean_ratio * 100.0,
            a.hit_ratio * 100.0,
            a.shared_ratio * 100.0
        ));
    }
    if let Some(p) = r.paper_max_terminals {
        out.push_str(&format!("paper: {p}\n"));
    }
    if let Some(m) = r.model_max_terminals {
        out.push_str(&format!("model: {m}\n"));
    }
    out
}
