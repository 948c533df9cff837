//! The tables of a scenario file that choose a plugin — *slots* — and how each slot gets its
//! plugin: the file's table, or else the default the binary registered for that table
//! ([`Registry::set_default`]), so the harness itself names no built-in.
//!
//! Each system lists its slots once (`system::ondemand::scenario::SLOTS`,
//! `system::broadcast::SLOTS`); the JSON Schema's plugin tables, the manifest's `plugins`
//! lines and the columns `vodbench compare` shows are made from those lists.

use super::ScenarioError;
use crate::plugin::{Kind, Origin, PluginError, PluginKind, Registry, Resolved};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A table of a scenario file that chooses a plugin.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The table's dotted key (`disk.scheduler`, `receiver.disk`).
    pub key: &'static str,
    /// The kind of plugin it takes.
    pub kind: Kind,
    /// Manifests and reports record it only when the scenario chooses a plugin there (a
    /// table a scenario may leave out, whose default changes nothing the run measured:
    /// admission that admits everyone, a network without contention).
    pub recorded_when_chosen: bool,
}

impl Slot {
    /// The path of the table, one key per level (`["disk", "scheduler"]`).
    pub fn path(&self) -> Vec<&'static str> {
        self.key.split('.').collect()
    }
}

/// A plugin choice: `name` plus the plugin's own parameters (see `vodbench plugins`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PluginTable {
    /// Registered plugin name.
    pub name: String,
    /// The plugin's parameters.
    #[serde(flatten)]
    #[schemars(with = "std::collections::BTreeMap<String, serde_json::Value>")]
    pub params: toml::Table,
}

impl PluginTable {
    /// A plugin with default parameters.
    pub fn named(name: &str) -> Self {
        PluginTable {
            name: name.into(),
            params: toml::Table::new(),
        }
    }
}

/// A plugin a scenario uses, as its manifest records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    /// The slot's key.
    pub key: &'static str,
    /// Plugin name.
    pub name: &'static str,
    /// Every parameter, defaults filled in.
    pub params: serde_json::Value,
    /// Whether the scenario named the plugin itself (rather than leaving the slot to its
    /// default).
    pub named: bool,
    /// The library it was loaded from (`None`: compiled into the binary).
    pub origin: Option<Arc<Origin>>,
}

impl Chosen {
    /// How the manifest records the plugin `r` chosen at table `key`.
    pub fn of<K: ?Sized>(key: &'static str, r: &Resolved<K>, named: bool) -> Chosen {
        Chosen {
            key,
            name: r.name,
            params: r.params.clone(),
            named,
            origin: r.origin.clone(),
        }
    }
}

/// The table slot `slot` takes: `given` if the file has one, else the registry's default for
/// the slot (an error at the slot's key when there is none).
pub fn table_for(
    registry: &Registry,
    slot: &Slot,
    given: Option<&PluginTable>,
    at: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<PluginTable, ScenarioError> {
    if let Some(t) = given {
        return Ok(t.clone());
    }
    let d = registry.default_choice(slot.key).ok_or_else(|| {
        at(
            slot.key,
            format!(
                "missing: this binary registers no default {} for [{}]; choose one of: {}",
                slot.kind.key(),
                slot.key,
                registry.names_of(slot.kind).join(", ")
            ),
        )
    })?;
    debug_assert_eq!(
        d.kind, slot.kind,
        "default of the wrong kind at {}",
        slot.key
    );
    Ok(PluginTable {
        name: d.name.clone(),
        params: d.params.clone(),
    })
}

/// The plugin of `table` at slot `key` resolved in `registry`; its errors as scenario
/// errors at that key or at the parameter's key below it.
pub fn resolve<K: PluginKind + ?Sized>(
    registry: &Registry,
    key: &str,
    table: &PluginTable,
    at: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<Resolved<K>, ScenarioError> {
    registry
        .resolve::<K>(&table.name, &table.params)
        .map_err(|e| match e {
            PluginError::Unknown { .. } => at(&format!("{key}.name"), e.to_string()),
            PluginError::InvalidParam { path, message } => {
                let full = if path.is_empty() {
                    key.to_string()
                } else {
                    format!("{key}.{path}")
                };
                at(
                    &full,
                    format!("{} `{}`: {message}", K::KIND.key(), table.name),
                )
            }
            PluginError::Build(m) => at(key, m),
        })
}

/// The manifest's `plugins` object: every chosen plugin by slot key, with its parameters
/// (slots [recorded only when chosen](Slot::recorded_when_chosen) left out unless named).
pub fn manifest_lines(slots: &[Slot], chosen: &[Chosen]) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for slot in slots {
        let Some(c) = chosen.iter().find(|c| c.key == slot.key) else {
            continue;
        };
        if slot.recorded_when_chosen && !c.named {
            continue;
        }
        let mut line = serde_json::json!({ "name": c.name, "params": c.params });
        if let Some(o) = &c.origin {
            line["library"] = serde_json::json!({ "path": o.path, "sha256": o.sha256 });
        }
        out.insert(c.key.to_string(), line);
    }
    serde_json::Value::Object(out)
}

/// A resolved plugin's parameters as a TOML table (JSON `null`s, unset options, left out).
pub fn params_table(params: &serde_json::Value) -> toml::Table {
    fn value(v: &serde_json::Value) -> Option<toml::Value> {
        Some(match v {
            serde_json::Value::Null => return None,
            serde_json::Value::Bool(b) => toml::Value::Boolean(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => toml::Value::Integer(i),
                None => toml::Value::Float(n.as_f64()?),
            },
            serde_json::Value::String(s) => toml::Value::String(s.clone()),
            serde_json::Value::Array(a) => toml::Value::Array(a.iter().filter_map(value).collect()),
            serde_json::Value::Object(o) => toml::Value::Table(
                o.iter()
                    .filter_map(|(k, v)| Some((k.clone(), value(v)?)))
                    .collect(),
            ),
        })
    }
    match params {
        serde_json::Value::Object(o) => o
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), value(v)?)))
            .collect(),
        _ => toml::Table::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn manifest_lines_leave_out_defaulted_optional_slots() {
        let slots = [
            Slot {
                key: "disk.scheduler",
                kind: Kind::DiskScheduler,
                recorded_when_chosen: false,
            },
            Slot {
                key: "admission",
                kind: Kind::Admission,
                recorded_when_chosen: true,
            },
        ];
        let chosen = |named| {
            vec![
                Chosen {
                    key: "disk.scheduler",
                    name: "elevator",
                    params: json!({}),
                    named: false,
                    origin: None,
                },
                Chosen {
                    key: "admission",
                    name: "static-limit",
                    params: json!({"max_streams": 3}),
                    named,
                    origin: None,
                },
            ]
        };
        assert_eq!(
            manifest_lines(&slots, &chosen(false)),
            json!({"disk.scheduler": {"name": "elevator", "params": {}}})
        );
        assert_eq!(
            manifest_lines(&slots, &chosen(true))["admission"]["params"]["max_streams"],
            3
        );
    }

    #[test]
    fn params_become_a_table_without_nulls() {
        let t = params_table(&json!({"a": "5us", "b": null, "c": [1, 2.5], "d": true}));
        assert_eq!(
            toml::to_string(&t).unwrap(),
            "a = \"5us\"\nc = [1, 2.5]\nd = true\n"
        );
    }
}
