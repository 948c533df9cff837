//! A plugin chosen and configured by a scenario ([`Resolved`]): its builder ([`BuildFn`]) and
//! where it came from ([`Origin`]). The registry makes one from a scenario's table; the kinds
//! table's `AnyResolved` holds one of any kind.

use super::context::BuildContext;
use super::error::PluginError;
use serde::Serialize;
use std::any::Any;
use std::sync::Arc;

/// Builds one instance from parameters a [`ParseFn`] made.
pub type BuildFn<T> = Arc<
    dyn Fn(&(dyn Any + Send + Sync), &BuildContext<'_>) -> Result<Box<T>, PluginError>
        + Send
        + Sync,
>;

/// Where a registered plugin comes from: a shared library loaded at run time (`--plugin`,
/// `[plugins] load`), by its path and the SHA-256 of its bytes. Plugins compiled into the
/// binary have none.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Origin {
    /// The library's path, as it was given (resolved against the scenario's folder for a
    /// scenario's `[plugins] load`).
    pub path: String,
    /// Lower-case hex SHA-256 of the library's bytes when it was loaded.
    pub sha256: String,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "library {}", self.path)
    }
}

/// A plugin chosen and configured by a scenario, ready to build instances.
pub struct Resolved<T: ?Sized> {
    /// Plugin name.
    pub name: &'static str,
    /// Every parameter with defaults filled in (for manifests).
    pub params: serde_json::Value,
    /// The library the plugin was loaded from (`None`: compiled into the binary).
    pub origin: Option<Arc<Origin>>,
    typed: Arc<dyn Any + Send + Sync>,
    build: BuildFn<T>,
}

impl<T: ?Sized> Clone for Resolved<T> {
    fn clone(&self) -> Self {
        Resolved {
            name: self.name,
            params: self.params.clone(),
            origin: self.origin.clone(),
            typed: Arc::clone(&self.typed),
            build: Arc::clone(&self.build),
        }
    }
}

impl<T: ?Sized> std::fmt::Debug for Resolved<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.name, self.params)
    }
}

impl<T: ?Sized> Resolved<T> {
    /// A plugin resolved by the registry: its name, its parameters with defaults filled in,
    /// where it came from, the parameters in its builder's form and its builder.
    pub(super) fn new(
        name: &'static str,
        params: serde_json::Value,
        origin: Option<Arc<Origin>>,
        typed: Arc<dyn Any + Send + Sync>,
        build: BuildFn<T>,
    ) -> Self {
        Resolved {
            name,
            params,
            origin,
            typed,
            build,
        }
    }

    /// Builds one instance.
    pub fn build(&self, ctx: &BuildContext<'_>) -> Result<Box<T>, PluginError> {
        (self.build)(self.typed.as_ref(), ctx)
    }
}
