//! `array`: a disk array behind one controller (Wu et al. §3.3, Fig. 4: "multi-disk
//! multi-bus", configuration 3).
//!
//! The array presents one disk to the host. It has `members` member disks, each on a bus of
//! its own inside the array, all of one model (`member`: `linear`, `analytic` or
//! `mechanical` with its parameters). Every access is striped finely across the members:
//! member i reads piece i, `bytes / members` bytes (the first `bytes mod members` pieces one
//! byte more), at `offset / members` on its own disk. The members position in parallel, each
//! paying its own overhead, seek and rotation (Wu: each member "still pays the initial
//! wait d_m"); the controller's memory collects the pieces and sends the data to the host at
//! `rate` (Wu's r_bus).
//!
//! Timing (the reading of `../shared/papers/notes/wu.md` §4.9): the first byte is ready when
//! the slowest member has positioned, at `P = max_i pos_i`; the host transfer runs at `rate`
//! from then, but cannot end before the last piece is in memory. The access ends at
//! `max(P + bytes / rate, max_i (pos_i + media_i))`. With members whose media rate adds up
//! to at least `rate` (Wu: 4 members at 4 MB/s behind 10 MB/s), an access takes `d_m + B /
//! r_bus`, eq. 3 with r_s = r_bus. The parts reported are the slowest-positioning member's
//! overhead, seek and rotation (the lowest-numbered member among equals) and, as the
//! transfer, the rest up to the end.
//!
//! Every member has its own random stream (component `disk.array`, index `disk ×
//! members + i`). Capacity is the members' together; cylinders and the head are member 0's
//! (which a seek-aware scheduler sees).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use vodbench_plugin_api::plugin::{
    BuildContext, DiskAccess, DiskGeometry, DiskModel, Plugin, PluginError, ServiceTime,
};
use vodbench_plugin_api::time::{SimDuration, SimTime};
use vodbench_plugin_api::units::Bandwidth;

use super::analytic::{Analytic, AnalyticParams};
use super::linear::{Linear, LinearParams};
use super::mechanical::{Mechanical, MechanicalParams};

/// Parameters of `array`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ArrayParams {
    /// Member disks (2..=64; default 4, as the reading notes recommend for Wu's array).
    pub members: u32,
    /// Rate from the controller to the host, more than 0 (default `"10MB/s"`, Wu's r_bus:
    /// Fast SCSI-2).
    pub rate: Bandwidth,
    /// The members' disk model: a table with `name` (`linear`, `analytic` or `mechanical`)
    /// and that model's parameters, e.g. `{ name = "linear", access = "15ms", per_block =
    /// "250us", block = "1KB" }` (default: `linear` with its defaults).
    pub member: Member,
}

impl Default for ArrayParams {
    fn default() -> Self {
        ArrayParams {
            members: 4,
            rate: Bandwidth(80_000_000),
            member: Member::Linear(LinearParams::default()),
        }
    }
}

/// The model of an array's member disks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "name", rename_all = "lowercase")]
pub enum Member {
    /// `linear` with its parameters.
    Linear(LinearParams),
    /// `analytic` with its parameters.
    Analytic(AnalyticParams),
    /// `mechanical` with its parameters.
    Mechanical(MechanicalParams),
}

/// The `array` disk model.
pub struct Array {
    members: Vec<Box<dyn DiskModel>>,
    rate: Bandwidth,
    capacity: u64,
}

impl Array {
    /// An array of `members` (at least one) sending to the host at `rate`.
    pub fn new(members: Vec<Box<dyn DiskModel>>, rate: Bandwidth) -> Self {
        let capacity = members
            .iter()
            .map(|m| m.geometry().capacity_bytes)
            .fold(0u64, u64::saturating_add);
        Array {
            members,
            rate,
            capacity,
        }
    }

    /// Member `i`'s piece of `a`.
    fn piece(&self, a: &DiskAccess, i: usize) -> DiskAccess {
        let m = self.members.len() as u64;
        let i = i as u64;
        DiskAccess {
            offset: a.offset / m,
            bytes: a.bytes / m + u64::from(i < a.bytes % m),
            write: a.write,
        }
    }
}

impl DiskModel for Array {
    fn transfer_includes_bus(&self) -> bool {
        // the controller's transfer to the host at `rate` is part of the transfer
        true
    }

