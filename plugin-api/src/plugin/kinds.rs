//! The plugin kinds, declared once.
//!
//! The kinds table at the bottom of this file ([`for_each_kind!`](crate::for_each_kind)) is
//! the only list of plugin kinds. From it come each kind's `mod` lines (its trait, its
//! built-ins' folder), [`Kind`] (every kind, its scenario key and what it decides), the
//! [`Registry`](super::Registry)'s storage, the [`PluginKind`] marker of each trait object,
//! and [`Registry::infos`](super::Registry::infos), through which everything that goes over
//! all kinds (`vodbench plugins`, the JSON Schema's plugin tables, manifests, compare's
//! columns, conformance tests) reads the registered plugins. The exported table beside it
//! ([`for_each_exported_kind!`](crate::for_each_exported_kind)) lists the kinds C libraries
//! and Python classes implement — today every kind — and gives each its C form's and
//! adapters' `mod` lines, its C names and number ([`Kind::abi_id`]). Adding a kind starts
//! with one line in the kinds table, exporting it with one in the exported table; the
//! compiler then names the files each step needs, and `ARCHITECTURE.md` ("Adding a kind")
//! lists the rest, as measured.

use super::error::PluginError;
use super::resolved::{BuildFn, Origin, Resolved};
#[allow(unused_imports)] // every kind's trait, as the table names them
use super::*;
use serde::Serialize;
use std::any::Any;
use std::sync::Arc;

/// Checks a plugin's scenario table (without `name`): its parameters with defaults filled in
/// (JSON, for manifests) and in the form its builder takes, or what is wrong.
pub type ParseFn = Arc<
    dyn Fn(&toml::Table) -> Result<(serde_json::Value, Arc<dyn Any + Send + Sync>), PluginError>
        + Send
        + Sync,
>;
/// Lists a plugin's parameters.
pub type ParamsFn = Arc<dyn Fn() -> Vec<ParamInfo> + Send + Sync>;

/// A plugin trait object type that the registry can hold: one per line of the kinds table
/// ([`Kind`]), implemented there for each `dyn` trait.
pub trait PluginKind: 'static {
    /// Which kind this is.
    const KIND: Kind;
    #[doc(hidden)]
    fn table(tables: &Tables) -> &Vec<Entry<Self>>;
    #[doc(hidden)]
    fn table_mut(tables: &mut Tables) -> &mut Vec<Entry<Self>>;
    #[doc(hidden)]
    fn resolved(any: &AnyResolved) -> Option<&Resolved<Self>>;
}

/// One parameter of a plugin, as listed by `vodbench plugins`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamInfo {
    /// Key in the plugin's table.
    pub name: String,
    /// The values it takes, named for people: `integer`, `"any" | "referenced"`, `a size or
    /// null` ([`param_schema::type_name`](super::param_schema::type_name)).
    pub ty: String,
    /// Default value, as JSON.
    pub default: Option<serde_json::Value>,
    /// The field's doc comment.
    pub description: String,
    /// Its JSON schema, self-contained (every `$ref` inlined), as `vodbench schema` attaches
    /// it to the table that selects the plugin.
    pub schema: serde_json::Value,
    /// Whether a scenario must give it (it has no default).
    pub required: bool,
}

/// A registered plugin.
pub struct Entry<T: ?Sized> {
    /// Scenario name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The library it was loaded from (`None`: compiled into the binary).
    pub origin: Option<Arc<Origin>>,
    params: ParamsFn,
    pub(super) parse: ParseFn,
    pub(super) build: BuildFn<T>,
}

impl<T: ?Sized> Clone for Entry<T> {
    fn clone(&self) -> Self {
        Entry {
            name: self.name,
            description: self.description,
            origin: self.origin.clone(),
            params: Arc::clone(&self.params),
            parse: Arc::clone(&self.parse),
            build: Arc::clone(&self.build),
        }
    }
}

impl<T: ?Sized> Entry<T> {
    pub(super) fn new(
        name: &'static str,
        description: &'static str,
        origin: Option<Arc<Origin>>,
        params: ParamsFn,
        parse: ParseFn,
        build: BuildFn<T>,
    ) -> Self {
        Entry {
            name,
            description,
            origin,
            params,
            parse,
            build,
        }
    }

    /// The plugin's parameters.
    pub fn params(&self) -> Vec<ParamInfo> {
        (self.params)()
    }

    /// What every kind's entries have in common (no builder).
    pub(super) fn info(&self, kind: Kind) -> EntryInfo {
        EntryInfo {
            kind,
            name: self.name,
            description: self.description,
            origin: self.origin.clone(),
            params: Arc::clone(&self.params),
            parse: Arc::clone(&self.parse),
        }
    }
}

