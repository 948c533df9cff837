//! `terminals.prime`: how much a terminal buffers before display starts (SPIFFI §5.1 primes the
//! whole buffer; a smaller prime starts sooner). A prime smaller than a frame still waits for
//! the whole first frame: display cannot start without it.
//!
//! Hand-worked case: one disk, 4 KiB stripe blocks, CBR video at 4 Mbit/s and 30 frames/s, so
//! a frame is 16,666 or 16,667 bytes and the first frame is whole once five blocks (20,480
//! bytes) have arrived; a sixth block is needed for 20,481 bytes.

use vodbench_harness::results::Summary;
use vodbench_harness::system::ondemand::scenario::Scenario;
use vodbench_harness::system::ondemand::simulate;

fn run(prime: Option<&str>) -> Summary {
    let line = prime.map_or(String::new(), |p| format!("prime = \"{p}\""));
    let text = format!(
        r#"
seed = 5
[run]
warmup = "0s"
duration = "20s"
[videos]
count = 1
length = "10s"
bit_rate = "4Mbit/s"
frames = "cbr"
[server]
nodes = 1
disks_per_node = 1
memory_per_node = "1MiB"
stripe = "4KiB"
[disk.model]
name = "analytic"
spec = "st15150n"
[prefetcher]
name = "none"
[terminals]
count = 1
memory = "256KiB"
{line}
[workload.generate]
start_spread = "0s"
"#
    );
    let registry = vodbench_plugins::registry();
    let s = Scenario::parse(&text, std::path::Path::new("priming.toml"), &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    let events =
        vodbench_harness::system::ondemand::runner::workload(&s).unwrap_or_else(|e| panic!("{e}"));
    simulate(&s, &events, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("prime {prime:?}: {e}"))
        .summary
}

/// A prime of one byte used to start display before the first frame had arrived: the frame
/// glitched at once, the terminal re-primed at once, and simulated time never advanced (the
/// run failed with "simulation made no progress"). Found by fuzzing scenarios.
#[test]
fn issue2_a_prime_smaller_than_a_frame_waits_for_the_whole_first_frame() {
    let one_byte = run(Some("1B"));
    let one_frame = run(Some("16667B"));
    let one_byte_more = run(Some("20481B"));
    for s in [&one_byte, &one_frame, &one_byte_more] {
        assert_eq!(s.glitches.count, 0, "{:?}", s.glitches);
        assert!(s.startup_latency.count >= 1, "{:?}", s.startup_latency);
    }
    // the first frame decides: one byte and one whole frame start display at the same instant
    assert_eq!(
        one_byte.startup_latency.max_ns,
        one_frame.startup_latency.max_ns
    );
    // one byte past the fifth block waits for the sixth
    assert!(one_byte_more.startup_latency.max_ns > one_frame.startup_latency.max_ns);
    // priming the whole buffer (the default) waits longest
    let whole = run(None);
    assert!(whole.startup_latency.max_ns > one_byte_more.startup_latency.max_ns);
}
