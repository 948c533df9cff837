//! `vodbench._native`: the Python package's native half. It runs vodbench's own commands
//! in-process (`vodbench_harness::cli::run_args`, the very code of the `vodbench` binary, so
//! output folders are byte-identical) and registers Python classes as policies
//! ([`policy`]). The Python half (`python/vodbench/`) builds the command lines and reads
//! the folders.

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use vodbench_harness::cli::{run_args, ArgsError};
use vodbench_harness::interrupt::StopToken;
use vodbench_harness::plugin::{Origin, Registry};

mod policy;
mod types;

/// The Python policies registered so far, in registration order.
static POLICIES: Mutex<Vec<Arc<policy::PyPolicy>>> = Mutex::new(Vec::new());

/// The built-ins and every registered Python policy.
fn registry() -> Result<Registry, String> {
    let mut r = vodbench_plugins::registry();
    let policies = POLICIES.lock().unwrap_or_else(|e| e.into_inner());
    for p in policies.iter() {
        policy::register(&mut r, Arc::clone(p)).map_err(|e| e.to_string())?;
    }
    Ok(r)
}

/// Registers a Python class as a policy of `kind`; registering the same class (same source
/// file and class name) under the same policy name again replaces it (a notebook cell run
/// twice). Anything else keeps the earlier policies: a factory making several policies of
/// one class, or one class under two names, registers them all; a name taken by another
/// class (or a built-in) is refused.
#[pyfunction]
#[pyo3(signature = (kind, name, cls, description, schema, source, sha256))]
#[allow(clippy::too_many_arguments)]
fn register(
    py: Python<'_>,
    kind: &str,
    name: &str,
    cls: Py<PyAny>,
    description: &str,
    schema: Option<&str>,
    source: &str,
    sha256: &str,
) -> PyResult<()> {
    let kind = match policy::kind_named(kind) {
        Some(k) if k.abi_id().is_some() => k,
        Some(k) => {
            return Err(plugin_error(
                py,
                format!(
                    "plugin kind `{kind}` is not exported in this vodbench: Rust crates \
                     implement {} policies, Python classes and C libraries cannot yet",
                    k.key()
                ),
            ))
        }
        None => {
            return Err(plugin_error(
                py,
                format!(
                    "unknown plugin kind `{kind}`; the kinds: {}",
                    kind_names().join(", ")
                ),
            ))
        }
    };
    let origin = Origin {
        path: source.to_string(),
        sha256: sha256.to_string(),
    };
    let p = policy::PyPolicy::new(py, kind, name, cls, description, schema, origin)
        .map_err(|m| plugin_error(py, format!("{source}: {m}")))?;
    let mut policies = POLICIES.lock().unwrap_or_else(|e| e.into_inner());
    let mut next: Vec<Arc<policy::PyPolicy>> = policies
        .iter()
        .filter(|q| !(q.kind == p.kind && q.name == p.name && q.origin.path == p.origin.path))
        .cloned()
        .collect();
    next.push(Arc::new(p));
    // refused when the name is taken (a built-in, another class)
    let mut check = vodbench_plugins::registry();
    for q in &next {
        policy::register(&mut check, Arc::clone(q)).map_err(|e| plugin_error(py, e.to_string()))?;
    }
    *policies = next;
    Ok(())
}

/// Forgets every registered Python policy (tests).
#[pyfunction]
fn clear_policies() {
    POLICIES.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// The names of the registered Python policies: (kind key, name).
#[pyfunction]
fn policies() -> Vec<(String, String)> {
    POLICIES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|p| (p.kind.key().to_string(), p.name.to_string()))
        .collect()
}

fn errors(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import("vodbench.errors")
}

fn plugin_error(py: Python<'_>, message: String) -> PyErr {
    typed_error(py, "PluginError", (message,))
}

