//! A store of search simulations shared by every `vodbench search` and `vodbench sweep`
//! given the same `--cache DIR`, so that a run made once is never made again.
//!
//! A search (SPIFFI §7.1) only needs two things from each of its simulations
//! ([`ProbeOutcome`]): the number of glitches, and at a replication's answer the measured
//! ratios of [`AnswerStats`]. Sweeps of
//! different experiments often simulate the same configuration with the same seeds and
//! terminal counts: SPIFFI's Table 3 prices the very runs of Table 2's real-time row, and
//! several points of Figs. 13–16 repeat points of Figs. 11 and 13–14 (`scenarios/spiffi/
//! README.md`, "Re-run"). With a shared cache those runs are
//! taken from it, and every output — `search.json`, `curve.csv`, `sweep.json` — is
//! byte-identical to the outputs made without it: an entry holds the exact integers and
//! `f64` bit patterns the simulation produced.
//!
//! What identifies a simulation ([`RunCache::key`]) is everything that can change what it
//! measures:
//!
//! * the vodbench executable itself, by a hash of its bytes (so a rebuild, a code change or
//!   a third-party plugin compiled in never meets another build's results);
//! * the resolved scenario (defaults filled in), without what only labels or prices it —
//!   for an on-demand scenario `name`, `description`, `[paper]`, `[cost]` — and without the
//!   seed and terminal count, which the search sets for each run and which are part of each
//!   entry's name (the system says what that leaves: [`Searchable::cache_identity`]);
//! * for a run that glitches, whether runs end at their first glitch (`--stop-at-glitch`),
//!   which changes its count; a glitch-free run is the same either way, and shared.
//!
//! A scenario that names a file (a disk specification, say) is not cached, because what that
//! file includes in turn cannot be tracked; [`RunCache::key`] says so and the search runs
//! every simulation as usual.
//!
//! Layout: `DIR/<key hash>/key.json` holds the whole key text, checked on every use (a hash
//! collision or a tampered folder makes the key unusable rather than wrong), and
//! `DIR/<key hash>/<seed>-<terminals>.json` one glitch-free simulation (`…-stopped.json`,
//! `…-whole.json`: one that glitched, ended at its first glitch or not). Files are written to
//! a temporary name and renamed, so an entry is whole or absent; several processes may share
//! a folder. Delete the folder to empty the cache.

use crate::output::{oerr, write_atomic, OutputError};
use crate::results::search::AnswerStats;
use crate::system::{ProbeOutcome, Searchable};
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// An entry's file.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    glitches: u64,
    /// `[disk utilization, shared ratio, hit ratio]` as `f64::to_bits`.
    stats: [u64; 3],
}

/// The identity of a scenario's simulations in a cache (see the module docs).
#[derive(Debug, Clone)]
pub struct CacheKey {
    text: String,
    folder: PathBuf,
    stop_at_glitch: bool,
}

/// A cache folder (see the module docs).
#[derive(Debug)]
pub struct RunCache {
    dir: PathBuf,
    build: String,
    reused: AtomicU64,
    stored: AtomicU64,
    /// The first entry that could not be saved.
    save_error: Mutex<Option<String>>,
    /// Why the first scenario that could not be cached was not.
    refused: Mutex<Option<String>>,
}

/// A hash of the running executable's bytes, computed once per process.
pub(crate) fn build_hash() -> Result<String, String> {
    static HASH: OnceLock<Result<String, String>> = OnceLock::new();
    HASH.get_or_init(|| {
        let exe = std::env::current_exe().map_err(|e| format!("locating vodbench: {e}"))?;
        let fail = |e: std::io::Error| format!("{}: {e}", exe.display());
        let mut f = std::fs::File::open(&exe).map_err(fail)?;
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = f.read(&mut buf).map_err(fail)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        Ok(format!("{:032x}", h.digest128()))
    })
    .clone()
}

