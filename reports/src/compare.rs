//! `vodbench compare`: runs side by side in one `report.html` (plus `compare.json`, the same
//! page as data without the drawn SVG).
//!
//! The same charts as a run's report, overlaid (one series per run); glitches vs terminals
//! whenever runs of one scenario were made at two or more terminal counts, or a run holds a
//! `curve.csv`; a metric table with each run's difference from the first. When both sides
//! were replicated (`replications.json`, written by the harness), means are shown and a
//! difference "exceeds the run-to-run spread" when it is larger than the wider of the two
//! sides' ranges (max − min over replications).

use crate::charts::{self, Axes, Series};
use crate::folder::{FolderKind, RunFolder};
use crate::html::{fmt_metric, fmt_num, unit_of, Card, Cell, HtmlTable, Page};
use crate::run_report::{curve_series, IO_PARTS};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use vodbench_harness::output::{to_json, write_atomic, CompareRun, ReportError};
use vodbench_harness::results::{flatten_metrics, Replications};
use vodbench_harness::system::ondemand::scenario::SLOTS;

/// One loaded side of the comparison.
struct Side {
    label: String,
    folder: RunFolder,
    metrics: BTreeMap<String, f64>,
    replications: Option<Replications>,
}

impl Side {
    /// The value shown: the replications' mean, else the run's.
    fn value(&self, key: &str) -> Option<f64> {
        match &self.replications {
            Some(r) => r.metrics.get(key).map(|s| s.mean),
            None => self.metrics.get(key).copied(),
        }
    }
    fn range(&self, key: &str) -> Option<f64> {
        let r = self.replications.as_ref()?;
        r.metrics.get(key).map(|s| s.max - s.min)
    }
}

fn load(run: &CompareRun) -> Result<Side, ReportError> {
    let folder = RunFolder::load(&run.dir)?;
    if folder.kind == FolderKind::Broadcast {
        return Err(ReportError::Input(format!(
            "{}: a broadcast output folder; compare lays on-demand runs side by side (a \
             broadcast folder's own report.html compares its sweep points)",
            run.dir.display()
        )));
    }
    if folder.kind == FolderKind::Sweep {
        return Err(ReportError::Input(format!(
            "{}: a sweep output folder; compare lays runs side by side (a sweep folder's own \
             report.html shows every point's maximum beside the paper's)",
            run.dir.display()
        )));
    }
    if folder.kind == FolderKind::RunSweep {
        return Err(ReportError::Input(format!(
            "{}: the output folder of a run of a sweep file; compare lays single runs side by \
             side: give its points' folders (points/…), or read its own report.html, which \
             compares the points",
            run.dir.display()
        )));
    }
    if folder.kind == FolderKind::Cache {
        return Err(ReportError::Input(format!(
            "{}: a cache replay output folder; compare lays runs side by side (a cache replay \
             folder's own report.html compares its pools at every size)",
            run.dir.display()
        )));
    }
    if folder.kind == FolderKind::Search {
        return Err(ReportError::Input(format!(
            "{}: a search output folder; compare lays runs side by side (a search folder's \
             own report.html shows its glitches-vs-terminals curve and every replication)",
            run.dir.display()
        )));
    }
    let replications = match &run.replications {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| ReportError::Input(format!("{}: {e}", p.display())))?;
            Some(serde_json::from_str(&text).map_err(|e| {
                ReportError::Input(format!("{}: not a replications file: {e}", p.display()))
            })?)
        }
        None => None,
    };
    Ok(Side {
        label: run.label.clone(),
        metrics: flatten_metrics(&folder.summary),
        folder,
        replications,
    })
}

/// Most runs whose labels make up the page title ("A vs B vs C"); beyond, the title counts
/// them.
const MAX_TITLED_RUNS: usize = 4;

