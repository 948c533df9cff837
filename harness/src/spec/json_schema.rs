//! `vodbench schema`: the JSON Schema of the scenario format, with every registered plugin's
//! parameters attached to the table that selects it.

use crate::plugin::{
    BroadcastSchedule, BufferPool, ClientBuffer, DiskModel, DiskScheduler, Layout, PluginKind,
    Prefetcher, Registry,
};
use crate::system::ondemand::spec::ScenarioFile;
use serde_json::{json, Value};

fn plugin_choices<K: PluginKind + ?Sized>(registry: &Registry) -> Value {
    let variants: Vec<Value> = registry
        .entries::<K>()
        .iter()
        .map(|e| {
            let mut props = serde_json::Map::new();
            let mut required = vec![json!("name")];
            props.insert("name".into(), json!({ "const": e.name }));
            for p in e.params() {
                let mut schema = match p.schema {
                    Value::Object(m) => Value::Object(m),
                    _ => json!({}),
                };
                schema["description"] = json!(p.description);
                if let Some(d) = p.default {
                    schema["default"] = d;
                }
                if p.required {
                    required.push(json!(p.name));
                }
                props.insert(p.name, schema);
            }
            json!({
                "description": e.description,
                "type": "object",
                "properties": props,
                "required": required,
                "additionalProperties": false
            })
        })
        .collect();
    json!({ "oneOf": variants })
}

/// The scenario JSON Schema.
pub fn scenario_schema(registry: &Registry) -> Value {
    let mut root = serde_json::to_value(schemars::schema_for!(ScenarioFile)).expect("schema");
    let slots: [(&[&str], Value); 5] = [
        (
            &["disk", "model"],
            plugin_choices::<dyn DiskModel>(registry),
        ),
        (
            &["disk", "scheduler"],
            plugin_choices::<dyn DiskScheduler>(registry),
        ),
        (&["buffer_pool"], plugin_choices::<dyn BufferPool>(registry)),
        (&["prefetcher"], plugin_choices::<dyn Prefetcher>(registry)),
        (&["layout"], plugin_choices::<dyn Layout>(registry)),
    ];
    root["properties"]["sweep"] = crate::spec::grid::json_schema();
    for (path, choices) in slots {
        if path.len() == 1 {
            root["properties"][path[0]] = choices;
        } else {
            root["$defs"]["DiskSection"]["properties"][path[1]] = choices;
        }
    }
    root
}

/// The JSON Schema of broadcast scenarios (files with a `[broadcast]` table).
pub fn broadcast_schema(registry: &Registry) -> Value {
    let mut root = serde_json::to_value(schemars::schema_for!(
        crate::system::broadcast::BroadcastFile
    ))
    .expect("schema");
    root["$defs"]["BroadcastSection"]["properties"]["schedule"] =
        plugin_choices::<dyn BroadcastSchedule>(registry);
    root["$defs"]["ReceiverSection"]["properties"]["buffer"] =
        plugin_choices::<dyn ClientBuffer>(registry);
    root["$defs"]["ReceiverSection"]["properties"]["disk"] =
        plugin_choices::<dyn DiskModel>(registry);
    root["properties"]["sweep"] = crate::spec::grid::json_schema();
    root
}
