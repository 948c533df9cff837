//! Each exported kind's C form, one file per kind, named as the exported table's `$module`
//! ([`for_each_exported_kind!`](crate::for_each_exported_kind)): its `VB_KIND_*` number, its function table (the
//! calls of its Rust trait over the policy's opaque state), the `#[repr(C)]` types only its
//! calls carry, and its [`ExportKind`](super::export::ExportKind): the `extern "C"` functions
//! through which a Rust policy of the kind is called. What two or more kinds share is in
//! `types.rs` and `export_kind.rs`.
//!
//! The modules are declared from the exported table, so a line added there makes the
//! compiler ask for the kind's file here; `plugin-api/tests/header.rs` reads every file of this folder
//! into the header. A kind exported later keeps `VB_ABI_VERSION`: it adds a number and a function
//! table, and no struct of the version changes (not `VbSizes` either, which lists version 1's
//! tables only); a library built before it keeps loading, and an older host refuses a library
//! that uses it, naming the unknown kind number.

/// Each kind's module, declared and re-exported from the kinds table.
macro_rules! kind_modules {
    ($( $variant:ident => dyn $trait:ident, $abi:ident, $module:ident, $table:ident; )*) => {
        $( mod $module; pub use $module::*; )*
    };
}
crate::for_each_exported_kind!(kind_modules);
