//! `report.html` of one on-demand run, made from its saved folder.
//!
//! Charts: glitches vs terminals (when the folder holds a `curve.csv`, see below), per-disk
//! utilization, stacked I/O time parts per disk, disk utilization, terminal buffer occupancy
//! and server memory over the measured period; tables: paper vs vodbench (when the scenario
//! carries published values), every metric with its unit, and the run's facts.
//!
//! `curve.csv` is the optional terminals/glitches curve of a search or sweep: columns
//! `terminals` and `glitches` (numbers), and optionally `series` (a name per curve).

use crate::charts::{self, Axes, Series};
use crate::folder::{col_f64, col_text, RunFolder};
use crate::html::{fmt_metric, metrics_table, paper_table, Card, Fact, Page};
use vodbench_harness::results::flatten_metrics;

/// The I/O time parts, as (legend, `disks.csv` column), in stacking order.
pub const IO_PARTS: [(&str, &str); 5] = [
    ("queue", "queue_mean_ns"),
    ("seek", "seek_mean_ns"),
    ("rotation", "rotation_mean_ns"),
    ("transfer", "transfer_mean_ns"),
    ("overhead", "overhead_mean_ns"),
];

/// The delay components of `summary.json`'s `request_delays`, as (legend, key), in the
/// paper's stacking order (bottom to top).
pub const DELAY_PARTS: [(&str, &str); 6] = [
    ("N_C network", "n_c"),
    ("D_T transfer", "d_t"),
    ("D_S seek", "d_s"),
    ("D_R rotation", "d_r"),
    ("N_Q blocking and CPUs", "n_q"),
    ("S_Q disk queue", "s_q"),
];

/// The measured P_c against the buffer length l of `c` (`summary.json`'s `continuity`) as a
/// curve named `name`; `None` without it.
pub fn continuity_series(name: &str, c: &serde_json::Value) -> Option<Series> {
    let points: Vec<(f64, f64)> = c["p_c"]
        .as_array()?
        .iter()
        .enumerate()
        .filter_map(|(i, v)| Some(((i + 1) as f64, v.as_f64()?)))
        .collect();
    (!points.is_empty()).then(|| Series {
        name: name.to_string(),
        points,
    })
}

/// What the continuity charts say (a run's and a sweep's).
pub const CONTINUITY_NOTE: &str = "The share of windows of l consecutive block arrivals of a \
     continuously read stream that came in less time than their blocks play (Wu et al.'s \
     P_c, eq. 9-10), against the buffer length l (`[run] continuity`; continuity.csv).";

/// Stacked bars of the delay components (ms) of `d` (`request_delays`), one bar per
/// statistic (mean, p99.9, maximum); `None` without them.
pub fn delay_chart(d: &serde_json::Value) -> Option<Result<String, String>> {
    if !d.is_object() {
        return None;
    }
    let stats = [
        ("mean", "mean_ns"),
        ("p99.9", "p999_ns"),
        ("maximum", "max_ns"),
    ];
    let cats: Vec<String> = stats.iter().map(|(c, _)| c.to_string()).collect();
    let series: Vec<(String, Vec<f64>)> = DELAY_PARTS
        .iter()
        .map(|(label, key)| {
            let v = stats
                .iter()
                .map(|(_, s)| d[*key][*s].as_f64().unwrap_or(0.0) / 1e6)
                .collect();
            (label.to_string(), v)
        })
        .collect();
    charts::bars(
        &cats,
        &series,
        Axes {
            x: "statistic over fragment requests",
            y: "delay (ms)",
        },
        true,
    )
}

fn mib(b: f64) -> String {
    format!("{:.1} MiB", b / 1_048_576.0)
}

/// The glitches-vs-terminals curves of `curve.csv`, one per `series` value.
pub fn curve_series(f: &RunFolder, default_name: &str) -> Vec<Series> {
    let Some(df) = f.tables.get("curve") else {
        return Vec::new();
    };
    let (Some(t), Some(g)) = (col_f64(df, "terminals"), col_f64(df, "glitches")) else {
        return Vec::new();
    };
    let names = col_text(df, "series").unwrap_or_else(|| vec![default_name.to_string(); t.len()]);
    let mut out: Vec<Series> = Vec::new();
    for ((x, y), name) in t.into_iter().zip(g).zip(names) {
        match out.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push((x, y)),
            None => out.push(Series {
                name,
                points: vec![(x, y)],
            }),
        }
    }
    for s in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// Facts from the manifest that do not depend on the machine: version, scenario and its
