"""vodbench from Python.

Scenarios run in-process by vodbench's own command code (the output folders are the same,
byte for byte, as the ``vodbench`` command line writes), results read as polars DataFrames,
and policies of every plugin kind written as Python classes::

    import vodbench

    @vodbench.plugin("disk-scheduler", name="my-fcfs")
    class Fcfs:
        def __init__(self, params, ctx):
            self.queue = collections.deque()
        def enqueue(self, request):
            self.queue.append(request.id)
        def dequeue(self, head):
            return self.queue.popleft() if self.queue else None
        def len(self):
            return len(self.queue)

    run = vodbench.run("scenarios/zipf1.toml")
    print(run.summary["glitches"], run.disks)

See ``python/README.md`` for every call, and ``vodbench/__init__.pyi`` for the methods each
kind's class has.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import marshal
import os
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

from . import _native
from ._native import (  # noqa: F401  (re-exported: what policies receive)
    CacheRequest,
    CacheView,
    DiskAccess,
    Fetch,
    HeadState,
    LayoutView,
    Placement,
    QueuedRequest,
    ReadyBlock,
    Reference,
    ScheduleSpec,
    ServerLoad,
    StreamRequest,
)
from .errors import InputError, PluginError, RunError, ScenarioError, VodbenchError

__all__ = [
    "run", "search", "sweep", "compare", "analyze", "cache_replay", "cache_generate", "load",
    "plugin",
    "plugins", "Folder", "Run", "VodbenchError", "InputError", "RunError", "ScenarioError",
    "PluginError", "KINDS",
]  # and each kind's Protocol (DiskScheduler, BufferPool, ...), made below

#: The plugin kinds, as ``vodbench.plugin`` takes them (a scenario key such as
#: ``disk.scheduler`` is accepted too), from the kinds table: ``disk-model``,
#: ``disk-scheduler``, ``buffer-pool``, ... ``analytic``.
KINDS: tuple[str, ...] = _native.KINDS


def _declared(kind: str, trait: str, method: str) -> Callable[..., Any]:
    """``method`` as a kind's Protocol declares it: a class that inherits it without
    defining the method is refused at registration (see :func:`plugin`)."""

    def declared(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__qualname__}.{method}: a {kind} policy "
                                  f"defines it ({trait} only declares it)")

    declared.__name__ = declared.__qualname__ = method
    declared.__vodbench_declared__ = True  # type: ignore[attr-defined]
    return declared


def _protocols() -> dict[str, type]:
    """Each kind's ``typing.Protocol`` (``DiskScheduler``, ``BufferPool``, ...), made from
    the native kinds table: its required methods, by name (``__init__.pyi`` gives their
    signatures). A policy may subclass one, for the type checker's sake."""
    made = {}
    for kind, trait, required, optional in _native.kind_methods():
        doc = f"``{kind}``" + (f"; optional: {', '.join(f'``{m}``' for m in optional)}"
                               if optional else "")
        namespace = {m: _declared(kind, trait, m) for m in required}

        def body(ns: dict, namespace: dict = namespace, doc: str = doc) -> None:
            ns.update(namespace, __doc__=doc, __module__=__name__)

        made[trait] = types.new_class(trait, (Protocol,), {}, body)
    return made


_PROTOCOLS = _protocols()
globals().update(_PROTOCOLS)
__all__ += list(_PROTOCOLS)

PathLike = str | os.PathLike


# ------------------------------------------------------------------------------------------
# policies written in Python

def _source_identity(cls: type) -> tuple[str, str]:
    """``file#Class`` and the SHA-256 of the class's source (of its methods' code when the
    source cannot be read, as in an interactive session)."""
    try:
        file = inspect.getsourcefile(cls) or "<python>"
    except TypeError:
        file = "<python>"
    try:
        text = inspect.getsource(cls).encode()
    except (OSError, TypeError):
        parts = []
        for name, member in sorted(vars(cls).items()):
            code = getattr(member, "__code__", None)
            parts.append(name.encode() + (marshal.dumps(code) if code else b""))
        text = b"\0".join(parts)
    path = f"{os.path.abspath(file) if not file.startswith('<') else file}#{cls.__qualname__}"
    return path, hashlib.sha256(text).hexdigest()


