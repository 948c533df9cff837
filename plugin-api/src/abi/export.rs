//! A Rust author's side of the C ABI: any [`Plugin`]s, of any kinds, exported as a library the
//! stock `vodbench` loads with `--plugin` — with one macro, [`export_plugins!`].
//!
//! ```
//! use vodbench_plugin_api::ids::RequestId;
//! use vodbench_plugin_api::plugin::*;
//!
//! #[derive(Default)]
//! struct Lifo(Vec<RequestId>);
//! impl DiskScheduler for Lifo {
//!     fn enqueue(&mut self, r: QueuedRequest) { self.0.push(r.id) }
//!     fn dequeue(&mut self, _h: &HeadState) -> Option<RequestId> { self.0.pop() }
//!     fn len(&self) -> usize { self.0.len() }
//! }
//! #[derive(Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
//! #[serde(deny_unknown_fields, default)]
//! struct NoParams {}
//! impl Plugin for Lifo {
//!     type Kind = dyn DiskScheduler;
//!     type Params = NoParams;
//!     const NAME: &'static str = "lifo";
//!     const DESCRIPTION: &'static str = "last in, first out";
//!     fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
//!         Ok(Box::new(Lifo::default()))
//!     }
//! }
//!
//! // in a crate with `crate-type = ["cdylib"]`: exports `vodbench_plugin_library`
//! vodbench_plugin_api::export_plugins!(Lifo);
//!
//! let lib = unsafe { &*vodbench_plugin_library() };
//! assert_eq!(lib.abi_version, vodbench_plugin_api::abi::VB_ABI_VERSION);
//! assert_eq!(lib.policy_count, 1);
//! ```
//!
//! Every call is guarded: a panic in the policy is caught at the boundary (the calls of
//! `export_kind.rs`, of which each kind's table in `kinds/` is made), its message kept for the
//! host (`last_error`), and the call returns `VB_ERROR`, so that the host stops the run with
//! an error naming the library, the policy and the call.

use super::export_kind::{leak, plugin_error};
pub use super::export_kind::{set_error, ExportKind, State};
use super::guard::{guarded, install_hook};
use super::sizes::sizes;
use super::types::*;
use crate::intern::intern;
use crate::plugin::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;
use std::sync::Mutex;

/// The library a crate exports: built once, alive for the process.
pub struct ExportedLibrary {
    library: VbLibrary,
    _policies: Vec<VbPolicy>,
}

// SAFETY: the raw pointers point into the leaked, never-mutated policy table and strings.
unsafe impl Send for ExportedLibrary {}
unsafe impl Sync for ExportedLibrary {}

impl ExportedLibrary {
    /// The library's policies, as the exported symbol returns them.
    pub fn new(policies: Vec<VbPolicy>) -> ExportedLibrary {
        // the library's own panic reports stay off the host's standard error: the host
        // reports a failed call once, with the panic's message and where it happened
        install_hook();
        let mut lib = ExportedLibrary {
            library: VbLibrary {
                abi_version: VB_ABI_VERSION,
                sizes: sizes(),
                policy_count: policies.len() as u32,
                policies: std::ptr::null(),
            },
            _policies: policies,
        };
        lib.library.policies = lib._policies.as_ptr();
        lib
    }

    /// The pointer the exported symbol returns.
    pub fn as_ptr(&self) -> *const VbLibrary {
        &self.library
    }
}

/// Exports plugins as a vodbench plugin library: defines the symbol
/// `vodbench_plugin_library` that the stock `vodbench --plugin lib.so` loads. List every
/// [`Plugin`] type of the crate, of any kinds; put `crate-type = ["cdylib"]` in its
/// `Cargo.toml` (with `"rlib"` too to keep linking it statically).
#[macro_export]
macro_rules! export_plugins {
    ($($plugin:ty),* $(,)?) => {
        /// The vodbench plugin library this crate exports (C ABI).
        #[no_mangle]
        pub extern "C" fn vodbench_plugin_library() -> *const $crate::abi::types::VbLibrary {
            static LIBRARY: ::std::sync::OnceLock<$crate::abi::export::ExportedLibrary> =
                ::std::sync::OnceLock::new();
            LIBRARY
                .get_or_init(|| {
                    $crate::abi::export::ExportedLibrary::new(vec![
                        $($crate::abi::export::policy::<$plugin>()),*
                    ])
                })
                .as_ptr()
        }
    };
}

/// The policy table entry of plugin `P`.
pub fn policy<P: Plugin>() -> VbPolicy
where
    P::Kind: ExportKind,
{
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<P::Params>();
    VbPolicy {
        kind: <P::Kind as PluginKind>::KIND
            .abi_id()
            .expect("a kind with ExportKind is in the exported table"),
        name: leak(P::NAME),
        description: leak(P::DESCRIPTION),
        params_schema: leak(&schema.as_value().to_string()),
        check: Some(check::<P>),
        create: Some(create::<P>),
        destroy: Some(destroy::<P::Kind>),
        last_error: Some(last_error::<P::Kind>),
        vtable: <P::Kind as ExportKind>::vtable(),
    }
}

unsafe fn params_of<P: Plugin>(json: *const c_char) -> Result<P::Params, PluginError> {
    let text = if json.is_null() {
        "{}"
    } else {
        CStr::from_ptr(json)
            .to_str()
            .map_err(|_| PluginError::Build("parameters are not UTF-8".into()))?
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let params: P::Params = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        // the position is in the JSON text the host made of the table, not in the
        // scenario (whose line the host names): left out
        let position = format!(" at line {} column {}", inner.line(), inner.column());
        let text = inner.to_string();
        PluginError::InvalidParam {
            path: if path == "." { String::new() } else { path },
            message: text
                .strip_suffix(&position)
                .unwrap_or(&text)
                .trim_end()
                .to_string(),
        }
    })?;
    P::validate(&params)?;
    Ok(params)
}

