//! Requests per second of the disk models (issue 3, "Speed"), with criterion.
//!
//! - `speed/<model>/<disk>`: DiskSim's speed workload — 200,000 random reads of 64–512 KB
//!   (uniform in 4 KB steps, 4 KB aligned) over the whole disk, Poisson arrivals at about
//!   70 % utilisation (mean interarrival = closed-loop mean service time / 0.7), served first
//!   come first served. DiskSim 4.0 built with -O2 replays it at 2,927 requests/s
//!   (barracuda), 2,135 (cheetah9LP) and 7,603 (hp_c2247a) on the reference machine
//!   (`shared/disk-refs/speed/`); the `mechanical` model must be at least 100× faster.
//! - `fixtures/mechanical/<disk>/<workload>`: the DiskSim reference traces of
//!   `tests/fixtures/disksim-refs/` (closed workloads chained, the mixed one open).
//!
//! - `disksim/<model>/<disk>` (only with the cargo feature `disksim`, which needs
//!   `DISKSIM_DIR`): DiskSim 4.0 itself through our binding and the `mechanical` model, side
//!   by side on the first 10,000 requests of the speed workload (fewer keep DiskSim's samples
//!   short).
//!
//! Every request goes through the model's [`DiskModel`] interface, by
//! [`vodbench_harness::experiment::disk_replay::replay`], exactly as `vodbench disk replay` drives it.
//!
//! `cargo bench --bench disk_models` (criterion reports `thrpt` in requests/s);
//! `DISKSIM_DIR=… cargo bench --features disksim --bench disk_models -- disksim` for DiskSim.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;
use vodbench_harness::experiment::disk_replay::{replay, TraceRequest};
use vodbench_harness::plugin::{BuildContext, DiskModel};

const SECTOR: u64 = 512;

/// A disk model built through the registry, as scenarios and `vodbench disk replay` do.
fn model(name: &str, params: &[(&str, &str)]) -> Box<dyn DiskModel> {
    let registry = vodbench_plugins::registry();
    let mut table = toml::Table::new();
    for (k, v) in params {
        table.insert((*k).into(), toml::Value::String((*v).into()));
    }
    let resolved = registry
        .resolve::<dyn DiskModel>(name, &table)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let ctx = BuildContext::new(0, "disk", 0, Path::new("")).with_block_bytes(SECTOR);
    resolved
        .build(&ctx)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// DiskSim's speed workload for a disk of `blocks` sectors whose closed-loop mean service
/// time `disk` tells.
fn speed_workload(disk: &mut dyn DiskModel, requests: usize, seed: u64) -> Vec<TraceRequest> {
    let blocks = disk.geometry().capacity_bytes / SECTOR;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let draw = |rng: &mut rand::rngs::StdRng| {
        let n = 8 * rng.random_range(16..=128u64);
        let lbn = 8 * rng.random_range(0..=(blocks - n) / 8);
        (lbn, n)
    };
    // the closed-loop mean service time sets the arrival rate
    let probe: Vec<TraceRequest> = (0..2_000)
        .map(|_| {
            let (lbn, sectors) = draw(&mut rng);
            TraceRequest {
                arrival_ms: 0.0,
                lbn,
                sectors,
                read: true,
            }
        })
        .collect();
    let served = replay(disk, &probe, true).expect("probe fits the disk");
    let busy: f64 = served.iter().map(|r| r.response_ms).sum();
    let mean_interarrival = busy / probe.len() as f64 / 0.7;
    let mut at = 0.0f64;
    (0..requests)
        .map(|_| {
            let u: f64 = rng.random_range(f64::EPSILON..1.0);
            at += -u.ln() * mean_interarrival;
            let (lbn, sectors) = draw(&mut rng);
            TraceRequest {
                arrival_ms: at,
                lbn,
                sectors,
                read: true,
            }
        })
        .collect()
}

fn speed(c: &mut Criterion) {
    const REQUESTS: usize = 200_000;
    let mut g = c.benchmark_group("speed");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(REQUESTS as u64));
    // (model, disk, the model's `spec` parameter)
    let cases = [
        ("mechanical", "barracuda", Some("barracuda")),
        ("mechanical", "cheetah9LP", Some("cheetah9LP")),
        ("mechanical", "hp_c2247a", Some("hp_c2247a")),
        ("analytic", "default", None),
        ("linear", "default", None),
    ];
    for (name, disk, spec) in cases {
        let params: Vec<(&str, &str)> = spec.map(|s| ("spec", s)).into_iter().collect();
        let trace = speed_workload(model(name, &params).as_mut(), REQUESTS, 2927);
        g.bench_function(BenchmarkId::new(name, disk), |b| {
            b.iter_batched(
                || model(name, &params),
                |mut m| black_box(replay(m.as_mut(), &trace, false).unwrap()),
                criterion::BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

/// A fixture's requests (`idx arrival_ms devno blkno bcount is_read completion response`).
fn fixture(disk: &str, workload: &str) -> Vec<TraceRequest> {
    let p: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests/fixtures/disksim-refs",
        disk,
        &format!("{workload}.responses.tsv"),
    ]
    .iter()
    .collect();
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            TraceRequest {
                arrival_ms: f[1].parse().unwrap(),
                lbn: f[3].parse().unwrap(),
                sectors: f[4].parse().unwrap(),
                read: f[5] == "1",
            }
        })
        .collect()
}

fn fixtures(c: &mut Criterion) {
    let mut g = c.benchmark_group("fixtures");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    for disk in ["barracuda", "hp_c2247a"] {
        for workload in [
            "a-rand4k-closed",
            "b-rand512k-closed",
            "c-vod50x512k-closed",
            "d-mixed-open",
        ] {
            let trace = fixture(disk, workload);
            let closed = workload.ends_with("-closed");
            g.throughput(Throughput::Elements(trace.len() as u64));
            g.bench_function(
                BenchmarkId::new(format!("mechanical/{disk}"), workload),
                |b| {
                    b.iter_batched(
                        || model("mechanical", &[("spec", disk)]),
                        |mut m| black_box(replay(m.as_mut(), &trace, closed).unwrap()),
                        criterion::BatchSize::PerIteration,
                    )
                },
            );
        }
    }
    g.finish();
}

/// DiskSim through the binding beside `mechanical`, on the same requests.
#[cfg(feature = "disksim")]
fn disksim(c: &mut Criterion) {
    const REQUESTS: usize = 10_000;
    let mut g = c.benchmark_group("disksim");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(REQUESTS as u64));
    for disk in ["barracuda", "cheetah9LP", "hp_c2247a"] {
        let trace = speed_workload(
            model("mechanical", &[("spec", disk)]).as_mut(),
            REQUESTS,
            2927,
        );
        for name in ["disksim", "mechanical"] {
            g.bench_function(BenchmarkId::new(name, disk), |b| {
                b.iter_batched(
                    || model(name, &[("spec", disk)]),
                    |mut m| black_box(replay(m.as_mut(), &trace, false).unwrap()),
                    criterion::BatchSize::PerIteration,
                )
            });
        }
    }
    g.finish();
}

#[cfg(not(feature = "disksim"))]
criterion_group!(benches, speed, fixtures);
#[cfg(feature = "disksim")]
criterion_group!(benches, speed, fixtures, disksim);
criterion_main!(benches);
