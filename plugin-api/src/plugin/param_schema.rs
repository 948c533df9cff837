//! A plugin parameter's JSON schema, taken out of its params type's schema, and the short
//! name of the values it allows, as `vodbench plugins` lists them.
//!
//! A params type's schema (from `schemars`) describes each field as a property that may
//! point, through `$ref`, into the schema's `$defs`: `Option<Bytes>` is
//! `{"anyOf": [{"$ref": "#/$defs/Bytes"}, {"type": "null"}]}`. [`inline_refs`] replaces every
//! such reference by the definition it names, so the property can stand in another schema
//! (`vodbench schema` attaches it to the table that selects the plugin). [`type_name`] names
//! the values: a named unit type by its own description up to the first `:` ("a size", "a
//! duration"), alternatives joined with ` | ` (literals) or ` or `.

use serde_json::{Map, Value};

/// Deepest chain of `$ref`s [`inline_refs`] follows; beyond it (a recursive type) the
/// reference is replaced by the empty schema, which allows any value.
const MAX_DEPTH: u32 = 16;

/// The definition a `"#/$defs/NAME"` reference names, if `defs` has it.
fn resolve<'a>(schema: &Value, defs: Option<&'a Value>) -> Option<&'a Value> {
    let name = schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
    defs?.get(name)
}

/// `schema` with every `$ref` into `defs` replaced by the definition it names. Keys beside a
/// `$ref` (a field's own `description` or `default`) override the definition's.
pub fn inline_refs(schema: &Value, defs: Option<&Value>) -> Value {
    inline(schema, defs, 0)
}

fn inline(schema: &Value, defs: Option<&Value>, depth: u32) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            if map.contains_key("$ref") {
                if let Some(Value::Object(def)) = resolve(schema, defs) {
                    if depth < MAX_DEPTH {
                        if let Value::Object(d) =
                            inline(&Value::Object(def.clone()), defs, depth + 1)
                        {
                            out = d;
                        }
                    }
                }
            }
            for (k, v) in map {
                if k != "$ref" {
                    out.insert(k.clone(), inline(v, defs, depth));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline(v, defs, depth)).collect()),
        other => other.clone(),
    }
}

/// The short name of the values `schema` allows, for `vodbench plugins`: `integer`,
/// `number or null`, `"any" | "referenced"`, `a size`, `a size or null`.
///
/// ```
/// use serde_json::json;
/// use vodbench_plugin_api::plugin::param_schema::type_name;
/// let defs = json!({ "Bytes": { "description": "a size: a byte count or a string", "anyOf": [] } });
/// let optional_size = json!({ "anyOf": [{ "$ref": "#/$defs/Bytes" }, { "type": "null" }] });
/// assert_eq!(type_name(&optional_size, Some(&defs)), "a size or null");
/// assert_eq!(type_name(&json!({ "enum": ["a", "b"] }), None), "\"a\" | \"b\"");
/// ```
pub fn type_name(schema: &Value, defs: Option<&Value>) -> String {
    name_of(schema, defs, 0)
}

/// Whether `schema` allows only listed values (`const`, `enum`, or alternatives of those).
fn literals_only(schema: &Value) -> bool {
    let literal = |m: &Value| m.get("const").is_some() || m.get("enum").is_some();
    literal(schema)
        || schema
            .get("oneOf")
            .or_else(|| schema.get("anyOf"))
            .and_then(Value::as_array)
            .is_some_and(|m| !m.is_empty() && m.iter().all(literal))
}

