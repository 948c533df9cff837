//! The tables of a scenario file that choose a plugin — *slots* — and how each slot gets its
//! plugin: the file's table, or else the default the binary registered for that table
//! ([`Registry::set_default`]), so the harness itself names no built-in.
//!
//! Each system declares its slots in one place, beside the fields of its file that hold
//! their tables: one `slot_tables!` line per slot (`system::ondemand::scenario::file`,
//! `system::broadcast::scenario`) names the slot's constant, its kind, what differs between
//! slots (a default or none, parameters inline, recorded only when chosen) and the field.
//! From those lines come the constants, the system's `SLOTS` list and its [`SlotTables`]
//! impl, so a new slot at the top level of a file is its field and its line, in one file;
//! a test per system checks each slot's key against its field (a table written at the key is
//! the one found through the slot). A slot constant is typed by its kind ([`SlotOf`]), so a
//! component asks for its plugin with one generic call — `plugins.required(&DISK_SCHEDULER)`
//! is a `&Resolved<dyn DiskScheduler>` — rather than through an accessor per slot.
//!
//! Why a list beside the fields rather than a macro that also declares them: the fields keep
//! their doc comments (the JSON Schema's descriptions), serde attributes and place in the
//! file's order (which the schema and `resolved_scenario` follow), and a slot inside a
//! section (`[disk.model]`, `[server.network]`) stays a field of its section. The key is
//! written out, not taken from the field's path, because it is also where the binary's
//! defaults name the slot ([`Kind::key`], `plugin_api::plugin::slot_keys`).
//! [`Resolution::resolve`] resolves them all in one loop, and the JSON Schema's plugin
//! tables, the manifest's `plugins` lines and the columns `vodbench compare` shows are made
//! from the `SLOTS` lists.

use super::ScenarioError;
use crate::plugin::{AnyResolved, Kind, Origin, PluginError, PluginKind, Registry, Resolved};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

/// A table of a scenario file that chooses a plugin.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The table's dotted key (`disk.scheduler`, `receiver.disk`).
    pub key: &'static str,
    /// The kind of plugin it takes.
    pub kind: Kind,
    /// Whether a scenario that names no plugin there gets the registry's default for the
    /// slot (else the slot stays empty: `[transmission]`).
    pub has_default: bool,
    /// Whether the table's keys other than `name` are the plugin's parameters even without
    /// `name`, configuring the default, beside keys of the table's own (the on-demand
    /// `[server.network]`, whose `request_bytes` belongs to the terminals). The parameters
    /// the default ran with are written back into the table.
    pub inline: bool,
    /// Manifests and reports record it only when the scenario chooses a plugin there (a
    /// table a scenario may leave out, whose default changes nothing the run measured:
    /// admission that admits everyone, a network without contention). Such a slot's default
    /// is not written into the resolved scenario either (but for inline parameters).
    pub recorded_when_chosen: bool,
}

impl Slot {
    /// The slot at `kind`'s own key ([`Kind::key`]): the registry's default when the file
    /// names no plugin, written into the resolved scenario, always recorded.
    pub const fn of(kind: Kind) -> Slot {
        Slot::at(kind.key(), kind)
    }

    /// [`of`](Self::of) at another key (a second system's table of the kind).
    pub const fn at(key: &'static str, kind: Kind) -> Slot {
        Slot {
            key,
            kind,
            has_default: true,
            inline: false,
            recorded_when_chosen: false,
        }
    }

    /// Without a default: empty unless the file names a plugin (then recorded).
    pub const fn optional(self) -> Slot {
        Slot {
            has_default: false,
            recorded_when_chosen: true,
            ..self
        }
    }

    /// [Recorded only when chosen](Self::recorded_when_chosen).
    pub const fn recorded_when_chosen(self) -> Slot {
        Slot {
            recorded_when_chosen: true,
            ..self
        }
    }

    /// With [parameters inline](Self::inline).
    pub const fn inline(self) -> Slot {
        Slot {
            inline: true,
            ..self
        }
    }

