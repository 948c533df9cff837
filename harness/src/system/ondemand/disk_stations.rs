//! The disks as a run builds them from its scenario: each storage disk's `[disk.model]` and
//! `[disk.scheduler]` (the scheduler seeing the model's geometry), each with a random stream
//! of its own; then the dedicated interface nodes' local disks (`[server.replication]`); then
//! the SCSI buses (`[server.bus]`) they sit on.

use super::bus::BusConfig;
use super::disk::{DiskStation, Disks};
use super::replication::Replication;
use super::scenario::{Scenario, ScenarioError, ServerSection, DISK_MODEL, DISK_SCHEDULER};
use super::setup::Setup;
use crate::plugin::{DiskGeometry, DiskModel, DiskScheduler};

/// The disk stations built so far, and the geometry of the first.
pub(super) struct DiskStations {
    stations: Vec<DiskStation>,
    geometry: Option<DiskGeometry>,
}

impl DiskStations {
    /// The storage nodes' disks.
    pub fn build(setup: &Setup<'_>) -> Result<Self, ScenarioError> {
        let scenario = setup.scenario;
        let ndisks = scenario.disks();
        let per_node = scenario.file.server.disks_per_node;
        let mut stations = Vec::with_capacity(ndisks as usize);
        let mut geometry = None;
        for d in 0..ndisks {
            let (model, sched) = disk(setup, d)?;
            if d == 0 {
                check_buffered_bus(scenario, model.as_ref())?;
            }
            geometry.get_or_insert(model.geometry());
            stations.push(DiskStation::new(d / per_node, model, sched));
        }
        Ok(DiskStations { stations, geometry })
    }

    /// The dedicated interface nodes' local disks (`[server.replication]`): the storage
    /// disks' model and scheduler, each with a random stream of its own, each holding its
    /// share of the popular object.
    pub fn add_local(
        &mut self,
        setup: &Setup<'_>,
        repl: &Replication,
    ) -> Result<(), ScenarioError> {
        let scenario = setup.scenario;
        let ndisks = scenario.disks();
        let per_node = repl.disks_per_node();
        for l in 0..repl.local_disks() {
            let (model, sched) = disk(setup, ndisks + l)?;
            let g = model.geometry();
            // a popular object (at most the longest video) must fit its share of the disks
            let longest = setup.blocks.iter().copied().max().unwrap_or(0);
            let per_disk = u64::from(longest.div_ceil(per_node)) * setup.block_bytes;
            if per_disk > g.capacity_bytes {
                return Err(ScenarioError::Invalid {
                    file: scenario.path.clone(),
                    line: scenario
                        .source
                        .line_of_key("server.replication.local_disks")
                        .or_else(|| scenario.source.line_of_key("server.replication")),
                    key: "server.replication.local_disks".into(),
                    message: format!(
                        "the popular object needs {per_disk} bytes on each of {per_node} \
                         local disks, but a disk holds {} ([disk.model]): give more local disks",
                        g.capacity_bytes
                    ),
                });
            }
            self.stations
                .push(DiskStation::new(repl.local_disk_node(l), model, sched));
        }
        Ok(())
    }

    /// The first storage disk's geometry (what the layout and the prefetcher see).
    pub fn geometry(&self) -> Option<DiskGeometry> {
        self.geometry
    }

    /// Every disk, on the scenario's buses if it has any.
    pub fn into_disks(self, scenario: &Scenario, figures_only: bool) -> Disks {
        let f = &scenario.file;
        let disks = Disks::new(
            self.stations,
            scenario.plugins.required(&DISK_MODEL).name,
            scenario.plugins.required(&DISK_SCHEDULER).name,
            f.run.request_sample_every,
            figures_only,
        );
        with_buses(disks, &f.server)
    }
}

/// A disk's model and its scheduler.
type ModelAndScheduler = (Box<dyn DiskModel>, Box<dyn DiskScheduler>);

/// Disk `d`'s model and its scheduler (which sees the model's geometry).
fn disk(setup: &Setup<'_>, d: u32) -> Result<ModelAndScheduler, ScenarioError> {
    let p = &setup.scenario.plugins;
    let (model, sched) = (p.required(&DISK_MODEL), p.required(&DISK_SCHEDULER));
    let name = model.name;
    let model = model
        .build(&setup.context("disk", u64::from(d)))
        .map_err(setup.plugin_error(DISK_MODEL.key, name))?;
    // a loaded model's geometry is an answer like any other: a disk has a cylinder and a byte
    let g = model.geometry();
    if g.cylinders == 0 || g.capacity_bytes == 0 {
        let e = crate::plugin::PluginError::Build(format!(
            "its geometry has {} cylinders and {} bytes; a disk has at least one of each",
            g.cylinders, g.capacity_bytes
        ));
        return Err(setup.plugin_error(DISK_MODEL.key, name)(e));
    }
    let mut c = setup.context(DISK_SCHEDULER.key, u64::from(d));
    c.geometry = Some(model.geometry());
    let sched = sched
        .build(&c)
        .map_err(setup.plugin_error(DISK_SCHEDULER.key, sched.name))?;
    Ok((model, sched))
}

/// Refuses `[server.bus] buffered = true` in front of a disk model whose transfer already
/// carries the data over the drive's own bus ([`DiskModel::transfer_includes_bus`]): the
/// media read and the model's bus would take place before the burst at the bus rate, and
/// the bus would be counted twice. Unbuffered, the transfer holds the bus for the longer of
/// the model's transfer and the bus time, which counts it once.
fn check_buffered_bus(scenario: &Scenario, model: &dyn DiskModel) -> Result<(), ScenarioError> {
    let buffered = scenario
        .file
        .server
        .bus
        .as_ref()
        .is_some_and(|b| b.buffered);
    if !buffered || !model.transfer_includes_bus() {
        return Ok(());
    }
    let line = |k: &str| scenario.source.line_of_key(k);
    Err(ScenarioError::Invalid {
        file: scenario.path.clone(),
        line: line("server.bus.buffered").or_else(|| line("server.bus")),
        key: "server.bus.buffered".into(),
        message: format!(
            "buffered = true with disk model `{}`, whose transfer already moves the data \
             over the drive's own bus: the burst at the bus rate after it would count the \
             bus twice; use buffered = false (the transfer then holds the bus for the longer \
             of the model's transfer and the bus time) or a model of the media alone \
             (`analytic`, `linear`)",
            scenario.plugins.required(&DISK_MODEL).name
        ),
    })
}

/// The disks on the scenario's SCSI buses (`[server.bus]`), if it has any.
fn with_buses(disks: Disks, s: &ServerSection) -> Disks {
    match &s.bus {
        None => disks,
        Some(b) => disks.with_buses(
            BusConfig {
                rate: b.rate,
                command: b.command.sim(),
                disconnect: b.disconnect,
                buffered: b.buffered,
                arbitration: b.arbitration,
            },
            s.disks_per_node,
            b.disks_per_bus.unwrap_or(s.disks_per_node),
        ),
    }
}
