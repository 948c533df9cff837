//! Replaying a request trace through buffer pools at several cache sizes: the experiment
//! behind `vodbench cache replay`. It models a cache of a fixed number of bytes in front of
//! a store, with no timing: every request is a hit when its object is cached, else a miss
//! that brings it in, evicting what the pool chooses until it fits (an object larger than
//! the cache is a miss and is not cached, as in libCacheSim).
//!
//! The replayer owns the page table (object → page), each page's size and the byte count;
//! the pool is a [`BufferPool`] plugin, any registered one, built as a scenario builds it
//! and told each request ([`BufferPool::request`]) before the hit (`acquire`, `release`) or
//! the miss (`evict` until the object fits, then `release` of its page). A pool's answers
//! are checked: a victim it does not hold, or no victim while the cache is full, stops the
//! replay with an error naming it.
//!
//! Each pool × size pair is one job, reading the trace on its own (so memory stays bounded
//! by the cached objects, not the trace); jobs run in parallel on the current rayon pool
//! and their results, in job order, do not depend on the number of threads. Only the wall
//! time of each job (its requests per second) does, and it is kept apart ([`JobSpeed`]).

use crate::contract_breach::{BreachAt, ContractBreach};
use crate::ids::PageId;
use crate::output::{to_json, Folder, TableFormat};
use crate::plugin::{BufferPool, BuildContext, CacheRequest, Kind, Registry, Resolved};
use crate::results::{Column, Table};
use crate::trace::requests::{RequestFormat, RequestReader, RequestTraceError};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};

mod object_table;

use object_table::{HashedIds, ObjectTable, NONE};

/// Why a cache replay failed.
#[derive(Debug, thiserror::Error)]
pub enum CacheReplayError {
    /// The trace cannot be read (input).
    #[error(transparent)]
    Trace(#[from] RequestTraceError),
    /// A `--pool` choice is not valid (input).
    #[error("--pool {pool}: {message}")]
    Pool {
        /// The choice as given.
        pool: String,
        /// What is wrong.
        message: String,
    },
    /// A `--size` is not valid (input).
    #[error("--size {size}: {message}")]
    Size {
        /// The size as given.
        size: String,
        /// What is wrong.
        message: String,
    },
    /// Computing the next accesses would need more memory than the limit (input).
    #[error(
        "{pools}: each request's next access is computed from the trace ({requests} requests, \
         about {need_mib} MiB), more than the memory limit of {limit_mib} MiB \
         (--max-memory)"
    )]
    NextAccessMemory {
        /// The pools that need them.
        pools: String,
        /// Requests of the trace.
        requests: u64,
        /// MiB needed.
        need_mib: u64,
        /// MiB allowed.
        limit_mib: u64,
    },
    /// A pool broke its contract during the replay ([`BreachAt::Replay`]; exit code 2 for a
    /// loaded pool, 1 for a built-in).
    #[error(transparent)]
    Contract(Box<ContractBreach>),
}

impl CacheReplayError {
    /// Whether the input is at fault (exit code 2) rather than the run (1): a loaded pool
    /// that broke its contract is the user's input, a built-in's is a bug.
    pub fn is_input(&self) -> bool {
        match self {
            CacheReplayError::Contract(b) => b.by_loaded_policy(),
            _ => true,
        }
    }
}

/// A pool chosen for a replay: its label in the results, and the resolved plugin.
#[derive(Clone, Debug)]
pub struct PoolChoice {
    /// The name, or the name and its parameters (`s3-fifo{small_ratio=0.2}`).
    pub label: String,
    /// The plugin, with its parameters.
    pub resolved: Resolved<dyn BufferPool>,
}

/// Splits a `--pool`/`--size` list at commas outside braces and quotes.
pub fn split_list(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None);
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => depth -= 1,
            (None, ',') if depth <= 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out.retain(|s| !s.is_empty());
    out
}

