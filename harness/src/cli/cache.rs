//! `vodbench cache …`: buffer pools on their own. `cache replay` replays a request trace
//! through pools at several cache sizes ([`crate::experiment::cache_replay`]) and writes
//! `cache.json`, the `cache` and `speed` tables and `report.html`; `cache generate` writes a
//! synthetic Zipf request trace.

use super::CommandError;
use crate::experiment::cache_replay::{self, CacheReplayError};
use crate::file_mark;
use crate::output::{self, Outputs};
use crate::plugin::Registry;
use crate::trace::requests::{self, BlockModel, CsvLayout, RequestFormat};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `vodbench cache` subcommands.
#[derive(clap::Subcommand)]
pub(crate) enum CacheCmd {
    /// Replay a request trace through buffer pools at several cache sizes, in parallel; print
    /// and write miss ratios (cache.json, cache.csv/.parquet, speed.csv/.parquet,
    /// report.html).
    Replay(ReplayFlags),
    /// Write a synthetic request trace: Zipf popularity over objects 1..=N (libCacheSim's
    /// oracleGeneral with next accesses, zstd-compressed when FILE ends in .zst, or CSV
    /// `time,id,size` with a header when it ends in .csv).
    Generate(GenerateFlags),
}

/// Request trace formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// libCacheSim's binary oracleGeneral (24-byte records), plain or zstd-compressed.
    #[value(name = "oracleGeneral")]
    OracleGeneral,
    /// Delimited text, libCacheSim's CSV convention (--time-col, --id-col, --size-col, …).
    Csv,
    /// A vodbench workload trace: each block a viewer reads is a request (--block,
    /// --bit-rate, --video-length).
    Vodbench,
}

/// Arguments of `vodbench cache replay`.
#[derive(clap::Args)]
pub(crate) struct ReplayFlags {
    /// The request trace.
    #[arg(long)]
    trace: PathBuf,
    /// Its format (default: csv for a .csv file, vodbench for a file that starts with
    /// `# vodbench-trace`, oracleGeneral otherwise).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Buffer pools, comma-separated: plugin names (`global-lru` is LRU), each optionally
    /// with parameters as an inline TOML table: `s3-fifo{small_ratio = 0.2}`.
    #[arg(long, required = true)]
    pool: Vec<String>,
    /// Cache sizes in bytes, comma-separated (`1000`, `64MiB`); with unit-size objects, a
    /// number of objects.
    #[arg(long, required = true)]
    size: Vec<String>,
    /// Output folder (default: out/<trace file name>-cache).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (default: one per CPU); the results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Refuse a replay whose pools need each request's next access (`belady`) when
    /// computing them from the trace would need more memory than this (about 40 bytes a
    /// request; default 8GiB).
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
    /// CSV: 1-based column of the time (0: none).
    #[arg(long, default_value_t = 1)]
    time_col: usize,
    /// CSV: 1-based column of the object id.
    #[arg(long, default_value_t = 2)]
    id_col: usize,
    /// CSV: 1-based column of the object size (0: none, every object one byte).
    #[arg(long, default_value_t = 3)]
    size_col: usize,
    /// CSV: the field delimiter (one character; `tab` for a tab).
    #[arg(long, default_value = ",")]
    delimiter: String,
    /// CSV: the first line is a header.
    #[arg(long)]
    header: bool,
    /// CSV: ids are text, hashed to 64 bits (else unsigned integers).
    #[arg(long)]
    hashed_ids: bool,
    /// vodbench traces: the block each request reads (at most one whole video: a larger
    /// block is refused, not cut to the video).
    #[arg(long, default_value = "512KiB")]
    block: String,
    /// vodbench traces: every video's bit rate.
    #[arg(long, default_value = "4Mbit/s")]
    bit_rate: String,
    /// vodbench traces: every video's length.
    #[arg(long, default_value = "1h")]
    video_length: String,
    /// Print nothing but errors (the miss ratios are in the output folder).
    #[arg(long, short)]
    quiet: bool,
}

