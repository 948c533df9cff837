//! `report.html` of a `vodbench cache replay`, made from its saved `cache.json` (what was
//! replayed and every pool's counts at every cache size).
//!
//! Charts: miss ratio against cache size and byte miss ratio against cache size, one curve
//! per pool. Table: every pool at every size. The replay's speed (`speed.csv`, wall clock)
//! is left out, so that the page, like `cache.json`, is the same on every run.

use crate::charts::{self, Axes, Series};
use crate::folder::RunFolder;
use crate::html::{fmt_num, Card, Cell, Fact, HtmlTable, Page};

/// One curve per pool of `key` (`miss_ratio`, `byte_miss_ratio`) against the cache size (its
/// base-10 logarithm when `log`), in the order the pools were given.
pub fn pool_curves(f: &RunFolder, key: &str, log: bool) -> Vec<Series> {
    let results = f.summary["results"].as_array().cloned().unwrap_or_default();
    let mut out: Vec<Series> = Vec::new();
    for r in &results {
        let pool = r["pool"].as_str().unwrap_or("?").to_string();
        let size = r["size_bytes"].as_f64().unwrap_or(f64::NAN);
        let point = (
            if log { size.log10() } else { size },
            r[key].as_f64().unwrap_or(f64::NAN),
        );
        match out.iter_mut().find(|s| s.name == pool) {
            Some(s) => s.points.push(point),
            None => out.push(Series {
                name: pool,
                points: vec![point],
            }),
        }
    }
    for s in &mut out {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The report page of one cache replay.
pub fn page(f: &RunFolder) -> Result<Page, String> {
    let s = &f.summary;
    let trace = s["trace"].as_str().unwrap_or("?");
    let mut p = Page::new(
        "cache",
        format!("cache replay of {trace}"),
        format!(
            "{} requests ({} format) through {} pool(s) at every cache size",
            s["requests"],
            s["format"].as_str().unwrap_or("?"),
            s["pools"].as_array().map_or(0, Vec::len)
        ),
    );
    let results = s["results"].as_array().cloned().unwrap_or_default();
    let num = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    // the lowest miss ratio at the largest size: the headline
    let largest = results
        .iter()
        .map(|r| num(&r["size_bytes"]))
        .fold(f64::NAN, f64::max);
    if let Some(best) = results
        .iter()
        .filter(|r| num(&r["size_bytes"]) == largest)
        .min_by(|a, b| num(&a["miss_ratio"]).total_cmp(&num(&b["miss_ratio"])))
    {
        p.cards.push(Card {
            label: "lowest miss ratio".into(),
            value: format!("{:.4}", num(&best["miss_ratio"])),
            detail: format!(
                "{} at the largest size, {} bytes",
                best["pool"].as_str().unwrap_or("?"),
                fmt_num(largest)
            ),
        });
    }
    p.cards.push(Card {
        label: "requests".into(),
        value: s["requests"].to_string(),
        detail: format!(
            "objects of {}–{} bytes; {} of size 0 skipped",
            s["object_bytes"]["min"], s["object_bytes"]["max"], s["skipped_size_0"]
        ),
    });
    // sizes over more than a decade are drawn on a logarithmic axis
    let sizes: Vec<f64> = results.iter().map(|r| num(&r["size_bytes"])).collect();
    let smallest = sizes.iter().copied().fold(f64::INFINITY, f64::min);
    let log = largest >= 10.0 * smallest;
    let x = if log {
        "cache size (bytes), log10"
    } else {
        "cache size (bytes)"
    };
    p.chart(
        "miss-ratio",
        "Miss ratio vs cache size",
        "Requests whose object was not cached, per pool, against the cache size in bytes \
         (cache.json; a logarithmic axis, 2 = 100 bytes, 3 = 1000, when the sizes span more \
         than a decade).",
        charts::lines(
            &pool_curves(f, "miss_ratio", log),
            Axes { x, y: "miss ratio" },
            true,
        ),
    )?;
    p.chart(
        "byte-miss-ratio",
        "Byte miss ratio vs cache size",
        "Bytes of the misses over bytes requested, per pool, against the cache size.",
        charts::lines(
            &pool_curves(f, "byte_miss_ratio", log),
            Axes {
                x,
                y: "byte miss ratio",
            },
            true,
        ),
    )?;
    p.tables.push(HtmlTable {
        id: "table-results".into(),
        title: "Every pool at every size".into(),
        caption: "cache.csv: counts of each pool at each cache size (requests per second, \
                  which vary from run to run, are in speed.csv)."
            .into(),
        header: [
            "pool",
            "size (bytes)",
            "miss ratio",
            "byte miss ratio",
            "hits",
            "misses",
            "evictions",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect(),
        rows: results
            .iter()
            .map(|r| {
                vec![
                    Cell::text(r["pool"].as_str().unwrap_or("?")),
                    Cell::num(r["size_bytes"].to_string()),
                    Cell::num(format!("{:.6}", num(&r["miss_ratio"]))),
                    Cell::num(format!("{:.6}", num(&r["byte_miss_ratio"]))),
                    Cell::num(r["hits"].to_string()),
                    Cell::num(r["misses"].to_string()),
                    Cell::num(r["evictions"].to_string()),
                ]
            })
            .collect(),
    });
    p.facts.push(Fact {
        key: "trace".into(),
        value: trace.to_string(),
    });
    for pool in s["pools"].as_array().cloned().unwrap_or_default() {
        p.facts.push(Fact {
            key: format!("pool {}", pool["label"].as_str().unwrap_or("?")),
            value: format!(
                "{} {}",
                pool["name"].as_str().unwrap_or("?"),
                pool["params"]
            ),
        });
    }
    p.facts.push(Fact {
        key: "vodbench".into(),
        value: s["vodbench"].as_str().unwrap_or("?").to_string(),
    });
    Ok(p)
}
