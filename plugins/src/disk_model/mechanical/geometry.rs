//! Zoned recording: LBN → (cylinder, head, sector) and each sector's angle, as DiskSim's
//! `dm_layout_g1` maps them.
//!
//! Angles are fractions of a revolution in `u32` units (2³² = one turn), exactly as DiskSim
//! keeps them: a sector is `⌊2³²/spt⌋` wide and the `2³² mod spt` left over (`trkspace`) is
//! added each time an accumulated angle wraps past a full turn. A sector's start angle is the
//! zone's first-block offset, plus one track skew per track switch and one cylinder skew per
//! cylinder since the zone's first cylinder, plus the sector's own position.

use super::spec::{DiskSpec, Sparing, ZoneSpec};

/// A physical sector address.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Pbn {
    /// Cylinder.
    pub cyl: u32,
    /// Head (surface).
    pub head: u32,
    /// Sector on the track.
    pub sector: u32,
}

/// One track as [`Layout::locate`] found it from an LBN.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Track {
    /// The LBN located.
    pub lbn: u64,
    /// Where it is.
    pub pbn: Pbn,
    /// LBNs from `lbn` on consecutive sectors of this track (at least 1).
    pub run: u64,
    /// Sectors per track.
    pub spt: u32,
    sector0: u32,
    sector_width: u32,
    trkspace: u32,
    /// The band, and how many of its slips lie before this track, when the next track can
    /// be found from this one ([`Layout::next`]); `NO_WALK` otherwise.
    band: u32,
    slips_before: u32,
}

/// [`Track::slips_before`] of a track [`Layout::next`] cannot walk from.
const NO_WALK: u32 = u32::MAX;

impl Track {
    /// The track located at `l` instead, if `l` is among this one's run (`Layout::locate(l)`
    /// without the lookup).
    #[inline]
    pub fn at(&self, l: u64) -> Option<Track> {
        let d = l.checked_sub(self.lbn).filter(|d| *d < self.run)?;
        Some(Track {
            lbn: l,
            pbn: Pbn {
                sector: self.pbn.sector + d as u32,
                ..self.pbn
            },
            run: self.run - d,
            ..*self
        })
    }

    /// The angular width of one of its sectors (⌊2³² / spt⌋).
    #[inline]
    pub fn sector_width(&self) -> u32 {
        self.sector_width
    }

    /// The angle of sector `sector` of this track (as [`Layout::angle`]).
    #[inline]
    pub fn angle(&self, sector: u32) -> u32 {
        addmult(
            self.sector0,
            u64::from(sector),
            self.sector_width,
            self.trkspace,
        )
    }
}

/// One zone with its derived quantities.
#[derive(Clone, Debug)]
pub struct Band {
    zone: ZoneSpec,
    /// First LBN of the band.
    pub first_lbn: u64,
    /// LBNs in the band.
    pub lbns: u64,
    /// Angular width of one sector.
    pub sector_width: u32,
    trkspace: u32,
    first_angle: u32,
    track_skew: u32,
    cyl_skew: u32,
    /// Its logical tracks follow its physical ones in order, skipping only slipped tracks:
    /// no sparing, or track sparing with sorted slips and no remapped defects.
    walkable: bool,
}

impl Band {
    /// Sectors per track.
    pub fn spt(&self) -> u32 {
        self.zone.sectors_per_track
    }
    /// First cylinder.
    pub fn first_cyl(&self) -> u32 {
        self.zone.first_cyl
    }
    /// Last cylinder.
    pub fn last_cyl(&self) -> u32 {
        self.zone.last_cyl
    }
}

/// `start + mult·q`, plus `x` for every time the sum wraps past a full turn (DiskSim's
/// `addmult`).
fn addmult(start: u32, mult: u64, q: u32, x: u32) -> u32 {
    let tmp = u128::from(start) + u128::from(mult) * u128::from(q);
    let wraps = (tmp >> 32) as u64;
    (tmp as u64).wrapping_add(wraps.wrapping_mul(u64::from(x))) as u32
}

/// The layout of one disk.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Zones.
    pub bands: Vec<Band>,
    surfaces: u32,
    sparing: Sparing,
    range_size: u32,
    /// Number of LBNs (what DiskSim computes, not the file's `Block count`).
    pub blocks: u64,
    /// Cylinders.
    pub cylinders: u32,
}

