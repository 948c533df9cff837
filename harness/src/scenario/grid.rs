//! The `[sweep]` table shared by on-demand and broadcast scenarios: one file, a grid of runs.
//!
//! Two kinds of *axes* make the grid (their cartesian product is the set of points):
//!
//! * a **key axis** `"dotted.key" = [v1, v2, …]` sets one scenario key to each value in turn
//!   (a value may be a whole table, e.g. a plugin with its parameters);
//! * a **series axis** `[[sweep.series.NAME]]`, one entry per setting, changes several keys
//!   together: each entry has a `label` and any number of `"dotted.key" = value` pairs. SPIFFI's
//!   Fig. 10 compares schedulers whose parameters differ (elevator; real-time 2 × 4 s with the
//!   real-time prefetcher; …), which a single key cannot express.
//!
//! Series axes vary slowest (in name order), then the key axes (in key order); the last axis
//! varies fastest. A point is named by its axes' values (a series by its entry's label).
//!
//! A series whose entries all carry a `factor` (one of them 1) is a *scaleup* axis (SPIFFI
//! §7.6, Table 2): `vodbench sweep` reports each point's scaleup, its maximum terminals over
//! `factor ×` those of the point with factor 1 and the same other values.
//!
//! Each scenario key is set by one axis only. A point where a later setting would undo an
//! earlier one — the same key, a table replacing a key set inside it, or a key overriding a
//! value an earlier table gave it — is an error naming both settings' lines, since the
//! point's label would name a value it never ran with. A key inside a table another axis
//! sets, where that table leaves it out, refines the table. A key list names each value
//! once, and no series shares a key axis's name.
//!
//! Published values per point go in `[[sweep.paper]]` entries: `at` selects points by axis
//! values (axes left out match every value) and the other keys are merged into those points'
//! `[paper]` table. A series entry can also set `"paper.KEY"` itself.
//!
//! ```toml
//! [sweep]
//! "server.stripe" = ["128KiB", "256KiB", "512KiB", "1MiB"]
//!
//! [[sweep.series.scheduler]]
//! label = "elevator"
//! "disk.scheduler" = { name = "elevator" }
//!
//! [[sweep.series.scheduler]]
//! label = "real-time 3×4 s"
//! "disk.scheduler" = { name = "real-time", classes = 3, spacing = "4s" }
//! prefetcher = { name = "real-time" }
//!
//! [[sweep.paper]]
//! at = { scheduler = "real-time 3×4 s", "server.stripe" = "512KiB" }
//! max_terminals = 225
//! ```
//!
//! Each point is validated like a scenario of its own; an error caused by a swept value names
//! the point and the line of the sweep entry that set it.

use crate::scenario::{locate, ScenarioError};
use lines::setting_place;
use std::path::Path;
use table::{describe, get_path};

mod lines;
mod paper;
mod schema;
mod series;
mod table;

pub use lines::sweep_line;
pub use schema::json_schema;
pub use table::{has_table, parse_table, point_label, read_scenario, set_path, value_text};

/// Most points in one sweep.
pub const MAX_SWEEP_POINTS: usize = 100_000;

/// Keys a `[sweep]` table reserves (not scenario keys).
const RESERVED: [&str; 2] = ["series", "paper"];

/// Keys a series entry reserves: `label` names it, `factor` makes its series a scaleup axis.
pub const SERIES_RESERVED: [&str; 2] = ["label", "factor"];

/// One setting of a series axis.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesEntry {
    /// Its label (the axis value that names it).
    pub label: String,
    /// The keys it sets, in key order.
    pub sets: Vec<(String, toml::Value)>,
    /// Its scale `factor`, when the series is a scaleup axis.
    pub factor: Option<f64>,
}

/// One axis of the grid.
#[derive(Debug, Clone, PartialEq)]
pub enum Axis {
    /// `"dotted.key" = [values]`.
    Key {
        /// The dotted key (also the axis name).
        key: String,
        /// Its values.
        values: Vec<toml::Value>,
    },
    /// `[[sweep.series.NAME]]`.
    Series {
        /// The axis name.
        name: String,
        /// Its entries.
        entries: Vec<SeriesEntry>,
    },
}