/// Resolves each pool choice: a plugin name (`arc`), or a name followed by its parameters as
/// an inline TOML table (`s3-fifo{small_ratio = 0.2}`), as a scenario's `[buffer_pool]`.
pub fn resolve_pools(
    registry: &Registry,
    choices: &[String],
) -> Result<Vec<PoolChoice>, CacheReplayError> {
    let mut out: Vec<PoolChoice> = Vec::new();
    for c in choices {
        let bad = |message: String| CacheReplayError::Pool {
            pool: c.clone(),
            message,
        };
        let (name, params) = match c.find('{') {
            None => (c.trim(), toml::Table::new()),
            Some(i) => {
                let table: toml::Table = toml::from_str(&format!("p = {}", &c[i..]))
                    .map_err(|e| bad(format!("parameters are not an inline TOML table: {e}")))?;
                match table.get("p") {
                    Some(toml::Value::Table(t)) => (c[..i].trim(), t.clone()),
                    _ => return Err(bad("parameters are not an inline TOML table".into())),
                }
            }
        };
        let resolved = registry
            .resolve::<dyn BufferPool>(name, &params)
            .map_err(|e| bad(e.to_string()))?;
        let label = if params.is_empty() {
            name.to_string()
        } else {
            let canon: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{name}{{{}}}", canon.join(","))
        };
        if out.iter().any(|p| p.label == label) {
            return Err(bad("given twice".into()));
        }
        out.push(PoolChoice { label, resolved });
    }
    Ok(out)
}

/// The most bytes a cache, an object or a whole trace may count: 2⁶³ − 1 (8 EiB). Every
/// byte counter of a replay stays within it, so none wraps, and every output holds it
/// exactly (a CSV reader takes integers as signed 64-bit ones); larger sizes are refused.
pub const MAX_BYTES: u64 = i64::MAX as u64;

/// Parses cache sizes: bytes (`4096`, `64MiB`, `1.5GB`); with a trace of unit sizes a number
/// of bytes is a number of objects, as in libCacheSim.
pub fn parse_sizes(sizes: &[String]) -> Result<Vec<u64>, CacheReplayError> {
    let mut out: Vec<u64> = Vec::new();
    if sizes.is_empty() {
        return Err(CacheReplayError::Size {
            size: "''".into(),
            message: "no cache size given: comma-separated sizes like 1000,64KiB,1.5GB".into(),
        });
    }
    for s in sizes {
        let bad = |message: &str| CacheReplayError::Size {
            size: s.clone(),
            message: message.into(),
        };
        let b = crate::units::parse_bytes(s)
            .ok_or_else(|| bad("expected bytes like 1000, 64KiB, 1.5GB"))?;
        if !whole_bytes(s) {
            return Err(bad(
                "not a whole number of bytes (a cache holds whole bytes; 1.5KiB is 1536, \
                 1.5 is not)",
            ));
        }
        if b == 0 {
            return Err(bad("a cache of 0 bytes holds nothing"));
        }
        if b > MAX_BYTES {
            return Err(bad(&format!(
                "{b} bytes: at most {MAX_BYTES} (2^63 - 1, 8 EiB), what the results count"
            )));
        }
        if out.contains(&b) {
            return Err(bad("given twice"));
        }
        out.push(b);
    }
    Ok(out)
}

/// Whether the size `s` (as [`crate::units::parse_bytes`] reads it) is a whole number of
/// bytes: a decimal fraction times its unit leaves no fraction of a byte (which
/// `parse_bytes` would drop).
fn whole_bytes(s: &str) -> bool {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = (&s[..end], s[end..].trim());
    let Some((_, frac)) = num.split_once('.') else {
        return true;
    };
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        return true;
    }
    let (Some(scale), Ok(digits), Some(denom)) = (
        crate::units::parse_bytes(&format!("1{unit}")),
        frac.parse::<u128>(),
        u32::try_from(frac.len())
            .ok()
            .and_then(|n| 10u128.checked_pow(n)),
    ) else {
        return false;
    };
    (digits * u128::from(scale)) % denom == 0
}

/// What one pass over the trace finds before any replay: how many requests, the smallest
/// object, and whether its records are valid (so a malformed trace fails before any work).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TraceScan {
    /// Requests (size-0 records not counted).
    pub requests: u64,
    /// Size-0 records skipped.
    pub skipped: u64,
    /// Smallest object size in bytes.
    pub min_bytes: u64,
    /// Largest object size in bytes.
    pub max_bytes: u64,
    /// Bytes requested.
    pub bytes: u64,
    /// Largest object id.
    pub max_object: u64,
}

