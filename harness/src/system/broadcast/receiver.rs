//! One broadcast receiver, instant by instant (Waldvogel et al. §IV–V).
//!
//! The client joins at instant `t₀`. Frame `i` arrives with its first transmission at or after
//! `t₀` and is played at `t₀ + w + i`. Each instant, in this order:
//!
//! 1. **arrivals** — every frame first sent in this instant enters the memory cache (a frame
//!    arriving in its own playout instant goes straight to the display); when the cache is
//!    full, the [`ClientBuffer`] picks frames to write to the local disk as one extent;
//! 2. **read-back** — extents on disk are read back (with whatever extents the policy asks
//!    for, after making room for all of them as in 1) earliest deadline first: an extent
//!    at the latest once `now + bound(writes to make room, then the read) + read_ahead`
//!    reaches the playout time of its first frame (or of the earlier frame the policy wants
//!    it back for, [`ClientBuffer::due_frame`]), the bound being the disk model's
//!    [`service_bound`](crate::plugin::DiskModel::service_bound) (a fixed lead, as in the
//!    paper, where a chunk comes back when its earliest frame is due); earlier when the
//!    extents queued behind it could not all be read by their deadlines if it waited one
//!    more instant, given the work already queued on the disk and the writes the coming
//!    arrivals will force (`plan_reads`). Frames due before the latest frame read, and
//!    every frame the fixed-lead rule would read at once (due within `read_ahead` plus the
//!    lead for a batch), are pinned (never written out again while memory holds anything
//!    else). An extent written in this instant (to make room for a read) is read back in a
//!    later one at the earliest: with a cache too small for the disk's lead, reading it at
//!    once wrote out another, and so on, without end;
//! 3. **playout** — the frame due now must be in memory, and if it was read back, the read
//!    must have finished; otherwise it is a glitch (and `stalled` grows by the lateness).
//!
//! Disk accesses queue first-come first-served on one disk, each timed by the disk model from
//! the instant it starts (`max(issue, disk free)`); writes leave memory when issued (write-
//! behind, as the paper's "I/O happens in the background"). Reading ahead of the fixed lead
//! is bounded so that it cannot feed on itself: planning every read from the disk's backlog
//! (an earlier version) made a busy disk read — and pin — ever earlier, forcing more writes
//! and a longer backlog, until, with MCS at κ ≥ 4 % of a 0.5–1 % cache, the disk was busy
//! 40 % of the time and thousands of frames were late (issue 6). Now a read goes ahead of
//! its lead only if the plan can still be met by starting now (a disk with no spare capacity
//! for the burst gets fixed-lead reads, and late frames show as glitches), only if a batch of
//! unpinned frames stays in memory, and only for extents whose frames fit, together, in the
//! unpinned memory. The cost metric is the paper's:
//! total disk busy time as a fraction of the playout time `(n + w)` instants.

use super::scenario::{Derived, BUFFER, DISK};
use super::BroadcastError;
use crate::plugin::{CacheView, ClientBuffer, DiskAccess, DiskModel, ExtentId, Removal, Schedule};
use crate::time::SimTime;
use std::collections::{BTreeMap, BTreeSet};

pub use crate::results::broadcast::ClientOutcome;

/// Most extents a read-back plan looks at: a bound on its cost per instant, which binds only
/// for single-frame extents (`optimum`); with batches of κ ≥ 11 frames, the extents holding
/// the unpinned memory's worth of frames are fewer.
const PLAN_EXTENTS: usize = 256;

/// One occupancy sample.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Instants since joining.
    pub instant: u32,
    /// Frames in memory.
    pub memory: u32,
    /// Frames on disk.
    pub disk: u32,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Loc {
    Pending,
    Memory,
    Disk(u32),
    Played,
}

struct Extent {
    slot: u64,
    frames: Vec<u32>,
    /// The frame by whose playout it must be back (its queue key, ≤ its first frame).
    due: u32,
    live: bool,
    /// The instant it was written (ns).
    written_ns: u64,
}

/// First-fit allocation of frame-sized slots on the receiver's disk.
struct Slots {
    free: BTreeMap<u64, u64>,
}