impl Axis {
    /// The axis name: the dotted key, or the series name.
    pub fn name(&self) -> &str {
        match self {
            Axis::Key { key, .. } => key,
            Axis::Series { name, .. } => name,
        }
    }

    fn len(&self) -> usize {
        match self {
            Axis::Key { values, .. } => values.len(),
            Axis::Series { entries, .. } => entries.len(),
        }
    }

    /// Setting `i` in messages: `the sweep list "key"` or `entry "label" of series NAME`.
    fn setting_name(&self, i: usize) -> String {
        match self {
            Axis::Key { key, .. } => format!("the sweep list \"{key}\""),
            Axis::Series { name, entries } => {
                format!("entry {:?} of series `{name}`", entries[i].label)
            }
        }
    }

    /// The value setting `i` gives `key`, if it sets it.
    fn setting(&self, i: usize, key: &str) -> Option<&toml::Value> {
        match self {
            Axis::Key { key: k, values } => (k == key).then(|| &values[i]),
            Axis::Series { entries, .. } => entries[i]
                .sets
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v),
        }
    }

    /// The value naming setting `i`: the key's value, or the series entry's label.
    fn value(&self, i: usize) -> toml::Value {
        match self {
            Axis::Key { values, .. } => values[i].clone(),
            Axis::Series { entries, .. } => toml::Value::String(entries[i].label.clone()),
        }
    }
}

/// The setting among `sets` (key, axis, setting) of a point that setting `key` now would
/// undo in part or whole: the same key, a key inside a table `key` replaces, or a value the
/// earlier table gave the key `key` is inside. A later key inside an earlier table that did
/// not set it only adds to that table.
fn replaced_setting<'a>(
    axes: &[Axis],
    sets: &'a [(String, usize, usize)],
    key: &str,
) -> Option<&'a (String, usize, usize)> {
    sets.iter().find(|(pk, pa, pi)| {
        if pk == key || inside(pk, key) {
            return true;
        }
        if !inside(key, pk) {
            return false;
        }
        let rest = &key[pk.len() + 1..];
        axes[*pa]
            .setting(*pi, pk)
            .and_then(toml::Value::as_table)
            .is_some_and(|t| get_path(t, rest).is_some())
    })
}

/// The key among `swept` (see [`Grid::swept_keys`]) that sets dotted `key`, itself or a
/// table holding it.
pub fn swept_key_covering<'a>(swept: &'a [String], key: &str) -> Option<&'a str> {
    swept
        .iter()
        .map(String::as_str)
        .find(|k| *k == key || inside(key, k))
}

/// Whether dotted key `inner` lies inside the table at dotted key `outer`.
fn inside(inner: &str, outer: &str) -> bool {
    inner.len() > outer.len() + 1
        && inner.starts_with(outer)
        && inner.as_bytes()[outer.len()] == b'.'
}

/// One point of the grid.
#[derive(Debug, Clone)]
pub struct GridPoint {
    /// The scenario table with this point's settings applied (no `[sweep]`).
    pub table: toml::Table,
    /// Axis name → value (a series' label), in axis order.
    pub values: Vec<(String, toml::Value)>,
    /// Its scale factor (from the scaleup series' entry), if the sweep has a scaleup axis.
    pub factor: Option<f64>,
    /// Scenario keys this point set → (axis index, setting index), for error lines.
    sets: Vec<(String, usize, usize)>,
}

/// A scenario file's sweep, expanded.
#[derive(Debug, Clone)]
pub struct Grid {
    /// The axes, slowest first.
    pub axes: Vec<Axis>,
    /// Every point (one, with no values, without a sweep).
    pub points: Vec<GridPoint>,
}

fn sweepable(k: &str) -> bool {
    !k.is_empty() && !k.split('.').any(str::is_empty) && !k.starts_with("sweep")
}