    /// The path of the table, one key per level (`["disk", "scheduler"]`).
    pub fn path(&self) -> Vec<&'static str> {
        self.key.split('.').collect()
    }
}

/// A [`Slot`] taking plugins of kind `K` (`dyn DiskScheduler`): the constant a system
/// declares for each slot, through which a component gets the slot's plugin, typed
/// ([`Resolution::get`], [`Resolution::required`]). Its kind is `K`'s, so the two cannot
/// differ. Derefs to the [`Slot`] (`DISK_SCHEDULER.key`).
pub struct SlotOf<K: ?Sized> {
    slot: Slot,
    kind: PhantomData<fn() -> Box<K>>,
}

impl<K: ?Sized> Clone for SlotOf<K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: ?Sized> Copy for SlotOf<K> {}

impl<K: ?Sized> std::fmt::Debug for SlotOf<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.slot.fmt(f)
    }
}

impl<K: ?Sized> Deref for SlotOf<K> {
    type Target = Slot;
    fn deref(&self) -> &Slot {
        &self.slot
    }
}

impl<K: PluginKind + ?Sized> SlotOf<K> {
    const fn new(slot: Slot) -> Self {
        SlotOf {
            slot,
            kind: PhantomData,
        }
    }

    /// [`Slot::of`] the kind `K`: at its own key.
    pub const fn own() -> Self {
        Self::new(Slot::of(K::KIND))
    }

    /// [`Slot::at`] another key.
    pub const fn at(key: &'static str) -> Self {
        Self::new(Slot::at(key, K::KIND))
    }

    /// [`Slot::optional`]
    pub const fn optional(self) -> Self {
        Self::new(self.slot.optional())
    }

    /// [`Slot::recorded_when_chosen`]
    pub const fn recorded_when_chosen(self) -> Self {
        Self::new(self.slot.recorded_when_chosen())
    }

    /// [`Slot::inline`]
    pub const fn inline(self) -> Self {
        Self::new(self.slot.inline())
    }

    /// The slot, untyped (an element of a system's `SLOTS`).
    pub const fn slot(&self) -> Slot {
        self.slot
    }
}

/// A plugin choice: `name` plus the plugin's own parameters (see `vodbench plugins`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PluginTable {
    /// Registered plugin name.
    pub name: String,
    /// The plugin's parameters.
    #[serde(flatten)]
    #[schemars(with = "std::collections::BTreeMap<String, serde_json::Value>")]
    pub params: toml::Table,
}

impl PluginTable {
    /// A plugin with default parameters.
    pub fn named(name: &str) -> Self {
        PluginTable {
            name: name.into(),
            params: toml::Table::new(),
        }
    }
}

/// A plugin a scenario uses, as its manifest records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    /// The slot's key.
    pub key: &'static str,
    /// Plugin name.
    pub name: &'static str,
    /// Every parameter, defaults filled in.
    pub params: serde_json::Value,
    /// Whether the scenario named the plugin itself (rather than leaving the slot to its
    /// default).
    pub named: bool,
    /// The library it was loaded from (`None`: compiled into the binary).
    pub origin: Option<Arc<Origin>>,
}

