//! `report.html` of a broadcast scenario: headline cards, client I/O time per sweep point (or
//! per client for a single point), the sweep table, every metric and paper vs vodbench.

use crate::charts::{self, Axes};
use crate::folder::{col_f64, col_text, RunFolder};
use crate::html::{
    fmt_metric, fmt_num, metrics_table, paper_table, Card, Cell, Fact, HtmlTable, Page,
};
use vodbench_harness::results::flatten_metrics;

/// The report page of a broadcast output folder.
pub fn page(f: &RunFolder) -> Result<Page, String> {
    let s = &f.summary;
    let name = f.scenario();
    let points = s["points"].as_array();
    let num = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    let mut p = Page::new(
        "broadcast",
        name.clone(),
        match points {
            Some(pts) => format!(
                "broadcast sweep over {} ({} points)",
                s["sweep"]
                    .as_array()
                    .map(|k| k
                        .iter()
                        .filter_map(|x| x.as_str())
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default(),
                pts.len()
            ),
            None => format!(
                "broadcast: {} frames, {} clients, seed {}",
                s["frames"], s["clients"], s["seed"]
            ),
        },
    );
    match points {
        Some(pts) => {
            let io: Vec<f64> = pts
                .iter()
                .map(|p| num(&p["summary"]["receivers"]["client_io_time_ratio"]))
                .collect();
            let glitches: f64 = pts
                .iter()
                .map(|p| num(&p["summary"]["receivers"]["glitches"]))
                .sum();
            p.cards = vec![
                Card {
                    label: "points".into(),
                    value: pts.len().to_string(),
                    detail: "sweep points simulated".into(),
                },
                Card {
                    label: "client I/O time".into(),
                    value: format!(
                        "{} – {}",
                        fmt_metric("_ratio", io.iter().copied().fold(f64::INFINITY, f64::min)),
                        fmt_metric("_ratio", io.iter().copied().fold(0.0, f64::max))
                    ),
                    detail: "of playout, lowest – highest point".into(),
                },
                Card {
                    label: "glitches".into(),
                    value: fmt_num(glitches),
                    detail: "over all points".into(),
                },
            ];
        }
        None => {
            let r = &s["receivers"];
            p.cards = vec![
                Card {
                    label: "client I/O time".into(),
                    value: fmt_metric("_ratio", num(&r["client_io_time_ratio"])),
                    detail: format!(
                        "of playout (min {}, max {})",
                        fmt_metric("_ratio", num(&r["client_io_time_min_ratio"])),
                        fmt_metric("_ratio", num(&r["client_io_time_max_ratio"]))
                    ),
                },
                Card {
                    label: "glitches".into(),
                    value: r["glitches"].to_string(),
                    detail: format!("{:.2} s stalled", num(&r["stalled_ns"]) / 1e9),
                },
                Card {
                    label: "bandwidth".into(),
                    value: format!("{:.3}×", num(&s["schedule"]["mean_bandwidth_ratio"])),
                    detail: format!(
                        "mean; peak {}× the playout rate",
                        s["schedule"]["peak_bandwidth_ratio"]
                    ),
                },
                Card {
                    label: "peak buffer".into(),
                    value: format!("{} frames", r["peak_buffered_frames"]),
                    detail: fmt_metric("_ratio", num(&r["peak_buffered_ratio"])) + " of the movie",
                },
            ];
        }
    }
    if let Some(df) = f.tables.get("sweep") {
        if let Some(io) = col_f64(df, "client_io_time_ratio") {
            let keys: Vec<String> = s["sweep"]
                .as_array()
                .map(|k| {
                    k.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let cols: Vec<Vec<String>> = keys.iter().filter_map(|k| col_text(df, k)).collect();
            let cats: Vec<String> = (0..io.len())
                .map(|i| {
                    let l: Vec<String> = cols.iter().map(|c| c[i].clone()).collect();
                    if l.is_empty() {
                        i.to_string()
                    } else {
                        l.join(" ")
                    }
                })
                .collect();
            p.chart(
                "client-io-time",
                "Client disk I/O time per sweep point",
                "Client disk I/O time as a fraction of playout at each point (sweep.csv).",
                charts::bars(
                    &cats,
                    &[(
                        "client I/O time".into(),
                        io.iter().map(|x| x * 100.0).collect(),
                    )],
                    Axes {
                        x: "sweep point",
                        y: "client I/O time (% of playout)",
                    },
                    false,
                ),
            )?;
        }
        let header: Vec<String> = df
            .get_column_names()
            .iter()
            .map(|c| c.to_string())
            .collect();
        let cols: Vec<Vec<String>> = header
            .iter()
            .map(|h| col_text(df, h).unwrap_or_default())
            .collect();
        p.tables.push(HtmlTable {
            id: "table-sweep".into(),
            title: "Sweep points".into(),
            caption: "One row per sweep point (sweep.csv).".into(),
            header,
            rows: (0..df.height())
                .map(|i| {
                    cols.iter()
                        .map(|c| Cell::num(c.get(i).cloned().unwrap_or_default()))
                        .collect()
                })
                .collect(),
        });
    } else if let (Some(c), Some(io)) = (
        f.f64s("clients", "client"),
        f.f64s("clients", "client_io_time_ratio"),
    ) {
        let cats: Vec<String> = c.iter().map(|x| fmt_num(*x)).collect();
        p.chart(
            "client-io-time",
            "Client disk I/O time per client",
            "Client disk I/O time as a fraction of playout for each receiver (clients.csv).",
            charts::bars(
                &cats,
                &[(
                    "client I/O time".into(),
                    io.iter().map(|x| x * 100.0).collect(),
                )],
                Axes {
                    x: "client",
                    y: "client I/O time (% of playout)",
                },
                false,
            ),
        )?;
    }
    let metrics = flatten_metrics(s);
    match points {
        // a sweep: the published values beside every point's measurement
        Some(pts) => {
            let mut merged: Option<HtmlTable> = None;
            for (i, pt) in pts.iter().enumerate() {
                let pm = flatten_metrics(&pt["summary"]);
                if let Some(mut t) = paper_table(&pt["summary"]["paper"], &pm) {
                    for row in &mut t.rows {
                        row[0].text = format!("point {i}: {}", row[0].text);
                    }
                    match &mut merged {
                        Some(m) => m.rows.extend(t.rows),
                        None => merged = Some(t),
                    }
                }
            }
            p.tables.extend(merged);
        }
        None => p.tables.extend(paper_table(&s["paper"], &metrics)),
    }
    p.tables.push(metrics_table(&metrics));
    let m = &f.manifest;
    for (k, v) in [
        ("vodbench version", &m["vodbench_version"]),
        ("scenario", &m["scenario"]),
        ("seed", &m["seed"]),
    ] {
        if !v.is_null() {
            p.facts.push(Fact {
                key: k.into(),
                value: v.as_str().map_or(v.to_string(), str::to_string),
            });
        }
    }
    Ok(p)
}
