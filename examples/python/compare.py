"""The Python SSTF scheduler and LRU-K pool beside the built-ins on SPIFFI's base
configuration, in one `vodbench compare` report.

    python examples/python/compare.py [OUT]     # default OUT: out/python-compare

Runs scenarios/zipf1.toml four ways (built-in elevator + global LRU; Python SSTF; Python
LRU-2; both) and lays them side by side in OUT/report.html."""

import sys
from pathlib import Path

import vodbench

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import lru_k  # noqa: E402,F401  (registers py-lru-k and py-lru)
import sstf  # noqa: E402,F401  (registers py-sstf)

ROOT = HERE.parent.parent
BASE = (ROOT / "scenarios" / "zipf1.toml").read_text()


def variant(out, name, scheduler, pool):
    text = BASE.replace('name = "zipf1"', f'name = "{name}"', 1)
    text = text.replace('[disk.scheduler]\nname = "elevator"',
                        f'[disk.scheduler]\nname = "{scheduler}"', 1)
    text = text.replace('[buffer_pool]\nname = "global-lru"',
                        f'[buffer_pool]\nname = "{pool}"', 1)
    path = out / "scenarios" / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def main(out):
    out = Path(out)
    runs = []
    for name, scheduler, pool in [
        ("builtin-elevator-lru", "elevator", "global-lru"),
        ("python-sstf", "py-sstf", "global-lru"),
        ("python-lru2", "elevator", "py-lru-k"),
        ("python-sstf-lru2", "py-sstf", "py-lru-k"),
    ]:
        run = vodbench.run(variant(out, name, scheduler, pool), out=out / "runs" / name)
        print(f"{name:24} glitches {run.summary['glitches']['count']}", file=sys.stderr)
        runs.append(run)
    comparison = vodbench.compare(*runs, out=out / "compare")
    print(comparison.report())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/python-compare")