/// The comparison page of `runs` (at least one).
pub fn page(runs: &[CompareRun]) -> Result<Page, ReportError> {
    let sides: Vec<Side> = runs.iter().map(load).collect::<Result<_, _>>()?;
    let labels: Vec<&str> = sides.iter().map(|s| s.label.as_str()).collect();
    let title = if sides.len() <= MAX_TITLED_RUNS {
        format!("Comparison: {}", labels.join(" vs "))
    } else {
        format!(
            "Comparison of {} runs: {} … {}",
            sides.len(),
            labels[0],
            labels[labels.len() - 1]
        )
    };
    // bar charts with a category per run name the runs by number when their labels would
    // overlap under the bars (a sweep's points, say)
    let numbered = !charts::categories_fit(&labels);
    let run_categories: Vec<String> = if numbered {
        (1..=sides.len()).map(|i| i.to_string()).collect()
    } else {
        labels.iter().map(|l| l.to_string()).collect()
    };
    let numbered_note = if numbered {
        format!(
            " Runs are numbered 1–{} in the order of the cards above and the Runs table.",
            sides.len()
        )
    } else {
        String::new()
    };
    let mut p = Page::new(
        "compare",
        title,
        format!(
            "{} runs side by side; differences are against the first, {}",
            sides.len(),
            labels[0]
        ),
    );
    let fail = |e: String| ReportError::Failure(e);
    for s in &sides {
        let v = |k: &str| s.value(k).unwrap_or(f64::NAN);
        p.cards.push(Card {
            label: s.label.clone(),
            value: format!("{} glitches", fmt_num(v("glitches.count"))),
            detail: format!(
                "{} terminals, disk utilization {}, server memory peak {}",
                fmt_num(v("terminals")),
                fmt_metric("_ratio", v("disks.utilization_mean_ratio")),
                fmt_metric("_bytes", v("buffer_pool.memory_in_use_peak_bytes"))
            ),
        });
    }
    // glitches vs terminals: per scenario with two or more terminal counts, plus curve.csv
    let mut curves: Vec<Series> = Vec::new();
    let mut by_scenario: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for s in &sides {
        if let (Some(t), Some(g)) = (s.value("terminals"), s.value("glitches.count")) {
            by_scenario
                .entry(s.folder.scenario())
                .or_default()
                .push((t, g));
        }
    }
    for (name, mut pts) in by_scenario {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        xs.dedup();
        if xs.len() >= 2 {
            curves.push(Series { name, points: pts });
        }
    }
    for s in &sides {
        for mut c in curve_series(&s.folder, &s.label) {
            if c.name != s.label {
                c.name = format!("{}: {}", s.label, c.name);
            }
            curves.push(c);
        }
    }
    p.chart(
        "glitches-vs-terminals",
        "Glitches vs terminals",
        "Glitches in the measured period against the number of terminals: one curve per \
         scenario compared at several terminal counts, and any saved curve.csv.",
        charts::lines(
            &curves,
            Axes {
                x: "terminals",
                y: "glitches",
            },
            true,
        ),
    )
    .map_err(fail)?;
    let util: Vec<(String, Vec<f64>)> = sides
        .iter()
        .filter_map(|s| {
            s.folder
                .f64s("disks", "utilization_ratio")
                .map(|u| (s.label.clone(), u.iter().map(|x| x * 100.0).collect()))
        })
        .collect();
    let disks = util.iter().map(|(_, u)| u.len()).max().unwrap_or(0);
    if util.len() <= charts::COLOURS {
        p.chart(
            "disk-utilization",
            "Utilization per disk",
            "Busy fraction of each disk over the measured period, one bar per run (disks.csv).",
            charts::bars(
                &(0..disks).map(|i| i.to_string()).collect::<Vec<_>>(),
                &util,
                Axes {
                    x: "disk",
                    y: "utilization (%)",
                },
                false,
            ),
        )
        .map_err(fail)?;
    } else {
        // more runs than colours: the least, mean and most busy disk of each run instead
        let stat = |f: fn(&[f64]) -> f64| -> Vec<f64> {
            sides
                .iter()
                .map(|s| {
                    util.iter()
                        .find(|(l, _)| *l == s.label)
                        .map_or(0.0, |(_, u)| if u.is_empty() { 0.0 } else { f(u) })
                })
                .collect()
        };
        let spread = vec![
            (
                "least busy disk".to_string(),
                stat(|u| u.iter().copied().fold(f64::INFINITY, f64::min)),
            ),
            (
                "mean".to_string(),
                stat(|u| u.iter().sum::<f64>() / u.len() as f64),
            ),
            (
                "most busy disk".to_string(),
                stat(|u| u.iter().copied().fold(0.0, f64::max)),
            ),
        ];
        p.chart(
            "disk-utilization",
            "Utilization of the disks, per run",
            &format!(
                "Busy fraction over the measured period of each run's least busy disk, of all \
                 its disks on average and of its busiest disk (disks.csv); per disk with at \
                 most {} runs.{numbered_note}",
                charts::COLOURS
            ),
            charts::bars(
                &run_categories,
                &spread,
                Axes {
                    x: "run",
                    y: "utilization (%)",
                },
                false,
            ),
        )
        .map_err(fail)?;
    }
    let mut parts: Vec<(String, Vec<f64>)> = IO_PARTS
        .iter()
        .map(|(label, _)| {
            let key = format!("disks.io_time.{label}.mean_ns");
            (
                label.to_string(),
                sides
                    .iter()
                    .map(|s| s.value(&key).unwrap_or(0.0) / 1e6)
                    .collect(),
            )
        })
        .collect();
    // with SCSI buses (`[server.bus]`) in any run, the wait for the bus is a part too (0 in
    // a run without)
    let bus_key = "disks.io_time.bus_wait.mean_ns";
    if sides.iter().any(|s| s.value(bus_key).is_some()) {
        parts.push((
            "bus wait".into(),
            sides
                .iter()
                .map(|s| s.value(bus_key).unwrap_or(0.0) / 1e6)
                .collect(),
        ));
    }
    p.chart(
        "io-time-parts",
        "I/O time per request, by part",
        &format!(
            "Mean time a disk request spent queued, seeking, waiting for rotation, \
             transferring{}, over all disks, per run (summary.json).{numbered_note}",
            if parts.len() > IO_PARTS.len() {
                ", in controller overhead and waiting for the SCSI bus"
            } else {
                " and in controller overhead"
            }
        ),
        charts::bars(
            &run_categories,
            &parts,
            Axes {
                x: "run",
                y: "mean I/O time (ms)",
            },
            true,
        ),
    )
    .map_err(fail)?;
    let over_time = |col: &str, scale: f64| -> Vec<Series> {
        sides
            .iter()
            .filter_map(|s| {
                let t = s.folder.f64s("timeseries", "time_ns")?;
                let v = s.folder.f64s("timeseries", col)?;
                Some(Series {
                    name: s.label.clone(),
                    points: t.iter().zip(v).map(|(t, v)| (t / 1e9, v * scale)).collect(),
                })
            })
            .collect()
    };
    let axes = |y| Axes {
        x: "time since measurement started (s)",
        y,
    };
    for (id, title, col, scale, y) in [
        (
            "buffer-occupancy",
            "Terminal buffer occupancy over time",
            "terminal_buffer_mean_bytes",
            1.0 / 1_048_576.0,
            "mean buffered per terminal (MiB)",
        ),
        (
            "utilization-over-time",
            "Disk utilization over time",
            "disk_utilization_mean_ratio",
            100.0,
            "disk utilization (%)",
        ),
        (
            "server-memory",
            "Server memory in use over time",
            "server_memory_in_use_bytes",
            1.0 / 1_048_576.0,
            "server memory (MiB)",
        ),
    ] {
        p.chart(
            id,
            title,
            "One line per run (timeseries.csv).",
            charts::lines(&over_time(col, scale), axes(y), false),
        )
        .map_err(fail)?;
    }
    p.tables.push(runs_table(&sides));
    p.tables.push(metric_table(&sides));
    Ok(p)
}

