//! `report.html` of a `vodbench search` (SPIFFI §7.1, Fig. 9), made from its saved folder:
//! `search.json` (the answer, its confidence interval and every replication) and `curve.csv`
//! (every simulation: terminals, glitches, seed).
//!
//! Charts: glitches vs terminals, one curve per replication, and each replication's answer
//! against the mean and its interval. Tables: paper vs vodbench (when the scenario carries
//! `[paper] max_terminals`), the replications, and every simulation.

use crate::charts::{self, Axes, Series};
use crate::folder::{col_f64, RunFolder};
use crate::html::{fmt_num, Card, Cell, HtmlTable, Page};
use crate::run_report::manifest_facts;

/// The glitches-vs-terminals curve of every replication, in replication order (`curve.csv`
/// columns `terminals`, `glitches`, `replication`).
pub fn replication_curves(f: &RunFolder) -> Vec<Series> {
    replication_curves_in(f, "curve")
}

/// [`replication_curves`] from the folder's table `table` (a sweep's `curve-NNN`); none
/// when the folder lacks it.
pub fn replication_curves_in(f: &RunFolder, table: &str) -> Vec<Series> {
    let Some(df) = f.tables.get(table) else {
        return Vec::new();
    };
    let (Some(t), Some(g), Some(rep)) = (
        col_f64(df, "terminals"),
        col_f64(df, "glitches"),
        col_f64(df, "replication"),
    ) else {
        return Vec::new();
    };
    let mut out: Vec<(u64, Series)> = Vec::new();
    for ((x, y), r) in t.into_iter().zip(g).zip(rep) {
        let r = r as u64;
        match out.iter_mut().find(|(k, _)| *k == r) {
            Some((_, s)) => s.points.push((x, y)),
            None => out.push((
                r,
                Series {
                    name: format!("replication {}", r + 1),
                    points: vec![(x, y)],
                },
            )),
        }
    }
    out.sort_by_key(|(k, _)| *k);
    out.into_iter()
        .map(|(_, mut s)| {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            s
        })
        .collect()
}