impl Grid {
    /// Removes `[sweep]` from `base` and expands it. `text` and `path` are for messages.
    pub fn expand(base: &mut toml::Table, text: &str, path: &Path) -> Result<Grid, ScenarioError> {
        let at = |key: &str, line: Option<usize>, message: String| ScenarioError::Invalid {
            file: path.to_path_buf(),
            line: line.or_else(|| locate::line_of_key(text, key)),
            key: key.to_string(),
            message,
        };
        let mut sweep = match base.remove("sweep") {
            None => toml::Table::new(),
            Some(toml::Value::Table(t)) => t,
            Some(_) => {
                return Err(at(
                    "sweep",
                    None,
                    "must be a table of \"dotted.key\" = [values]".into(),
                ))
            }
        };
        let mut axes = Self::series_axes(sweep.remove("series"), text, &at)?;
        let paper = sweep.remove("paper");
        Self::key_axes(&sweep, &mut axes, text, &at)?;
        let count = Self::point_count(&axes, &at)?;
        let mut points = Vec::with_capacity(count);
        let mut index = vec![0usize; axes.len()];
        for _ in 0..count {
            points.push(Self::point(base, &axes, &index, text, &at)?);
            next_index(&mut index, &axes);
        }
        let mut grid = Grid { axes, points };
        if let Some(p) = paper {
            grid.merge_paper(p, text, &at)?;
        }
        Ok(grid)
    }

    /// The series axes of `[[sweep.series.NAME]]` (`series`, the `[sweep]` table's `series`).
    fn series_axes(
        series: Option<toml::Value>,
        text: &str,
        at: &dyn Fn(&str, Option<usize>, String) -> ScenarioError,
    ) -> Result<Vec<Axis>, ScenarioError> {
        let mut axes = Vec::new();
        match series {
            None => {}
            Some(toml::Value::Table(series)) => {
                for (name, v) in series {
                    axes.push(Self::series_axis(&name, v, text, at)?);
                }
            }
            Some(_) => {
                return Err(at(
                    "sweep.series",
                    None,
                    "must be tables `[[sweep.series.NAME]]`, each with a `label` and the \
                     \"dotted.key\" = value pairs it sets"
                        .into(),
                ))
            }
        }
        Ok(axes)
    }

    /// The key axes of `sweep` (`"dotted.key" = [values]`), after the series `axes`.
    fn key_axes(
        sweep: &toml::Table,
        axes: &mut Vec<Axis>,
        text: &str,
        at: &dyn Fn(&str, Option<usize>, String) -> ScenarioError,
    ) -> Result<(), ScenarioError> {
        for (k, v) in sweep {
            let key = format!("sweep.{k}");
            let line = sweep_line(text, k);
            if !sweepable(k) {
                return Err(at(
                    &key,
                    line,
                    format!(
                        "`{k}` is not a key that can be swept (reserved in [sweep]: {})",
                        RESERVED.join(", ")
                    ),
                ));
            }
            let values = match v {
                toml::Value::Array(a) if !a.is_empty() => a.clone(),
                _ => return Err(at(&key, line, "must be a non-empty list of values".into())),
            };
            let mut seen = std::collections::HashSet::new();
            if let Some(j) = (0..values.len()).find(|&j| !seen.insert(values[j].to_string())) {
                return Err(at(
                    &key,
                    line,
                    format!(
                        "lists {} twice; each value makes one point",
                        describe(&values[j])
                    ),
                ));
            }
            if axes.iter().any(|a| a.name() == k) {
                return Err(at(
                    &key,
                    line,
                    format!(
                        "a series is named `{k}` too; axes need distinct names (rename the series)"
                    ),
                ));
            }
            axes.push(Axis::Key {
                key: k.clone(),
                values,
            });
        }
        Ok(())
    }

    /// The number of points of the grid of `axes`: at most [`MAX_SWEEP_POINTS`], with at
    /// most one scaleup series.
    fn point_count(
        axes: &[Axis],
        at: &dyn Fn(&str, Option<usize>, String) -> ScenarioError,
    ) -> Result<usize, ScenarioError> {
        let scaled = axes
            .iter()
            .filter(|a| matches!(a, Axis::Series { entries, .. } if entries[0].factor.is_some()))
            .count();
        if scaled > 1 {
            return Err(at(
                "sweep.series",
                None,
                "at most one series may carry scale factors".into(),
            ));
        }
        let count = axes.iter().fold(1usize, |n, a| n.saturating_mul(a.len()));
        if count > MAX_SWEEP_POINTS {
            return Err(at(
                "sweep",
                None,
                format!("the grid has {count} points; at most {MAX_SWEEP_POINTS} are allowed"),
            ));
        }
        Ok(count)
    }