impl Slots {
    fn new(total: u64) -> Self {
        let mut free = BTreeMap::new();
        if total > 0 {
            free.insert(0, total);
        }
        Slots { free }
    }
    fn alloc(&mut self, n: u64) -> Option<u64> {
        let (&start, &len) = self.free.iter().find(|(_, &len)| len >= n)?;
        self.free.remove(&start);
        if len > n {
            self.free.insert(start + n, len - n);
        }
        Some(start)
    }
    fn release(&mut self, start: u64, n: u64) {
        let mut s = start;
        let mut l = n;
        if let Some((&ps, &pl)) = self.free.range(..start).next_back() {
            if ps + pl == start {
                self.free.remove(&ps);
                s = ps;
                l += pl;
            }
        }
        if let Some(&nl) = self.free.get(&(start + n)) {
            self.free.remove(&(start + n));
            l += nl;
        }
        self.free.insert(s, l);
    }
}

/// The receiver's state.
struct Receiver<'a> {
    d: Derived,
    plugin: &'a str,
    buffer: &'a mut dyn ClientBuffer,
    /// The disk model's name, for its contract errors.
    disk_name: &'a str,
    disk: &'a mut dyn DiskModel,
    loc: Vec<Loc>,
    ready_ns: Vec<u64>,
    times_written: Vec<u16>,
    words: Vec<u64>,
    mem: u32,
    on_disk: u32,
    extents: Vec<Extent>,
    slots: Slots,
    disk_free_ns: u64,
    /// Largest extent written so far, in frames (bounds how far ahead read-back must look).
    max_extent: u32,
    pin: Option<u32>,
    /// The next frame to play: no frame before it is in memory.
    next_play: u32,
    /// Extents on disk by the frame they must be back for (their first unless the policy
    /// asks for them sooner, [`ClientBuffer::due_frame`]): the read-back queue, in
    /// deadline order.
    queue: BTreeSet<(u32, u32)>,
    /// `arrivals_before[r]`: frames arriving in instants `< r` after joining.
    arrivals_before: Vec<u32>,
    /// The last read-back plan found no read needed ahead of its lead while the disk is next
    /// free before this time, if the queue up to `plan_last_key` does not change.
    plan_ok_until_ns: u64,
    /// Highest first frame of an extent that plan looked at (`u32::MAX`: the whole queue).
    plan_last_key: u32,
    /// Leads of the extents read since that plan, first in the queue and alone: their work
    /// was in the plan, so the disk may be free that much later.
    plan_credit_ns: u64,
    /// `read_lead_ns` by extent size (0: not computed yet).
    leads: std::cell::RefCell<Vec<u64>>,
    /// The join instant in ns.
    join_ns: u64,
    victims: Vec<u32>,
    reads: Vec<ExtentId>,
    out: ClientOutcome,
}

