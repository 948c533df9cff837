//! Named constructors for every plugin kind, and the default plugin of each kind.

use super::context::BuildContext;
use super::error::PluginError;
use super::kinds::{
    AnyResolved, Entry, EntryInfo, Kind, ParamInfo, ParamsFn, ParseFn, PluginKind, Tables,
};
use super::resolved::{BuildFn, Origin, Resolved};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A plugin: a named, documented constructor for one of the [`Kind`]s.
///
/// Implement it on a marker type (or on the policy itself) and add it with
/// [`Registry::add`]. `Params` is the plugin's scenario table without `name`; declare it with
/// `#[serde(deny_unknown_fields)]` and `#[serde(default)]` so that unknown keys are errors and
/// omitted keys take documented defaults. Doc comments on its fields become the parameter
/// descriptions shown by `vodbench plugins`.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
/// use vodbench_plugin_api::ids::RequestId;
/// use vodbench_plugin_api::plugin::*;
///
/// #[derive(Default)]
/// struct Lifo(Vec<RequestId>);
/// impl DiskScheduler for Lifo {
///     fn enqueue(&mut self, r: QueuedRequest) { self.0.push(r.id) }
///     fn dequeue(&mut self, _h: &HeadState) -> Option<RequestId> { self.0.pop() }
///     fn len(&self) -> usize { self.0.len() }
/// }
///
/// #[derive(Default, Serialize, Deserialize, JsonSchema)]
/// #[serde(deny_unknown_fields, default)]
/// struct NoParams {}
///
/// impl Plugin for Lifo {
///     type Kind = dyn DiskScheduler;
///     type Params = NoParams;
///     const NAME: &'static str = "lifo";
///     const DESCRIPTION: &'static str = "last in, first out (an unfair example)";
///     fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
///         Ok(Box::new(Lifo::default()))
///     }
/// }
///
/// let mut registry = Registry::new();
/// registry.add::<Lifo>();
/// assert_eq!(registry.entries::<dyn DiskScheduler>()[0].name, "lifo");
/// ```
pub trait Plugin: 'static {
    /// The trait object this plugin builds (`dyn DiskScheduler`, ...).
    type Kind: ?Sized + PluginKind;
    /// Parameters, read from the plugin's scenario table.
    type Params: DeserializeOwned + Serialize + JsonSchema + Send + Sync + 'static;
    /// The name scenarios select it by (`elevator`).
    const NAME: &'static str;
    /// One line for `vodbench plugins`.
    const DESCRIPTION: &'static str;
    /// Checks parameter values beyond their types (ranges, consistency). Errors name the key.
    fn validate(_params: &Self::Params) -> Result<(), PluginError> {
        Ok(())
    }
    /// Builds one instance (one per disk for disk models and schedulers, one per node for
    /// buffer pools, one per run for prefetchers, layouts, interconnects and admission
    /// policies).
    fn build(params: &Self::Params, ctx: &BuildContext<'_>)
        -> Result<Box<Self::Kind>, PluginError>;
}

/// Extracts a listing of parameters from a params type's JSON schema.
fn params_of<P: JsonSchema + Serialize + DeserializeOwned>() -> Vec<ParamInfo> {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<P>();
    let defaults: Option<serde_json::Value> = toml::from_str::<P>("")
        .ok()
        .and_then(|p| serde_json::to_value(&p).ok());
    params_of_schema(schema.as_value(), defaults.as_ref())
}

/// A listing of parameters from a parameters object's JSON schema (`properties`, `required`,
/// `$defs`), with the defaults `defaults` gives (else each property's `default`).
pub fn params_of_schema(
    value: &serde_json::Value,
    defaults: Option<&serde_json::Value>,
) -> Vec<ParamInfo> {
    let Some(props) = value.get("properties").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    let defs = value.get("$defs");
    let required = |name: &str| {
        value
            .get("required")
            .and_then(|r| r.as_array())
            .is_some_and(|r| r.iter().any(|n| n == name))
    };
    props
        .iter()
        .map(|(name, prop)| ParamInfo {
            name: name.clone(),
            ty: super::param_schema::type_name(prop, defs),
            default: defaults
                .and_then(|d| d.get(name))
                .or_else(|| prop.get("default"))
                .cloned(),
            description: prop
                .get("description")
                .and_then(|d| d.as_str())
                .unwrap_or("")
                .to_string(),
            schema: super::param_schema::inline_refs(prop, defs),
            required: required(name),
        })
        .collect()
}