/// Reads the whole trace once ([`TraceScan`]).
pub fn scan(trace: &Path, format: &RequestFormat) -> Result<TraceScan, CacheReplayError> {
    let mut r = RequestReader::open(trace, format)?;
    let mut s = TraceScan {
        min_bytes: u64::MAX,
        ..TraceScan::default()
    };
    while let Some(q) = r.next_request()? {
        s.requests += 1;
        s.min_bytes = s.min_bytes.min(q.bytes);
        s.max_bytes = s.max_bytes.max(q.bytes);
        s.bytes = match s.bytes.checked_add(q.bytes).filter(|b| *b <= MAX_BYTES) {
            Some(b) => b,
            None => {
                return Err(CacheReplayError::Trace(r.error_at_last(format!(
                    "an object of {} bytes brings the bytes requested past {MAX_BYTES} \
                     (2^63 - 1, 8 EiB), the most a replay counts: the trace cannot be \
                     replayed",
                    q.bytes
                ))))
            }
        };
        s.max_object = s.max_object.max(q.object);
    }
    s.skipped = r.skipped();
    Ok(s)
}

/// The counts of one pool at one cache size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CacheResult {
    /// The pool's label.
    pub pool: String,
    /// The cache size in bytes.
    pub size_bytes: u64,
    /// Requests replayed.
    pub requests: u64,
    /// Requests whose object was cached.
    pub hits: u64,
    /// Requests whose object was not.
    pub misses: u64,
    /// Bytes requested.
    pub bytes_requested: u64,
    /// Bytes of the misses.
    pub bytes_missed: u64,
    /// Objects evicted.
    pub evictions: u64,
    /// misses / requests.
    pub miss_ratio: f64,
    /// bytes missed / bytes requested.
    pub byte_miss_ratio: f64,
    /// Most bytes cached at once (never above the size).
    pub peak_bytes: u64,
}

/// How fast one job replayed (wall clock: varies from run to run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSpeed {
    /// Seconds from opening the trace to its last request.
    pub wall_s: f64,
    /// Requests per second.
    pub requests_per_s: f64,
}

/// A fresh instance of `pool` for a replay with room for `pages` objects.
fn build_pool(pool: &PoolChoice, pages: u32) -> Result<Box<dyn BufferPool>, CacheReplayError> {
    let ctx = BuildContext::new(0, Kind::BufferPool.key(), 0, Path::new("")).with_pages(pages);
    pool.resolved
        .build(&ctx)
        .map_err(|e| CacheReplayError::Pool {
            pool: pool.label.clone(),
            message: e.to_string(),
        })
}

/// Replays the trace through a fresh instance of `pool` with a cache of `size` bytes;
/// `next` holds each request's next access as [`next_accesses`] computes them, told to a
/// pool that needs them instead of the trace's column.
pub fn replay_one(
    pool: &PoolChoice,
    trace: &Path,
    format: &RequestFormat,
    scan: &TraceScan,
    size: u64,
    next: Option<&NextAccesses>,
) -> Result<(CacheResult, JobSpeed), CacheReplayError> {
    let started = std::time::Instant::now();
    // objects cached at once: at most size / smallest object, and at most the requests
    let pages = (size / scan.min_bytes.max(1))
        .min(scan.requests)
        .clamp(1, u64::from(u32::MAX - 1)) as u32;
    let broke = |request: u64, detail: String| {
        CacheReplayError::Contract(Box::new(ContractBreach {
            kind: Kind::BufferPool.key(),
            name: pool.resolved.name.to_string(),
            source: pool.resolved.origin.as_ref().map(|o| o.path.clone()),
            at: BreachAt::Replay {
                label: pool.label.clone(),
                size,
                request,
            },
            detail,
        }))
    };
    let mut p = build_pool(pool, pages)?;
    let next = match (p.needs_next_access(), next) {
        (false, _) => None,
        (true, Some(n)) => Some(n.next.as_slice()),
        (true, None) => {
            return Err(CacheReplayError::Pool {
                pool: pool.label.clone(),
                message: format!(
                    "needs each request's next access, which was not computed for {}",
                    trace.display()
                ),
            })
        }
    };
    p.set_capacity(size);
    let mut r = CacheResult {
        pool: pool.label.clone(),
        size_bytes: size,
        requests: 0,
        hits: 0,
        misses: 0,
        bytes_requested: 0,
        bytes_missed: 0,
        evictions: 0,
        miss_ratio: 0.0,
        byte_miss_ratio: 0.0,
        peak_bytes: 0,
    };
    let reader = RequestReader::open(trace, format)?;
    let dense = scan.max_object < DENSE_IDS.min(scan.requests.saturating_mul(4).max(1 << 16));
    let peak = if dense {
        let table = vec![NONE; scan.max_object as usize + 1];
        run(p.as_mut(), table, reader, pages, size, next, &mut r)
    } else {
        let table = HashedIds::with_capacity(pages.min(1 << 20) as usize);
        run(p.as_mut(), table, reader, pages, size, next, &mut r)
    }
    .map_err(|e| match e {
        Stop::Trace(e) => CacheReplayError::Trace(e),
        Stop::Broke(message) => broke(r.requests, message),
    })?;
    let wall_s = started.elapsed().as_secs_f64();
    r.peak_bytes = peak;
    r.miss_ratio = r.misses as f64 / r.requests.max(1) as f64;
    r.byte_miss_ratio = r.bytes_missed as f64 / r.bytes_requested.max(1) as f64;
    let speed = JobSpeed {
        wall_s,
        requests_per_s: r.requests as f64 / wall_s.max(1e-9),
    };
    Ok((r, speed))
}

