//! `analytic`: a loaded analytic model ([`AnalyticModel`]; its required calls and how an
//! instance is wrapped: [`ImportKind`]).

use super::{req, string_sink, ImportKind, Instance};
use std::ffi::CString;
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::plugin::*;

struct CModel(Instance);

impl ImportKind for dyn AnalyticModel {
    type Table = VbAnalyticModelVtable;
    fn required(table: &VbAnalyticModelVtable) -> Vec<(&'static str, bool)> {
        vec![("evaluate", table.evaluate.is_some())]
    }
    fn wrap(instance: Instance) -> Box<Self> {
        Box::new(CModel(instance))
    }
}

impl AnalyticModel for CModel {
    fn evaluate(&self, input: &ModelInput) -> Result<Analysis, PluginError> {
        let vt = self.0.vt::<VbAnalyticModelVtable>();
        let json = vodbench_plugin_api::abi::model_input_json(input);
        let text = CString::new(json).map_err(|_| PluginError::Build("NUL in input".into()))?;
        let mut out = Vec::new();
        let mut sink = string_sink(&mut out);
        let mut err = super::super::empty_error();
        let status = unsafe { req(vt.evaluate)(self.0.state, text.as_ptr(), &mut sink, &mut err) };
        if status != VB_OK {
            let (key, message) = super::super::read_error(&err);
            if message.is_empty() {
                // not an input it refuses: a failed call
                self.0.ok("evaluate", status);
            }
            return Err(if key.is_empty() {
                PluginError::Build(message)
            } else {
                PluginError::param(key, message)
            });
        }
        serde_json::from_str(&out.concat()).map_err(|e| {
            self.0.fail(
                "evaluate",
                format!("answered JSON that is not an analysis: {e}"),
            )
        })
    }
}
