//! Disk stations (SPIFFI §5.2): each disk's queue, its scheduler and its timing model, and
//! what they measured — busy time, requests served, and every I/O time by part (queue,
//! overhead, seek, rotation, transfer; with `[server.bus]` also the wait for the bus).
//!
//! The station does the bookkeeping and checks the scheduler's answers (a request it returns
//! must be one queued at this disk; its `len` must match the queue); the scheduler only
//! chooses and the model only times.
//!
//! Without a bus an access takes the model's service time from the scheduler's choice, one
//! `DiskDone` event. With SCSI buses ([`super::bus`]) it goes through phases — command on
//! the bus, positioning, arbitration, transfer — and `DiskDone` marks the end of each; the
//! station answers which access, if any, ended.

use super::bus::{self, Bus, BusConfig, HOST};
use super::error::Faults;
use super::event::Ev;
use super::measure::{fmax, mean, utilization, Window};
use super::queue::EventQueue;
use super::requests::{Arena, DReq};
use super::stats::{DurStat, Level};
use crate::ids::{RequestId, TerminalId};
use crate::plugin::{
    DiskAccess, DiskModel, DiskScheduler, HeadState, QueuedRequest, RequestClass, ServiceTime,
};
use crate::results::{self, BusSummary, Column, IoTime, Table};
use crate::time::{SimDuration, SimTime};

/// Where an access on a bus is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for the bus to send its command.
    CommandWait,
    /// Its command holds the bus.
    Command,
    /// The disk positions (off the bus if it disconnected).
    Positioning,
    /// Positioned, waiting for the bus to reconnect.
    DataWait,
    /// Its data holds the bus.
    Transfer,
}

/// An access on a bus, from the scheduler's choice to the end of its transfer.
#[derive(Copy, Clone, Debug)]
struct BusAccess {
    phase: Phase,
    access: DiskAccess,
    /// Dispatched at.
    since: SimTime,
    queue_ns: u64,
    class: RequestClass,
    /// Dispatched in the measured window.
    measured: bool,
    /// The model's times (known once the command ended).
    st: ServiceTime,
    /// Time the transfer held the bus.
    transfer: SimDuration,
    /// Time waited for the bus.
    bus_wait: SimDuration,
}

/// One disk: queue, scheduler, model and its own counters.
pub(super) struct DiskStation {
    /// The node it is attached to.
    pub node: u32,
    model: Box<dyn DiskModel>,
    sched: Box<dyn DiskScheduler>,
    /// Requests in the scheduler's queue, as the station counts them.
    pub queued: u32,
    /// The access being served (request slot, its timing).
    busy: Option<(u32, ServiceTime)>,
    /// The access the scheduler chose that waits for a stream-memory buffer before it
    /// starts (`server.stream_memory` under `clbuf` / `clbufrate`): the disk is idle and
    /// committed to it until [`Disks::resume`].
    awaiting: Option<u32>,
    /// Its phase when the disk is on a bus.
    on_bus: Option<BusAccess>,
    /// Its bus and its position on it (with `[server.bus]`).
    bus: Option<(u32, u32)>,
    bus_wait_sum: u128,
    busy_level: Level,
    cylinders: u32,
    // measured
    served: u64,
    served_prefetch: u64,
    queue_sum: u128,
    service_sum: u128,
    overhead_sum: u128,
    seek_sum: u128,
    rotation_sum: u128,
    transfer_sum: u128,
    max_total: u64,
}

impl DiskStation {
    /// A disk of `node` with its model and scheduler.
    pub fn new(node: u32, model: Box<dyn DiskModel>, sched: Box<dyn DiskScheduler>) -> Self {
        let cylinders = model.geometry().cylinders;
        DiskStation {
            node,
            model,
            sched,
            queued: 0,
            busy: None,
            awaiting: None,
            on_bus: None,
            bus: None,
            bus_wait_sum: 0,
            busy_level: Level::default(),
            cylinders,
            served: 0,
            served_prefetch: 0,
            queue_sum: 0,
            service_sum: 0,
            overhead_sum: 0,
            seek_sum: 0,
            rotation_sum: 0,
            transfer_sum: 0,
            max_total: 0,
        }
    }
}

/// Every disk, and the I/O time distributions over all of them.
pub(super) struct Disks {
    pub stations: Vec<DiskStation>,
    /// The model's and the scheduler's names, for contract errors.
    model: &'static str,
    scheduler: &'static str,
    /// Keep every n-th dispatched request in the `requests` table (0: none).
    sample_every: u64,
    /// Record only what a search reads (no distributions, no request samples).
    figures_only: bool,
    queue: DurStat,
    overhead: DurStat,
    seek: DurStat,
    rotation: DurStat,
    transfer: DurStat,
    service: DurStat,
    total: DurStat,
    cache_hits: u64,
    demand_served: u64,
    prefetch_served: u64,
    /// Requests dispatched in the measured period (for every-n-th request samples).
    dispatched: u64,
    requests: RequestRows,
    /// `[server.bus]`, its buses, and the wait for them.
    bus: Option<BusConfig>,
    buses: Vec<Bus>,
    bus_wait: DurStat,
    /// Every phase started on a bus: (time, disk, phase); the unit tests' timelines.
    #[cfg(test)]
    log: Vec<(SimTime, usize, Phase)>,
}