impl Layout {
    /// Builds the bands of `spec`.
    pub fn new(spec: &DiskSpec) -> Result<Layout, String> {
        let mut bands = Vec::with_capacity(spec.zones.len());
        let mut first = 0u64;
        let s = u64::from(spec.surfaces);
        for z in &spec.zones {
            let spt = z.sectors_per_track;
            let width = ((1u64 << 32) / u64::from(spt)) as u32;
            let cyls = u64::from(z.last_cyl - z.first_cyl + 1);
            let phys = cyls * u64::from(spt) * s;
            let minus = match spec.sparing {
                Sparing::None => 0,
                Sparing::Tracks => u64::from(z.spares) * u64::from(spt),
                Sparing::PerRange => u64::from(z.spares) * (cyls / u64::from(spec.range_size)),
                Sparing::PerZone => u64::from(z.spares),
                Sparing::PerZoneSlipToEnd => u64::from(z.spares) + z.slips.len() as u64,
            } + u64::from(z.dead_space);
            if minus >= phys {
                return Err(format!(
                    "zone at cylinders {}..={} has no room for data after spares and dead space",
                    z.first_cyl, z.last_cyl
                ));
            }
            if spec.sparing == Sparing::PerRange
                && u64::from(z.spares) >= u64::from(spt) * s * u64::from(spec.range_size)
            {
                return Err(format!(
                    "zone at cylinders {}..={}: more spares than sectors in a range",
                    z.first_cyl, z.last_cyl
                ));
            }
            let lbns = phys - minus;
            let sectors = |v: f64| -> Result<u32, String> {
                let n = v.trunc();
                if n > 1e9 {
                    return Err("skew or offset too large".into());
                }
                Ok((n as u64).wrapping_mul(u64::from(width)) as u32)
            };
            bands.push(Band {
                zone: z.clone(),
                first_lbn: first,
                lbns,
                sector_width: width,
                trkspace: ((1u64 << 32) % u64::from(spt)) as u32,
                first_angle: sectors(z.offset)?,
                track_skew: sectors(z.track_skew)?,
                cyl_skew: sectors(z.cyl_skew)?,
                walkable: match spec.sparing {
                    Sparing::None => true,
                    Sparing::Tracks => {
                        z.defects.is_empty() && z.slips.windows(2).all(|w| w[0] <= w[1])
                    }
                    _ => false,
                },
            });
            first += lbns;
        }
        Ok(Layout {
            bands,
            surfaces: spec.surfaces,
            sparing: spec.sparing,
            range_size: spec.range_size,
            blocks: first,
            cylinders: spec.cylinders,
        })
    }

    /// The band holding `lbn` (which must be below [`blocks`](Self::blocks)).
    pub fn band_of_lbn(&self, lbn: u64) -> usize {
        self.bands.partition_point(|b| b.first_lbn + b.lbns <= lbn)
    }

    /// The band holding cylinder `cyl`, if any (cylinders between zones belong to none).
    pub fn band_of_cyl(&self, cyl: u32) -> Option<usize> {
        let i = self.bands.partition_point(|b| b.last_cyl() < cyl);
        (i < self.bands.len() && self.bands[i].first_cyl() <= cyl).then_some(i)
    }

    /// Where `lbn` lives. `lbn` must be below [`blocks`](Self::blocks).
    pub fn ltop(&self, lbn: u64) -> Pbn {
        self.ltop_in(&self.bands[self.band_of_lbn(lbn)], lbn)
    }

