//! `report.html` of a `vodbench sweep` (SPIFFI §7: each figure a family of configurations),
//! made from its saved `sweep.json`: the maximum glitch-free terminal count of every point as
//! the paper draws it (Figs. 10–13, 15: one bar group per value of the fastest axis, one bar
//! per setting of the others), the published values beside vodbench's, disk utilization at
//! each maximum (Fig. 14) beside the published utilization where a point carries one, the
//! table `sweep.md` holds, and every point's glitches against terminals, one curve per
//! replication (SPIFFI Fig. 9; its `curve-NNN.csv`), which shows where a point's replications
//! met their first glitch — a steady rise, or a band of rare glitches at loads well below the
//! maximum (the Table 2 ×4 elevator points, `scenarios/spiffi/README.md`).

use crate::charts::{self, Axes};
use crate::folder::RunFolder;
use crate::html::{Card, Cell, HtmlTable, Page};
use crate::run_report::manifest_facts;
use crate::search_report::replication_curves_in;
use vodbench_harness::experiment::sweep::{capped_note, table, STOPPED_AT_GLITCH};
use vodbench_harness::results::sweep::{PointSearch, SweepResult};

/// How far from the paper a maximum may be and still count as reproduced (issue 4: ±10 %).
pub const PAPER_TOLERANCE: f64 = 0.10;

/// Bar series whose bars are points: a name, and each bar's index in `r.points` (none where a
/// setting lacks a value).
type PointBars = Vec<(String, Vec<Option<usize>>)>;

/// Bars per point, grouped as the paper's figures are: a group per value of the sweep's last
/// (fastest) axis, a bar per setting of the other axes. With more settings than colours, or
/// one axis, one bar per point (`series_name`). Returns the categories and the series.
fn grouped_points(r: &SweepResult, series_name: &str) -> (Vec<String>, PointBars) {
    let last = |p: &PointSearch| p.label.rsplit(" / ").next().unwrap_or("").to_string();
    let rest = |p: &PointSearch| {
        p.label
            .rsplit_once(" / ")
            .map_or(String::new(), |(r, _)| r.to_string())
    };
    let mut cats: Vec<String> = Vec::new();
    let mut settings: Vec<String> = Vec::new();
    for p in &r.points {
        if !cats.contains(&last(p)) {
            cats.push(last(p));
        }
        if !settings.contains(&rest(p)) {
            settings.push(rest(p));
        }
    }
    if r.sweep.len() >= 2 && settings.len() <= charts::COLOURS {
        let series = settings
            .iter()
            .map(|s| {
                let points = cats
                    .iter()
                    .map(|c| r.points.iter().position(|p| rest(p) == *s && last(p) == *c))
                    .collect();
                (s.clone(), points)
            })
            .collect();
        return (cats, series);
    }
    let labels: Vec<&str> = r.points.iter().map(|p| p.label.as_str()).collect();
    (
        categories(&labels),
        vec![(
            series_name.to_string(),
            (0..r.points.len()).map(Some).collect(),
        )],
    )
}

/// [`grouped_points`] with each bar's `value` (0 where a setting lacks a point).
fn grouped(
    r: &SweepResult,
    value: impl Fn(&PointSearch) -> f64,
    series_name: &str,
) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let (cats, series) = grouped_points(r, series_name);
    let series = series
        .into_iter()
        .map(|(name, points)| {
            let values = points
                .iter()
                .map(|i| i.map_or(0.0, |i| value(&r.points[i])))
                .collect();
            (name, values)
        })
        .collect();
    (cats, series)
}

/// Labels under bars, or the points' numbers (as in the table's first column) when the
/// labels would overlap.
fn categories(labels: &[&str]) -> Vec<String> {
    if charts::categories_fit(labels) {
        labels.iter().map(|l| l.to_string()).collect()
    } else {
        (1..=labels.len()).map(|i| i.to_string()).collect()
    }
}

/// " Points are numbered …" when `cats` are the points' numbers rather than their labels.
fn numbered(r: &SweepResult, cats: &[String]) -> &'static str {
    if cats.first().is_some_and(|c| c == "1") && r.points.first().is_some_and(|p| p.label != "1") {
        " Points are numbered as in the table below."
    } else {
        ""
    }
}

/// A bar chart of `value` at every point, grouped by [`grouped`]; `names` are the chart's
/// id, title, vertical axis, and the series' name when there is one bar per point.
fn grouped_chart(
    p: &mut Page,
    r: &SweepResult,
    names: [&str; 4],
    caption: &str,
    value: impl Fn(&PointSearch) -> f64,
) -> Result<(), String> {
    let [id, title, y, series_name] = names;
    let (cats, series) = grouped(r, value, series_name);
    p.chart(
        id,
        title,
        &format!("{caption}{}", numbered(r, &cats)),
        charts::bars(
            &cats,
            &series,
            Axes {
                x: r.sweep.last().map_or("point", String::as_str),
                y,
            },
            false,
        ),
    )
}

