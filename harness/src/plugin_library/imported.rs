//! Loaded policies as the engine sees them: one adapter per exported kind implementing the
//! kind's Rust trait over the library's function table. This file holds what every adapter
//! shares (the instance, small conversions) and, generated from the exported table
//! ([`vodbench_plugin_api::for_each_exported_kind!`]), the check of a function table and the
//! registration. Each kind's adapter is in `imported/`, in the file the table names as the
//! kind's `$module`, with everything about the kind: its required calls, its adapter and how
//! an instance is wrapped in it ([`ImportKind`]). A kind exported without that file or that
//! impl does not compile.
//!
//! An adapter only translates: plain `#[repr(C)]` data in, plain data out. What a policy
//! answers is then checked by the engine as any built-in's answer is (a request that was
//! never queued, a page that is not evictable, a path naming a link twice). What cannot even
//! be translated — `VB_ERROR`, a poll tag outside the three, a refusal reason that is not
//! UTF-8 — abandons the run with a [`PluginFailure`] naming the library, the policy and the
//! call.

/// Each exported kind's adapter, in the file named as the exported table's `$module`: a kind
/// exported without its file does not compile.
macro_rules! adapter_modules {
    ($( $variant:ident => dyn $trait:ident, $abi:ident, $module:ident, $table:ident; )*) => {
        $( mod $module; )*
    };
}
vodbench_plugin_api::for_each_exported_kind!(adapter_modules);

use super::failure::{abandon, PluginFailure};
use super::{string_sink, Policy};
use std::ffi::c_void;
use std::sync::Arc;
use vodbench_plugin_api::abi::*;
use vodbench_plugin_api::ids::{BlockId, DiskId, NodeId, VideoId};
use vodbench_plugin_api::plugin::*;
use vodbench_plugin_api::time::SimTime;

/// One instance of a loaded policy: its state, destroyed with the adapter.
pub(crate) struct Instance {
    policy: Arc<Policy>,
    state: *mut c_void,
    /// The build context's `video_blocks`: a loaded prefetcher asking the lent layout for a
    /// block outside them breaks its contract.
    video_blocks: Arc<[u32]>,
}

// SAFETY: an instance is used as its Rust trait allows (see `Policy`).
unsafe impl Send for Instance {}
unsafe impl Sync for Instance {}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the state came from this policy's `create` and is destroyed once.
        unsafe { (self.policy.destroy)(self.state) }
    }
}

impl Instance {
    fn vt<T>(&self) -> &T {
        // SAFETY: `check_vtable` checked the table of this kind when the library was loaded.
        unsafe { &*self.policy.vtable.cast::<T>() }
    }

    fn fail(&self, call: &'static str, message: String) -> ! {
        abandon(PluginFailure {
            library: self.policy.library().to_string(),
            policy: self.policy.label.clone(),
            call,
            message,
        })
    }

    /// Checks a call's status: `VB_ERROR` (or any other) abandons the run.
    fn ok(&self, call: &'static str, status: i32) {
        if status == VB_OK {
            return;
        }
        if status == VB_ERROR {
            self.fail(call, self.policy.last_error(self.state));
        } else {
            self.fail(
                call,
                format!(
                    "the call returned status {status}, neither VB_OK ({VB_OK}) nor VB_ERROR \
                     ({VB_ERROR})"
                ),
            );
        }
    }
}

/// A required entry of a function table, checked present at load time.
fn req<F: Copy>(f: Option<F>) -> F {
    f.expect("checked when the library was loaded")
}

/// A kind's C adapter: what the host knows of the kind's function table. Implemented for
/// each exported kind's `dyn` trait in the kind's file of `imported/`; the exported table
/// requires it of every kind it lists (see [`check_vtable`] and [`register`]).
trait ImportKind: PluginKind {
    /// The kind's C function table (the exported table's `$table`).
    type Table;