fn name_of(schema: &Value, defs: Option<&Value>, depth: u32) -> String {
    if let Some(def) = resolve(schema, defs) {
        // a set of literals is named by them, whatever its doc comment says
        if !literals_only(def) {
            if let Some(d) = def.get("description").and_then(Value::as_str) {
                return d.split(':').next().unwrap_or(d).trim().to_string();
            }
        }
        if depth < MAX_DEPTH {
            return name_of(def, defs, depth + 1);
        }
        return "value".into();
    }
    if let Some(c) = schema.get("const") {
        return c.to_string();
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        return e
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    let members = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array);
    if let Some(members) = members {
        let literal = |m: &Value| m.get("const").is_some() || m.get("enum").is_some();
        let (literals, others): (Vec<&Value>, Vec<&Value>) =
            members.iter().partition(|m| literal(m));
        let mut names: Vec<String> = Vec::new();
        if !literals.is_empty() {
            names.push(
                literals
                    .iter()
                    .map(|m| name_of(m, defs, depth))
                    .collect::<Vec<_>>()
                    .join(" | "),
            );
        }
        for m in others {
            let n = name_of(m, defs, depth + 1);
            if !names.contains(&n) {
                names.push(n);
            }
        }
        if !names.is_empty() {
            return names.join(" or ");
        }
    }
    match schema.get("type") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defs() -> Value {
        json!({
            "Bytes": {
                "description": "a size: a byte count or a string like \"512KiB\"",
                "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "string" }]
            },
            "Portion": {
                "description": "a count (integer) or a percentage string like \"2.5%\"",
                "oneOf": [{ "type": "integer" }, { "type": "string", "pattern": "%$" }]
            },
            "Victims": {
                "description": "Which pages a prefetch may evict.",
                "oneOf": [
                    { "const": "any", "description": "every page" },
                    { "const": "referenced", "description": "referenced pages" }
                ]
            },
            "Rotation": {
                "description": "How rotational latency is computed.",
                "type": "string",
                "enum": ["position", "uniform"]
            },
            "Loop": { "$ref": "#/$defs/Loop" }
        })
    }

    #[test]
    fn names_of_the_shapes_schemars_gives_plugin_parameters() {
        let d = defs();
        let name = |s: Value| type_name(&s, Some(&d));
        assert_eq!(
            name(json!({ "type": "integer", "format": "uint32" })),
            "integer"
        );
        assert_eq!(
            name(json!({ "type": ["number", "null"] })),
            "number or null"
        );
        assert_eq!(
            name(json!({ "$ref": "#/$defs/Bytes", "description": "Field doc: x" })),
            "a size"
        );
        assert_eq!(
            name(json!({
                "anyOf": [{ "$ref": "#/$defs/Bytes" }, { "type": "null" }],
                "description": "Capacity (default from the preset: 5GiB)."
            })),
            "a size or null"
        );
        assert_eq!(
            name(
                json!({ "$ref": "#/$defs/Portion", "description": "Frames per batch, κ: a count" })
            ),
            "a count (integer) or a percentage string like \"2.5%\""
        );
        assert_eq!(
            name(json!({ "$ref": "#/$defs/Victims" })),
            "\"any\" | \"referenced\""
        );
        assert_eq!(
            name(json!({ "anyOf": [{ "$ref": "#/$defs/Victims" }, { "type": "null" }] })),
            "\"any\" | \"referenced\" or null"
        );
        assert_eq!(
            name(json!({ "enum": ["position", "uniform"] })),
            "\"position\" | \"uniform\""
        );
        assert_eq!(name(json!({ "$ref": "#/$defs/Loop" })), "value");
        assert_eq!(name(json!({})), "value");
    }

    #[test]
    fn inlining_replaces_references_and_keeps_the_fields_own_keys() {
        let d = defs();
        let field = json!({
            "anyOf": [{ "$ref": "#/$defs/Bytes" }, { "type": "null" }],
            "description": "Capacity.",
            "default": null
        });
        let inlined = inline_refs(&field, Some(&d));
        assert_eq!(inlined["description"], "Capacity.");
        assert_eq!(inlined["anyOf"][0]["anyOf"][0]["type"], "integer");
        assert_eq!(inlined["anyOf"][1]["type"], "null");
        assert!(!inlined.to_string().contains("$ref"), "{inlined}");
        // the field's description wins over the definition's
        let direct = inline_refs(
            &json!({ "$ref": "#/$defs/Bytes", "description": "Stripe." }),
            Some(&d),
        );
        assert_eq!(direct["description"], "Stripe.");
        assert_eq!(direct["anyOf"][1]["type"], "string");
        // a reference to itself ends in the empty schema instead of recursing forever
        let looped = inline_refs(&json!({ "$ref": "#/$defs/Loop" }), Some(&d));
        assert!(!looped.to_string().contains("$ref"), "{looped}");
        // an unknown reference is dropped (any value), not kept dangling
        assert_eq!(
            inline_refs(&json!({ "$ref": "#/$defs/Nope" }), Some(&d)),
            json!({})
        );
    }
}
