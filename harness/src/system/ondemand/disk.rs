//! Disk stations (SPIFFI §5.2): each disk's queue, its scheduler and its timing model, and
//! what they measured — busy time, requests served, and every I/O time by part (queue,
//! overhead, seek, rotation, transfer).
//!
//! The station does the bookkeeping and checks the scheduler's answers (a request it returns
//! must be one queued at this disk; its `len` must match the queue); the scheduler only
//! chooses and the model only times.

use super::error::Faults;
use super::measure::{fmax, mean, utilization, Window};
use super::requests::{Arena, DReq};
use super::stats::{DurStat, Level};
use crate::ids::{RequestId, TerminalId};
use crate::plugin::{
    DiskAccess, DiskModel, DiskScheduler, HeadState, QueuedRequest, RequestClass, ServiceTime,
};
use crate::results::{self, Column, IoTime, Table};
use crate::time::SimTime;

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
    /// The scheduler's name, for contract errors.
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
}

impl Disks {
    pub fn new(
        stations: Vec<DiskStation>,
        scheduler: &'static str,
        sample_every: u32,
        figures_only: bool,
    ) -> Self {
        Disks {
            stations,
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
        }
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
    }

    /// Queues disk access `d` at its disk at `now`.
    pub fn enqueue(&mut self, d: u32, dreqs: &mut Arena<DReq>, now: SimTime) -> usize {
        let dr = &mut dreqs.slots[d as usize];
        let disk = dr.disk as usize;
        let ds = &mut self.stations[disk];
        let cylinder = ds.model.cylinder_of(dr.offset);
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
    /// scheduler, checks its answer, times the access; when it ends.
    pub fn start(
        &mut self,
        disk: usize,
        now: SimTime,
        w: &Window,
        dreqs: &mut Arena<DReq>,
        faults: &mut Faults,
    ) -> Option<SimTime> {
        let ds = &mut self.stations[disk];
        if ds.busy.is_some() || ds.queued == 0 {
            return None;
        }
        let head = HeadState {
            now,
            cylinder: ds.model.head_cylinder(),
            cylinders: ds.cylinders,
        };
        let held = ds.sched.len();
        let choice = ds.sched.dequeue(&head);
        let name = self.scheduler;
        if held != ds.queued as usize {
            let msg = format!(
                "len() says {held} but {} requests are queued at disk {disk}",
                ds.queued
            );
            faults.plugin("disk.scheduler", name, now, msg);
            return None;
        }
        let Some(RequestId(d)) = choice else {
            let msg = format!("returned no request while {held} are queued at disk {disk}");
            faults.plugin("disk.scheduler", name, now, msg);
            return None;
        };
        let valid = dreqs
            .slots
            .get(d as usize)
            .is_some_and(|r| r.queued && r.disk as usize == disk);
        if !valid {
            let msg = format!("returned request {d}, which is not queued at disk {disk}");
            faults.plugin("disk.scheduler", name, now, msg);
            return None;
        }
        let dr = &mut dreqs.slots[d as usize];
        dr.queued = false;
        let access = DiskAccess {
            offset: dr.offset,
            bytes: dr.bytes,
            write: false,
        };
        let queue_ns = now.saturating_since(dr.enqueued).as_nanos();
        let class = dr.class;
        ds.queued -= 1;
        let st = ds.model.service(&access, now);
        let service = st.total();
        ds.busy = Some((d, st));
        ds.busy_level.set(now, 1, w.span);
        if w.measuring {
            if !self.figures_only {
                self.queue.record(queue_ns);
                self.overhead.record(st.overhead.as_nanos());
                self.seek.record(st.seek.as_nanos());
                self.rotation.record(st.rotation.as_nanos());
                self.transfer.record(st.transfer.as_nanos());
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
            let every = self.sample_every;
            if every > 0 && self.dispatched % every == 0 && !self.figures_only {
                let since = w.since_start(now);
                let pf = class == RequestClass::Prefetch;
                self.requests.push(since, disk, pf, queue_ns, &st);
            }
            self.dispatched += 1;
            ds.max_total = ds.max_total.max(queue_ns + service.as_nanos());
        }
        Some(now + service)
    }

    /// The access at `disk` ended at `now`: the disk is idle; the access's slot and how its
    /// service time split.
    pub fn finish(&mut self, disk: usize, now: SimTime, w: &Window) -> (u32, ServiceTime) {
        let ds = &mut self.stations[disk];
        let (d, st) = ds.busy.take().expect("DiskDone on an idle disk");
        ds.busy_level.set(now, 0, w.span);
        (d, st)
    }

    /// Requests queued at all disks.
    pub fn queued(&self) -> u64 {
        self.stations.iter().map(|d| u64::from(d.queued)).sum()
    }

    /// Busy time of all disks in the window up to `now` (not closing anything).
    pub fn busy_integral(&self, now: SimTime, window: (SimTime, SimTime)) -> u128 {
        self.stations
            .iter()
            .map(|d| d.busy_level.integral_at(now, window))
            .sum()
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
        let mut rows = DiskRows::default();
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
        self.max_total.push(d.max_total);
    }

    fn table(self) -> Table {
        Table {
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
        }
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
        self.total.push(queue + st.total().as_nanos());
    }

    fn table(self) -> Table {
        Table {
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
        }
    }
}
