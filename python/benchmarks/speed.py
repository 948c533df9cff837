"""The Python package's two speed figures (a benchmark, not a test):

1. zipf1 with the Python SSTF (examples/python/sstf.py) against the Rust SSTF of
   examples/sstf-plugin loaded with --plugin: wall time, alternated, best of 5 each;
2. a cache replay of a 10^6-request Zipf trace through the Python LRU pool
   (examples/python/lru_k.py, `py-lru`) against libCacheSim's own Python plugin cache (an
   LRU of OrderedDict hooks, its documented example) on the same trace: requests per second.

    python python/benchmarks/speed.py [--libcachesim PYTHON] [--repeat 5]

PYTHON: an interpreter with `libcachesim` (default $VODBENCH_LIBCACHESIM_PYTHON, else
/tmp/vodbench-libcachesim/bin/python, where .ci/run installs it)."""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
sys.path.insert(0, str(ROOT / "python" / "tests"))

import vodbench  # noqa: E402
import lru_k  # noqa: E402,F401
import sstf  # noqa: E402,F401
from conftest import cdylib, variant  # noqa: E402

LIBCACHESIM_LRU = r"""
import sys, time
from collections import OrderedDict
import libcachesim as l

def init_hook(params):
    return OrderedDict()
def hit_hook(cache, req):
    cache.move_to_end(req.obj_id, last=True)
def miss_hook(cache, req):
    cache[req.obj_id] = req.obj_size
def eviction_hook(cache, req):
    return cache.popitem(last=False)[0]
def remove_hook(cache, obj_id):
    cache.pop(obj_id, None)
def free_hook(cache):
    cache.clear()

reader = l.TraceReader(sys.argv[1], l.TraceType.ORACLE_GENERAL_TRACE)
cache = l.PluginCache(cache_size=int(sys.argv[2]), cache_init_hook=init_hook,
                      cache_hit_hook=hit_hook, cache_miss_hook=miss_hook,
                      cache_eviction_hook=eviction_hook, cache_remove_hook=remove_hook,
                      cache_free_hook=free_hook, cache_name="PythonLRU")
t = time.perf_counter()
ratio, _ = cache.process_trace(reader)
print(time.perf_counter() - t, ratio)
"""


def best(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def sstf_figure(tmp: Path, repeat: int) -> None:
    lib = cdylib("vodbench_sstf_example")
    if lib is None:
        sys.exit("build the Rust SSTF first: cargo build --release -p vodbench-sstf-example")
    zipf1 = ROOT / "scenarios" / "zipf1.toml"
    table = '[disk.scheduler]\nname = "elevator"'
    files = {n: variant(zipf1, tmp, n, {table: f'[disk.scheduler]\nname = "{n}"'})
             for n in ("sstf", "py-sstf")}
    times = {"sstf": [], "py-sstf": []}
    for i in range(repeat):
        for n in ("sstf", "py-sstf") if i % 2 == 0 else ("py-sstf", "sstf"):
            t = time.perf_counter()
            vodbench.run(files[n], out=tmp / f"{n}-{i}", plugins=[lib])
            times[n].append(time.perf_counter() - t)
    a, b = min(times["sstf"]), min(times["py-sstf"])
    same = (tmp / "sstf-0" / "summary.json").read_bytes() == \
        (tmp / "py-sstf-0" / "summary.json").read_bytes()
    print(f"zipf1, Rust SSTF (--plugin): {a:.2f} s; Python SSTF: {b:.2f} s; "
          f"ratio {b / a:.2f} (best of {repeat}, alternated; summaries equal: {same})")


def cache_figure(tmp: Path, python: str | None, repeat: int) -> None:
    trace = vodbench.cache_generate(tmp / "zipf.zst", objects=100_000, requests=1_000_000)
    size = 10_000
    ours = []
    for i in range(repeat):
        t = time.perf_counter()
        df = vodbench.cache_replay(trace, pools="py-lru", sizes=size, threads=1,
                                   out=tmp / f"c{i}")
        ours.append(time.perf_counter() - t)
    ratio = df["miss_ratio"][0]
    print(f"cache replay, 10^6 requests, 10^5 objects, {size} cached: vodbench + Python "
          f"LRU pool {1e6 / min(ours):,.0f} requests/s (miss ratio {ratio:.4f})")
    if python is None or not Path(python).exists():
        print("libCacheSim: no interpreter with libcachesim; not compared")
        return
    theirs = []
    for _ in range(repeat):
        o = subprocess.run([python, "-c", LIBCACHESIM_LRU, str(trace), str(size)],
                           capture_output=True, text=True, check=True)
        secs, r = o.stdout.split()
        theirs.append(float(secs))
    print(f"  libCacheSim PluginCache (Python LRU hooks): {1e6 / min(theirs):,.0f} "
          f"requests/s (miss ratio {float(r):.4f}); ours/theirs "
          f"{min(theirs) / min(ours):.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--libcachesim", default=os.environ.get(
        "VODBENCH_LIBCACHESIM_PYTHON", "/tmp/vodbench-libcachesim/bin/python"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", choices=["sstf", "cache"])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        if a.only in (None, "sstf"):
            sstf_figure(Path(d), a.repeat)
        if a.only in (None, "cache"):
            cache_figure(Path(d), a.libcachesim, a.repeat)


if __name__ == "__main__":
    main()