impl Disks {
    pub fn new(
        stations: Vec<DiskStation>,
        model: &'static str,
        scheduler: &'static str,
        sample_every: u32,
        figures_only: bool,
    ) -> Self {
        Disks {
            stations,
            model,
            scheduler,
            sample_every: u64::from(sample_every),
            figures_only,
            queue: DurStat::new(),
            overhead: DurStat::new(),
            seek: DurStat::new(),
            rotation: DurStat::new(),
            transfer: DurStat::new(),
            service: DurStat::new(),
            total: DurStat::new(),
            cache_hits: 0,
            demand_served: 0,
            prefetch_served: 0,
            dispatched: 0,
            requests: RequestRows::default(),
            bus: None,
            buses: Vec::new(),
            bus_wait: DurStat::new(),
            #[cfg(test)]
            log: Vec::new(),
        }
    }

    /// Puts the disks on SCSI buses: each node's `disks_per_node` disks in order,
    /// `per_bus` to a bus (the last bus of a node may have fewer).
    pub fn with_buses(mut self, cfg: BusConfig, disks_per_node: u32, per_bus: u32) -> Self {
        let per_bus = per_bus.clamp(1, disks_per_node.max(1));
        let mut buses = Vec::new();
        for (d, ds) in self.stations.iter_mut().enumerate() {
            let local = d as u32 % disks_per_node.max(1);
            let pos = local % per_bus;
            if pos == 0 {
                let on = per_bus.min(disks_per_node - local);
                buses.push(Bus::new(ds.node, on));
            }
            ds.bus = Some((buses.len() as u32 - 1, pos));
        }
        self.buses = buses;
        self.bus = Some(cfg);
        self.requests.bus_wait = Some(Vec::new());
        self
    }

    /// Number of disks.
    pub fn len(&self) -> usize {
        self.stations.len()
    }

    /// Opens the measured window: busy time counts from `now`.
    pub fn open(&mut self, now: SimTime) {
        for d in &mut self.stations {
            d.busy_level.open(now);
        }
        for b in &mut self.buses {
            b.open(now);
        }
    }

    /// Queues disk access `d` at its disk at `now`. A model placing it on a cylinder past
    /// its geometry breaks its contract (recorded in `faults`, which voids the run).
    pub fn enqueue(
        &mut self,
        d: u32,
        dreqs: &mut Arena<DReq>,
        now: SimTime,
        faults: &mut Faults,
    ) -> usize {
        let dr = &mut dreqs.slots[d as usize];
        let disk = dr.disk as usize;
        let ds = &mut self.stations[disk];
        let mut cylinder = ds.model.cylinder_of(dr.offset);
        if cylinder >= ds.cylinders {
            let msg = format!(
                "placed byte {} of disk {disk} on cylinder {cylinder}, but its geometry has {} \
                 cylinders",
                dr.offset, ds.cylinders
            );
            faults.plugin(super::scenario::DISK_MODEL.key, self.model, now, msg);
            // the run is void; the schedulers never see a cylinder past the disk
            cylinder = ds.cylinders - 1;
        }
        dr.queued = true;
        dr.enqueued = now;
        ds.sched.enqueue(QueuedRequest {
            id: RequestId(d),
            cylinder,
            offset: dr.offset,
            bytes: dr.bytes,
            terminal: Some(TerminalId(dr.terminal)),
            class: dr.class,
            deadline: dr.deadline,
            arrival: now,
        });
        ds.queued += 1;
        disk
    }

    /// Starts the next access at `disk` if it is idle and has one queued: asks the
    /// scheduler, checks its answer, times the access and schedules its end (without a bus)
    /// or its first phase (on a bus).
    pub fn start(
        &mut self,
        disk: usize,
        now: SimTime,
        w: &Window,
        dreqs: &mut Arena<DReq>,
        faults: &mut Faults,
        q: &mut EventQueue<Ev>,
    ) {
        self.start_gated(disk, now, w, dreqs, faults, q, &mut |_, _| true);
    }

    /// [`Disks::start`], with `take` asked for the chosen access's buffer (its slot and
    /// request) before it starts: when `take` says no, the disk stays idle, committed to that
    /// access, until [`Disks::resume`] starts it.
    #[allow(clippy::too_many_arguments)]
    pub fn start_gated(
        &mut self,
        disk: usize,
        now: SimTime,
        w: &Window,
        dreqs: &mut Arena<DReq>,
        faults: &mut Faults,
        q: &mut EventQueue<Ev>,
        take: &mut dyn FnMut(u32, &DReq) -> bool,
    ) {
        let ds = &mut self.stations[disk];
        if ds.busy.is_some() || ds.awaiting.is_some() || ds.queued == 0 {
            return;
        }
        let head = HeadState {
            now,
            cylinder: ds.model.head_cylinder(),
            cylinders: ds.cylinders,
        };
        if head.cylinder >= head.cylinders {
            let msg = format!(
                "says the head of disk {disk} is on cylinder {}, but its geometry has {} \
                 cylinders",
                head.cylinder, head.cylinders
            );
            faults.plugin(super::scenario::DISK_MODEL.key, self.model, now, msg);
            return;
        }
        let held = ds.sched.len();
        let choice = ds.sched.dequeue(&head);
        let name = self.scheduler;
        if held != ds.queued as usize {
            let msg = format!(
                "len() says {held} but {} requests are queued at disk {disk}",
                ds.queued
            );
            faults.plugin(super::scenario::DISK_SCHEDULER.key, name, now, msg);
            return;
        }
        let Some(RequestId(d)) = choice else {
            let msg = format!("returned no request while {held} are queued at disk {disk}");
            faults.plugin(super::scenario::DISK_SCHEDULER.key, name, now, msg);
            return;
        };
        let valid = dreqs
            .slots
            .get(d as usize)
            .is_some_and(|r| r.queued && r.disk as usize == disk);
        if !valid {
            let msg = format!("returned request {d}, which is not queued at disk {disk}");
            faults.plugin(super::scenario::DISK_SCHEDULER.key, name, now, msg);
            return;
        }
        let dr = &mut dreqs.slots[d as usize];
        dr.queued = false;
        ds.queued -= 1;
        if !take(d, dr) {
            ds.awaiting = Some(d);
            return;
        }
        self.begin(disk, d, now, w, dreqs, q);
    }

