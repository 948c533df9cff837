//! JSON export: one `export.json` with the manifest, the summary and every table as an array
//! of row objects (`{"disk": 0, "utilization_ratio": 0.9, …}`).

use crate::folder::RunFolder;
use polars::prelude::*;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use vodbench_harness::output::to_json;

fn cell(c: &Column, i: usize) -> Value {
    match c.get(i) {
        Ok(AnyValue::Null) | Err(_) => Value::Null,
        Ok(AnyValue::Boolean(b)) => Value::Bool(b),
        Ok(AnyValue::String(s)) => Value::String(s.to_string()),
        Ok(AnyValue::StringOwned(s)) => Value::String(s.to_string()),
        Ok(AnyValue::Int64(x)) => Value::from(x),
        Ok(AnyValue::Int32(x)) => Value::from(x),
        Ok(AnyValue::UInt64(x)) => Value::from(x),
        Ok(AnyValue::UInt32(x)) => Value::from(x),
        Ok(AnyValue::Float64(x)) => {
            serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
        }
        Ok(AnyValue::Float32(x)) => {
            serde_json::Number::from_f64(f64::from(x)).map_or(Value::Null, Value::Number)
        }
        Ok(other) => Value::String(other.to_string()),
    }
}

/// The rows of `df` as JSON objects, columns in order.
pub fn rows(df: &DataFrame) -> Vec<Value> {
    let cols = df.columns();
    (0..df.height())
        .map(|i| {
            let mut row = Map::new();
            for c in cols {
                row.insert(c.name().to_string(), cell(c, i));
            }
            Value::Object(row)
        })
        .collect()
}

/// Writes `export.json` for `folder` into `out`.
pub fn write(folder: &RunFolder, out: &Path) -> Result<Vec<PathBuf>, String> {
    let tables: Map<String, Value> = folder
        .tables
        .iter()
        .map(|(k, df)| (k.clone(), Value::Array(rows(df))))
        .collect();
    let doc = serde_json::json!({
        "manifest": folder.manifest,
        "summary": folder.summary,
        "tables": tables,
    });
    let path = out.join("export.json");
    std::fs::write(&path, to_json(&doc)).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(vec![path])
}
