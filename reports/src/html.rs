//! Every report is one [`Page`]: a serializable context (cards, facts, charts, tables) filled
//! into `templates/page.html` with tinytemplate, which HTML-escapes every value except the
//! SVG that plotters drew (plotters escapes its own text). The page is self-contained: inline
//! CSS, inline SVG, no script, and a Content-Security-Policy that forbids loading anything.

use serde::Serialize;
use std::collections::BTreeMap;
use tinytemplate::TinyTemplate;

const TEMPLATE: &str = include_str!("../templates/page.html");
/// One chart's section, called from the page for the charts before and after the tables.
const CHART_TEMPLATE: &str = include_str!("../templates/chart.html");
const CSS: &str = include_str!("../templates/report.css");

/// One headline number.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Card {
    /// What it is.
    pub label: String,
    /// The number with its unit.
    pub value: String,
    /// A second line (may be empty).
    pub detail: String,
}

/// A key and its value (run facts, plugin parameters).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Fact {
    /// Key.
    pub key: String,
    /// Value.
    pub value: String,
}

/// One chart: an SVG drawn by [`crate::charts`].
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Chart {
    /// Anchor id (`chart-…`).
    pub id: String,
    /// Heading.
    pub title: String,
    /// What it shows and where the data comes from.
    pub caption: String,
    /// The `<svg>` element.
    pub svg: String,
    /// Its entry in the contents when it is listed under a heading there (charts after the
    /// tables, [`Page::after_tables`]); the title when `None`.
    #[serde(skip)]
    pub label: Option<String>,
}

/// One table cell; `class` styles it (`num`, `good`, `bad`, or empty).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Cell {
    /// Text.
    pub text: String,
    /// CSS class.
    pub class: String,
}

impl Cell {
    /// A text cell.
    pub fn text(t: impl Into<String>) -> Cell {
        Cell {
            text: t.into(),
            class: String::new(),
        }
    }
    /// A right-aligned number cell.
    pub fn num(t: impl Into<String>) -> Cell {
        Cell {
            text: t.into(),
            class: "num".into(),
        }
    }
    /// A cell with a class.
    pub fn with(t: impl Into<String>, class: &str) -> Cell {
        Cell {
            text: t.into(),
            class: class.into(),
        }
    }
}

/// One table.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HtmlTable {
    /// Anchor id (`table-…`).
    pub id: String,
    /// Heading.
    pub title: String,
    /// What it shows.
    pub caption: String,
    /// Column headings.
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<Cell>>,
}

/// A whole report page.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Page {
    /// `run`, `broadcast` or `compare`.
    pub kind: String,
    /// `<title>` and heading.
    pub title: String,
    /// Line under the heading.
    pub subtitle: String,
    /// Headline numbers.
    pub cards: Vec<Card>,
    /// Facts about the run(s): version, seed, plugins and their parameters.
    pub facts: Vec<Fact>,
    /// Charts.
    pub charts: Vec<Chart>,
    /// Tables.
    pub tables: Vec<HtmlTable>,
    /// Charts drawn after the tables (detail a reader turns to after them: a sweep's
    /// per-point curves); listed in the contents after the tables. Not in [`Page::data`].
    #[serde(skip)]
    pub late_charts: Vec<Chart>,
    /// The heading the late charts are listed under in the contents (none: listed after
    /// the tables like any other chart).
    #[serde(skip)]
    pub late_heading: Option<String>,
    /// Footer.
    pub generator: String,
}

#[derive(Serialize)]
struct Ctx<'a> {
    css: &'a str,
    page: &'a Page,
    late: &'a [Chart],
    late_heading: Option<&'a str>,
    /// The late charts' contents entries.
    late_links: Vec<Link<'a>>,
}

#[derive(Serialize)]
struct Link<'a> {
    id: &'a str,
    text: &'a str,
}

impl Page {
    /// A page with nothing on it yet.
    pub fn new(kind: &str, title: String, subtitle: String) -> Page {
        Page {
            kind: kind.into(),
            title,
            subtitle,
            cards: Vec::new(),
            facts: Vec::new(),
            charts: Vec::new(),
            tables: Vec::new(),
            late_charts: Vec::new(),
            late_heading: None,
            generator: format!("vodbench {}", env!("CARGO_PKG_VERSION")),
        }
    }

    /// Adds a chart when `svg` holds one (a chart without data is left out); a drawing error
    /// is returned.
    pub fn chart(
        &mut self,
        id: &str,
        title: &str,
        caption: &str,
        svg: Option<Result<String, String>>,
    ) -> Result<(), String> {
        if let Some(svg) = svg {
            self.charts.push(Chart {
                id: format!("chart-{id}"),
                title: title.into(),
                caption: caption.into(),
                svg: svg.map_err(|e| format!("chart `{title}`: {e}"))?,
                label: None,
            });
        }
        Ok(())
    }

