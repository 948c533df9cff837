//! Requests per second of the `disksim` model (DiskSim 4.0 through our binding) and of the
//! `mechanical` model on the same workload (issue 3): DiskSim's speed workload of
//! `examples/disk_speed.rs`, random reads of 64–512 KB (uniform in 4 KB steps, 4 KB aligned)
//! over the whole disk, Poisson arrivals at about 70 % utilisation, served first come first
//! served. Each iteration builds a fresh disk (not timed) and replays `REQUESTS` requests.
//!
//! `DISKSIM_DIR=… cargo bench -p vodbench-plugins --features disksim --bench disksim`
//!
//! DiskSim 4.0 standalone (-O2) does 2,927 / 2,135 / 7,603 requests/s on the 200,000-request
//! version of this workload (barracuda / cheetah9LP / hp_c2247a, `../shared/disk-refs/speed`).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use std::time::Duration;
use vodbench_harness::plugin::{DiskAccess, DiskModel};
use vodbench_harness::time::SimTime;
use vodbench_plugins::disk_model::disksim::DiskSim;
use vodbench_plugins::disk_model::mechanical::Mechanical;

/// Requests per iteration (the reference runs 200,000; fewer keep DiskSim's samples short).
const REQUESTS: usize = 10_000;

/// (arrival ns, lbn, sectors), as `examples/disk_speed.rs` makes them.
fn workload(name: &str, n_req: usize) -> Vec<(u64, u64, u64)> {
    let mut m = Mechanical::bundled(name, None).expect("bundled disk");
    let blocks = m.disk().layout.blocks;
    let mut rng = rand::rngs::StdRng::seed_from_u64(2927);
    let req = |rng: &mut rand::rngs::StdRng| {
        let n = 8 * rng.random_range(16..=128u64);
        let lbn = 8 * rng.random_range(0..=(blocks - n) / 8);
        (lbn, n)
    };
    // closed-loop mean service time (ps), for the arrival rate
    let d = m.disk_mut();
    let (mut t, k) = (0u64, 2_000u64);
    for _ in 0..k {
        let (lbn, n) = req(&mut rng);
        t = d.serve(lbn, n, false, t).completion;
    }
    let mean_interarrival = t as f64 / k as f64 / 0.7;
    let mut at = 0.0f64;
    (0..n_req)
        .map(|_| {
            let u: f64 = rng.random_range(f64::EPSILON..1.0);
            at += -u.ln() * mean_interarrival;
            let (lbn, n) = req(&mut rng);
            ((at / 1000.0) as u64, lbn, n)
        })
        .collect()
}

/// Replays `trace` FCFS; returns the sum of response times (ns) so nothing is optimised away.
fn replay(d: &mut dyn DiskModel, trace: &[(u64, u64, u64)]) -> u64 {
    let (mut free, mut total) = (0u64, 0u64);
    for &(arrival, lbn, n) in trace {
        let start = arrival.max(free);
        let t = d.service(
            &DiskAccess {
                offset: lbn * 512,
                bytes: n * 512,
                write: false,
            },
            SimTime::from_nanos(start),
        );
        free = start + t.total().as_nanos();
        total += free - arrival;
    }
    total
}

fn models(c: &mut Criterion) {
    for name in ["barracuda", "cheetah9LP", "hp_c2247a"] {
        let trace = workload(name, REQUESTS);
        let mut g = c.benchmark_group(format!("disk_models/{name}"));
        g.throughput(Throughput::Elements(trace.len() as u64));
        g.sample_size(10);
        g.warm_up_time(Duration::from_millis(500));
        g.measurement_time(Duration::from_secs(5));
        g.bench_function("disksim", |b| {
            b.iter_batched(
                || DiskSim::bundled(name, None).expect("DiskSim loads the bundled disk"),
                |mut d| replay(&mut d, &trace),
                BatchSize::PerIteration,
            )
        });
        g.bench_function("mechanical", |b| {
            b.iter_batched(
                || Mechanical::bundled(name, None).expect("bundled disk"),
                |mut d| replay(&mut d, &trace),
                BatchSize::PerIteration,
            )
        });
        g.finish();
    }
}

criterion_group!(benches, models);
criterion_main!(benches);