impl Receiver<'_> {
    fn contract(&self, message: String) -> BroadcastError {
        BroadcastError::contract(BUFFER.key, self.plugin, message)
    }

    fn set(&mut self, f: u32) {
        self.words[(f / 64) as usize] |= 1 << (f % 64);
        self.mem += 1;
        self.out.peak_memory_frames = self.out.peak_memory_frames.max(self.mem);
        if self.mem > self.d.cache {
            self.out.memory_overflow_frames =
                self.out.memory_overflow_frames.max(self.mem - self.d.cache);
        }
    }

    fn clear(&mut self, f: u32) {
        self.words[(f / 64) as usize] &= !(1 << (f % 64));
        self.mem -= 1;
    }

    /// Starts an access of `frames` frames at `slot` once the disk is free; when it ends.
    /// The model's answer is checked against its own
    /// [`service_bound`](DiskModel::service_bound), which the read-back plans on: a longer
    /// access would make frames silently late against a plan that counted them on time.
    fn io(
        &mut self,
        slot: u64,
        frames: u64,
        write: bool,
        now_ns: u64,
    ) -> Result<u64, BroadcastError> {
        let start = now_ns.max(self.disk_free_ns);
        let access = DiskAccess {
            offset: slot * self.d.frame_bytes,
            bytes: frames * self.d.frame_bytes,
            write,
        };
        let bound = self.disk.service_bound(&access);
        let t = self.disk.service(&access, SimTime::from_nanos(start));
        if t.total() > bound {
            return Err(BroadcastError::contract(
                DISK.key,
                self.disk_name,
                format!(
                    "served a {} of {} bytes at byte {} in {}, longer than its service_bound \
                     of {} for that access (the bound must cover every access in any state)",
                    if write { "write" } else { "read" },
                    access.bytes,
                    access.offset,
                    t.total(),
                    bound
                ),
            ));
        }
        let total = t.total().as_nanos();
        self.disk_free_ns = start + total;
        let o = &mut self.out;
        o.io_time_ns += total;
        o.io_seek_ns += t.seek.as_nanos();
        o.io_rotation_ns += t.rotation.as_nanos();
        o.io_transfer_ns += t.transfer.as_nanos();
        o.io_overhead_ns += t.overhead.as_nanos();
        o.disk_accesses += 1;
        if t.seek.as_nanos() > 0 {
            o.seeks += 1;
        }
        if write {
            o.writes += 1;
            o.frames_written += frames;
            o.bytes_written += access.bytes;
        } else {
            o.reads += 1;
            o.frames_read += frames;
            o.bytes_read += access.bytes;
        }
        Ok(self.disk_free_ns)
    }

    /// Writes victims out until `need` more frames fit. When every frame in memory is pinned
    /// (the disk is so far behind that reads had to start many instants ahead), the pin is
    /// lifted for this choice down to the frame due now: the policy then chooses among all
    /// later frames, which may have to be read again — the cost of an overloaded disk is
    /// more I/O, never more memory than the cache. Only when memory holds nothing but the
    /// frame due now does the cache overflow (recorded by `set`).
    fn make_room(&mut self, need: u32, now_ns: u64) -> Result<(), BroadcastError> {
        while self.mem + need > self.d.cache {
            self.refresh_pin(now_ns);
            let mut victims = std::mem::take(&mut self.victims);
            victims.clear();
            let mut pin = self.pin;
            loop {
                let view = CacheView::new(&self.words, self.mem, self.d.cache, pin);
                self.buffer.choose_victims(&view, &mut victims);
                if !victims.is_empty() {
                    break;
                }
                if view.evictable().next().is_some() {
                    return Err(self.contract(format!(
                        "chose no frames to write although the cache is full ({} frames) \
                         and frames are evictable",
                        self.mem
                    )));
                }
                if pin.is_some_and(|p| p > self.next_play) {
                    pin = Some(self.next_play);
                    continue;
                }
                self.victims = victims;
                return Ok(()); // nothing but the frame due now: overflow, recorded by `set`
            }
            {
                let view = CacheView::new(&self.words, self.mem, self.d.cache, pin);
                for &f in &victims {
                    if !view.is_evictable(f) {
                        return Err(self.contract(format!(
                            "chose frame {f} to write, which is {}",
                            if view.contains(f) {
                                "pinned (due within the read-ahead window)"
                            } else {
                                "not in memory"
                            }
                        )));
                    }
                }
            }
            victims.sort_unstable();
            if let Some(w) = victims.windows(2).find(|w| w[0] == w[1]) {
                return Err(self.contract(format!("chose frame {} twice", w[0])));
            }
            let k = victims.len() as u64;
            let slot = self
                .slots
                .alloc(k)
                .ok_or_else(|| BroadcastError::DiskFull {
                    frames: u64::from(self.on_disk) + k,
                })?;
            self.io(slot, k, true, now_ns)?;
            let id = self.extents.len() as u32;
            for &f in &victims {
                self.clear(f);
                self.loc[f as usize] = Loc::Disk(id);
                let tw = &mut self.times_written[f as usize];
                *tw = tw.saturating_add(1);
                if *tw == 1 {
                    self.out.frames_spilled += 1;
                } else if *tw == 2 {
                    self.out.frames_cycled += 1;
                }
                self.buffer.removed(f, Removal::Written);
            }
            self.on_disk += k as u32;
            self.max_extent = self.max_extent.max(k as u32);
            self.out.peak_disk_frames = self.out.peak_disk_frames.max(self.on_disk);
            self.buffer.written(ExtentId(id), &victims);
            // Never before the first frame that may be written (an extent due inside the
            // pinned window would be read straight back), never after its own first frame.
            let earliest = self.pin.map_or(self.next_play, |p| p + 1).min(victims[0]);
            let due = self
                .buffer
                .due_frame(ExtentId(id), &victims)
                .clamp(earliest, victims[0]);
            self.queue.insert((due, id));
            if due <= self.plan_last_key {
                self.plan_ok_until_ns = 0;
                self.plan_credit_ns = 0;
            }
            self.extents.push(Extent {
                slot,
                frames: victims.clone(),
                due,
                live: true,
                written_ns: now_ns,
            });
            self.victims = victims;
        }
        Ok(())
    }

    /// Worst-case disk time to read back an extent of `k` frames, including the writes that
    /// may be needed first to make room for it.
    fn read_lead_ns(&self, k: u32) -> u64 {
        let i = k as usize;
        if let Some(&l) = self.leads.borrow().get(i).filter(|&&l| l != 0) {
            return l;
        }
        let l = self.read_lead_bound_ns(k).max(1);
        let mut leads = self.leads.borrow_mut();
        if i >= leads.len() {
            leads.resize(i + 1, 0);
        }
        leads[i] = l;
        l
    }

    fn read_lead_bound_ns(&self, k: u32) -> u64 {
        let batch = self.buffer.batch_frames().max(1);
        let access = |frames: u32, write: bool| DiskAccess {
            offset: 0,
            bytes: u64::from(frames) * self.d.frame_bytes,
            write,
        };
        let read = self.disk.service_bound(&access(k, false)).as_nanos();
        let write = self
            .disk
            .service_bound(&access(batch.min(k), true))
            .as_nanos();
        read + u64::from(k.div_ceil(batch)) * write
    }

    /// Pins every frame the read-back rule would fetch at once if it were on disk: those due
    /// by `now + bound(read of a batch-sized extent, writes to make room) + read_ahead`
    /// (which covers the read-ahead window). Writing such a frame out would
    /// only bring it straight back — with MCS at κ ≥ 4 % of a small cache, the most compact
    /// run was just past the read-ahead window, so every write was read back in the same
    /// instant and the disk thrashed (issue 6). The pin never moves back.
    fn refresh_pin(&mut self, now_ns: u64) {
        let k = self.buffer.batch_frames().max(self.max_extent);
        let horizon_ns =
            now_ns + self.read_lead_ns(k) + u64::from(self.d.read_ahead) * self.d.instant_ns;
        let instants = horizon_ns.saturating_sub(self.join_ns) / self.d.instant_ns;
        if let Some(p) = instants.checked_sub(u64::from(self.d.delay)) {
            let p = p.min(u64::from(self.d.frames - 1)) as u32;
            self.pin = Some(self.pin.map_or(p, |q| q.max(p)));
        }
    }

    /// Frames in memory that are pinned (`≤ pin`); memory holds no frame before `next_play`.
    fn pinned_in_memory(&self) -> u32 {
        self.in_memory_up_to(self.pin)
    }

    /// Frames in memory `≤ pin`.
    fn in_memory_up_to(&self, pin: Option<u32>) -> u32 {
        let Some(pin) = pin.filter(|&p| p >= self.next_play) else {
            return 0;
        };
        let (lo, hi) = ((self.next_play / 64) as usize, (pin / 64) as usize);
        let mut count = 0;
        for (i, &word) in self.words[lo..=hi.min(self.words.len() - 1)]
            .iter()
            .enumerate()
        {
            let bits = if lo + i == hi {
                word & (u64::MAX >> (63 - pin % 64))
            } else {
                word
            };
            count += bits.count_ones();
        }
        count
    }

    /// Issues the read-backs due now, earliest deadline first. An extent on disk is read
    /// once `now + bound(writes to make room, then the read) + read_ahead` reaches the playout
    /// time of its first frame (the fixed lead), or earlier when waiting one more instant
    /// would make some read miss its deadline (playout − read_ahead): the extents in the
    /// queue are taken in deadline order as back-to-back jobs on the disk, starting when the
    /// disk is next free (after the work already queued) and each costing its lead, plus the
    /// writes that the frames arriving before its deadline will force (one batch write per
    /// batch of arrivals, from the schedule, which the receiver knows). If some prefix of
    /// that plan cannot meet its deadline when started an instant later, the first extent is
    /// read now. A read issued early must leave a batch of unpinned frames in memory (it
    /// pins every frame up to its first), and the plan looks only at extents whose frames
    /// fit, together, in the unpinned memory: prefetching beyond that would write out frames
    /// due sooner — the feedback that once made the disk thrash (issue 6).
    fn plan_reads(&mut self, r: u32, now_ns: u64) -> Result<(), BroadcastError> {
        let i = self.d.instant_ns;
        let slack_ns = u64::from(self.d.read_ahead) * i;
        loop {
            let lead_max = self.read_lead_ns(self.max_extent);
            let mut chosen = None;
            for &(first, e) in &self.queue {
                let due_ns = self.join_ns + u64::from(self.d.delay + first) * i;
                if due_ns > now_ns + lead_max + slack_ns {
                    break;
                }
                if self.extents[e as usize].written_ns == now_ns {
                    // written to make room for a read of this same instant: reading it
                    // back now would only write out another (with a cache too small for
                    // the disk's lead this never ended); next instant, late if need be
                    continue;
                }
                let k = self.extents[e as usize].frames.len() as u32;
                if now_ns + self.read_lead_ns(k) + slack_ns >= due_ns {
                    chosen = Some((first, e));
                    break;
                }
            }
            if chosen.is_none() {
                chosen = self.queue.first().copied().filter(|&(first, e)| {
                    self.extents[e as usize].written_ns != now_ns
                        && self.early_read_needed(r, now_ns, first)
                });
            }
            let Some((first, e)) = chosen else {
                return Ok(());
            };
            let head = self.queue.first() == Some(&(first, e));
            let k = self.extents[e as usize].frames.len() as u32;
            self.pin = Some(self.pin.map_or(first, |q| q.max(first)));
            self.read_back(first, e, now_ns)?;
            if head && self.reads.len() == 1 {
                self.plan_credit_ns += self.read_lead_ns(k);
            } else {
                self.plan_ok_until_ns = 0;
            }
        }
    }

    /// Whether the first extent in the queue (first frame `first`) must be read now for the
    /// back-to-back plan of `plan_reads` to meet every deadline.
    fn early_read_needed(&mut self, r: u32, now_ns: u64, first: u32) -> bool {
        let i = self.d.instant_ns;
        let batch = self.buffer.batch_frames().max(1);
        let cache = self.d.cache;
        let pin = self.pin.map_or(first, |q| q.max(first));
        if self.in_memory_up_to(Some(pin)) + 1 + batch > cache {
            return false;
        }
        let room = cache.saturating_sub(self.pinned_in_memory());
        let slack = self.d.read_ahead;
        let write_ns = self
            .disk
            .service_bound(&DiskAccess {
                offset: 0,
                bytes: u64::from(batch) * self.d.frame_bytes,
                write: true,
            })
            .as_nanos();
        let max_extent = self.max_extent.max(1);
        // Past this much spare time, no later extent whose frames fit in `room` can bind.
        let horizon_ns = u64::from(room.div_ceil(max_extent)) * self.read_lead_ns(max_extent);
        let t_now = now_ns.max(self.disk_free_ns);
        let t_next = (now_ns + i).max(self.disk_free_ns);
        if t_next.saturating_sub(self.plan_credit_ns) < self.plan_ok_until_ns {
            return false;
        }
        self.plan_credit_ns = 0;
        self.plan_ok_until_ns = 0;
        // Latest time the disk may next be free with the plan still met (cached).
        let mut ok_until = u64::MAX;
        let mut last_key = u32::MAX;
        let last = self.arrivals_before.len() - 1;
        let arrived = self.arrivals_before[(r as usize + 1).min(last)];
        let free = cache.saturating_sub(self.mem);
        let mut work = 0u64;
        let mut frames = 0u32;
        let mut late_if_waiting = false;
        for (j, &(f, x)) in self.queue.iter().enumerate() {
            if j == PLAN_EXTENTS {
                last_key = f;
                break;
            }
            let k = self.extents[x as usize].frames.len() as u32;
            frames += k;
            if frames > room {
                last_key = f;
                break;
            }
            work += self.read_lead_ns(k);
            let due = (self.d.delay + f).saturating_sub(slack);
            let deadline_ns = self.join_ns + u64::from(due) * i;
            // frames arriving before the deadline, less the room that the frames played by
            // then and the free memory leave: each batch of the rest is one write
            let arrivals = self.arrivals_before[(due as usize).min(last)].saturating_sub(arrived);
            let played = due.saturating_sub((r + 1).max(self.d.delay));
            let spill = arrivals.saturating_sub(played + free);
            let need = work + u64::from(spill.div_ceil(batch)) * write_ns;
            if deadline_ns < t_now + need {
                // Even started now the plan is late: the disk has no spare capacity for
                // this burst, and reading ahead would only add writes. Fixed lead only.
                return false;
            }
            if deadline_ns < t_next + need {
                late_if_waiting = true;
            }
            ok_until = ok_until.min(deadline_ns - need + 1);
            if deadline_ns - t_now - need > horizon_ns {
                ok_until = ok_until.min(deadline_ns - need - horizon_ns);
                last_key = f;
                break;
            }
        }
        if !late_if_waiting {
            self.plan_ok_until_ns = ok_until;
            self.plan_last_key = last_key;
        }
        late_if_waiting
    }

    /// Extent `e` must be back by the playout of frame `due`: read back what the policy asks
    /// for. Room for all
    /// of it is made first, so a read never evicts frames another extent of the same read
    /// just brought in.
    fn read_back(&mut self, due: u32, e: u32, now_ns: u64) -> Result<(), BroadcastError> {
        let mut reads = std::mem::take(&mut self.reads);
        reads.clear();
        let room = self.d.cache.saturating_sub(self.pinned_in_memory());
        self.buffer.choose_reads(due, ExtentId(e), room, &mut reads);
        if !reads.contains(&ExtentId(e)) {
            return Err(self.contract(format!(
                "extent {e} is due back by frame {due}, but the extents chosen to read \
                 ({reads:?}) do not include it"
            )));
        }
        let mut sorted = reads.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(self.contract(format!("chose extents {reads:?} with a repeat")));
        }
        for &ExtentId(x) in &reads {
            if self.extents.get(x as usize).is_none_or(|ext| !ext.live) {
                return Err(
                    self.contract(format!("chose extent {x} to read, which is not on disk"))
                );
            }
        }
        let total: u32 = reads
            .iter()
            .map(|&ExtentId(x)| self.extents[x as usize].frames.len() as u32)
            .sum();
        let own = self.extents[e as usize].frames.len() as u32;
        if total > own.max(room) {
            return Err(self.contract(format!(
                "chose extents {reads:?} holding {total} frames to read, but memory has room \
                 for only {room} without writing out pinned frames"
            )));
        }
        self.make_room(total, now_ns)?;
        for &ExtentId(x) in &reads {
            let k = self.extents[x as usize].frames.len() as u32;
            let slot = self.extents[x as usize].slot;
            let done = self.io(slot, u64::from(k), false, now_ns)?;
            self.slots.release(slot, u64::from(k));
            let frames = std::mem::take(&mut self.extents[x as usize].frames);
            self.extents[x as usize].live = false;
            self.queue.remove(&(self.extents[x as usize].due, x));
            self.on_disk -= k;
            for &f in &frames {
                self.loc[f as usize] = Loc::Memory;
                self.ready_ns[f as usize] = done;
                self.set(f);
                self.buffer.inserted(f);
            }
            self.extents[x as usize].frames = frames;
        }
        self.reads = reads;
        Ok(())
    }
}