    /// Runs `add`, and draws the charts it adds after the tables ([`Page::late_charts`]);
    /// the contents lists them under `heading`, each by its [`Chart::label`].
    pub fn after_tables(
        &mut self,
        heading: &str,
        add: impl FnOnce(&mut Page) -> Result<(), String>,
    ) -> Result<(), String> {
        let before = self.charts.len();
        add(self)?;
        let late = self.charts.split_off(before);
        self.late_charts.extend(late);
        self.late_heading = Some(heading.into());
        Ok(())
    }

    /// [`Page::chart`] with its contents entry under a heading ([`Chart::label`]).
    pub fn labelled_chart(
        &mut self,
        id: &str,
        title: &str,
        label: String,
        caption: &str,
        svg: Option<Result<String, String>>,
    ) -> Result<(), String> {
        let before = self.charts.len();
        self.chart(id, title, caption, svg)?;
        if self.charts.len() > before {
            if let Some(c) = self.charts.last_mut() {
                c.label = Some(label);
            }
        }
        Ok(())
    }

    /// The page as HTML.
    pub fn render(&self) -> Result<String, String> {
        let mut tt = TinyTemplate::new();
        tt.add_template("page", TEMPLATE)
            .map_err(|e| e.to_string())?;
        tt.add_template("chart", CHART_TEMPLATE)
            .map_err(|e| e.to_string())?;
        tt.render(
            "page",
            &Ctx {
                css: CSS,
                page: self,
                late: &self.late_charts,
                late_heading: self.late_heading.as_deref(),
                late_links: self
                    .late_charts
                    .iter()
                    .map(|c| Link {
                        id: &c.id,
                        text: c.label.as_deref().unwrap_or(&c.title),
                    })
                    .collect(),
            },
        )
        .map_err(|e| e.to_string())
    }

    /// The context without the drawn SVG: what `compare.json` holds.
    pub fn data(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("serialisable");
        if let Some(charts) = v["charts"].as_array_mut() {
            for c in charts {
                if let Some(o) = c.as_object_mut() {
                    o.remove("svg");
                }
            }
        }
        v
    }
}

/// The unit of a metric from its name's suffix and the number shown in that unit.
pub fn unit_of(key: &str, v: f64) -> (&'static str, f64) {
    if key.ends_with("_ns") {
        ("ms", v / 1e6)
    } else if key.ends_with("_bytes") {
        ("MiB", v / 1_048_576.0)
    } else if key.ends_with("_ratio") {
        ("%", v * 100.0)
    } else {
        ("", v)
    }
}

/// A number for a table: integers without decimals, others with up to 3 significant
/// decimals.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// A metric in its unit, e.g. `171.2 ms`, `90.4 %`.
pub fn fmt_metric(key: &str, v: f64) -> String {
    let (unit, x) = unit_of(key, v);
    if unit.is_empty() {
        fmt_num(x)
    } else {
        format!("{} {unit}", fmt_num(x))
    }
}

/// The table of every metric of a flattened summary with units.
pub fn metrics_table(metrics: &BTreeMap<String, f64>) -> HtmlTable {
    HtmlTable {
        id: "table-metrics".into(),
        title: "Every metric".into(),
        caption: "All of summary.json; the unit follows from the field name (_ns shown in \
                  ms, _bytes in MiB, _ratio in %)."
            .into(),
        header: vec!["metric".into(), "value".into(), "unit".into()],
        rows: metrics
            .iter()
            .map(|(k, v)| {
                let (unit, x) = unit_of(k, *v);
                vec![Cell::text(k), Cell::num(fmt_num(x)), Cell::text(unit)]
            })
            .collect(),
    }
}

/// The metric a published value names: the same dotted path, or a path ending in `.key`,
/// with a `_min`/`_max` suffix meaning a bound. Returns (metric, bound: "=", "≥" or "≤").
pub fn paper_metric<'a>(
    key: &str,
    metrics: &'a BTreeMap<String, f64>,
) -> Option<(&'a str, f64, &'static str)> {
    let find = |k: &str| {
        metrics
            .iter()
            .find(|(m, _)| m.as_str() == k || m.ends_with(&format!(".{k}")))
            .map(|(m, v)| (m.as_str(), *v))
    };
    if let Some((m, v)) = find(key) {
        return Some((m, v, "="));
    }
    for (suffix, bound) in [("_min", "≥"), ("_max", "≤")] {
        if let Some(base) = key.strip_suffix(suffix) {
            if let Some((m, v)) = find(base) {
                return Some((m, v, bound));
            }
        }
    }
    None
}

/// Levenshtein distance between `a` and `b`, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}