def plugin(kind: str, name: str | None = None, *, schema: dict | str | None = None,
           description: str | None = None) -> Callable[[type], type]:
    """Registers the decorated class as a policy of ``kind`` (one of :data:`KINDS`), chosen
    by ``name`` (default: the class name) in a scenario like a built-in.

    The class is instantiated as ``cls(params, ctx)`` once per instance the engine builds
    (one per disk for schedulers and disk models, one per node for buffer pools, ...):
    ``params`` is the scenario table's parameters as a dict (validated against ``schema``, a
    JSON Schema, whose ``default``\\ s are filled in; without a schema the policy takes no
    parameters), ``ctx`` a dict of the build context (``seed``, ``component``, ``index``,
    ``nodes``, ``terminals``, ``pages``, ``block_bytes``, ``video_blocks``, ``geometry``, ...).
    Its methods are those of the kind's Rust trait, by the same names (see the stubs).

    A method that raises ends the run with :class:`PluginError` naming the policy, the
    method and the traceback; an answer the engine refuses, with :class:`PluginError` naming
    the policy (``method`` ``None``). Registering the same class (its file and qualified
    name) under the same ``name`` again replaces it (a notebook cell run twice); one class
    under several names, or a factory's several classes, are all kept. The class may
    subclass the kind's Protocol (``vodbench.DiskScheduler``, ...); a method the Protocol
    declares and the class leaves undefined is refused here, as a missing one is.
    """
    if isinstance(schema, dict):
        schema = json.dumps(schema)

    def register(cls: type) -> type:
        if not isinstance(cls, type):
            raise TypeError("vodbench.plugin decorates a class")
        for m in dir(cls):
            if getattr(getattr(cls, m, None), "__vodbench_declared__", False):
                raise PluginError(f"{kind} `{name or cls.__name__}`: the class has no `{m}` "
                                  "method of its own (the Protocol it subclasses only "
                                  "declares it)")
        source, digest = _source_identity(cls)
        doc = (description or (cls.__doc__ or "").strip().split("\n")[0]
               or f"a Python {kind} policy")
        policy_name = name or cls.__name__
        _native.register(kind, policy_name, cls, doc, schema, source, digest)
        cls.__vodbench_plugin__ = (kind, policy_name)
        return cls

    return register


def plugins() -> list[dict]:
    """Every registered plugin (built-ins and Python policies): ``kind``, ``name``,
    ``description``, ``params`` — what ``vodbench plugins`` lists."""
    return json.loads(_native.plugins_json())


# ------------------------------------------------------------------------------------------
# output folders

_SUMMARIES = ("summary.json", "search.json", "sweep.json", "cache.json", "analysis.json",
              "compare-runs.json")


class Folder:
    """A saved output folder: its summary (the folder's main JSON file) and its tables as
    polars DataFrames, read when first asked for (``folder.disks``, ``folder.tables``)."""

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise InputError(f"{self.path}: not an output folder (no such directory)")
        self._tables: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    @property
    def summary(self) -> dict:
        """The folder's main JSON file (``summary.json`` of a run, ``search.json``,
        ``sweep.json``, ``cache.json``, ``analysis.json``), as a dict."""
        for name in _SUMMARIES:
            f = self.path / name
            if f.is_file():
                return json.loads(f.read_text())
        raise InputError(f"{self.path}: no summary ({', '.join(_SUMMARIES)})")

    @property
    def manifest(self) -> dict | None:
        """``manifest.json`` (how the folder was made), or ``None``."""
        f = self.path / "manifest.json"
        return json.loads(f.read_text()) if f.is_file() else None

    def table_names(self) -> list[str]:
        """The tables the folder holds (by file name without extension)."""
        names = {p.stem for p in self.path.iterdir()
                 if p.suffix in (".parquet", ".csv") and p.is_file()}
        return sorted(names)

    def table(self, name: str):
        """Table ``name`` as a polars DataFrame (its Parquet file when there is one)."""
        if name not in self._tables:
            import polars as pl

            pq, csv = self.path / f"{name}.parquet", self.path / f"{name}.csv"
            if pq.is_file():
                self._tables[name] = pl.read_parquet(pq)
            elif csv.is_file():
                self._tables[name] = pl.read_csv(csv)
            else:
                raise KeyError(f"{self.path}: no table {name!r}; it has "
                               f"{', '.join(self.table_names()) or 'none'}")
        return self._tables[name]

    @property
    def tables(self) -> dict:
        """Every table, by name."""
        return {n: self.table(n) for n in self.table_names()}

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.table(name)
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def __dir__(self) -> Iterable[str]:
        return [*super().__dir__(), *self.table_names()]

    def report(self, path: PathLike | None = None) -> Path:
        """The folder's HTML page (the command line's ``report.html``, drawn again with
        ``vodbench report`` when missing), copied to ``path`` when given; its path."""
        page = self.path / "report.html"
        if not page.is_file():
            _command(["report", str(self.path)])
        if path is None:
            return page
        dest = Path(path)
        if dest.is_dir():
            dest = dest / "report.html"
        dest.write_bytes(page.read_bytes())
        return dest


