"""Shared helpers: the repository's paths, the example policies registered, scenario
variants written into a test's temporary folder."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
sys.path.insert(0, str(EXAMPLES))

import fcfs_fifo  # noqa: E402,F401  (registers py-fcfs, py-fifo)
import lru_k  # noqa: E402,F401  (registers py-lru-k, py-lru)
import sstf  # noqa: E402,F401  (registers py-sstf)

ZIPF1 = ROOT / "scenarios" / "zipf1.toml"
TINY = ROOT / "tests" / "fixtures" / "tiny.toml"


def target_dir() -> Path:
    t = os.environ.get("CARGO_TARGET_DIR")
    return Path(t) if t else ROOT / "target"


def cdylib(name: str) -> Path | None:
    """The workspace's cdylib ``lib{name}.so`` as cargo's release build left it (``deps/``
    for a crate with tests, else ``release/``), or None."""
    for d in (target_dir() / "release" / "deps", target_dir() / "release"):
        if (d / f"lib{name}.so").is_file():
            return d / f"lib{name}.so"
    return None


def variant(base: Path, out: Path, name: str, replace: dict[str, str] = {},
            before_terminals: str = "") -> Path:
    """``base`` with each key of ``replace`` replaced by its value (each must occur) and
    ``before_terminals`` inserted before ``[terminals]``, written as ``out/name.toml``."""
    text = base.read_text()
    for old, new in replace.items():
        assert old in text, f"{base} no longer has {old!r}"
        text = text.replace(old, new, 1)
    if before_terminals:
        text = text.replace("[terminals]", before_terminals + "\n[terminals]", 1)
    p = out / f"{name}.toml"
    p.write_text(text)
    return p


def results(folder: Path) -> dict[str, bytes]:
    """Every results file of an output folder (CSV tables and summary.json)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and (p.suffix == ".csv" or p.name == "summary.json")}


@pytest.fixture
def tiny(tmp_path):
    return TINY