fn runs_table(sides: &[Side]) -> HtmlTable {
    let m = |s: &Side, k: &str| {
        s.folder.manifest["plugins"][k]["name"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    // a column for each plugin table some side's manifest records, in the system's order
    let slots: Vec<&str> = SLOTS
        .iter()
        .map(|s| s.key)
        .filter(|k| {
            sides
                .iter()
                .any(|s| s.folder.manifest["plugins"].get(*k).is_some())
        })
        .collect();
    let mut header: Vec<String> = ["run", "scenario", "terminals", "seed", "replications"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    header.extend(slots.iter().map(|k| k.to_string()));
    HtmlTable {
        id: "table-runs".into(),
        title: "Runs".into(),
        caption: "What each side is: its scenario, load, seed and policies.".into(),
        header,
        rows: sides
            .iter()
            .map(|s| {
                let mut row = vec![
                    Cell::text(&s.label),
                    Cell::text(s.folder.scenario()),
                    Cell::num(s.folder.summary["terminals"].to_string()),
                    Cell::num(match &s.replications {
                        Some(r) => r
                            .seeds
                            .iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join(", "),
                        None => s.folder.summary["seed"].to_string(),
                    }),
                    Cell::num(
                        s.replications
                            .as_ref()
                            .map_or(1, |r| r.seeds.len())
                            .to_string(),
                    ),
                ];
                row.extend(slots.iter().map(|k| Cell::text(m(s, k))));
                row
            })
            .collect(),
    }
}

fn metric_table(sides: &[Side]) -> HtmlTable {
    let replicated = sides.iter().all(|s| s.replications.is_some());
    let mut header = vec![
        "metric".to_string(),
        "unit".to_string(),
        sides[0].label.clone(),
    ];
    for s in &sides[1..] {
        header.push(s.label.clone());
        header.push(format!("Δ {}", s.label));
        if replicated {
            header.push(format!("{}: beyond spread?", s.label));
        }
    }
    let keys: Vec<&String> = sides[0].metrics.keys().collect();
    let rows = keys
        .into_iter()
        .map(|k| {
            let base = sides[0].value(k);
            let (unit, _) = unit_of(k, 0.0);
            let shown = |v: Option<f64>| v.map_or("—".to_string(), |v| fmt_num(unit_of(k, v).1));
            let mut row = vec![Cell::text(k), Cell::text(unit), Cell::num(shown(base))];
            for s in &sides[1..] {
                let v = s.value(k);
                row.push(Cell::num(shown(v)));
                let d = match (base, v) {
                    (Some(b), Some(v)) => Some(v - b),
                    _ => None,
                };
                row.push(Cell::num(match (d, base) {
                    (Some(d), Some(b)) if b != 0.0 => format!(
                        "{}{} ({:+.1} %)",
                        if d > 0.0 { "+" } else { "" },
                        fmt_num(unit_of(k, d).1),
                        d / b.abs() * 100.0
                    ),
                    (Some(d), _) => format!(
                        "{}{}",
                        if d > 0.0 { "+" } else { "" },
                        fmt_num(unit_of(k, d).1)
                    ),
                    (None, _) => "—".into(),
                }));
                if replicated {
                    let spread = match (sides[0].range(k), s.range(k)) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                    row.push(match (d, spread) {
                        (Some(d), Some(w)) if d.abs() > w => Cell::with("yes", "bad"),
                        (Some(_), Some(_)) => Cell::with("no", "good"),
                        _ => Cell::text("—"),
                    });
                }
            }
            row
        })
        .collect();
    HtmlTable {
        id: "table-metrics".into(),
        title: "Every metric, side by side".into(),
        caption: if replicated {
            "Means over replications; Δ is the difference from the first run; a difference \
             is beyond the run-to-run spread when it exceeds the wider of the two runs' \
             ranges (max − min over replications)."
                .into()
        } else {
            "Δ is the difference from the first run (run with --replications N to see \
             whether differences exceed the run-to-run spread)."
                .into()
        },
        header,
        rows,
    }
}

/// Writes `report.html` and `compare.json` for `runs` into `out`.
pub fn write(runs: &[CompareRun], out: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let page = page(runs)?;
    let html = page.render().map_err(ReportError::Failure)?;
    let files = [
        (out.join("report.html"), html),
        (out.join("compare.json"), to_json(&page.data())),
    ];
    for (path, text) in &files {
        write_atomic(path, text.as_bytes()).map_err(|e| ReportError::Failure(e.to_string()))?;
    }
    Ok(files.into_iter().map(|(p, _)| p).collect())
}
