//! The scenario file as a whole: its sections (each in its own file, with its keys,
//! defaults, allowed ranges and section check), its plugin slots (declared below the fields
//! that hold their tables, [`SLOTS`]) and the checks between sections
//! ([`ScenarioFile::validate`]).

use super::{
    CostSection, DiskSection, RunSection, ServerSection, StorageThreading, TerminalSection,
    VideoSection, WorkloadSection,
};
use crate::plugin::{
    Admission, AnalyticModel, BufferPool, DiskModel, DiskScheduler, Interconnect, Layout,
    Prefetcher, Transmission,
};
use crate::scenario::slots::{slot_tables, PluginTable, SlotOf};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A whole scenario file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Name used for the output folder and reports (default: the file name without `.toml`).
    #[serde(default)]
    pub name: Option<String>,
    /// Free text shown in reports.
    #[serde(default)]
    pub description: String,
    /// Seed from which every random stream of the run is derived.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Plugin libraries this scenario loads (`[plugins] load`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<crate::scenario::libraries::PluginsSection>,
    /// Warm-up and measured duration.
    pub run: RunSection,
    /// The video library.
    pub videos: VideoSection,
    /// Server topology: nodes, disks, memory, CPU, network.
    pub server: ServerSection,
    /// Disk timing model and disk scheduler.
    #[serde(default)]
    pub disk: DiskSection,
    /// Data layout plugin (default: the binary's; `striped` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<PluginTable>,
    /// Buffer-pool page replacement plugin (default: the binary's; `global-lru` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_pool: Option<PluginTable>,
    /// Prefetching plugin (default: the binary's; `standard` in vodbench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefetcher: Option<PluginTable>,
    /// Admission control: which new streams are served (default: the binary's; in vodbench
    /// `accept-all`, every stream, as SPIFFI). Recorded in manifests only when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<PluginTable>,
    /// Transmission scheduling on the egress link (Pappas et al. §3.2; no default: without
    /// it a block goes to its terminal as one message over `[server.network]`). Needs
    /// `[server.egress]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transmission: Option<PluginTable>,
    /// Client profiles (Pappas et al. §2.3; with `[transmission]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<super::ClientsSection>,
    /// The video terminals (clients).
    pub terminals: TerminalSection,
    /// Where the viewers' events come from: a trace file or a generator.
    pub workload: WorkloadSection,
    /// How `ff`/`rewind` searches work (SPIFFI §8.1; default: skip, 1s of every 8s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interactive: Option<super::InteractiveSection>,
    /// Start delays for piggybacking viewers of the same video (SPIFFI §8.2; default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub piggyback: Option<super::PiggybackSection>,
    /// Published figures for this configuration (shown as "paper" beside vodbench's values).
    #[serde(default)]
    pub paper: BTreeMap<String, f64>,
    /// Prices of the server's storage, for the cost per terminal `vodbench sweep` reports
    /// (SPIFFI §7.6, Table 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostSection>,
    /// The analytic model `vodbench analyze` evaluates at this configuration (no default:
    /// e.g. `wu-blocksize`; `vodbench plugins` lists them). It changes nothing a run
    /// simulates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analytic: Option<PluginTable>,
}

slot_tables! {
    /// The tables of an on-demand scenario that choose a plugin, in the order reports show
    /// them.
    pub const SLOTS for ScenarioFile;
    /// `[disk.scheduler]`
    pub const DISK_SCHEDULER: dyn DiskScheduler = SlotOf::own() => disk.scheduler;
    /// `[buffer_pool]`
    pub const BUFFER_POOL: dyn BufferPool = SlotOf::own() => buffer_pool;
    /// `[prefetcher]`
    pub const PREFETCHER: dyn Prefetcher = SlotOf::own() => prefetcher;
    /// `[layout]`
    pub const LAYOUT: dyn Layout = SlotOf::own() => layout;
    /// `[disk.model]`
    pub const DISK_MODEL: dyn DiskModel = SlotOf::own() => disk.model;
    /// `[server.network]`: without `name` the default interconnect, the section's other keys
    /// its parameters, written out in full (as the section's keys always were).
    pub const SERVER_NETWORK: dyn Interconnect =
        SlotOf::own().inline().recorded_when_chosen() => server.network;
    /// `[admission]`: a scenario without it is recorded as it was written.
    pub const ADMISSION: dyn Admission = SlotOf::own().recorded_when_chosen() => admission;
    /// `[transmission]` (no default).
    pub const TRANSMISSION: dyn Transmission = SlotOf::own().optional() => transmission;
    /// `[analytic]` (no default).
    pub const ANALYTIC: dyn AnalyticModel = SlotOf::own().optional() => analytic;
}

