//! Conformance of every registered broadcast schedule and client buffer (Waldvogel et al.).
//! They iterate the registry, so a newly registered plugin is covered automatically.

use proptest::prelude::*;
use vodbench_harness::plugin::*;
use vodbench_harness::system::broadcast::{receive, BroadcastError, ClientOutcome, Derived};
use vodbench_harness::time::{SimDuration, SimTime};

fn ctx(pages: u32) -> BuildContext<'static> {
    BuildContext::for_test()
        .with_seed(11)
        .with_terminals(1)
        .with_block_bytes(1000)
        .with_pages(pages)
}

fn schedules() -> Vec<(&'static str, Box<dyn BroadcastSchedule>)> {
    let reg = vodbench_plugins::registry();
    reg.names::<dyn BroadcastSchedule>()
        .into_iter()
        .map(|n| {
            let r = reg
                .resolve::<dyn BroadcastSchedule>(n, &toml::Table::new())
                .unwrap();
            (n, r.build(&ctx(0)).unwrap())
        })
        .collect()
}

/// The window property by brute force: every join instant, every frame.
fn every_join_receives_every_frame(s: &Schedule) -> Result<(), String> {
    let sp = *s.spec();
    for join in 1..=s.last_join() {
        for f in 0..sp.frames {
            let w = sp.window(f);
            match s.first_at_or_after(f, join) {
                Some(t) if t < join + w => {}
                other => {
                    return Err(format!(
                        "join {join}: frame {f} (window {w}) next sent at {other:?}"
                    ))
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_schedule_covers_every_join_instant_exhaustively() {
    for (name, sched) in schedules() {
        for (frames, delay, hint) in [(1, 1, 1), (12, 1, 3), (40, 3, 4), (90, 10, 7), (60, 25, 60)]
        {
            let period = frames + delay;
            let spec = ScheduleSpec {
                frames,
                delay,
                horizon: 3 * period + 5,
                chunk_hint: hint,
            };
            let s = sched.schedule(&spec).unwrap();
            every_join_receives_every_frame(&s)
                .unwrap_or_else(|e| panic!("{name} n={frames} w={delay}: {e}"));
            assert!(s.check_windows().is_ok(), "{name}: fast check disagrees");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Large movies: the window property (checked per frame chain, which the unit tests show
    /// equivalent to checking every join instant).
    #[test]
    fn every_schedule_keeps_the_window_property(
        frames in 100u32..20_000, delay in 1u32..2_000, hint in 1u32..300, extra in 0u32..5_000,
    ) {
        let spec = ScheduleSpec {
            frames,
            delay,
            horizon: frames + delay + extra + frames + delay,
            chunk_hint: hint,
        };
        for (name, sched) in schedules() {
            let s = sched.schedule(&spec).unwrap();
            prop_assert!(s.check_windows().is_ok(), "{} {:?}: {:?}", name, spec, s.check_windows());
        }
    }
}

/// Wraps a policy and records what the engine tells it, to check the engine's promises and
/// that every frame is played exactly once, in order.
struct Recorder {
    inner: Box<dyn ClientBuffer>,
    played: Vec<u32>,
    in_memory: std::collections::BTreeSet<u32>,
}

impl ClientBuffer for Recorder {
    fn batch_frames(&self) -> u32 {
        self.inner.batch_frames()
    }
    fn inserted(&mut self, f: u32) {
        assert!(self.in_memory.insert(f), "frame {f} inserted twice");
        self.inner.inserted(f);
    }
    fn removed(&mut self, f: u32, why: Removal) {
        assert!(
            self.in_memory.remove(&f),
            "frame {f} removed but not in memory"
        );
        if why == Removal::Played {
            self.played.push(f);
        }
        self.inner.removed(f, why);
    }
    fn played_direct(&mut self, f: u32) {
        self.played.push(f);
        self.inner.played_direct(f);
    }
    fn choose_victims(&mut self, cache: &CacheView<'_>, out: &mut Vec<u32>) {
        assert_eq!(cache.len() as usize, self.in_memory.len());
        self.inner.choose_victims(cache, out);
    }
    fn written(&mut self, e: ExtentId, frames: &[u32]) {
        self.inner.written(e, frames);
    }
    fn due_frame(&mut self, e: ExtentId, frames: &[u32]) -> u32 {
        self.inner.due_frame(e, frames)
    }
    fn choose_reads(&mut self, due: u32, e: ExtentId, room: u32, out: &mut Vec<ExtentId>) {
        self.inner.choose_reads(due, e, room, out);
    }
}

proptest! {
    // A fixed seed: CI checks the same 40 cases every time. Random seeds once found a bug
    // that one fixed seed missed (mcs overflowing its cache on a chunked schedule), now kept
    // as `issue6_mcs_stays_within_its_cache_when_chunked`.
    #![proptest_config(ProptestConfig {
        cases: 40,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0006),
        .. ProptestConfig::default()
    })]

    /// Every client buffer, on every schedule: every frame played exactly once and in order,
    /// nothing lost, everything written read back, memory within the cache.
    #[test]
    fn every_client_buffer_plays_every_frame_once_in_order(
        frames in 50u32..1_500, delay in 1u32..60, cache_share in 0.02f64..0.5,
        read_ahead in 0u32..6, join_seed in 0u32..10_000,
    ) {
        let reg = vodbench_plugins::registry();
        let cache = ((f64::from(frames) * cache_share) as u32).max(4 * (read_ahead + 2));
        let d = Derived {
            frames,
            delay,
            instant_ns: 33_333_333,
            frame_bytes: 1000,
            cache,
            read_ahead,
            sample: 10,
        };
        let period = frames + delay;
        let join = 1 + join_seed % period;
        for (sname, sched) in schedules() {
            // every policy with its defaults, and the radix heap's other reading
            let refile: toml::Table = toml::from_str("redistribute = \"refile\"").unwrap();
            let policies = reg
                .names::<dyn ClientBuffer>()
                .into_iter()
                .map(|n| (n, toml::Table::new()))
                .chain([("radix-heap", refile)]);
            for (bname, params) in policies {
                let b = reg.resolve::<dyn ClientBuffer>(bname, &params).unwrap();
                let inner = b.build(&ctx(cache)).unwrap();
                let spec = ScheduleSpec {
                    frames,
                    delay,
                    horizon: join.max(period) + period - 1,
                    chunk_hint: inner.batch_frames(),
                };
                let s = sched.schedule(&spec).unwrap();
                let mut rec = Recorder { inner, played: Vec::new(), in_memory: Default::default() };
                let dm = reg.resolve::<dyn DiskModel>("linear", &toml::Table::new()).unwrap();
                let mut disk = dm.build(&ctx(cache)).unwrap();
                let mut samples = Vec::new();
                let out = receive(d, &s, join, bname, &mut rec, "linear", disk.as_mut(), &mut samples)
                    .map_err(|e| TestCaseError::fail(format!("{sname}/{bname}: {e}")))?;
                prop_assert_eq!(out.frames_played, u64::from(frames), "{}/{}", sname, bname);
                prop_assert!(rec.played.iter().copied().eq(0..frames), "{}/{}: out of order", sname, bname);
                prop_assert!(rec.in_memory.is_empty());
                prop_assert_eq!(out.frames_read, out.frames_written, "{}/{}", sname, bname);
                prop_assert_eq!(out.bytes_read, out.frames_read * 1000, "{}/{}", sname, bname);
                prop_assert_eq!(out.memory_overflow_frames, 0, "{}/{}", sname, bname);
                prop_assert!(out.peak_memory_frames <= cache);
                prop_assert!(out.frames_cycled <= out.frames_spilled);
            }
        }
    }
}

/// One receiver on one schedule with one client buffer (no read-ahead, linear disk): the
/// outcome and the frames it played, in order.
fn receive_one(
    schedule: &str,
    buffer: &str,
    frames: u32,
    delay: u32,
    cache: u32,
    join: u32,
) -> (ClientOutcome, Vec<u32>) {
    receive_one_on(
        schedule,
        buffer,
        (frames, delay, cache, join),
        "linear",
        |d| d,
    )
    .unwrap()
}

/// [`receive_one`] with the `linear` disk model wrapped by `disk` and named `disk_name`.
fn receive_one_on(
    schedule: &str,
    buffer: &str,
    (frames, delay, cache, join): (u32, u32, u32, u32),
    disk_name: &str,
    disk: impl FnOnce(Box<dyn DiskModel>) -> Box<dyn DiskModel>,
) -> Result<(ClientOutcome, Vec<u32>), BroadcastError> {
    let reg = vodbench_plugins::registry();
    let d = Derived {
        frames,
        delay,
        instant_ns: 33_333_333,
        frame_bytes: 1000,
        cache,
        read_ahead: 0,
        sample: 10,
    };
    let sched = schedules()
        .into_iter()
        .find(|(n, _)| *n == schedule)
        .expect("the schedule is registered")
        .1;
    let b = reg
        .resolve::<dyn ClientBuffer>(buffer, &toml::Table::new())
        .unwrap();
    let inner = b.build(&ctx(cache)).unwrap();
    let spec = ScheduleSpec {
        frames,
        delay,
        horizon: join.max(frames + delay) + frames + delay - 1,
        chunk_hint: inner.batch_frames(),
    };
    let s = sched.schedule(&spec).unwrap();
    let mut rec = Recorder {
        inner,
        played: Vec::new(),
        in_memory: Default::default(),
    };
    let dm = reg
        .resolve::<dyn DiskModel>("linear", &toml::Table::new())
        .unwrap();
    let mut disk = disk(dm.build(&ctx(cache)).unwrap());
    let mut samples = Vec::new();
    let out = receive(
        d,
        &s,
        join,
        buffer,
        &mut rec,
        disk_name,
        disk.as_mut(),
        &mut samples,
    )?;
    Ok((out, rec.played))
}

/// A disk model that promises, as its `service_bound`, half of what its accesses take.
struct Optimist(Box<dyn DiskModel>);

impl DiskModel for Optimist {
    fn geometry(&self) -> DiskGeometry {
        self.0.geometry()
    }
    fn cylinder_of(&self, offset: u64) -> u32 {
        self.0.cylinder_of(offset)
    }
    fn head_cylinder(&self) -> u32 {
        self.0.head_cylinder()
    }
    fn service(&mut self, a: &DiskAccess, now: SimTime) -> ServiceTime {
        self.0.service(a, now)
    }
    fn service_bound(&self, a: &DiskAccess) -> SimDuration {
        SimDuration::from_nanos(self.0.service_bound(a).as_nanos() / 2)
    }
}

/// The receiver plans its read-backs on the disk model's `service_bound`: a model whose
/// accesses take longer than it promised would make frames late against a plan that counted
/// them on time, so the run stops with the model named (the case of issue 6's regression
/// below, which writes and reads back).
#[test]
fn a_disk_model_slower_than_its_own_service_bound_breaks_its_contract() {
    let case = (62, 2, 8, 16);
    let e = receive_one_on("fuzzycast", "radix-heap", case, "optimist", |d| {
        Box::new(Optimist(d))
    })
    .unwrap_err();
    let BroadcastError::Contract(b) = &e else {
        panic!("not a broken contract: {e}")
    };
    assert_eq!(
        (b.kind, b.name.as_str()),
        ("receiver.disk", "optimist"),
        "{e}"
    );
    assert!(
        b.detail.contains("longer than its service_bound"),
        "{}",
        b.detail
    );
    assert!(
        e.to_string()
            .starts_with("plugin `optimist` broke its contract: served a write of "),
        "{e}"
    );
    // the honest model it wraps runs the same case through
    assert!(receive_one_on("fuzzycast", "radix-heap", case, "linear", |d| d).is_ok());
}

/// Regression (issue 6): proptest's minimal case (62 frames, delay 2, cache 8 frames, no
/// read-ahead, join at instant 16). The radix heap read back a whole bucket — more frames
/// than its cache — writing back what it had just read, and overflowed the cache by 9.
#[test]
fn issue6_radix_heap_stays_within_its_cache_under_fuzzycast() {
    let (frames, delay, cache, join) = (62u32, 2u32, 8u32, 16u32);
    let (out, played) = receive_one("fuzzycast", "radix-heap", frames, delay, cache, join);
    assert_eq!(out.frames_played, u64::from(frames));
    assert!(played.iter().copied().eq(0..frames));
    assert_eq!(out.memory_overflow_frames, 0);
    assert!(out.peak_memory_frames <= cache);
    assert_eq!(out.frames_read, out.frames_written);
}

/// One receiver with client buffer `buffer` (parameters `params`, memory `d.cache` frames)
/// joining an IDEAL schedule at `join`, its disk the paper's `linear` model.
fn receive_ideal_linear(
    d: Derived,
    buffer: &str,
    params: &toml::Table,
    join: u32,
) -> ClientOutcome {
    let reg = vodbench_plugins::registry();
    let mut buffer_plugin = reg
        .resolve::<dyn ClientBuffer>(buffer, params)
        .unwrap()
        .build(&ctx(d.cache))
        .unwrap();
    let spec = ScheduleSpec {
        frames: d.frames,
        delay: d.delay,
        horizon: join + d.frames + d.delay - 1,
        chunk_hint: buffer_plugin.batch_frames(),
    };
    let s = reg
        .resolve::<dyn BroadcastSchedule>("ideal", &toml::Table::new())
        .unwrap()
        .build(&ctx(0))
        .unwrap()
        .schedule(&spec)
        .unwrap();
    let mut disk = reg
        .resolve::<dyn DiskModel>("linear", &toml::Table::new())
        .unwrap()
        .build(&ctx(d.cache))
        .unwrap();
    receive(
        d,
        &s,
        join,
        buffer,
        buffer_plugin.as_mut(),
        "linear",
        disk.as_mut(),
        &mut Vec::new(),
    )
    .unwrap()
}

/// Regression (issue 6): MCS with a large batch in a small cache — the Fig. 6 sweep at
/// κ ≥ 4 % of C, C = 0.5 % — ran away. Reads were planned from the disk's backlog, so a busy
/// disk made the receiver read (and pin) ever earlier, forcing more writes and a longer
/// backlog; and the most compact run was just past the read-ahead window, so every write came
/// straight back. The paper's curves are smooth there (I/O ≈ 15–20 % of playout).
#[test]
fn issue6_mcs_large_kappa_does_not_thrash() {
    let (frames, delay, cache) = (100_000u32, 900u32, 500u32);
    let d = Derived {
        frames,
        delay,
        instant_ns: 33_333_333,
        frame_bytes: 1000, // = ctx().block_bytes: the linear disk counts frames by it
        cache,
        read_ahead: 30,
        sample: 1000,
    };
    for kappa in ["4%", "6%", "10%"] {
        let mut params = toml::Table::new();
        params.insert("kappa".into(), toml::Value::String(kappa.into()));
        let out = receive_ideal_linear(d, "mcs", &params, frames + delay + 1234);
        let ratio = out.io_time_ratio();
        assert!(ratio < 0.3, "κ = {kappa}: I/O {ratio:.3} of playout");
        // The disk finishes its last access within seconds of the last playout.
        assert!(
            out.disk_busy_until_ns < out.playout_ns + 10_000_000_000,
            "κ = {kappa}: disk busy until {} ns, playout {} ns",
            out.disk_busy_until_ns,
            out.playout_ns
        );
        // Still open: at κ = 10 % some frames are late at start-up (the first reads after the
        // initial delay come in a burst), so the bound on glitches holds up to 6 % only.
        if kappa != "10%" {
            assert!(
                out.glitches < u64::from(frames) / 100,
                "κ = {kappa}: {} glitches",
                out.glitches
            );
        }
    }
}

/// Regression for a second bug (issue 6), found by random proptest seeds: MCS on a chunked
/// schedule overflowed its memory cache by 4 frames (517 frames, delay 9, cache 2 % =
/// 10 frames, no read-ahead, join at 1 + 4485 % 526).
#[test]
fn issue6_mcs_stays_within_its_cache_when_chunked() {
    let (frames, delay) = (517u32, 9u32);
    let cache = ((f64::from(frames) * 0.02) as u32).max(8);
    let join = 1 + 4485 % (frames + delay);
    let (out, _) = receive_one("chunked", "mcs", frames, delay, cache, join);
    assert_eq!(out.frames_played, u64::from(frames));
    assert_eq!(out.memory_overflow_frames, 0);
}

/// The paper's two-hour movie (216,000 frames at 30/s, 30 s delay, 1 s read-ahead) for one
/// receiver with a memory cache of `cache` frames.
fn two_hour_movie(cache: u32) -> Derived {
    Derived {
        frames: 216_000,
        delay: 900,
        instant_ns: 33_333_333,
        frame_bytes: 1000,
        cache,
        read_ahead: 31,
        sample: 1000,
    }
}

/// Regression (issue 6): read-backs planned with a fixed lead came due in bursts that the
/// disk could not serve in time although it was busy only a fifth of the playout time: MDP
/// at C = 2 % of a two-hour movie (κ = 2.5 % of C, IDEAL, 1 s read-ahead) played hundreds of
/// frames late. Planning the reads backwards from their deadlines, after the disk's queued
/// work, reads them early enough.
#[test]
fn issue6_mdp_reads_back_in_time_when_the_disk_has_spare_capacity() {
    let d = two_hour_movie(4_320);
    let (frames, delay) = (d.frames, d.delay);
    let period = frames + delay;
    let mut glitches = Vec::new();
    for join in [period + 1234, period + 98_765] {
        let out = receive_ideal_linear(d, "mdp", &toml::Table::new(), join);
        assert!(out.io_time_ratio() < 0.3, "I/O {:.3}", out.io_time_ratio());
        assert_eq!(out.memory_overflow_frames, 0);
        glitches.push(out.glitches);
    }
    assert_eq!(glitches, [0, 0], "late frames per join");
}

/// Issue 6, Fig. 7: the paper's baseline is a radix heap that writes buckets out only when
/// memory is full. A textbook radix heap cannot move frames it has not read, so a bucket on
/// disk is read back when it becomes the minimum and its frames, redistributed into lower
/// buckets, are written again as memory fills — once per level they descend. That re-reading
/// (`redistribute = "read"`, the default) is what costs the paper's ≈ 40 % at C = 1 %; re-filing
/// the extents unread (`"refile"`) writes each spilled frame far fewer times.
#[test]
fn issue6_textbook_radix_heap_reads_each_bucket_when_it_becomes_the_minimum() {
    let d = two_hour_movie(2_160);
    let (frames, delay) = (d.frames, d.delay);
    let join = frames + delay + 1234;
    let read = receive_ideal_linear(d, "radix-heap", &toml::Table::new(), join);
    let refile: toml::Table = toml::from_str("redistribute = \"refile\"").unwrap();
    let refile = receive_ideal_linear(d, "radix-heap", &refile, join);
    let mut kappa = toml::Table::new();
    kappa.insert("kappa".into(), toml::Value::String("2.5%".into()));
    let mcs = receive_ideal_linear(d, "mcs", &kappa, join);
    let per_spilled = |o: &ClientOutcome| o.frames_written as f64 / o.frames_spilled as f64;
    for o in [&read, &refile, &mcs] {
        assert_eq!(o.frames_played, u64::from(frames));
        assert_eq!(o.frames_read, o.frames_written);
        assert_eq!(o.memory_overflow_frames, 0);
    }
    assert!(
        per_spilled(&read) > 2.5,
        "textbook: {:.2}",
        per_spilled(&read)
    );
    assert!(
        per_spilled(&refile) < 2.0,
        "refile: {:.2}",
        per_spilled(&refile)
    );
    assert!(
        (0.30..0.45).contains(&read.io_time_ratio()),
        "textbook I/O {:.3} of playout (paper ≈ 0.40)",
        read.io_time_ratio()
    );
    assert!(
        read.io_time_ratio() > 2.0 * mcs.io_time_ratio(),
        "MCS {:.3} vs textbook radix heap {:.3}: the paper's factor of two",
        mcs.io_time_ratio(),
        read.io_time_ratio()
    );
}

/// Regression (found by fuzzing scenario files): a cache of 5 frames at 240 frames/s, where
/// one read-back with the writes that make room for it (the `linear` disk's 10 ms + 2 ms per
/// frame) takes three instants. Each read made room by writing out frames due within that
/// lead, which the plan read straight back in the same instant, writing out others: the
/// receiver never left its instant. Now an extent is not read back in the instant that wrote
/// it; the overloaded disk shows as glitches, and every frame is still played once.
#[test]
fn a_cache_too_small_for_the_disks_lead_ends_with_glitches_not_a_livelock() {
    let (frames, delay, cache) = (100u32, 240u32, 5u32);
    let d = Derived {
        frames,
        delay,
        instant_ns: 4_166_666,
        frame_bytes: 1000, // = ctx().block_bytes: the linear disk counts frames by it
        cache,
        read_ahead: 0,
        sample: 10,
    };
    let mut glitches = 0;
    for buffer in ["mdp", "mcs", "optimum", "radix-heap"] {
        for join in [1, 60, 170, 300] {
            let out = receive_ideal_linear(d, buffer, &toml::Table::new(), join);
            assert_eq!(
                out.frames_played,
                u64::from(frames),
                "{buffer}, join {join}"
            );
            assert_eq!(out.frames_read, out.frames_written, "{buffer}, join {join}");
            assert_eq!(out.memory_overflow_frames, 0, "{buffer}, join {join}");
            glitches += out.glitches;
        }
    }
    assert!(glitches > 0, "the disk cannot keep up with every join");
}