/// Arguments of `vodbench cache generate`.
#[derive(clap::Args)]
pub(crate) struct GenerateFlags {
    /// Distinct objects.
    #[arg(long)]
    objects: u64,
    /// Requests.
    #[arg(long)]
    requests: u64,
    /// Zipf skew (0 is uniform).
    #[arg(long, default_value_t = 1.0)]
    alpha: f64,
    /// Size of every object in bytes.
    #[arg(long, default_value_t = 1)]
    bytes: u32,
    /// Seed of the random stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Object ids spread over all 64 bits (object k becomes a bijective mix of k), as in
    /// traces of hashed keys; else 1..=N.
    #[arg(long)]
    sparse_ids: bool,
    /// The file to write (.zst: zstd-compressed oracleGeneral; .csv: CSV), and beside it
    /// its mark .FILE.vodbench.json (the size and SHA-256 of the bytes written). An existing
    /// FILE is replaced only when its mark is there and matches it byte for byte: a trace
    /// this command wrote and nobody changed since; any other file is refused (exit 2).
    #[arg(long)]
    out: PathBuf,
    /// Refuse to build a trace needing more memory than this (default 8GiB): the trace is
    /// built whole, as its next-access column needs every request.
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// `vodbench cache …`.
pub(crate) fn cmd(
    registry: &Registry,
    outputs: &Outputs,
    cmd: CacheCmd,
) -> Result<(), CommandError> {
    match cmd {
        CacheCmd::Replay(f) => replay(registry, outputs, f),
        CacheCmd::Generate(f) => generate(&f),
    }
}

impl From<CacheReplayError> for CommandError {
    fn from(e: CacheReplayError) -> Self {
        if let CacheReplayError::Contract(b) = &e {
            CommandError::Breach {
                message: e.to_string(),
                breach: b.clone(),
            }
        } else if e.is_input() {
            CommandError::input(e)
        } else {
            CommandError::failure(e)
        }
    }
}

fn format_of(f: &ReplayFlags) -> Result<(Format, RequestFormat), CommandError> {
    let format = match f.format {
        Some(x) => x,
        None if f.trace.extension().is_some_and(|e| e == "csv") => Format::Csv,
        None => {
            // opened as every input is (a FIFO or a kernel file refused, never waited on)
            let (_, file) = crate::input::open_regular(&f.trace, u64::MAX)
                .map_err(|m| CommandError::input(format!("{}: {m}", f.trace.display())))?;
            let mut head = Vec::new();
            let want = crate::trace::HEADER_LINE.len() as u64;
            std::io::Read::read_to_end(&mut std::io::Read::take(file, want), &mut head)
                .map_err(|e| CommandError::input(format!("{}: {e}", f.trace.display())))?;
            if head.starts_with(crate::trace::HEADER_LINE.as_bytes()) {
                Format::Vodbench
            } else {
                Format::OracleGeneral
            }
        }
    };
    let col = |flag: &str, c: usize| {
        if c > 10_000 {
            Err(CommandError::input(format!(
                "--{flag} {c}: a column number 1..=10000 (0: none)"
            )))
        } else {
            Ok((c > 0).then_some(c))
        }
    };
    Ok((
        format,
        match format {
            Format::OracleGeneral => RequestFormat::OracleGeneral,
            Format::Csv => {
                let delimiter = match f.delimiter.as_str() {
                    "tab" | "\\t" => b'\t',
                    d if d.len() == 1 && d.is_ascii() => d.as_bytes()[0],
                    d => {
                        return Err(CommandError::input(format!(
                            "--delimiter {d:?}: one ASCII character, or `tab`"
                        )))
                    }
                };
                let id_col = col("id-col", f.id_col)?.ok_or_else(|| {
                    CommandError::input("--id-col 0: the object id needs a column")
                })?;
                RequestFormat::Csv(CsvLayout {
                    time_col: col("time-col", f.time_col)?,
                    id_col,
                    size_col: col("size-col", f.size_col)?,
                    delimiter,
                    header: f.header,
                    hashed_ids: f.hashed_ids,
                })
            }
            Format::Vodbench => {
                let bad = |flag: &str, v: &str| {
                    CommandError::input(format!("--{flag} {v}: not a valid value"))
                };
                let block_bytes = crate::units::parse_bytes(&f.block)
                    .filter(|b| *b > 0)
                    .ok_or_else(|| bad("block", &f.block))?;
                let bit_rate = crate::units::parse_bit_rate(&f.bit_rate)
                    .filter(|b| *b > 0)
                    .ok_or_else(|| bad("bit-rate", &f.bit_rate))?;
                let length_ns = crate::units::parse_duration_ns(&f.video_length)
                    .filter(|l| *l > 0)
                    .ok_or_else(|| bad("video-length", &f.video_length))?;
                let bytes = u128::from(length_ns) * u128::from(bit_rate) / 8 / 1_000_000_000;
                if u128::from(block_bytes) > bytes.max(1) {
                    return Err(CommandError::input(format!(
                        "--block {}: {block_bytes} bytes, larger than a whole video ({bytes} \
                         bytes: --video-length {} at --bit-rate {}); each request reads one \
                         block of a video, so a block is at most one video",
                        f.block, f.video_length, f.bit_rate
                    )));
                }
                let video_blocks = u64::try_from(bytes.div_ceil(u128::from(block_bytes)))
                    .map_err(|_| bad("video-length", &f.video_length))?
                    .max(1);
                RequestFormat::Vodbench(BlockModel {
                    block_bytes,
                    bit_rate,
                    video_blocks,
                })
            }
        },
    ))
}

fn replay(registry: &Registry, outputs: &Outputs, f: ReplayFlags) -> Result<(), CommandError> {
    let started = std::time::Instant::now();
    super::check::set_max_memory(f.max_memory.as_deref())?;
    let (format, request_format) = format_of(&f)?;
    let pools: Vec<String> = f
        .pool
        .iter()
        .flat_map(|p| cache_replay::split_list(p))
        .collect();
    let sizes: Vec<String> = f
        .size
        .iter()
        .flat_map(|s| cache_replay::split_list(s))
        .collect();
    if pools.is_empty() {
        return Err(CommandError::input(
            "--pool: no buffer pool given: comma-separated plugin names like fifo,global-lru",
        ));
    }
    let pools = cache_replay::resolve_pools(registry, &pools)?;
    let sizes = cache_replay::parse_sizes(&sizes)?;
    let dir = f.out.clone().unwrap_or_else(|| {
        let stem = f
            .trace
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "trace".into());
        output::default_dir(&format!("{stem}-cache"))
    });
    let _lock =
        output::claim_output_dir(&dir, output::Claim::Exclusive, output::Writer::CacheReplay)?;
    let name = match format {
        Format::OracleGeneral => "oracleGeneral",
        Format::Csv => "csv",
        Format::Vodbench => "vodbench",
    };
    if let RequestFormat::Vodbench(model) = &request_format {
        refuse_too_many_block_reads(&f, model)?;
    }
    let workers = super::progress::worker_pool(f.threads)?;
    let replay = workers
        .install(|| cache_replay::replay_all(&f.trace, &request_format, name, &pools, &sizes))?;
    output::write_tree(
        &dir,
        output::Writer::CacheReplay,
        &replay.folder(),
        outputs.writers(),
    )?;
    if !f.quiet {
        print!("{}", replay.text());
        println!(
            "wall time {:.1}s; output: {}",
            started.elapsed().as_secs_f64(),
            dir.display()
        );
    }
    Ok(())
}

