//! The plugin kinds, declared once.
//!
//! The `kinds!` table at the bottom of this file is the only list of plugin kinds. From it
//! come [`Kind`] (every kind, its scenario key and what it decides), the [`Registry`]'s
//! storage, the [`PluginKind`] marker of each trait object, and [`Registry::infos`], through
//! which everything that goes over all kinds (`vodbench plugins`, the JSON Schema's plugin
//! tables, manifests, compare's columns, conformance tests) reads the registered plugins.
//! Adding a kind is its trait file in this folder, one line in the table, and the call site
//! in the engine that asks it.

use super::registry::{Entry, ParamInfo, ParseFn, PluginError, PluginKind, Registry};
use super::{
    Admission, BroadcastSchedule, BufferPool, ClientBuffer, DiskModel, DiskScheduler, Interconnect,
    Layout, Prefetcher,
};

/// What the registry knows of one plugin of any kind: enough to list it and check a
/// scenario's table for it, without building it.
#[derive(Clone, Copy)]
pub struct EntryInfo {
    /// The plugin's kind.
    pub kind: Kind,
    /// Scenario name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    pub(super) params: fn() -> Vec<ParamInfo>,
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
}

impl std::fmt::Debug for EntryInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} `{}`", self.kind.key(), self.name)
    }
}

macro_rules! kinds {
    ($( $(#[$doc:meta])* $variant:ident => dyn $trait:ident, $field:ident, $key:literal, $decides:literal; )*) => {
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
            pub fn key(self) -> &'static str {
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
        #[derive(Default)]
        pub(super) struct Tables {
            $( $field: Vec<Entry<dyn $trait>>, )*
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
                fn table(reg: &Registry) -> &Vec<Entry<Self>> {
                    &reg.tables.$field
                }
                fn table_mut(reg: &mut Registry) -> &mut Vec<Entry<Self>> {
                    &mut reg.tables.$field
                }
            }
        )*
    };
}

kinds! {
    /// `[disk.model]`: [`DiskModel`].
    DiskModel => dyn DiskModel, disk_models, "disk.model",
        "service time of one request, from head and rotational state";
    /// `[disk.scheduler]`: [`DiskScheduler`].
    DiskScheduler => dyn DiskScheduler, schedulers, "disk.scheduler",
        "which queued request a disk serves next";
    /// `[buffer_pool]`: [`BufferPool`].
    BufferPool => dyn BufferPool, pools, "buffer_pool",
        "which evictable page a node reuses";
    /// `[prefetcher]`: [`Prefetcher`].
    Prefetcher => dyn Prefetcher, prefetchers, "prefetcher",
        "which blocks to read ahead, and when";
    /// `[layout]`: [`Layout`].
    Layout => dyn Layout, layouts, "layout",
        "where each stripe block lives (node, disk, byte address)";
    /// `[server.network]`: [`Interconnect`].
    Interconnect => dyn Interconnect, interconnects, "server.network",
        "which links a message holds and for how long";
    /// `[admission]`: [`Admission`].
    Admission => dyn Admission, admissions, "admission",
        "whether a new stream is accepted";
    /// `[broadcast.schedule]`: [`BroadcastSchedule`].
    BroadcastSchedule => dyn BroadcastSchedule, schedules, "broadcast.schedule",
        "which frames a periodic broadcast sends when";
    /// `[receiver.buffer]`: [`ClientBuffer`].
    ClientBuffer => dyn ClientBuffer, client_buffers, "receiver.buffer",
        "which frames a broadcast receiver spills to disk together";
}
