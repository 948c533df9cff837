//! A disk's typed description, read from DiskSim parameter files ([`super::params`]).
//!
//! The chain is `*.parv` (system: buses, topology) → `disksim_disk` block (controller, cache,
//! overheads) → `Model = dm_disk` block (layout `dm_layout_g1` with its zones, mechanics
//! `dm_mech_g1`) → `Full seek curve` file. Times are milliseconds here, as in the files.

use super::params::{self, Block, Loc, ParamFile, Source, SpecError, TopoNode, Value};
use std::path::Path;

/// How LBNs skip spare space (DiskSim's `Sparing scheme used`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sparing {
    /// 0: no spares.
    None,
    /// 1: whole spare tracks at the end of each zone; slips and defects are track numbers.
    Tracks,
    /// 8: `spares` sectors at the end of every range of `rangesize` cylinders.
    PerRange,
    /// 9: `spares` sectors at the end of the zone.
    PerZone,
    /// 10: as 9, and slipped sectors use space beyond the spares.
    PerZoneSlipToEnd,
}

impl Sparing {
    fn from_code(code: i64) -> Option<Sparing> {
        Some(match code {
            0 => Sparing::None,
            1 => Sparing::Tracks,
            8 => Sparing::PerRange,
            9 => Sparing::PerZone,
            10 => Sparing::PerZoneSlipToEnd,
            _ => return None,
        })
    }
}

/// One `dm_layout_g1_zone`.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneSpec {
    /// First physical cylinder.
    pub first_cyl: u32,
    /// Last physical cylinder.
    pub last_cyl: u32,
    /// Physical sectors per track.
    pub sectors_per_track: u32,
    /// Angular offset of the zone's first block, in sectors.
    pub offset: f64,
    /// Management area at the zone's front, in sectors.
    pub dead_space: u32,
    /// Track skew in sectors.
    pub track_skew: f64,
    /// Cylinder skew in sectors.
    pub cyl_skew: f64,
    /// Spares (sectors or tracks, by scheme).
    pub spares: u32,
    /// Slipped locations (sectors or tracks, by scheme), ascending.
    pub slips: Vec<u32>,
    /// Remapped defects: (original, replacement).
    pub defects: Vec<(u32, u32)>,
}

/// The seek curve forms of `dm_mech_g1`.
#[derive(Clone, Debug, PartialEq)]
pub enum SeekSpec {
    /// `constant`: every non-zero seek takes this long.
    Constant(f64),
    /// `linear`: single-cylinder, average (at a third of the stroke) and full-stroke times,
    /// joined by straight lines.
    Linear {
        /// 1 cylinder.
        single: f64,
        /// cylinders / 3.
        average: f64,
        /// cylinders − 1.
        full: f64,
    },
    /// `curve`: `single + average·(d−1) + full·√(d−1)` (DiskSim's 3-point curve coefficients).
    Curve {
        /// Constant term.
        single: f64,
        /// Linear coefficient.
        average: f64,
        /// Square-root coefficient.
        full: f64,
    },
    /// `hpl` / `hplplus10`: `v1 + v2·√d` below `boundary` cylinders, `v3 + v4·d` from it on;
    /// `hplplus10` takes distances 1..=10 from `first_ten`; `single` (if `Some`) overrides
    /// distance 1 in `hpl`.
    Hpl {
        /// The boundary distance.
        boundary: u32,
        /// Coefficients v1..v4 (ms).
        v: [f64; 4],
        /// Single-cylinder time for `hpl` when the sixth value is not −1.
        single: Option<f64>,
        /// Measured times for 1..=10 cylinders (`hplplus10`).
        first_ten: Option<[f64; 10]>,
    },
    /// `extracted`: a measured table, interpolated linearly, extrapolated past its end.
    Table(Vec<(u32, f64)>),
}

/// `dm_mech_g1`.
#[derive(Clone, Debug, PartialEq)]
pub struct MechSpec {
    /// Seek curve.
    pub seek: SeekSpec,
    /// Head switch (ms).
    pub head_switch: f64,
    /// Extra settle after a seek for a write (ms).
    pub write_settle: f64,
    /// Spindle speed.
    pub rpm: u32,
}