fn typed_error<A>(py: Python<'_>, class: &str, args: A) -> PyErr
where
    A: for<'py> IntoPyObject<'py, Target = pyo3::types::PyTuple>,
{
    let made = errors(py).and_then(|m| {
        let args = pyo3::BoundObject::into_bound(args.into_pyobject(py).map_err(Into::into)?);
        m.getattr(class)?.call1(args)
    });
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// `error` as the matching `vodbench` exception.
fn to_py(py: Python<'_>, error: ArgsError) -> PyErr {
    use vodbench_harness::scenario::ScenarioError as S;
    match error {
        ArgsError::Scenario(e) => {
            let message = e.to_string();
            let mut inner = &e;
            while let S::Point { error, .. } = inner {
                inner = error;
            }
            let (file, line, key) = match inner {
                S::Io { file, .. } => (Some(file.display().to_string()), None, None),
                S::Syntax { file, line, .. } => (Some(file.display().to_string()), *line, None),
                S::Invalid {
                    file, line, key, ..
                } => (Some(file.display().to_string()), *line, Some(key.clone())),
                _ => (None, None, None),
            };
            typed_error(py, "ScenarioError", (message, file, line, key))
        }
        ArgsError::Plugin(f) => typed_error(
            py,
            "PluginError",
            (
                python_class_named(&f.library, f.to_string()),
                f.policy.clone(),
                f.call.to_string(),
                f.library.clone(),
                f.message.clone(),
            ),
        ),
        ArgsError::Interrupted => PyKeyboardInterrupt::new_err("vodbench: interrupted"),
        ArgsError::Breach {
            message,
            breach,
            input,
        } => match breach.source.clone() {
            // a loaded policy's (a library's, a Python class's), in any run; the message
            // names its source, a Python class as such
            Some(source) => {
                let message = python_class_named(&source, message);
                typed_error(
                    py,
                    "PluginError",
                    (
                        message,
                        breach.policy(),
                        None::<String>,
                        Some(source),
                        breach.detail,
                    ),
                )
            }
            // a built-in's (a bug in vodbench): as the command line reports it
            None if input => typed_error(py, "InputError", (message,)),
            None => typed_error(py, "RunError", (message,)),
        },
        ArgsError::Input(m) => typed_error(py, "InputError", (m,)),
        ArgsError::Failure(m) => typed_error(py, "RunError", (m,)),
    }
}

/// Whether `source` is a registered Python class's `file#Class` (not a library's path).
fn is_python_class(source: &str) -> bool {
    POLICIES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .any(|p| p.origin.path == source)
}

/// `message` with a Python class's `file#Class` (`source`) named as such, not as a "plugin
/// library" (the harness's wording for every loaded policy).
fn python_class_named(source: &str, message: String) -> String {
    if is_python_class(source) {
        message.replacen(
            &format!("plugin library {source}"),
            &format!("Python class {source}"),
            1,
        )
    } else {
        message
    }
}

/// The note added to Ctrl-C's `KeyboardInterrupt` (or a callback's exception) when the
/// command had finished all the same (python/README.md, "Errors are exceptions").
const FINISHED_NOTE: &str =
    "vodbench: the command had finished before it could stop: its output was written";

/// Runs the command `args` (`["run", "zipf1.toml", "--out", "o"]`) in-process with the
/// built-ins, the registered Python policies and the libraries its `--plugin` flags name.
///
/// The command runs on a thread of its own without the GIL (a Python policy takes it for
/// each of its calls); this thread waits, checking for signals every 50 ms: Ctrl-C stops
/// the command at its next check and raises `KeyboardInterrupt`. The stop belongs to this
/// call (a [`StopToken`] of its own): commands run at once from other Python threads go on.
///
/// `poll`, when given, is called on this thread between waits (for progress); an exception
/// it raises stops the command as Ctrl-C does and is raised again.
#[pyfunction]
#[pyo3(signature = (args, poll = None))]
fn run_command(py: Python<'_>, args: Vec<String>, poll: Option<Py<PyAny>>) -> PyResult<()> {
    let registry = registry().map_err(|m| plugin_error(py, m))?;
    // this command's own stop: commands run at once from other Python threads have theirs
    let stop = StopToken::new();
    let (tx, rx) = mpsc::channel();
    // a Receiver is not Sync: lent to the GIL-free waits behind a lock
    let rx = Mutex::new(rx);
    let worker_stop = stop.clone();
    let worker = std::thread::Builder::new()
        .name("vodbench".into())
        .spawn(move || {
            let outputs = vodbench_reports::outputs();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                worker_stop.install(|| run_args(&registry, &outputs, &args))
            }));
            let _ = tx.send(r.map_err(|p| {
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic".into())
            }));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut interrupted = None;
    let outcome = loop {
        match py.allow_threads(|| {
            rx.lock()
                .unwrap_or_else(|e| e.into_inner())
                .recv_timeout(Duration::from_millis(50))
        }) {
            Ok(r) => break r,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if interrupted.is_none() {
                    let polled = match &poll {
                        Some(f) => f.call0(py).map(|_| ()),
                        None => Ok(()),
                    };
                    if let Err(e) = py.check_signals().and(polled) {
                        stop.request();
                        interrupted = Some(e);
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err("the command's thread ended without an answer".into())
            }
        }
    };
    let _ = py.allow_threads(|| worker.join());
    if let Some(e) = interrupted {
        if matches!(outcome, Ok(Ok(()))) {
            // the command finished before it reached a check: its output is written, and
            // the exception says so (a caller must not take it for "nothing written")
            let _ = e.value(py).call_method1("add_note", (FINISHED_NOTE,));
        }
        return Err(e);
    }
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(to_py(py, e)),
        Err(panic) => Err(PyRuntimeError::new_err(format!(
            "vodbench failed inside (please report this): {panic}"
        ))),
    }
}

/// The points of the on-demand sweep file `path` (with the libraries `plugins` loaded, as
/// `vodbench sweep --plugin` loads them), as JSON: `[{"index", "label", "values"}, ...]` in
/// grid order, `index`, `label` and `values` as `sweep.json` gives them.
#[pyfunction]
fn sweep_points(py: Python<'_>, path: &str, plugins: Vec<String>) -> PyResult<String> {
    use vodbench_harness::system::ondemand::outputs::values_json;
    use vodbench_harness::system::ondemand::scenario::suite::SweepSuite;
    let mut r = registry().map_err(|m| plugin_error(py, m))?;
    for p in &plugins {
        vodbench_harness::plugin_library::load(&mut r, std::path::Path::new(p))
            .map_err(|e| typed_error(py, "InputError", (e.to_string(),)))?;
    }
    let suite = SweepSuite::load(std::path::Path::new(path), &r)
        .map_err(|e| to_py(py, ArgsError::Scenario(e)))?;
    let list: Vec<serde_json::Value> = suite
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            serde_json::json!({
                "index": i,
                "label": p.label(),
                "values": values_json(&p.values),
            })
        })
        .collect();
    serde_json::to_string(&list).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The JSON listing of `vodbench plugins` for the current registry.
