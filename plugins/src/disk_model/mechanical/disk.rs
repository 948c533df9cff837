//! The timing of one request: controller overhead, seek, rotation, media transfer sector by
//! sector across tracks, the bus transfer that overlaps it, the cache, and what the disk does
//! between requests (read-ahead, destaging fast writes).
//!
//! Time is absolute integer picoseconds from the start of the simulation. The platter turns
//! at constant speed from angle 0 at time 0, so the head's angle at time `t` is
//! `(t mod period)/period` of a turn (DiskSim's convention).
//!
//! A read miss goes: command overhead (read miss, after a read or a write) → seek from the
//! head's current track → wait for the first sector → read sectors; at a track's end switch
//! head or cylinder and wait for the next track's first sector (skews make that short) →
//! after `read water` sectors are buffered the disk reconnects to the bus and moves one sector
//! per `sector transfer` time, never ahead of the media → completion overhead. The media
//! stops when the segment is full of data the bus has not taken yet, and resumes when the bus
//! frees a sector and that sector next passes under the head. After a read the disk keeps
//! reading ahead into the segment until the next request arrives or the read-ahead limit.
//!
//! A request that interrupts read-ahead waits for the head: until a track switch under way
//! ends, and, when read-ahead must not stop inside a sector (`Stop prefetch in sector = 0`),
//! until the sector under way — or the one it waits for after a track switch — has passed.
//! As in DiskSim (`disk_check_hda`), that wait comes on top of the command overhead rather
//! than overlapping it.
//!
//! DiskSim's fixed-point rotation arithmetic is reproduced, because the reference is DiskSim
//! request by request: a rotational wait keeps 20 of the angle's 32 bits (`dm_rottime`), and
//! DiskSim advances its platter angle incrementally, by `dm_rotate`, which keeps 24 bits of
//! each increment, so its platter falls slightly behind the ideal one with every sector it
//! moves (a few ns per sector; over thousands of requests, enough to turn a near miss into
//! a lost revolution). The model keeps that lag (`lag`) and subtracts it from the ideal angle.
//!
//! A write moves its data over the bus first (one sector per `sector transfer`); the media
//! writes a sector only once its data is in. With fast writes the host hears completion when
//! the data is in the buffer and the disk destages afterwards; later requests position only
//! once the destage is done. Without, completion follows the media.

use super::bus_times::BusTimes;
use super::cache::Cache;
use super::geometry::{Layout, Pbn, Track};
use super::seek::{ms_to_ps, SeekCurve};
use super::spec::DiskSpec;

/// What one request cost, in ps.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// When the host hears completion.
    pub completion: u64,
    /// The first seek (including head switch and write settle).
    pub seek: u64,
    /// The first rotational wait.
    pub rotation: u64,
    /// From the first sector's start under the head (or, for hits, from the start of the bus
    /// transfer) to completion.
    pub transfer: u64,
    /// Served from the cache.
    pub cache_hit: bool,
}

#[derive(Copy, Clone, Debug)]
struct ReadAhead {
    /// Next LBN to read.
    next: u64,
    /// Read-ahead stops before this LBN.
    limit: u64,
    /// Time the head is free after the last sector read.
    t: u64,
    /// Segment being filled.
    seg: usize,
    /// The last track the media was on when read-ahead began, if known: its run may hold
    /// `next` (saves a lookup).
    track: Option<Track>,
}

/// Overheads and transfer times in ps.
#[derive(Clone, Debug)]
struct Costs {
    read_hit: [u64; 2],
    read_miss: [u64; 2],
    write_hit: [u64; 2],
    write_miss: [u64; 2],
    completion: [u64; 2],
    data_prep: u64,
    reselect_first: u64,
    min_seek_delay: u64,
    bus: [u64; 2],
    reselect_other: u64,
    extra_disconnect: bool,
    /// Positioning may start this long after arrival (extra-disconnect write).
    extradisc_position: u64,
    /// The data may start moving this long after arrival (extra-disconnect write).
    extradisc_data: u64,
}