/// Refuses a vodbench workload trace whose block reads would be more requests than
/// [`requests::MAX_REQUESTS`] (the budget of `cache generate`), counted from its events
/// before any replay.
fn refuse_too_many_block_reads(f: &ReplayFlags, model: &BlockModel) -> Result<(), CommandError> {
    let reads = requests::count_block_reads_in(&f.trace, model)
        .map_err(|e| CommandError::input(e.to_string()))?;
    if reads <= u128::from(requests::MAX_REQUESTS) {
        return Ok(());
    }
    Err(CommandError::input(format!(
        "{}: read in blocks of --block {} ({} per --video-length {} video), its viewers would \
         make {reads} requests, more than the {} a replay takes (as `cache generate \
         --requests`): give a larger --block or a shorter --video-length",
        f.trace.display(),
        f.block,
        model.video_blocks,
        f.video_length,
        requests::MAX_REQUESTS
    )))
}

fn generate(f: &GenerateFlags) -> Result<(), CommandError> {
    if f.objects == 0 || f.requests == 0 || f.bytes == 0 {
        return Err(CommandError::input(
            "--objects, --requests and --bytes must be at least 1",
        ));
    }
    if !(f.alpha.is_finite() && (0.0..=10.0).contains(&f.alpha)) {
        return Err(CommandError::input(format!("--alpha {}: 0..=10", f.alpha)));
    }
    if f.objects > 1 << 28 || f.requests > requests::MAX_REQUESTS {
        return Err(CommandError::input(
            "--objects at most 2^28 and --requests at most 2^32 - 1",
        ));
    }
    super::check::set_max_memory(f.max_memory.as_deref())?;
    let name = f.out.to_string_lossy();
    let csv = name.ends_with(".csv");
    refuse_above_limit(f, csv)?;
    let _lock = output::lock_output(&f.out, output::Claim::Exclusive)?;
    file_mark::check_replaceable(&f.out, REQUEST_TRACE).map_err(CommandError::input)?;
    let mut reqs = requests::zipf_requests(f.objects, f.requests, f.alpha, f.bytes, f.seed);
    if f.sparse_ids {
        for r in &mut reqs {
            r.0 = crate::rng::mix64(r.0);
        }
    }
    let mut bytes = Vec::new();
    let written = if csv {
        requests::write_csv(&mut bytes, &reqs)
    } else {
        requests::write_oracle_general(&mut bytes, &reqs)
    };
    written.map_err(|e| CommandError::failure(format!("{}: {e}", f.out.display())))?;
    if name.ends_with(".zst") {
        bytes = zstd::encode_all(bytes.as_slice(), 3)
            .map_err(|e| CommandError::failure(format!("{}: {e}", f.out.display())))?;
    }
    write_file(&f.out, &bytes)?;
    file_mark::mark(&f.out, REQUEST_TRACE)?;
    if !f.quiet {
        println!("wrote {} requests to {}", f.requests, f.out.display());
    }
    Ok(())
}