/// The metric of `metrics` whose name (or last component, with `_min`/`_max` bounds
/// allowed) is within a few edits of the paper key `key`: what a typo meant.
fn closest_metric<'m>(key: &str, metrics: &'m BTreeMap<String, f64>) -> Option<&'m str> {
    let base = key
        .strip_suffix("_min")
        .or_else(|| key.strip_suffix("_max"))
        .unwrap_or(key);
    let limit = (base.chars().count() / 4).max(2);
    metrics
        .keys()
        .map(|m| {
            let last = m.rsplit('.').next().unwrap_or(m);
            (edit_distance(base, last).min(edit_distance(base, m)), m)
        })
        .filter(|(d, _)| *d > 0 && *d <= limit)
        .min()
        .map(|(_, m)| m.as_str())
}

/// "paper vs vodbench": every published value beside the measured one and the difference.
/// `None` when the scenario carries no published values.
pub fn paper_table(
    paper: &serde_json::Value,
    metrics: &BTreeMap<String, f64>,
) -> Option<HtmlTable> {
    let paper = paper.as_object().filter(|p| !p.is_empty())?;
    let rows = paper
        .iter()
        .map(|(key, v)| {
            let p = v.as_f64().unwrap_or(f64::NAN);
            match paper_metric(key, metrics) {
                Some((m, x, bound)) => {
                    let (unit, _) = unit_of(m, x);
                    let scale = |y: f64| unit_of(m, y).1;
                    let ok = match bound {
                        "≥" => x >= p,
                        "≤" => x <= p,
                        _ => true,
                    };
                    let verdict = match bound {
                        "=" => Cell::num(fmt_num(scale(x) - scale(p))),
                        _ => Cell::with(
                            if ok { "within bound" } else { "outside bound" },
                            if ok { "good" } else { "bad" },
                        ),
                    };
                    vec![
                        Cell::text(key),
                        Cell::text(format!("{bound} {}", fmt_num(scale(p)))),
                        Cell::num(fmt_num(scale(x))),
                        verdict,
                        Cell::text(format!("{m} {unit}").trim().to_string()),
                    ]
                }
                None => vec![
                    Cell::text(key),
                    Cell::text(fmt_num(p)),
                    Cell::num("—"),
                    Cell::text(match closest_metric(key, metrics) {
                        // a typo in [paper] would otherwise read as a metric this run lacks
                        Some(m) => format!(
                            "not measured by this run (no metric `{key}`: did you mean `{m}`?)"
                        ),
                        None => "not measured by this run".to_string(),
                    }),
                    Cell::text(""),
                ],
            }
        })
        .collect();
    Some(HtmlTable {
        id: "table-paper".into(),
        title: "Paper vs vodbench".into(),
        caption: "Published values the scenario carries ([paper]) beside what this run \
                  measured; a key ending in _min or _max is a bound."
            .into(),
        header: vec![
            "published value".into(),
            "paper".into(),
            "vodbench".into(),
            "difference".into(),
            "metric (unit)".into(),
        ],
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_is_escaped_and_nothing_is_loaded() {
        let mut p = Page::new("run", "<script>alert(1)</script>".into(), "a & b".into());
        p.facts.push(Fact {
            key: "plugin".into(),
            value: "\"><img src=x onerror=alert(1)>".into(),
        });
        let html = p.render().unwrap();
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("Content-Security-Policy"));
        assert!(!html.contains("http://") && !html.contains("https://"));
    }

    #[test]
    fn units_follow_field_names() {
        assert_eq!(
            fmt_metric("startup_latency.mean_ns", 171_200_000.0),
            "171.2 ms"
        );
        assert_eq!(fmt_metric("disks.utilization_mean_ratio", 0.904), "90.40 %");
        assert_eq!(fmt_metric("peak_bytes", 2_097_152.0), "2 MiB");
        assert_eq!(fmt_metric("glitches.count", 3.0), "3");
    }

    #[test]
    fn paper_values_match_metrics_and_bounds() {
        let m: BTreeMap<String, f64> = [
            ("receivers.client_io_time_ratio".to_string(), 0.08),
            ("terminals".to_string(), 200.0),
        ]
        .into();
        let paper =
            serde_json::json!({"client_io_time_ratio_max": 0.10, "terminals": 220.0, "other": 1.0});
        let t = paper_table(&paper, &m).unwrap();
        let row = |k: &str| t.rows.iter().find(|r| r[0].text == k).unwrap().clone();
        assert_eq!(row("client_io_time_ratio_max")[3].text, "within bound");
        assert_eq!(row("terminals")[3].text, "-20");
        assert_eq!(row("other")[3].text, "not measured by this run");
        // a typo says what it probably meant
        let typo = serde_json::json!({"termnals": 220.0});
        let t = paper_table(&typo, &m).unwrap();
        assert_eq!(
            t.rows[0][3].text,
            "not measured by this run (no metric `termnals`: did you mean `terminals`?)"
        );
        assert!(paper_table(&serde_json::json!({}), &m).is_none());
    }
}
