//! Policies written as Python classes: registered in the [`Registry`] beside the built-ins
//! (one entry per class), and one adapter per exported kind implementing the kind's Rust trait over a
//! Python object, as `vodbench_harness::plugin_library`'s adapters do over C function tables.
//! This file holds what every adapter shares (the registered class, one instance's bound
//! methods, the thread state, tracebacks) and, generated from the exported table
//! ([`vodbench_plugin_api::for_each_exported_kind!`]), each kind's method list and the
//! registration.
//! Each kind's adapter is in the file the table names as the kind's `$module`, with
//! everything about the kind: its required and optional methods, its adapter and how an
//! instance is wrapped in it ([`PyKind`]). A kind exported without that file or that impl
//! does not compile; a kind not exported is refused by name (`vodbench.plugin`).
//!
//! An adapter only translates; the engine checks every answer as it checks a built-in's. A
//! Python exception, or an answer of the wrong type, abandons the run with a
//! [`PluginFailure`] naming the class's source, the policy, the method and the traceback.

/// Each exported kind's adapter, in the file named as the exported table's `$module`: a kind
/// exported without its file does not compile.
macro_rules! adapter_modules {
    ($( $variant:ident => dyn $trait:ident, $abi:ident, $module:ident, $table:ident; )*) => {
        $( mod $module; )*
    };
}
vodbench_plugin_api::for_each_exported_kind!(adapter_modules);

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;
use vodbench_harness::plugin_library::params::{table_json, ParamSchema};
use vodbench_harness::plugin_library::{abandon, PluginFailure};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimTime;

/// A registered Python class.
pub struct PyPolicy {
    pub kind: Kind,
    pub name: &'static str,
    description: &'static str,
    /// ``disk.scheduler `name` ``, for messages.
    label: String,
    pub class: Py<PyAny>,
    schema: ParamSchema,
    pub origin: Arc<Origin>,
    /// Which optional methods the class has (by the kind's method order).
    has: Vec<bool>,
}

/// A kind's Python adapter: the methods a class of the kind has and how an instance is
/// wrapped in the adapter implementing the kind's trait. Implemented for each kind's `dyn`
/// trait in the kind's file of this folder; the exported table requires it of every kind it
/// lists (see [`methods`] and [`register`]).
trait PyKind: PluginKind {
    /// The methods a class must have, in the order messages list them; an adapter calls
    /// method `i` of an instance by its place in `REQUIRED` then `OPTIONAL`.
    const REQUIRED: &'static [&'static str];
    /// The methods a class may have: where it lacks one, the adapter does what the trait's
    /// default does.
    const OPTIONAL: &'static [&'static str];

    /// The adapter implementing the kind's trait over one instance.
    fn wrap(instance: Instance) -> Box<Self>;
}

/// `methods` and `register`, one arm per exported kind.
macro_rules! dispatch {
    ($( $variant:ident => dyn $trait:ident, $abi:ident, $module:ident, $table:ident; )*) => {
        /// Each kind's methods: required first, then optional.
        pub fn methods(kind: Kind) -> (&'static [&'static str], &'static [&'static str]) {
            match kind {
                $(Kind::$variant => (
                    <dyn $trait as PyKind>::REQUIRED,
                    <dyn $trait as PyKind>::OPTIONAL,
                ),)*
                #[allow(unreachable_patterns)]
                _ => unreachable!("{kind:?} is not exported: `register` refuses it"),
            }
        }

        /// Registers `policy` in `registry` as a plugin of its kind.
        pub fn register(registry: &mut Registry, policy: Arc<PyPolicy>) -> Result<(), PluginError> {
            match policy.kind {
                $(Kind::$variant => add::<dyn $trait>(registry, policy),)*
                #[allow(unreachable_patterns)]
                _ => Err(PluginError::Build(format!(
                    "kind {} has no Python form in this vodbench",
                    policy.kind.key()
                ))),
            }
        }
    };
}
vodbench_plugin_api::for_each_exported_kind!(dispatch);

/// The kind whose scenario key (`disk.scheduler`) or listing name (`disk-scheduler`) is `s`.
pub fn kind_named(s: &str) -> Option<Kind> {
    let norm = |k: &str| k.replace(['.', '_'], "-");
    Kind::ALL
        .iter()
        .copied()
        .find(|k| norm(k.key()) == norm(s) || k.trait_name().eq_ignore_ascii_case(s))
}

