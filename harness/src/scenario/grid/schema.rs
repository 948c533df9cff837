//! The JSON schema of a `[sweep]` table (`vodbench schema`).

/// The JSON schema of a `[sweep]` table, for `vodbench schema` (on-demand and broadcast
/// files alike). It states the table's shape: key lists, `[[sweep.series.NAME]]` entries with
/// a `label` (and a scale `factor`), `[[sweep.paper]]` entries of numbers. What depends on the
/// rest of the file (a swept key naming a scenario key, `at` naming an axis and one of its
/// values, keys set twice) is checked by [`Grid::expand`] and `vodbench check`.
pub fn json_schema() -> serde_json::Value {
    serde_json::json!({
        "description": "A grid of runs, one per combination of the axes' values: \
            \"dotted.key\" = [values] key lists, [[sweep.series.NAME]] series that set \
            several keys together, and [[sweep.paper]] published values per point (see \
            docs/scenarios.md, Sweeps).",
        "type": "object",
        "properties": {
            "series": {
                "description": "Series axes: [[sweep.series.NAME]] entries, each a `label` \
                    and the \"dotted.key\" = value pairs it sets; a `factor` on every entry \
                    (one of them 1) makes the series a scaleup axis.",
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {
                            "label": { "type": "string", "minLength": 1 },
                            "factor": { "type": "number", "exclusiveMinimum": 0 }
                        },
                        "required": ["label"]
                    }
                }
            },
            "paper": {
                "description": "Published values: entries with `at = { axis = value, … }` \
                    choosing points (axes left out match every value) and the numbers to \
                    show beside those points' results.",
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "at": { "type": "object" }
                    },
                    "additionalProperties": { "type": "number" }
                }
            }
        },
        "additionalProperties": {
            "description": "A key list: the values one scenario key takes in turn.",
            "type": "array",
            "minItems": 1
        }
    })
}