/// The table slot `slot` takes: `given` if the file has one, else the registry's default for
/// the slot (an error at the slot's key when there is none).
pub fn table_for(
    registry: &Registry,
    slot: &Slot,
    given: Option<&PluginTable>,
    at: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<PluginTable, ScenarioError> {
    if let Some(t) = given {
        return Ok(t.clone());
    }
    let d = registry.default_choice(slot.key).ok_or_else(|| {
        at(
            slot.key,
            format!(
                "missing: this binary registers no default {} for [{}]; choose one of: {}",
                slot.kind.key(),
                slot.key,
                registry.names_of(slot.kind).join(", ")
            ),
        )
    })?;
    debug_assert_eq!(
        d.kind, slot.kind,
        "default of the wrong kind at {}",
        slot.key
    );
    Ok(PluginTable {
        name: d.name.clone(),
        params: d.params.clone(),
    })
}

/// The plugin of `table` at `slot` resolved in `registry`; its errors as scenario errors at
/// the slot's key or at the parameter's key below it.
pub fn resolve(
    registry: &Registry,
    slot: &Slot,
    table: &PluginTable,
    at: &dyn Fn(&str, String) -> ScenarioError,
) -> Result<AnyResolved, ScenarioError> {
    let key = slot.key;
    registry
        .resolve_kind(slot.kind, &table.name, &table.params)
        .map_err(|e| match e {
            PluginError::Unknown { .. } => at(&format!("{key}.name"), e.to_string()),
            PluginError::InvalidParam { path, message } => {
                let full = if path.is_empty() {
                    key.to_string()
                } else {
                    format!("{key}.{path}")
                };
                at(
                    &full,
                    format!("{} `{}`: {message}", slot.kind.key(), table.name),
                )
            }
            PluginError::Build(m) => at(key, m),
        })
}

/// Where a scenario file holds the table of one of its slots.
pub enum TableMut<'a> {
    /// A table the file may leave out.
    Optional(&'a mut Option<PluginTable>),
    /// A table the file must give (`[receiver.buffer]`).
    Given(&'a PluginTable),
    /// A table with [inline parameters](Slot::inline): the plugin's name if the file gives
    /// one, and the parameters.
    Inline {
        /// The plugin's name.
        name: &'a Option<String>,
        /// Its parameters (the table's other keys).
        params: &'a mut toml::Table,
    },
}

/// A scenario file whose tables choose plugins (implemented by `slot_tables!`).
pub trait SlotTables {
    /// The file's table at `slot`, one of its system's slots.
    fn table_mut(&mut self, slot: &Slot) -> TableMut<'_>;
}

/// A field of a scenario file that holds a slot's table: how [`Resolution::resolve`] reads
/// it and writes the default back.
pub trait SlotField {
    /// The field as a slot's table.
    fn as_table(&mut self) -> TableMut<'_>;
}

/// A table the file may leave out.
impl SlotField for Option<PluginTable> {
    fn as_table(&mut self) -> TableMut<'_> {
        TableMut::Optional(self)
    }
}

/// A table the file must give.
impl SlotField for PluginTable {
    fn as_table(&mut self) -> TableMut<'_> {
        TableMut::Given(self)
    }
}