fn parse_erased<P: Plugin>(
    table: &toml::Table,
) -> Result<(serde_json::Value, Arc<dyn Any + Send + Sync>), PluginError> {
    let value = toml::Value::Table(table.clone());
    let params: P::Params = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        PluginError::InvalidParam {
            path: if path == "." { String::new() } else { path },
            message: e.into_inner().to_string().trim_end().to_string(),
        }
    })?;
    P::validate(&params)?;
    let json = serde_json::to_value(&params).map_err(|e| PluginError::Build(e.to_string()))?;
    Ok((json, Arc::new(params)))
}

fn build_erased<P: Plugin>(
    typed: &(dyn Any + Send + Sync),
    ctx: &BuildContext<'_>,
) -> Result<Box<P::Kind>, PluginError> {
    let params = typed
        .downcast_ref::<P::Params>()
        .ok_or_else(|| PluginError::Build(format!("{}: parameters of the wrong type", P::NAME)))?;
    P::build(params, ctx)
}

/// A plugin loaded at run time, as [`Registry::add_loaded`] registers it.
pub struct Loaded<K: ?Sized> {
    /// Scenario name (a library's names live as long as the process).
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Its parameters, for `vodbench plugins`.
    pub params: ParamsFn,
    /// Checks a scenario table.
    pub parse: ParseFn,
    /// Builds an instance.
    pub build: BuildFn<K>,
}

impl<K: ?Sized + 'static> Loaded<K> {
    /// A loaded plugin whose parameters travel as JSON (a library's or a Python class's):
    /// `parse` checks a scenario table and gives its parameters, defaults filled in, as JSON
    /// (what manifests record); `create` makes an instance from that JSON's text.
    pub fn with_json_params(
        name: &'static str,
        description: &'static str,
        params: ParamsFn,
        parse: impl Fn(&toml::Table) -> Result<serde_json::Value, PluginError> + Send + Sync + 'static,
        create: impl Fn(&str, &BuildContext<'_>) -> Result<Box<K>, PluginError> + Send + Sync + 'static,
    ) -> Loaded<K> {
        let parse: ParseFn = Arc::new(move |table: &toml::Table| {
            let json = parse(table)?;
            let text: Arc<dyn Any + Send + Sync> = Arc::new(json.to_string());
            Ok((json, text))
        });
        let build: BuildFn<K> = Arc::new(move |typed, ctx| {
            let text = typed.downcast_ref::<String>().ok_or_else(|| {
                PluginError::Build(format!("{name}: parameters of the wrong type"))
            })?;
            create(text, ctx)
        });
        Loaded {
            name,
            description,
            params,
            parse,
            build,
        }
    }
}

/// A default: the plugin a scenario gets at a table where it chooses none, with the
/// parameters it is given then.
#[derive(Clone, Debug, PartialEq)]
pub struct DefaultChoice {
    /// The plugin's kind.
    pub kind: Kind,
    /// Plugin name.
    pub name: String,
    /// Its parameters (a plugin table without `name`).
    pub params: toml::Table,
}

/// Every plugin the binary knows, by kind and name, and each kind's default.
///
/// The harness registers nothing itself: the `vodbench` binary (or a third-party binary) adds
/// the built-ins (`vodbench_plugins::register_all`, which also sets the defaults) and its
/// own plugins, then hands the registry to the command line.
#[derive(Default, Clone)]
pub struct Registry {
    tables: Tables,
    defaults: BTreeMap<String, DefaultChoice>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers plugin `P` under `P::NAME`.
    ///
    /// # Panics
    /// If a plugin of the same kind is already registered under that name — a wiring bug in
    /// the binary, not a user error.
    pub fn add<P: Plugin>(&mut self) -> &mut Self {
        let table = <P::Kind as PluginKind>::table_mut(&mut self.tables);
        assert!(
            table.iter().all(|e| e.name != P::NAME),
            "{} `{}` registered twice",
            <P::Kind as PluginKind>::KIND.key(),
            P::NAME
        );
        table.push(Entry::new(
            P::NAME,
            P::DESCRIPTION,
            None,
            Arc::new(params_of::<P::Params>),
            Arc::new(parse_erased::<P>),
            Arc::new(build_erased::<P>),
        ));
        table.sort_by_key(|e| e.name);
        self
    }