    /// Where `lbn` is, the LBNs from it on consecutive sectors of its track, and that
    /// track's sectors per track and angles: [`Layout::ltop`], [`Layout::run_on_track`],
    /// [`Layout::spt_of_cyl`] and what [`Track::angle`] needs, with one band lookup.
    pub fn locate(&self, lbn: u64) -> Track {
        let bi = self.band_of_lbn(lbn);
        let b = &self.bands[bi];
        let p = self.ltop_in(b, lbn);
        let in_band = b.first_cyl() <= p.cyl && p.cyl <= b.last_cyl();
        let (run, band) = if in_band && matches!(self.sparing, Sparing::None | Sparing::Tracks) {
            (self.run_in_band(b, lbn, p), bi)
        } else {
            let band = self.band_of_cyl(p.cyl).unwrap_or_else(|| {
                self.bands
                    .partition_point(|b| b.last_cyl() < p.cyl)
                    .saturating_sub(1)
            });
            (self.run_on_track_by_mapping(lbn, p), band)
        };
        let slips_before = if in_band && band == bi && b.walkable {
            // the physical track's index in the band less the logical one's: the slips
            // passed (`ltop_in` applies them in order)
            let physical =
                u64::from(p.cyl - b.first_cyl()) * u64::from(self.surfaces) + u64::from(p.head);
            let logical = (lbn - b.first_lbn + u64::from(b.zone.dead_space)) / u64::from(b.spt());
            let slips = match self.sparing {
                Sparing::Tracks => b.zone.slips.len() as u64,
                _ => 0,
            };
            // (a track clamped to the last cylinder fails this, and is located each time)
            match physical.checked_sub(logical) {
                Some(k) if k <= slips => k as u32,
                _ => NO_WALK,
            }
        } else {
            NO_WALK
        };
        let b = &self.bands[band];
        Track {
            lbn,
            pbn: p,
            run,
            spt: b.spt(),
            sector0: self.angle_in(b, Pbn { sector: 0, ..p }),
            sector_width: b.sector_width,
            trkspace: b.trkspace,
            band: band as u32,
            slips_before,
        }
    }

    /// The track holding the LBN after `tr`'s run (`locate(tr.lbn + tr.run)`), found from
    /// `tr` without a lookup when both lie in one band whose logical tracks follow its
    /// physical ones: the next physical track, past the slipped ones. The LBN must be below
    /// [`blocks`](Self::blocks).
    #[inline]
    pub fn next(&self, tr: &Track) -> Track {
        let l = tr.lbn + tr.run;
        if tr.slips_before == NO_WALK {
            return self.locate(l);
        }
        let b = &self.bands[tr.band as usize];
        if l >= b.first_lbn + b.lbns || l >= self.blocks {
            return self.locate(l);
        }
        // `tr`'s run ended at its track's end (else the band or the disk would have ended
        // it), so `l` is sector 0 of the next logical track
        let slips: &[u32] = match self.sparing {
            Sparing::Tracks => &b.zone.slips,
            _ => &[],
        };
        let (mut cyl, mut head) = (tr.pbn.cyl, tr.pbn.head);
        let mut physical =
            u64::from(cyl - b.first_cyl()) * u64::from(self.surfaces) + u64::from(head);
        let mut k = tr.slips_before as usize;
        loop {
            physical += 1;
            head += 1;
            if head == self.surfaces {
                head = 0;
                cyl += 1;
            }
            if k < slips.len() && u64::from(slips[k]) <= physical {
                k += 1;
            } else {
                break;
            }
        }
        if cyl > b.last_cyl() {
            return self.locate(l);
        }
        let p = Pbn {
            cyl,
            head,
            sector: 0,
        };
        Track {
            lbn: l,
            pbn: p,
            run: self.run_in_band(b, l, p),
            spt: b.spt(),
            sector0: self.angle_in(b, p),
            sector_width: b.sector_width,
            trkspace: b.trkspace,
            band: tr.band,
            slips_before: k as u32,
        }
    }