/// hash, seed, workload, every plugin with its parameters.
pub fn manifest_facts(m: &serde_json::Value) -> Vec<Fact> {
    let mut facts = Vec::new();
    let mut fact = |k: &str, v: &serde_json::Value| {
        if !v.is_null() {
            let value = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            facts.push(Fact {
                key: k.into(),
                value,
            });
        }
    };
    fact("vodbench version", &m["vodbench_version"]);
    fact("scenario", &m["scenario"]);
    if m["resolved_scenario"]["description"]
        .as_str()
        .is_some_and(|d| !d.is_empty())
    {
        fact("description", &m["resolved_scenario"]["description"]);
    }
    fact("scenario sha256", &m["scenario_sha256"]);
    fact("seed", &m["seed"]);
    fact("terminals", &m["terminals"]);
    fact("workload", &m["workload"]["source"]);
    fact("trace sha256", &m["workload"]["trace_sha256"]);
    fact("workload fingerprint", &m["workload"]["fingerprint"]);
    if let Some(plugins) = m["plugins"].as_object() {
        for (kind, p) in plugins {
            let name = p["name"].as_str().unwrap_or_default();
            let params = p["params"].to_string();
            fact(kind, &serde_json::Value::String(format!("{name} {params}")));
        }
    }
    facts
}