/// Object ids below this (and below four per request) index a table directly instead of
/// being hashed: 128 MiB of page numbers at most.
const DENSE_IDS: u64 = 1 << 25;

/// How many requests ahead the object table is prefetched.
const PREFETCH_AHEAD: usize = 12;

/// Why [`run`] stopped early.
enum Stop {
    Trace(RequestTraceError),
    Broke(String),
}

/// What a page holds.
#[derive(Copy, Clone, Default)]
struct Held {
    object: u64,
    bytes: u64,
}

/// The replay loop: every request of `reader` through `pool`, counted into `r`; the most
/// bytes cached at once. `next` (request `i`'s next access at `i`, [`NEVER`] for none)
/// replaces the trace's next accesses when given.
fn run<T: ObjectTable>(
    pool: &mut dyn BufferPool,
    mut table: T,
    mut reader: RequestReader,
    pages: u32,
    size: u64,
    next: Option<&[u64]>,
    r: &mut CacheResult,
) -> Result<u64, Stop> {
    let mut held = vec![Held::default(); pages as usize];
    let mut free: Vec<u32> = Vec::new();
    let mut unused = 0u32;
    let (mut used, mut peak) = (0u64, 0u64);
    while let Some(q) = reader.next_request().map_err(Stop::Trace)? {
        if let Some(soon) = reader.upcoming(PREFETCH_AHEAD) {
            table.prefetch(soon);
        }
        let next_access = match next {
            // as many as the requests: the trace was read the same way to compute them
            Some(n) => n.get(r.requests as usize).copied().filter(|&x| x != NEVER),
            None => q.next_access,
        };
        r.requests += 1;
        if r.requests & 0xFFFF == 0 {
            crate::interrupt::check();
        }
        r.bytes_requested += q.bytes;
        let req = CacheRequest {
            object: q.object,
            bytes: q.bytes,
            next_access,
        };
        if let Some(page) = table.get(q.object) {
            r.hits += 1;
            pool.request(&req, Some(PageId(page)));
            pool.acquire(PageId(page));
            pool.release(PageId(page), true);
            continue;
        }
        r.misses += 1;
        r.bytes_missed += q.bytes;
        pool.request(&req, None);
        if q.bytes > size {
            continue; // larger than the cache: not cached
        }
        // no overflow: `used`, `size` and the bytes are at most MAX_BYTES (2^63 - 1)
        while used + q.bytes > size {
            let Some(PageId(v)) = pool.evict() else {
                return Err(Stop::Broke(format!(
                    "evicted nothing while {used} bytes are cached, all evictable"
                )));
            };
            let victim = held.get(v as usize).copied().unwrap_or_default();
            if table.remove(victim.object) != Some(v) {
                return Err(Stop::Broke(format!(
                    "evicted page {v}, which holds no cached object"
                )));
            }
            used -= victim.bytes;
            free.push(v);
            r.evictions += 1;
        }
        let page = match free.pop() {
            Some(f) => f,
            None if unused < pages => {
                unused += 1;
                unused - 1
            }
            None => {
                return Err(Stop::Broke(format!(
                    "more than {pages} objects cached: a page was lost"
                )))
            }
        };
        held[page as usize] = Held {
            object: q.object,
            bytes: q.bytes,
        };
        table.insert(q.object, page);
        used += q.bytes;
        peak = peak.max(used);
        pool.release(PageId(page), true);
    }
    Ok(peak)
}