class Run(Folder):
    """A run's output folder (``summary.json``, ``disks``, ``timeseries``, ``requests``,
    ``terminals``/``clients``, ``nodes``... as the run wrote them)."""


class Search(Folder):
    """A search's output folder (``search.json``, ``curve``)."""


class Sweep(Folder):
    """A sweep's output folder (``sweep.json``, ``sweep`` table, ``points/``)."""


class Comparison(Folder):
    """A comparison's output folder (``report.html``, ``compare-runs.json``)."""

    @property
    def runs(self) -> list[Folder]:
        """The runs laid side by side."""
        listed = json.loads((self.path / "compare-runs.json").read_text())
        entries = listed["runs"] if isinstance(listed, dict) else listed
        return [load(self.path / e["dir"]) for e in entries]


class Analysis(Folder):
    """An analysis's output folder (``analysis.json`` and its tables)."""


def load(folder: PathLike) -> Folder:
    """Any saved output folder, by what it holds: :class:`Run`, :class:`Search`,
    :class:`Sweep`, :class:`Comparison`, :class:`Analysis` or a plain :class:`Folder`."""
    p = Path(folder)
    if not p.is_dir():
        raise InputError(f"{p}: not an output folder (no such directory)")
    for name, cls in (("summary.json", Run), ("search.json", Search), ("sweep.json", Sweep),
                      ("compare-runs.json", Comparison), ("analysis.json", Analysis)):
        if (p / name).is_file():
            return cls(p)
    return Folder(p)


# ------------------------------------------------------------------------------------------
# commands

def _command(args: list[str], poll: Callable[[], None] | None = None) -> None:
    _native.run_command([str(a) for a in args], poll)


#: How an error names a scenario given as TOML text (its temporary file is gone by then).
_SCENARIO_TEXT = "the scenario text"


def _is_text(scenario: str) -> bool:
    """Whether the string ``scenario`` is TOML text rather than a path: it is not an existing
    file, and it holds a newline or ``=`` (``stripe=256KiB.toml`` is a path when it exists)."""
    return not os.path.isfile(scenario) and ("\n" in scenario or "=" in scenario)


@contextlib.contextmanager
def _scenario(scenario: PathLike) -> Iterator[str]:
    """A scenario file's path: ``scenario`` itself, or a TOML string written to a file in the
    current directory (relative paths in it resolve there) for the command's time; an error
    about it then names it as "the scenario text" (the file is gone when it is raised)."""
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and not _is_text(scenario)):
        yield os.fspath(scenario)
        return
    if not isinstance(scenario, str):
        raise TypeError(f"a scenario is a path or a TOML string, not {type(scenario).__name__}")
    fd, path = tempfile.mkstemp(prefix=".vodbench-scenario-", suffix=".toml", dir=os.getcwd())
    try:
        with os.fdopen(fd, "w") as f:
            f.write(scenario)
        yield path
    except ScenarioError as e:
        if e.file is not None and os.path.abspath(e.file) == os.path.abspath(path):
            e.file = _SCENARIO_TEXT
        e.args = tuple(a.replace(path, _SCENARIO_TEXT) if isinstance(a, str) else a
                       for a in e.args)
        raise
    except VodbenchError as e:
        e.args = tuple(a.replace(path, _SCENARIO_TEXT) if isinstance(a, str) else a
                       for a in e.args)
        raise
    finally:
        os.unlink(path)


