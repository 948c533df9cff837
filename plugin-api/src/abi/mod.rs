//! The C ABI: policies built apart from vodbench, loaded by the stock binary at run time.
//!
//! A plugin library is a shared object (`.so`, `.dylib`, `.dll`) exporting one symbol,
//! `vodbench_plugin_library`, that returns a [`VbLibrary`](types::VbLibrary): the ABI version
//! it was built for, the sizes of its structs, and its policies. Each policy
//! ([`VbPolicy`](types::VbPolicy)) has a kind, a name, a description, the JSON Schema of its
//! parameters, a constructor and destructor over an opaque state pointer, and its kind's
//! function table — the calls of the kind's Rust trait, one function pointer each, over plain
//! `#[repr(C)]` data: ids as `uint32_t`, times as `uint64_t` nanoseconds, optional values as a
//! `has_*` byte beside the value, lists through sinks.
//!
//! * [`types`]: every struct and constant that crosses, from which cbindgen generates
//!   `plugin-api/include/vodbench_plugin.h` (C and C++ authors include it);
//! * [`export`]: the Rust author's side: [`export_plugins!`](crate::export_plugins) turns any
//!   number of [`Plugin`](crate::plugin::Plugin)s of any kinds into such a library, every call
//!   guarded so that a panic becomes an error the host reports, never unwinding into it;
//! * the host side (the command line's `--plugin`, a scenario's `[plugins] load`) lives in
//!   `vodbench-harness` (`plugin_library`): it checks the version and sizes, validates
//!   parameters against the exported schema, wraps each instance in the kind's trait and
//!   checks every answer as it checks a built-in's.
//!
//! What may cross: only the types in [`types`]. No Rust type, allocator, panic or
//! reference crosses; strings a library returns are copied by the host at once.

pub mod export;
pub mod types;

pub use types::*;