/// Declares a system's slots beside the fields of its scenario file that hold them: the
/// constant of each slot (a [`SlotOf`] of its kind), the list of them in the order reports show
/// them, and the file's [`SlotTables`]. One line per slot:
///
/// ```ignore
/// slot_tables! {
///     /// The tables of an on-demand scenario that choose a plugin.
///     pub const SLOTS for ScenarioFile;
///     /// `[disk.scheduler]`
///     pub const DISK_SCHEDULER: dyn DiskScheduler = SlotOf::own() => disk.scheduler;
/// }
/// ```
///
/// The field (`self.disk.scheduler`) is a [`SlotField`]: an `Option<PluginTable>`, a
/// `PluginTable`, or a section with inline parameters.
macro_rules! slot_tables {
    (
        $(#[$list_doc:meta])*
        $list_vis:vis const $list:ident for $file:ty;
        $(
            $(#[$doc:meta])*
            $vis:vis const $name:ident: $kind:ty = $slot:expr => $($field:ident).+;
        )+
    ) => {
        $(
            $(#[$doc])*
            $vis const $name: $crate::scenario::slots::SlotOf<$kind> = $slot;
        )+

        $(#[$list_doc])*
        $list_vis const $list: &[$crate::scenario::slots::Slot] = &[$($name.slot()),+];

        impl $crate::scenario::slots::SlotTables for $file {
            fn table_mut(
                &mut self,
                slot: &$crate::scenario::slots::Slot,
            ) -> $crate::scenario::slots::TableMut<'_> {
                $(
                    if slot.key == $name.key {
                        return $crate::scenario::slots::SlotField::as_table(
                            &mut self.$($field).+,
                        );
                    }
                )+
                unreachable!("no slot {} in {}", slot.key, stringify!($file))
            }
        }
    };
}
pub(crate) use slot_tables;

/// The plugins a scenario file chose at its system's slots, resolved against a registry.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// Each slot's plugin as the manifest records it (a slot left empty has none).
    pub chosen: Vec<Chosen>,
    /// The plugins, in the order of `chosen`.
    resolved: Vec<AnyResolved>,
}

impl Resolution {
    /// Resolves `slots` in the order given (the order their errors are reported in): the
    /// file's table, else the registry's default (an error when there is none), else, for an
    /// [optional](Slot::optional) slot, nothing. The default is written into `file` as each
    /// slot's flags say, so that `resolved_scenario` shows what ran.
    pub fn resolve<'s>(
        slots: impl IntoIterator<Item = &'s Slot>,
        file: &mut impl SlotTables,
        registry: &Registry,
        at: &dyn Fn(&str, String) -> ScenarioError,
    ) -> Result<Resolution, ScenarioError> {
        let mut out = Resolution::default();
        for slot in slots {
            let table = file.table_mut(slot);
            let (given, extra) = match &table {
                TableMut::Optional(t) => ((*t).clone(), None),
                TableMut::Given(t) => (Some((*t).clone()), None),
                TableMut::Inline { name, params } => (
                    name.as_ref().map(|name| PluginTable {
                        name: name.clone(),
                        params: (*params).clone(),
                    }),
                    Some((*params).clone()),
                ),
            };
            let named = given.is_some();
            if !named && !slot.has_default {
                continue;
            }
            let mut chosen = table_for(registry, slot, given.as_ref(), at)?;
            if let (false, Some(extra)) = (named, extra) {
                chosen.params.extend(extra);
            }
            let r = resolve(registry, slot, &chosen, at)?;
            match table {
                TableMut::Optional(t) if !(named || slot.recorded_when_chosen) => {
                    *t = Some(chosen);
                }
                TableMut::Inline { params, .. } if !named => {
                    *params = params_table(r.params());
                }
                _ => {}
            }
            out.chosen.push(Chosen {
                key: slot.key,
                name: r.name(),
                params: r.params().clone(),
                named,
                origin: r.origin().cloned(),
            });
            out.resolved.push(r);
        }
        Ok(out)
    }

    /// The plugin chosen at `slot`, if any (a slot without a default that the file left
    /// empty has none).
    pub fn get<K: PluginKind + ?Sized>(&self, slot: &SlotOf<K>) -> Option<&Resolved<K>> {
        let i = self.chosen.iter().position(|c| c.key == slot.key)?;
        self.resolved[i].get::<K>()
    }

    /// The plugin at `slot`, a slot [with a default](Slot::has_default) or one its file must
    /// give: one was resolved.
    ///
    /// # Panics
    /// If the slot has none (a slot without a default, or one not resolved: a wiring bug).
    pub fn required<K: PluginKind + ?Sized>(&self, slot: &SlotOf<K>) -> &Resolved<K> {
        self.get(slot)
            .unwrap_or_else(|| panic!("slot {} resolved", slot.key))
    }

    /// Orders the chosen plugins as `slots` lists their slots (the order reports show).
    pub fn sort_as(&mut self, slots: &[Slot]) {
        let mut both: Vec<(Chosen, AnyResolved)> = std::mem::take(&mut self.chosen)
            .into_iter()
            .zip(std::mem::take(&mut self.resolved))
            .collect();
        both.sort_by_key(|(c, _)| slots.iter().position(|s| s.key == c.key));
        (self.chosen, self.resolved) = both.into_iter().unzip();
    }
}

/// Checks a system's [`SlotTables`] against its file's fields, for the system's tests: for
/// each of `slots`, `base` (a file with the tables it must have) plus a table at the slot's
/// key naming the plugin `probe-<key>` parses as `F`, and the table `F` gives for the slot
/// names that plugin.
#[cfg(test)]
pub(crate) fn assert_tables_at_keys<F>(base: &toml::Table, slots: &[Slot])
where
    F: SlotTables + serde::de::DeserializeOwned,
{
    for slot in slots {
        let probe = format!("probe-{}", slot.key);
        let mut file = base.clone();
        let mut table = &mut file;
        for k in slot.path() {
            table = table
                .entry(k)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .unwrap_or_else(|| panic!("{k} of {} is not a table in the base", slot.key));
        }
        table.insert("name".into(), toml::Value::String(probe.clone()));
        let mut file: F = toml::Value::Table(file)
            .try_into()
            .unwrap_or_else(|e| panic!("a table at [{}] does not parse: {e}", slot.key));
        let name = match file.table_mut(slot) {
            TableMut::Optional(t) => t.as_ref().map(|t| t.name.clone()),
            TableMut::Given(t) => Some(t.name.clone()),
            TableMut::Inline { name, .. } => name.clone(),
        };
        assert_eq!(
            name.as_deref(),
            Some(probe.as_str()),
            "slot {} reads another field than its key's",
            slot.key
        );
    }
}

/// The manifest's `plugins` object: every chosen plugin by slot key, with its parameters
/// (slots [recorded only when chosen](Slot::recorded_when_chosen) left out unless named).
pub fn manifest_lines(slots: &[Slot], chosen: &[Chosen]) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for slot in slots {
        let Some(c) = chosen.iter().find(|c| c.key == slot.key) else {
            continue;
        };
        if slot.recorded_when_chosen && !c.named {
            continue;
        }
        let mut line = serde_json::json!({ "name": c.name, "params": c.params });
        if let Some(o) = &c.origin {
            line["library"] = serde_json::json!({ "path": o.path, "sha256": o.sha256 });
        }
        out.insert(c.key.to_string(), line);
    }
    serde_json::Value::Object(out)
}

