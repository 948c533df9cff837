//! Cache replay (issue 33) with the built-in buffer pools: every registered pool keeps within
//! its size and counts every request; LRU, FIFO and Belady give the miss ratios of
//! straightforward reference implementations on a Zipf trace vodbench generates (and
//! libCacheSim's, where it is installed); results do not depend on the thread count; a pool
//! that breaks its contract is caught.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use vodbench_harness::experiment::cache_replay::{
    replay_all, resolve_pools, CacheReplay, CacheReplayError,
};
use vodbench_harness::ids::PageId;
use vodbench_harness::plugin::*;
use vodbench_harness::trace::requests::{
    next_accesses, write_csv, write_oracle_general, zipf_requests, CsvLayout, RequestFormat,
    ORACLE_RECORD,
};

const ORACLE: RequestFormat = RequestFormat::OracleGeneral;

fn write_trace(dir: &Path, name: &str, objects: &[(u64, u32)]) -> PathBuf {
    let mut bytes = Vec::new();
    if name.ends_with(".csv") {
        write_csv(&mut bytes, objects).unwrap();
    } else {
        write_oracle_general(&mut bytes, objects).unwrap();
    }
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn replay(trace: &Path, format: &RequestFormat, pools: &[&str], sizes: &[u64]) -> CacheReplay {
    let registry = vodbench_plugins::registry();
    let pools: Vec<String> = pools.iter().map(|p| p.to_string()).collect();
    let pools = resolve_pools(&registry, &pools).unwrap();
    replay_all(trace, format, "test", &pools, sizes).unwrap()
}

/// The Zipf(1.0) trace of the miss-ratio checks: 10⁵ objects, 10⁶ requests, unit sizes.
fn zipf_trace(dir: &Path) -> (PathBuf, Vec<u64>) {
    let objects = zipf_requests(100_000, 1_000_000, 1.0, 1, 42);
    let ids = objects.iter().map(|o| o.0).collect();
    (write_trace(dir, "zipf.oracleGeneral", &objects), ids)
}

const SIZES: [u64; 4] = [100, 1_000, 10_000, 50_000];

/// A reference implementation: the misses of a cache of `cap` objects on the trace `ids`.
type Reference = fn(&[u64], usize) -> u64;

fn lru_misses(ids: &[u64], cap: usize) -> u64 {
    let (mut last, mut order) = (HashMap::new(), BTreeMap::new());
    let mut misses = 0;
    for (t, &id) in ids.iter().enumerate() {
        match last.insert(id, t) {
            Some(old) => {
                order.remove(&old);
            }
            None => {
                misses += 1;
                if order.len() == cap {
                    let (_, victim) = order.pop_first().unwrap();
                    last.remove(&victim);
                }
            }
        }
        order.insert(t, id);
    }
    misses
}

fn fifo_misses(ids: &[u64], cap: usize) -> u64 {
    let (mut queue, mut cached) = (VecDeque::new(), HashSet::new());
    let mut misses = 0;
    for &id in ids {
        if cached.contains(&id) {
            continue;
        }
        misses += 1;
        if queue.len() == cap {
            cached.remove(&queue.pop_front().unwrap());
        }
        queue.push_back(id);
        cached.insert(id);
    }
    misses
}

fn belady_misses(ids: &[u64], cap: usize) -> u64 {
    let next = next_accesses(ids.iter().copied());
    let (mut by_next, mut cached) = (BTreeSet::new(), HashMap::new());
    let mut misses = 0;
    for (t, &id) in ids.iter().enumerate() {
        let n = next[t].unwrap_or(u64::MAX);
        match cached.insert(id, n) {
            Some(old) => {
                by_next.remove(&(old, id));
            }
            None => {
                misses += 1;
                if by_next.len() == cap {
                    let (_, victim) = by_next.pop_last().unwrap();
                    cached.remove(&victim);
                }
            }
        }
        by_next.insert((n, id));
    }
    misses
}

#[test]
fn lru_fifo_and_belady_miss_ratios_equal_reference_implementations() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, ids) = zipf_trace(dir.path());
    let got = replay(&trace, &ORACLE, &["global-lru", "fifo", "belady"], &SIZES);
    let reference: [(&str, Reference); 3] = [
        ("global-lru", lru_misses),
        ("fifo", fifo_misses),
        ("belady", belady_misses),
    ];
    for (pool, f) in reference {
        for size in SIZES {
            let r = got
                .results
                .iter()
                .find(|r| r.pool == pool && r.size_bytes == size)
                .unwrap();
            assert_eq!(r.requests, 1_000_000);
            assert_eq!(r.misses, f(&ids, size as usize), "{pool} at {size}");
        }
    }
    // the optimum is the lower bound, and the ratios fall with the size
    for size in SIZES {
        let ratio = |p: &str| {
            got.results
                .iter()
                .find(|r| r.pool == p && r.size_bytes == size)
                .unwrap()
                .miss_ratio
        };
        assert!(ratio("belady") < ratio("global-lru") && ratio("global-lru") < ratio("fifo"));
    }
}