    fn ltop_in(&self, b: &Band, lbn: u64) -> Pbn {
        let spt = u64::from(b.spt());
        let surf = u64::from(self.surfaces);
        let mut l = lbn - b.first_lbn + u64::from(b.zone.dead_space);
        match self.sparing {
            Sparing::None => {
                let track = l / spt;
                self.pbn(b, track / surf, track % surf, l % spt)
            }
            Sparing::Tracks => {
                let mut track = l / spt;
                for &s in &b.zone.slips {
                    if u64::from(s) <= track {
                        track += 1;
                    }
                }
                if let Some(&(_, r)) = b.zone.defects.iter().find(|&&(d, _)| u64::from(d) == track)
                {
                    track = u64::from(r);
                }
                self.pbn(b, track / surf, track % surf, l % spt)
            }
            Sparing::PerRange => {
                let per_cyl = spt * surf;
                let per_range = per_cyl * u64::from(self.range_size);
                let lbns_per_range = per_range - u64::from(b.zone.spares);
                let range = l / lbns_per_range;
                l %= lbns_per_range;
                let first_in_range = range * per_range;
                let mut slips = 0;
                for &s in &b.zone.slips {
                    let s = u64::from(s);
                    if s >= first_in_range && s - first_in_range <= l + slips {
                        slips += 1;
                    }
                }
                l += slips;
                if let Some(&(_, r)) = b
                    .zone
                    .defects
                    .iter()
                    .find(|&&(d, r)| u64::from(d) == first_in_range + l && d != r)
                {
                    l = u64::from(r) % per_range;
                }
                let cyl = range * u64::from(self.range_size) + l / per_cyl;
                self.pbn(b, cyl, (l % per_cyl) / spt, l % spt)
            }
            Sparing::PerZone | Sparing::PerZoneSlipToEnd => {
                let mut slips = 0;
                for &s in &b.zone.slips {
                    if u64::from(s) <= l + slips {
                        slips += 1;
                    }
                }
                l += slips;
                if let Some(&(_, r)) = b
                    .zone
                    .defects
                    .iter()
                    .find(|&&(d, r)| u64::from(d) == l && d != r)
                {
                    l = u64::from(r);
                }
                let per_cyl = spt * surf;
                self.pbn(b, l / per_cyl, (l % per_cyl) / spt, l % spt)
            }
        }
    }

    fn pbn(&self, b: &Band, cyl_in_band: u64, head: u64, sector: u64) -> Pbn {
        let cyl = (u64::from(b.first_cyl()) + cyl_in_band)
            .min(u64::from(self.cylinders.saturating_sub(1)));
        Pbn {
            cyl: cyl as u32,
            head: head as u32,
            sector: sector as u32,
        }
    }

    /// The start angle of physical sector `p` (DiskSim's `dm_pbn_skew`). Cylinders outside
    /// every zone take the nearest zone below (DiskSim's behaviour for its gaps).
    pub fn angle(&self, p: Pbn) -> u32 {
        let bi = self.band_of_cyl(p.cyl).unwrap_or_else(|| {
            self.bands
                .partition_point(|b| b.last_cyl() < p.cyl)
                .saturating_sub(1)
        });
        self.angle_in(&self.bands[bi], p)
    }

    fn angle_in(&self, b: &Band, p: Pbn) -> u32 {
        let cylno = u64::from(p.cyl.saturating_sub(b.first_cyl()));
        let switches = u64::from(p.head) + u64::from(self.surfaces - 1) * cylno;
        let mut a = addmult(b.first_angle, switches, b.track_skew, b.trkspace);
        a = addmult(a, cylno, b.cyl_skew, b.trkspace);
        addmult(a, u64::from(p.sector), b.sector_width, b.trkspace)
    }

    /// Sectors per track on cylinder `cyl`.
    pub fn spt_of_cyl(&self, cyl: u32) -> u32 {
        match self.band_of_cyl(cyl) {
            Some(i) => self.bands[i].spt(),
            None => self.bands[self
                .bands
                .partition_point(|b| b.last_cyl() < cyl)
                .saturating_sub(1)]
            .spt(),
        }
    }

    /// Angular width of a sector on cylinder `cyl`.
    pub fn sector_width(&self, cyl: u32) -> u32 {
        ((1u64 << 32) / u64::from(self.spt_of_cyl(cyl))) as u32
    }

    /// How many LBNs from `lbn` on lie on consecutive sectors of `lbn`'s track (at least 1,
    /// at most to the end of the disk).
    pub fn run_on_track(&self, lbn: u64, p: Pbn) -> u64 {
        if matches!(self.sparing, Sparing::None | Sparing::Tracks) {
            let b = &self.bands[self.band_of_lbn(lbn)];
            if b.first_cyl() <= p.cyl && p.cyl <= b.last_cyl() {
                return self.run_in_band(b, lbn, p);
            }
        }
        self.run_on_track_by_mapping(lbn, p)
    }