/// Refuses a trace whose making would need more memory than the limit in force, before
/// allocating: the requests (16 bytes each), their next accesses (16) and the file's bytes
/// (24 per oracleGeneral record, and its compressed copy; about 20 per CSV line), and a
/// cumulative popularity and a last-seen map over the objects.
fn refuse_above_limit(f: &GenerateFlags, csv: bool) -> Result<(), CommandError> {
    let per_request: u64 = if csv { 16 + 21 } else { 16 + 16 + 24 + 24 };
    let need = f
        .requests
        .saturating_mul(per_request)
        .saturating_add(f.objects.saturating_mul(40))
        .saturating_add(24 << 20);
    let limit = crate::system::memory::limit();
    if need <= limit {
        return Ok(());
    }
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20));
    Err(CommandError::input(format!(
        "--requests {}: making this trace would need about {} of memory, more than the \
         limit of {} (--max-memory); it is built whole ({}). Ask for fewer requests, or \
         raise --max-memory",
        f.requests,
        mib(need),
        mib(limit),
        if csv {
            "every request, then the file"
        } else {
            "every request and its next access, then the file"
        }
    )))
}

/// What `cache generate` writes: a request trace whose mark beside it
/// ([`crate::file_mark`]) lets a later `cache generate` replace it, and nothing else. The
/// trace's own bytes are libCacheSim's formats unchanged, so every reader of them still
/// reads it.
const REQUEST_TRACE: file_mark::FileKind = file_mark::FileKind {
    format: "vodbench-request-trace/1",
    what: "a request trace `vodbench cache generate` wrote",
};

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CommandError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| CommandError::failure(format!("{}: {e}", parent.display())))?;
    }
    output::write_atomic(path, bytes)?;
    let _ = std::io::stdout().flush();
    Ok(())
}