/// The Python interpreter with libCacheSim (`pip install libcachesim`):
/// `VODBENCH_LIBCACHESIM_PYTHON`, else `python3`; `None` with the reason when it has none.
fn libcachesim_python() -> Result<String, String> {
    let python =
        std::env::var("VODBENCH_LIBCACHESIM_PYTHON").unwrap_or_else(|_| "python3".to_string());
    match std::process::Command::new(&python)
        .args(["-c", "import libcachesim"])
        .output()
    {
        Ok(o) if o.status.success() => Ok(python),
        Ok(_) => Err(format!(
            "{python} cannot import libcachesim (pip install libcachesim)"
        )),
        Err(e) => Err(format!("{python}: {e}")),
    }
}

#[test]
fn miss_ratios_equal_libcachesims_where_it_is_installed() {
    let python = match libcachesim_python() {
        Ok(p) => p,
        Err(reason) => {
            eprintln!("skipped: {reason}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = zipf_trace(dir.path());
    let got = replay(&trace, &ORACLE, &["global-lru", "fifo", "belady"], &SIZES);
    let script = "import sys, libcachesim as l\n\
        algos = {'global-lru': l.LRU, 'fifo': l.FIFO, 'belady': l.Belady}\n\
        for name, algo in algos.items():\n\
        \x20   for size in [int(s) for s in sys.argv[2].split(',')]:\n\
        \x20       reader = l.TraceReader(sys.argv[1], l.TraceType.ORACLE_GENERAL_TRACE)\n\
        \x20       ratio, _ = algo(cache_size=size).process_trace(reader)\n\
        \x20       print(name, size, repr(ratio))\n";
    let sizes: Vec<String> = SIZES.iter().map(u64::to_string).collect();
    let o = std::process::Command::new(&python)
        .args(["-c", script])
        .arg(&trace)
        .arg(sizes.join(","))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let mut compared = 0;
    for line in out.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (pool, size, ratio) = (
            f[0],
            f[1].parse::<u64>().unwrap(),
            f[2].parse::<f64>().unwrap(),
        );
        let ours = got
            .results
            .iter()
            .find(|r| r.pool == pool && r.size_bytes == size)
            .unwrap();
        assert_eq!(
            (ratio * ours.requests as f64).round() as u64,
            ours.misses,
            "{pool} at {size}: libCacheSim {ratio}, vodbench {}",
            ours.miss_ratio
        );
        compared += 1;
    }
    assert_eq!(compared, 12, "{out}");
}

/// Objects of 1..=1000 bytes, some larger than the smallest cache.
fn sized_trace(dir: &Path, name: &str) -> PathBuf {
    let objects: Vec<(u64, u32)> = zipf_requests(500, 20_000, 0.8, 1, 9)
        .into_iter()
        .map(|(id, _)| (id, 1 + (id * 7919 % 1000) as u32))
        .collect();
    write_trace(dir, name, &objects)
}

#[test]
fn every_registered_pool_keeps_within_its_size_and_counts_every_request() {
    let dir = tempfile::tempdir().unwrap();
    let trace = sized_trace(dir.path(), "sized.oracleGeneral");
    let registry = vodbench_plugins::registry();
    let names = registry.names::<dyn BufferPool>();
    assert!(names.len() >= 8, "{names:?}");
    let sizes = [700, 5_000, 60_000, 10_000_000];
    let got = replay(&trace, &ORACLE, &names, &sizes);
    assert_eq!(got.results.len(), names.len() * sizes.len());
    for r in &got.results {
        let at = format!("{} at {}", r.pool, r.size_bytes);
        assert_eq!(r.hits + r.misses, r.requests, "{at}");
        assert_eq!(r.requests, 20_000, "{at}");
        assert!(r.peak_bytes <= r.size_bytes, "{at}: peak {}", r.peak_bytes);
        assert!(
            r.bytes_missed <= r.bytes_requested && r.evictions <= r.misses,
            "{at}"
        );
        assert!(r.hits > 0, "{at}");
        if r.size_bytes == 10_000_000 {
            // everything fits: only the first request of each object misses
            assert_eq!(r.evictions, 0, "{at}");
        }
    }
    // the same requests as CSV, without next accesses: Belady's are computed (issue 49,
    // item 4), and every pool replays as from the oracleGeneral trace
    let small = zipf_requests(500, 2_000, 0.8, 1, 9);
    let csv = write_trace(dir.path(), "sized.csv", &small);
    let bin = write_trace(dir.path(), "small.oracleGeneral", &small);
    let layout = RequestFormat::Csv(CsvLayout {
        header: true,
        ..CsvLayout::default()
    });
    let got = replay(&csv, &layout, &names, &[10, 100]);
    assert!(got.results.iter().all(|r| r.hits + r.misses == 2_000));
    assert_eq!(
        got.results,
        replay(&bin, &ORACLE, &names, &[10, 100]).results
    );
    let (n, text) = got.next_access.as_ref().unwrap();
    assert!(!n.recorded && n.wrong == 0, "{text}");
    assert!(text.contains("its format records none"), "{text}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let trace = sized_trace(dir.path(), "sized.oracleGeneral");
    let names = vodbench_plugins::registry().names::<dyn BufferPool>();
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| replay(&trace, &ORACLE, &names, &[2_000, 30_000]))
    };
    let (one, three) = (on(1), on(3));
    assert_eq!(one.results, three.results);
    assert_eq!(one.folder().files, three.folder().files, "cache.json");
    let table = |c: &CacheReplay| format!("{:?}", c.folder().tables[0]);
    assert_eq!(table(&one), table(&three), "the cache table");
}

#[test]
fn pool_parameters_and_bad_choices() {
    let registry = vodbench_plugins::registry();
    let choose = |s: &[&str]| {
        let v: Vec<String> = s.iter().map(|x| x.to_string()).collect();
        resolve_pools(&registry, &v)
    };
    let p = choose(&["s3-fifo{small_ratio = 0.25}", "clock{bits = 2}"]).unwrap();
    assert_eq!(p[0].label, "s3-fifo{small_ratio=0.25}");
    assert_eq!(p[0].resolved.params["small_ratio"], 0.25);
    assert_eq!(p[1].resolved.params["bits"], 2);
    for (bad, says) in [
        (&["lru"][..], "unknown buffer_pool `lru`"),
        (&["clock{bits = 9}"][..], "bits"),
        (&["clock{bits = }"][..], "not an inline TOML table"),
        (&["fifo", "fifo"][..], "given twice"),
        (&["fifo{speed = 1}"][..], "speed"),
    ] {
        let e = choose(bad).err().unwrap();
        assert!(
            matches!(e, CacheReplayError::Pool { .. }) && e.to_string().contains(says),
            "{bad:?}: {e}"
        );
    }
}

/// A third-party pool that evicts a page it never held.
struct Liar;
impl BufferPool for Liar {
    fn release(&mut self, _: PageId, _: bool) {}
    fn acquire(&mut self, _: PageId) {}
    fn evict(&mut self) -> Option<PageId> {
        Some(PageId(12345))
    }
}
impl Plugin for Liar {
    type Kind = dyn BufferPool;
    type Params = vodbench_plugins::NoParams;
    const NAME: &'static str = "liar";
    const DESCRIPTION: &'static str = "evicts a page it never held";
    fn build(
        _: &vodbench_plugins::NoParams,
        _: &BuildContext<'_>,
    ) -> Result<Box<dyn BufferPool>, PluginError> {
        Ok(Box::new(Liar))
    }
}

#[test]
fn a_pool_that_breaks_its_contract_stops_the_replay_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let trace = sized_trace(dir.path(), "sized.oracleGeneral");
    let mut registry = Registry::new();
    registry.add::<Liar>();
    let pools = resolve_pools(&registry, &["liar".to_string()]).unwrap();
    let e = replay_all(&trace, &ORACLE, "oracleGeneral", &pools, &[1_000]).unwrap_err();
    assert!(!e.is_input());
    assert!(
        e.to_string()
            .starts_with("buffer pool `liar` at 1000 bytes, request "),
        "{e}"
    );
    assert!(
        e.to_string()
            .ends_with("evicted page 12345, which holds no cached object"),
        "{e}"
    );
}