/// What the registry knows of one plugin of any kind: enough to list it and check a
/// scenario's table for it, without building it.
#[derive(Clone)]
pub struct EntryInfo {
    /// The plugin's kind.
    pub kind: Kind,
    /// Scenario name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The library it was loaded from (`None`: compiled into the binary).
    pub origin: Option<Arc<Origin>>,
    pub(super) params: ParamsFn,
    pub(super) parse: ParseFn,
}

impl EntryInfo {
    /// The plugin's parameters.
    pub fn params(&self) -> Vec<ParamInfo> {
        (self.params)()
    }

    /// Checks a scenario table (without `name`) for this plugin: its parameters with
    /// defaults filled in, or what is wrong.
    pub fn check(&self, params: &toml::Table) -> Result<serde_json::Value, PluginError> {
        (self.parse)(params).map(|(json, _)| json)
    }

    /// A table this plugin accepts with its defaults: empty but for a plain value of each
    /// parameter it requires, chosen by the parameter's type — for tools and tests that go
    /// through every registered plugin. `None` when a required parameter's type has no
    /// plain value (free text, say) or the plugin refuses the values.
    ///
    /// ```
    /// # use vodbench_plugin_api::plugin::*;
    /// # #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    /// # #[serde(deny_unknown_fields)]
    /// # struct Limit { most: u32 }
    /// # struct Cap;
    /// # impl Admission for Cap {
    /// #     fn admit(&mut self, _: &StreamRequest, _: &ServerLoad) -> Verdict { Verdict::Admit }
    /// # }
    /// # impl Plugin for Cap {
    /// #     type Kind = dyn Admission;
    /// #     type Params = Limit;
    /// #     const NAME: &'static str = "cap";
    /// #     const DESCRIPTION: &'static str = "an example";
    /// #     fn build(_: &Limit, _: &BuildContext<'_>) -> Result<Box<dyn Admission>, PluginError> {
    /// #         Ok(Box::new(Cap))
    /// #     }
    /// # }
    /// let mut r = Registry::new();
    /// r.add::<Cap>();
    /// let t = r.infos(Kind::Admission)[0].plain_params().unwrap();
    /// assert_eq!(t["most"].as_integer(), Some(3));
    /// ```
    pub fn plain_params(&self) -> Option<toml::Table> {
        let mut t = toml::Table::new();
        for p in self.params().into_iter().filter(|p| p.required) {
            let ty = p.ty.strip_suffix(" or null").unwrap_or(&p.ty);
            let v = match ty {
                "integer" => toml::Value::Integer(3),
                "number" => toml::Value::Float(1.0),
                "boolean" => toml::Value::Boolean(false),
                "a duration" => toml::Value::String("1s".into()),
                "a size" => toml::Value::String("1MiB".into()),
                "a bandwidth" => toml::Value::String("10MB/s".into()),
                "a bit rate" => toml::Value::String("4Mbit/s".into()),
                ty if ty.starts_with("a count") => toml::Value::Integer(3),
                ty if ty.starts_with('"') => toml::Value::String(ty.split('"').nth(1)?.into()),
                _ => return None,
            };
            t.insert(p.name, v);
        }
        self.check(&t).ok()?;
        Some(t)
    }
}

impl std::fmt::Debug for EntryInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} `{}`", self.kind.key(), self.name)
    }
}

