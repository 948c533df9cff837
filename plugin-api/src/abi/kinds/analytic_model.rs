//! The C form of the `[analytic]` kind, mirroring the [`AnalyticModel`] trait: its number
//! `VB_KIND_ANALYTIC_MODEL`, its function table [`VbAnalyticModelVtable`] (one function pointer per
//! call of the trait, over the policy's opaque state), the `#[repr(C)]` types only its calls carry,
//! and its export: [`ExportKind`] for `dyn AnalyticModel`, the `extern "C"` functions through which
//! a Rust policy of the kind is called.

#![allow(missing_docs)] // every item is documented in the header's terms below

use crate::abi::export_kind::{plugin_error, set_error, with_ref, ExportKind};
use crate::abi::types::{VbError, VbStrSink, VB_ERROR, VB_OK};
use crate::intern::intern;
use crate::plugin::*;
use std::ffi::{c_char, c_void, CStr};

/// `VbPolicy::kind` of an analytic model (`[analytic]`).
pub const VB_KIND_ANALYTIC_MODEL: u32 = 11;

/// `[analytic]`: the `AnalyticModel` trait. `input_json` is
/// `{"system": "on-demand", "slot": "analytic", "quantities": {"block_bytes": {"value":
/// 524288.0, "key": "server.stripe"}, ...}}`; the model pushes into `out` the JSON of an
/// `Analysis`: `{"values": {...}, "tables": [{"name", "description", "columns", "rows"}],
/// "notes": [...]}`. An input it cannot take: `VB_ERROR` with `err` naming the key.
#[repr(C)]
pub struct VbAnalyticModelVtable {
    pub evaluate: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            input_json: *const c_char,
            out: *mut VbStrSink,
            err: *mut VbError,
        ) -> i32,
    >,
}

impl ExportKind for dyn AnalyticModel {
    fn vtable() -> *const c_void {
        static V: VbAnalyticModelVtable = VbAnalyticModelVtable {
            evaluate: Some(am_evaluate),
        };
        (&V as *const VbAnalyticModelVtable).cast()
    }
}

/// A model input as it crosses the boundary (JSON): the inverse of [`model_input_json`].
fn model_input(text: &str) -> Result<ModelInput, PluginError> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| PluginError::Build(format!("model input is not JSON: {e}")))?;
    let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("");
    let mut input = ModelInput::new(intern(s("system")), intern(s("slot")));
    if let Some(q) = v.get("quantities").and_then(|q| q.as_object()) {
        for (name, q) in q {
            let value = q.get("value").and_then(|x| x.as_f64()).unwrap_or(f64::NAN);
            let key = q.get("key").and_then(|x| x.as_str()).unwrap_or("");
            input.set(intern(name), value, intern(key));
        }
    }
    Ok(input)
}

/// A model input as JSON, as it crosses the boundary: `{"system", "slot", "quantities":
/// {name: {"value", "key"}}}`.
pub fn model_input_json(input: &ModelInput) -> String {
    let q: serde_json::Map<String, serde_json::Value> = input
        .quantities()
        .map(|(n, q)| {
            (
                n.to_string(),
                serde_json::json!({"value": q.value, "key": q.key}),
            )
        })
        .collect();
    serde_json::json!({"system": input.system(), "slot": input.slot(), "quantities": q}).to_string()
}

unsafe extern "C" fn am_evaluate(
    s: *mut c_void,
    input: *const c_char,
    out: *mut VbStrSink,
    err: *mut VbError,
) -> i32 {
    let text = if input.is_null() {
        ""
    } else {
        CStr::from_ptr(input).to_str().unwrap_or("")
    };
    let mut result = Err(PluginError::Build("not evaluated".into()));
    let status = with_ref::<dyn AnalyticModel>(s, |m| {
        result = model_input(text).and_then(|i| m.evaluate(&i));
    });
    if status != VB_OK {
        return status;
    }
    match result {
        Ok(a) => {
            let json = serde_json::to_string(&a).unwrap_or_default();
            ((*out).push)((*out).ctx, json.as_ptr().cast(), json.len());
            VB_OK
        }
        Err(e) => {
            let (k, m) = plugin_error(&e);
            set_error(err, &k, &m);
            VB_ERROR
        }
    }
}