/// One disk's mechanism and controller state.
#[derive(Clone, Debug)]
pub struct Disk {
    /// The layout.
    pub layout: Layout,
    /// The seek curve.
    pub seek: SeekCurve,
    costs: Costs,
    period: u64,
    segment_size: u64,
    max_readahead: u64,
    readahead_over_requested: bool,
    readahead_on_idle_hit: bool,
    write_prebuffering: bool,
    continuous_read: u8,
    fast_write: u8,
    keep_writes: bool,
    read_water: f64,
    water_by_request: bool,
    stop_in_sector: bool,
    cache: Cache,
    cyl: u32,
    head: u32,
    last_was_read: bool,
    /// The mechanism is busy (destaging) until then.
    hda_free: u64,
    /// Read-ahead interrupted by the current request holds the head until then.
    ra_stop: u64,
    /// How far DiskSim's platter angle has fallen behind the ideal one.
    lag: u32,
    /// The last `(time, angle lost)` of [`Disk::lose`].
    loss_memo: (u64, u32),
    ra: Option<ReadAhead>,
    /// One past the last LBN of the last write, if any.
    last_write_end: Option<u64>,
    /// When the bus has carried each sector of the current request (reads: to the host;
    /// writes: into the buffer).
    bus_done: BusTimes,
    /// The track the last media transfer ended on.
    last_track: Option<Track>,
    /// The segment read-ahead was filling when the request being served came, if it had
    /// not finished (DiskSim's `BUFFER_READING`: a miss or a write takes it last).
    reading: Option<usize>,
    /// When the destage of the last fast write ends: a read hit arriving before waits for it
    /// (DiskSim 4.0 holds the hit until the destage releases the mechanism).
    destage: Option<u64>,
}

/// `(end − begin) mod 2³²` of a turn as time.
#[inline]
fn rot_time(period: u64, from: u32, to: u32) -> u64 {
    let diff = to.wrapping_sub(from);
    // DiskSim's dm_rottime: the angle keeps 20 of its 32 bits
    ((u128::from(diff >> 12) * u128::from(period)) >> 20) as u64
}

/// DiskSim's dm_rotate: the angle the platter turns in `t` ps, kept to 24 bits.
#[inline]
fn rotate(period: u64, t: u64) -> u32 {
    (fraction(t % period, period, 24) << 8) as u32
}

/// ⌊x·2^bits / p⌋ for `x < p` and `bits ≤ 32`, exactly: a floating-point quotient (off by
/// at most one below 2⁵³) corrected by one 128-bit product, in place of a 128-bit division
/// (which costs several times more and sits on every positioning).
#[inline]
fn fraction(x: u64, p: u64, bits: u32) -> u64 {
    debug_assert!(x < p && bits <= 32);
    let n = u128::from(x) << bits;
    if p >= 1 << 53 {
        return (n / u128::from(p)) as u64;
    }
    // x·2^bits is exact in an f64 and the quotient below 2³²: the rounded division is
    // within 2⁻²⁰ of the true one, so the truncation is at most one off either way
    // (through i64: both conversions are single instructions, and exact below 2⁵³)
    let mut q = ((x as i64 as f64) * ((1u64 << bits) as f64) / (p as i64 as f64)) as i64 as u64;
    let m = u128::from(q) * u128::from(p);
    if m > n {
        q -= 1;
    } else if n - m >= u128::from(p) {
        q += 1;
    }
    q
}

impl Disk {
    /// A disk at rest: heads on cylinder 0, head 0, empty cache, last command a read.
    pub fn new(spec: &DiskSpec) -> Result<Disk, String> {
        let layout = Layout::new(spec)?;
        let seek = SeekCurve::new(&spec.mech, spec.cylinders);
        let o = &spec.overheads;
        let sc = |v: f64| ms_to_ps(v * o.time_scale);
        let p2 = |v: [f64; 2]| [sc(v[0]), sc(v[1])];
        let costs = Costs {
            read_hit: p2(o.read_hit),
            read_miss: p2(o.read_miss),
            write_hit: p2(o.write_hit),
            write_miss: p2(o.write_miss),
            completion: p2(o.completion),
            data_prep: sc(o.data_prep),
            reselect_first: sc(o.reselect_first),
            min_seek_delay: sc(o.min_seek_delay),
            reselect_other: sc(o.reselect_other),
            extra_disconnect: o.extra_write_disconnect,
            extradisc_position: sc(o.extradisc_command + o.extradisc_seek_delta),
            extradisc_data: sc(o.extradisc_command
                + o.extradisc_disconnect1
                + o.extradisc_inter_disconnect
                + o.reselect_first
                + o.data_prep),
            bus: [
                ms_to_ps(spec.sector_transfer[0]),
                ms_to_ps(spec.sector_transfer[1]),
            ],
        };
        Ok(Disk {
            period: ms_to_ps(60_000.0 / f64::from(spec.mech.rpm)),
            segment_size: u64::from(spec.cache.segment_size),
            max_readahead: u64::from(spec.cache.max_readahead),
            readahead_over_requested: spec.cache.readahead_over_requested,
            readahead_on_idle_hit: spec.cache.readahead_on_idle_hit,
            write_prebuffering: spec.cache.write_prebuffering,
            continuous_read: spec.cache.continuous_read,
            fast_write: spec.cache.fast_write,
            keep_writes: spec.cache.read_hits_on_write_data,
            read_water: spec.cache.read_water,
            water_by_request: spec.cache.water_by_request,
            stop_in_sector: spec.cache.stop_in_sector,
            cache: Cache::new(
                spec.cache.segments,
                spec.cache.enabled,
                spec.cache.separate_write_segment,
            ),
            layout,
            seek,
            costs,
            cyl: 0,
            head: 0,
            last_was_read: true,
            hda_free: 0,
            ra_stop: 0,
            lag: 0,
            loss_memo: (0, 0),
            ra: None,
            last_write_end: None,
            bus_done: BusTimes::default(),
            last_track: None,
            reading: None,
            destage: None,
        })
    }

