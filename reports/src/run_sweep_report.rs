//! `report.html` of `vodbench run` on a sweep file: every point simulated once, compared
//! point by point — glitches, disk utilization and, when the scenario asks for them
//! (`[run] request_delays = true`), the delay components of its fragment requests stacked
//! against the points, as Jadav et al.'s Figs. 4–10 stack them against load (the mean and the
//! sum of the per-component maxima). Each point's own folder (`points/`) has its own report.

use crate::charts::{self, Axes};
use crate::folder::RunFolder;
use crate::html::{Card, Cell, HtmlTable, Page};
use crate::run_report::{continuity_series, manifest_facts, CONTINUITY_NOTE, DELAY_PARTS};

/// A point's label: its swept values, in the sweep's order (`elevator / 128KiB`).
fn label(point: &serde_json::Value, axes: &[String]) -> String {
    axes.iter()
        .map(|a| match &point["values"][a] {
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The report page of a run of a sweep file.
pub fn page(f: &RunFolder) -> Result<Page, String> {
    let s = &f.summary;
    let points = s["points"]
        .as_array()
        .ok_or_else(|| format!("{}: summary.json has no points", f.dir.display()))?;
    let axes: Vec<String> = s["sweep"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let name = f.scenario();
    let mut p = Page::new(
        "run",
        name,
        format!(
            "{} points ({}), each simulated once",
            points.len(),
            axes.join(" × ")
        ),
    );
    let labels: Vec<String> = points.iter().map(|pt| label(pt, &axes)).collect();
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    // the labels under the bars, or the points' numbers (the table's first column) when
    // they would overlap
    let (cats, x, numbered) = if charts::categories_fit(&refs) {
        let x = if axes.is_empty() {
            "point".to_string()
        } else {
            axes.join(" / ")
        };
        (labels.clone(), x, "")
    } else {
        (
            (0..points.len()).map(|i| i.to_string()).collect(),
            "point".to_string(),
            " Points are numbered as in the Points table.",
        )
    };
    let num = |pt: &serde_json::Value, path: &[&str]| {
        path.iter()
            .fold(&pt["summary"], |v, k| &v[*k])
            .as_f64()
            .unwrap_or(0.0)
    };
    let glitches: Vec<f64> = points
        .iter()
        .map(|pt| num(pt, &["glitches", "count"]))
        .collect();
    p.cards.push(Card {
        label: "points".into(),
        value: points.len().to_string(),
        detail: format!(
            "{} without a glitch",
            glitches.iter().filter(|g| **g == 0.0).count()
        ),
    });
    p.chart(
        "glitches-per-point",
        "Glitches per point",
        &format!("Glitches in each point's measured period (sweep.csv).{numbered}"),
        charts::bars(
            &cats,
            &[("glitches".into(), glitches)],
            Axes {
                x: &x,
                y: "glitches",
            },
            false,
        ),
    )?;
    let util: Vec<f64> = points
        .iter()
        .map(|pt| 100.0 * num(pt, &["disks", "utilization_mean_ratio"]))
        .collect();
    p.chart(
        "utilization-per-point",
        "Disk utilization per point",
        &format!(
            "Mean busy fraction of the disks over each point's measured period (sweep.csv).\
             {numbered}"
        ),
        charts::bars(
            &cats,
            &[("disk utilization".into(), util)],
            Axes {
                x: &x,
                y: "disk utilization (%)",
            },
            false,
        ),
    )?;
    let delays = points
        .iter()
        .all(|pt| pt["summary"]["request_delays"].is_object());
    if delays && !points.is_empty() {
        let stacked = |stat: &str| -> Vec<(String, Vec<f64>)> {
            DELAY_PARTS
                .iter()
                .map(|(legend, key)| {
                    let v = points
                        .iter()
                        .map(|pt| num(pt, &["request_delays", key, stat]) / 1e6)
                        .collect();
                    (legend.to_string(), v)
                })
                .collect()
        };
        p.chart(
            "mean-delays-per-point",
            "Mean delay components per point",
            &format!(
                "The mean of each delay component over the fragment requests served by their \
                 own disk access, stacked bottom to top as Jadav et al. stack them (Figs. 4, 7, \
                 10): N_C, D_T, D_S, D_R, N_Q, S_Q; the bar's height is the mean round trip \
                 R_tot.{numbered}"
            ),
            charts::bars(
                &cats,
                &stacked("mean_ns"),
                Axes {
                    x: &x,
                    y: "mean delay (ms)",
                },
                true,
            ),
        )?;
        p.chart(
            "max-delays-per-point",
            "Maximum delay components per point",
            &format!(
                "The maximum of each delay component, stacked (Figs. 5, 8): the bar's height is \
                 the sum of the per-component maxima, not a delay any one request had.\
                 {numbered}"
            ),
            charts::bars(
                &cats,
                &stacked("max_ns"),
                Axes {
                    x: &x,
                    y: "maximum delay (ms)",
                },
                true,
            ),
        )?;
    }
    // one curve per point, labelled as in the Points table (Wu Figs. 12-13)
    let curves: Vec<_> = points
        .iter()
        .zip(&labels)
        .filter_map(|(pt, l)| continuity_series(l, &pt["summary"]["continuity"]))
        .collect();
    if !curves.is_empty() {
        p.chart(
            "continuity-per-point",
            "Continuity against buffer length, per point",
            &format!("{CONTINUITY_NOTE} One curve per point."),
            charts::lines(
                &curves,
                Axes {
                    x: "buffer length l (blocks)",
                    y: "windows in time (P_c)",
                },
                true,
            ),
        )?;
    }
    let mut header = vec!["point".to_string()];
    header.extend(axes.iter().cloned());
    header.extend(
        [
            "glitches",
            "disk utilization",
            "mean R_tot (ms)",
            "Σ max (ms)",
        ]
        .iter()
        .map(|h| h.to_string()),
    );
    let rows = points
        .iter()
        .enumerate()
        .map(|(i, pt)| {
            let mut row = vec![Cell::num(i.to_string())];
            for a in &axes {
                row.push(Cell::text(label(pt, std::slice::from_ref(a))));
            }
            row.push(Cell::num(format!("{}", num(pt, &["glitches", "count"]))));
            row.push(Cell::num(format!(
                "{:.1} %",
                100.0 * num(pt, &["disks", "utilization_mean_ratio"])
            )));
            let d = &pt["summary"]["request_delays"];
            let ms = |v: &serde_json::Value| match v.as_f64() {
                Some(ns) => format!("{:.3}", ns / 1e6),
                None => "—".into(),
            };
            row.push(Cell::num(ms(&d["r_tot"]["mean_ns"])));
            row.push(Cell::num(ms(&d["sum_of_max_ns"])));
            row
        })
        .collect();
    p.tables.push(HtmlTable {
        id: "table-points".into(),
        title: "Points".into(),
        caption: "Each point's swept values and headline figures (its folder under points/ \
                  has the rest)."
            .into(),
        header,
        rows,
    });
    p.facts = manifest_facts(&f.manifest);
    Ok(p)
}
