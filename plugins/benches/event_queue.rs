//! Events per second of the engine's event queue under the hold model (issue 33, item 6):
//! `pending` events wait and each pop schedules one, at 10², 10³, 10⁴ and 10⁵ pending, on the
//! engine's radix heap (`radix`) and on a bare `std::collections::BinaryHeap` of the same
//! events (`binary-heap`). Target: the engine's queue at least half as fast as the bare heap.
//!
//! Each iteration fills the queue with `pending` events and then pops 20 times as many
//! (at least 200,000), so the filling is a small part of it.
//!
//! `cargo bench --bench event_queue` (criterion reports `thrpt` in events/s: one event is
//! one pop and the schedule it makes).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use vodbench_harness::system::ondemand::hold::{hold_heap, hold_queue};

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("hold");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for pending in [100usize, 1_000, 10_000, 100_000] {
        let pops = (20 * pending as u64).max(200_000);
        g.throughput(Throughput::Elements(pops));
        g.bench_with_input(BenchmarkId::new("radix", pending), &pending, |b, &n| {
            b.iter(|| hold_queue(black_box(n), pops, 1))
        });
        g.bench_with_input(
            BenchmarkId::new("binary-heap", pending),
            &pending,
            |b, &n| b.iter(|| hold_heap(black_box(n), pops, 1)),
        );
    }
    g.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