    /// Starts the access `disk` chose and that waited for its buffer (if it has one).
    pub fn resume(
        &mut self,
        disk: usize,
        now: SimTime,
        w: &Window,
        dreqs: &mut Arena<DReq>,
        q: &mut EventQueue<Ev>,
    ) {
        if let Some(d) = self.stations[disk].awaiting.take() {
            self.begin(disk, d, now, w, dreqs, q);
        }
    }

    /// Access `d`, taken off `disk`'s queue, starts at `now`: times it and schedules its end
    /// (without a bus) or its first phase (on a bus).
    fn begin(
        &mut self,
        disk: usize,
        d: u32,
        now: SimTime,
        w: &Window,
        dreqs: &mut Arena<DReq>,
        q: &mut EventQueue<Ev>,
    ) {
        let ds = &mut self.stations[disk];
        let dr = &dreqs.slots[d as usize];
        let access = DiskAccess {
            offset: dr.offset,
            bytes: dr.bytes,
            write: false,
        };
        let queue_ns = now.saturating_since(dr.enqueued).as_nanos();
        let class = dr.class;
        ds.busy_level.set(now, 1, w.span);
        if self.bus.is_some() {
            ds.busy = Some((d, ServiceTime::default()));
            ds.on_bus = Some(BusAccess {
                phase: Phase::CommandWait,
                access,
                since: now,
                queue_ns,
                class,
                measured: w.measuring,
                st: ServiceTime::default(),
                transfer: SimDuration::ZERO,
                bus_wait: SimDuration::ZERO,
            });
            let (b, _) = ds.bus.expect("a station on a bus");
            if self.buses[b as usize].request(disk as u32, HOST, now, w) {
                self.granted(disk, now, w, q);
            }
            return;
        }
        let st = ds.model.service(&access, now);
        ds.busy = Some((d, st));
        if w.measuring {
            self.record(disk, now, w, class, queue_ns, &st, None);
        }
        q.schedule(now + st.total(), Ev::DiskDone(disk as u32));
    }