/// The maxima, grouped as [`grouped_points`] does, each with its 90 % interval as an error bar
/// and, where the scenario declares an analytic model (`[analytic]`), the model's maximum as
/// a cross, each series' crosses joined: the model's curve through the simulated points.
fn maxima_chart(p: &mut Page, r: &SweepResult) -> Result<(), String> {
    let (cats, bars) = grouped_points(r, "max terminals");
    let of = |f: &dyn Fn(&PointSearch) -> Option<f64>| -> Vec<Vec<Option<f64>>> {
        bars.iter()
            .map(|(_, points)| {
                points
                    .iter()
                    .map(|i| i.and_then(|i| f(&r.points[i])))
                    .collect()
            })
            .collect()
    };
    let series: Vec<(String, Vec<f64>)> = bars
        .iter()
        .zip(of(&|p| Some(p.max_terminals as f64)))
        .map(|((name, _), v)| {
            (
                name.clone(),
                v.into_iter().map(|x| x.unwrap_or(0.0)).collect(),
            )
        })
        .collect();
    let intervals = bars
        .iter()
        .map(|(_, points)| {
            points
                .iter()
                .map(|i| i.map(|i| (r.points[i].ci_low, r.points[i].ci_high)))
                .collect()
        })
        .collect();
    let model = of(&|p| p.model_max_terminals);
    let has_model = model.iter().flatten().any(Option::is_some);
    let notes = charts::Annotations {
        intervals,
        model: if has_model { model } else { Vec::new() },
        model_name: "model".into(),
        integer_ticks: true,
    };
    p.chart(
        "max-terminals",
        "Maximum terminals without glitches",
        &format!(
            "Largest glitch-free terminal count of each point (sweep.json), with its 90 % \
             confidence interval over the replications{}.{}",
            if has_model {
                "; × the analytic model's maximum ([analytic]), joined across each series"
            } else {
                ""
            },
            numbered(r, &cats)
        ),
        charts::bars_annotated(
            &cats,
            &series,
            Axes {
                x: r.sweep.last().map_or("point", String::as_str),
                y: "terminals without glitches",
            },
            false,
            &notes,
        ),
    )
}

/// Bars of the published value of `key` beside vodbench's (`ours`) at every point whose
/// `[paper]` has it, scaled by `scale`; `names` are the chart's id, title and vertical axis.
/// Nothing when no point has it.
fn paper_chart(
    p: &mut Page,
    r: &SweepResult,
    key: &str,
    names: [&str; 3],
    scale: f64,
    ours: impl Fn(&PointSearch) -> Option<f64>,
) -> Result<(), String> {
    let [id, title, y] = names;
    let with: Vec<&PointSearch> = r
        .points
        .iter()
        .filter(|p| p.paper.contains_key(key) && ours(p).is_some())
        .collect();
    if with.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = with.iter().map(|p| p.label.as_str()).collect();
    let fit = charts::categories_fit(&names);
    let labels: Vec<String> = with
        .iter()
        .map(|p| {
            if fit {
                p.label.clone()
            } else {
                (p.point + 1).to_string()
            }
        })
        .collect();
    p.chart(
        id,
        title,
        &format!(
            "The published value ([paper] {key}, or [[sweep.paper]]) beside vodbench's at \
             every point that has one.{}",
            numbered(r, &labels)
        ),
        charts::bars(
            &labels,
            &[
                (
                    "paper".into(),
                    with.iter().map(|p| p.paper[key] * scale).collect(),
                ),
                (
                    "vodbench".into(),
                    with.iter()
                        .map(|p| ours(p).unwrap_or(0.0) * scale)
                        .collect(),
                ),
            ],
            Axes { x: "point", y },
            false,
        ),
    )
}

/// A chart per point of its glitches against terminals, one curve per replication, from its
/// `curve-NNN.csv` (points whose file is missing are left out); drawn after the table.
fn glitch_curves(p: &mut Page, f: &RunFolder, r: &SweepResult) -> Result<(), String> {
    let caption = if r.stop_at_glitch {
        format!(
            "Glitches in the measured period of each simulation of this point's search, one \
             curve per replication (curve-NNN.csv); this sweep was {STOPPED_AT_GLITCH}."
        )
    } else {
        "Glitches in the measured period of each simulation of this point's search, one \
         curve per replication (curve-NNN.csv)."
            .to_string()
    };
    for point in &r.points {
        let n = point.point;
        p.labelled_chart(
            &format!("glitches-{:03}", n + 1),
            &format!(
                "Glitches vs terminals, point {}: {} (maximum {})",
                n + 1,
                point.label,
                point.max_terminals
            ),
            format!("{}: {} ({})", n + 1, point.label, point.max_terminals),
            &caption,
            charts::lines(
                &replication_curves_in(f, &format!("curve-{n:03}")),
                Axes {
                    x: "terminals",
                    y: "glitches",
                },
                true,
            ),
        )?;
    }
    Ok(())
}