fn default_seed() -> u64 {
    1
}
/// The longest `description` a scenario may have (64 KiB).
pub const MAX_DESCRIPTION_BYTES: usize = 64 << 10;
impl ScenarioFile {
    /// `[server] interface_memory` against the streams' buffers: it must hold one stream's
    /// (`terminals.memory`), and, when every stream of the load is served (no `[admission]`
    /// table), those of the streams dealt to one interface node: ⌈count / interface_nodes⌉
    /// of them, or every one under `[server.replication]`, whose object manager may send any
    /// share of the viewings to the dedicated interface node.
    fn check_interface_memory(&self, memory: u64) -> Result<(), (String, String)> {
        let s = &self.server;
        let key = "server.interface_memory";
        let size = |v: u64| crate::units::fmt_bytes(v);
        if s.interface_nodes == 0 {
            return Err((
                key.into(),
                "is the memory of each interface node, but there are none: set \
                 server.interface_nodes, or remove it"
                    .into(),
            ));
        }
        let b = self.terminals.memory.0;
        if memory < b {
            return Err((
                key.into(),
                format!(
                    "{} cannot hold even one stream's buffer (terminals.memory = {}): raise it \
                     to at least {}",
                    size(memory),
                    size(b),
                    size(b)
                ),
            ));
        }
        if self.admission.is_some() {
            // streams are admitted against it as the run goes (`buffer` takes this as B_I_tot,
            // and the engine refuses what the policy admits but the memory cannot hold)
            return Ok(());
        }
        let count = u64::from(self.terminals.count);
        let (per, how) = if s.replication.is_some() {
            (
                count,
                "every stream may go to the dedicated one under [server.replication]",
            )
        } else {
            (
                count.div_ceil(u64::from(s.interface_nodes)),
                "dealt round-robin",
            )
        };
        let need = per.saturating_mul(b);
        if need > memory {
            return Err((
                key.into(),
                format!(
                    "{} cannot hold the buffers of the {per} streams one interface node serves \
                     ({count} terminals over {} interface nodes, {how}): {per} × \
                     terminals.memory {} = {}. Raise it to at least {}, lower terminals.count \
                     or terminals.memory, or let admission control refuse streams \
                     ([admission] name = \"buffer\")",
                    size(memory),
                    s.interface_nodes,
                    size(b),
                    size(need),
                    size(need)
                ),
            ));
        }
        Ok(())
    }

    /// Checks every value's range and the consistency between sections, section by section
    /// (each section's own checks beside it). The error names the key path and what is
    /// allowed.
    pub fn validate(&self) -> Result<(), (String, String)> {
        self.validate_egress()?;
        self.validate_server_rounds()?;
        if let Some(c) = &self.clients {
            if self.transmission.is_none() {
                return Err((
                    "clients".into(),
                    "client profiles are used only with [transmission]".into(),
                ));
            }
            c.validate()?;
        }
        self.validate_paper()?;
        if let Some(c) = &self.cost {
            c.validate()?;
        }
        self.run.validate()?;
        self.validate_description()?;
        self.videos.validate()?;
        let s = &self.server;
        s.validate_nodes()?;
        if let Some(c) = &s.interface_cpu {
            c.validate(s.interface_nodes, self.videos.bit_rate.0)?;
        }
        if let Some(m) = &s.message_work {
            m.check(
                s.interface_nodes,
                s.interface_cpu.is_some(),
                s.storage_threading == StorageThreading::Single,
            )?;
        }
        if let Some(m) = s.interface_memory {
            self.check_interface_memory(m.0)?;
        }
        s.validate_storage(self.transmission.is_some())?;
        self.terminals.validate(s.stripe.0)?;
        let blocks = self.videos.nominal_blocks(s.stripe.0);
        if blocks > u64::from(u32::MAX) {
            return Err((
                "server.stripe".into(),
                format!(
                    "videos would have {blocks} stripe blocks; at most {}",
                    u32::MAX
                ),
            ));
        }
        self.workload.validate()?;
        if let Some(i) = &self.interactive {
            i.validate()?;
        }
        if let Some(p) = &self.piggyback {
            p.validate(self.videos.count)?;
        }
        if let Some(r) = &s.replication {
            r.validate(s.interface_nodes, blocks)?;
            self.validate_replication_scheme(r)?;
        }
        self.validate_name()
    }

    /// `[transmission]` and `[server.egress]` come together.
    fn validate_egress(&self) -> Result<(), (String, String)> {
        match (&self.transmission, &self.server.egress) {
            (Some(_), None) => Err((
                "transmission".into(),
                "needs [server.egress] (the link and CPU cost the packets are sent with)".into(),
            )),
            (None, Some(_)) => Err((
                "server.egress".into(),
                "is used only with [transmission] (the policy that sends on it)".into(),
            )),
            (Some(_), Some(e)) => e.validate(),
            (None, None) => Ok(()),
        }
    }