    /// Counts a dispatched access of the measured window: its I/O time by part. Without a
    /// bus at its dispatch; on a bus when it ends (its parts are known only then), if it was
    /// dispatched in the window, so the `requests` sample keeps every n-th access to end.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        disk: usize,
        dispatched: SimTime,
        w: &Window,
        class: RequestClass,
        queue_ns: u64,
        st: &ServiceTime,
        bus_wait: Option<SimDuration>,
    ) {
        let ds = &mut self.stations[disk];
        let wait = bus_wait.unwrap_or(SimDuration::ZERO);
        let service = st.total() + wait;
        if !self.figures_only {
            self.queue.record(queue_ns);
            self.overhead.record(st.overhead.as_nanos());
            self.seek.record(st.seek.as_nanos());
            self.rotation.record(st.rotation.as_nanos());
            self.transfer.record(st.transfer.as_nanos());
            if bus_wait.is_some() {
                self.bus_wait.record(wait.as_nanos());
            }
            self.service.record(service.as_nanos());
            self.total.record(queue_ns + service.as_nanos());
        }
        if st.cache_hit {
            self.cache_hits += 1;
        }
        match class {
            RequestClass::Demand => self.demand_served += 1,
            RequestClass::Prefetch => self.prefetch_served += 1,
        }
        ds.served += 1;
        if class == RequestClass::Prefetch {
            ds.served_prefetch += 1;
        }
        ds.queue_sum += u128::from(queue_ns);
        ds.service_sum += u128::from(service.as_nanos());
        ds.overhead_sum += u128::from(st.overhead.as_nanos());
        ds.seek_sum += u128::from(st.seek.as_nanos());
        ds.rotation_sum += u128::from(st.rotation.as_nanos());
        ds.transfer_sum += u128::from(st.transfer.as_nanos());
        ds.bus_wait_sum += u128::from(wait.as_nanos());
        let every = self.sample_every;
        if every > 0 && self.dispatched % every == 0 && !self.figures_only {
            let since = w.since_start(dispatched);
            let pf = class == RequestClass::Prefetch;
            self.requests.push(since, disk, pf, queue_ns, st, wait);
        }
        self.dispatched += 1;
        ds.max_total = ds.max_total.max(queue_ns + service.as_nanos());
    }

    /// `disk`'s access holds its bus from `now` (it asked and was granted): its command or
    /// its transfer starts.
    fn granted(&mut self, disk: usize, now: SimTime, w: &Window, q: &mut EventQueue<Ev>) {
        let cfg = self.bus.expect("granted a bus without [server.bus]");
        let ds = &mut self.stations[disk];
        let b = ds.bus.expect("a station on a bus").0 as usize;
        let a = ds.on_bus.as_mut().expect("granted a bus to an idle disk");
        match a.phase {
            Phase::CommandWait => {
                a.bus_wait += now.saturating_since(a.since);
                a.phase = Phase::Command;
                #[cfg(test)]
                self.log.push((now, disk, Phase::Command));
                self.buses[b].command(w);
                q.schedule(now + cfg.command, Ev::DiskDone(disk as u32));
            }
            Phase::DataWait => self.transfer(disk, now, w, q),
            p => unreachable!("granted a bus in phase {p:?}"),
        }
    }

    /// `disk`'s access, positioned and holding its bus, starts its transfer.
    fn transfer(&mut self, disk: usize, now: SimTime, w: &Window, q: &mut EventQueue<Ev>) {
        let cfg = self.bus.expect("a transfer without [server.bus]");
        let ds = &mut self.stations[disk];
        let b = ds.bus.expect("a station on a bus").0 as usize;
        let a = ds.on_bus.as_mut().expect("a transfer at an idle disk");
        let on_bus = cfg.rate.time_for(a.access.bytes);
        a.transfer = if cfg.buffered {
            on_bus
        } else {
            on_bus.max(a.st.transfer)
        };
        a.phase = Phase::Transfer;
        #[cfg(test)]
        self.log.push((now, disk, Phase::Transfer));
        self.buses[b].transfer(a.access.bytes, cfg.rate, now, w);
        q.schedule(now + a.transfer, Ev::DiskDone(disk as u32));
    }

    /// The access at `disk` ended a phase at `now` (its `DiskDone`). Without a bus that is
    /// the access's end; on a bus, the next phase starts, and only the transfer's end ends
    /// the access. Returns the access that ended, if it did (the disk is idle): its slot, how
    /// its service split (on a bus: the command in `overhead`, the transfer as it held the
    /// bus) and its waits for the bus.
    pub fn finish(
        &mut self,
        disk: usize,
        now: SimTime,
        w: &Window,
        q: &mut EventQueue<Ev>,
    ) -> Option<(u32, ServiceTime, SimDuration)> {
        let Some(cfg) = self.bus else {
            let ds = &mut self.stations[disk];
            let (d, st) = ds.busy.take().expect("DiskDone on an idle disk");
            ds.busy_level.set(now, 0, w.span);
            return Some((d, st, SimDuration::ZERO));
        };
        let ds = &mut self.stations[disk];
        let b = ds.bus.expect("a station on a bus").0 as usize;
        let a = ds.on_bus.as_mut().expect("DiskDone on an idle disk");
        match a.phase {
            Phase::Command => {
                // the disk starts positioning now: the model times the access from here
                a.st = ds.model.service(&a.access, now);
                let mut positioning = a.st.overhead + a.st.seek + a.st.rotation;
                if cfg.buffered {
                    positioning += a.st.transfer;
                }
                a.phase = Phase::Positioning;
                #[cfg(test)]
                self.log.push((now, disk, Phase::Positioning));
                q.schedule(now + positioning, Ev::DiskDone(disk as u32));
                if cfg.disconnect {
                    self.release(b, now, w, q);
                }
                None
            }
            Phase::Positioning => {
                if !cfg.disconnect {
                    // it kept the bus
                    self.transfer(disk, now, w, q);
                    return None;
                }
                a.phase = Phase::DataWait;
                let (_, pos) = ds.bus.expect("a station on a bus");
                if self.buses[b].request(disk as u32, pos, now, w) {
                    self.transfer(disk, now, w, q);
                }
                None
            }
            Phase::Transfer => {
                let a = ds.on_bus.take().expect("an access on the bus");
                let (d, _) = ds.busy.take().expect("DiskDone on an idle disk");
                ds.busy_level.set(now, 0, w.span);
                let st = ServiceTime {
                    overhead: a.st.overhead + cfg.command,
                    transfer: if cfg.buffered {
                        a.st.transfer + a.transfer
                    } else {
                        a.transfer
                    },
                    ..a.st
                };
                if a.measured {
                    self.record(disk, a.since, w, a.class, a.queue_ns, &st, Some(a.bus_wait));
                }
                self.release(b, now, w, q);
                Some((d, st, a.bus_wait))
            }
            p => unreachable!("DiskDone while waiting for the bus ({p:?})"),
        }
    }

    /// Bus `b`'s holder releases it at `now`; the winner of its arbitration goes on.
    fn release(&mut self, b: usize, now: SimTime, w: &Window, q: &mut EventQueue<Ev>) {
        let cfg = self.bus.expect("a bus without [server.bus]");
        if let Some((disk, waited)) = self.buses[b].release(now, cfg.arbitration, w) {
            let disk = disk as usize;
            if let Some(a) = self.stations[disk].on_bus.as_mut() {
                if a.phase == Phase::DataWait {
                    a.bus_wait += waited;
                }
            }
            self.granted(disk, now, w, q);
        }
    }

    /// The summary's `buses` section and the `buses` table (with `[server.bus]`), the window
    /// closed at `w1` after `measured` ns; `model` is Wu's eq. 5 for the scenario.
    pub fn bus_report(
        &mut self,
        w1: SimTime,
        window: (SimTime, SimTime),
        measured: u64,
        model: f64,
    ) -> Option<(BusSummary, Table)> {
        let cfg = self.bus?;
        Some(bus::report(
            &mut self.buses,
            cfg.rate,
            model,
            w1,
            window,
            measured,
        ))
    }

    /// Buses (0 without `[server.bus]`).
    pub fn buses(&self) -> usize {
        self.buses.len()
    }

    /// Requests queued at all disks.
    pub fn queued(&self) -> u64 {
        // an access waiting for a stream-memory buffer still waits at its disk
        let awaiting = |d: &DiskStation| u64::from(d.awaiting.is_some());
        self.stations
            .iter()
            .map(|d| u64::from(d.queued) + awaiting(d))
            .sum()
    }

    /// Busy time of all disks in the window up to `now` (not closing anything).
    pub fn busy_integral(&self, now: SimTime, window: (SimTime, SimTime)) -> u128 {
        self.stations
            .iter()
            .map(|d| d.busy_level.integral_at(now, window))
            .sum()
    }

    /// Whether `disk` is serving an access now.
    pub fn busy(&self, disk: usize) -> bool {
        self.stations[disk].busy.is_some()
    }

    /// Disks serving an access now.
    pub fn busy_now(&self) -> usize {
        self.stations.iter().filter(|d| d.busy.is_some()).count()
    }

    /// The summary's `disks` section and the `disks` and `requests` tables, the window closed
    /// at `w1` after `measured` ns.
    pub fn report(
        &mut self,
        w1: SimTime,
        window: (SimTime, SimTime),
        measured: u64,
    ) -> (results::Disks, Table, Table) {
        let mut util = Vec::new();
        let mut rows = DiskRows {
            bus_wait_mean: self.bus.map(|_| Vec::new()),
            ..DiskRows::default()
        };
        for (i, d) in self.stations.iter_mut().enumerate() {
            let u = utilization(&mut d.busy_level, w1, window, measured);
            util.push(u);
            rows.push(i, d, u);
        }
        let fmin = |v: &[f64]| v.iter().cloned().fold(f64::INFINITY, f64::min);
        let section = results::Disks {
            count: self.stations.len() as u64,
            utilization_mean_ratio: mean(&util),
            utilization_min_ratio: if util.is_empty() { 0.0 } else { fmin(&util) },
            utilization_max_ratio: fmax(&util),
            requests: self.demand_served + self.prefetch_served,
            demand_requests: self.demand_served,
            prefetch_requests: self.prefetch_served,
            cache_hits: self.cache_hits,
            io_time: IoTime {
                queue: self.queue.stat(),
                overhead: self.overhead.stat(),
                seek: self.seek.stat(),
                rotation: self.rotation.stat(),
                transfer: self.transfer.stat(),
                bus_wait: self.bus.map(|_| self.bus_wait.stat()),
                service: self.service.stat(),
                total: self.total.stat(),
            },
        };
        let requests = std::mem::take(&mut self.requests).table();
        (section, rows.table(), requests)
    }
}