def _plugin_args(plugins: Sequence[Any]) -> list[str]:
    out: list[str] = []
    if isinstance(plugins, (str, os.PathLike, type)):
        plugins = [plugins]
    for p in plugins:
        if isinstance(p, type):
            if not hasattr(p, "__vodbench_plugin__"):
                raise TypeError(f"{p.__qualname__} is not a vodbench policy: decorate it with "
                                "@vodbench.plugin(kind, name=...)")
        elif isinstance(p, (str, os.PathLike)):
            out += ["--plugin", os.fspath(p)]
        else:
            raise TypeError("plugins= takes plugin library paths and classes decorated with "
                            f"@vodbench.plugin, not {type(p).__name__}")
    return out


def _out(out: PathLike | None, what: str) -> str:
    return os.fspath(out) if out is not None else tempfile.mkdtemp(prefix=f"vodbench-{what}-")


def run(scenario: PathLike, *, terminals: int | None = None, seed: int | None = None,
        out: PathLike | None = None, plugins: Sequence[Any] = (), threads: int | None = None,
        quiet: bool = True) -> Run:
    """``vodbench run``: simulates ``scenario`` (a path or a TOML string) and returns its
    output folder (``out``, default a new temporary folder) as a :class:`Run`."""
    out = _out(out, "run")
    args = ["run", "--out", out, *_plugin_args(plugins)]
    if terminals is not None:
        args.append(f"--terminals={terminals}")
    if seed is not None:
        args.append(f"--seed={seed}")
    if threads is not None:
        args.append(f"--threads={threads}")
    if quiet:
        args.append("--quiet")
    with _scenario(scenario) as path:
        _command([*args, path])
    return Run(out)


def _limits(seeds, min_seeds, max_terminals, threads, stop_at_glitch, cache) -> list[str]:
    a: list[str] = []
    for flag, v in (("--seeds", seeds), ("--min-seeds", min_seeds),
                    ("--max-terminals", max_terminals), ("--threads", threads),
                    ("--cache", cache)):
        if v is not None:
            a.append(f"{flag}={os.fspath(v) if isinstance(v, os.PathLike) else v}")
    if stop_at_glitch:
        a.append("--stop-at-glitch")
    return a


def search(scenario: PathLike, *, out: PathLike | None = None, seeds: int | None = None,
           min_seeds: int | None = None, max_terminals: int | None = None,
           threads: int | None = None, stop_at_glitch: bool = False,
           cache: PathLike | None = None, plugins: Sequence[Any] = ()) -> Search:
    """``vodbench search``: the largest glitch-free terminal count; its folder
    (``search.json`` as ``.summary``, the ``curve`` table)."""
    out = _out(out, "search")
    args = ["search", "--out", out, "--quiet",
            *_limits(seeds, min_seeds, max_terminals, threads, stop_at_glitch, cache),
            *_plugin_args(plugins)]
    with _scenario(scenario) as path:
        _command([*args, path])
    return Search(out)


