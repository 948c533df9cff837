//! A scenario file's text as a TOML table: reading and parsing it (a syntax error names the
//! file and line), dotted keys set and read in it, and values shown to people.

use crate::scenario::{locate, ScenarioError};
use std::path::Path;

/// Whether scenario text has a top-level table `key` (`sweep`, `broadcast`).
pub fn has_table(text: &str, key: &str) -> bool {
    // a seed above i64::MAX must not hide what kind of file this is (see `parse_table`)
    text.parse::<toml::Table>()
        .or_else(|_| locate::without_large_integers(text).parse::<toml::Table>())
        .map(|t| t.contains_key(key))
        .unwrap_or(false)
}

/// Reads a scenario file's text.
pub fn read_scenario(path: &Path) -> Result<String, ScenarioError> {
    crate::input::read_text(path).map_err(|message| ScenarioError::Io {
        file: path.to_path_buf(),
        message,
    })
}

/// Parses scenario text as TOML; a syntax error names the file and line.
///
/// A sweep or broadcast file is read as a TOML table, whose integers stop at `i64::MAX`; a
/// single scenario file is read straight into its fields and takes any `u64` seed. A larger
/// integer here is an error that says so.
pub fn parse_table(text: &str, path: &Path) -> Result<toml::Table, ScenarioError> {
    text.parse().map_err(|e: toml::de::Error| {
        let too_large = locate::without_large_integers(text)
            .parse::<toml::Table>()
            .is_ok();
        ScenarioError::Syntax {
            file: path.to_path_buf(),
            line: e.span().map(|s| locate::line_of(text, s.start)),
            message: if too_large {
                format!(
                    "{}: a sweep or broadcast file holds integers up to {} (TOML's); a larger \
                     seed can be given to a single scenario file or as `vodbench run --seed`",
                    e.message(),
                    i64::MAX
                )
            } else {
                e.message().to_string()
            },
        }
    })
}

/// A swept value shown to people: strings bare, a plugin table as `name k=v …`.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Table(t) => {
            let mut parts = Vec::new();
            if let Some(n) = t.get("name").and_then(|n| n.as_str()) {
                parts.push(n.to_string());
            }
            for (k, v) in t {
                if k != "name" {
                    parts.push(format!("{k}={}", value_text(v)));
                }
            }
            parts.join(" ")
        }
        other => other.to_string(),
    }
}

/// `key = value, …` naming a point in messages.
pub fn point_label(values: &[(String, toml::Value)]) -> String {
    values
        .iter()
        .map(|(k, v)| format!("{k} = {}", describe(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// Sets dotted `key` in `table`, creating tables on the way.
pub fn set_path(table: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), String> {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().filter(|s| !s.is_empty()).ok_or("empty key")?;
    let mut t = table;
    for p in parts {
        if p.is_empty() {
            return Err("empty key segment".into());
        }
        let entry = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry
            .as_table_mut()
            .ok_or_else(|| format!("`{p}` is not a table"))?;
    }
    t.insert(last.to_string(), value);
    Ok(())
}

/// The value at dotted `key` in `table`, if every table on the way and the value exist.
pub(super) fn get_path<'a>(table: &'a toml::Table, key: &str) -> Option<&'a toml::Value> {
    let mut parts = key.split('.');
    let mut v = table.get(parts.next()?)?;
    for p in parts {
        v = v.as_table()?.get(p)?;
    }
    Some(v)
}
