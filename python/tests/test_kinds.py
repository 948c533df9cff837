"""A Python policy of every kind runs in a scenario chosen by name; where it mirrors a
built-in (every kind but the disk model and the analytic model), its results equal the
built-in's byte for byte."""

import re
from collections import deque

import pytest
import vodbench

from conftest import ROOT, TINY, results, variant

FIXTURES = ROOT / "tests" / "fixtures"


@vodbench.plugin("prefetcher", name="py-none")
class NoPrefetch:
    """no read-ahead (Python)"""

    def __init__(self, params, ctx):
        pass

    def on_reference(self, reference, layout):
        # the lent layout answers as the run's does
        node, disk, offset = layout.locate(reference.block)
        assert disk == reference.disk, (disk, reference)
        return None

    def poll(self, disk, in_flight, now):
        return None


@vodbench.plugin("admission", name="py-accept-all")
class AcceptAll:
    def __init__(self, params, ctx):
        self.ended_calls = 0

    def admit(self, request, load):
        return True

    def ended(self, terminal, now):
        self.ended_calls += 1


@vodbench.plugin("server-network", name="py-ideal", schema={
    "type": "object", "additionalProperties": False,
    "properties": {"latency_ns": {"type": "integer", "minimum": 0, "default": 5000},
                   "per_byte_ns": {"type": "integer", "minimum": 0, "default": 40}}})
class IdealNetwork:
    def __init__(self, params, ctx):
        self.latency, self.per_byte = params["latency_ns"], params["per_byte_ns"]

    def links(self):
        return []

    def route(self, src, dst, bytes):
        assert src[0] in ("node", "terminal") and dst[0] in ("node", "terminal")
        return [], 0, 0, self.latency + self.per_byte * bytes


@vodbench.plugin("layout", name="py-striped")
class Striped:
    """every video striped over all disks, node then disk (Python)"""

    def __init__(self, params, ctx):
        self.nodes, self.dpn = ctx["nodes"], ctx["disks_per_node"]
        self.disks = disks = self.nodes * self.dpn
        self.block = ctx["block_bytes"]
        self.base = []
        used = [0] * disks
        for v, blocks in enumerate(ctx["video_blocks"]):
            s = v % disks
            frag = [0] * disks
            for pos in range(disks):
                first = (pos + disks - s) % disks
                count = -(-(blocks - first) // disks) if blocks > first else 0
                frag[self._disk(pos)[1]] = count * self.block
            for d in range(disks):
                self.base.append(used[d])
                used[d] += frag[d]

    def _disk(self, p):
        node = p % self.nodes
        return node, node * self.dpn + p // self.nodes

    def locate(self, block):
        video, index = block
        node, disk = self._disk((video % self.disks + index) % self.disks)
        return node, disk, self.base[video * self.disks + disk] + index // self.disks * self.block

    def next_on_same_disk(self, block):
        return block[0], block[1] + self.disks


UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20}


@vodbench.plugin("transmission", name="py-fifo-blocks", schema={
    "type": "object", "additionalProperties": False,
    "properties": {"packet": {"type": "string", "pattern": "^[0-9]+(B|KiB|MiB)$",
                              "default": "48KiB"}}})
class FifoBlocks:
    def __init__(self, params, ctx):
        self.blocks = deque()
        n, unit = re.fullmatch(r"([0-9]+)(\w+)", params["packet"]).groups()
        self.packet = int(n) * UNITS[unit]

    def block_ready(self, block, now):
        if block.bytes > 0:
            self.blocks.append([block.token, block.bytes, now])

    def poll(self, now):
        if not self.blocks:
            return None
        front = self.blocks[0]
        n = min(front[1], self.packet)
        front[1] -= n
        if front[1] == 0:
            self.blocks.popleft()
        return front[0], n, front[2]