    /// One revolution in ps.
    pub fn period(&self) -> u64 {
        self.period
    }

    /// Sectors per cache segment.
    pub fn segment_len(&self) -> u64 {
        self.segment_size
    }

    /// The slower of the read and write per-sector bus times, in ps.
    pub fn bus_time(&self) -> u64 {
        self.costs.bus[0].max(self.costs.bus[1])
    }

    /// The head's cylinder.
    pub fn cylinder(&self) -> u32 {
        self.cyl
    }

    /// The platter's angle at time `t`.
    #[inline]
    pub fn angle_at(&self, t: u64) -> u32 {
        (fraction(t % self.period, self.period, 32) as u32).wrapping_sub(self.lag)
    }

    /// DiskSim advanced its angle by `rotate(t)` where the platter turned by `t`.
    #[inline]
    fn lose(&mut self, t: u64, times: u64) {
        // `t` is a sector time: one per zone, so the last one is nearly always the one asked
        if self.loss_memo.0 != t {
            let exact = fraction(t % self.period, self.period, 32) as u32;
            self.loss_memo = (t, exact.wrapping_sub(rotate(self.period, t)));
        }
        self.lag = self
            .lag
            .wrapping_add(self.loss_memo.1.wrapping_mul(times as u32));
    }

    /// Time from `t` until the start of a sector at angle `a` is under the head.
    #[inline]
    pub fn wait_for(&self, t: u64, a: u32) -> u64 {
        rot_time(self.period, self.angle_at(t), a)
    }

    /// Time one sector of cylinder `cyl` takes to pass under the head.
    #[inline]
    fn sector_time(&self, cyl: u32) -> u64 {
        rot_time(self.period, 0, self.layout.sector_width(cyl))
    }

    /// Sectors to buffer before reconnecting for a read of `n` sectors.
    fn read_water(&self, n: u64) -> u64 {
        let w = if self.water_by_request {
            ((self.segment_size.min(n) as f64) * self.read_water) as u64
        } else {
            ((self.segment_size as f64) * self.read_water + 0.9999999999) as u64
        };
        w.clamp(1, n)
    }

    /// Lets the read-ahead run until `now`, then stops it: the segment keeps what was read,
    /// the head stays on the last track it reached. If it was still running (had not reached
    /// its limit) at `now`, when it would have gone on: the time its next sector starts under
    /// the head, or its track switch ends, or it would have begun its next track.
    fn stop_readahead(&mut self, now: u64) -> Option<u64> {
        let ra = self.ra.take()?;
        self.reading = None;
        let mut resume = None;
        let (mut next, mut t) = (ra.next, ra.t);
        let mut known = ra.track;
        while next < ra.limit {
            let tr = match known {
                Some(k) if next == k.lbn + k.run => self.layout.next(&k),
                Some(k) => k.at(next).unwrap_or_else(|| self.layout.locate(next)),
                None => self.layout.locate(next),
            };
            known = Some(tr);
            let p = tr.pbn;
            let s = self.seek.time(self.cyl, self.head, p.cyl, p.head, false);
            if t > now {
                resume = Some(t);
                break;
            }
            if t + s > now {
                // a track switch under way completes before anything else can position
                self.cyl = p.cyl;
                self.head = p.head;
                self.ra_stop = t + s;
                resume = Some(t + s);
                break;
            }
            let start = t + s + self.wait_for(t + s, tr.angle(p.sector));
            let w = self.sector_time(p.cyl);
            let run = tr.run.min(ra.limit - next);
            self.cyl = p.cyl;
            self.head = p.head;
            if start + w > now {
                if !self.stop_in_sector {
                    // DiskSim drops the pending sector-done event but the head is not free
                    // before that sector has passed
                    self.ra_stop = start + w;
                }
                t = start;
                resume = Some(t);
                break;
            }
            let done = ((now - start) / w).min(run);
            next += done;
            self.lose(w, done);
            t = start + done * w;
            if done < run {
                resume = Some(t);
                break;
            }
        }
        self.cache.extend(ra.seg, next, self.segment_size);
        let running = resume.filter(|_| next < ra.limit);
        if running.is_some() {
            self.reading = Some(ra.seg);
        }
        running
    }