class _Progress:
    """Sweep progress: tqdm when it is installed, else one line on standard error, and the
    user's callback, from the points this command saves as they finish.

    What ``points/`` held before the command started (each file's name, size, modification
    time and, with ``resume``, content) is noted first: a checkpoint counts once this command
    has written it, and only for a point it searches (``searched``: the grid indices, or
    ``None`` for all). The command writes every checkpoint of the folder again at its end,
    so a point it did not search (not asked for; kept by ``resume``, whose checkpoint is
    then written again unchanged) is never counted."""

    def __init__(self, folder: Path, show: bool, callback, points: list[dict] | None,
                 total: int | None, searched: set[int] | None, resume: bool) -> None:
        self.folder, self.callback, self.seen = folder / "points", callback, set()
        self.points = points or []
        self.searched, self.resume = searched, resume
        self.before = self._snapshot()
        self.bar = None
        self.show = show
        self.started = time.monotonic()
        if show:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(desc="sweep", unit="point", total=total)
            except ImportError:
                self.bar = None

    def _snapshot(self) -> dict[str, tuple[int, int, bytes | None]]:
        if not self.folder.is_dir():
            return {}
        out = {}
        for f in self.folder.glob("[0-9]*.json"):
            try:
                st = f.stat()
                text = f.read_bytes() if self.resume else None
            except OSError:
                continue
            out[f.name] = (st.st_size, st.st_mtime_ns, text)
        return out

    def _point(self, f: Path, saved: dict) -> dict:
        """Point ``f.stem``'s entry: ``index``, ``label``, ``values`` (as ``sweep.json``
        will give them), ``max_terminals`` (the replications' mean answer, rounded, as
        ``sweep.json``'s), ``replications``, ``converged`` and ``file`` (the checkpoint)."""
        index = int(f.stem)
        known = self.points[index] if index < len(self.points) else {}
        answers = [r["max_terminals"] for r in saved.get("replications", [])]
        capped = any(r.get("capped") for r in saved.get("replications", []))
        mean = sum(answers) / len(answers) if answers else 0.0
        return {
            "index": index,
            "label": known.get("label"),
            "values": known.get("values"),
            # Rust's f64::round: halves away from zero (the mean is never negative)
            "max_terminals": int(mean + 0.5) if answers else None,
            "replications": len(answers),
            "converged": bool(saved.get("converged")) and not capped,
            "file": str(f),
        }

    def __call__(self) -> None:
        if not self.folder.is_dir():
            return
        for f in sorted(self.folder.glob("[0-9]*.json")):
            # points/NNN.json, written atomically (a temporary name first, then renamed)
            if f.name in self.seen or not f.stem.isdigit():
                continue
            if self.searched is not None and int(f.stem) not in self.searched:
                continue  # a point this command does not search
            try:
                st = f.stat()
                old = self.before.get(f.name)
                if old is not None and old[:2] == (st.st_size, st.st_mtime_ns):
                    continue  # an earlier sweep's, not written again (yet)
                text = f.read_bytes()
                if old is not None and self.resume and old[2] == text:
                    continue  # kept by resume: written again as it was
                saved = json.loads(text)
            except (OSError, ValueError):
                continue  # being written: next time
            self.seen.add(f.name)
            if self.bar is not None:
                self.bar.update(1)
            elif self.show:
                print(f"\rsweep: {len(self.seen)} points done "
                      f"({time.monotonic() - self.started:.0f} s)", end="", file=sys.stderr,
                      flush=True)
            if self.callback is not None:
                self.callback(len(self.seen), self._point(f, saved))

    def close(self, final: bool = True) -> None:
        if final:
            self()  # the points saved since the last look
        if self.bar is not None:
            self.bar.close()
        elif self.show and self.seen:
            print(file=sys.stderr)


def sweep(scenario: PathLike, *, out: PathLike | None = None, points: Sequence[int] = (),
          seeds: int | None = None, min_seeds: int | None = None,
          max_terminals: int | None = None, threads: int | None = None,
          stop_at_glitch: bool = False, cache: PathLike | None = None, resume: bool = False,
          progress: bool = True, callback: Callable[[int, dict], None] | None = None,
          plugins: Sequence[Any] = ()) -> Sweep:
    """``vodbench sweep``: a search at every point of the scenario's ``[sweep]``.

    Progress shows as a tqdm bar when tqdm is installed (else one line on standard error);
    ``progress=False`` hides it. ``callback(done, point)`` is called on the calling thread
    as each point this command searches finishes, with the number of points done so far and
    the point that finished: a dict with ``index`` (its grid index, ``points/NNN.json``),
    ``label`` and ``values`` (as ``sweep.json`` will give them), ``max_terminals`` (as
    ``sweep.json`` will give it), ``replications``, ``converged`` and ``file`` (its saved
    checkpoint). Points an earlier sweep into the same folder saved (and ``resume=True``
    keeps) are not counted. An exception the callback raises stops the sweep and is raised
    again."""
    out = _out(out, "sweep")
    libraries = _plugin_args(plugins)
    args = ["sweep", "--out", out, "--quiet",
            *_limits(seeds, min_seeds, max_terminals, threads, stop_at_glitch, cache),
            *libraries]
    if points:
        args += ["--points", ",".join(str(p) for p in points)]
    if resume:
        args.append("--resume")
    with _scenario(scenario) as path:
        grid = None
        if callback is not None or progress:
            try:
                grid = json.loads(_native.sweep_points(path, libraries[1::2]))
            except VodbenchError:
                grid = None  # the command reports what is wrong with the file
        total = None if resume or grid is None else (len(points) if points else len(grid))
        searched = set(points) if points else None
        shown = _Progress(Path(out), progress, callback, grid, total, searched, resume)
        try:
            _command([*args, path], shown)
        except BaseException:
            shown.close(final=False)
            raise
        shown.close()
    return Sweep(out)


