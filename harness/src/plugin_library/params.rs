//! A loaded policy's parameters: the scenario's table checked against the JSON Schema the
//! library exports, then by the library itself when it offers a check, and given back with
//! defaults filled in (what manifests record and `create` receives).

use vodbench_plugin_api::plugin::PluginError;

/// A policy's compiled parameter schema.
pub struct ParamSchema {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
    /// The schema as exported (for listings and defaults).
    pub value: serde_json::Value,
}

impl std::fmt::Debug for ParamSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ParamSchema({})", self.value)
    }
}

impl ParamSchema {
    /// Compiles the schema a library exports (`None`: it takes no parameters, so any key is
    /// refused).
    pub fn compile(text: Option<&str>) -> Result<ParamSchema, String> {
        let value: serde_json::Value = match text {
            None => serde_json::json!({"type": "object", "additionalProperties": false}),
            Some(t) => serde_json::from_str(t)
                .map_err(|e| format!("its parameter schema is not JSON: {e}"))?,
        };
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        let loc = "https://vodbench.invalid/plugin-params.schema.json";
        compiler
            .add_resource(loc, value.clone())
            .map_err(|e| format!("its parameter schema is not usable: {e}"))?;
        let index = compiler
            .compile(loc, &mut schemas)
            .map_err(|e| format!("its parameter schema is not a valid JSON Schema: {e}"))?;
        Ok(ParamSchema {
            schemas,
            index,
            value,
        })
    }

    /// Checks `params` against the schema: the first error at its dotted key.
    pub fn validate(&self, params: &serde_json::Value) -> Result<(), PluginError> {
        let Err(e) = self.schemas.validate(params, self.index) else {
            return Ok(());
        };
        // the deepest first cause says most precisely what is wrong
        let mut leaf = &e;
        while let Some(c) = leaf.causes.first() {
            leaf = c;
        }
        let mut path: Vec<String> = leaf
            .instance_location
            .tokens
            .iter()
            .map(|t| match t {
                boon::InstanceToken::Prop(p) => p.to_string(),
                boon::InstanceToken::Item(i) => format!("[{i}]"),
            })
            .collect();
        let allowed = self.allowed(&path);
        // an unknown key is named at its own key (and so its own line), as a built-in's is
        if let boon::ErrorKind::AdditionalProperties { got } = &leaf.kind {
            if let Some(first) = got.first() {
                path.push(first.to_string());
            }
        }
        let key = path.join(".").replace(".[", "[");
        Err(PluginError::param(
            key,
            format!("{}{allowed}", leaf.kind).trim_end().to_string(),
        ))
    }

    /// What the schema allows at a top-level key, for messages (`; allowed: a, b`).
    fn allowed(&self, path: &[String]) -> String {
        let props = self.value.get("properties").and_then(|p| p.as_object());
        match (path.first(), props) {
            (None, Some(p)) => {
                let keys: Vec<&str> = p.keys().map(String::as_str).collect();
                if keys.is_empty() {
                    "; it takes no parameters".into()
                } else {
                    format!("; its parameters: {}", keys.join(", "))
                }
            }
            (None, None) => "; it takes no parameters".into(),
            _ => String::new(),
        }
    }

    /// `params` with every top-level property the schema gives a `default` for and the
    /// table leaves out.
    pub fn with_defaults(&self, mut params: serde_json::Value) -> serde_json::Value {
        if let (Some(o), Some(props)) = (
            params.as_object_mut(),
            self.value.get("properties").and_then(|p| p.as_object()),
        ) {
            for (k, p) in props {
                if let (false, Some(d)) = (o.contains_key(k), p.get("default")) {
                    o.insert(k.clone(), d.clone());
                }
            }
        }
        params
    }
}

/// A scenario's plugin table (without `name`) as JSON.
pub fn table_json(table: &toml::Table) -> Result<serde_json::Value, PluginError> {
    serde_json::to_value(table).map_err(|e| PluginError::Build(format!("parameters: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> ParamSchema {
        ParamSchema::compile(Some(
            r#"{"type": "object", "additionalProperties": false,
                "properties": {"depth": {"type": "integer", "minimum": 1, "default": 4},
                               "mode": {"enum": ["a", "b"]}}}"#,
        ))
        .unwrap()
    }

    #[test]
    fn errors_name_the_key_and_what_is_wrong() {
        let s = schema();
        assert!(s.validate(&json!({"depth": 2, "mode": "a"})).is_ok());
        let e = s.validate(&json!({"depth": 0})).unwrap_err();
        assert_eq!(e.key_in("disk.scheduler"), "disk.scheduler.depth", "{e}");
        assert!(e.to_string().contains(">=1, but got 0"), "{e}");
        let e = s.validate(&json!({"deep": 1})).unwrap_err();
        assert!(e.to_string().contains("deep"), "{e}");
        assert!(e.to_string().contains("its parameters: depth, mode"), "{e}");
    }

    #[test]
    fn defaults_fill_what_is_left_out() {
        let s = schema();
        assert_eq!(s.with_defaults(json!({})), json!({"depth": 4}));
        assert_eq!(s.with_defaults(json!({"depth": 9})), json!({"depth": 9}));
    }

    #[test]
    fn no_schema_takes_no_parameters() {
        let s = ParamSchema::compile(None).unwrap();
        assert!(s.validate(&json!({})).is_ok());
        let e = s.validate(&json!({"x": 1})).unwrap_err();
        assert!(e.to_string().contains("takes no parameters"), "{e}");
    }
}