    /// Serves a request of `n` sectors at `lbn` arriving at `now` (the disk is idle: earlier
    /// requests have completed). `lbn + n` must not exceed the disk.
    pub fn serve(&mut self, lbn: u64, n: u64, write: bool, now: u64) -> Breakdown {
        let n = n.max(1);
        let after = usize::from(!self.last_was_read);
        self.reading = None;
        if !write {
            if let Some(ra) = self.ra {
                // A read served from the buffer while read-ahead runs leaves the mechanism
                // to it, and a hit on the segment being filled moves its bound to the hit's
                // own (DiskSim 4.0: `maxreadaheadblkno` is raised for every request that
                // takes the segment).
                let kept = (self.cyl, self.head, self.ra_stop, self.lag, self.loss_memo);
                if let Some(resume) = self.stop_readahead(now) {
                    if let Some(seg) = self.cache.lookup(lbn, n) {
                        (self.cyl, self.head, self.ra_stop, self.lag, self.loss_memo) = kept;
                        let limit = if seg == ra.seg {
                            ra.limit
                                .max(self.readahead_limit(lbn, n).min(self.layout.blocks))
                        } else {
                            ra.limit
                        };
                        self.ra = Some(ReadAhead { limit, ..ra });
                        self.last_was_read = true;
                        return self.read_hit(n, now, after);
                    }
                    let sg = self.cache.segment(ra.seg);
                    if sg.start <= lbn && lbn <= sg.end {
                        self.last_was_read = true;
                        return self.read_on(ra, resume, lbn, n, now, after);
                    }
                }
            }
        }
        self.stop_readahead(now);
        let b = if write {
            self.write(lbn, n, now, after)
        } else {
            self.read(lbn, n, now, after)
        };
        self.last_was_read = !write;
        b
    }

    fn read(&mut self, lbn: u64, n: u64, now: u64, after: usize) -> Breakdown {
        if let Some(seg) = self.cache.lookup(lbn, n) {
            if let Some(end) = self.destage.filter(|&end| end > now) {
                // A hit while a fast write is being destaged waits for the destage to end,
                // whichever segment it hits; the command's overhead runs meanwhile (DiskSim
                // 4.0 activates the read, then holds it until the destage releases the
                // mechanism, and sends the data from then on).
                return self.read_hit_after(n, now, after, end);
            }
            if self.readahead_on_idle_hit {
                // the mechanism is idle: read-ahead starts again once the command is taken
                let end = self.cache.segment(seg).end;
                let limit = self.readahead_limit(lbn, n).min(self.layout.blocks);
                if limit > end {
                    self.ra = Some(ReadAhead {
                        next: end,
                        limit,
                        t: (now + self.costs.read_hit[after]).max(self.hda_free),
                        seg,
                        track: None,
                    });
                }
            }
            return self.read_hit(n, now, after);
        }
        if let Some(seg) = self.cache.prefix(lbn, n) {
            // a partial hit with the mechanism idle: the rest is read after positioning
            let go = (now + self.costs.read_miss[after] + self.ra_stop.saturating_sub(now))
                .max(self.hda_free);
            let ra = ReadAhead {
                next: self.cache.segment(seg).end,
                limit: 0,
                t: go,
                seg,
                track: None,
            };
            return self.read_on(ra, go, lbn, n, now, after);
        }
        let seg = self.cache.fill(lbn, n, self.reading);
        let go = (now + self.costs.read_miss[after] + self.ra_stop.saturating_sub(now))
            .max(self.hda_free);
        let water = self.read_water(n);
        let (seek, rotation, media_start, end) = self.media(lbn, n, go, false, water, None);
        let last_bus = if n > 0 {
            self.bus_done.get((n - 1) as usize)
        } else {
            end
        };
        let completion = last_bus.max(end) + self.costs.completion[0];
        self.hda_free = end;
        // read-ahead continues from where the media stopped
        let limit = self.readahead_limit(lbn, n).min(self.layout.blocks);
        if limit > lbn + n {
            self.ra = Some(ReadAhead {
                next: lbn + n,
                limit,
                t: end,
                seg,
                track: self.last_track,
            });
        }
        Breakdown {
            completion,
            seek,
            rotation,
            transfer: completion - media_start,
            cache_hit: false,
        }
    }