#[pyfunction]
fn plugins_json(py: Python<'_>) -> PyResult<String> {
    let r = registry().map_err(|m| plugin_error(py, m))?;
    let list: Vec<serde_json::Value> = r
        .listing()
        .into_iter()
        .map(|(kind, name, description, params)| {
            serde_json::json!({
                "kind": kind.key(),
                "name": name,
                "description": description,
                "params": params,
            })
        })
        .collect();
    serde_json::to_string(&list).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Every kind a Python class can implement (the exported kinds), as `vodbench.plugin` takes
/// it (`disk-scheduler`), in the kinds table's order: the package's `KINDS`.
fn kind_names() -> Vec<String> {
    vodbench_harness::plugin::Kind::EXPORTED
        .iter()
        .map(|k| k.key().replace(['.', '_'], "-"))
        .collect()
}

/// Each kind's methods as a Python class has them, in the kinds table's order: (the kind as
/// `KINDS` names it, its trait's name — its `Protocol` in `vodbench/__init__.pyi` —, the
/// required methods, the optional ones).
#[pyfunction]
fn kind_methods() -> Vec<(String, &'static str, Vec<&'static str>, Vec<&'static str>)> {
    vodbench_harness::plugin::Kind::EXPORTED
        .iter()
        .zip(kind_names())
        .map(|(&k, name)| {
            let (required, optional) = policy::methods(k);
            (name, k.trait_name(), required.to_vec(), optional.to_vec())
        })
        .collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("KINDS", pyo3::types::PyTuple::new(m.py(), kind_names())?)?;
    m.add_function(wrap_pyfunction!(register, m)?)?;
    m.add_function(wrap_pyfunction!(clear_policies, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(run_command, m)?)?;
    m.add_function(wrap_pyfunction!(plugins_json, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_points, m)?)?;
    m.add_function(wrap_pyfunction!(kind_methods, m)?)?;
    types::add_all(m)?;
    Ok(())
}
