//! What a run measured: the time series' samples and every component's figures, gathered
//! into the run's summary and tables.

use super::*;

impl<'a> Engine<'a> {
    /// A sample of the time series.
    pub(super) fn sample(&mut self) {
        let now = self.q.now();
        let w = self.period.w;
        let buffered = self.terms.sample(now);
        let s = Sample {
            buffered,
            pages_used: self.nodes.pages_used(),
            glitches: self.terms.glitches(),
            disk_queue: self.disks.queued(),
            disk_busy: self.disks.busy_integral(now, w.span),
            disks_busy_now: self.disks.busy_now(),
            stream_memory: self.rounds.as_ref().map(|(_, m)| m.levels()),
        };
        self.series
            .push(now, &w, s, self.terms.real(), self.disks.len());
        if let Some((_, c)) = self.egress.as_mut() {
            c.sample(now, &w);
        }
        let next = now + self.sample_interval;
        if next < w.span.1 {
            self.q.schedule(next, Ev::Sample);
        }
    }

    /// Every metric, each component reporting its own.
    pub(super) fn results(mut self) -> RunResults {
        let now = self.q.now();
        let f = &self.scenario.file;
        let w = self.period.w;
        let (w0, w1) = if w.measuring {
            (w.span.0, now.min(w.span.1))
        } else {
            (now, now)
        };
        let window = (w0, w1);
        let measured = w1.saturating_since(w0).as_nanos();
        self.terms.close_stalls(w1, window, w.measuring);
        let (glitches, startup_latency, videos_started, events_ignored, term_table) =
            self.terms.report(w0, w.measuring);
        let (disks, disk_table, request_table) = self.disks.report(w1, window, measured);
        let buses = self
            .disks
            .bus_report(w1, window, measured, self.bus_model());
        let (cpu, buffer_pool, node_table) = self.nodes.report(w1, window, measured);
        let mut network = self.net.report(w1, window, measured);
        if let (Some(cpus), Some((n, _))) = (self.iface_cpu.as_mut(), network.as_mut()) {
            let (mean, max) = cpus.report(w1, window, measured);
            n.interface_cpu_utilization_mean_ratio = Some(mean);
            n.interface_cpu_utilization_max_ratio = Some(max);
        }
        if let (Some(h), Some((n, _))) = (self.msg_work.as_mut(), network.as_mut()) {
            let (mean, max) = h.report(w1, window, measured);
            n.storage_message_utilization_mean_ratio = Some(mean);
            n.storage_message_utilization_max_ratio = Some(max);
        }
        let admission = self.admission.report(w1, window, measured);
        let delays = self.delays.report();
        let continuity = self.continuity.report();
        let transmission = self.egress.as_ref().map(|(e, c)| {
            let rows = c.figures(measured);
            (
                transmission_summary(e, &rows, measured),
                [clients::table(&rows), c.monitored_table()],
            )
        });
        let stream_memory = self.rounds.as_mut().map(|(r, m)| {
            let f = m.figures(w1, window, measured);
            StreamMemorySummary {
                release: r.release.name().to_string(),
                round_ns: r.length,
                reserved_peak_bytes: f.reserved_peak,
                reserved_mean_bytes: f.reserved_mean,
                used_peak_bytes: f.used_peak,
                used_mean_bytes: f.used_mean,
                blocks_read: f.blocks_read,
                late_blocks: f.late_blocks,
                buffer_waits: f.waits.map(|(reads, total, max)| BufferWaits {
                    cap_bytes: self.scenario.file.server.stream_memory.map_or(0, |c| c.0),
                    reads,
                    total_ns: total as u64,
                    mean_ns: total.checked_div(u128::from(reads)).unwrap_or(0) as u64,
                    max_ns: max,
                }),
                refused_starts: self.admission.memory_refused(),
            }
        });
        let live = self.reqs.reads.live();
        let serving: u64 = self
            .reqs
            .reads
            .slots
            .iter()
            .zip(&live)
            .filter(|(r, l)| **l && r.stage == 1)
            .map(|(r, _)| r.bytes)
            .sum();
        let (issued, delivered, received, consumed, discarded, buffered) =
            self.terms.conservation();
        let summary = Summary {
            scenario: self.scenario.name().to_string(),
            seed: f.seed,
            terminals: u64::from(self.scenario.terminals()),
            warmup_ns: w0.as_nanos(),
            measured_ns: measured,
            simulated_ns: now.as_nanos(),
            ended_early: measured < f.run.duration.0,
            glitches,
            startup_latency,
            videos_started,
            events_ignored,
            disks,
            cpu,
            buffer_pool,
            terminal_buffer: TerminalBuffers {
                memory_bytes: f.terminals.memory.0,
                occupancy_mean_bytes: self.terms.occupancy_mean(),
                occupancy_peak_bytes: self.terms.occupancy_peak(),
                sample_interval_ns: self.sample_interval.as_nanos(),
            },
            conservation: Conservation {
                requests_issued: issued,
                requests_delivered: delivered,
                requests_in_system: self.reqs.reads.in_use(),
                disk_demand_bytes: self.nodes.disk_demand_bytes,
                hit_bytes: self.nodes.hit_bytes,
                join_bytes: self.nodes.join_bytes,
                serving_bytes: serving,
                sent_bytes: self.nodes.sent_bytes,
                in_transit_bytes: self.net.in_transit_bytes,
                received_bytes: received,
                consumed_bytes: consumed,
                discarded_bytes: discarded,
                buffered_bytes: buffered,
            },
            events: self.events,
            paper: f.paper.clone(),
            search: self.terms.search_summary(),
            piggyback: self.terms.piggyback_summary(),
            network: network.as_ref().map(|(s, _)| s.clone()),
            admission,
            request_delays: delays.as_ref().map(|(s, _)| s.clone()),
            buses: buses.as_ref().map(|(s, _)| s.clone()),
            continuity: continuity.as_ref().map(|(s, _)| s.clone()),
            transmission: transmission.as_ref().map(|(s, _)| s.clone()),
            stream_memory,
            replication: self
                .repl
                .as_ref()
                .map(|r| r.report(self.period.end.unwrap_or(now))),
        };
        let mut tables = vec![
            disk_table,
            node_table,
            term_table,
            self.series.table(self.block_bytes),
            request_table,
        ];
        if let Some((_, links)) = network {
            tables.push(links);
        }
        if let Some((_, t)) = delays {
            tables.push(t);
        }
        if let Some((_, t)) = buses {
            tables.push(t);
        }
        if let Some((_, t)) = continuity {
            tables.push(t);
        }
        if let Some((_, t)) = transmission {
            tables.extend(t);
        }
        RunResults { summary, tables }
    }