#[derive(Default)]
struct DiskRows {
    disk: Vec<u64>,
    node: Vec<u64>,
    util: Vec<f64>,
    requests: Vec<u64>,
    prefetch: Vec<u64>,
    queue_mean: Vec<u64>,
    service_mean: Vec<u64>,
    overhead_mean: Vec<u64>,
    seek_mean: Vec<u64>,
    rotation_mean: Vec<u64>,
    transfer_mean: Vec<u64>,
    bus_wait_mean: Option<Vec<u64>>,
    max_total: Vec<u64>,
}

impl DiskRows {
    fn push(&mut self, i: usize, d: &DiskStation, u: f64) {
        self.disk.push(i as u64);
        self.node.push(u64::from(d.node));
        self.util.push(u);
        self.requests.push(d.served);
        self.prefetch.push(d.served_prefetch);
        let m = |s: u128| {
            if d.served == 0 {
                0
            } else {
                (s / u128::from(d.served)) as u64
            }
        };
        self.queue_mean.push(m(d.queue_sum));
        self.service_mean.push(m(d.service_sum));
        self.overhead_mean.push(m(d.overhead_sum));
        self.seek_mean.push(m(d.seek_sum));
        self.rotation_mean.push(m(d.rotation_sum));
        self.transfer_mean.push(m(d.transfer_sum));
        if let Some(v) = &mut self.bus_wait_mean {
            v.push(m(d.bus_wait_sum));
        }
        self.max_total.push(d.max_total);
    }

    fn table(self) -> Table {
        let mut t = Table {
            name: "disks".into(),
            columns: vec![
                ("disk".into(), Column::U64(self.disk)),
                ("node".into(), Column::U64(self.node)),
                ("utilization_ratio".into(), Column::F64(self.util)),
                ("requests".into(), Column::U64(self.requests)),
                ("prefetch_requests".into(), Column::U64(self.prefetch)),
                ("queue_mean_ns".into(), Column::U64(self.queue_mean)),
                ("service_mean_ns".into(), Column::U64(self.service_mean)),
                ("io_time_max_ns".into(), Column::U64(self.max_total)),
                ("overhead_mean_ns".into(), Column::U64(self.overhead_mean)),
                ("seek_mean_ns".into(), Column::U64(self.seek_mean)),
                ("rotation_mean_ns".into(), Column::U64(self.rotation_mean)),
                ("transfer_mean_ns".into(), Column::U64(self.transfer_mean)),
            ],
        };
        if let Some(v) = self.bus_wait_mean {
            t.columns.push(("bus_wait_mean_ns".into(), Column::U64(v)));
        }
        t
    }
}

/// Every n-th disk request of the measured period (`run.request_sample_every`), with its
/// I/O time parts: the `requests` table.
#[derive(Default)]
struct RequestRows {
    time: Vec<u64>,
    disk: Vec<u64>,
    class: Vec<String>,
    queue: Vec<u64>,
    overhead: Vec<u64>,
    seek: Vec<u64>,
    rotation: Vec<u64>,
    transfer: Vec<u64>,
    /// With `[server.bus]`.
    bus_wait: Option<Vec<u64>>,
    total: Vec<u64>,
}