    /// The run from `lbn` at `p` in band `b`, for track-granular sparing: whole logical
    /// tracks map to whole physical tracks (track sparing slips or remaps tracks, never
    /// sectors), so the run ends at the track's or the band's end.
    fn run_in_band(&self, b: &Band, lbn: u64, p: Pbn) -> u64 {
        u64::from(b.spt().saturating_sub(p.sector))
            .min((b.first_lbn + b.lbns).saturating_sub(lbn))
            .min(self.blocks.saturating_sub(lbn))
            .max(1)
    }

    /// [`Layout::run_on_track`] for any sparing scheme: maps LBNs until the run breaks.
    fn run_on_track_by_mapping(&self, lbn: u64, p: Pbn) -> u64 {
        let spt = u64::from(self.spt_of_cyl(p.cyl));
        let max = spt
            .saturating_sub(u64::from(p.sector))
            .min(self.blocks.saturating_sub(lbn))
            .max(1);
        let same = |k: u64| {
            let q = self.ltop(lbn + k);
            q.cyl == p.cyl && q.head == p.head && u64::from(q.sector) == u64::from(p.sector) + k
        };
        if same(max - 1) {
            return max;
        }
        // the first k that breaks the run; runs are monotone (once broken, broken)
        let (mut lo, mut hi) = (0u64, max - 1);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if same(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walking the disk track by track with `next` finds what `locate` finds, on every
    /// bundled disk: from LBN 0 to the end, and from sampled LBNs in mid-track.
    #[test]
    fn next_track_agrees_with_locate() {
        for name in ["barracuda", "cheetah9LP", "hp_c2247a", "st15150n"] {
            let spec =
                crate::disk_model::mechanical::load_spec(name, None, std::path::Path::new(""))
                    .unwrap();
            let layout = Layout::new(&spec).unwrap();
            let mut walked = 0u64;
            let mut tr = layout.locate(0);
            while tr.lbn + tr.run < layout.blocks {
                let next = layout.next(&tr);
                assert_eq!(next, layout.locate(tr.lbn + tr.run), "{name} after {tr:?}");
                walked += u64::from(next.slips_before != NO_WALK);
                tr = next;
            }
            let mut x = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..2_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let tr = layout.locate(x % layout.blocks);
                if tr.lbn + tr.run < layout.blocks {
                    assert_eq!(layout.next(&tr), layout.locate(tr.lbn + tr.run), "{name}");
                }
            }
            // the disks with track or no sparing walk nearly every track
            if matches!(layout.sparing, Sparing::None | Sparing::Tracks) {
                let tracks = u64::from(layout.cylinders) * u64::from(layout.surfaces);
                assert!(walked * 10 > tracks * 9, "{name}: {walked} of {tracks}");
            }
        }
    }

    /// The track-sparing shortcut of `run_on_track` agrees with mapping LBN by LBN, on
    /// every bundled disk, at every track start, zone boundary and slipped track, and at
    /// sampled sectors in between.
    #[test]
    fn run_on_track_shortcut_agrees_with_the_mapping() {
        for name in ["barracuda", "cheetah9LP", "hp_c2247a", "st15150n"] {
            let spec =
                crate::disk_model::mechanical::load_spec(name, None, std::path::Path::new(""))
                    .unwrap();
            let layout = Layout::new(&spec).unwrap();
            let mut lbns: Vec<u64> = vec![0, 1, layout.blocks - 1, layout.blocks - 2];
            for b in &layout.bands {
                for d in [0u64, 1, 2] {
                    lbns.push(b.first_lbn + d);
                    lbns.push((b.first_lbn + b.lbns).saturating_sub(d + 1));
                }
            }
            // a pseudo-random walk over the disk, landing on every kind of sector
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                lbns.push(x % layout.blocks);
            }
            let mut checked = 0;
            for lbn in lbns {
                let p = layout.ltop(lbn);
                let fast = layout.run_on_track(lbn, p);
                assert_eq!(
                    fast,
                    layout.run_on_track_by_mapping(lbn, p),
                    "{name} lbn {lbn}"
                );
                // and walking run by run from here stays consistent with the mapping
                let next = lbn + fast;
                if next < layout.blocks {
                    let q = layout.ltop(next);
                    assert!(
                        (q.cyl, q.head) != (p.cyl, p.head) || q.sector != p.sector + fast as u32,
                        "{name}: run from {lbn} stops early"
                    );
                }
                checked += 1;
            }
            assert!(checked > 20_000);
        }
    }
}