    /// A read of `lbn..lbn+n` arriving at `now` whose first part is in segment `ra.seg`: a
    /// partial hit. The buffered part goes to the host at once and the media reads the rest
    /// from `resume` (DiskSim 4.0 with `Immed transfer partial hit`): when read-ahead `ra`
    /// (stopped) was filling the segment, it goes on without repositioning, and read-ahead
    /// goes on past the request.
    fn read_on(
        &mut self,
        ra: ReadAhead,
        resume: u64,
        lbn: u64,
        n: u64,
        now: u64,
        after: usize,
    ) -> Breakdown {
        let bt = self.costs.bus[0];
        let have = self.cache.segment(ra.seg).end;
        let start = now + self.costs.read_hit[after] + self.costs.data_prep;
        let rest = lbn + n - have;
        let (seek, rotation, _, end) = self.media(
            have,
            rest,
            resume,
            false,
            1,
            Some(start + (have - lbn) * bt),
        );
        let last_bus = self.bus_done.get((rest - 1) as usize);
        let completion = last_bus.max(end) + self.costs.completion[0];
        self.cache.extend(ra.seg, lbn + n, self.segment_size);
        self.cache.lookup(lbn + n - 1, 1);
        self.hda_free = end;
        let limit = ra
            .limit
            .max(self.readahead_limit(lbn, n))
            .min(self.layout.blocks);
        if limit > lbn + n {
            self.ra = Some(ReadAhead {
                next: lbn + n,
                limit,
                t: end,
                seg: ra.seg,
                track: self.last_track,
            });
        }
        Breakdown {
            completion,
            seek,
            rotation,
            transfer: completion - start,
            cache_hit: false,
        }
    }

    /// A read of `n` sectors found in the buffer, arriving at `now`.
    fn read_hit(&self, n: u64, now: u64, after: usize) -> Breakdown {
        self.read_hit_after(n, now, after, 0)
    }

    /// A read hit arriving at `now` whose data can leave the buffer only from `ready` on.
    fn read_hit_after(&self, n: u64, now: u64, after: usize, ready: u64) -> Breakdown {
        let start = (now + self.costs.read_hit[after]).max(ready) + self.costs.data_prep;
        let completion = start + n * self.costs.bus[0] + self.costs.completion[0];
        Breakdown {
            completion,
            seek: 0,
            rotation: 0,
            transfer: completion - start,
            cache_hit: true,
        }
    }

    /// Where read-ahead after a read of `n` sectors from `lbn` stops (exclusive), by the
    /// spec's `Buffer continuous read` (DiskSim's `disk_buffer_get_max_readahead` and, for
    /// modes 1 and 2, the background seek it abandons at a head switch or a seek).
    fn readahead_limit(&self, lbn: u64, n: u64) -> u64 {
        let end = lbn + n;
        // DiskSim's bound: the request's end plus the maximum read-ahead; without one, a
        // segment's worth (past the request's end when read-ahead may overwrite the
        // requested data, else from its start). The segment keeps the last `segment_size`
        // sectors read ([`Cache::extend`]), so read-ahead past it drops the front.
        let segment = if self.max_readahead > 0 {
            end + self.max_readahead
        } else if self.readahead_over_requested {
            end + self.segment_size
        } else {
            (lbn + self.segment_size).max(end)
        };
        if end >= self.layout.blocks {
            return end;
        }
        // the track the head is on when the read ends, and where it ends
        let track_end = |l: u64| {
            let t = self.layout.locate(l);
            l + t.run
        };
        match self.continuous_read {
            0 => end,
            1 => segment.min(track_end(end.saturating_sub(1).max(lbn))),
            2 => {
                // to the end of the last block's cylinder: follow its tracks while they stay
                let last = end.saturating_sub(1).max(lbn);
                let cyl = self.layout.ltop(last).cyl;
                let mut stop = track_end(last);
                while stop < self.layout.blocks && self.layout.ltop(stop).cyl == cyl {
                    stop = track_end(stop);
                }
                segment.min(stop)
            }
            4 => {
                // DEC: the end of the track holding the first block after the read; one track
                // more when the read began before that track (its segment starts there)
                let t = self.layout.locate(end);
                let start = end - u64::from(t.pbn.sector).min(end);
                let stop = end + t.run;
                if lbn < start {
                    stop + u64::from(self.layout.locate(lbn).spt)
                } else {
                    stop
                }
            }
            _ => segment,
        }
    }

