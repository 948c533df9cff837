"""vodbench from Python: scenarios run in-process, results as polars DataFrames, policies
written as Python classes. Times are integers in nanoseconds; blocks are ``(video, index)``
tuples; ids are integers."""

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol, Sequence

import polars

from .errors import (
    InputError as InputError,
    PluginError as PluginError,
    RunError as RunError,
    ScenarioError as ScenarioError,
    VodbenchError as VodbenchError,
)

PathLike = str | os.PathLike[str]
Block = tuple[int, int]

KINDS: tuple[str, ...]

# ---------------------------------------------------------------------------------------
# commands

def run(scenario: PathLike, *, terminals: int | None = None, seed: int | None = None,
        out: PathLike | None = None, plugins: Sequence[PathLike | type] = (),
        threads: int | None = None, quiet: bool = True) -> Run:
    """``vodbench run``: simulates ``scenario`` (a path or a TOML string); its output folder
    (``out``, default a new temporary folder). ``plugins``: plugin libraries (``.so``) to
    load and Python policy classes (decorated with :func:`plugin`) the run may choose.
    Raises :class:`ScenarioError`, :class:`PluginError`, :class:`InputError`,
    :class:`RunError`; Ctrl-C stops it (``KeyboardInterrupt``)."""

def search(scenario: PathLike, *, out: PathLike | None = None, seeds: int | None = None,
           min_seeds: int | None = None, max_terminals: int | None = None,
           threads: int | None = None, stop_at_glitch: bool = False,
           cache: PathLike | None = None, plugins: Sequence[PathLike | type] = ()) -> Search:
    """``vodbench search``: the largest glitch-free terminal count (``search.json`` as
    ``.summary``, the ``curve`` table)."""

def sweep(scenario: PathLike, *, out: PathLike | None = None, points: Sequence[int] = (),
          seeds: int | None = None, min_seeds: int | None = None,
          max_terminals: int | None = None, threads: int | None = None,
          stop_at_glitch: bool = False, cache: PathLike | None = None, resume: bool = False,
          progress: bool = True,
          callback: Callable[[int, dict[str, Any]], None] | None = None,
          plugins: Sequence[PathLike | type] = ()) -> Sweep:
    """``vodbench sweep``: a search at every point of ``[sweep]``. Progress as a tqdm bar
    (when installed; else a line on standard error); ``callback(done, point)`` as each point
    this call searches finishes (an exception it raises stops the sweep): ``done`` counts
    them, ``point`` is ``{"index": int, "label": str, "values": dict, "max_terminals": int,
    "replications": int, "converged": bool, "file": str}`` (index, label, values and
    max_terminals as ``sweep.json`` gives them). An earlier sweep's points in ``out`` (and
    those ``resume=True`` keeps) are not counted."""

def compare(*inputs: PathLike | Folder, out: PathLike | None = None,
            replications: int | None = None, terminals: int | None = None,
            baseline: str | None = None,
            plugins: Sequence[PathLike | type] = ()) -> Comparison:
    """``vodbench compare``: saved folders and scenario files side by side in one HTML
    report."""

def analyze(scenario: PathLike, *, out: PathLike | None = None,
            plugins: Sequence[PathLike | type] = ()) -> Analysis:
    """``vodbench analyze``: the scenario's analytic model at every point."""

def cache_replay(trace: PathLike, *, pools: str | Sequence[str],
                 sizes: int | str | Sequence[int | str], out: PathLike | None = None,
                 format: str | None = None, threads: int | None = None,
                 plugins: Sequence[PathLike | type] = (),
                 folder: bool = False) -> polars.DataFrame:
    """``vodbench cache replay``: miss ratios per pool and cache size, as a DataFrame (the
    output folder with ``folder=True``)."""

def cache_generate(path: PathLike, *, objects: int, requests: int, alpha: float = 1.0,
                   bytes: int = 1, seed: int = 1, sparse_ids: bool = False) -> Path:
    """``vodbench cache generate``: a synthetic Zipf request trace; its path."""

