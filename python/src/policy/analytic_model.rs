//! `analytic`: an analytic model written as a Python class, adapted to [`AnalyticModel`]
//! ([`PyKind`]: its methods, its wrap); the input and the analysis cross as JSON.

use super::{Instance, PyKind};
use pyo3::prelude::*;
use vodbench_plugin_api::plugin::*;

struct PyModel(Instance);

impl PyKind for dyn AnalyticModel {
    const REQUIRED: &'static [&'static str] = &["evaluate"];
    const OPTIONAL: &'static [&'static str] = &[];
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(PyModel(instance))
    }
}

impl AnalyticModel for PyModel {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let json = vodbench_plugin_api::abi::model_input_json(input);
        // a dict in (the input's quantities and more), a dict out (values, tables, notes)
        let text: String = self.0.call(
            0,
            "evaluate",
            |py| {
                let input = py.import("json")?.call_method1("loads", (json,))?;
                (input,).into_pyobject(py)
            },
            |o| {
                o.py()
                    .import("json")?
                    .call_method1("dumps", (o,))?
                    .extract()
            },
        );
        serde_json::from_str(&text).map_err(|e| {
            self.0.fail(
                "evaluate",
                format!("answered a dict that is not an analysis: {e}"),
            )
        })
    }
}