/// Rewrites the next-access column of the oracleGeneral trace `bytes` record by record.
fn with_next_column(bytes: &[u8], next: impl Fn(usize, i64) -> i64) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for (i, rec) in out.chunks_exact_mut(ORACLE_RECORD).enumerate() {
        let was = i64::from_le_bytes(rec[16..24].try_into().unwrap());
        rec[16..24].copy_from_slice(&next(i, was).to_le_bytes());
    }
    out
}

/// Belady's miss ratios do not trust the trace's next-access column (issue 49, item 4):
/// with the column all −1, pointing backwards, pointing at other objects' requests, or
/// from two copies of a zstd trace concatenated (each copy's column counting from 0), the
/// replay computes the next accesses itself, gives the optimum of the requests it read,
/// and counts the wrong values; a right column is found right and gives the same results.
#[test]
fn issue49_belady_computes_next_accesses_and_counts_the_traces_wrong_ones() {
    let dir = tempfile::tempdir().unwrap();
    let objects = zipf_requests(3_000, 40_000, 0.9, 1, 71);
    let ids: Vec<u64> = objects.iter().map(|o| o.0).collect();
    let mut good = Vec::new();
    write_oracle_general(&mut good, &objects).unwrap();
    let right = next_accesses(ids.iter().copied());
    let coming = right.iter().filter(|n| n.is_some()).count() as u64;
    let sizes = [30, 300, 1_500];
    let check = |name: &str, bytes: &[u8], ids: &[u64], wrong: u64| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let got = replay(&p, &ORACLE, &["belady", "global-lru"], &sizes);
        for size in sizes {
            let r = got
                .results
                .iter()
                .find(|r| r.pool == "belady" && r.size_bytes == size)
                .unwrap();
            assert_eq!(
                r.misses,
                belady_misses(ids, size as usize),
                "{name} at {size}"
            );
        }
        let (n, text) = got.next_access.as_ref().unwrap();
        assert!(n.recorded, "{name}");
        assert_eq!(n.wrong, wrong, "{name}: {text}");
        if wrong > 0 {
            assert!(
                text.starts_with("warning: ")
                    && text.contains(&format!("{wrong} of the trace's {} recorded", ids.len())),
                "{name}: {text}"
            );
        }
        got
    };
    let base = check("good.oracleGeneral", &good, &ids, 0);
    // never: wrong wherever the object comes again
    check(
        "never.oracleGeneral",
        &with_next_column(&good, |_, _| -1),
        &ids,
        coming,
    );
    // backwards: each record points at its own position or an earlier one
    check(
        "back.oracleGeneral",
        &with_next_column(&good, |i, _| i as i64 / 2),
        &ids,
        ids.len() as u64,
    );
    // inconsistent: the column of the records in reverse order
    let reversed: Vec<i64> = right
        .iter()
        .rev()
        .map(|n| n.map_or(-1, |x| x as i64))
        .collect();
    let wrong_rev = right
        .iter()
        .zip(&reversed)
        .filter(|(a, b)| a.map_or(-1, |x| x as i64) != **b)
        .count() as u64;
    assert!(wrong_rev > 30_000, "{wrong_rev}");
    check(
        "reversed.oracleGeneral",
        &with_next_column(&good, |i, _| reversed[i]),
        &ids,
        wrong_rev,
    );
    // two copies of the zstd trace, one after the other: the second copy's column counts
    // from 0 again, and the first copy's last request of each object points nowhere
    let zst = zstd::encode_all(good.as_slice(), 3).unwrap();
    let twice: Vec<u8> = zst.iter().chain(&zst).copied().collect();
    let doubled: Vec<u64> = ids.iter().chain(&ids).copied().collect();
    let distinct = ids.iter().collect::<HashSet<_>>().len() as u64;
    let got = check(
        "twice.oracleGeneral.zst",
        &twice,
        &doubled,
        coming + distinct,
    );
    assert_eq!(got.scan.requests, 80_000);
    // a right column is used as it is: the same results as before the check existed, and
    // Belady below LRU
    for size in sizes {
        let at = |p: &str| {
            base.results
                .iter()
                .find(|r| r.pool == p && r.size_bytes == size)
                .unwrap()
                .misses
        };
        assert!(at("belady") < at("global-lru"), "{size}");
    }
}
