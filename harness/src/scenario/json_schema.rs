//! `vodbench schema`: the JSON Schema of a system's scenario files, with every registered
//! plugin's parameters attached to each table that selects a plugin of its kind (the system's
//! [slots](super::slots)).

use super::slots::Slot;
use crate::plugin::{Kind, Registry};
use serde_json::{json, Value};

/// One variant per registered plugin of `kind`: its `name` and its parameters, nothing else.
/// `name_optional` leaves `name` out of the default plugin's required keys (a table without
/// `name` configures the default).
fn plugin_choices(registry: &Registry, kind: Kind, optional_name_of: Option<&str>) -> Value {
    let variants: Vec<Value> = registry
        .infos(kind)
        .iter()
        .map(|e| {
            let mut props = serde_json::Map::new();
            let mut required = Vec::new();
            if optional_name_of != Some(e.name) {
                required.push(json!("name"));
            }
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

/// The JSON pointer of the schema of the table at `path` in `root` (a schemars root schema),
/// following each level's `$ref` into `$defs`.
fn pointer_of(root: &Value, path: &[&str]) -> Option<String> {
    let mut at = String::new();
    for (i, seg) in path.iter().enumerate() {
        let prop = format!("{at}/properties/{seg}");
        if i + 1 == path.len() {
            return Some(prop);
        }
        let node = root.pointer(&prop)?;
        let reference = node
            .get("$ref")
            .or_else(|| node.pointer("/allOf/0/$ref"))
            .or_else(|| {
                node.get("anyOf")?
                    .as_array()?
                    .iter()
                    .find_map(|v| v.get("$ref"))
            })?
            .as_str()?;
        at = reference.strip_prefix('#')?.to_string();
    }
    None
}

/// The schema of a file whose structure is `T`, every slot's table replaced by the choice of
/// registered plugins, and the `[sweep]` table's schema. A slot whose default plugin may be
/// configured without naming it ([inline](Slot::inline): the on-demand `[server.network]`)
/// keeps its own keys beside the plugin's (`request_bytes`).
pub fn with_slots(mut root: Value, registry: &Registry, slots: &[Slot]) -> Value {
    for slot in slots {
        let default = registry.default_choice(slot.key).map(|d| d.name.as_str());
        let optional = slot.inline.then_some(default).flatten();
        let mut choices = plugin_choices(registry, slot.kind, optional);
        let Some(ptr) = pointer_of(&root, &slot.path()) else {
            continue;
        };
        if optional.is_some() {
            // the section's own keys (other than the plugin's) stay allowed in every variant
            let own = root
                .pointer(&ptr)
                .and_then(|n| {
                    let r = n.get("$ref")?.as_str()?.strip_prefix('#')?.to_string();
                    root.pointer(&format!("{r}/properties")).cloned()
                })
                .unwrap_or_else(|| json!({}));
            if let (Some(variants), Some(own)) = (choices["oneOf"].as_array_mut(), own.as_object())
            {
                for v in variants {
                    for (k, s) in own {
                        if k != "name" {
                            v["properties"][k] = s.clone();
                        }
                    }
                }
            }
        }
        if let Some(node) = root.pointer_mut(&ptr) {
            *node = choices;
        }
    }
    root["properties"]["sweep"] = super::grid::json_schema();
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_follow_refs_into_defs() {
        let root = json!({
            "properties": {
                "disk": { "$ref": "#/$defs/Disk", "default": {} },
                "layout": { "type": "object" }
            },
            "$defs": { "Disk": { "properties": { "model": {} } } }
        });
        assert_eq!(
            pointer_of(&root, &["disk", "model"]).as_deref(),
            Some("/$defs/Disk/properties/model")
        );
        assert_eq!(
            pointer_of(&root, &["layout"]).as_deref(),
            Some("/properties/layout")
        );
        assert_eq!(pointer_of(&root, &["nope", "x"]), None);
    }
}