    /// Wu's eq. 5 for this scenario: μ = n·a / r_bus per bus, the terminals' bit rate spread
    /// over the buses (0 without buses).
    pub(super) fn bus_model(&self) -> f64 {
        let f = &self.scenario.file;
        match &f.server.bus {
            Some(b) if self.disks.buses() > 0 => {
                f64::from(self.scenario.terminals()) * f.videos.bit_rate.0 as f64
                    / (b.rate.0 as f64 * self.disks.buses() as f64)
            }
            _ => 0.0,
        }
    }
}

/// `summary.json`'s `transmission` from the egress's counters and the clients' figures.
fn transmission_summary(
    e: &Egress,
    rows: &[crate::results::transmission::ClientFigures],
    measured: u64,
) -> crate::results::transmission::TransmissionSummary {
    let (packets, bytes, busy, cpu) = e.counters();
    let share = |x: u64| {
        if measured > 0 {
            x as f64 / measured as f64
        } else {
            0.0
        }
    };
    let n = rows.len().max(1) as f64;
    let client_packets: u64 = rows.iter().map(|r| r.packets).sum();
    let lost: u64 = rows.iter().map(|r| r.packets_lost).sum();
    crate::results::transmission::TransmissionSummary {
        policy: e.name.to_string(),
        egress_rate_bps: e.rate_bps(),
        packets,
        bytes,
        throughput_bps: if measured > 0 {
            bytes as f64 * 8.0 * 1e9 / measured as f64
        } else {
            0.0
        },
        egress_utilization_ratio: share(busy),
        cpu_utilization_ratio: share(cpu),
        client_packets,
        client_packets_lost: lost,
        loss_ratio: if client_packets > 0 {
            lost as f64 / client_packets as f64
        } else {
            0.0
        },
        goodput_mean_bps: rows.iter().map(|r| r.goodput_bps).sum::<f64>() / n,
        jitter_mean_ns: (rows
            .iter()
            .map(|r| u128::from(r.jitter_mean_ns))
            .sum::<u128>()
            / rows.len().max(1) as u128) as u64,
        jitter_max_ns: rows.iter().map(|r| r.jitter_max_ns).max().unwrap_or(0),
        frame_rate_mean_fps: rows.iter().map(|r| r.frame_rate_fps).sum::<f64>() / n,
        monitored: rows.iter().find(|r| r.terminal == 0).cloned(),
    }
}