/// The on-board cache and its policy flags.
#[derive(Clone, Debug, PartialEq)]
pub struct CacheSpec {
    /// Whether the buffer caches at all.
    pub enabled: bool,
    /// Number of segments.
    pub segments: u32,
    /// Sectors per segment.
    pub segment_size: u32,
    /// Read-ahead limit after a read (sectors).
    pub max_readahead: u32,
    /// `Read-ahead over requested`: read-ahead counts from the request's end (else from its start).
    pub readahead_over_requested: bool,
    /// `Read-ahead on idle hit`: a read hit on a segment whose read-ahead has finished starts
    /// it again, to the hit's own read-ahead bound.
    pub readahead_on_idle_hit: bool,
    /// `Allow write prebuffering`: a write may take its data while the mechanism is busy
    /// with something it cannot stop (a destage); without it the write waits.
    pub write_prebuffering: bool,
    /// `Buffer continuous read`: how far read-ahead goes after a read (DiskSim's
    /// `disk_cont_read_t`): 0 none, 1 to the end of the track, 2 to the end of the cylinder,
    /// 3 to the read-ahead limit (the segment), 4 DEC's scheme (to the end of the track,
    /// one track more when the read began on an earlier track).
    pub continuous_read: u8,
    /// 0 write-through, 1 limited fast write, 2 full fast write.
    pub fast_write: u8,
    /// Reads may hit data written earlier.
    pub read_hits_on_write_data: bool,
    /// `Use separate write segment`: writes always take one dedicated segment, which reads
    /// never use (DiskSim 4.0's `dedicatedwriteseg`).
    pub separate_write_segment: bool,
    /// Fraction of a read to buffer before reconnecting to the bus.
    pub read_water: f64,
    /// Watermarks are fractions of the request (else of the segment).
    pub water_by_request: bool,
    /// `Stop prefetch in sector`: read-ahead may stop in the middle of a sector; else the
    /// sector under way (or awaited) is finished before the head can move.
    pub stop_in_sector: bool,
}

/// Controller overheads (ms).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Overheads {
    /// Read hit, after a read / after a write.
    pub read_hit: [f64; 2],
    /// Read miss, after a read / after a write.
    pub read_miss: [f64; 2],
    /// Write hit (buffered write), after a read / after a write.
    pub write_hit: [f64; 2],
    /// Write miss, after a read / after a write.
    pub write_miss: [f64; 2],
    /// Completion, read / write.
    pub completion: [f64; 2],
    /// Data preparation.
    pub data_prep: f64,
    /// First reselection.
    pub reselect_first: f64,
    /// Later reselections.
    pub reselect_other: f64,
    /// Minimum positioning delay for a write.
    pub min_seek_delay: f64,
    /// Multiplier on every overhead.
    pub time_scale: f64,
    /// `Extra write disconnect`: a write after a non-sequential write disconnects twice.
    pub extra_write_disconnect: bool,
    /// Extra-disconnect command overhead.
    pub extradisc_command: f64,
    /// First disconnect of an extra-disconnect write.
    pub extradisc_disconnect1: f64,
    /// Delay between the two disconnects.
    pub extradisc_inter_disconnect: f64,
    /// Extra delay before positioning for an extra-disconnect write.
    pub extradisc_seek_delta: f64,
}

/// Everything the mechanical model needs to know about one disk.
#[derive(Clone, Debug, PartialEq)]
pub struct DiskSpec {
    /// The `disksim_disk` block name.
    pub name: String,
    /// Data surfaces.
    pub surfaces: u32,
    /// Cylinders.
    pub cylinders: u32,
    /// Sparing scheme.
    pub sparing: Sparing,
    /// Cylinders per sparing range (scheme 8).
    pub range_size: u32,
    /// Zones in cylinder order.
    pub zones: Vec<ZoneSpec>,
    /// Mechanics.
    pub mech: MechSpec,
    /// Cache.
    pub cache: CacheSpec,
    /// Overheads.
    pub overheads: Overheads,
    /// Per-sector bus transfer time for reads / writes: the larger of the disk's own
    /// `Bulk sector transfer time` and the block transfer time of the bus it sits on (ms).
    pub sector_transfer: [f64; 2],
    /// Whether the disk keeps the bus for a whole read.
    pub hold_bus_read: bool,
}