impl RequestRows {
    /// One dispatched request: `since_start` is its dispatch time from the window start.
    fn push(
        &mut self,
        since_start: u64,
        disk: usize,
        prefetch: bool,
        queue: u64,
        st: &ServiceTime,
        bus_wait: SimDuration,
    ) {
        self.time.push(since_start);
        self.disk.push(disk as u64);
        self.class
            .push(if prefetch { "prefetch" } else { "demand" }.to_string());
        self.queue.push(queue);
        self.overhead.push(st.overhead.as_nanos());
        self.seek.push(st.seek.as_nanos());
        self.rotation.push(st.rotation.as_nanos());
        self.transfer.push(st.transfer.as_nanos());
        if let Some(v) = &mut self.bus_wait {
            v.push(bus_wait.as_nanos());
        }
        self.total.push(queue + (st.total() + bus_wait).as_nanos());
    }

    fn table(self) -> Table {
        let mut t = Table {
            name: "requests".into(),
            columns: vec![
                ("time_ns".into(), Column::U64(self.time)),
                ("disk".into(), Column::U64(self.disk)),
                ("class".into(), Column::Str(self.class)),
                ("queue_ns".into(), Column::U64(self.queue)),
                ("overhead_ns".into(), Column::U64(self.overhead)),
                ("seek_ns".into(), Column::U64(self.seek)),
                ("rotation_ns".into(), Column::U64(self.rotation)),
                ("transfer_ns".into(), Column::U64(self.transfer)),
                ("io_time_ns".into(), Column::U64(self.total)),
            ],
        };
        if let Some(v) = self.bus_wait {
            let at = t.columns.len() - 1;
            t.columns.insert(at, ("bus_wait_ns".into(), Column::U64(v)));
        }
        t
    }
}

#[cfg(test)]
mod tests {
    //! Hand-worked bus timelines: a disk whose every access positions for 10 ms and reads
    //! its 40 kB off the media in `media` ms, on a 10 MB/s bus (40 kB in 4 ms) with 1 ms
    //! commands.
    use super::super::bus::Arbitration;
    use super::*;
    use crate::plugin::DiskGeometry;
    use crate::units::Bandwidth;
    use std::collections::VecDeque;

    struct Fixed {
        media: SimDuration,
    }
    impl DiskModel for Fixed {
        fn geometry(&self) -> DiskGeometry {
            DiskGeometry {
                capacity_bytes: 1 << 30,
                cylinders: 1,
            }
        }
        fn cylinder_of(&self, _: u64) -> u32 {
            0
        }
        fn head_cylinder(&self) -> u32 {
            0
        }
        fn service(&mut self, _: &DiskAccess, _: SimTime) -> ServiceTime {
            ServiceTime {
                seek: SimDuration::from_millis(10),
                transfer: self.media,
                ..ServiceTime::default()
            }
        }
        fn service_bound(&self, _: &DiskAccess) -> SimDuration {
            SimDuration::from_millis(10) + self.media
        }
    }

    #[derive(Default)]
    struct Fifo(VecDeque<RequestId>);
    impl DiskScheduler for Fifo {
        fn enqueue(&mut self, r: QueuedRequest) {
            self.0.push_back(r.id);
        }
        fn dequeue(&mut self, _: &HeadState) -> Option<RequestId> {
            self.0.pop_front()
        }
        fn len(&self) -> usize {
            self.0.len()
        }
    }

    const BYTES: u64 = 40_000;

    /// A demand read of `BYTES` at offset 0 of `disk`, enqueued at `now`.
    fn demand(disk: u32, now: SimTime) -> DReq {
        DReq {
            page: 0,
            node: 0,
            disk,
            class: RequestClass::Demand,
            enqueued: now,
            offset: 0,
            bytes: BYTES,
            queued: false,
            deadline: None,
            terminal: 0,
            lead: crate::system::ondemand::event::NONE,
            left: 1,
            owner: crate::system::ondemand::event::NONE,
        }
    }

    /// Phases started: (time in ms, disk, phase).
    type Timeline = Vec<(f64, usize, Phase)>;

    fn bus(disconnect: bool, buffered: bool, arbitration: Arbitration) -> BusConfig {
        BusConfig {
            rate: Bandwidth(80_000_000),
            command: SimDuration::from_millis(1),
            disconnect,
            buffered,
            arbitration,
        }
    }

    fn ms(t: SimTime) -> f64 {
        t.as_nanos() as f64 / 1e6
    }