    /// The point at `index` (one setting of each of `axes`): `base` with its settings, an
    /// error where a setting would undo an earlier one.
    fn point(
        base: &toml::Table,
        axes: &[Axis],
        index: &[usize],
        text: &str,
        at: &dyn Fn(&str, Option<usize>, String) -> ScenarioError,
    ) -> Result<GridPoint, ScenarioError> {
        let mut table = base.clone();
        let values: Vec<(String, toml::Value)> = axes
            .iter()
            .zip(index)
            .map(|(axis, &i)| (axis.name().to_string(), axis.value(i)))
            .collect();
        let mut sets: Vec<(String, usize, usize)> = Vec::new();
        let mut factor = None;
        for (a, axis) in axes.iter().enumerate() {
            let i = index[a];
            if let Axis::Series { entries, .. } = axis {
                factor = factor.or(entries[i].factor);
            }
            let pairs: Vec<(String, toml::Value)> = match axis {
                Axis::Key { key, values } => vec![(key.clone(), values[i].clone())],
                Axis::Series { entries, .. } => entries[i].sets.clone(),
            };
            for (k, v) in pairs {
                if let Some(earlier) = replaced_setting(axes, &sets, &k) {
                    let (key, line) = setting_place(text, axis, i, &k);
                    let (pk, pa, pi) = earlier;
                    let (_, pline) = setting_place(text, &axes[*pa], *pi, pk);
                    let by = format!(
                        "{}{}",
                        axes[*pa].setting_name(*pi),
                        pline.map_or(String::new(), |l| format!(" (line {l})"))
                    );
                    let clash = if *pk == k {
                        format!("`{k}` is set by {by} too")
                    } else if inside(pk, &k) {
                        format!("setting the table `{k}` would undo `{pk}`, set by {by}")
                    } else {
                        format!("`{k}` would override the value the table `{pk}` of {by} gives it")
                    };
                    return Err(at(
                        &key,
                        line,
                        format!(
                            "sweep point ({}): {clash}; a key may be set by one axis only \
                             (a series entry can set several keys together)",
                            point_label(&values),
                        ),
                    ));
                }
                set_path(&mut table, &k, v).map_err(|m| {
                    let (key, line) = setting_place(text, axis, i, &k);
                    at(&key, line, format!("cannot set `{k}`: {m}"))
                })?;
                sets.push((k, a, i));
            }
        }
        Ok(GridPoint {
            table,
            values,
            factor,
            sets,
        })
    }
}

/// The index of the point after `index` in grid order: the last axis varies fastest.
fn next_index(index: &mut [usize], axes: &[Axis]) {
    for a in (0..axes.len()).rev() {
        index[a] += 1;
        if index[a] < axes[a].len() {
            break;
        }
        index[a] = 0;
    }
}

impl GridPoint {
    /// The error for `key` (a scenario key) at this point: when a swept setting caused it,
    /// the message names the point and the line is that of the sweep entry.
    pub fn error(
        &self,
        grid: &Grid,
        text: &str,
        path: &Path,
        key: &str,
        message: String,
    ) -> ScenarioError {
        let by = self
            .sets
            .iter()
            .find(|(k, _, _)| key == k || key.starts_with(&format!("{k}.")));
        // a setting of this point in the same table as `key` (the point sets
        // `admission.name`, and the base file's `admission.total` no longer fits it): the
        // error is the point's, though its line is the base file's
        // (its plugin's `name` first: what makes the base file's other keys wrong)
        let in_table = |k: &&(String, usize, usize)| {
            k.0.rsplit_once('.')
                .is_some_and(|(table, _)| key.starts_with(&format!("{table}.")))
        };
        let beside = self
            .sets
            .iter()
            .filter(in_table)
            .find(|(k, _, _)| k.ends_with(".name"))
            .or_else(|| self.sets.iter().find(in_table));
        match (by, beside) {
            (None, None) => ScenarioError::at(path, text, key, message),
            (None, Some((k, _, _))) => ScenarioError::at(
                path,
                text,
                key,
                format!(
                    "sweep point ({}): {message} (this point sets `{k}`; `{key}` is the base \
                     file's)",
                    point_label(&self.values)
                ),
            ),
            (Some((k, a, i)), _) => {
                let (_, line) = setting_place(text, &grid.axes[*a], *i, k);
                ScenarioError::Invalid {
                    file: path.to_path_buf(),
                    line: line.or_else(|| locate::line_of_key(text, key)),
                    key: key.to_string(),
                    message: format!("sweep point ({}): {message}", point_label(&self.values)),
                }
            }
        }
    }
}