    fn write(&mut self, lbn: u64, n: u64, now: u64, after: usize) -> Breakdown {
        let bt = self.costs.bus[1];
        // Without write prebuffering a fast write takes its data only once no earlier write
        // is being destaged (DiskSim 4.0: a destage is not a stoppable access); a limited
        // fast write also waits for the read-ahead's sector in progress.
        let fast = self.fast_write > 0;
        let wait_hda = !self.write_prebuffering
            && match self.fast_write {
                1 => self.hda_free.max(self.ra_stop) > now,
                2 => self.hda_free > now,
                _ => false,
            };
        let overhead = if fast {
            self.costs.write_hit[after]
        } else {
            self.costs.write_miss[after]
        };
        // a write after a non-sequential write disconnects once more before taking its data
        let extra = self.costs.extra_disconnect && self.last_write_end.is_some_and(|e| e != lbn);
        let (position_at, bus_start) = if extra {
            (
                now + self.costs.extradisc_position,
                now + self.costs.extradisc_data,
            )
        } else {
            (now + overhead, now + overhead + self.costs.data_prep)
        };
        self.last_write_end = Some(lbn + n);
        let bus_start = if wait_hda {
            bus_start.max(
                self.hda_free.max(self.ra_stop) + self.costs.reselect_first + self.costs.data_prep,
            )
        } else {
            bus_start
        };
        // data arrives sector by sector
        self.bus_done.clear();
        self.bus_done.push(n as usize, bus_start, bt);
        let data_in = bus_start + n * bt;
        let go = (position_at + self.ra_stop.saturating_sub(now)).max(self.hda_free);
        let (seek, rotation, media_start, end) = self.media(lbn, n, go, true, 0, None);
        self.destage = fast.then_some(end);
        if self.keep_writes {
            self.cache.fill_write(lbn, n, self.reading);
        } else {
            self.cache.invalidate(lbn, n);
        }
        self.hda_free = end;
        // write-through: the disk reconnects to report completion
        let reselect = if extra {
            self.costs.reselect_other
        } else {
            self.costs.reselect_first
        };
        let done = if fast {
            data_in
        } else {
            end.max(data_in) + reselect
        };
        let completion = done + self.costs.completion[1];
        Breakdown {
            completion,
            seek,
            rotation,
            transfer: completion.saturating_sub(media_start.min(completion)),
            cache_hit: fast,
        }
    }

    /// Moves the media over `lbn..lbn+n` starting no earlier than `go`. For reads, fills
    /// `bus_done` with each sector's bus transfer end (the bus reconnects after `water`
    /// sectors, or is already connected from `connected_at`); for writes, each sector waits
    /// for `bus_done` (its data). Returns the first seek, the first rotational wait, the start
    /// of the first sector and the end of the last.
    fn media(
        &mut self,
        lbn: u64,
        n: u64,
        go: u64,
        write: bool,
        water: u64,
        connected_at: Option<u64>,
    ) -> (u64, u64, u64, u64) {
        let nn = n as usize;
        // the bus times apart from `self`
        let mut bus_done = std::mem::take(&mut self.bus_done);
        let r = if write {
            self.media_write(lbn, go, &bus_done)
        } else {
            bus_done.clear();
            let water = (water as usize).clamp(1, nn);
            self.media_read(lbn, go, nn, water, connected_at, &mut bus_done)
        };
        self.bus_done = bus_done;
        r
    }