impl PyPolicy {
    /// Checks a class and its declaration; what is wrong, said for the class's author.
    pub fn new(
        py: Python<'_>,
        kind: Kind,
        name: &str,
        class: Py<PyAny>,
        description: &str,
        schema: Option<&str>,
        origin: Origin,
    ) -> Result<PyPolicy, String> {
        let label = format!("{} `{name}`", kind.key());
        vodbench_harness::plugin_library::check_name(&label, name)?;
        let (required, optional) = methods(kind);
        let cls = class.bind(py);
        for m in required {
            if !cls.hasattr(*m).unwrap_or(false) {
                return Err(format!(
                    "{label}: the class has no `{m}` method; a {} policy has {} (and may have {})",
                    kind.key(),
                    required.join(", "),
                    if optional.is_empty() {
                        "nothing else".to_string()
                    } else {
                        optional.join(", ")
                    }
                ));
            }
        }
        let has = optional
            .iter()
            .map(|m| cls.hasattr(*m).unwrap_or(false))
            .collect();
        let schema = ParamSchema::compile(schema).map_err(|e| format!("{label}: {e}"))?;
        Ok(PyPolicy {
            kind,
            name: Box::leak(name.to_string().into_boxed_str()),
            description: Box::leak(description.to_string().into_boxed_str()),
            label,
            class,
            schema,
            origin: Arc::new(origin),
            has,
        })
    }

    fn parse(&self, table: &toml::Table) -> Result<serde_json::Value, PluginError> {
        let json = table_json(table)?;
        self.schema.validate(&json)?;
        Ok(self.schema.with_defaults(json))
    }

    fn fail(&self, call: &'static str, message: String) -> ! {
        abandon(PluginFailure {
            library: self.origin.path.clone(),
            policy: self.label.clone(),
            call,
            message,
        })
    }

    /// One instance: `cls(params, ctx)`, its methods looked up once.
    fn create(self_: &Arc<Self>, params: &str, ctx: &BuildContext<'_>) -> Instance {
        let this = self_;
        keep_thread_state();
        let made = Python::with_gil(|py| -> PyResult<Instance> {
            let params = py.import("json")?.call_method1("loads", (params,))?;
            let c = PyDict::new(py);
            c.set_item("seed", ctx.seed)?;
            c.set_item("component", ctx.component)?;
            c.set_item("index", ctx.index)?;
            c.set_item("nodes", ctx.nodes)?;
            c.set_item("interfaces", ctx.interfaces)?;
            c.set_item("managers", ctx.managers)?;
            c.set_item("disks_per_node", ctx.disks_per_node)?;
            c.set_item("terminals", ctx.terminals)?;
            c.set_item("pages", ctx.pages)?;
            c.set_item("block_bytes", ctx.block_bytes)?;
            c.set_item("video_blocks", ctx.video_blocks.to_vec())?;
            c.set_item(
                "geometry",
                ctx.geometry.map(|g| (g.capacity_bytes, g.cylinders)),
            )?;
            c.set_item("base_dir", ctx.base_dir.display().to_string())?;
            let obj = this.class.bind(py).call1((params, c))?;
            let (required, optional) = methods(this.kind);
            let mut bound = Vec::with_capacity(required.len() + optional.len());
            for m in required {
                bound.push(Some(obj.getattr(*m)?.unbind()));
            }
            for (m, has) in optional.iter().zip(&this.has) {
                bound.push(if *has {
                    Some(obj.getattr(*m)?.unbind())
                } else {
                    None
                });
            }
            Ok(Instance {
                policy: Arc::clone(this),
                methods: bound,
                video_blocks: ctx.video_blocks.into(),
            })
        });
        made.unwrap_or_else(|e| this.fail("__init__", Python::with_gil(|py| traceback(py, &e))))
    }
}

/// A Python exception as Python prints it (traceback included).
pub fn traceback(py: Python<'_>, e: &PyErr) -> String {
    let formatted = (|| -> PyResult<String> {
        let lines = py.import("traceback")?.call_method1(
            "format_exception",
            (e.get_type(py), e.value(py), e.traceback(py)),
        )?;
        let text: Vec<String> = lines.extract()?;
        Ok(text.concat())
    })();
    formatted
        .unwrap_or_else(|_| e.to_string())
        .trim_end()
        .to_string()
}

fn add<K: PyKind + ?Sized>(
    registry: &mut Registry,
    policy: Arc<PyPolicy>,
) -> Result<(), PluginError> {
    let (p1, p2, p3) = (
        Arc::clone(&policy),
        Arc::clone(&policy),
        Arc::clone(&policy),
    );
    let loaded = Loaded::with_json_params(
        policy.name,
        policy.description,
        Arc::new(move || {
            let defaults = p3.parse(&toml::Table::new()).ok();
            params_of_schema(&p3.schema.value, defaults.as_ref())
        }),
        move |table| p1.parse(table),
        move |params, ctx| Ok(K::wrap(PyPolicy::create(&p2, params, ctx))),
    );
    registry
        .add_loaded::<K>(loaded, Arc::clone(&policy.origin))
        .map(|_| ())
}

// ------------------------------------------------------------------------------------------
// one instance

/// One instance of a Python policy, its bound methods looked up once (required methods
/// first, then the optional ones, in [`methods`]' order).
pub struct Instance {
    policy: Arc<PyPolicy>,
    methods: Vec<Option<Py<PyAny>>>,
    /// The build context's `video_blocks` (what a prefetcher's lent layout checks blocks
    /// against).
    video_blocks: Arc<[u32]>,
}

