//! An on-demand scenario file with a `[sweep]`: every point parsed, validated and resolved as
//! a scenario of its own (SPIFFI §7: each figure is a family of configurations).

use crate::plugin::Registry;
use crate::scenario::error::key_and_message;
use crate::scenario::grid::{value_text, Axis, Grid};
use crate::scenario::Source;
use crate::system::ondemand::scenario::{Scenario, ScenarioError, ScenarioFile};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One point: its axis values and its scenario.
#[derive(Debug, Clone)]
pub struct SweepPoint {
    /// Axis name → value (a series' label), in axis order.
    pub values: Vec<(String, toml::Value)>,
    /// The scenario at this point.
    pub scenario: Scenario,
    /// Its scale factor on the sweep's scaleup series, if any.
    pub factor: Option<f64>,
}

impl SweepPoint {
    /// The point's values as short text, `/`-separated (e.g. `elevator / 512KiB`).
    pub fn label(&self) -> String {
        self.values
            .iter()
            .map(|(_, v)| value_text(v))
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

/// Every point of an on-demand sweep file.
#[derive(Debug, Clone)]
pub struct SweepSuite {
    /// The file.
    pub path: PathBuf,
    /// Scenario name (shared by every point).
    pub name: String,
    /// Axis names, slowest first.
    pub axes: Vec<String>,
    /// Index of the scaleup series among the axes (its entries carry `factor`s), if any.
    pub scale_axis: Option<usize>,
    /// Every scenario key an axis sets at some point, sorted ([`Grid::swept_keys`]).
    pub swept: Vec<String>,
    /// The points, in grid order (the last axis varies fastest).
    pub points: Vec<SweepPoint>,
    /// Whether the file has a `[sweep]` (otherwise its one point is the file itself).
    pub sweep: bool,
}

/// Whether scenario text has a top-level `[sweep]` table.
pub fn has_sweep(text: &str) -> bool {
    crate::scenario::grid::has_table(text, "sweep")
}

impl SweepSuite {
    /// Reads a scenario file and expands its sweep (one point without one).
    pub fn load(path: &Path, registry: &Registry) -> Result<SweepSuite, ScenarioError> {
        Self::from_source(&Source::read(path)?, registry)
    }

    /// Parses scenario text; `path` is used in messages and for relative paths.
    pub fn parse(
        text: &str,
        path: &Path,
        registry: &Registry,
    ) -> Result<SweepSuite, ScenarioError> {
        Self::from_source(&Source::from_text(path, text), registry)
    }

    /// Expands the sweep of a scenario file already read.
    pub fn from_source(
        source: &Arc<Source>,
        registry: &Registry,
    ) -> Result<SweepSuite, ScenarioError> {
        let (text, path) = (source.text(), source.path());
        let mut base = crate::scenario::grid::parse_table(text, path)?;
        let grid = Grid::expand(&mut base, text, path)?;
        let mut points = Vec::with_capacity(grid.points.len());
        for p in &grid.points {
            let at = |key: &str, message: String| p.error(&grid, text, path, key, message);
            let scenario = scenario_of(p.table.clone(), source, registry, &at)?;
            points.push(SweepPoint {
                values: p.values.clone(),
                scenario,
                factor: p.factor,
            });
        }
        check_distinct(&points, source)?;
        if let Some(table) = grid.base_check(&base) {
            let at = |key: &str, message: String| base_value_error(path, text, key, message);
            scenario_of(table, source, registry, &at)?;
        }
        let name = points
            .first()
            .map(|p| p.scenario.name().to_string())
            .unwrap_or_else(|| "scenario".into());
        Ok(SweepSuite {
            path: path.to_path_buf(),
            name,
            axes: grid.axes.iter().map(|a| a.name().to_string()).collect(),
            swept: grid.swept_keys(),
            scale_axis: grid.axes.iter().position(
                |a| matches!(a, Axis::Series { entries, .. } if entries[0].factor.is_some()),
            ),
            points,
            sweep: true,
        })
    }

    /// The suite of a file without a `[sweep]`: its one scenario.
    pub fn single(scenario: Scenario) -> SweepSuite {
        SweepSuite {
            path: scenario.path.clone(),
            name: scenario.name().to_string(),
            axes: Vec::new(),
            scale_axis: None,
            swept: Vec::new(),
            points: vec![SweepPoint {
                values: Vec::new(),
                scenario,
                factor: None,
            }],
            sweep: false,
        }
    }

    /// A folder name for point `i`: its index and a slug of its values.
    pub fn point_dir(&self, i: usize) -> String {
        let slug: String = self.points[i]
            .label()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        let mut s = String::new();
        for part in slug.split('-').filter(|p| !p.is_empty()) {
            if !s.is_empty() {
                s.push('-');
            }
            s.push_str(part);
        }
        format!("{i:03}-{s}")
    }
}

/// Refuses two points of one configuration: values spelled differently that name one
/// setting (`"128KiB"` and `"0.125MiB"`, `"128KiB"` and `131072`) would make the same point
/// twice, as a list naming one value twice would (refused by [`Grid::expand`]).
fn check_distinct(points: &[SweepPoint], source: &Source) -> Result<(), ScenarioError> {
    let mut seen = std::collections::HashMap::new();
    for (i, p) in points.iter().enumerate() {
        let id = serde_json::json!([p.scenario.file, p.factor]).to_string();
        if let Some(j) = seen.insert(id, i) {
            return Err(source.at(
                "sweep",
                format!(
                    "points {j} ({}) and {i} ({}) are the same configuration: their values \
                     name the same setting; each value makes one point",
                    points[j].label(),
                    p.label()
                ),
            ));
        }
    }
    Ok(())
}

/// The scenario of a point's table; errors through `at`.
fn scenario_of(
    table: toml::Table,
    source: &Arc<Source>,
    registry: &Registry,
    at: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<Scenario, ScenarioError> {
    let file: ScenarioFile =
        serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
            let key_path = e.path().to_string();
            let (key, message) = key_and_message(&key_path, &e.into_inner().to_string());
            at(&key, message)
        })?;
    Scenario::from_file(file, source, registry, at)
}

/// The error for a value of the base scenario that every sweep point replaces
/// (`Grid::base_check`), at its line in `text`.
pub(crate) fn base_value_error(
    path: &Path,
    text: &str,
    key: &str,
    message: String,
) -> ScenarioError {
    ScenarioError::at(
        path,
        text,
        key,
        format!("{message} (every sweep point replaces this value, but it must still be valid)"),
    )
}