    /// Runs one access per entry of `at` (disk, time in ms) on `disks` disks, `per_bus` to
    /// a bus; the phases started and each access's (disk, end) in ms.
    fn run(
        cfg: Option<BusConfig>,
        disks: u32,
        per_bus: u32,
        media_ms: u64,
        at: &[(usize, u64)],
    ) -> (Disks, Timeline, Vec<(usize, f64)>) {
        let stations = (0..disks)
            .map(|_| {
                let m = Fixed {
                    media: SimDuration::from_millis(media_ms),
                };
                DiskStation::new(0, Box::new(m), Box::<Fifo>::default())
            })
            .collect();
        let mut d = Disks::new(stations, "test", "fifo", 1, false);
        if let Some(c) = cfg {
            d = d.with_buses(c, disks, per_bus);
        }
        let w = Window {
            span: (SimTime::ZERO, SimTime::ZERO + SimDuration::from_secs(1)),
            measuring: true,
        };
        d.open(SimTime::ZERO);
        let mut q = EventQueue::new();
        let mut reqs = Arena::new();
        let mut faults = Faults::default();
        for &(disk, t) in at {
            q.schedule(
                SimTime::ZERO + SimDuration::from_millis(t),
                Ev::Trace(disk as u32),
            );
        }
        let mut ended = Vec::new();
        while let Some((now, ev)) = q.pop() {
            match ev {
                Ev::Trace(disk) => {
                    let r = reqs.put(demand(disk, now));
                    let disk = d.enqueue(r, &mut reqs, now, &mut faults);
                    d.start(disk, now, &w, &mut reqs, &mut faults, &mut q);
                }
                Ev::DiskDone(disk) => {
                    let disk = disk as usize;
                    if let Some((r, _, _)) = d.finish(disk, now, &w, &mut q) {
                        reqs.release(r);
                        ended.push((disk, ms(now)));
                        d.start(disk, now, &w, &mut reqs, &mut faults, &mut q);
                    }
                }
                e => unreachable!("{e:?}"),
            }
        }
        assert!(!faults.any());
        let log = d.log.iter().map(|&(t, disk, p)| (ms(t), disk, p)).collect();
        (d, log, ended)
    }

    fn transfers(log: &[(f64, usize, Phase)]) -> Vec<(usize, f64)> {
        log.iter()
            .filter(|x| x.2 == Phase::Transfer)
            .map(|&(t, disk, _)| (disk, t))
            .collect()
    }

    #[test]
    fn without_a_bus_an_access_takes_the_models_time() {
        let (_, log, ended) = run(None, 2, 2, 4, &[(0, 0), (1, 0)]);
        assert!(log.is_empty());
        assert_eq!(ended, vec![(0, 14.0), (1, 14.0)]);
    }