    fn geometry(&self) -> DiskGeometry {
        DiskGeometry {
            capacity_bytes: self.capacity,
            cylinders: self.members[0].geometry().cylinders,
        }
    }
    fn cylinder_of(&self, offset: u64) -> u32 {
        self.members[0].cylinder_of(offset / self.members.len() as u64)
    }
    fn head_cylinder(&self) -> u32 {
        self.members[0].head_cylinder()
    }
    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        // the member positioning longest (the lowest-numbered among equals)
        let mut slowest: Option<ServiceTime> = None;
        let mut positioned = SimDuration::ZERO;
        let mut last_piece = SimDuration::ZERO;
        let mut all_hit = true;
        for i in 0..self.members.len() {
            let p = self.piece(a, i);
            if p.bytes == 0 {
                continue; // an access smaller than the array: this member reads nothing
            }
            let st = self.members[i].service(&p, now);
            let pos = st.overhead + st.seek + st.rotation;
            if slowest.is_none() || pos > positioned {
                slowest = Some(st);
                positioned = pos;
            }
            last_piece = last_piece.max(pos + st.transfer);
            all_hit &= st.cache_hit;
        }
        let slowest = slowest.unwrap_or_default();
        let end = (positioned + self.rate.time_for(a.bytes)).max(last_piece);
        ServiceTime {
            overhead: slowest.overhead,
            seek: slowest.seek,
            rotation: slowest.rotation,
            transfer: end - positioned,
            cache_hit: all_hit,
        }
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        let members = (0..self.members.len())
            .map(|i| self.members[i].service_bound(&self.piece(a, i)))
            .max()
            .unwrap_or(SimDuration::ZERO);
        members + self.rate.time_for(a.bytes)
    }
}

/// Prefixes a member's parameter error with `member.`.
fn in_member(e: PluginError) -> PluginError {
    match e {
        PluginError::InvalidParam { path, message } => PluginError::InvalidParam {
            path: if path.is_empty() {
                "member".into()
            } else {
                format!("member.{path}")
            },
            message,
        },
        e => e,
    }
}

impl Plugin for Array {
    type Kind = dyn DiskModel;
    type Params = ArrayParams;
    const NAME: &'static str = "array";
    const DESCRIPTION: &'static str =
        "a disk array: m members positioning in parallel, data to the host at the controller's rate (Wu Fig. 4)";

    fn validate(p: &ArrayParams) -> Result<(), PluginError> {
        if !(2..=64).contains(&p.members) {
            return Err(PluginError::param(
                "members",
                format!("must be in 2..=64, got {}", p.members),
            ));
        }
        if p.rate.0 == 0 {
            return Err(PluginError::param(
                "rate",
                "must be more than 0 (a bandwidth such as \"10MB/s\")",
            ));
        }
        match &p.member {
            Member::Linear(m) => Linear::validate(m),
            Member::Analytic(m) => Analytic::validate(m),
            Member::Mechanical(m) => Mechanical::validate(m),
        }
        .map_err(in_member)
    }