/// Reads a disk from `file` (a `.parv`, `.diskspecs` or anything holding a `disksim_disk`).
/// `disk` picks a block or instance by name when there are several.
pub fn load(
    src: &dyn Source,
    dir: &Path,
    file: &str,
    disk: Option<&str>,
) -> Result<DiskSpec, SpecError> {
    let pf = params::read(src, dir, file)?;
    let block = pick_disk(&pf, file, disk)?;
    let instance = pf
        .instances
        .iter()
        .find(|(_, b)| block.name.as_deref() == Some(b.as_str()))
        .map(|(i, _)| i.clone());
    let bus = instance
        .as_deref()
        .and_then(|i| pf.topology.iter().find_map(|t| parent_bus(t, i, None)))
        .and_then(|bus_inst| {
            let bname = pf.instances.iter().find(|(i, _)| *i == bus_inst)?.1.clone();
            pf.blocks
                .iter()
                .find(|b| b.kind == "disksim_bus" && b.name.as_deref() == Some(bname.as_str()))
        });
    from_blocks(src, dir, block, bus)
}

fn parent_bus(node: &TopoNode, inst: &str, bus: Option<&str>) -> Option<String> {
    if node.name == inst {
        return bus.map(str::to_string);
    }
    let here = if node.kind == "disksim_bus" {
        Some(node.name.as_str())
    } else {
        bus
    };
    node.children.iter().find_map(|c| parent_bus(c, inst, here))
}

