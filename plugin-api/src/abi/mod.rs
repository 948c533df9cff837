//! The C ABI: policies built apart from vodbench, loaded by the stock binary at run time.
//!
//! A plugin library is a shared object (`.so`, `.dylib`, `.dll`) exporting one symbol,
//! `vodbench_plugin_library`, that returns a [`VbLibrary`]: the ABI version
//! it was built for, the sizes of its structs, and its policies. Each policy
//! ([`VbPolicy`]) has a kind, a name, a description, the JSON Schema of its
//! parameters, a constructor and destructor over an opaque state pointer, and its kind's
//! function table — the calls of the kind's Rust trait, one function pointer each, over plain
//! `#[repr(C)]` data: ids as `uint32_t`, times as `uint64_t` nanoseconds, optional values as a
//! `has_*` byte beside the value, lists through sinks.
//!
//! * [`types`]: what every kind shares (the version, the library table and its struct sizes,
//!   a policy, errors, sinks, the build context); [`kinds`]: each kind's C form, one file per
//!   kind (its `VB_KIND_*` number, its function table, the types only its calls carry, its
//!   export). cbindgen generates `plugin-api/include/vodbench_plugin.h` (C and C++ authors
//!   include it) from `types.rs` and every file of `kinds/`;
//! * [`export`]: the Rust author's side: [`export_plugins!`](crate::export_plugins) turns any
//!   number of [`Plugin`](crate::plugin::Plugin)s of any kinds into such a library, every call
//!   guarded so that a panic becomes an error the host reports, never unwinding into it;
//! * the host side (the command line's `--plugin`, a scenario's `[plugins] load`) lives in
//!   `vodbench-harness` (`plugin_library`): it checks the version and sizes, validates
//!   parameters against the exported schema, wraps each instance in the kind's trait and
//!   checks every answer as it checks a built-in's.
//!
//! What may cross: only the types in [`types`] and [`kinds`], all reachable here
//! (`vodbench_plugin_api::abi::VbDiskSchedulerVtable`). No Rust type, allocator, panic or
//! reference crosses; strings a library returns are copied by the host at once.
//!
//! Versions: a library built for another `VB_ABI_VERSION` is refused, and so is one whose
//! struct sizes differ ([`sizes`]). The version is raised when a struct of it changes, a
//! function table included. A kind added later does not raise it: it adds a `VB_KIND_*` number
//! and a function table, and [`VbSizes`] keeps version 1's list. A library built before the
//! kind existed keeps loading (it does not use it); a host older than the kind refuses a
//! library that uses it, naming the unknown kind number.

pub mod export;
mod export_kind;
mod guard;
pub mod kinds;
mod sizes;
pub mod types;

pub use kinds::*;
pub use sizes::sizes;
pub use types::*;