/// A next access that never comes.
pub const NEVER: u64 = u64::MAX;

/// Each request's next access, computed from the trace in one backward pass (the position
/// of the same object's next request, counted as the trace's next-access column counts
/// them: records, size-0 ones included), and how the trace's own column compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextAccesses {
    /// Request `i`'s next access ([`NEVER`] for none).
    pub next: Vec<u64>,
    /// Whether the trace records next accesses (`oracleGeneral`).
    pub recorded: bool,
    /// Requests whose recorded next access differs from the computed one: pointing
    /// backwards or at another object's request, or "never" while the object comes again.
    pub wrong: u64,
}

impl NextAccesses {
    /// What the replay did with the next accesses, in words (`cache.json`, the printed
    /// header): computed, and whether the trace's own were right.
    pub fn text(&self, pools: &str) -> String {
        let n = self.next.len();
        if !self.recorded {
            format!(
                "next accesses for {pools}: computed from the trace in one backward pass (its \
                 format records none)"
            )
        } else if self.wrong == 0 {
            format!(
                "next accesses for {pools}: computed from the trace in one backward pass; all \
                 {n} of its recorded ones agree"
            )
        } else {
            format!(
                "warning: next accesses for {pools}: {} of the trace's {n} recorded next \
                 accesses are wrong (pointing backwards, at another object's request, or \
                 never while the object comes again); every one was computed again from the \
                 trace and the recorded ones are not used",
                self.wrong
            )
        }
    }
}

/// Bytes [`next_accesses`] needs per request, at most: the object id and the next access
/// (8 bytes each), and an entry of the last-seen map (about 24).
const NEXT_ACCESS_BYTES: u64 = 40;

/// Computes every request's next access ([`NextAccesses`]) in a forward pass that keeps the
/// object ids and a backward pass over them, and counts the trace's recorded next accesses
/// that disagree. Refuses, before reading, a trace whose computation would need more than
/// the memory limit in force.
pub fn next_accesses(
    trace: &Path,
    format: &RequestFormat,
    scan: &TraceScan,
    pools: &str,
) -> Result<NextAccesses, CacheReplayError> {
    let n = scan.requests;
    let need = n.saturating_mul(NEXT_ACCESS_BYTES);
    let limit = crate::system::memory::limit();
    let refuse = || CacheReplayError::NextAccessMemory {
        pools: pools.to_string(),
        requests: n,
        need_mib: need.div_ceil(1 << 20),
        limit_mib: limit >> 20,
    };
    if need > limit {
        return Err(refuse());
    }
    let recorded = format.has_next_access();
    let (mut ids, mut next) = (Vec::<u64>::new(), Vec::<u64>::new());
    ids.try_reserve_exact(n as usize).map_err(|_| refuse())?;
    next.try_reserve_exact(n as usize).map_err(|_| refuse())?;
    // (first request after which `skipped` records were skipped, skipped): the position of
    // request i in the trace is i plus the records skipped before it
    let mut skips: Vec<(u64, u64)> = Vec::new();
    let mut r = RequestReader::open(trace, format)?;
    while let Some(q) = r.next_request()? {
        let i = ids.len() as u64;
        if r.skipped() != skips.last().map_or(0, |s| s.1) {
            skips.push((i, r.skipped()));
        }
        ids.push(q.object);
        next.push(q.next_access.unwrap_or(NEVER));
    }
    let mut seen: rustc_hash::FxHashMap<u64, u64> = rustc_hash::FxHashMap::default();
    let (mut k, mut wrong) = (skips.len(), 0u64);
    for i in (0..ids.len()).rev() {
        while k > 0 && skips[k - 1].0 > i as u64 {
            k -= 1;
        }
        let position = i as u64 + if k > 0 { skips[k - 1].1 } else { 0 };
        let computed = seen.insert(ids[i], position).unwrap_or(NEVER);
        if recorded && next[i] != computed {
            wrong += 1;
        }
        next[i] = computed;
    }
    Ok(NextAccesses {
        next,
        recorded,
        wrong,
    })
}