/// The report page of one sweep.
pub fn page(f: &RunFolder) -> Result<Page, String> {
    let r: SweepResult = serde_json::from_value(f.summary.clone())
        .map_err(|e| format!("{}: not a sweep.json: {e}", f.dir.display()))?;
    let n = r.points.len();
    let mut p = Page::new(
        "sweep",
        r.scenario.clone(),
        format!(
            "{}{n} points ({}), each the largest number of terminals without a glitch found by \
             `vodbench search` (SPIFFI §7.1), 90 % confidence intervals{}",
            if r.description.is_empty() {
                String::new()
            } else {
                format!("{}. ", r.description)
            },
            r.sweep.join(" × "),
            r.method
                .as_ref()
                .map_or(String::new(), |m| format!("; {m}"))
        ),
    );
    let converged = r.points.iter().filter(|p| p.converged).count();
    let capped = r
        .points
        .iter()
        .filter(|p| p.capped_replications > 0)
        .count();
    if let Some(best) = r.points.iter().max_by_key(|p| p.max_terminals) {
        p.cards.push(Card {
            label: "most terminals".into(),
            value: best.max_terminals.to_string(),
            detail: best.label.clone(),
        });
    }
    p.cards.push(Card {
        label: "points".into(),
        value: n.to_string(),
        detail: format!(
            "{converged} converged within ±5 % at 90 %{}{}",
            if converged < n {
                format!(", {} not", n - converged)
            } else {
                String::new()
            },
            if capped > 0 {
                format!(" ({capped} capped by --max-terminals: lower bounds)")
            } else {
                String::new()
            }
        ),
    });
    let with_paper: Vec<&PointSearch> = r
        .points
        .iter()
        .filter(|p| p.paper.contains_key("max_terminals"))
        .collect();
    if !with_paper.is_empty() {
        let within = with_paper
            .iter()
            .filter(|p| p.ratio.is_some_and(|x| (x - 1.0).abs() <= PAPER_TOLERANCE))
            .count();
        p.cards.push(Card {
            label: "paper".into(),
            value: format!("{within} of {}", with_paper.len()),
            detail: format!("published maxima within ±{:.0} %", PAPER_TOLERANCE * 100.0),
        });
    }
    let runs: u64 = r.points.iter().map(|p| u64::from(p.runs)).sum();
    p.cards.push(Card {
        label: "simulations".into(),
        value: runs.to_string(),
        detail: format!(
            "{} replications in all",
            r.points.iter().map(|p| p.replications).sum::<u32>()
        ),
    });
    maxima_chart(&mut p, &r)?;
    paper_chart(
        &mut p,
        &r,
        "max_terminals",
        [
            "paper",
            "vodbench against the paper",
            "terminals without glitches",
        ],
        1.0,
        |p| Some(p.max_terminals as f64),
    )?;
    if r.points.iter().any(|p| p.at_answer.is_some()) {
        grouped_chart(
            &mut p,
            &r,
            [
                "disk-utilization",
                "Disk utilization at the maximum",
                "disk utilization (%)",
                "disk utilization",
            ],
            "Mean busy fraction of the disks in the runs at each point's maximum (SPIFFI Fig. 14).",
            |p| {
                p.at_answer
                    .map_or(0.0, |a| a.disk_utilization_mean_ratio * 100.0)
            },
        )?;
        paper_chart(
            &mut p,
            &r,
            "disk_utilization",
            [
                "paper-disk-utilization",
                "Disk utilization: vodbench against the paper",
                "disk utilization (%)",
            ],
            100.0,
            |p| p.at_answer.map(|a| a.disk_utilization_mean_ratio),
        )?;
    }
    let (head, rows) = table(&r);
    let ratio_col = head.iter().position(|h| h == "vodbench / paper");
    p.tables.push(HtmlTable {
        id: "table-points".into(),
        title: "Paper vs vodbench".into(),
        caption: format!(
            "Every point as sweep.md shows it; vodbench / paper is marked where it is within \
             ±{:.0} % and where it is not. Each point's simulations are in curve-NNN.csv \
             (NNN: the point's number less one).{}",
            PAPER_TOLERANCE * 100.0,
            capped_note(&r).map_or_else(String::new, |n| format!(" {n}."))
        ),
        header: std::iter::once("#".to_string())
            .chain(head.clone())
            .collect(),
        rows: rows
            .into_iter()
            .zip(&r.points)
            .enumerate()
            .map(|(i, (row, point))| {
                std::iter::once(Cell::num((i + 1).to_string()))
                    .chain(row.into_iter().enumerate().map(|(c, text)| {
                        if Some(c) == ratio_col {
                            match point.ratio {
                                Some(x) if (x - 1.0).abs() <= PAPER_TOLERANCE => {
                                    Cell::with(text, "good")
                                }
                                Some(_) => Cell::with(text, "bad"),
                                None => Cell::num(text),
                            }
                        } else if text.contains("not converged") || text.contains("never glitched")
                        {
                            Cell::with(text, "bad")
                        } else {
                            Cell::text(text)
                        }
                    }))
                    .collect()
            })
            .collect(),
    });
    p.after_tables("Glitches vs terminals, per point", |p| {
        glitch_curves(p, f, &r)
    })?;
    p.facts = manifest_facts(&f.manifest);
    Ok(p)
}