def load(folder: PathLike) -> Folder:
    """Any saved output folder: :class:`Run`, :class:`Search`, :class:`Sweep`,
    :class:`Comparison`, :class:`Analysis` or :class:`Folder`."""

def plugins() -> list[dict[str, Any]]:
    """Every registered plugin: ``kind``, ``name``, ``description``, ``params``."""

def plugin(kind: str, name: str | None = None, *, schema: dict[str, Any] | str | None = None,
           description: str | None = None) -> Callable[[type], type]:
    """Registers the decorated class as a policy of ``kind`` (one of :data:`KINDS`) named
    ``name`` (default: the class name). It is built as ``cls(params, ctx)``: ``params`` the
    scenario table's parameters (checked against the JSON Schema ``schema``, defaults filled
    in; no schema: no parameters), ``ctx`` the build context as a dict. Its methods are the
    kind's, below (``DiskScheduler``, ``BufferPool``, ...: these Protocols exist at run
    time too, and a class may subclass one). The same class under the same name again
    replaces its earlier registration; other policies are kept."""

# ---------------------------------------------------------------------------------------
# output folders

class Folder:
    path: Path
    def __init__(self, path: PathLike) -> None: ...
    @property
    def summary(self) -> dict[str, Any]:
        """The folder's main JSON file as a dict."""
    @property
    def manifest(self) -> dict[str, Any] | None:
        """``manifest.json``."""
    def table_names(self) -> list[str]: ...
    def table(self, name: str) -> polars.DataFrame:
        """Table ``name`` (its Parquet file, else its CSV)."""
    @property
    def tables(self) -> dict[str, polars.DataFrame]: ...
    def report(self, path: PathLike | None = None) -> Path:
        """The folder's HTML page (the command line's), copied to ``path`` when given."""
    def __getattr__(self, name: str) -> polars.DataFrame: ...

class Run(Folder):
    disks: polars.DataFrame
    timeseries: polars.DataFrame
    requests: polars.DataFrame
    terminals: polars.DataFrame
    nodes: polars.DataFrame

class Search(Folder):
    curve: polars.DataFrame

class Sweep(Folder): ...

class Comparison(Folder):
    @property
    def runs(self) -> list[Folder]: ...

class Analysis(Folder): ...

# ---------------------------------------------------------------------------------------
# what policies receive

class QueuedRequest:
    id: int
    cylinder: int
    offset: int
    bytes: int
    terminal: int | None
    prefetch: bool
    deadline: int | None
    arrival: int

class HeadState:
    now: int
    cylinder: int
    cylinders: int

class DiskAccess:
    offset: int
    bytes: int
    write: bool

class CacheRequest:
    object: int
    bytes: int
    next_access: int | None

class Reference:
    terminal: int
    block: Block
    disk: int
    deadline: int
    block_playout: int
    now: int
    hint: tuple[Block, int] | None

class StreamRequest:
    terminal: int
    video: int
    bit_rate: int
    buffer_bytes: int
    interface: int | None
    now: int

class ServerLoad:
    active_streams: int
    terminals: int
    interface_memory: int

class Placement:
    holders: list[int]
    round: int
    fragment_bytes: int

class Fetch:
    interface: int | None
    storage: int
    round_trip: int
    at_storage: int | None
    now: int

class ReadyBlock:
    token: int
    client: int
    bytes: int
    stream_rate_bps: int
    max_rate_bps: int
    packet_bytes: int | None

class ScheduleSpec:
    frames: int
    delay: int
    horizon: int
    chunk_hint: int

class CacheView:
    words: list[int]
    len: int
    capacity: int
    pin_limit: int | None

class LayoutView:
    """The run's layout, lent for one ``on_reference`` call."""
    def locate(self, block: Block) -> tuple[int, int, int]: ...
    def next_on_same_disk(self, block: Block) -> Block | None: ...