    /// A model that says its head is on a cylinder its own geometry does not have.
    struct Lost(Fixed);
    impl DiskModel for Lost {
        fn geometry(&self) -> DiskGeometry {
            self.0.geometry()
        }
        fn cylinder_of(&self, offset: u64) -> u32 {
            self.0.cylinder_of(offset)
        }
        fn head_cylinder(&self) -> u32 {
            7
        }
        fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
            self.0.service(a, now)
        }
        fn service_bound(&self, a: &DiskAccess) -> SimDuration {
            self.0.service_bound(a)
        }
    }

    #[test]
    fn a_head_past_the_models_geometry_stops_the_run_naming_the_model() {
        let m = Lost(Fixed {
            media: SimDuration::from_millis(4),
        });
        let station = DiskStation::new(0, Box::new(m), Box::<Fifo>::default());
        let mut d = Disks::new(vec![station], "lost", "fifo", 1, false);
        let w = Window {
            span: (SimTime::ZERO, SimTime::ZERO + SimDuration::from_secs(1)),
            measuring: true,
        };
        d.open(SimTime::ZERO);
        let (mut q, mut reqs, mut faults) = (EventQueue::new(), Arena::new(), Faults::default());
        let r = reqs.put(demand(0, SimTime::ZERO));
        let disk = d.enqueue(r, &mut reqs, SimTime::ZERO, &mut faults);
        assert!(!faults.any());
        d.start(disk, SimTime::ZERO, &w, &mut reqs, &mut faults, &mut q);
        let e = faults
            .take()
            .expect("the model broke its contract")
            .to_string();
        assert!(
            e.contains("lost")
                && e.contains("head of disk 0 is on cylinder 7")
                && e.contains("has 1 cylinders"),
            "{e}"
        );
        // nothing was started on the disk
        assert!(q.pop().is_none());
    }

    #[test]
    fn two_disks_on_one_bus_never_transfer_at_once() {
        let c = bus(true, false, Arbitration::Priority);
        // disk 0: command 0-1, positions 1-11, transfers 11-15. disk 1: waits 0-1 for the
        // bus, command 1-2, positions 2-12 while disk 0 positions too, waits 12-15 for the
        // bus disk 0 transfers on, transfers 15-19
        let (mut d, log, ended) = run(Some(c), 2, 2, 4, &[(0, 0), (1, 0)]);
        assert_eq!(transfers(&log), vec![(0, 11.0), (1, 15.0)]);
        assert_eq!(ended, vec![(0, 15.0), (1, 19.0)]);
        // on two buses they overlap: both transfer 11-15 and 12-16
        let (_, log2, ended2) = run(Some(c), 2, 1, 4, &[(0, 0), (1, 0)]);
        assert_eq!(transfers(&log2), vec![(0, 11.0), (1, 11.0)]);
        assert_eq!(ended2, vec![(0, 15.0), (1, 15.0)]);
        // the parts: disk 1 waited 1 ms for its command and 3 ms to reconnect
        let (s, ..) = d.report(
            SimTime::ZERO + SimDuration::from_secs(1),
            d_window(),
            1e9 as u64,
        );
        let wait = s.io_time.bus_wait.expect("a bus wait part");
        assert_eq!(
            (wait.count, wait.mean_ns, wait.max_ns),
            (2, 2_000_000, 4_000_000)
        );
        // service 15 and 19 ms = overhead 1 + seek 10 + transfer 4 + bus wait 0 or 4
        assert_eq!(s.io_time.service.mean_ns, 17_000_000);
        assert_eq!(s.io_time.overhead.mean_ns, 1_000_000);
        assert_eq!(s.io_time.transfer.mean_ns, 4_000_000);
        // the bus was held 0-2 (commands) and 11-19 (transfers): 10 ms of 19
        let (b, t) = d
            .bus_report(at_ms(19), (SimTime::ZERO, at_ms(19)), 19_000_000, 0.0)
            .unwrap();
        assert!((b.utilization_mean_ratio - 10.0 / 19.0).abs() < 1e-12);
        assert!((b.bandwidth_mean_ratio - 8.0 / 19.0).abs() < 1e-12);
        assert_eq!(
            (b.count, b.commands, b.transfers, b.bytes),
            (1, 2, 2, 2 * BYTES)
        );
        assert_eq!(t.name, "buses");
    }

    fn at_ms(t: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(t)
    }

    fn d_window() -> (SimTime, SimTime) {
        (SimTime::ZERO, SimTime::ZERO + SimDuration::from_secs(1))
    }

    #[test]
    fn a_disconnecting_disk_frees_the_bus_while_it_positions_and_one_that_does_not_keeps_it() {
        let on = bus(true, false, Arbitration::Priority);
        let (_, log, _) = run(Some(on), 2, 2, 4, &[(0, 0), (1, 0)]);
        let commands: Vec<_> = log.iter().filter(|x| x.2 == Phase::Command).collect();
        // disk 1's command goes while disk 0 positions
        assert_eq!(
            commands,
            vec![&(0.0, 0, Phase::Command), &(1.0, 1, Phase::Command)]
        );
        // without disconnect disk 0 holds the bus 0-15 (command, positioning, transfer), so
        // disk 1's command waits until 15: positions 16-26, transfers 26-30
        let off = bus(false, false, Arbitration::Priority);
        let (_, log, ended) = run(Some(off), 2, 2, 4, &[(0, 0), (1, 0)]);
        let commands: Vec<_> = log.iter().filter(|x| x.2 == Phase::Command).collect();
        assert_eq!(
            commands,
            vec![&(0.0, 0, Phase::Command), &(15.0, 1, Phase::Command)]
        );
        assert_eq!(ended, vec![(0, 15.0), (1, 30.0)]);
    }

    #[test]
    fn arbitration_by_scsi_priority_or_in_order() {
        // three disks: commands 0-1, 1-2, 2-3; positioned at 11, 12, 13; disk 0 transfers
        // 11-15 while 1 and 2 wait; then priority gives the bus to disk 2 (the higher ID),
        // fifo to disk 1 (which asked first)
        let p = bus(true, false, Arbitration::Priority);
        let (_, log, _) = run(Some(p), 3, 3, 4, &[(0, 0), (1, 0), (2, 0)]);
        assert_eq!(transfers(&log), vec![(0, 11.0), (2, 15.0), (1, 19.0)]);
        let f = bus(true, false, Arbitration::Fifo);
        let (_, log, _) = run(Some(f), 3, 3, 4, &[(0, 0), (1, 0), (2, 0)]);
        assert_eq!(transfers(&log), vec![(0, 11.0), (1, 15.0), (2, 19.0)]);
        // the host's command wins over a waiting reconnection: disk 1 asks for its command
        // at 12 while disk 0 transfers (11-15) and disk 2 waits to reconnect (since 13)
        let (_, log, _) = run(Some(p), 3, 3, 4, &[(0, 0), (2, 2), (1, 12)]);
        let after: Vec<_> = log.iter().filter(|x| x.0 >= 15.0).take(2).collect();
        assert_eq!(
            after,
            vec![&(15.0, 1, Phase::Command), &(16.0, 1, Phase::Positioning)]
        );
        assert_eq!(transfers(&log)[1], (2, 16.0));
    }

    #[test]
    fn a_transfer_runs_at_the_slower_of_media_and_bus_unless_buffered() {
        // media 8 ms for 40 kB (5 MB/s) against 4 ms on the bus
        let u = bus(true, false, Arbitration::Priority);
        let (_, log, ended) = run(Some(u), 2, 2, 8, &[(0, 0), (1, 0)]);
        assert_eq!(transfers(&log), vec![(0, 11.0), (1, 19.0)]);
        assert_eq!(ended, vec![(0, 19.0), (1, 27.0)]);
        // buffered: the media read is off the bus (1-19, 2-20), then 4 ms bursts
        let b = bus(true, true, Arbitration::Priority);
        let (_, log, ended) = run(Some(b), 2, 2, 8, &[(0, 0), (1, 0)]);
        assert_eq!(transfers(&log), vec![(0, 19.0), (1, 23.0)]);
        assert_eq!(ended, vec![(0, 23.0), (1, 27.0)]);
    }

    #[test]
    fn pappas_two_controllers_of_two_disks() {
        // 4 disks, 2 per bus: disks 0 and 1 share bus 0, disks 2 and 3 bus 1
        let c = bus(true, false, Arbitration::Priority);
        let (d, log, ended) = run(Some(c), 4, 2, 4, &[(0, 0), (1, 0), (2, 0), (3, 0)]);
        assert_eq!(d.buses(), 2);
        let on: Vec<_> = d.stations.iter().map(|s| s.bus).collect();
        assert_eq!(
            on,
            vec![Some((0, 0)), Some((0, 1)), Some((1, 0)), Some((1, 1))]
        );
        assert_eq!(
            transfers(&log),
            vec![(0, 11.0), (2, 11.0), (1, 15.0), (3, 15.0)]
        );
        assert_eq!(ended, vec![(0, 15.0), (2, 15.0), (1, 19.0), (3, 19.0)]);
    }
}
