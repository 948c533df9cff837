//! # vodbench-reports
//!
//! Turns saved run outputs into tables: each [`Table`] of a run becomes a polars `DataFrame`
//! written as CSV (and Parquet on request). Reports read only saved results; they never
//! simulate. The binary installs the writer into the registry with [`install`].
#![deny(missing_docs)]

mod tables;

pub use tables::{to_dataframe, PolarsTableWriter};

use std::sync::Arc;
use vodbench_harness::plugin::Registry;
#[allow(unused_imports)]
use vodbench_harness::results::Table;

/// Installs the polars table writer into `registry`.
pub fn install(registry: &mut Registry) {
    registry.set_table_writer(Arc::new(PolarsTableWriter));
}