/// A whole replay: what was asked and every job's result.
#[derive(Clone, Debug)]
pub struct CacheReplay {
    /// The trace.
    pub trace: PathBuf,
    /// Its format's name (`oracleGeneral`, `csv`, `vodbench`).
    pub format: String,
    /// What the first pass found.
    pub scan: TraceScan,
    /// Pools in the order given, with their parameters.
    pub pools: Vec<(String, &'static str, serde_json::Value)>,
    /// Results, pool by pool, each pool's sizes in the order given.
    pub results: Vec<CacheResult>,
    /// Each result's speed, in the same order.
    pub speed: Vec<JobSpeed>,
    /// With a pool that needs next accesses: what computing them found, and in words.
    pub next_access: Option<(NextAccesses, String)>,
}

/// Replays `trace` through every pool at every size, in parallel on the current rayon pool.
pub fn replay_all(
    trace: &Path,
    format: &RequestFormat,
    format_name: &str,
    pools: &[PoolChoice],
    sizes: &[u64],
) -> Result<CacheReplay, CacheReplayError> {
    let scan = scan(trace, format)?;
    // the pools that need next accesses: they are computed once for all of them
    let mut needing = Vec::new();
    for p in pools {
        if build_pool(p, 1)?.needs_next_access() {
            needing.push(p.label.as_str());
        }
    }
    let next = if needing.is_empty() {
        None
    } else {
        let label = needing.join(", ");
        let n = next_accesses(trace, format, &scan, &label)?;
        let text = n.text(&label);
        Some((n, text))
    };
    let jobs: Vec<(&PoolChoice, u64)> = pools
        .iter()
        .flat_map(|p| sizes.iter().map(move |s| (p, *s)))
        .collect();
    let done: Vec<Result<(CacheResult, JobSpeed), CacheReplayError>> = jobs
        .par_iter()
        .map(|(p, s)| replay_one(p, trace, format, &scan, *s, next.as_ref().map(|n| &n.0)))
        .collect();
    let mut results = Vec::with_capacity(done.len());
    let mut speed = Vec::with_capacity(done.len());
    for d in done {
        let (r, s) = d?;
        results.push(r);
        speed.push(s);
    }
    Ok(CacheReplay {
        trace: trace.to_path_buf(),
        format: format_name.to_string(),
        scan,
        pools: pools
            .iter()
            .map(|p| (p.label.clone(), p.resolved.name, p.resolved.params.clone()))
            .collect(),
        results,
        speed,
        next_access: next,
    })
}

impl CacheReplay {
    /// `cache.json`: what was replayed and every result (nothing that varies between runs).
    pub fn json(&self) -> serde_json::Value {
        let mut j = serde_json::json!({
            "kind": "cache-replay",
            "vodbench": env!("CARGO_PKG_VERSION"),
            "trace": self.trace.display().to_string(),
            "format": self.format,
            "requests": self.scan.requests,
            "skipped_size_0": self.scan.skipped,
            "bytes_requested": self.scan.bytes,
            "object_bytes": { "min": self.scan.min_bytes, "max": self.scan.max_bytes },
            "pools": self.pools.iter().map(|(label, name, params)| serde_json::json!({
                "label": label, "name": name, "params": params,
            })).collect::<Vec<_>>(),
            "results": self.results,
        });
        if let (Some((n, text)), Some(o)) = (&self.next_access, j.as_object_mut()) {
            o.insert(
                "next_access".into(),
                serde_json::json!({
                    "source": "computed",
                    "recorded_in_trace": n.recorded,
                    "recorded_wrong": n.wrong,
                    "note": text,
                }),
            );
        }
        j
    }