    /// Registers a plugin of kind `K` that was loaded from a library (`origin`) at run time:
    /// what [`add`](Registry::add) does for a compiled-in [`Plugin`], with the name,
    /// description, parameter listing, parameter check and builder given as values.
    ///
    /// A name that another plugin of the same kind already has is refused, naming where
    /// both come from.
    pub fn add_loaded<K: PluginKind + ?Sized>(
        &mut self,
        loaded: Loaded<K>,
        origin: Arc<Origin>,
    ) -> Result<&mut Self, PluginError> {
        let table = K::table_mut(&mut self.tables);
        if let Some(e) = table.iter().find(|e| e.name == loaded.name) {
            let first = match &e.origin {
                None => "a built-in".to_string(),
                Some(o) => format!("one from {o}"),
            };
            return Err(PluginError::Build(format!(
                "{origin}: {} `{}` is already registered ({first}); rename one of them",
                K::KIND.key(),
                loaded.name
            )));
        }
        table.push(Entry::new(
            loaded.name,
            loaded.description,
            Some(origin),
            loaded.params,
            loaded.parse,
            loaded.build,
        ));
        table.sort_by_key(|e| e.name);
        Ok(self)
    }

    /// Every library a registered plugin comes from, each once, sorted by path.
    pub fn origins(&self) -> Vec<Arc<Origin>> {
        let mut out: Vec<Arc<Origin>> = Kind::ALL
            .iter()
            .flat_map(|&k| self.infos(k))
            .filter_map(|e| e.origin)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Makes `name`, with `params`, the plugin of kind `K` that a scenario gets at the table
    /// `slot` (`disk.model`; `receiver.disk` for a broadcast receiver's disk) when it chooses
    /// none there, replacing an earlier default.
    ///
    /// ```
    /// # use vodbench_plugin_api::plugin::*;
    /// # #[derive(Default, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    /// # #[serde(deny_unknown_fields, default)]
    /// # struct NoParams {}
    /// # struct Fifo;
    /// # impl DiskScheduler for Fifo {
    /// #     fn enqueue(&mut self, _: QueuedRequest) {}
    /// #     fn dequeue(&mut self, _: &HeadState) -> Option<vodbench_plugin_api::ids::RequestId> { None }
    /// #     fn len(&self) -> usize { 0 }
    /// # }
    /// # impl Plugin for Fifo {
    /// #     type Kind = dyn DiskScheduler;
    /// #     type Params = NoParams;
    /// #     const NAME: &'static str = "fifo";
    /// #     const DESCRIPTION: &'static str = "first come, first served";
    /// #     fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
    /// #         Ok(Box::new(Fifo))
    /// #     }
    /// # }
    /// let mut registry = Registry::new();
    /// registry.add::<Fifo>();
    /// registry.set_default::<dyn DiskScheduler>("disk.scheduler", "fifo", toml::Table::new());
    /// let d = registry.default_choice("disk.scheduler").unwrap();
    /// assert_eq!((d.kind, d.name.as_str()), (Kind::DiskScheduler, "fifo"));
    /// ```
    ///
    /// # Panics
    /// If no plugin of kind `K` is registered under `name`, or `params` are not valid for it —
    /// a wiring bug in the binary, not a user error.
    pub fn set_default<K: PluginKind + ?Sized>(
        &mut self,
        slot: &str,
        name: &str,
        params: toml::Table,
    ) -> &mut Self {
        if let Err(e) = self.resolve::<K>(name, &params) {
            panic!(
                "default {} `{name}` at `{slot}` does not resolve: {e}",
                K::KIND.key()
            );
        }
        self.defaults.insert(
            slot.to_string(),
            DefaultChoice {
                kind: K::KIND,
                name: name.to_string(),
                params,
            },
        );
        self
    }

    /// The plugin a scenario gets at table `slot` when it chooses none there.
    pub fn default_choice(&self, slot: &str) -> Option<&DefaultChoice> {
        self.defaults.get(slot)
    }

    /// The registered plugins of one kind, sorted by name.
    pub fn entries<K: PluginKind + ?Sized>(&self) -> &[Entry<K>] {
        K::table(&self.tables)
    }

    /// Names of the registered plugins of one kind.
    pub fn names<K: PluginKind + ?Sized>(&self) -> Vec<&'static str> {
        K::table(&self.tables).iter().map(|e| e.name).collect()
    }