/// The first string in `v` (depth first) naming an existing file relative to `base`.
fn named_file(v: &serde_json::Value, base: &Path) -> Option<PathBuf> {
    match v {
        serde_json::Value::String(s) if !s.is_empty() => {
            let p = base.join(s);
            p.is_file().then_some(p)
        }
        serde_json::Value::Array(xs) => xs.iter().find_map(|x| named_file(x, base)),
        serde_json::Value::Object(m) => m.values().find_map(|x| named_file(x, base)),
        _ => None,
    }
}

impl RunCache {
    /// Opens (creating it if need be) the cache folder `dir`.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let cache = vodbench_harness::experiment::cache::RunCache::open(dir.path()).unwrap();
    /// assert_eq!((cache.reused(), cache.stored()), (0, 0));
    /// ```
    pub fn open(dir: &Path) -> Result<RunCache, OutputError> {
        if dir.exists() && !dir.is_dir() {
            return Err(oerr(dir, "not a folder (the cache is a folder of files)"));
        }
        std::fs::create_dir_all(dir).map_err(|e| oerr(dir, e))?;
        let build = build_hash().map_err(|m| {
            oerr(
                dir,
                format!("cannot identify this vodbench build for the cache: {m}"),
            )
        })?;
        Ok(RunCache {
            dir: dir.to_path_buf(),
            build,
            reused: AtomicU64::new(0),
            stored: AtomicU64::new(0),
            save_error: Mutex::new(None),
            refused: Mutex::new(None),
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The key of the simulations of `point` of system `S` (with `stop_at_glitch` as the
    /// search runs them), or why they cannot be cached (also remembered:
    /// [`RunCache::refused`]).
    pub fn key<S: Searchable>(
        &self,
        point: &S::Point,
        stop_at_glitch: bool,
    ) -> Result<CacheKey, String> {
        let refuse = |why: String| {
            let mut first = self.refused.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert(why);
        };
        let identity = S::cache_identity(point).inspect_err(|why| refuse(why.clone()))?;
        self.make_key(identity.configuration, &identity.base_dir, stop_at_glitch)
            .inspect_err(|why| refuse(format!("{}: {why}", identity.file.display())))
    }

    /// The key of a configuration `v` (as [`Searchable::cache_identity`] gives it) whose
    /// relative paths resolve against `base`.
    fn make_key(
        &self,
        v: serde_json::Value,
        base: &Path,
        stop_at_glitch: bool,
    ) -> Result<CacheKey, String> {
        if let Some(f) = named_file(&v, base) {
            return Err(format!(
                "the scenario reads {}, whose contents (and includes) the cache cannot track",
                f.display()
            ));
        }
        let text = serde_json::json!({
            "format": 1,
            "build": self.build,
            "scenario": v,
        })
        .to_string();
        let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        let folder = self.dir.join(format!("{hash:016x}"));
        let marker = folder.join("key.json");
        match std::fs::read_to_string(&marker) {
            Ok(saved) if saved == text => {}
            Ok(_) => {
                return Err(format!(
                    "{} holds another key (a hash collision, or an edited cache)",
                    marker.display()
                ))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                write_atomic(&marker, text.as_bytes()).map_err(|e| e.to_string())?;
            }
            Err(e) => return Err(format!("{}: {e}", marker.display())),
        }
        Ok(CacheKey {
            text,
            folder,
            stop_at_glitch,
        })
    }

    /// Where a run with `glitches` glitches is saved: a glitch-free run is the same whether
    /// or not runs end at their first glitch, so both kinds of search share it; a glitching
    /// one is saved per kind.
    fn entry_path(key: &CacheKey, seed: u64, terminals: u32, glitches: u64) -> PathBuf {
        let kind = match (glitches, key.stop_at_glitch) {
            (0, _) => "",
            (_, true) => "-stopped",
            (_, false) => "-whole",
        };
        key.folder.join(format!("{seed}-{terminals}{kind}.json"))
    }

    /// The entry at `path`, if it is whole and says `clean` (glitch-free) rightly.
    fn read(path: &Path, clean: bool) -> Option<Entry> {
        let text = std::fs::read_to_string(path).ok()?;
        let e: Entry = serde_json::from_str(&text).ok()?;
        ((e.glitches == 0) == clean).then_some(e)
    }

    /// The saved simulation of `terminals` terminals with `seed` under `key`, if any (an
    /// unreadable entry counts as none and is replaced by the next [`RunCache::put`]).
    pub fn get(&self, key: &CacheKey, seed: u64, terminals: u32) -> Option<ProbeOutcome> {
        let e = Self::read(&Self::entry_path(key, seed, terminals, 0), true)
            .or_else(|| Self::read(&Self::entry_path(key, seed, terminals, 1), false))?;
        self.reused.fetch_add(1, Ordering::Relaxed);
        Some(ProbeOutcome {
            glitches: e.glitches,
            stats: AnswerStats {
                disk_utilization_mean_ratio: f64::from_bits(e.stats[0]),
                shared_ratio: f64::from_bits(e.stats[1]),
                hit_ratio: f64::from_bits(e.stats[2]),
            },
        })
    }

    /// Saves a simulation. A failure is remembered ([`RunCache::save_error`]), not returned:
    /// the run's result stands without the cache.
    pub fn put(&self, key: &CacheKey, seed: u64, terminals: u32, run: &ProbeOutcome) {
        let e = Entry {
            glitches: run.glitches,
            stats: [
                run.stats.disk_utilization_mean_ratio.to_bits(),
                run.stats.shared_ratio.to_bits(),
                run.stats.hit_ratio.to_bits(),
            ],
        };
        let text = serde_json::to_string(&e).expect("serialisable");
        let path = Self::entry_path(key, seed, terminals, run.glitches);
        match write_atomic(&path, text.as_bytes()) {
            Ok(()) => {
                self.stored.fetch_add(1, Ordering::Relaxed);
            }
            Err(err) => {
                let mut first = self.save_error.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert_with(|| err.to_string());
            }
        }
    }

    /// Simulations taken from the cache so far.
    pub fn reused(&self) -> u64 {
        self.reused.load(Ordering::Relaxed)
    }

    /// Simulations saved to it so far.
    pub fn stored(&self) -> u64 {
        self.stored.load(Ordering::Relaxed)
    }

    /// The first scenario whose simulations could not be cached, and why.
    pub fn refused(&self) -> Option<String> {
        self.refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The first simulation that could not be saved, and why.
    pub fn save_error(&self) -> Option<String> {
        self.save_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl CacheKey {
    /// The whole key, as saved in the key's `key.json`.
    pub fn text(&self) -> &str {
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scenario(memory: &str) -> serde_json::Value {
        json!({
            "name": "a", "description": "d", "seed": 7, "paper": {"max_terminals": 18.0},
            "cost": {"disk": 4000.0}, "server": {"memory_per_node": memory},
            "terminals": {"count": 12, "memory": "2MiB"},
        })
    }

    fn run(glitches: u64) -> ProbeOutcome {
        ProbeOutcome {
            glitches,
            stats: AnswerStats {
                disk_utilization_mean_ratio: 0.1 + 0.2,
                shared_ratio: f64::MIN_POSITIVE,
                hit_ratio: 1.0 / 3.0,
            },
        }
    }

    #[test]
    fn the_configuration_makes_the_key_and_stopping_at_a_glitch_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let c = RunCache::open(dir.path()).unwrap();
        let key = |v: serde_json::Value, stop| c.make_key(v, dir.path(), stop).unwrap().text;
        let base = key(scenario("8MiB"), false);
        assert_eq!(key(scenario("8MiB"), false), base);
        assert_ne!(key(scenario("4MiB"), false), base);
        assert_eq!(key(scenario("8MiB"), true), base);
        let mut terminal_memory = scenario("8MiB");
        terminal_memory["terminals"]["memory"] = json!("1MiB");
        assert_ne!(key(terminal_memory, false), base);
    }

    #[test]
    fn an_entry_returns_the_exact_bits_it_was_given() {
        let dir = tempfile::tempdir().unwrap();
        let c = RunCache::open(dir.path()).unwrap();
        let k = c.make_key(scenario("8MiB"), dir.path(), false).unwrap();
        assert_eq!(c.get(&k, 5, 12), None);
        c.put(&k, 5, 12, &run(3));
        let got = c.get(&k, 5, 12).unwrap();
        assert_eq!(got.glitches, 3);
        let bits = |r: &ProbeOutcome| {
            [
                r.stats.disk_utilization_mean_ratio.to_bits(),
                r.stats.shared_ratio.to_bits(),
                r.stats.hit_ratio.to_bits(),
            ]
        };
        assert_eq!(bits(&got), bits(&run(3)));
        assert_eq!((c.get(&k, 5, 13), c.get(&k, 6, 12)), (None, None));
        assert_eq!((c.reused(), c.stored()), (1, 1));
        // another process, another handle: the same entry
        let again = RunCache::open(dir.path()).unwrap();
        let k2 = again.make_key(scenario("8MiB"), dir.path(), false).unwrap();
        assert_eq!(again.get(&k2, 5, 12), Some(got));
        // no temporary file is left behind
        let names: Vec<String> = std::fs::read_dir(&k.folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains("tmp")), "{names:?}");
    }

    #[test]
    fn a_damaged_entry_is_no_entry_and_a_foreign_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let c = RunCache::open(dir.path()).unwrap();
        let k = c.make_key(scenario("8MiB"), dir.path(), false).unwrap();
        std::fs::write(RunCache::entry_path(&k, 5, 12, 0), "{\"glitches\": 0").unwrap();
        assert_eq!(c.get(&k, 5, 12), None);
        c.put(&k, 5, 12, &run(0));
        assert_eq!(c.get(&k, 5, 12).map(|r| r.glitches), Some(0));
        // a glitch-free run's file that says it glitched
        let wrong = r#"{"glitches":2,"stats":[0,0,0]}"#;
        std::fs::write(RunCache::entry_path(&k, 5, 12, 0), wrong).unwrap();
        assert_eq!(c.get(&k, 5, 12), None);
        // a key.json that holds another key: the folder is not used
        std::fs::write(k.folder.join("key.json"), "{}").unwrap();
        let e = c.make_key(scenario("8MiB"), dir.path(), false).unwrap_err();
        assert!(e.contains("another key"), "{e}");
    }

    #[test]
    fn glitch_free_runs_serve_both_kinds_of_search_and_glitching_ones_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let c = RunCache::open(dir.path()).unwrap();
        let whole = c.make_key(scenario("8MiB"), dir.path(), false).unwrap();
        let stopped = c.make_key(scenario("8MiB"), dir.path(), true).unwrap();
        c.put(&whole, 5, 12, &run(0));
        c.put(&whole, 5, 20, &run(40));
        let glitches = |k: &CacheKey, n| c.get(k, 5, n).map(|r| r.glitches);
        assert_eq!(glitches(&stopped, 12), Some(0));
        // a whole run's count is not what a run ended at its first glitch counts
        assert_eq!(glitches(&stopped, 20), None);
        c.put(&stopped, 5, 20, &run(1));
        assert_eq!(glitches(&stopped, 20), Some(1));
        assert_eq!(glitches(&whole, 20), Some(40));
    }

    #[test]
    fn a_scenario_naming_a_file_is_not_cached() {
        let dir = tempfile::tempdir().unwrap();
        let c = RunCache::open(dir.path()).unwrap();
        std::fs::write(dir.path().join("disk.parv"), "x").unwrap();
        let mut v = scenario("8MiB");
        v["disk"] = json!({"model": {"name": "mechanical", "spec": "disk.parv"}});
        let e = c.make_key(v.clone(), dir.path(), false).unwrap_err();
        assert!(e.contains("disk.parv"), "{e}");
        // the same name where no such file is: a bundled disk, say
        let other = tempfile::tempdir().unwrap();
        assert!(c.make_key(v, other.path(), false).is_ok());
    }
}