/// A resolved plugin's parameters as a TOML table (JSON `null`s, unset options, left out).
pub fn params_table(params: &serde_json::Value) -> toml::Table {
    fn value(v: &serde_json::Value) -> Option<toml::Value> {
        Some(match v {
            serde_json::Value::Null => return None,
            serde_json::Value::Bool(b) => toml::Value::Boolean(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => toml::Value::Integer(i),
                None => toml::Value::Float(n.as_f64()?),
            },
            serde_json::Value::String(s) => toml::Value::String(s.clone()),
            serde_json::Value::Array(a) => toml::Value::Array(a.iter().filter_map(value).collect()),
            serde_json::Value::Object(o) => toml::Value::Table(
                o.iter()
                    .filter_map(|(k, v)| Some((k.clone(), value(v)?)))
                    .collect(),
            ),
        })
    }
    match params {
        serde_json::Value::Object(o) => o
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), value(v)?)))
            .collect(),
        _ => toml::Table::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn manifest_lines_leave_out_defaulted_optional_slots() {
        let slots = [
            Slot::of(Kind::DiskScheduler),
            Slot::of(Kind::Admission).recorded_when_chosen(),
        ];
        let chosen = |named| {
            vec![
                Chosen {
                    key: "disk.scheduler",
                    name: "elevator",
                    params: json!({}),
                    named: false,
                    origin: None,
                },
                Chosen {
                    key: "admission",
                    name: "static-limit",
                    params: json!({"max_streams": 3}),
                    named,
                    origin: None,
                },
            ]
        };
        assert_eq!(
            manifest_lines(&slots, &chosen(false)),
            json!({"disk.scheduler": {"name": "elevator", "params": {}}})
        );
        assert_eq!(
            manifest_lines(&slots, &chosen(true))["admission"]["params"]["max_streams"],
            3
        );
    }

    #[test]
    fn params_become_a_table_without_nulls() {
        let t = params_table(&json!({"a": "5us", "b": null, "c": [1, 2.5], "d": true}));
        assert_eq!(
            toml::to_string(&t).unwrap(),
            "a = \"5us\"\nc = [1, 2.5]\nd = true\n"
        );
    }
}
