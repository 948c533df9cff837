//! Requests per second of the disk models on DiskSim's speed workload (issue 3):
//! 200,000 random reads of 64–512 KB (uniform in 4 KB steps, 4 KB aligned) over the whole
//! disk, Poisson arrivals at about 70 % utilisation (mean interarrival = closed-loop mean
//! service time / 0.7), served first come first served.
//!
//! `cargo run --release -p vodbench-plugins --example disk_speed [DISK ...]`
//!
//! DiskSim 4.0 (-O2) replays this workload at 2,927 requests/s (barracuda), 2,135
//! (cheetah9LP) and 7,603 (hp_c2247a) on the reference machine.

use rand::{Rng, SeedableRng};
use std::time::Instant;
use vodbench_plugins::disk_model::mechanical::Mechanical;

fn main() {
    let mut disks: Vec<String> = std::env::args().skip(1).collect();
    if disks.is_empty() {
        disks = vec!["barracuda".into(), "cheetah9LP".into(), "hp_c2247a".into()];
    }
    println!("disk\trequests\twall_s\trequests_per_s\tmean_response_ms");
    for name in disks {
        let mut m = Mechanical::bundled(&name, None).expect("bundled disk");
        let blocks = m.disk().layout.blocks;
        let mut rng = rand::rngs::StdRng::seed_from_u64(2927);
        let req = |rng: &mut rand::rngs::StdRng| {
            let n = 8 * rng.random_range(16..=128u64);
            let lbn = 8 * rng.random_range(0..=(blocks - n) / 8);
            (lbn, n)
        };
        // closed-loop mean service time, for the arrival rate
        let d = m.disk_mut();
        let (mut t, k) = (0u64, 2_000u64);
        for _ in 0..k {
            let (lbn, n) = req(&mut rng);
            t = d.serve(lbn, n, false, t).completion;
        }
        let mean_interarrival = t as f64 / k as f64 / 0.7;
        let n_req = 200_000;
        let trace: Vec<(u64, u64, u64)> = {
            let mut at = 0.0f64;
            (0..n_req)
                .map(|_| {
                    let u: f64 = rng.random_range(f64::EPSILON..1.0);
                    at += -u.ln() * mean_interarrival;
                    let (lbn, n) = req(&mut rng);
                    (at as u64, lbn, n)
                })
                .collect()
        };
        let mut m = Mechanical::bundled(&name, None).expect("bundled disk");
        let d = m.disk_mut();
        let start = Instant::now();
        let (mut free, mut total) = (0u64, 0u64);
        for &(arrival, lbn, n) in &trace {
            let b = d.serve(lbn, n, false, arrival.max(free));
            free = b.completion;
            total += free - arrival;
        }
        let wall = start.elapsed().as_secs_f64();
        println!(
            "{name}\t{n_req}\t{wall:.3}\t{:.0}\t{:.6}",
            n_req as f64 / wall,
            total as f64 / n_req as f64 / 1e9
        );
    }
}