# ---------------------------------------------------------------------------------------
# the methods of each kind's class (the Rust traits' methods, by the same names)

class DiskModel(Protocol):
    """``disk-model``."""
    def geometry(self) -> tuple[int, int]: """(capacity_bytes, cylinders)"""
    def cylinder_of(self, offset: int) -> int: ...
    def head_cylinder(self) -> int: ...
    def service(self, access: DiskAccess, now: int) -> tuple[int, int, int, int, bool]:
        """(overhead, seek, rotation, transfer) in ns, and whether the disk's cache hit."""
    def service_bound(self, access: DiskAccess) -> int: ...

class DiskScheduler(Protocol):
    """``disk-scheduler``."""
    def enqueue(self, request: QueuedRequest) -> None: ...
    def dequeue(self, head: HeadState) -> int | None:
        """The id of a queued request to serve now, or None when the queue is empty."""
    def len(self) -> int: ...

class BufferPool(Protocol):
    """``buffer-pool``; optional: ``evict_for_prefetch() -> int | None``,
    ``set_capacity(bytes)``, ``request(request: CacheRequest, page: int | None)``,
    ``needs_next_access() -> bool``."""
    def release(self, page: int, referenced: bool) -> None: ...
    def acquire(self, page: int) -> None: ...
    def evict(self) -> int | None: ...

class Prefetcher(Protocol):
    """``prefetcher``."""
    def on_reference(self, reference: Reference, layout: LayoutView) -> int | None:
        """A disk to poll now, or None."""
    def poll(self, disk: int, in_flight: int, now: int) -> None | int | tuple[Block, int, int | None]:
        """None (idle), a time (wait until), or (block, terminal, deadline) (issue)."""

class Layout(Protocol):
    """``layout``; optional: ``pieces() -> int``, ``locate_piece(block, piece)``."""
    def locate(self, block: Block) -> tuple[int, int, int]: """(node, disk, offset)"""
    def next_on_same_disk(self, block: Block) -> Block | None: ...

class Interconnect(Protocol):
    """``server-network``; endpoints are ``("node", id)`` or ``("terminal", id)``."""
    def links(self) -> list[str]: ...
    def route(self, src: tuple[str, int], dst: tuple[str, int], bytes: int) -> tuple[list[int], int, int, int]:
        """(links held, setup, hold, delivery)."""

class Admission(Protocol):
    """``admission``; optional: ``ended(terminal, now)``, ``observes() -> bool``,
    ``probe(request, placement) -> list[int]``, ``probed(request, node, round_trip)``,
    ``fetched(fetch)``."""
    def admit(self, request: StreamRequest, load: ServerLoad) -> bool | str:
        """True to admit, or the refusal reason (1 to 64 bytes)."""

class Transmission(Protocol):
    """``transmission``."""
    def block_ready(self, block: ReadyBlock, now: int) -> None: ...
    def poll(self, now: int) -> None | int | tuple[int, int, int]:
        """None (idle), a time (wait until), or (token, bytes, deadline) (send)."""

class BroadcastSchedule(Protocol):
    """``broadcast-schedule``; optional: ``uses_chunk_hint() -> bool``."""
    def schedule(self, spec: ScheduleSpec) -> list[list[int]]:
        """Each frame's transmission instants, in frame order."""

class ClientBuffer(Protocol):
    """``receiver-buffer``; optional: ``inserted(frame)``, ``removed(frame, why)`` (why:
    ``"played"`` or ``"written"``), ``played_direct(frame)``, ``written(extent, frames)``,
    ``due_frame(extent, frames) -> int``, ``choose_reads(due, extent, room) -> list[int]``."""
    def batch_frames(self) -> int: ...
    def choose_victims(self, cache: CacheView) -> list[int]: ...

class AnalyticModel(Protocol):
    """``analytic``."""
    def evaluate(self, input: dict[str, Any]) -> dict[str, Any]:
        """``{"values": {...}, "tables": [...], "notes": [...]}``."""
