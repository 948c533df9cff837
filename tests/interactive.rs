//! Fast-forward/rewind searches (SPIFFI §8.1) and piggybacking (SPIFFI §8.2) on hand-worked
//! cases: one disk, CBR videos at 4 Mbit/s (500 000 bytes a second) and 500 000-byte stripe
//! blocks, so one second of video is exactly one block, and terminals of four blocks.

use vodbench_harness::ids::{TerminalId, VideoId};
use vodbench_harness::results::Summary;
use vodbench_harness::system::ondemand::scenario::Scenario;
use vodbench_harness::system::ondemand::simulate;
use vodbench_harness::time::{SimDuration, SimTime};
use vodbench_harness::trace::{EventKind, TraceEvent};

const BLOCK: u64 = 500_000;

fn scenario(length_s: u32, terminals: u32, extra: &str) -> Scenario {
    parse(&scenario_text(length_s, terminals, extra))
}

fn parse(text: &str) -> Scenario {
    let registry = vodbench_plugins::registry();
    Scenario::parse(text, std::path::Path::new("interactive.toml"), &registry)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn scenario_text(length_s: u32, terminals: u32, extra: &str) -> String {
    format!(
        r#"
seed = 3
[run]
warmup = "0s"
duration = "10min"
[videos]
count = 2
length = "{length_s}s"
bit_rate = "4Mbit/s"
frames = "cbr"
[server]
nodes = 1
disks_per_node = 1
memory_per_node = "8MiB"
stripe = {BLOCK}
[disk.model]
name = "analytic"
spec = "st15150n"
[prefetcher]
name = "none"
[terminals]
count = {terminals}
memory = {memory}
[workload.generate]
{extra}
"#,
        memory = 4 * BLOCK
    )
}

/// `(time_ms, terminal, kind, position_s)` for video 0.
fn events(list: &[(u64, u32, EventKind, u64)]) -> Vec<TraceEvent> {
    list.iter()
        .map(|&(ms, t, kind, pos)| TraceEvent {
            time: SimTime::from_nanos(ms * 1_000_000),
            terminal: TerminalId(t),
            kind,
            video: VideoId(0),
            position: SimDuration::from_secs(pos),
        })
        .collect()
}

fn run(s: &Scenario, ev: &[TraceEvent]) -> Summary {
    let r = simulate(s, ev, &mut |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    let c = &r.summary.conservation;
    assert_eq!(
        c.requests_issued,
        c.requests_delivered + c.requests_in_system
    );
    assert_eq!(
        c.received_bytes,
        c.consumed_bytes + c.discarded_bytes + c.buffered_bytes
    );
    r.summary
}

use EventKind::*;

#[test]
fn issue4_skip_search_reads_only_the_shown_segments() {
    // A one-minute video, fast-forward from the start right away: segments at 8, 16, …,
    // 56 s are read (one block each) and shown for 1 s; the next would start at 64 s, past
    // the end, so the video ends and the later stop is ignored. The four blocks the start
    // asked for are read and dropped.
    let s = scenario(60, 1, "");
    let sum = run(
        &s,
        &events(&[
            (1000, 0, Start, 0),
            (1000, 0, FastForward, 0),
            (100_000, 0, Stop, 0),
        ]),
    );
    let search = sum.search.expect("search summary");
    assert_eq!(search.searches, 1);
    assert_eq!(search.segments_shown, 7);
    assert_eq!(search.search_version_bytes, 0);
    let c = &sum.conservation;
    assert_eq!(c.requests_issued, 4 + 7);
    assert_eq!(c.consumed_bytes, 7 * BLOCK);
    assert_eq!(c.discarded_bytes, 4 * BLOCK);
    assert_eq!(sum.events_ignored, 1);
    assert_eq!(sum.glitches.count, 0);
}

#[test]
fn issue4_skip_rewind_at_the_start_resumes_from_there() {
    // Start 20 s in and rewind at once: segments at 12, 4 and 0 s, then normal play from 0
    // to the end (60 blocks); the resume that follows finds it playing and is ignored.
    let s = scenario(60, 1, "");
    let sum = run(
        &s,
        &events(&[
            (1000, 0, Start, 20),
            (1000, 0, Rewind, 0),
            (200_000, 0, Resume, 0),
        ]),
    );
    assert_eq!(sum.search.unwrap().segments_shown, 3);
    let c = &sum.conservation;
    assert_eq!(c.requests_issued, 4 + 3 + 60);
    assert_eq!(c.consumed_bytes, 3 * BLOCK + 60 * BLOCK);
    assert_eq!(c.discarded_bytes, 4 * BLOCK);
    assert_eq!(sum.events_ignored, 1);
}

#[test]
fn issue4_skip_search_resume_plays_from_the_position_reached() {
    // ff from 10 s at 1 s, resume at 4.5 s: segments at 18 s and 26 s have been read; the
    // second is being shown or read. Normal play then continues from 26 s + what was shown.
    let s = scenario(60, 1, "");
    let sum = run(
        &s,
        &events(&[
            (1000, 0, Start, 10),
            (1000, 0, FastForward, 0),
            (4500, 0, Resume, 0),
        ]),
    );
    let search = sum.search.unwrap();
    assert!((3..=4).contains(&search.segments_shown), "{search:?}");
    let c = &sum.conservation;
    // consumed: whole segments, part of the last one, and the rest of the video from there:
    // bytes from the position reached to the end plus the bytes shown while searching
    let shown = search.segments_shown * BLOCK;
    assert!(c.consumed_bytes > shown, "{c:?}");
    // never more than the whole video after the first segment plus the segments
    assert!(c.consumed_bytes <= shown + (60 - 18) * BLOCK, "{c:?}");
    assert_eq!(sum.events_ignored, 0);
}

fn version() -> Scenario {
    scenario(80, 1, "[interactive]\nsearch = \"version\"\nspeedup = 8\n")
}

#[test]
fn issue4_search_versions_take_disk_space_and_map_positions() {
    // 80-s videos, speed-up 8: 10-s versions (10 blocks). ff from 40 s (frame 1 200) starts
    // the ff version at frame 150 (block 5) and plays its 5 remaining blocks; then the ff
    // version ends, and with it the video.
    let s = version();
    let sum = run(
        &s,
        &events(&[(1000, 0, Start, 40), (1000, 0, FastForward, 0)]),
    );
    let search = sum.search.unwrap();
    assert_eq!(search.video_bytes, 2 * 80 * BLOCK);
    assert_eq!(search.search_version_bytes, 2 * 2 * 10 * BLOCK);
    assert_eq!(search.segments_shown, 0);
    let c = &sum.conservation;
    assert_eq!(c.requests_issued, 4 + 5);
    assert_eq!(c.consumed_bytes, 5 * BLOCK);
    // rewind from 40 s: the rewind version from frame (2 400 − 1 200) / 8 = 150, to its end,
    // which is the movie's start: normal play from 0 (80 blocks)
    let sum = run(&s, &events(&[(1000, 0, Start, 40), (1000, 0, Rewind, 0)]));
    let c = &sum.conservation;
    assert_eq!(c.requests_issued, 4 + 5 + 80);
    assert_eq!(c.consumed_bytes, 5 * BLOCK + 80 * BLOCK);
    assert_eq!(sum.glitches.count, 0);
}

#[test]
fn issue4_resume_from_a_search_version_maps_back() {
    // ff from 40 s at 1 s, resume at 4 s: r frames of the ff version were shown (from frame
    // 150), and normal play resumes at movie frame 8·r' where r' = 150 + r, to the end.
    // Consumed bytes = version bytes [150, r') + movie bytes [8·r', 2 400): exactly one r'
    // in the plausible range must give the measured total.
    let s = version();
    let sum = run(
        &s,
        &events(&[
            (1000, 0, Start, 40),
            (1000, 0, FastForward, 0),
            (4000, 0, Resume, 0),
        ]),
    );
    let off = |f: u64| f * 4_000_000 / 240; // CBR offset of frame f
    let consumed = sum.conservation.consumed_bytes;
    let fits: Vec<u64> = (150..=240)
        .filter(|&r| off(r) - off(150) + off(2400) - off(8 * r) == consumed)
        .collect();
    assert_eq!(fits.len(), 1, "consumed {consumed}: {fits:?}");
    // the version played for about 3 s less its priming
    assert!((150 + 60..=150 + 90).contains(&fits[0]), "{fits:?}");
}

#[test]
fn issue4_search_versions_need_room_on_the_disks() {
    // 100 one-hour videos (180 GB) fit a disk of 200 GB; with versions at speed-up 2 they
    // take twice as much (an ff and a rewind version, each half the length)
    let text = scenario_text(3600, 1, "")
        .replace("count = 2\n", "count = 100\n")
        .replace(
            "spec = \"st15150n\"",
            "spec = \"st15150n\"\ncapacity = \"200GB\"",
        );
    let ev = events(&[(1000, 0, Start, 0)]);
    assert!(simulate(&parse(&text), &ev, &mut |_, _| {}).is_ok());
    let s = parse(&format!(
        "{text}\n[interactive]\nsearch = \"version\"\nspeedup = 2\n"
    ));
    let e = simulate(&s, &ev, &mut |_, _| {}).unwrap_err().to_string();
    assert!(
        e.contains("layout") && e.contains("search = \"version\""),
        "{e}"
    );
}

fn scenario_pb(terminals: u32, delay: Option<&str>) -> Scenario {
    let extra = match delay {
        Some(d) => format!("[piggyback]\ndelay = \"{d}\"\n"),
        None => String::new(),
    };
    scenario(60, terminals, &extra)
}

#[test]
fn issue4_piggyback_members_add_no_load_and_late_requests_start_a_new_group() {
    // delay 30 s: terminal 0 asks at 1 s (group opens, starts at 31 s), terminal 1 at 11 s
    // joins it; terminal 2 asks at 41 s, after the group started: a group of its own (alone).
    let ev = events(&[
        (1000, 0, Start, 0),
        (11_000, 1, Start, 0),
        (41_000, 2, Start, 0),
    ]);
    let sum = run(&scenario_pb(3, Some("30s")), &ev);
    let p = sum.piggyback.clone().unwrap();
    assert_eq!(p.groups_formed, 1);
    assert_eq!(p.members_joined, 1);
    assert_eq!(p.streams_saved, 1);
    assert_eq!(p.wait.count, 3);
    assert_eq!(p.wait.mean_ns, (30 + 20 + 30) * 1_000_000_000 / 3);
    // the group reads the video once, terminal 2 once: two videos' worth, not three
    assert_eq!(sum.conservation.received_bytes, 2 * 60 * BLOCK);
    assert_eq!(sum.conservation.consumed_bytes, 2 * 60 * BLOCK);
    // start-up latency includes the wait
    assert_eq!(sum.startup_latency.count, 3);
    assert!(sum.startup_latency.mean_ns > (30 + 20 + 30) * 1_000_000_000 / 3);
    // terminal 1 adds nothing: the same disk work as terminal 0 and 2 alone
    let alone = run(
        &scenario_pb(3, Some("30s")),
        &events(&[(1000, 0, Start, 0), (41_000, 2, Start, 0)]),
    );
    assert_eq!(alone.disks.requests, sum.disks.requests);
    assert_eq!(alone.piggyback.unwrap().groups_formed, 0);
    // without piggybacking each terminal reads the whole video
    let none = run(&scenario_pb(3, None), &ev);
    assert_eq!(none.conservation.received_bytes, 3 * 60 * BLOCK);
    assert!(none.piggyback.is_none());
    assert!(none.startup_latency.mean_ns < 1_000_000_000);
}

#[test]
fn issue4_terminals_waiting_the_whole_measured_period_are_reported_as_never_displayed() {
    // a 20-min delay, longer than the whole run: the group never starts
    let text = scenario_text(60, 3, "[piggyback]\ndelay = \"20min\"\n")
        .replace("warmup = \"0s\"", "warmup = \"5s\"");
    let ev = events(&[
        (1000, 0, Start, 0),
        (2000, 1, Start, 0),
        (6000, 2, Start, 0),
    ]);
    let sum = run(&parse(&text), &ev);
    assert_eq!(sum.glitches.count, 0);
    assert_eq!(sum.startup_latency.count, 0);
    // terminals 0 and 1 asked before the measured period (from 5 s), terminal 2 within it
    assert_eq!(sum.glitches.never_displayed, 2);
    // with a 30-s delay all three are served
    let served = run(&parse(&text.replace("20min", "30s")), &ev);
    assert_eq!(served.glitches.never_displayed, 0);
    assert_eq!(served.startup_latency.count, 3);
}

#[test]
fn issue4_piggyback_member_that_pauses_continues_alone() {
    // terminals 0 and 1 form a group (delay 10 s, start at 11 s); terminal 1 pauses at 21 s
    // for 5 s: it leaves and re-primes at the group's position on its own; the group (now
    // terminal 0 alone) plays on. Terminal 1 reads the rest of the video itself.
    let ev = events(&[
        (1000, 0, Start, 0),
        (2000, 1, Start, 0),
        (21_000, 1, Pause, 0),
        (26_000, 1, Resume, 0),
    ]);
    let sum = run(&scenario_pb(2, Some("10s")), &ev);
    assert_eq!(sum.piggyback.unwrap().groups_formed, 1);
    assert_eq!(sum.events_ignored, 0);
    let c = &sum.conservation;
    // the stream reads the whole video; terminal 1 about 50 s of it (from ~10 s in)
    let own = c.received_bytes - 60 * BLOCK;
    assert!((45 * BLOCK..=52 * BLOCK).contains(&own), "{c:?}");
    // a member that stops leaves, and the stream stops when no one watches
    let ev = events(&[
        (1000, 0, Start, 0),
        (2000, 1, Start, 0),
        (21_000, 0, Stop, 0),
        (22_000, 1, Stop, 0),
    ]);
    let sum = run(&scenario_pb(2, Some("10s")), &ev);
    assert!(
        sum.conservation.received_bytes < 20 * BLOCK,
        "{:?}",
        sum.conservation
    );
    assert_eq!(sum.events_ignored, 0);
}

#[test]
fn issue4_piggyback_delay_depends_on_popularity() {
    // only the most popular video is delayed: requests for video 1 start at once
    let mut s = scenario_pb(2, Some("30s"));
    s.file.piggyback.as_mut().unwrap().most_popular = Some(1);
    let mut ev = events(&[(1000, 0, Start, 0), (2000, 1, Start, 0)]);
    ev[1].video = VideoId(1);
    let sum = run(&s, &ev);
    let p = sum.piggyback.unwrap();
    assert_eq!(p.wait.count, 1);
    assert_eq!(p.groups_formed, 0);
}

#[test]
fn issue4_a_stream_glitch_is_a_glitch_for_every_member() {
    // 200 Mbit/s from one disk: more than it can deliver, so the stream glitches. A group of
    // two (terminals 0 and 1) and terminal 0 alone start at the same instant and read the
    // same blocks at the same times: the group counts each glitch and stall twice.
    let text = |extra: &str| {
        scenario_text(60, 2, extra).replace("bit_rate = \"4Mbit/s\"", "bit_rate = \"200Mbit/s\"")
    };
    let s = parse(&text("[piggyback]\ndelay = \"10s\"\n"));
    let alone = run(&s, &events(&[(1000, 0, Start, 0)]));
    let group = run(&s, &events(&[(1000, 0, Start, 0), (2000, 1, Start, 0)]));
    assert!(alone.glitches.count > 0, "{:?}", alone.glitches);
    assert_eq!(group.glitches.count, 2 * alone.glitches.count);
    assert_eq!(group.glitches.stalled_ns, 2 * alone.glitches.stalled_ns);
    assert_eq!(group.glitches.terminals_affected, 2);
    assert_eq!(group.disks.requests, alone.disks.requests);
}

#[test]
fn issue4_skip_search_hints_make_the_prefetcher_read_the_next_segment() {
    // Start 100 s into a two-minute video and rewind at once: segments at 92, 84, …, 4 and
    // 0 s, one block each, then normal play from the start. With the standard prefetcher
    // (one block ahead on the one disk), a terminal without hints makes the server read
    // ahead into the video the rewind just skipped; with hints, into the segment it shows
    // next, so those segments' reads find their block already read or being read.
    let text = |hints: bool| {
        scenario_text(120, 1, &format!("[interactive]\nhints = {hints}\n")).replace(
            "[prefetcher]\nname = \"none\"",
            "[prefetcher]\nname = \"standard\"",
        )
    };
    let ev = events(&[(1000, 0, Start, 100), (1000, 0, Rewind, 0)]);
    let with = run(&parse(&text(true)), &ev);
    let without = run(&parse(&text(false)), &ev);
    for sum in [&with, &without] {
        assert_eq!(sum.search.as_ref().unwrap().segments_shown, 13);
        assert_eq!(sum.glitches.count, 0);
    }
    let (w, wo) = (&with.buffer_pool, &without.buffer_pool);
    assert_eq!(without.search.as_ref().unwrap().prefetch_hints, 0);
    assert!(with.search.as_ref().unwrap().prefetch_hints >= 12);
    assert!(w.misses + 10 <= wo.misses, "{} vs {}", w.misses, wo.misses);
    // read ahead into skipped video: evicted unreferenced, then read again when normal play
    // from the start reaches it
    assert_eq!((w.prefetches_wasted, w.prefetches_reread), (0, 0), "{w:?}");
    assert!(wo.prefetches_wasted >= 10, "{wo:?}");
}

/// Pausing and resuming faster than a frame lasts keeps the position within the frame
/// (issue 49, item 11): a viewing with many sub-frame pause/resume pairs has played, when
/// it stops, the time it was not paused — not a frame per pair. Several patterns
/// (pause lengths and spacings of a few milliseconds at 30 frames a second, 33.3 ms each);
/// each run must show the frames its playing time holds, within a frame (the CBR frames'
/// sizes are rounded to bytes).
#[test]
fn issue49_sub_frame_pauses_play_for_the_length_plus_the_paused_time() {
    let text = scenario_text(40, 1, "").replace("duration = \"10min\"", "duration = \"14s\"");
    let s = parse(&text);
    let frame_bytes = 500_000.0 / 30.0;
    // (first pause at ms, pause length ms, spacing ms, pairs)
    for (from, pause, every, pairs) in [
        (3_000u64, 2u64, 10u64, 300u64),
        (2_500, 3, 7, 500),
        (4_001, 1, 40, 120),
        (3_333, 20, 45, 90),
        (3_000, 2, 10, 0),
    ] {
        let mut list = vec![(0, 0, Start, 0)];
        for k in 0..pairs {
            let at = from + k * every;
            list.push((at, 0, Pause, 0));
            list.push((at + pause, 0, Resume, 0));
        }
        // a last pause at 12 s takes the frames shown up to then (the run ends paused)
        list.push((12_000, 0, Pause, 0));
        let sum = run(&s, &events(&list));
        let at = format!("pauses of {pause} ms every {every} ms");
        assert_eq!(sum.glitches.count, 0, "{at}");
        assert_eq!(sum.events_ignored, 0, "{at}");
        assert_eq!(sum.startup_latency.count, 1, "{at}");
        let shown_from = sum.startup_latency.mean_ns as f64 / 1e9;
        let paused = (pairs * pause) as f64 / 1e3;
        let playing = 12.0 - shown_from - paused;
        let frames = (playing * 30.0).floor() + 1.0;
        let consumed = sum.conservation.consumed_bytes as f64;
        assert!(
            (consumed / frame_bytes - frames).abs() <= 1.0,
            "{at}: {:.1} frames shown, {frames} in {playing:.3} s of play",
            consumed / frame_bytes
        );
    }
}
