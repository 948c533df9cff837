//! Disk timing models ([`DiskModel`](vodbench_plugin_api::plugin::DiskModel)).

pub mod analytic;
pub mod array;
#[cfg(feature = "disksim")]
pub mod disksim;
pub mod linear;
pub mod mechanical;

use vodbench_plugin_api::plugin::{slot_keys, DiskModel, Kind, Registry};

/// Registers the built-in disk models, and the defaults: `analytic` (spec `st15150n`) at `[disk.model]`, `linear` at `[receiver.disk]`, `mechanical` for `vodbench disk replay`.
pub fn register(r: &mut Registry) {
    r.add::<analytic::Analytic>();
    r.add::<array::Array>();
    r.add::<linear::Linear>();
    r.add::<mechanical::Mechanical>();
    #[cfg(feature = "disksim")]
    r.add::<disksim::DiskSim>();
    let none = toml::Table::new;
    let spec = toml::Table::from_iter([("spec".to_string(), toml::Value::from("st15150n"))]);
    r.set_default::<dyn DiskModel>(Kind::DiskModel.key(), "analytic", spec);
    // a broadcast receiver's disk
    r.set_default::<dyn DiskModel>(slot_keys::RECEIVER_DISK, "linear", none());
    // `vodbench disk replay` without `--model`: the DiskSim-accurate model
    r.set_default::<dyn DiskModel>(slot_keys::DISK_REPLAY, "mechanical", none());
}