impl Grid {
    /// Every scenario key some axis sets at some point, sorted.
    pub fn swept_keys(&self) -> Vec<String> {
        let keys: std::collections::BTreeSet<&str> = self
            .points
            .iter()
            .flat_map(|p| p.sets.iter().map(|(k, _, _)| k.as_str()))
            .collect();
        keys.into_iter().map(String::from).collect()
    }

    /// The values of `base` (the file without its `[sweep]`) that every point replaces, so
    /// that no point checks them: `None` when there are none, else the first point's table
    /// with those values put back. A scenario built from it checks them in context (a
    /// mistyped parameter in the base must not pass `vodbench check` just because every
    /// sweep point overrides it).
    pub fn base_check(&self, base: &toml::Table) -> Option<toml::Table> {
        let first = self.points.first()?;
        let covers = |p: &GridPoint, key: &str| {
            p.sets
                .iter()
                .any(|(k, _, _)| key == k || key.starts_with(&format!("{k}.")))
        };
        let keys: std::collections::BTreeSet<&str> = self
            .points
            .iter()
            .flat_map(|p| p.sets.iter().map(|(k, _, _)| k.as_str()))
            .collect();
        let mut table = first.table.clone();
        let mut any = false;
        for k in keys {
            let Some(v) = get_path(base, k) else { continue };
            if self.points.iter().all(|q| covers(q, k)) {
                set_path(&mut table, k, v.clone()).ok()?;
                any = true;
            }
        }
        any.then_some(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Result<Grid, ScenarioError> {
        let mut t: toml::Table = text.parse().unwrap();
        Grid::expand(&mut t, text, Path::new("s.toml"))
    }

    const FIG10: &str = r#"seed = 1
[server]
stripe = "512KiB"
[sweep]
"server.stripe" = ["256KiB", "512KiB"]

[[sweep.series.scheduler]]
label = "elevator"
"disk.scheduler" = { name = "elevator" }

[[sweep.series.scheduler]]
label = "rt"
"disk.scheduler" = { name = "real-time", classes = 2 }
prefetcher = { name = "real-time" }

[[sweep.paper]]
at = { scheduler = "rt", "server.stripe" = "512KiB" }
max_terminals = 225

[[sweep.paper]]
at = { scheduler = "elevator" }
note = 1
"#;

    #[test]
    fn series_vary_slowest_and_carry_their_keys() {
        let g = grid(FIG10).unwrap();
        assert_eq!(g.points.len(), 4);
        let names: Vec<String> = g
            .points
            .iter()
            .map(|p| {
                p.values
                    .iter()
                    .map(|(_, v)| value_text(v))
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .collect();
        assert_eq!(
            names,
            [
                "elevator/256KiB",
                "elevator/512KiB",
                "rt/256KiB",
                "rt/512KiB"
            ]
        );
        let rt = &g.points[3].table;
        assert_eq!(rt["disk"]["scheduler"]["classes"].as_integer(), Some(2));
        assert_eq!(rt["prefetcher"]["name"].as_str(), Some("real-time"));
        assert_eq!(rt["server"]["stripe"].as_str(), Some("512KiB"));
        assert_eq!(rt["paper"]["max_terminals"].as_float(), Some(225.0));
        assert!(g.points[2].table.get("paper").is_none());
        assert_eq!(g.points[0].table["paper"]["note"].as_float(), Some(1.0));
        assert_eq!(g.points[1].table["paper"]["note"].as_float(), Some(1.0));
        assert!(!g.points[0].table.contains_key("sweep"));
    }

    #[test]
    fn no_sweep_is_one_point() {
        let g = grid("seed = 3\n").unwrap();
        assert_eq!(g.points.len(), 1);
        assert!(g.points[0].values.is_empty());
    }

    #[test]
    fn base_check_puts_back_the_base_values_every_point_replaces() {
        // FIG10's base stripe is replaced at every point; the scheduler is not in the base.
        let mut base: toml::Table = FIG10.parse().unwrap();
        let g = Grid::expand(&mut base, FIG10, Path::new("s.toml")).unwrap();
        let t = g.base_check(&base).unwrap();
        assert_eq!(t["server"]["stripe"].as_str(), Some("512KiB"));
        assert_eq!(t["disk"]["scheduler"]["name"].as_str(), Some("elevator"));
        // A whole table replaced by a series entry at every point, and a key one entry
        // leaves alone (so a point checks the base's value): only the first is put back.
        let text = "[disk.scheduler]\nname = \"bogus\"\n[prefetcher]\nname = \"p0\"\n\
                    [[sweep.series.s]]\nlabel = \"a\"\n\"disk.scheduler\" = { name = \"x\" }\n\
                    prefetcher = { name = \"p1\" }\n\
                    [[sweep.series.s]]\nlabel = \"b\"\n\"disk.scheduler.name\" = \"y\"\n";
        let mut base: toml::Table = text.parse().unwrap();
        let g = Grid::expand(&mut base, text, Path::new("s.toml")).unwrap();
        let t = g.base_check(&base).unwrap();
        assert_eq!(t["disk"]["scheduler"]["name"].as_str(), Some("bogus"));
        assert_eq!(t["prefetcher"]["name"].as_str(), Some("p1"));
        // Nothing replaced everywhere: nothing to check.
        let text = "[server]\nnodes = 1\n[sweep]\n\"server.stripe\" = [\"1KiB\"]\n";
        let mut base: toml::Table = text.parse().unwrap();
        let g = Grid::expand(&mut base, text, Path::new("s.toml")).unwrap();
        assert!(g.base_check(&base).is_none());
        assert!(grid("seed = 3\n").unwrap().base_check(&base).is_none());
    }

    fn err(text: &str) -> (String, Option<usize>, String) {
        match grid(text).unwrap_err() {
            ScenarioError::Invalid {
                key, line, message, ..
            } => (key, line, message),
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn errors_name_the_sweep_entry_and_its_line() {
        let (k, l, m) = err("[sweep]\n\"a.b\" = []\n");
        assert_eq!((k.as_str(), l), ("sweep.a.b", Some(2)));
        assert!(m.contains("non-empty list"), "{m}");
        let (k, _, m) = err("[sweep]\n\"sweep.x\" = [1]\n");
        assert_eq!(k, "sweep.sweep.x");
        assert!(m.contains("not a key that can be swept"), "{m}");
        let (k, l, m) = err("[[sweep.series.s]]\nlabel = \"a\"\n[[sweep.series.s]]\nx = 1\n");
        assert_eq!((k.as_str(), l), ("sweep.series.s.1.label", Some(3)));
        assert!(m.contains("label"), "{m}");
        let (k, l, m) = err("seed = 1\n[[sweep.series.s]]\nlabel = \"a\"\n\"seed.x\" = 1\n");
        assert_eq!((k.as_str(), l), ("sweep.series.s.0.seed.x", Some(4)));
        assert!(m.contains("`seed` is not a table"), "{m}");
        let paper = "[sweep]\n\"a\" = [1, 2]\n[[sweep.paper]]\nat = { a = 3 }\nx = 1\n";
        let (k, l, m) = err(paper);
        assert_eq!((k.as_str(), l), ("sweep.paper.0.at.a", Some(3)));
        assert!(m.contains("its values: 1, 2"), "{m}");
        let (_, _, m) = err(&paper.replace("a = 3", "b = 1"));
        assert!(m.contains("not an axis"), "{m}");
        let (_, _, m) = err(&paper
            .replace("a = 3", "a = 1")
            .replace("x = 1", "x = \"many\""));
        assert!(m.contains("numbers"), "{m}");
        let twice = "[sweep]\n\"a\" = [1]\n[[sweep.paper]]\nx = 1\n[[sweep.paper]]\nx = 2\n";
        let (k, l, m) = err(twice);
        assert_eq!((k.as_str(), l), ("sweep.paper.1.x", Some(5)));
        assert!(m.contains("already has"), "{m}");
    }

    #[test]
    fn a_key_set_by_two_axes_is_an_error_not_a_silent_override() {
        // The key list is applied after the series: it would silently undo the series.
        let text = "[[sweep.series.cfg]]\nlabel = \"small\"\n\"terminals.count\" = 50\n\
                    [sweep]\n\"terminals.count\" = [100, 300]\n";
        let (k, l, m) = err(text);
        assert_eq!((k.as_str(), l), ("sweep.terminals.count", Some(5)));
        assert!(
            m.contains("sweep point (cfg = \"small\", terminals.count = 100)"),
            "{m}"
        );
        assert!(
            m.contains("set by entry \"small\" of series `cfg` (line 3) too"),
            "{m}"
        );
        // A later table replacing a key an earlier axis set inside it.
        let text = "[[sweep.series.a]]\nlabel = \"one\"\n\"prefetcher.processes\" = 1\n\
                    [[sweep.series.b]]\nlabel = \"std\"\nprefetcher = { name = \"standard\" }\n";
        let (k, l, m) = err(text);
        assert_eq!((k.as_str(), l), ("sweep.series.b.0.prefetcher", Some(6)));
        assert!(m.contains("would undo `prefetcher.processes`"), "{m}");
        // A later key overriding what an earlier table gave it.
        let text = "[sweep]\nterminals = [{ count = 10 }]\n\"terminals.count\" = [1, 2]\n";
        let (k, _, m) = err(text);
        assert_eq!(k, "sweep.terminals.count");
        assert!(m.contains("the table `terminals` of the sweep list"), "{m}");
        // Two keys of one series entry clash the same way.
        let text = "[[sweep.series.s]]\nlabel = \"x\"\nterminals = { count = 3 }\n\
                    \"terminals.count\" = 4\n";
        let (_, _, m) = err(text);
        assert!(m.contains("entry \"x\" of series `s`"), "{m}");
    }

    #[test]
    fn a_key_inside_an_earlier_table_that_did_not_set_it_refines_it() {
        let text = "[[sweep.series.p]]\nlabel = \"std\"\nprefetcher = { name = \"standard\" }\n\
                    [sweep]\n\"prefetcher.processes\" = [1, 8]\n";
        let g = grid(text).unwrap();
        assert_eq!(g.points.len(), 2);
        let p = &g.points[1].table["prefetcher"];
        assert_eq!(p["name"].as_str(), Some("standard"));
        assert_eq!(p["processes"].as_integer(), Some(8));
        // `terminals.countx` is not inside `terminals.count`.
        let text = "[[sweep.series.s]]\nlabel = \"x\"\n\"a.b\" = 1\n[sweep]\n\"a.bc\" = [1]\n";
        assert_eq!(grid(text).unwrap().points.len(), 1);
    }

    /// Whether every leaf of `want` is in `got` (a later axis may add keys to a table).
    fn holds(got: &toml::Value, want: &toml::Value) -> bool {
        match (got, want) {
            (toml::Value::Table(g), toml::Value::Table(w)) => w
                .iter()
                .all(|(k, v)| g.get(k).is_some_and(|gv| holds(gv, v))),
            _ => got == want,
        }
    }

    const KEYS: [&str; 6] = ["a", "a.b", "a.c", "a.b.d", "x", "x.y"];
    const VALUES: [&str; 6] = [
        "1",
        "2",
        "{ b = 3 }",
        "{ c = 4 }",
        "{ b = { d = 5 } }",
        "{ y = 6 }",
    ];

    /// A sweep over a few overlapping keys: (series: entries of (label, settings)), key
    /// lists, each a key index and value indices.
    type Series = Vec<Vec<(usize, Vec<(usize, usize)>)>>;
    type Lists = Vec<(usize, Vec<usize>)>;

    fn sweep_text(series: &Series, lists: &Lists) -> String {
        let mut text = String::from("seed = 1\n[sweep]\n");
        for (k, vs) in lists {
            let vs: Vec<&str> = vs.iter().map(|&v| VALUES[v]).collect();
            text += &format!("\"{}\" = [{}]\n", KEYS[*k], vs.join(", "));
        }
        for (n, entries) in series.iter().enumerate() {
            for (label, sets) in entries {
                text += &format!("[[sweep.series.s{n}]]\nlabel = \"l{label}\"\n");
                for &(k, v) in sets {
                    text += &format!("\"{}\" = {}\n", KEYS[k], VALUES[v]);
                }
            }
        }
        text
    }

    proptest::proptest! {
        /// Whatever axes a sweep combines, a point either is refused or holds every value
        /// its label names: no setting is silently undone by another.
        #[test]
        fn every_point_holds_the_values_its_label_names(
            series in proptest::collection::vec(
                proptest::collection::vec(
                    (0usize..3, proptest::collection::vec((0usize..6, 0usize..6), 1..3)),
                    1..3,
                ),
                0..3,
            ),
            lists in proptest::collection::vec(
                (0usize..6, proptest::collection::vec(0usize..6, 1..3)),
                0..3,
            ),
        ) {
            let text = sweep_text(&series, &lists);
            // repeated keys in one table or entry are TOML errors, not this test's subject
            let Ok(mut base) = text.parse::<toml::Table>() else { return Ok(()) };
            let Ok(g) = Grid::expand(&mut base, &text, Path::new("s.toml")) else {
                return Ok(());
            };
            for p in &g.points {
                for (axis, (name, value)) in g.axes.iter().zip(&p.values) {
                    proptest::prop_assert_eq!(axis.name(), name.as_str());
                    let i = (0..axis.len()).find(|&i| axis.value(i) == *value).unwrap();
                    let sets: Vec<(String, toml::Value)> = match axis {
                        Axis::Key { key, values } => vec![(key.clone(), values[i].clone())],
                        Axis::Series { entries, .. } => entries[i].sets.clone(),
                    };
                    for (k, v) in sets {
                        let got = get_path(&p.table, &k);
                        proptest::prop_assert!(
                            got.is_some_and(|g| holds(g, &v)),
                            "{text}\npoint {:?}: `{k}` = {v} lost, table {:?}",
                            p.values,
                            p.table
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn axes_need_distinct_names_and_values() {
        let (k, l, m) = err("[sweep]\n\"server.stripe\" = [\"1KiB\", \"2KiB\", \"1KiB\"]\n");
        assert_eq!((k.as_str(), l), ("sweep.server.stripe", Some(2)));
        assert!(m.contains("lists \"1KiB\" twice"), "{m}");
        let text = "[sweep]\n\"seed\" = [1, 2]\n[[sweep.series.seed]]\nlabel = \"x\"\n\"a\" = 1\n";
        let (k, l, m) = err(text);
        assert_eq!((k.as_str(), l), ("sweep.seed", Some(2)));
        assert!(m.contains("a series is named `seed` too"), "{m}");
    }

    #[test]
    fn point_errors_point_at_the_setting() {
        let text = FIG10;
        let g = grid(text).unwrap();
        let p = &g.points[3];
        let e = p.error(
            &g,
            text,
            Path::new("s.toml"),
            "disk.scheduler.classes",
            "bad".into(),
        );
        match e {
            ScenarioError::Invalid {
                line, message, key, ..
            } => {
                assert_eq!(key, "disk.scheduler.classes");
                assert_eq!(line, Some(13));
                assert!(
                    message.starts_with("sweep point (scheduler = \"rt\""),
                    "{message}"
                );
            }
            e => panic!("{e:?}"),
        }
        let e = p.error(&g, text, Path::new("s.toml"), "server.stripe", "bad".into());
        assert!(
            matches!(e, ScenarioError::Invalid { line: Some(5), .. }),
            "{e:?}"
        );
        let e = p.error(&g, text, Path::new("s.toml"), "seed", "bad".into());
        assert!(
            matches!(e, ScenarioError::Invalid { line: Some(1), .. }),
            "{e:?}"
        );
    }
}