@vodbench.plugin("broadcast-schedule", name="py-ideal")
class IdealSchedule:
    def __init__(self, params, ctx):
        pass

    def uses_chunk_hint(self):
        return False

    def schedule(self, spec):
        frames = []
        for f in range(spec.frames):
            lam = spec.delay + f + 1
            frames.append([k * lam for k in range(1, spec.horizon // lam + 1)])
        return frames


@vodbench.plugin("receiver-buffer", name="py-optimum")
class Optimum:
    def __init__(self, params, ctx):
        pass

    def batch_frames(self):
        return 1

    def choose_victims(self, cache):
        first = 0 if cache.pin_limit is None else cache.pin_limit + 1
        for w in range(len(cache.words) - 1, -1, -1):
            bits = cache.words[w]
            if bits:
                f = w * 64 + bits.bit_length() - 1
                return [f] if f >= first else []
        return []


@vodbench.plugin("disk-model", name="py-constant")
class ConstantDisk:
    """every access: 1 ms overhead, 5 ms seek and rotation, 20 MB/s transfer"""

    def __init__(self, params, ctx):
        self.cylinders = 1000
        self.capacity = 8 << 30
        self.head = 0

    def geometry(self):
        return self.capacity, self.cylinders

    def cylinder_of(self, offset):
        return min(offset * self.cylinders // self.capacity, self.cylinders - 1)

    def head_cylinder(self):
        return self.head

    def service(self, access, now):
        self.head = self.cylinder_of(access.offset)
        return 1_000_000, 3_000_000, 2_000_000, access.bytes * 50, False

    def service_bound(self, access):
        return 6_000_000 + access.bytes * 50


@vodbench.plugin("disk-model", name="test-optimist")
class Optimist(ConstantDisk):
    """promises every access in a microsecond, takes milliseconds: a broken contract"""

    def service_bound(self, access):
        return 1_000


@vodbench.plugin("analytic", name="py-model")
class Model:
    def __init__(self, params, ctx):
        pass

    def evaluate(self, input):
        q = input["quantities"]
        return {"values": {"python.quantities": float(len(q))},
                "notes": [f"a Python model of a {input['system']} system"]}


def same_results(tmp_path, base, builtin, python, table, extra="", before=""):
    """Runs `base` with `table` choosing `builtin`, then `python`; their results."""
    out = []
    for name in (builtin, python):
        if before:
            s = variant(base, tmp_path, name,
                        before_terminals=f'[{table}]\nname = "{name}"\n{extra}')
        else:
            s = variant(base, tmp_path, name, {f'[{table}]\nname = "{builtin}"':
                                               f'[{table}]\nname = "{name}"'})
        out.append(results(vodbench.run(s, out=tmp_path / f"o-{name}").path))
    a, b = out
    assert "summary.json" in a and a.keys() == b.keys()
    for f in a:
        assert a[f] == b[f].replace(python.encode(), builtin.encode()), f"{f} differs"


@pytest.mark.parametrize("table,builtin,python", [
    ("prefetcher", "none", "py-none"),
    ("admission", "accept-all", "py-accept-all"),
    ("server.network", "ideal", "py-ideal"),
    ("layout", "striped", "py-striped"),
])
def test_on_demand_kinds_equal_their_builtins(tmp_path, table, builtin, python):
    same_results(tmp_path, TINY, builtin, python, table, before=True)


def test_transmission_equals_fifo_blocks(tmp_path):
    same_results(tmp_path, ROOT / "scenarios" / "pappas" / "calib-transmit.toml",
                 "fifo-blocks", "py-fifo-blocks", "transmission")


def test_broadcast_schedule_equals_ideal(tmp_path):
    same_results(tmp_path, FIXTURES / "broadcast-tiny.toml", "ideal", "py-ideal",
                 "broadcast.schedule")


def test_receiver_buffer_equals_optimum(tmp_path):
    base = variant(FIXTURES / "broadcast-tiny.toml", tmp_path, "bt",
                   {'[receiver.buffer]\nname = "mdp"': '[receiver.buffer]\nname = "optimum"'})
    same_results(tmp_path, base, "optimum", "py-optimum", "receiver.buffer")


def test_a_python_disk_model_serves_the_run(tmp_path):
    s = variant(TINY, tmp_path, "disk", {'[disk.model]\nname = "analytic"\nspec = "st15150n"':
                                         '[disk.model]\nname = "py-constant"'})
    run = vodbench.run(s, out=tmp_path / "o")
    assert run.disks.height == 2
    disks = run.summary["disks"]
    assert disks["requests"] > 0, disks
    # every access took the Python model's times
    assert disks["io_time"]["seek"]["mean_ns"] == 3_000_000
    assert disks["io_time"]["overhead"]["max_ns"] == 1_000_000


def test_a_python_analytic_model_is_evaluated_at_every_point(tmp_path):
    base = ROOT / "scenarios" / "wu" / "fig10-array.toml"
    s = variant(base, tmp_path, "an", {
        '[analytic]\nname = "wu-blocksize"\nd_m = "15ms"\nr_s = "10MB/s"\nr_bus = "10MB/s"':
        '[analytic]\nname = "py-model"'})
    an = vodbench.analyze(s, out=tmp_path / "an")
    points = an.summary["points"]
    assert len(points) == 8
    for p in points:
        assert p["model"] == "py-model"
        assert p["analysis"]["values"]["python.quantities"] > 0
        assert p["analysis"]["notes"] == ["a Python model of a on-demand system"]


@vodbench.plugin("receiver-buffer", name="test-chooses-none")
class ChoosesNone(Optimum):
    """chooses no frame although the cache is full: a broken contract"""

    def choose_victims(self, cache):
        return []


def test_a_broadcast_policys_broken_contract_is_a_plugin_error(tmp_path):
    s = variant(FIXTURES / "broadcast-tiny.toml", tmp_path, "none",
                {'[receiver.buffer]\nname = "mdp"': '[receiver.buffer]\nname = "test-chooses-none"'})
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(s, out=tmp_path / "o")
    err = e.value
    assert err.policy == "receiver.buffer `test-chooses-none`" and err.method is None, err
    assert err.source.endswith("test_kinds.py#ChoosesNone"), err.source
    assert err.detail.startswith("chose no frames to write"), err.detail
    assert f"plugin `test-chooses-none` (Python class {err.source}) broke its contract: " in str(err), \
        str(err)


def test_a_disk_model_slower_than_its_own_service_bound_is_a_plugin_error(tmp_path):
    # the receiver plans its read-backs on the bound: an access that takes longer is refused
    s = variant(FIXTURES / "broadcast-tiny.toml", tmp_path, "optimist",
                {'[receiver.buffer]\nname = "mdp"':
                 '[receiver.buffer]\nname = "mdp"\n\n[receiver.disk]\nname = "test-optimist"'})
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(s, out=tmp_path / "o")
    err = e.value
    assert err.policy == "receiver.disk `test-optimist`" and err.method is None, err
    assert err.source.endswith("test_kinds.py#Optimist"), err.source
    assert "longer than its service_bound of 0.000001s" in err.detail, err.detail
    assert f"plugin `test-optimist` (Python class {err.source}) broke its contract: " in str(err), \
        str(err)