    /// The output folder: `cache.json`, the `cache` table (CSV and Parquet; deterministic),
    /// the `speed` table (wall-clock requests per second: the only file that changes from run
    /// to run) and `report.html` (miss ratio against cache size, one curve per pool).
    pub fn folder(&self) -> Folder {
        let rs = &self.results;
        let u = |f: fn(&CacheResult) -> u64| Column::U64(rs.iter().map(f).collect());
        let cache = Table {
            name: "cache".into(),
            columns: vec![
                (
                    "pool".into(),
                    Column::Str(rs.iter().map(|r| r.pool.clone()).collect()),
                ),
                ("size_bytes".into(), u(|r| r.size_bytes)),
                ("requests".into(), u(|r| r.requests)),
                ("hits".into(), u(|r| r.hits)),
                ("misses".into(), u(|r| r.misses)),
                ("evictions".into(), u(|r| r.evictions)),
                ("bytes_requested".into(), u(|r| r.bytes_requested)),
                ("bytes_missed".into(), u(|r| r.bytes_missed)),
                (
                    "miss_ratio".into(),
                    Column::F64(rs.iter().map(|r| r.miss_ratio).collect()),
                ),
                (
                    "byte_miss_ratio".into(),
                    Column::F64(rs.iter().map(|r| r.byte_miss_ratio).collect()),
                ),
            ],
        };
        let speed = Table {
            name: "speed".into(),
            columns: vec![
                (
                    "pool".into(),
                    Column::Str(rs.iter().map(|r| r.pool.clone()).collect()),
                ),
                ("size_bytes".into(), u(|r| r.size_bytes)),
                (
                    "wall_s".into(),
                    Column::F64(self.speed.iter().map(|s| s.wall_s).collect()),
                ),
                (
                    "requests_per_s".into(),
                    Column::F64(self.speed.iter().map(|s| s.requests_per_s).collect()),
                ),
            ],
        };
        Folder {
            files: vec![("cache.json".into(), to_json(&self.json()))],
            tables: vec![cache, speed],
            formats: vec![TableFormat::Csv, TableFormat::Parquet],
            report: true,
            subfolders: Vec::new(),
        }
    }

    /// What `vodbench cache replay` prints: one line per pool and size.
    pub fn text(&self) -> String {
        let mut rows = vec![vec![
            "pool".to_string(),
            "size".into(),
            "miss ratio".into(),
            "byte miss ratio".into(),
            "hits".into(),
            "misses".into(),
            "evictions".into(),
            "requests/s".into(),
        ]];
        for (r, s) in self.results.iter().zip(&self.speed) {
            rows.push(vec![
                r.pool.clone(),
                r.size_bytes.to_string(),
                format!("{:.6}", r.miss_ratio),
                format!("{:.6}", r.byte_miss_ratio),
                r.hits.to_string(),
                r.misses.to_string(),
                r.evictions.to_string(),
                format!("{:.0}", s.requests_per_s),
            ]);
        }
        crate::output::aligned_text(
            format!(
                "{}: {} requests ({} format{})\n{}",
                self.trace.display(),
                self.scan.requests,
                self.format,
                if self.scan.skipped > 0 {
                    format!(", {} of size 0 skipped", self.scan.skipped)
                } else {
                    String::new()
                },
                self.next_access
                    .as_ref()
                    .map_or_else(String::new, |(_, t)| format!("{t}\n"))
            ),
            &rows,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue49_sizes_are_whole_bytes_and_at_least_one() {
        let sizes = |v: &[&str]| parse_sizes(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            sizes(&["2.5KiB", "0.5MB", "7", "3.000"]).unwrap(),
            vec![2560, 500_000, 7, 3]
        );
        let e = sizes(&["2.5"]).unwrap_err().to_string();
        assert!(
            e.starts_with("--size 2.5: not a whole number of bytes"),
            "{e}"
        );
        let e = sizes(&["0.3KiB"]).unwrap_err().to_string();
        assert!(e.contains("not a whole number of bytes"), "{e}");
        let e = sizes(&[]).unwrap_err().to_string();
        assert!(e.contains("no cache size given"), "{e}");
        assert!(split_list(" , ").is_empty());
    }

    #[test]
    fn lists_split_outside_braces() {
        assert_eq!(
            split_list("fifo, s3-fifo{small_ratio = 0.2, move_to_main_threshold = 2},arc"),
            vec![
                "fifo",
                "s3-fifo{small_ratio = 0.2, move_to_main_threshold = 2}",
                "arc"
            ]
        );
        assert_eq!(split_list("1KiB,2KiB"), vec!["1KiB", "2KiB"]);
    }

    #[test]
    fn sizes_are_bytes() {
        assert_eq!(
            parse_sizes(&["1000".into(), "64KiB".into()]).unwrap(),
            vec![1000, 65536]
        );
        assert!(parse_sizes(&["0".into()]).is_err());
        assert!(parse_sizes(&["ten".into()]).is_err());
        assert!(parse_sizes(&["1".into(), "1B".into()]).is_err());
    }
}