    fn build(p: &ArrayParams, ctx: &BuildContext<'_>) -> Result<Box<dyn DiskModel>, PluginError> {
        let mut members = Vec::with_capacity(p.members as usize);
        for i in 0..u64::from(p.members) {
            let c = ctx
                .clone()
                .with_component("disk.array", ctx.index * u64::from(p.members) + i);
            let m = match &p.member {
                Member::Linear(m) => Linear::build(m, &c),
                Member::Analytic(m) => Analytic::build(m, &c),
                Member::Mechanical(m) => Mechanical::build(m, &c),
            }
            .map_err(in_member)?;
            members.push(m);
        }
        Ok(Box::new(Array::new(members, p.rate)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> BuildContext<'static> {
        BuildContext::for_test()
            .with_seed(7)
            .with_component("disk", 3)
            .with_terminals(10)
            .with_block_bytes(128_000)
    }

    /// Wu's members: d_m = 15 ms, 4 MB/s (250 µs per kB).
    fn wu(members: u32, rate: &str) -> ArrayParams {
        let text = format!(
            "members = {members}\nrate = \"{rate}\"\n[member]\nname = \"linear\"\n\
             access = \"15ms\"\nper_block = \"250us\"\nblock = \"1KB\"\n"
        );
        toml::from_str(&text).unwrap()
    }

    fn read(d: &mut dyn DiskModel, bytes: u64) -> ServiceTime {
        let a = DiskAccess {
            offset: 0,
            bytes,
            write: false,
        };
        d.service(&a, SimTime::ZERO)
    }

    #[test]
    fn wu_configuration_3_reads_at_the_bus_rate_after_one_d_m() {
        let p = wu(4, "10MB/s");
        Array::validate(&p).unwrap();
        let mut a = Array::build(&p, &ctx()).unwrap();
        // 128 kB: members read 32 kB each in 8 ms, the host gets 128 kB at 10 MB/s in 12.8
        // ms after the members' 15 ms: d_m + B / r_bus (eq. 3 with r_s = r_bus)
        let st = read(a.as_mut(), 128_000);
        assert_eq!(st.seek, SimDuration::from_millis(15));
        assert_eq!(st.transfer, SimDuration::from_micros(12_800));
        assert_eq!(st.total(), SimDuration::from_micros(27_800));
        assert!(
            st.total()
                <= a.service_bound(&DiskAccess {
                    offset: 0,
                    bytes: 128_000,
                    write: false
                })
        );
        // 2 members at 4 MB/s (8 MB/s) cannot feed 10 MB/s: the last 64 kB piece ends at
        // 15 + 16 ms
        let mut two = Array::build(&wu(2, "10MB/s"), &ctx()).unwrap();
        assert_eq!(
            read(two.as_mut(), 128_000).total(),
            SimDuration::from_millis(31)
        );
        // capacity: the members' together (linear's 1 TiB each)
        assert_eq!(a.geometry().capacity_bytes, 4 << 40);
    }

    #[test]
    fn the_slowest_member_decides_when_the_data_starts() {
        // members with a dynamic delay: each draws its own; the access waits for the largest
        let text = "members = 3\nrate = \"10MB/s\"\n[member]\nname = \"linear\"\n\
                    access = \"5ms\"\nper_block = \"250us\"\nblock = \"1KB\"\n\
                    jitter = { max = \"10ms\" }\n";
        let p: ArrayParams = toml::from_str(text).unwrap();
        let mut a = Array::build(&p, &ctx()).unwrap();
        let mut singles: Vec<Box<dyn DiskModel>> = (0..3)
            .map(|i| {
                let c = ctx().with_component("disk.array", 3 * 3 + i);
                let Member::Linear(m) = &p.member else {
                    unreachable!()
                };
                Linear::build(m, &c).unwrap()
            })
            .collect();
        for _ in 0..50 {
            let st = read(a.as_mut(), 30_000);
            let pos = singles
                .iter_mut()
                .map(|m| {
                    let s = read(m.as_mut(), 10_000);
                    s.overhead + s.seek + s.rotation
                })
                .max()
                .unwrap();
            assert_eq!(st.overhead + st.seek + st.rotation, pos);
            // 30 kB at 10 MB/s = 3 ms; the 10 kB pieces take 2.5 ms each
            assert_eq!(st.transfer, SimDuration::from_millis(3));
        }
    }

    #[test]
    fn pieces_share_the_bytes_and_an_access_smaller_than_the_array_works() {
        let a = Array::build(&wu(4, "10MB/s"), &ctx()).unwrap();
        let _ = a;
        let arr = Array::new(
            (0..4)
                .map(|_| {
                    Box::new(Linear::new(
                        SimDuration::from_millis(1),
                        SimDuration::from_micros(1),
                        1,
                        1 << 30,
                    )) as Box<dyn DiskModel>
                })
                .collect(),
            Bandwidth(8_000_000_000),
        );
        let acc = DiskAccess {
            offset: 4000,
            bytes: 10,
            write: false,
        };
        let sizes: Vec<u64> = (0..4).map(|i| arr.piece(&acc, i).bytes).collect();
        assert_eq!(sizes, vec![3, 3, 2, 2]);
        assert_eq!(arr.piece(&acc, 2).offset, 1000);
        let mut arr = arr;
        // 2 bytes: two members read one byte each, the others nothing
        let st = read(&mut arr, 2);
        assert_eq!(st.seek, SimDuration::from_millis(1));
        assert_eq!(st.transfer, SimDuration::from_micros(1));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let mut p = wu(4, "10MB/s");
        p.members = 1;
        let e = Array::validate(&p).unwrap_err();
        assert!(
            matches!(&e, PluginError::InvalidParam { path, .. } if path == "members"),
            "{e}"
        );
        let mut p = wu(4, "10MB/s");
        p.rate = Bandwidth(0);
        let e = Array::validate(&p).unwrap_err();
        assert!(
            matches!(&e, PluginError::InvalidParam { path, .. } if path == "rate"),
            "{e}"
        );
        let text = "rate = \"10MB/s\"\n[member]\nname = \"linear\"\nblock = \"0B\"\n";
        let p: ArrayParams = toml::from_str(text).unwrap();
        let e = Array::validate(&p).unwrap_err();
        assert!(
            matches!(&e, PluginError::InvalidParam { path, .. } if path == "member.block"),
            "{e}"
        );
        let text = "rate = \"10MB/s\"\n[member]\nname = \"floppy\"\n";
        let e = toml::from_str::<ArrayParams>(text).unwrap_err().to_string();
        assert!(e.contains("floppy") && e.contains("linear"), "{e}");
        let text = "rate = \"-10MB/s\"\n[member]\nname = \"linear\"\n";
        assert!(toml::from_str::<ArrayParams>(text).is_err());
    }
}