/// The report page of one on-demand run.
pub fn page(f: &RunFolder) -> Result<Page, String> {
    let s = &f.summary;
    let name = f.scenario();
    let num = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    let mut p = Page::new(
        "run",
        name.clone(),
        format!(
            "{} terminals, seed {}, {:.0} s measured after {:.1} s warm-up{}",
            s["terminals"],
            s["seed"],
            num(&s["measured_ns"]) / 1e9,
            num(&s["warmup_ns"]) / 1e9,
            if s["ended_early"] == true {
                " (workload ended early)"
            } else {
                ""
            }
        ),
    );
    let g = &s["glitches"];
    p.cards = vec![
        Card {
            label: "terminals".into(),
            value: s["terminals"].to_string(),
            detail: format!("{} videos started", s["videos_started"]),
        },
        Card {
            label: "glitches".into(),
            value: g["count"].to_string(),
            detail: format!(
                "{} terminals affected, {:.1} s stalled{}",
                g["terminals_affected"],
                num(&g["stalled_ns"]) / 1e9,
                match g["never_displayed"].as_u64() {
                    Some(n) if n > 0 => format!("; {n} terminals never displayed"),
                    _ => String::new(),
                }
            ),
        },
        Card {
            label: "disk utilization".into(),
            value: fmt_metric("_ratio", num(&s["disks"]["utilization_mean_ratio"])),
            detail: format!(
                "min {}, max {}",
                fmt_metric("_ratio", num(&s["disks"]["utilization_min_ratio"])),
                fmt_metric("_ratio", num(&s["disks"]["utilization_max_ratio"]))
            ),
        },
        Card {
            label: "memory".into(),
            value: mib(num(&s["buffer_pool"]["memory_in_use_peak_bytes"])),
            detail: format!(
                "server peak; terminal buffer peak {} of {}",
                mib(num(&s["terminal_buffer"]["occupancy_peak_bytes"])),
                mib(num(&s["terminal_buffer"]["memory_bytes"]))
            ),
        },
    ];
    p.chart(
        "glitches-vs-terminals",
        "Glitches vs terminals",
        "Glitches in the measured period at each number of terminals (curve.csv).",
        charts::lines(
            &curve_series(f, &name),
            Axes {
                x: "terminals",
                y: "glitches",
            },
            true,
        ),
    )?;
    if let Some(u) = f.f64s("disks", "utilization_ratio") {
        let cats: Vec<String> = (0..u.len()).map(|i| i.to_string()).collect();
        let pct: Vec<f64> = u.iter().map(|x| x * 100.0).collect();
        p.chart(
            "disk-utilization",
            "Utilization per disk",
            "Busy fraction of each disk over the measured period (disks.csv).",
            charts::bars(
                &cats,
                &[("utilization".into(), pct)],
                Axes {
                    x: "disk",
                    y: "utilization (%)",
                },
                false,
            ),
        )?;
    }
    let parts: Vec<(String, Vec<f64>)> = IO_PARTS
        .iter()
        .filter_map(|(label, col)| {
            f.f64s("disks", col)
                .map(|v| (label.to_string(), v.iter().map(|x| x / 1e6).collect()))
        })
        .collect();
    // with SCSI buses (`[server.bus]`) the wait for the bus is a part too
    let mut parts = parts;
    if let Some(v) = f.f64s("disks", "bus_wait_mean_ns") {
        parts.push(("bus wait".into(), v.iter().map(|x| x / 1e6).collect()));
    }
    if parts.len() >= IO_PARTS.len() {
        let cats: Vec<String> = (0..parts[0].1.len()).map(|i| i.to_string()).collect();
        p.chart(
            "io-time-parts",
            "I/O time per request, by part, per disk",
            "Mean time a request spent queued, seeking, waiting for rotation, transferring \
             and in controller overhead, per disk (disks.csv).",
            charts::bars(
                &cats,
                &parts,
                Axes {
                    x: "disk",
                    y: "mean I/O time (ms)",
                },
                true,
            ),
        )?;
    }
    if let Some(chart) = delay_chart(&s["request_delays"]) {
        p.chart(
            "request-delays",
            "Delay components per fragment request",
            "Where a request's round trip goes, stacked as Jadav et al. stack it (bottom to top: \
             N_C network without blocking, D_T transfer, D_S seek, D_R rotation, N_Q the rest \
             (blocking, CPUs), S_Q disk queue): the mean, the 99.9th percentile and the \
             maximum of each component over the requests served by their own disk access; the \
             maximum bar is the sum of the per-component maxima (delays.csv).",
            Some(chart),
        )?;
    }
    if let Some(series) = continuity_series("measured P_c", &s["continuity"]) {
        p.chart(
            "continuity",
            "Continuity against buffer length",
            CONTINUITY_NOTE,
            charts::lines(
                &[series],
                Axes {
                    x: "buffer length l (blocks)",
                    y: "windows in time (P_c)",
                },
                true,
            ),
        )?;
    }
    if let (Some(u), Some(bw)) = (
        f.f64s("buses", "utilization_ratio"),
        f.f64s("buses", "bandwidth_ratio"),
    ) {
        let cats: Vec<String> = (0..u.len()).map(|i| i.to_string()).collect();
        let pct = |v: &[f64]| v.iter().map(|x| x * 100.0).collect::<Vec<f64>>();
        let mut series = vec![
            ("held".to_string(), pct(&u)),
            ("bandwidth used".to_string(), pct(&bw)),
        ];
        let model = s["buses"]["model_eq5_ratio"].as_f64();
        if let Some(m) = model.filter(|m| *m > 0.0) {
            series.push(("eq. 5 (μ = n·a / r_bus)".into(), vec![m * 100.0; u.len()]));
        }
        p.chart(
            "bus-utilization",
            "Utilization per SCSI bus",
            "Share of the measured period each bus was held (commands, transfers), share of \
             its bandwidth the transfers used, and Wu's eq. 5 for the scenario's streams \
             (buses.csv).",
            charts::bars(
                &cats,
                &series,
                Axes {
                    x: "bus",
                    y: "utilization (%)",
                },
                false,
            ),
        )?;
    }
    // Pappas et al.'s monitored client (terminal 0) against the clients started so far
    // (`[transmission]`: monitored.csv, one row per sample interval)
    if let (Some(n), Some(g), Some(jm), Some(jx)) = (
        f.f64s("monitored", "clients"),
        f.f64s("monitored", "goodput_bps"),
        f.f64s("monitored", "jitter_mean_ns"),
        f.f64s("monitored", "jitter_max_ns"),
    ) {
        let against = |v: &[f64], scale: f64| -> Vec<(f64, f64)> {
            n.iter().zip(v).map(|(n, v)| (*n, v * scale)).collect()
        };
        let axes = |y| Axes {
            x: "clients started",
            y,
        };
        p.chart(
            "monitored-rate",
            "Arrival rate at the monitored client",
            "Bytes terminal 0 received in each sample interval (run.sample_interval) against \
             the clients started by its end, as Pappas et al.'s Figs. 11, 12, 14 and 18 plot \
             it (monitored.csv).",
            charts::lines(
                &[Series {
                    name: "terminal 0".into(),
                    points: against(&g, 1e-6),
                }],
                axes("arrival rate (Mbit/s)"),
                true,
            ),
        )?;
        p.chart(
            "monitored-jitter",
            "Jitter at the monitored client",
            "Deviation of terminal 0's packet arrivals from the smooth schedule in each sample \
             interval, mean and maximum, against the clients started (Pappas et al.'s Figs. \
             13, 15 and 19; monitored.csv).",
            charts::lines(
                &[
                    Series {
                        name: "mean".into(),
                        points: against(&jm, 1e-6),
                    },
                    Series {
                        name: "max".into(),
                        points: against(&jx, 1e-6),
                    },
                ],
                axes("jitter (ms)"),
                true,
            ),
        )?;
    }
    let time = f.f64s("timeseries", "time_ns");
    let over_time = |col: &str, scale: f64| -> Vec<Series> {
        match (&time, f.f64s("timeseries", col)) {
            (Some(t), Some(v)) => vec![Series {
                name: name.clone(),
                points: t.iter().zip(v).map(|(t, v)| (t / 1e9, v * scale)).collect(),
            }],
            _ => Vec::new(),
        }
    };
    let axes = |y| Axes {
        x: "time since measurement started (s)",
        y,
    };
    p.chart(
        "buffer-occupancy",
        "Terminal buffer occupancy over time",
        "Mean bytes buffered per terminal at each sample (timeseries.csv; interval \
         run.sample_interval).",
        charts::lines(
            &over_time("terminal_buffer_mean_bytes", 1.0 / 1_048_576.0),
            axes("mean buffered per terminal (MiB)"),
            false,
        ),
    )?;
    p.chart(
        "utilization-over-time",
        "Disk utilization over time",
        "Mean busy fraction of the disks in each sample interval (timeseries.csv).",
        charts::lines(
            &over_time("disk_utilization_mean_ratio", 100.0),
            axes("disk utilization (%)"),
            false,
        ),
    )?;
    p.chart(
        "server-memory",
        "Server memory in use over time",
        "Buffer-pool memory holding data, all nodes (timeseries.csv).",
        charts::lines(
            &over_time("server_memory_in_use_bytes", 1.0 / 1_048_576.0),
            axes("server memory (MiB)"),
            false,
        ),
    )?;
    let metrics = flatten_metrics(s);
    if let Some(t) = paper_table(&s["paper"], &metrics) {
        p.tables.push(t);
    }
    p.tables.push(metrics_table(&metrics));
    p.facts = manifest_facts(&f.manifest);
    Ok(p)
}

#[cfg(test)]
mod tests {
    use vodbench_harness::results::Summary;

    #[test]
    fn hostile_plugin_parameters_and_names_are_escaped() {
        let dir = tempfile::tempdir().unwrap();
        let summary = Summary {
            scenario: "<script>alert(1)</script>".into(),
            ..Summary::default()
        };
        std::fs::write(
            dir.path().join("summary.json"),
            serde_json::to_string(&summary).unwrap(),
        )
        .unwrap();
        let manifest = serde_json::json!({
            "scenario": "<script>alert(1)</script>",
            "plugins": {
                "disk.scheduler": {
                    "name": "<b onmouseover=alert(2)>x</b>",
                    "params": { "direction": "</dd><script>alert(3)</script>" }
                }
            }
        });
        std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
        let html = crate::folder_page(dir.path()).unwrap().render().unwrap();
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<b "), "{html}");
        assert!(html.contains("&lt;/dd&gt;&lt;script&gt;alert(3)&lt;/script&gt;"));
        assert!(html.contains("&lt;b onmouseover=alert(2)&gt;"));
    }
}