    /// `[server.rounds]` (with `[transmission]`, without `[terminals.rounds]`) and the
    /// stream memory that caps it (`[server] stream_memory`).
    fn validate_server_rounds(&self) -> Result<(), (String, String)> {
        if let Some(r) = &self.server.rounds {
            if self.transmission.is_none() {
                return Err((
                    "server.rounds".into(),
                    "needs [transmission] (the blocks read in a round leave through the egress)"
                        .into(),
                ));
            }
            if self.terminals.rounds.is_some() {
                return Err((
                    "server.rounds".into(),
                    "cannot be combined with [terminals.rounds] (the server, not the terminals, \
                     sets the rounds)"
                        .into(),
                ));
            }
            r.validate(self.server.stripe, self.videos.bit_rate.0)?;
        }
        let Some(cap) = self.server.stream_memory else {
            return Ok(());
        };
        let Some(r) = &self.server.rounds else {
            return Err((
                "server.stream_memory".into(),
                "needs [server.rounds] (it caps the memory of round-based retrieval)".into(),
            ));
        };
        // dblbuf and clbuf admit a stream only if its reservation (2S, S) fits;
        // clbufrate admits every stream and its reads wait for a buffer of S
        let (per, what) = match r.release {
            super::Release::Dblbuf => (2 * self.server.stripe.0, "one stream's reservation"),
            super::Release::Clbuf => (self.server.stripe.0, "one stream's reservation"),
            super::Release::Clbufrate => (self.server.stripe.0, "one block's buffer"),
        };
        if cap.0 < per {
            return Err((
                "server.stream_memory".into(),
                format!(
                    "must hold at least {what} ({} under {}), got {}",
                    crate::units::fmt_bytes(per),
                    r.release.name(),
                    crate::units::fmt_bytes(cap.0)
                ),
            ));
        }
        Ok(())
    }

    /// `[paper]`: a published value is shown beside vodbench's and divided by: a number, no
    /// NaN or infinity.
    fn validate_paper(&self) -> Result<(), (String, String)> {
        match self.paper.iter().find(|(_, v)| !v.is_finite()) {
            Some((k, v)) => Err((
                format!("paper.{k}"),
                format!("must be a finite number (a published value), got {v}"),
            )),
            None => Ok(()),
        }
    }

    /// `description`, copied into the manifest and the report: at most
    /// [`MAX_DESCRIPTION_BYTES`].
    fn validate_description(&self) -> Result<(), (String, String)> {
        if self.description.len() > MAX_DESCRIPTION_BYTES {
            return Err((
                "description".into(),
                format!(
                    "is {} bytes; a description is copied into every manifest and report, so \
                     it may have at most {MAX_DESCRIPTION_BYTES} bytes",
                    self.description.len()
                ),
            ));
        }
        Ok(())
    }

    /// A replication scheme other than RDSS is not combined with the tables it was not built
    /// to work with.
    fn validate_replication_scheme(
        &self,
        r: &super::ReplicationSection,
    ) -> Result<(), (String, String)> {
        if r.scheme == super::Scheme::Rdss {
            return Ok(());
        }
        let s = &self.server;
        let other = [
            ("admission", self.admission.is_some()),
            ("piggyback", self.piggyback.is_some()),
            ("server.rounds", s.rounds.is_some()),
            ("server.bus", s.bus.is_some()),
            ("interactive", self.interactive.is_some()),
        ];
        match other.iter().find(|(_, on)| *on) {
            Some((table, _)) => Err((
                "server.replication.scheme".into(),
                format!(
                    "{} is not built to work with [{table}]: remove one of them",
                    r.scheme.name()
                ),
            )),
            None => Ok(()),
        }
    }

    /// `name`: 1 to 200 characters.
    fn validate_name(&self) -> Result<(), (String, String)> {
        if let Some(n) = &self.name {
            let chars = n.chars().count();
            if chars == 0 || chars > 200 {
                return Err((
                    "name".into(),
                    format!("must be 1..=200 characters, got {chars}"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_slot_is_the_table_at_its_key() {
        let base: toml::Table = toml::from_str(
            r#"
            [run]
            duration = "2min"
            [videos]
            count = 4
            length = "10min"
            bit_rate = "4Mbit/s"
            [server]
            nodes = 1
            disks_per_node = 2
            memory_per_node = "64MiB"
            stripe = "512KiB"
            [terminals]
            count = 10
            memory = "2MiB"
            [workload.generate]
            popularity = "zipf"
            "#,
        )
        .unwrap();
        crate::scenario::slots::assert_tables_at_keys::<ScenarioFile>(&base, SLOTS);
    }
}
