//! `[[sweep.paper]]`: published values merged into the `[paper]` table of the points whose
//! axis values `at` selects.

use super::table::{describe, point_label};
use super::Grid;
use crate::scenario::{locate, ScenarioError};

impl Grid {
    pub(super) fn merge_paper(
        &mut self,
        paper: toml::Value,
        text: &str,
        at: &dyn Fn(&str, Option<usize>, String) -> ScenarioError,
    ) -> Result<(), ScenarioError> {
        let list = match paper {
            toml::Value::Array(a) => a,
            _ => {
                return Err(at(
                    "sweep.paper",
                    None,
                    "must be entries `[[sweep.paper]]`, each with `at = { axis = value, … }` \
                     and published numbers"
                        .into(),
                ))
            }
        };
        let starts: Vec<usize> = text.match_indices("[[sweep.paper]]").map(|m| m.0).collect();
        let names: Vec<String> = self.axes.iter().map(|a| a.name().to_string()).collect();
        for (i, e) in list.into_iter().enumerate() {
            let key = format!("sweep.paper.{i}");
            let line = starts.get(i).map(|&p| locate::line_of(text, p));
            let mut t = match e {
                toml::Value::Table(t) => t,
                _ => return Err(at(&key, line, "must be a table".into())),
            };
            let sel = match t.remove("at") {
                Some(toml::Value::Table(s)) => s,
                None => toml::Table::new(),
                Some(_) => {
                    return Err(at(
                        &format!("{key}.at"),
                        line,
                        "must be a table `{ axis = value, … }`".into(),
                    ))
                }
            };
            for (axis, v) in &sel {
                let Some(a) = self.axes.iter().find(|a| a.name() == axis) else {
                    return Err(at(
                        &format!("{key}.at.{axis}"),
                        line,
                        format!(
                            "`{axis}` is not an axis of this sweep; axes: {}",
                            names.join(", ")
                        ),
                    ));
                };
                if !(0..a.len()).any(|j| a.value(j) == *v) {
                    let allowed: Vec<String> =
                        (0..a.len()).map(|j| describe(&a.value(j))).collect();
                    return Err(at(
                        &format!("{key}.at.{axis}"),
                        line,
                        format!(
                            "{} is not a value of axis `{axis}`; its values: {}",
                            describe(v),
                            allowed.join(", ")
                        ),
                    ));
                }
            }
            let mut numbers = Vec::new();
            for (k, v) in t {
                let x = match v {
                    toml::Value::Integer(n) => n as f64,
                    toml::Value::Float(x) => x,
                    _ => {
                        return Err(at(
                            &format!("{key}.{k}"),
                            line,
                            "published values must be numbers".into(),
                        ))
                    }
                };
                numbers.push((k, x));
            }
            let mut matched = 0;
            for p in &mut self.points {
                let hit = sel
                    .iter()
                    .all(|(axis, v)| p.values.iter().any(|(a, pv)| a == axis && pv == v));
                if !hit {
                    continue;
                }
                matched += 1;
                for (k, x) in &numbers {
                    let paper = p
                        .table
                        .entry("paper")
                        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                    let Some(paper) = paper.as_table_mut() else {
                        return Err(at("paper", None, "must be a table of numbers".into()));
                    };
                    if paper.contains_key(k) {
                        return Err(at(
                            &format!("{key}.{k}"),
                            line,
                            format!(
                                "point ({}) already has a published `{k}`",
                                point_label(&p.values)
                            ),
                        ));
                    }
                    paper.insert(k.clone(), toml::Value::Float(*x));
                }
            }
            if matched == 0 {
                return Err(at(&key, line, "`at` matches no point of the sweep".into()));
            }
        }
        Ok(())
    }
}