/// Simulates one receiver joining at `join` (≥ 1) against `schedule`.
///
/// `samples` receives the occupancy every `d.sample` instants. `plugin` and `disk_name`
/// name the client buffer policy and the disk model in the errors saying one broke its
/// contract: among them, a disk access longer than the model's own
/// [`service_bound`](DiskModel::service_bound).
#[allow(clippy::too_many_arguments)]
pub fn receive(
    d: Derived,
    schedule: &Schedule,
    join: u32,
    plugin: &str,
    buffer: &mut dyn ClientBuffer,
    disk_name: &str,
    disk: &mut dyn DiskModel,
    samples: &mut Vec<Sample>,
) -> Result<ClientOutcome, BroadcastError> {
    let n = d.frames;
    let w = d.delay;
    let span = (w + n) as usize; // instants from joining to the last playout
                                 // Arrivals, bucketed by instant after joining (counting sort).
    let mut arrive = vec![0u32; n as usize];
    let mut counts = vec![0u32; span + 1];
    for f in 0..n {
        let lambda = w + f + 1;
        let t = schedule
            .first_at_or_after(f, join)
            .filter(|&t| t < join + lambda)
            .ok_or(BroadcastError::Window {
                frame: f,
                join,
                window: lambda,
            })?;
        arrive[f as usize] = t - join;
        counts[(t - join) as usize + 1] += 1;
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    let mut order = vec![0u32; n as usize];
    {
        let mut next = counts.clone();
        for f in 0..n {
            let r = arrive[f as usize] as usize;
            order[next[r] as usize] = f;
            next[r] += 1;
        }
    }
    let capacity_frames = disk.geometry().capacity_bytes / d.frame_bytes.max(1);
    let mut rx = Receiver {
        d,
        plugin,
        buffer,
        disk_name,
        disk,
        loc: vec![Loc::Pending; n as usize],
        ready_ns: vec![0; n as usize],
        times_written: vec![0; n as usize],
        words: vec![0; n.div_ceil(64) as usize],
        mem: 0,
        on_disk: 0,
        extents: Vec::new(),
        slots: Slots::new(capacity_frames),
        disk_free_ns: 0,
        max_extent: 0,
        pin: None,
        next_play: 0,
        queue: BTreeSet::new(),
        plan_ok_until_ns: 0,
        plan_last_key: 0,
        plan_credit_ns: 0,
        leads: Default::default(),
        arrivals_before: counts,
        join_ns: u64::from(join) * d.instant_ns,
        victims: Vec::new(),
        reads: Vec::new(),
        out: ClientOutcome {
            join,
            playout_ns: (w as u64 + n as u64) * d.instant_ns,
            ..ClientOutcome::default()
        },
    };
    let join_ns = u64::from(join) * d.instant_ns;
    for r in 0..span as u32 {
        if r & 0xFFF == 0 {
            // Ctrl-C in the Python package: a long movie's receiver stops within a few
            // thousand instants, as the on-demand engine within a few thousand events
            crate::interrupt::check();
        }
        let now_ns = u64::from(join + r) * d.instant_ns;
        rx.refresh_pin(now_ns);
        // 1. arrivals
        let (a, b) = (
            rx.arrivals_before[r as usize] as usize,
            rx.arrivals_before[r as usize + 1] as usize,
        );
        for &f in &order[a..b] {
            if w + f == r {
                rx.out.frames_direct += 1;
                continue;
            }
            rx.make_room(1, now_ns)?;
            rx.loc[f as usize] = Loc::Memory;
            rx.ready_ns[f as usize] = now_ns;
            rx.set(f);
            rx.buffer.inserted(f);
        }
        // 2. read-back, planned backwards from the due times (see `plan_reads`)
        rx.plan_reads(r, now_ns)?;
        // 3. playout
        if r >= w {
            let f = r - w;
            match rx.loc[f as usize] {
                Loc::Memory => {
                    let ready = rx.ready_ns[f as usize];
                    if ready > now_ns {
                        rx.out.glitches += 1;
                        rx.out.stalled_ns += ready - now_ns;
                    }
                    rx.clear(f);
                    rx.buffer.removed(f, Removal::Played);
                }
                Loc::Pending if arrive[f as usize] == r => {
                    rx.buffer.played_direct(f);
                }
                other => {
                    return Err(BroadcastError::Internal(format!(
                        "frame {f} due at instant {r} after joining is {other:?}"
                    )))
                }
            }
            rx.loc[f as usize] = Loc::Played;
            rx.next_play = f + 1;
            rx.out.frames_played += 1;
        }
        let buffered = rx.mem + rx.on_disk;
        if buffered > rx.out.peak_buffered_frames {
            rx.out.peak_buffered_frames = buffered;
            rx.out.peak_buffered_instant = r;
        }
        if r % d.sample == 0 {
            samples.push(Sample {
                instant: r,
                memory: rx.mem,
                disk: rx.on_disk,
            });
        }
    }
    rx.out.disk_busy_until_ns = rx.disk_free_ns.saturating_sub(join_ns);
    if rx.mem != 0 || rx.on_disk != 0 {
        return Err(BroadcastError::Internal(format!(
            "{} frames in memory and {} on disk after the last playout",
            rx.mem, rx.on_disk
        )));
    }
    Ok(rx.out)
}

/// Eq. 2: expected frames buffered `t` instants after joining (IDEAL schedule).
pub fn expected_buffer(t: f64, frames: u32, delay: u32) -> f64 {
    let nw = f64::from(frames + delay);
    let w = f64::from(delay);
    if t <= 0.0 {
        0.0
    } else if t <= w {
        t * (nw / w).ln()
    } else if t <= nw {
        t * (nw / t).ln()
    } else {
        0.0
    }
}