fn pick_disk<'a>(
    pf: &'a ParamFile,
    file: &str,
    disk: Option<&str>,
) -> Result<&'a Block, SpecError> {
    let disks: Vec<&Block> = pf
        .blocks
        .iter()
        .filter(|b| b.kind == "disksim_disk")
        .collect();
    let names = || {
        disks
            .iter()
            .filter_map(|b| b.name.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match disk {
        Some(want) => {
            let by_instance = pf
                .instances
                .iter()
                .find(|(i, _)| i == want)
                .map(|(_, b)| b.as_str());
            let target = by_instance.unwrap_or(want);
            disks
                .iter()
                .find(|b| b.name.as_deref() == Some(target))
                .copied()
                .ok_or_else(|| SpecError::NoDisk {
                    file: file.to_string(),
                    message: format!("no disk `{want}`; disks here: {}", names()),
                })
        }
        None => match disks.as_slice() {
            [one] => Ok(one),
            [] => Err(SpecError::NoDisk {
                file: file.to_string(),
                message: "holds no `disksim_disk` block".into(),
            }),
            _ => Err(SpecError::NoDisk {
                file: file.to_string(),
                message: format!("holds several disks, choose one with `disk`: {}", names()),
            }),
        },
    }
}

fn flag(b: &Block, name: &str, default: bool) -> Result<bool, SpecError> {
    Ok(b.int_or(name, 0..=1_000_000, i64::from(default))? != 0)
}

fn ms(b: &Block, name: &str, default: f64) -> Result<f64, SpecError> {
    let v = b.f64_or(name, default)?;
    if !(0.0..=1e6).contains(&v) {
        return Err(b
            .get(name)?
            .bad(format!("must be a time in 0..=1e6 ms, got {v}")));
    }
    Ok(v)
}

fn u(b: &Block, name: &str, range: std::ops::RangeInclusive<i64>) -> Result<u32, SpecError> {
    Ok(b.int(name, range)? as u32)
}

fn ints(p: &params::Param, vals: &[Value]) -> Result<Vec<u32>, SpecError> {
    vals.iter()
        .map(|v| match v {
            Value::Int(i) if (0..=i64::from(u32::MAX)).contains(i) => Ok(*i as u32),
            _ => Err(p.bad("expected non-negative integers")),
        })
        .collect()
}

fn from_blocks(
    src: &dyn Source,
    dir: &Path,
    d: &Block,
    bus: Option<&Block>,
) -> Result<DiskSpec, SpecError> {
    let model = d.block("Model")?;
    let surfaces = u(model, "Number of data surfaces", 1..=1024)?;
    let cylinders = u(model, "Number of cylinders", 1..=1_000_000)?;
    let layout = model.block("Layout Model")?;
    if layout.kind != "dm_layout_g1" {
        return Err(model.get("Layout Model")?.bad(format!(
            "only dm_layout_g1 is supported, found {}",
            layout.kind
        )));
    }
    let mapping = layout.int_or("LBN-to-PBN mapping scheme", 0..=2, 0)?;
    if mapping != 0 {
        return Err(layout
            .get("LBN-to-PBN mapping scheme")?
            .bad("only the conventional mapping (0) is supported"));
    }
    let sp = layout.get("Sparing scheme used")?;
    let sparing = Sparing::from_code(sp.int(0..=10)?)
        .ok_or_else(|| sp.bad("supported sparing schemes: 0, 1, 8, 9, 10"))?;
    let range_size = u(layout, "Rangesize for sparing", 1..=1_000_000)?;
    let zp = layout.get("Zones")?;
    let zlist = layout.list("Zones")?;
    let mut zones = Vec::with_capacity(zlist.len());
    for z in zlist {
        let Value::Block(z) = z else {
            return Err(zp.bad("expected a list of dm_layout_g1_zone blocks"));
        };
        let spt = u(z, "Blocks per track", 2..=100_000)?;
        let units = match z.find("Skew units") {
            Some(_) => z.word("Skew units")?,
            None => "sectors".into(),
        };
        if units != "sectors" {
            return Err(z.get("Skew units")?.bad("only `sectors` is supported"));
        }
        let sectors = |name: &str| -> Result<f64, SpecError> {
            let v = z.f64_or(name, 0.0)?;
            if !(0.0..=1e9).contains(&v) {
                return Err(z.get(name)?.bad("must be in 0..=1e9 sectors"));
            }
            Ok(v)
        };
        let slips_p = z.get("slips")?;
        let slips = ints(slips_p, z.list("slips")?)?;
        let defects_p = z.get("defects")?;
        let dv = ints(defects_p, z.list("defects")?)?;
        if dv.len() % 2 != 0 {
            return Err(defects_p.bad("must hold pairs (defect, replacement)"));
        }
        let zone = ZoneSpec {
            first_cyl: u(z, "First cylinder number", 0..=10_000_000)?,
            last_cyl: u(z, "Last cylinder number", 0..=10_000_000)?,
            sectors_per_track: spt,
            offset: sectors("Offset of first block")?,
            dead_space: u(z, "Empty space at zone front", 0..=1_000_000_000)?,
            track_skew: sectors("Skew for track switch")?,
            cyl_skew: sectors("Skew for cylinder switch")?,
            spares: u(z, "Number of spares", 0..=1_000_000_000)?,
            slips,
            defects: dv.chunks(2).map(|c| (c[0], c[1])).collect(),
        };
        if zone.first_cyl > zone.last_cyl || zone.last_cyl >= cylinders {
            return Err(z.get("Last cylinder number")?.bad(format!(
                "zone cylinders must lie in 0..{cylinders}, first ≤ last"
            )));
        }
        if zones
            .last()
            .is_some_and(|p: &ZoneSpec| p.last_cyl >= zone.first_cyl)
        {
            return Err(z
                .get("First cylinder number")?
                .bad("zones must be in increasing cylinder order without overlap"));
        }
        zones.push(zone);
    }
    if zones.is_empty() {
        return Err(zp.bad("at least one zone is needed"));
    }
    let mech_b = model.block("Mechanical Model")?;
    let mech = mech_spec(src, dir, mech_b, cylinders)?;
    let cache = CacheSpec {
        enabled: flag(d, "Enable caching in buffer", true)?,
        segments: u(d, "Number of buffer segments", 1..=4096)?,
        segment_size: u(d, "Segment size (in blks)", 1..=1 << 24)?,
        max_readahead: d.int_or("Maximum read-ahead (blks)", 0..=1 << 24, 0)? as u32,
        readahead_over_requested: flag(d, "Read-ahead over requested", true)?,
        readahead_on_idle_hit: flag(d, "Read-ahead on idle hit", false)?,
        write_prebuffering: flag(d, "Allow write prebuffering", false)?,
        continuous_read: d.int_or("Buffer continuous read", 0..=4, 3)? as u8,
        fast_write: d.int_or("Fast write level", 0..=2, 0)? as u8,
        read_hits_on_write_data: flag(d, "Allow read hits on write data", false)?,
        separate_write_segment: {
            let v = flag(d, "Use separate write segment", false)?;
            if v && d.int_or("Number of buffer segments", 1..=4096, 1)? < 2 {
                return Err(d
                    .get("Use separate write segment")?
                    .bad("needs at least 2 buffer segments (one is kept for writes)"));
            }
            v
        },
        read_water: {
            let v = d.f64_or("High (read) water mark", 0.0)?;
            if !(0.0..=1.0).contains(&v) {
                return Err(d.get("High (read) water mark")?.bad("must be in 0..=1"));
            }
            v
        },
        water_by_request: flag(d, "Set watermark by reqsize", true)?,
        stop_in_sector: flag(d, "Stop prefetch in sector", true)?,
    };
    let pair =
        |a: &str, b: &str| -> Result<[f64; 2], SpecError> { Ok([ms(d, a, 0.0)?, ms(d, b, 0.0)?]) };
    let overheads = Overheads {
        read_hit: pair("Read hit over. after read", "Read hit over. after write")?,
        read_miss: pair("Read miss over. after read", "Read miss over. after write")?,
        write_hit: pair("Write hit over. after read", "Write hit over. after write")?,
        write_miss: pair(
            "Write miss over. after read",
            "Write miss over. after write",
        )?,
        completion: pair("Read completion overhead", "Write completion overhead")?,
        data_prep: ms(d, "Data preparation overhead", 0.0)?,
        reselect_first: ms(d, "First reselect overhead", 0.0)?,
        reselect_other: ms(d, "Other reselect overhead", 0.0)?,
        min_seek_delay: ms(d, "Minimum seek delay", 0.0)?,
        time_scale: {
            let v = d.f64_or("Time scale for overheads", 1.0)?;
            if !(0.0..=1000.0).contains(&v) {
                return Err(d
                    .get("Time scale for overheads")?
                    .bad("must be in 0..=1000"));
            }
            v
        },
        extra_write_disconnect: flag(d, "Extra write disconnect", false)?,
        extradisc_command: ms(d, "Extradisc command overhead", 0.0)?,
        extradisc_disconnect1: ms(d, "Extradisc disconnect overhead", 0.0)?,
        extradisc_inter_disconnect: ms(d, "Extradisc inter-disconnect delay", 0.0)?,
        extradisc_seek_delta: ms(d, "Extradisc seek delta", 0.0)?,
    };
    let bulk = ms(d, "Bulk sector transfer time", 0.0)?;
    let (bus_r, bus_w) = match bus {
        Some(b) => (
            ms(b, "Read block transfer time", 0.0)?,
            ms(b, "Write block transfer time", 0.0)?,
        ),
        None => (0.0, 0.0),
    };
    Ok(DiskSpec {
        name: d.name.clone().unwrap_or_default(),
        surfaces,
        cylinders,
        sparing,
        range_size,
        zones,
        mech,
        cache,
        overheads,
        sector_transfer: [bulk.max(bus_r), bulk.max(bus_w)],
        hold_bus_read: flag(d, "Hold bus entire read xfer", false)?,
    })
}

fn mech_spec(
    src: &dyn Source,
    dir: &Path,
    m: &Block,
    cylinders: u32,
) -> Result<MechSpec, SpecError> {
    let kind = m.word("Seek type")?;
    let first_ten = || -> Result<[f64; 10], SpecError> {
        let p = m.get("First ten seek times")?;
        let l = m.list("First ten seek times")?;
        let mut out = [0.0; 10];
        if l.len() != 10 {
            return Err(p.bad(format!("expected 10 times, found {}", l.len())));
        }
        for (o, v) in out.iter_mut().zip(l) {
            *o = match v {
                Value::Int(i) if (0..=1_000_000).contains(i) => *i as f64,
                Value::Float(f) if (0.0..=1e6).contains(f) => *f,
                _ => return Err(p.bad("expected times in 0..=1e6 ms")),
            };
        }
        Ok(out)
    };
    let hpl = |plus10: bool| -> Result<SeekSpec, SpecError> {
        let p = m.get("HPL seek equation values")?;
        let l = m.list("HPL seek equation values")?;
        let mut v = [0.0f64; 6];
        if l.len() != 6 {
            return Err(p.bad(format!("expected 6 values, found {}", l.len())));
        }
        for (o, x) in v.iter_mut().zip(l) {
            *o = match x {
                Value::Int(i) => *i as f64,
                Value::Float(f) if f.is_finite() => *f,
                _ => return Err(p.bad("expected numbers")),
            };
        }
        if !(0.0..=1e9).contains(&v[0]) || v[1..5].iter().any(|x| !(0.0..=1e6).contains(x)) {
            return Err(p.bad("boundary and coefficients must be in 0..=1e6"));
        }
        Ok(SeekSpec::Hpl {
            boundary: v[0] as u32,
            v: [v[1], v[2], v[3], v[4]],
            single: if v[5] != -1.0 && !plus10 {
                Some(ms(m, "Single cylinder seek time", 0.0)?)
            } else {
                None
            },
            first_ten: if plus10 { Some(first_ten()?) } else { None },
        })
    };
    let seek = if m.find("Full seek curve").is_some() {
        let p = m.get("Full seek curve")?;
        let name = m.word("Full seek curve")?;
        SeekSpec::Table(params::read_seek_table(
            src,
            dir_of(&p.at, dir).as_path(),
            &name,
            &p.at,
        )?)
    } else {
        match kind.as_str() {
            "constant" => SeekSpec::Constant(ms(m, "Constant seek time", 0.0)?),
            "linear" => SeekSpec::Linear {
                single: ms(m, "Single cylinder seek time", 0.0)?,
                average: ms(m, "Average seek time", 0.0)?,
                full: ms(m, "Full strobe seek time", 0.0)?,
            },
            "curve" => SeekSpec::Curve {
                single: ms(m, "Single cylinder seek time", 0.0)?,
                average: ms(m, "Average seek time", 0.0)?,
                full: ms(m, "Full strobe seek time", 0.0)?,
            },
            "hpl" => hpl(false)?,
            "hplplus10" => hpl(true)?,
            "extracted" => return Err(m.get("Seek type")?.bad("`extracted` needs `Full seek curve`")),
            other => {
                return Err(m.get("Seek type")?.bad(format!(
                    "unknown seek type `{other}`; allowed: constant, linear, curve, hpl, hplplus10, extracted"
                )))
            }
        }
    };
    let _ = cylinders;
    let rpm = u(m, "Rotation speed (in rpms)", 1..=1_000_000)?;
    Ok(MechSpec {
        seek,
        head_switch: ms(m, "Head switch time", 0.0)?,
        write_settle: ms(m, "Add. write settling delay", 0.0)?,
        rpm,
    })
}

/// The directory to resolve a name written at `at` against: the writing file's directory.
fn dir_of(at: &Loc, fallback: &Path) -> std::path::PathBuf {
    Path::new(&*at.file)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| fallback.to_path_buf())
}