    /// The table's required calls, each with whether `table` has it, in the order the
    /// load-time check names the first one missing.
    fn required(table: &Self::Table) -> Vec<(&'static str, bool)>;

    /// The adapter implementing the kind's trait over one instance.
    fn wrap(instance: Instance) -> Box<Self>;
}

/// The first required call `table` lacks, as the load-time check says it.
///
/// # Safety
/// `table` points to a function table of kind `K` (the library says so).
unsafe fn check<K: ImportKind + ?Sized>(table: *const K::Table) -> Result<(), String> {
    // SAFETY: as the caller promises; only present-ness is read.
    let table = unsafe { &*table };
    K::required(table)
        .into_iter()
        .find(|(_, present)| !present)
        .map_or(Ok(()), |(n, _)| {
            Err(format!(
                "its function table's `{n}` is NULL (a required call)"
            ))
        })
}

/// What a library is told of a kind that has no C form (the loader only asks of kinds
/// [`Kind::from_abi_id`] gave, so only a kind table out of step with this file says it).
#[allow(dead_code)]
fn not_exported(kind: Kind) -> String {
    format!("kind {} has no C form in this vodbench", kind.key())
}

/// `check_vtable` and `register`, one arm per exported kind.
macro_rules! dispatch {
    ($( $variant:ident => dyn $trait:ident, $abi:ident, $module:ident, $table:ident; )*) => {
        /// Checks that the function table of a policy of `kind` has every required call.
        pub(super) fn check_vtable(kind: Kind, vtable: *const c_void) -> Result<(), String> {
            // SAFETY: the library says the table is of this kind.
            unsafe {
                match kind {
                    $(Kind::$variant => check::<dyn $trait>(vtable.cast::<$table>()),)*
                    #[allow(unreachable_patterns)]
                    _ => Err(not_exported(kind)),
                }
            }
        }

        /// Registers `policy` in `registry` as a plugin of its kind.
        pub(super) fn register(
            registry: &mut Registry,
            policy: Arc<Policy>,
        ) -> Result<(), PluginError> {
            match policy.kind {
                $(Kind::$variant => add::<dyn $trait>(registry, policy),)*
                #[allow(unreachable_patterns)]
                _ => Err(PluginError::Build(not_exported(policy.kind))),
            }
        }
    };
}
vodbench_plugin_api::for_each_exported_kind!(dispatch);

fn add<K: ImportKind + ?Sized>(
    registry: &mut Registry,
    policy: Arc<Policy>,
) -> Result<(), PluginError> {
    let (p1, p2, p3) = (
        Arc::clone(&policy),
        Arc::clone(&policy),
        Arc::clone(&policy),
    );
    let loaded = Loaded::with_json_params(
        policy.name,
        policy.description,
        Arc::new(move || p3.param_infos()),
        move |table| p1.parse(table),
        move |params, ctx| {
            let state = p2.create(params, ctx)?;
            Ok(K::wrap(Instance {
                policy: Arc::clone(&p2),
                state,
                video_blocks: ctx.video_blocks.into(),
            }))
        },
    );
    registry
        .add_loaded::<K>(loaded, Arc::clone(&policy.lib.origin))
        .map(|_| ())
}

// ------------------------------------------------------------------------------------------
// small conversions

fn ns(t: SimTime) -> u64 {
    t.as_nanos()
}

fn vb_block(b: BlockId) -> VbBlockId {
    VbBlockId {
        video: b.video.0,
        index: b.index,
    }
}

fn block(b: &VbBlockId) -> BlockId {
    BlockId {
        video: VideoId(b.video),
        index: b.index,
    }
}

fn location(l: &VbLocation) -> Location {
    Location {
        node: NodeId(l.node),
        disk: DiskId(l.disk),
        offset: l.offset,
    }
}

unsafe extern "C" fn push_u32(ctx: *mut c_void, v: u32) {
    (*ctx.cast::<Vec<u32>>()).push(v);
}

fn u32_sink(out: &mut Vec<u32>) -> VbU32Sink {
    VbU32Sink {
        ctx: (out as *mut Vec<u32>).cast(),
        push: push_u32,
    }
}

fn access(a: &DiskAccess) -> VbDiskAccess {
    VbDiskAccess {
        offset: a.offset,
        bytes: a.bytes,
        write: a.write as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vodbench_plugin_api::abi::export::ExportKind;

    /// Each kind's function table as a Rust library exports it (every call present), and one
    /// of all NULLs.
    macro_rules! tables {
        ($( $variant:ident => dyn $trait:ident, $abi:ident, $module:ident, $table:ident; )*) => {
            fn full(kind: Kind) -> *const c_void {
                match kind {
                    $(Kind::$variant => <dyn $trait as ExportKind>::vtable(),)*
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("{kind:?} is not exported"),
                }
            }
            fn null_check(kind: Kind) -> Result<(), String> {
                match kind {
                    $(Kind::$variant => {
                        // SAFETY: a function table is `Option`s of function pointers; all
                        // zeros is every one `None`.
                        let t: $table = unsafe { std::mem::zeroed() };
                        check_vtable(kind, (&t as *const $table).cast())
                    })*
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("{kind:?} is not exported"),
                }
            }
            fn required_names(kind: Kind) -> Vec<&'static str> {
                match kind {
                    $(Kind::$variant => {
                        // SAFETY: as in `null_check`; only the names are read.
                        let t: $table = unsafe { std::mem::zeroed() };
                        <dyn $trait as ImportKind>::required(&t).into_iter().map(|(n, _)| n).collect()
                    })*
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("{kind:?} is not exported"),
                }
            }
        };
    }
    vodbench_plugin_api::for_each_exported_kind!(tables);

    #[test]
    fn a_full_table_of_every_kind_passes() {
        for &kind in Kind::EXPORTED {
            assert_eq!(check_vtable(kind, full(kind)), Ok(()), "{kind:?}");
        }
    }

    #[test]
    fn a_table_of_nulls_is_refused_naming_the_kinds_first_required_call() {
        // the header as C authors read it: each kind's table, its calls in order
        let header = include_str!("../../../plugin-api/include/vodbench_plugin.h");
        for &kind in Kind::EXPORTED {
            let table = kind.c_table_name().expect("exported");
            let body = header
                .split(&format!("typedef struct {table} {{"))
                .nth(1)
                .and_then(|rest| rest.split(&format!("}} {table};")).next())
                .unwrap_or_else(|| panic!("the header has no {table}"));
            let fields: Vec<&str> = body
                .split("(*")
                .skip(1)
                .filter_map(|f| f.split(')').next())
                .collect();
            let required = required_names(kind);
            assert!(!required.is_empty(), "{kind:?} requires no call");
            let mut at = fields.iter();
            for name in &required {
                assert!(
                    at.any(|f| f == name),
                    "{kind:?}: required call `{name}` is not a call of {table} (or out of its \
                     order): {fields:?}"
                );
            }
            assert_eq!(
                null_check(kind),
                Err(format!(
                    "its function table's `{}` is NULL (a required call)",
                    required[0]
                )),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn the_first_missing_call_in_the_tables_order_is_named_and_optional_ones_may_be_null() {
        let check = |edit: fn(&mut VbDiskModelVtable)| {
            // SAFETY: the exported table is plain function pointers, copied bit for bit.
            let mut t =
                unsafe { std::ptr::read(full(Kind::DiskModel).cast::<VbDiskModelVtable>()) };
            edit(&mut t);
            check_vtable(Kind::DiskModel, (&t as *const VbDiskModelVtable).cast())
        };
        let null = |n: &str| {
            Err(format!(
                "its function table's `{n}` is NULL (a required call)"
            ))
        };
        assert_eq!(check(|t| t.transfer_includes_bus = None), Ok(()));
        assert_eq!(check(|t| t.service_bound = None), null("service_bound"));
        assert_eq!(
            check(|t| {
                t.service_bound = None;
                t.head_cylinder = None;
            }),
            null("head_cylinder")
        );
    }
}