macro_rules! kinds {
    ($( $(#[$doc:meta])* $variant:ident => dyn $trait:ident, $field:ident, $key:literal, $module:ident, $decides:literal; )*) => {
        /// A plugin kind: one policy trait, chosen by name in a scenario table.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Kind {
            $( $(#[$doc])* $variant, )*
        }

        impl Kind {
            /// Every kind, in listing order.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant),*];

            /// The kind's name: its scenario table in the system that introduced it
            /// (`disk.scheduler`). A system may choose a kind at other keys too (a broadcast
            /// receiver's disk model is `receiver.disk`).
            pub const fn key(self) -> &'static str {
                match self { $(Kind::$variant => $key,)* }
            }

            /// What a plugin of this kind decides, in a few words.
            pub fn decides(self) -> &'static str {
                match self { $(Kind::$variant => $decides,)* }
            }

            /// The name of the kind's trait (`DiskScheduler`).
            pub fn trait_name(self) -> &'static str {
                match self { $(Kind::$variant => stringify!($trait),)* }
            }
        }

        /// The registry's storage: one sorted table of entries per kind.
        #[doc(hidden)]
        #[derive(Default, Clone)]
        pub struct Tables {
            $( $field: Vec<Entry<dyn $trait>>, )*
        }

        /// A plugin of a kind known only at run time, resolved
        /// ([`Registry::resolve_kind`](super::Registry::resolve_kind)); [`get`](Self::get)
        /// gives it typed.
        #[derive(Clone, Debug)]
        pub enum AnyResolved {
            $( $(#[$doc])* $variant(Resolved<dyn $trait>), )*
        }

        impl AnyResolved {
            /// The plugin's kind.
            pub fn kind(&self) -> Kind {
                match self { $(AnyResolved::$variant(_) => Kind::$variant,)* }
            }

            /// The plugin, if it is of kind `K`.
            pub fn get<K: PluginKind + ?Sized>(&self) -> Option<&Resolved<K>> {
                K::resolved(self)
            }

            /// The plugin's name.
            pub fn name(&self) -> &'static str {
                match self { $(AnyResolved::$variant(r) => r.name,)* }
            }

            /// Its parameters with defaults filled in.
            pub fn params(&self) -> &serde_json::Value {
                match self { $(AnyResolved::$variant(r) => &r.params,)* }
            }

            /// The library it was loaded from (`None`: compiled into the binary).
            pub fn origin(&self) -> Option<&Arc<Origin>> {
                match self { $(AnyResolved::$variant(r) => r.origin.as_ref(),)* }
            }
        }

        pub(super) fn resolve_kind(
            registry: &super::Registry,
            kind: Kind,
            name: &str,
            params: &toml::Table,
        ) -> Result<AnyResolved, PluginError> {
            match kind {
                $(Kind::$variant => registry
                    .resolve::<dyn $trait>(name, params)
                    .map(AnyResolved::$variant),)*
            }
        }

        impl Tables {
            pub(super) fn infos(&self, kind: Kind) -> Vec<EntryInfo> {
                match kind {
                    $(Kind::$variant => self.$field.iter().map(|e| e.info(kind)).collect(),)*
                }
            }
        }

        $(
            impl PluginKind for dyn $trait {
                const KIND: Kind = Kind::$variant;
                fn table(tables: &Tables) -> &Vec<Entry<Self>> {
                    &tables.$field
                }
                fn table_mut(tables: &mut Tables) -> &mut Vec<Entry<Self>> {
                    &mut tables.$field
                }
                fn resolved(any: &AnyResolved) -> Option<&Resolved<Self>> {
                    match any {
                        AnyResolved::$variant(r) => Some(r),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*
    };
}

/// The kinds table: every plugin kind, once. `for_each_kind!(callback)` calls
/// `callback! { ... }` with the table's lines, each
///
/// ```text
/// $(#[$doc:meta])* $variant:ident => dyn $trait:ident, $field:ident, $key:literal,
///     $module:ident, $decides:literal;
/// ```
///
/// — the [`Kind`] variant, its trait, the registry's field, its scenario key, the module
/// that holds it in each layer (its trait in `plugin-api/src/plugin/`, its built-ins in
/// `plugins/src/`, and, once it is exported ([`for_each_exported_kind!`](crate::for_each_exported_kind)),
/// its C form and its adapters), and what it decides. Everything that goes over all kinds is
/// generated from it, in this crate and beside it: adding a line makes the compiler name each
/// file the new kind still needs.
#[macro_export]
macro_rules! for_each_kind {
    ($callback:ident) => {
        $callback! {
            /// `[disk.model]`: [`DiskModel`].
            DiskModel => dyn DiskModel, disk_models, "disk.model", disk_model,
                "service time of one request, from head and rotational state";
            /// `[disk.scheduler]`: [`DiskScheduler`].
            DiskScheduler => dyn DiskScheduler, schedulers, "disk.scheduler", disk_scheduler,
                "which queued request a disk serves next";
            /// `[buffer_pool]`: [`BufferPool`].
            BufferPool => dyn BufferPool, pools, "buffer_pool", buffer_pool,
                "which evictable page a node reuses";
            /// `[prefetcher]`: [`Prefetcher`].
            Prefetcher => dyn Prefetcher, prefetchers, "prefetcher", prefetcher,
                "which blocks to read ahead, and when";
            /// `[layout]`: [`Layout`].
            Layout => dyn Layout, layouts, "layout", layout,
                "where each stripe block lives (node, disk, byte address)";
            /// `[server.network]`: [`Interconnect`].
            Interconnect => dyn Interconnect, interconnects, "server.network", interconnect,
                "which links a message holds and for how long";
            /// `[admission]`: [`Admission`].
            Admission => dyn Admission, admissions, "admission", admission,
                "whether a new stream is accepted";
            /// `[transmission]`: [`Transmission`].
            Transmission => dyn Transmission, transmissions, "transmission", transmission,
                "which packet the egress link sends next, and when";
            /// `[broadcast.schedule]`: [`BroadcastSchedule`].
            BroadcastSchedule => dyn BroadcastSchedule, schedules, "broadcast.schedule", broadcast_schedule,
                "which frames a periodic broadcast sends when";
            /// `[receiver.buffer]`: [`ClientBuffer`].
            ClientBuffer => dyn ClientBuffer, client_buffers, "receiver.buffer", client_buffer,
                "which frames a broadcast receiver spills to disk together";
            /// `[analytic]`: [`AnalyticModel`].
            AnalyticModel => dyn AnalyticModel, analytic_models, "analytic", analytic_model,
                "what a closed-form model predicts at a scenario point";
        }
    };
}

/// The exported kinds: those of the kinds table that C libraries and Python classes can
/// implement, each with its C form. `for_each_exported_kind!(callback)` calls
/// `callback! { ... }` with the lines, each
///
/// ```text
/// $variant:ident => dyn $trait:ident, $abi:ident, $module:ident, $table:ident;
/// ```
///
/// — the [`Kind`] variant and its trait (as in the kinds table), its `VB_KIND_*` number, its
/// module (its C form in `plugin-api/src/abi/kinds/`, its C adapter in the harness's
/// `plugin_library/imported/`, its Python adapter in `python/src/policy/`) and the type of its
/// C function table. Every kind vodbench has today is exported. A new kind may start in the
/// kinds table alone, while its contract settles, and be exported later with its line here:
/// that freezes its function table in the ABI (a kind exported later keeps
/// `VB_ABI_VERSION`, see [`crate::abi`]). Until then `vodbench plugins` lists it, built-ins and
/// Rust crates implement it, and a library or a Python class cannot.
#[macro_export]
macro_rules! for_each_exported_kind {
    ($callback:ident) => {
        $callback! {
            DiskModel => dyn DiskModel, VB_KIND_DISK_MODEL, disk_model, VbDiskModelVtable;
            DiskScheduler => dyn DiskScheduler, VB_KIND_DISK_SCHEDULER, disk_scheduler, VbDiskSchedulerVtable;
            BufferPool => dyn BufferPool, VB_KIND_BUFFER_POOL, buffer_pool, VbBufferPoolVtable;
            Prefetcher => dyn Prefetcher, VB_KIND_PREFETCHER, prefetcher, VbPrefetcherVtable;
            Layout => dyn Layout, VB_KIND_LAYOUT, layout, VbLayoutVtable;
            Interconnect => dyn Interconnect, VB_KIND_INTERCONNECT, interconnect, VbInterconnectVtable;
            Admission => dyn Admission, VB_KIND_ADMISSION, admission, VbAdmissionVtable;
            Transmission => dyn Transmission, VB_KIND_TRANSMISSION, transmission, VbTransmissionVtable;
            BroadcastSchedule => dyn BroadcastSchedule, VB_KIND_BROADCAST_SCHEDULE, broadcast_schedule, VbBroadcastScheduleVtable;
            ClientBuffer => dyn ClientBuffer, VB_KIND_CLIENT_BUFFER, client_buffer, VbClientBufferVtable;
            AnalyticModel => dyn AnalyticModel, VB_KIND_ANALYTIC_MODEL, analytic_model, VbAnalyticModelVtable;
        }
    };
}

crate::for_each_kind!(kinds);

/// What the exported kinds add to [`Kind`]: their C names and numbers.
macro_rules! exported {
    ($( $variant:ident => dyn $trait:ident, $abi:ident, $module:ident, $table:ident; )*) => {
        impl Kind {
            /// The kinds C libraries and Python classes can implement
            /// ([`for_each_exported_kind!`](crate::for_each_exported_kind)), in its order.
            pub const EXPORTED: &'static [Kind] = &[$(Kind::$variant),*];

            /// The Rust name of the kind's C function table (`VbDiskSchedulerVtable`), as the
            /// header names its `typedef`; `None` for a kind not exported.
            pub fn c_table_name(self) -> Option<&'static str> {
                #[allow(unreachable_patterns)]
                match self { $(Kind::$variant => Some(stringify!($table)),)* _ => None }
            }

            /// The kind's number in the C ABI (`VbPolicy::kind`: `VB_KIND_DISK_SCHEDULER`);
            /// `None` for a kind not exported.
            pub fn abi_id(self) -> Option<u32> {
                #[allow(unreachable_patterns)]
                match self { $(Kind::$variant => Some(crate::abi::kinds::$abi),)* _ => None }
            }

            /// The exported kind whose C ABI number is `id`.
            pub fn from_abi_id(id: u32) -> Option<Kind> {
                match id { $(crate::abi::kinds::$abi => Some(Kind::$variant),)* _ => None }
            }
        }

        /// Every exported kind has its C form: a function table and the adapter that exports
        /// a Rust policy through it ([`crate::abi::export::ExportKind`]). A kind exported
        /// without them does not compile.
        #[allow(dead_code)]
        fn every_exported_kind_has_an_abi() {
            fn has_abi<K: crate::abi::export::ExportKind + ?Sized>() {}
            $( has_abi::<dyn $trait>(); )*
        }
    };
}
crate::for_each_exported_kind!(exported);