    /// The registered plugins of `kind` (name, description, parameters), sorted by name:
    /// what code that goes through every kind reads ([`Kind::ALL`]).
    pub fn infos(&self, kind: Kind) -> Vec<EntryInfo> {
        self.tables.infos(kind)
    }

    /// Names of the registered plugins of `kind`, sorted.
    pub fn names_of(&self, kind: Kind) -> Vec<&'static str> {
        self.infos(kind).iter().map(|e| e.name).collect()
    }

    /// Chooses plugin `name` of kind `K` and checks its parameters (`params` is the scenario
    /// table without `name`).
    pub fn resolve<K: PluginKind + ?Sized>(
        &self,
        name: &str,
        params: &toml::Table,
    ) -> Result<Resolved<K>, PluginError> {
        let table = K::table(&self.tables);
        let entry = table
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| PluginError::Unknown {
                kind: K::KIND.key(),
                name: name.to_string(),
                known: table.iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
            })?;
        let (json, typed) = (entry.parse)(params)?;
        Ok(Resolved::new(
            entry.name,
            json,
            entry.origin.clone(),
            typed,
            Arc::clone(&entry.build),
        ))
    }

    /// [`resolve`](Registry::resolve) for a kind known only at run time (a system's slots go
    /// through their kinds this way): the same plugin, the same errors.
    ///
    /// ```
    /// # use vodbench_plugin_api::plugin::*;
    /// # struct Fifo;
    /// # impl DiskScheduler for Fifo {
    /// #     fn enqueue(&mut self, _: QueuedRequest) {}
    /// #     fn dequeue(&mut self, _: &HeadState) -> Option<vodbench_plugin_api::ids::RequestId> { None }
    /// #     fn len(&self) -> usize { 0 }
    /// # }
    /// # impl Plugin for Fifo {
    /// #     type Kind = dyn DiskScheduler;
    /// #     type Params = NoParams;
    /// #     const NAME: &'static str = "fifo";
    /// #     const DESCRIPTION: &'static str = "first come, first served";
    /// #     fn build(_: &NoParams, _: &BuildContext<'_>) -> Result<Box<dyn DiskScheduler>, PluginError> {
    /// #         Ok(Box::new(Fifo))
    /// #     }
    /// # }
    /// let mut registry = Registry::new();
    /// registry.add::<Fifo>();
    /// let any = registry.resolve_kind(Kind::DiskScheduler, "fifo", &toml::Table::new()).unwrap();
    /// assert_eq!((any.kind(), any.name()), (Kind::DiskScheduler, "fifo"));
    /// assert!(any.get::<dyn DiskScheduler>().is_some());
    /// assert!(any.get::<dyn Admission>().is_none());
    /// ```
    pub fn resolve_kind(
        &self,
        kind: Kind,
        name: &str,
        params: &toml::Table,
    ) -> Result<AnyResolved, PluginError> {
        super::kinds::resolve_kind(self, kind, name, params)
    }

    /// [`resolve`](Registry::resolve) for a kind known only at run time: the plugin's name
    /// and its parameters with defaults filled in, or why they are not valid.
    pub fn check(
        &self,
        kind: Kind,
        name: &str,
        params: &toml::Table,
    ) -> Result<(&'static str, serde_json::Value), PluginError> {
        let infos = self.infos(kind);
        let entry = infos
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| PluginError::Unknown {
                kind: kind.key(),
                name: name.to_string(),
                known: infos.iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
            })?;
        let (json, _) = (entry.parse)(params)?;
        Ok((entry.name, json))
    }

    /// Every registered plugin: kind, name, description and parameters, kind by kind in the
    /// order of [`Kind::ALL`], names sorted.
    pub fn listing(&self) -> Vec<(Kind, &'static str, &'static str, Vec<ParamInfo>)> {
        Kind::ALL
            .iter()
            .flat_map(|&k| self.infos(k))
            .map(|e| (e.kind, e.name, e.description, e.params()))
            .collect()
    }
}
