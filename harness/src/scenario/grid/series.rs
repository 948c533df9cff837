//! A series axis, `[[sweep.series.NAME]]`: entries that set several keys together, each with
//! a `label`, and a scale `factor` on every entry of a scaleup axis (SPIFFI §7.6, Table 2).

use super::lines::{entry_line, key_line_in_entry};
use super::{sweepable, Axis, Grid, SeriesEntry};
use crate::scenario::{locate, ScenarioError};

impl Grid {
    pub(super) fn series_axis(
        name: &str,
        v: toml::Value,
        text: &str,
        at: &dyn Fn(&str, Option<usize>, String) -> ScenarioError,
    ) -> Result<Axis, ScenarioError> {
        let key = format!("sweep.series.{name}");
        let line = text
            .find(&format!("[[{key}]]"))
            .map(|p| locate::line_of(text, p));
        let list = match v {
            toml::Value::Array(a) if !a.is_empty() => a,
            _ => {
                return Err(at(
                    &key,
                    line,
                    format!(
                        "must be a list of entries `[[{key}]]`, each with a `label` and the \
                         keys it sets"
                    ),
                ))
            }
        };
        let mut entries: Vec<SeriesEntry> = Vec::new();
        for (i, e) in list.into_iter().enumerate() {
            let eline = entry_line(text, name, i);
            let mut t = match e {
                toml::Value::Table(t) => t,
                _ => {
                    return Err(at(
                        &format!("{key}.{i}"),
                        eline,
                        "must be a table with a `label` and the keys it sets".into(),
                    ))
                }
            };
            let label = match t.remove("label") {
                Some(toml::Value::String(s)) if !s.is_empty() => s,
                _ => {
                    return Err(at(
                        &format!("{key}.{i}.label"),
                        eline,
                        "every series entry needs a non-empty `label` string".into(),
                    ))
                }
            };
            if entries.iter().any(|x| x.label == label) {
                return Err(at(
                    &format!("{key}.{i}.label"),
                    eline,
                    format!("label {label:?} is used twice in this series"),
                ));
            }
            let factor = match t.remove("factor") {
                None => None,
                Some(toml::Value::Integer(n)) if n > 0 => Some(n as f64),
                Some(toml::Value::Float(x)) if x > 0.0 && x.is_finite() => Some(x),
                Some(_) => {
                    return Err(at(
                        &format!("{key}.{i}.factor"),
                        key_line_in_entry(text, name, i, "factor").or(eline),
                        "a scale factor must be a number above 0".into(),
                    ))
                }
            };
            let mut sets = Vec::new();
            for (k, v) in t {
                if !sweepable(&k) {
                    return Err(at(
                        &format!("{key}.{i}.{k}"),
                        key_line_in_entry(text, name, i, &k).or(eline),
                        format!("`{k}` is not a key that can be swept"),
                    ));
                }
                sets.push((k, v));
            }
            entries.push(SeriesEntry {
                label,
                sets,
                factor,
            });
        }
        let with = entries.iter().filter(|e| e.factor.is_some()).count();
        if with != 0 && (with != entries.len() || !entries.iter().any(|e| e.factor == Some(1.0))) {
            return Err(at(
                &key,
                line,
                "a scaleup series gives every entry a `factor`, one of them 1 (the base)".into(),
            ));
        }
        Ok(Axis::Series {
            name: name.to_string(),
            entries,
        })
    }
}