/// The report page of one search.
pub fn page(f: &RunFolder) -> Result<Page, String> {
    let s = &f.summary;
    let num = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    let ci = &s["confidence_interval"];
    let name = f.scenario();
    let mut p = Page::new(
        "search",
        name.clone(),
        format!(
            "Largest number of terminals without {}: {} replications (seeds derived from {}), \
             {} simulations, starting at {} terminals{}",
            s["failures"].as_str().unwrap_or("a glitch"),
            s["replications"],
            s["seed"],
            s["runs"],
            s["start_terminals"],
            if s["failures"].is_string() {
                " (the charts' glitches count every failure)"
            } else {
                ""
            }
        ),
    );
    let converged = s["converged"] == true;
    p.cards = vec![
        Card {
            label: "max terminals".into(),
            value: s["max_terminals"].to_string(),
            detail: format!(
                "{:.0} % CI {}–{} (±{} %)",
                num(&ci["level"]) * 100.0,
                fmt_num(num(&ci["low"])),
                fmt_num(num(&ci["high"])),
                fmt_num(num(&ci["relative_half_width"]) * 100.0)
            ),
        },
        Card {
            label: "replications".into(),
            value: s["replications"].to_string(),
            detail: if converged {
                let asked = s["min_replications"].as_u64().filter(|&m| {
                    m > u64::from(vodbench_harness::experiment::search::MIN_REPLICATIONS)
                });
                format!(
                    "within ±{} % at 90 %{}",
                    fmt_num(num(&s["precision"]) * 100.0),
                    asked.map_or(String::new(), |m| format!(" (at least {m} asked)"))
                )
            } else {
                format!(
                    "not converged within {} replications",
                    s["max_replications"]
                )
            },
        },
        Card {
            label: "simulations".into(),
            value: s["runs"].to_string(),
            detail: format!("terminal cap {}", s["terminal_cap"]),
        },
    ];
    if let Some(model) = s["model_max_terminals"].as_f64() {
        let ours = num(&s["max_terminals"]);
        p.cards.push(Card {
            label: "model".into(),
            value: fmt_num(model),
            detail: format!(
                "vodbench {:+.1} % ([analytic])",
                (ours - model) / model * 100.0
            ),
        });
    }
    if let Some(paper) = s["paper_max_terminals"].as_f64() {
        let ours = num(&s["max_terminals"]);
        p.cards.push(Card {
            label: "paper".into(),
            value: fmt_num(paper),
            detail: format!("vodbench {:+.1} %", (ours - paper) / paper * 100.0),
        });
        let inside = paper >= num(&ci["low"]) && paper <= num(&ci["high"]);
        p.tables.push(HtmlTable {
            id: "table-paper".into(),
            title: "Paper vs vodbench".into(),
            caption: "The published maximum ([paper] max_terminals) beside the search's \
                      answer and its confidence interval."
                .into(),
            header: vec![
                "published value".into(),
                "paper".into(),
                "vodbench".into(),
                "difference".into(),
                "paper inside the interval".into(),
            ],
            rows: vec![vec![
                Cell::text("max_terminals"),
                Cell::num(fmt_num(paper)),
                Cell::num(fmt_num(ours)),
                Cell::num(format!("{:+.1} %", (ours - paper) / paper * 100.0)),
                Cell::with(
                    if inside { "yes" } else { "no" },
                    if inside { "good" } else { "bad" },
                ),
            ]],
        });
    }
    let caption = if s["stop_at_glitch"] == true {
        "Glitches in the measured period of every simulation, one curve per replication \
         (curve.csv). The search ended each simulation at its first glitch \
         (--stop-at-glitch): a glitching run's count is a lower bound, not its period's total."
    } else {
        "Glitches in the measured period of every simulation, one curve per replication \
         (curve.csv)."
    };
    p.chart(
        "glitches-vs-terminals",
        "Glitches vs terminals",
        caption,
        charts::lines(
            &replication_curves(f),
            Axes {
                x: "terminals",
                y: "glitches",
            },
            true,
        ),
    )?;
    let reps = s["per_replication"].as_array().cloned().unwrap_or_default();
    if !reps.is_empty() {
        let cats: Vec<String> = reps
            .iter()
            .map(|r| (r["replication"].as_u64().unwrap_or(0) + 1).to_string())
            .collect();
        let maxima: Vec<f64> = reps.iter().map(|r| num(&r["max_terminals"])).collect();
        p.chart(
            "replications",
            "Answer of each replication",
            "Largest glitch-free terminal count found by each replication (search.json).",
            charts::bars(
                &cats,
                &[("max terminals".into(), maxima)],
                Axes {
                    x: "replication",
                    y: "terminals without glitches",
                },
                false,
            ),
        )?;
    }
    p.tables.push(HtmlTable {
        id: "table-replications".into(),
        title: "Replications".into(),
        caption: "Each replication's seed, answer and the simulations it took; capped: \
                  glitch-free at the terminal cap."
            .into(),
        header: vec![
            "replication".into(),
            "seed".into(),
            "max terminals".into(),
            "capped".into(),
            "simulations".into(),
        ],
        rows: reps
            .iter()
            .map(|r| {
                vec![
                    Cell::num((r["replication"].as_u64().unwrap_or(0) + 1).to_string()),
                    Cell::num(r["seed"].to_string()),
                    Cell::num(r["max_terminals"].to_string()),
                    Cell::text(if r["capped"] == true { "yes" } else { "no" }),
                    Cell::num(r["runs"].to_string()),
                ]
            })
            .collect(),
    });
    if let Some(df) = f.tables.get("curve") {
        let cols: Vec<Vec<f64>> = ["terminals", "glitches", "replication"]
            .iter()
            .filter_map(|c| col_f64(df, c))
            .collect();
        if cols.len() == 3 {
            p.tables.push(HtmlTable {
                id: "table-curve".into(),
                title: "Every simulation".into(),
                caption: "curve.csv: terminals and glitches of each simulation, by replication."
                    .into(),
                header: vec!["terminals".into(), "glitches".into(), "replication".into()],
                rows: (0..cols[0].len())
                    .map(|i| {
                        vec![
                            Cell::num(fmt_num(cols[0][i])),
                            Cell::num(fmt_num(cols[1][i])),
                            Cell::num(fmt_num(cols[2][i] + 1.0)),
                        ]
                    })
                    .collect(),
            });
        }
    }
    p.facts = manifest_facts(&f.manifest);
    Ok(p)
}