def compare(*inputs: Any, out: PathLike | None = None, replications: int | None = None,
            terminals: int | None = None, baseline: str | None = None,
            plugins: Sequence[Any] = ()) -> Comparison:
    """``vodbench compare``: one HTML report laying runs side by side. Each input is a saved
    folder (a path or a :class:`Folder`) or a scenario file to run now."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    out = _out(out, "compare")
    args = ["compare", "--out", out, "--quiet", *_plugin_args(plugins)]
    if replications is not None:
        args.append(f"--replications={replications}")
    if terminals is not None:
        args.append(f"--terminals={terminals}")
    if baseline is not None:
        args += ["--baseline", baseline]
    args += [os.fspath(i.path) if isinstance(i, Folder) else os.fspath(i) for i in inputs]
    _command(args)
    return Comparison(out)


def analyze(scenario: PathLike, *, out: PathLike | None = None,
            plugins: Sequence[Any] = ()) -> Analysis:
    """``vodbench analyze``: the scenario's analytic model (``[analytic]``) at every point;
    its folder (``analysis.json`` as ``.summary``, its tables)."""
    out = _out(out, "analysis")
    args = ["analyze", "--out", out, "--quiet", *_plugin_args(plugins)]
    with _scenario(scenario) as path:
        _command([*args, path])
    return Analysis(out)


def cache_replay(trace: PathLike, *, pools: str | Sequence[str], sizes: Any,
                 out: PathLike | None = None, format: str | None = None,
                 threads: int | None = None, plugins: Sequence[Any] = (),
                 folder: bool = False):
    """``vodbench cache replay``: the request trace through each buffer pool (plugin names,
    Python policies included; ``"s3-fifo{small_ratio = 0.2}"`` gives parameters) at each
    cache size (bytes, ``"64MiB"``, or objects for unit-size traces). Returns the miss
    ratios as a polars DataFrame (one row per pool and size), or the whole output folder
    with ``folder=True``."""
    out = _out(out, "cache")
    pools = [pools] if isinstance(pools, str) else list(pools)
    sizes = [sizes] if isinstance(sizes, (str, int)) else list(sizes)
    args = ["cache", "replay", "-q", "--trace", os.fspath(trace), "--out", out,
            "--pool", ",".join(pools), "--size", ",".join(str(s) for s in sizes),
            *_plugin_args(plugins)]
    if format is not None:
        args += ["--format", format]
    if threads is not None:
        args.append(f"--threads={threads}")
    _command(args)
    f = Folder(out)
    return f if folder else f.table("cache")


def cache_generate(path: PathLike, *, objects: int, requests: int, alpha: float = 1.0,
                   bytes: int = 1, seed: int = 1, sparse_ids: bool = False) -> Path:
    """``vodbench cache generate``: a synthetic request trace with Zipf(``alpha``)
    popularity over ``objects`` objects (oracleGeneral, zstd-compressed when ``path`` ends
    in ``.zst``, CSV when in ``.csv``); its path."""
    args = ["cache", "generate", "-q", "--out", os.fspath(path), f"--objects={objects}",
            f"--requests={requests}", f"--alpha={float(alpha)!r}", f"--bytes={bytes}",
            f"--seed={seed}"]
    if sparse_ids:
        args.append("--sparse-ids")
    _command(args)
    return Path(path)