    /// Where LBN `l` is, how many sectors follow it on its track, the track's sector time
    /// and the sector's angle; `cur` remembers the last track located (resuming on it, after
    /// a stall, locates nothing).
    #[inline]
    fn track_at(&self, l: u64, cur: &mut Option<(Track, u64)>) -> (Pbn, u64, u64, u32) {
        let (tr, w) = match *cur {
            Some((tr, w)) if l >= tr.lbn && l < tr.lbn + tr.run => (tr, w),
            _ => {
                let tr = match *cur {
                    // reading on: the track after the last, found without a lookup
                    Some((last, _)) if l == last.lbn + last.run => self.layout.next(&last),
                    _ => self.layout.locate(l),
                };
                let w = rot_time(self.period, 0, tr.sector_width());
                *cur = Some((tr, w));
                (tr, w)
            }
        };
        let d = l - tr.lbn;
        let sector = tr.pbn.sector + d as u32;
        (Pbn { sector, ..tr.pbn }, tr.run - d, w, tr.angle(sector))
    }

    /// Reads `bd.len()` sectors at `lbn` (see [`Disk::media`]). The media never gets a
    /// segment ahead of the bus: sector `j` starts only once the bus has taken sector
    /// `j − segment`. Before the bus reconnects (at `water` sectors) nothing leaves the
    /// segment, and `water` ≤ segment, so that phase never stalls.
    ///
    /// Within a track every sector is one sector time after the previous, so both the
    /// media ends and the bus ends of a stretch without stall are closed forms; only the
    /// first stall needs a search.
    fn media_read(
        &mut self,
        lbn: u64,
        go: u64,
        nn: usize,
        water: usize,
        connected_at: Option<u64>,
        bd: &mut BusTimes,
    ) -> (u64, u64, u64, u64) {
        let bt = self.costs.bus[0];
        let seg = self.segment_size.max(1) as usize;
        let mut t = go;
        let mut pos = 0usize;
        let mut first: Option<(u64, u64, u64)> = None;
        // end of the previous bus sector (or the reconnection); a read continuing a partial
        // hit finds the bus already carrying the buffered part
        let mut bus_prev = connected_at.unwrap_or(0);
        let mut connected = connected_at.is_some();
        let mut cur = None;
        while pos < nn {
            let (p, track_run, w, angle) = self.track_at(lbn + pos as u64, &mut cur);
            let s = self.seek.time(self.cyl, self.head, p.cyl, p.head, false);
            t += s;
            self.cyl = p.cyl;
            self.head = p.head;
            let run = track_run.min((nn - pos) as u64) as usize;
            let start = t + self.wait_for(t, angle);
            if first.is_none() {
                first = Some((s, start - t, start));
            }
            t = start;
            let mut k = 0usize;
            if !connected {
                let kk = run.min(water - pos);
                t += kk as u64 * w;
                self.lose(w, kk as u64);
                k = kk;
                if pos + kk == water {
                    // everything buffered so far follows the reconnection back to back
                    connected = true;
                    let b = t + self.costs.reselect_first;
                    debug_assert!(bd.is_empty());
                    bd.push(water, b, bt);
                    bus_prev = b + water as u64 * bt;
                }
            }
            while connected && k < run {
                // a stretch of at most one segment: the room it needs is already known
                let from = pos + k;
                let len = (run - k).min(seg);
                let c = first_stall(bd, seg, from, len, t, w);
                // The bus: b_i = max(b_{i−1}, m_i) + bt where sector i leaves the media at
                // m_i = t + (i+1)·w, so b_i = max(b0 + (i+1)·bt, max_k m_k + (i−k+1)·bt).
                // A bus no faster than the media: the inner max is at k = 0, one line.
                // A faster bus: at k = i, and the first line wins up to a crossing point.
                let b0 = bus_prev;
                debug_assert_eq!(bd.len(), from);
                if w <= bt {
                    bd.push(c, b0.max(t + w), bt);
                } else {
                    // b0 + (i+1)·bt ≥ t + bt + (i+1)·w  ⟺  i + 1 ≤ (b0 − t − bt)/(w − bt)
                    let q = (b0.saturating_sub(t + bt) / (w - bt)).min(c as u64) as usize;
                    bd.push(q, b0, bt);
                    bd.push(c - q, t + bt + q as u64 * w, w);
                }
                if c > 0 {
                    bus_prev = bd.last().unwrap_or(bus_prev);
                }
                t += c as u64 * w;
                self.lose(w, c as u64);
                k += c;
                if c < len {
                    // the segment is full: wait for the bus to free a sector, then for
                    // the sector to come round
                    t = bd.get(from + c - seg);
                    break;
                }
            }
            pos += k;
        }
        self.last_track = cur.map(|(tr, _)| tr);
        let (seek, rotation, start) = first.unwrap_or((0, 0, go));
        (seek, rotation, start, t)
    }