unsafe extern "C" fn check<P: Plugin>(
    json: *const c_char,
    out: *mut VbStrSink,
    err: *mut VbError,
) -> i32 {
    let r = guarded(|| {
        let params = params_of::<P>(json)?;
        serde_json::to_string(&params).map_err(|e| PluginError::Build(e.to_string()))
    });
    match r {
        Ok(Ok(text)) => {
            if !out.is_null() {
                ((*out).push)((*out).ctx, text.as_ptr().cast(), text.len());
            }
            VB_OK
        }
        Ok(Err(e)) => {
            let (k, m) = plugin_error(&e);
            set_error(err, &k, &m);
            VB_ERROR
        }
        Err(m) => {
            set_error(err, "", &m);
            VB_ERROR
        }
    }
}

unsafe fn build_context<'a>(c: &'a VbBuildContext) -> Result<BuildContext<'a>, PluginError> {
    let text = |p: *const c_char| -> Result<&'a str, PluginError> {
        if p.is_null() {
            return Ok("");
        }
        CStr::from_ptr(p)
            .to_str()
            .map_err(|_| PluginError::Build("build context string is not UTF-8".into()))
    };
    let blocks: &[u32] = if c.video_blocks.is_null() || c.videos == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(c.video_blocks, c.videos)
    };
    Ok(BuildContext::new(
        c.seed,
        intern(text(c.component)?),
        c.index,
        Path::new(text(c.base_dir)?),
    )
    .with_nodes(c.nodes)
    .with_interfaces(c.interfaces)
    .with_managers(c.managers)
    .with_disks_per_node(c.disks_per_node)
    .with_terminals(c.terminals)
    .with_block_bytes(c.block_bytes)
    .with_video_blocks(blocks)
    .with_geometry((c.has_geometry != 0).then_some(DiskGeometry {
        capacity_bytes: c.geometry.capacity_bytes,
        cylinders: c.geometry.cylinders,
    }))
    .with_pages(c.pages))
}

unsafe extern "C" fn create<P: Plugin>(
    json: *const c_char,
    ctx: *const VbBuildContext,
    err: *mut VbError,
) -> *mut c_void {
    let r = guarded(|| {
        let params = params_of::<P>(json)?;
        if ctx.is_null() {
            return Err(PluginError::Build("no build context".into()));
        }
        let ctx = build_context(&*ctx)?;
        P::build(&params, &ctx)
    });
    match r {
        Ok(Ok(obj)) => Box::into_raw(Box::new(State::<P::Kind> {
            obj,
            error: Mutex::new(CString::default()),
        }))
        .cast(),
        Ok(Err(e)) => {
            let (k, m) = plugin_error(&e);
            set_error(err, &k, &m);
            std::ptr::null_mut()
        }
        Err(m) => {
            set_error(err, "", &m);
            std::ptr::null_mut()
        }
    }
}

unsafe extern "C" fn destroy<K: ?Sized + 'static>(state: *mut c_void) {
    if !state.is_null() {
        let b = Box::from_raw(state.cast::<State<K>>());
        // a panicking destructor must not unwind into the host
        let _ = guarded(move || drop(b));
    }
}

unsafe extern "C" fn last_error<K: ?Sized + 'static>(state: *mut c_void) -> *const c_char {
    if state.is_null() {
        return std::ptr::null();
    }
    let s = &*state.cast::<State<K>>();
    let e = s.error.lock().unwrap_or_else(|e| e.into_inner());
    if e.as_bytes().is_empty() {
        std::ptr::null()
    } else {
        // stays valid until the next failed call replaces it
        e.as_ptr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::RequestId;

    /// A scheduler with one integer parameter, for `params_of`.
    struct Counted;
    impl DiskScheduler for Counted {
        fn enqueue(&mut self, _r: QueuedRequest) {}
        fn dequeue(&mut self, _h: &HeadState) -> Option<RequestId> {
            None
        }
        fn len(&self) -> usize {
            0
        }
    }

    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct CountedParams {
        after: u64,
    }

    impl Plugin for Counted {
        type Kind = dyn DiskScheduler;
        type Params = CountedParams;
        const NAME: &'static str = "counted";
        const DESCRIPTION: &'static str = "test";
        fn build(
            _: &CountedParams,
            _: &BuildContext<'_>,
        ) -> Result<Box<dyn DiskScheduler>, PluginError> {
            Ok(Box::new(Counted))
        }
    }

    #[test]
    fn a_parameter_error_names_its_key_and_no_position_in_the_hosts_json() {
        let json = CString::new(r#"{"after": 3.5}"#).unwrap();
        match unsafe { params_of::<Counted>(json.as_ptr()) } {
            Err(PluginError::InvalidParam { path, message }) => {
                assert_eq!(path, "after");
                assert!(message.contains("expected u64"), "{message}");
                assert!(!message.contains(" at line "), "{message}");
            }
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("3.5 accepted as a u64"),
        }
        let json = CString::new(r#"{"after": 3}"#).unwrap();
        assert!(unsafe { params_of::<Counted>(json.as_ptr()) }.is_ok());
    }
}