impl Instance {
    /// Whether the optional method `i` (counted from the first method) exists.
    fn has(&self, i: usize) -> bool {
        self.methods[i].is_some()
    }

    /// Calls method `i` (`name`) with the arguments `args` makes, converting the answer
    /// with `convert`; an exception or an unconvertible answer abandons the run.
    fn call<T>(
        &self,
        i: usize,
        name: &'static str,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>>,
        convert: impl for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T>,
    ) -> T {
        self.call_unchecked(i, name, args, |o| {
            refuse_bool(name, o)?;
            convert(o)
        })
    }

    /// [`Instance::call`] without refusing a `bool` answer (for calls whose answer is
    /// ignored).
    fn call_unchecked<T>(
        &self,
        i: usize,
        name: &'static str,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>>,
        convert: impl for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T>,
    ) -> T {
        keep_thread_state();
        let method = self.methods[i].as_ref().expect("a method that exists");
        let r = Python::with_gil(|py| {
            let out = args(py).and_then(|a| method.bind(py).call1(a));
            match out.and_then(|o| convert(&o)) {
                Ok(v) => Ok(v),
                Err(e) => Err(traceback(py, &e)),
            }
        });
        r.unwrap_or_else(|m| self.policy.fail(name, m))
    }

    /// Calls method `i`, ignoring its answer.
    fn call0(
        &self,
        i: usize,
        name: &'static str,
        args: impl for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyTuple>>,
    ) {
        self.call_unchecked(i, name, args, |_| Ok(()))
    }

    fn fail(&self, call: &'static str, message: String) -> ! {
        self.policy.fail(call, message)
    }
}

/// The methods whose answers hold a `bool` where one is meant (`admit`'s, `observes`',
/// `uses_chunk_hint`'s, `needs_next_access`' — converted as `bool`s, which refuse an `int` —,
/// `evaluate`'s JSON, `service`'s last element).
const BOOL_ANSWERS: &[&str] = &[
    "admit",
    "observes",
    "uses_chunk_hint",
    "needs_next_access",
    "evaluate",
];

/// Refuses a `bool` in method `name`'s answer where an integer is meant (Python's `True` is
/// an `int`, which the integer conversions would take as 1).
fn refuse_bool(name: &str, o: &Bound<'_, PyAny>) -> PyResult<()> {
    if BOOL_ANSWERS.contains(&name) {
        return Ok(());
    }
    if name == "service" {
        // (overhead, seek, rotation, transfer, hit): only the last is a bool
        if let Ok(t) = o.downcast::<PyTuple>() {
            for x in t.iter().take(4) {
                no_bool(name, &x)?;
            }
        }
        return Ok(());
    }
    no_bool(name, o)
}

fn no_bool(name: &str, o: &Bound<'_, PyAny>) -> PyResult<()> {
    if o.is_instance_of::<pyo3::types::PyBool>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{name} answered {o} (a bool) where an integer is required"
        )));
    }
    if let Ok(t) = o.downcast::<PyTuple>() {
        for x in t.iter() {
            no_bool(name, &x)?;
        }
    } else if let Ok(l) = o.downcast::<pyo3::types::PyList>() {
        for x in l.iter() {
            no_bool(name, &x)?;
        }
    }
    Ok(())
}

/// This thread's Python thread state, made on its first call into a policy and kept until
/// the thread ends: without it each call would make and destroy one (`PyGILState_Ensure` on
/// a thread that has none), several times the cost of the call itself. Engine threads (the
/// command's, rayon's) never hold the GIL between calls, so the state is made with the GIL
/// released again at once.
struct KeptThreadState {
    gil: pyo3::ffi::PyGILState_STATE,
    state: *mut pyo3::ffi::PyThreadState,
}

impl Drop for KeptThreadState {
    fn drop(&mut self) {
        // SAFETY: the state this thread made in `keep_thread_state`, given back once; not
        // after the interpreter has gone.
        unsafe {
            if pyo3::ffi::Py_IsInitialized() != 0 {
                pyo3::ffi::PyEval_RestoreThread(self.state);
                pyo3::ffi::PyGILState_Release(self.gil);
            }
        }
    }
}

thread_local! {
    static KEPT: std::cell::RefCell<Option<KeptThreadState>> =
        const { std::cell::RefCell::new(None) };
}

fn keep_thread_state() {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        if k.is_none() {
            // SAFETY: this thread does not hold the GIL (see above): Ensure takes it with a
            // new thread state, SaveThread releases it keeping the state.
            unsafe {
                let gil = pyo3::ffi::PyGILState_Ensure();
                let state = pyo3::ffi::PyEval_SaveThread();
                *k = Some(KeptThreadState { gil, state });
            }
        }
    });
}

fn none(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    Ok(PyTuple::empty(py))
}

fn ns(t: SimTime) -> u64 {
    t.as_nanos()
}
