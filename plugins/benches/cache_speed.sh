#!/usr/bin/env bash
# Requests per second of vodbench's LRU (global-lru) and FIFO against libCacheSim's on the
# same 10^7-request Zipf(1.0) oracleGeneral trace (10^6 objects, unit sizes), one thread,
# measured alternately ROUNDS times (the speed table of docs/cache-replay.md). With `sparse`, the
# objects' ids are spread over 64 bits (`cache generate --sparse-ids`), as hashed keys are.
#
#   plugins/benches/cache_speed.sh [ROUNDS] [sparse]     (default 3 rounds, ids 1..=10^6)
#
# Needs target/release/vodbench (or VODBENCH=path) and a Python with libCacheSim
# (`pip install libcachesim`; PYTHON=path, default python3). libCacheSim's time is that of
# its C replay loop (`process_trace`, its own reader included); vodbench's, that of each
# job from opening the trace to its last request.
set -euo pipefail
rounds=${1:-3}
vodbench=${VODBENCH:-target/release/vodbench}
python=${PYTHON:-python3}
sizes=1000,10000,100000,500000
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace=$work/zipf.oracleGeneral
sparse=()
if [ "${2:-}" = sparse ]; then sparse=(--sparse-ids); fi
"$vodbench" cache generate --objects 1000000 --requests 10000000 --alpha 1.0 --seed 1 "${sparse[@]}" \
    --out "$trace" >/dev/null
for round in $(seq 1 "$rounds"); do
    "$vodbench" cache replay --trace "$trace" --pool global-lru,fifo --size "$sizes" --threads 1 \
        --out "$work/out" >/dev/null
    paste -d, "$work/out/speed.csv" "$work/out/cache.csv" \
        | awk -F, -v r="$round" 'NR > 1 { printf "vodbench    round %s %-10s %7s  %6.2f M requests/s  miss ratio %.6f\n", r, $1, $2, $4 / 1e6, $13 }'
    "$python" - "$trace" "$sizes" "$round" <<'PY'
import sys, time, libcachesim as l
trace, sizes, r = sys.argv[1], [int(s) for s in sys.argv[2].split(',')], sys.argv[3]
for name, algo in [('lru', l.LRU), ('fifo', l.FIFO)]:
    for size in sizes:
        reader = l.TraceReader(trace, l.TraceType.ORACLE_GENERAL_TRACE)
        cache = algo(cache_size=size)
        t = time.perf_counter()
        ratio, _ = cache.process_trace(reader)
        dt = time.perf_counter() - t
        print(f"libCacheSim round {r} {name:<10} {size:>7}  {10_000_000 / dt / 1e6:6.2f} M requests/s  miss ratio {ratio:.6f}")
PY
done