    /// Writes `bd.len()` sectors at `lbn` (see [`Disk::media`]): a sector starts only
    /// once its data is in (`bd`).
    fn media_write(&mut self, lbn: u64, go: u64, bd: &BusTimes) -> (u64, u64, u64, u64) {
        let nn = bd.len();
        // A disk with extra write disconnects (DiskSim's HP C2247A reading) writes a sector
        // only once the segment holds min(n, 10) of the request's sectors (15 from 45 on),
        // not just that sector's data (DiskSim 4.0, `disk_buffer_block_available`).
        let gate = match (self.costs.extra_disconnect, nn) {
            (false, _) | (_, 0) => 0,
            (true, n) if n < 45 => bd.get(n.min(10) - 1),
            (true, _) => bd.get(14),
        };
        let mut t = go;
        let mut pos = 0usize;
        let mut first: Option<(u64, u64, u64)> = None;
        let mut cur = None;
        while pos < nn {
            let (p, track_run, w, angle) = self.track_at(lbn + pos as u64, &mut cur);
            let s = self.seek.time(self.cyl, self.head, p.cyl, p.head, true);
            if first.is_none() && s < self.costs.min_seek_delay {
                t += self.costs.min_seek_delay - s;
            }
            t += s;
            self.cyl = p.cyl;
            self.head = p.head;
            let run = track_run.min((nn - pos) as u64) as usize;
            let ready = t.max(bd.get(pos)).max(gate);
            let start = ready + self.wait_for(ready, angle);
            if first.is_none() {
                first = Some((s, start - t, start));
            }
            t = start;
            let mut k = 0usize;
            // the sector's data must be in the buffer before the sector starts
            while k < run && bd.get(pos + k).max(gate) <= t {
                t += w;
                k += 1;
            }
            self.lose(w, k as u64);
            pos += k;
            if k < run {
                // wait for the data, then for the sector to come round again
                t = t.max(bd.get(pos)).max(gate);
            }
        }
        let (seek, rotation, start) = first.unwrap_or((0, 0, go));
        (seek, rotation, start, t)
    }
}

/// How many of the `len` sectors from index `from` (the first starting at `t`, one every
/// `w`) can be read before one finds the segment full: sector `j` needs the bus to have
/// taken sector `j − seg` by its start. `len ≤ seg`, so every bus time looked at is known.
#[inline]
fn first_stall(bd: &BusTimes, seg: usize, from: usize, len: usize, t: u64, w: u64) -> usize {
    let lo = seg.saturating_sub(from).min(len); // sectors below `seg` always find room
    if lo == len || bd.get(from + len - 1 - seg) <= t {
        return len;
    }
    // sector i (≥ lo) stalls when bus(from + i − seg) > t + i·w
    let j0 = from + lo - seg;
    bd.first_above(j0, from + len - seg, t + lo as u64 * w, w)
        .map_or(len, |j| j + seg - from)
}

#[cfg(test)]
mod tests {
    use super::fraction;

    /// `fraction` is the 128-bit division's quotient, at the periods of real disks (a
    /// revolution in ps), near every edge of `x` and over random ones, and past 2⁵³.
    #[test]
    fn fraction_is_the_exact_quotient() {
        let periods = [
            1u64,
            3,
            5_988_024_000,  // 10,020 rpm
            14_992_503_748, // 4,002 rpm
            16_666_666_667, // 3,600 rpm
            (1 << 53) - 1,
            1 << 53,
            u64::MAX / 3,
        ];
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        for &p in &periods {
            let mut xs = vec![0, 1, p / 2, p - 1, p.saturating_sub(2)];
            // the x just below and at every multiple of p / 2^bits
            for k in [1u64, 7, 1 << 20, (1 << 32) - 1] {
                let x = ((u128::from(k) * u128::from(p)) >> 32) as u64;
                xs.extend([x.saturating_sub(1), x, x + 1]);
            }
            for _ in 0..20_000 {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                xs.push(r % p);
            }
            for x in xs.into_iter().filter(|&x| x < p) {
                for bits in [24, 32] {
                    let exact = ((u128::from(x) << bits) / u128::from(p)) as u64;
                    assert_eq!(fraction(x, p, bits), exact, "x {x} p {p} bits {bits}");
                }
            }
        }
    }
}
