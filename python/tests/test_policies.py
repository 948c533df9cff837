"""Policies written in Python: equal to the built-ins they mirror, byte for byte; their
parameters checked; their failures reported naming the policy, the method and the
traceback; their answers checked by the engine; deterministic."""

import ast
import re

import pytest
import vodbench
from vodbench import _native

from conftest import cdylib, ROOT, TINY, ZIPF1, results, variant

SCHEDULER = '[disk.scheduler]\nname = "elevator"'
POOL = '[buffer_pool]\nname = "global-lru"'


@pytest.mark.parametrize("table,builtin,python", [
    (SCHEDULER, "fcfs", "py-fcfs"),
    (POOL, "fifo", "py-fifo"),
])
def test_python_fcfs_and_fifo_equal_the_builtins_on_zipf1_byte_for_byte(
        tmp_path, table, builtin, python):
    head = table.split("\n")[0]
    folders = []
    for name in (builtin, python):
        s = variant(ZIPF1, tmp_path, name, {table: f'{head}\nname = "{name}"'})
        folders.append(vodbench.run(s, out=tmp_path / f"out-{name}").path)
    a, b = results(folders[0]), results(folders[1])
    assert "summary.json" in a and len(a) > 1, a.keys()
    assert a.keys() == b.keys()
    for f in a:
        # the plugin's name is the only difference a results file may show
        assert a[f] == b[f].replace(python.encode(), builtin.encode()), \
            f"{f} differs between `{builtin}` and `{python}`"
    # the manifest names the Python class (file#Class) and its source's hash
    m = vodbench.load(folders[1]).manifest
    slot = "disk.scheduler" if builtin == "fcfs" else "buffer_pool"
    lib = m["plugins"][slot]["library"]
    assert lib["path"].endswith("fcfs_fifo.py#" + ("Fcfs" if builtin == "fcfs" else "Fifo"))
    assert re.fullmatch(r"[0-9a-f]{64}", lib["sha256"])


def test_python_sstf_equals_the_rust_sstf_example(tmp_path):
    lib = cdylib("vodbench_sstf_example")
    if lib is None:
        pytest.skip(f"{lib} is not built (cargo build --release -p vodbench-sstf-example)")
    folders = []
    for name in ("sstf", "py-sstf"):
        s = variant(ZIPF1, tmp_path, name, {SCHEDULER: f'[disk.scheduler]\nname = "{name}"'})
        folders.append(vodbench.run(s, out=tmp_path / name, plugins=[lib]).path)
    assert results(folders[0])["summary.json"] == results(folders[1])["summary.json"]


def test_a_python_policy_is_deterministic(tmp_path):
    s = variant(TINY, tmp_path, "lruk", before_terminals='[buffer_pool]\nname = "py-lru-k"\n'
                '[disk.scheduler]\nname = "py-sstf"\n')
    a = vodbench.run(s, out=tmp_path / "a", seed=7)
    b = vodbench.run(s, out=tmp_path / "b", seed=7)
    assert results(a.path) == results(b.path)
    c = vodbench.run(s, out=tmp_path / "c", seed=8)
    assert results(a.path)["summary.json"] != results(c.path)["summary.json"]


def test_parameters_are_checked_against_the_schema_and_defaults_recorded(tmp_path):
    ok = variant(TINY, tmp_path, "k3", before_terminals='[buffer_pool]\nname = "py-lru-k"\n'
                 'k = 3\n')
    run = vodbench.run(ok, out=tmp_path / "k3")
    assert run.manifest["plugins"]["buffer_pool"]["params"] == {"k": 3}
    default = variant(TINY, tmp_path, "kd", before_terminals='[buffer_pool]\nname = "py-lru-k"\n')
    run = vodbench.run(default, out=tmp_path / "kd")
    assert run.manifest["plugins"]["buffer_pool"]["params"] == {"k": 2}
    bad = variant(TINY, tmp_path, "k0", before_terminals='[buffer_pool]\nname = "py-lru-k"\n'
                  'k = 0\n')
    with pytest.raises(vodbench.ScenarioError) as e:
        vodbench.run(bad, out=tmp_path / "k0")
    assert e.value.key == "buffer_pool.k", e.value
    assert e.value.file.endswith("k0.toml") and e.value.line is not None
    unknown = variant(TINY, tmp_path, "kx", before_terminals='[buffer_pool]\nname = "py-lru-k"\n'
                      'depth = 1\n')
    with pytest.raises(vodbench.ScenarioError) as e:
        vodbench.run(unknown, out=tmp_path / "kx")
    assert "depth" in str(e.value) and "its parameters: k" in str(e.value)
    # no schema: no parameters
    none = variant(TINY, tmp_path, "fx", before_terminals='[buffer_pool]\nname = "py-fifo"\n'
                   'x = 1\n')
    with pytest.raises(vodbench.ScenarioError, match="takes no parameters"):
        vodbench.run(none, out=tmp_path / "fx")


@vodbench.plugin("disk-scheduler", name="test-raises")
class Raises:
    def __init__(self, params, ctx):
        self.q = []
        self.served = 0

    def enqueue(self, request):
        self.q.append(request.id)

    def dequeue(self, head):
        if self.served == 20:
            raise ValueError("too many served: %d" % self.served)
        self.served += 1
        return self.q.pop(0) if self.q else None

    def len(self):
        return len(self.q)


@vodbench.plugin("disk-scheduler", name="test-wrong-type")
class WrongType(Raises):
    def dequeue(self, head):
        return "first" if self.q else None


@vodbench.plugin("disk-scheduler", name="test-stranger")
class Stranger(Raises):
    def dequeue(self, head):
        return 4_000_000 if self.q else None


@vodbench.plugin("buffer-pool", name="test-init-fails")
class InitFails:
    def __init__(self, params, ctx):
        raise RuntimeError("no pool for you")

    def release(self, page, referenced): ...
    def acquire(self, page): ...
    def evict(self): ...


def scheduler(tmp_path, name):
    return variant(TINY, tmp_path, name, before_terminals=f'[disk.scheduler]\nname = "{name}"\n')


def test_an_exception_names_the_policy_the_method_and_the_traceback(tmp_path):
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(scheduler(tmp_path, "test-raises"), out=tmp_path / "o")
    err = e.value
    assert err.policy == "disk.scheduler `test-raises`" and err.method == "dequeue"
    assert err.source.endswith("test_policies.py#Raises")
    assert "Traceback (most recent call last)" in err.detail
    assert 'raise ValueError("too many served' in err.detail
    assert "ValueError: too many served: 20" in str(err)
    assert str(err).startswith("Python class ") and "plugin library" not in str(err), str(err)
    assert not (tmp_path / "o" / "summary.json").exists()


def test_an_exception_in_the_constructor_is_reported_as_init(tmp_path):
    s = variant(TINY, tmp_path, "init", before_terminals='[buffer_pool]\nname = "test-init-fails"\n')
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(s, out=tmp_path / "o")
    assert e.value.method == "__init__" and "no pool for you" in e.value.detail


def test_an_answer_of_the_wrong_type_is_a_plugin_error(tmp_path):
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(scheduler(tmp_path, "test-wrong-type"), out=tmp_path / "o")
    assert e.value.method == "dequeue" and "TypeError" in e.value.detail


@vodbench.plugin("disk-scheduler", name="test-true-id")
class TrueId(Raises):
    def dequeue(self, head):
        return (self.q.pop(0), True)[1] if self.q else None


@vodbench.plugin("disk-scheduler", name="test-true-len")
class TrueLen(Raises):
    def len(self):
        return bool(self.q)


@pytest.mark.parametrize("name,method", [("test-true-id", "dequeue"), ("test-true-len", "len")])
def test_a_bool_is_not_an_integer_answer(tmp_path, name, method):
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(scheduler(tmp_path, name), out=tmp_path / "o")
    assert e.value.method == method, e.value
    assert "(a bool) where an integer is required" in e.value.detail, e.value.detail


def test_the_engine_checks_a_python_policys_answers_as_a_builtins(tmp_path):
    # a contract broken (an answer the engine refuses, not an exception): PluginError naming
    # the policy and the class, no method (the breach is in an answer, not in a call)
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(scheduler(tmp_path, "test-stranger"), out=tmp_path / "o")
    err = e.value
    m = str(err)
    assert err.policy == "disk.scheduler `test-stranger`" and err.method is None, m
    assert err.source.endswith("test_policies.py#Stranger"), err.source
    assert f"`test-stranger` (Python class {err.source}) broke its contract at " in m, m
    assert "plugin library" not in m, m
    assert "returned request 4000000, which is not queued" in err.detail, err.detail
    assert not (tmp_path / "o" / "summary.json").exists()


@vodbench.plugin("buffer-pool", name="test-hoards")
class Hoards:
    """evicts a page it was never given: a broken contract"""

    def __init__(self, params, ctx): ...
    def release(self, page, referenced): ...
    def acquire(self, page): ...

    def evict(self):
        return 1_000_000


def test_a_cache_replay_checks_a_python_pools_answers(tmp_path):
    # the replay's message names the pool and, right after it, the class
    trace = vodbench.cache_generate(tmp_path / "t.zst", objects=50, requests=200)
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.cache_replay(trace, pools="test-hoards", sizes=10, out=tmp_path / "c")
    err = e.value
    m = str(err)
    assert err.policy == "buffer_pool `test-hoards`" and err.method is None, m
    assert err.source.endswith("test_policies.py#Hoards"), err.source
    assert err.detail == "evicted page 1000000, which holds no cached object", err.detail
    assert m.startswith(f"buffer pool `test-hoards` (Python class {err.source}) at 10 bytes, "
                        "request "), m
    assert m.endswith(f": {err.detail}") and "plugin library" not in m, m


BLOCK = {"type": "object", "properties": {"block": {"type": "array"}}}


@vodbench.plugin("prefetcher", name="test-locates-a-stranger", schema=BLOCK)
class LocatesAStranger:
    """Asks the lent layout for a block outside the library."""

    def __init__(self, params, ctx):
        self.block = tuple(params["block"])

    def on_reference(self, reference, layout):
        layout.locate(self.block)
        return None

    def poll(self, disk, in_flight, now):
        return None


@vodbench.plugin("prefetcher", name="test-next-of-a-stranger", schema=BLOCK)
class NextOfAStranger(LocatesAStranger):
    def on_reference(self, reference, layout):
        layout.next_on_same_disk(self.block)
        return None


@pytest.mark.parametrize("name,block,why", [
    ("test-locates-a-stranger", (999, 99999), "the library has 8 videos"),
    ("test-locates-a-stranger", (0, 10**6), "the video has"),
    ("test-next-of-a-stranger", (999, 0), "the library has 8 videos"),
])
def test_a_block_outside_the_library_is_the_prefetchers_error(tmp_path, name, block, why):
    s = variant(TINY, tmp_path, "loc", before_terminals=f'[prefetcher]\nname = "{name}"\n'
                f'block = [{block[0]}, {block[1]}]\n')
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(s, out=tmp_path / "o")
    err = e.value
    assert err.policy == f"prefetcher `{name}`" and err.method == "on_reference", err
    assert f"block {block[1]} of video {block[0]} does not exist" in err.detail, err.detail
    assert why in err.detail and "ValueError" in err.detail, err.detail


def test_a_factory_registers_every_policy_it_makes(tmp_path):
    def make(name, lifo):
        @vodbench.plugin("disk-scheduler", name=name)
        class Sched(Raises):
            def dequeue(self, head):
                if not self.q:
                    return None
                return self.q.pop() if lifo else self.q.pop(0)
        return Sched

    make("test-factory-fifo", False)
    make("test-factory-lifo", True)
    names = {n for _, n in _native.policies()}
    assert {"test-factory-fifo", "test-factory-lifo"} <= names, names
    for n in ("test-factory-fifo", "test-factory-lifo"):
        assert vodbench.run(scheduler(tmp_path, n), out=tmp_path / n).summary
    # one class under two names: both kept
    vodbench.plugin("disk-scheduler", name="test-twice-a")(Stranger)
    vodbench.plugin("disk-scheduler", name="test-twice-b")(Stranger)
    names = [n for _, n in _native.policies()]
    assert {"test-twice-a", "test-twice-b", "test-stranger"} <= set(names), names
    # the same class under the same name again (a notebook cell run twice): replaced
    before = len(names)
    vodbench.plugin("disk-scheduler", name="test-twice-a")(Stranger)
    assert len(_native.policies()) == before
    assert [n for _, n in _native.policies()].count("test-twice-a") == 1


def test_the_kinds_are_the_kinds_tables_and_an_unknown_one_lists_them():
    # KINDS comes from the native module's kinds table, in its order
    assert vodbench.KINDS[:2] == ("disk-model", "disk-scheduler")
    assert {"server-network", "transmission", "receiver-buffer", "analytic"} <= set(vodbench.KINDS)

    class C:
        pass

    with pytest.raises(vodbench.PluginError) as e:
        vodbench.plugin("scheduler", name="x")(C)
    assert str(e.value).endswith("the kinds: " + ", ".join(vodbench.KINDS))


def test_a_class_without_the_kinds_methods_is_refused_at_registration():
    with pytest.raises(vodbench.PluginError, match="no `evict` method"):
        @vodbench.plugin("buffer-pool", name="test-incomplete")
        class Incomplete:
            def release(self, page, referenced): ...
            def acquire(self, page): ...


def test_the_stub_has_a_protocol_of_every_kind_with_the_methods_it_is_called_by():
    # each kind's methods as the native module looks them up (its file of python/src/policy/)
    kinds = _native.kind_methods()
    assert [k for k, *_ in kinds] == list(vodbench.KINDS)
    stub = ast.parse((ROOT / "python" / "vodbench" / "__init__.pyi").read_text())
    protocols = {c.name: c for c in stub.body if isinstance(c, ast.ClassDef)
                 and any(isinstance(b, ast.Name) and b.id == "Protocol" for b in c.bases)}
    assert set(protocols) == {trait for _, trait, _, _ in kinds}, sorted(protocols)
    for kind, trait, required, optional in kinds:
        c = protocols[trait]
        defs = [f.name for f in c.body if isinstance(f, ast.FunctionDef)]
        assert defs == required, (trait, defs, required)
        doc = ast.get_docstring(c) or ""
        assert doc.startswith(f"``{kind}``"), (trait, doc)
        for m in optional:
            assert f"``{m}(" in doc, f"{trait}'s docstring does not name its optional `{m}`"


def test_every_kinds_protocol_exists_at_run_time_with_its_methods(tmp_path):
    for kind, trait, required, optional in _native.kind_methods():
        proto = getattr(vodbench, trait)
        assert trait in vodbench.__all__
        assert getattr(proto, "_is_protocol", False), trait
        assert all(callable(getattr(proto, m)) for m in required), trait
        assert proto.__doc__.startswith(f"``{kind}``"), proto.__doc__
    from vodbench import BufferPool, DiskScheduler  # noqa: F401

    @vodbench.plugin("disk-scheduler", name="test-typed")
    class Typed(vodbench.DiskScheduler):
        def __init__(self, params, ctx):
            self.q = []

        def enqueue(self, request):
            self.q.append(request.id)

        def dequeue(self, head):
            return self.q.pop(0) if self.q else None

        def len(self):
            return len(self.q)

    # a subclass that leaves a declared method undefined is refused as one without it
    with pytest.raises(vodbench.PluginError, match="no `evict` method"):
        @vodbench.plugin("buffer-pool", name="test-typed-incomplete")
        class Incomplete(vodbench.BufferPool):
            def release(self, page, referenced): ...
            def acquire(self, page): ...

    assert vodbench.run(scheduler(tmp_path, "test-typed"), out=tmp_path / "o").summary


def test_an_unknown_kind_a_bad_name_and_a_taken_name_are_refused():
    class C:
        def admit(self, request, load):
            return True

    with pytest.raises(vodbench.PluginError, match="unknown plugin kind `scheduler`"):
        vodbench.plugin("scheduler", name="x")(C)
    with pytest.raises(vodbench.PluginError, match="letters, digits"):
        vodbench.plugin("admission", name="a b")(C)
    with pytest.raises(vodbench.PluginError, match="already registered"):
        vodbench.plugin("disk-scheduler", name="elevator")(Raises)
    with pytest.raises(vodbench.PluginError, match="not valid|not usable|not JSON"):
        vodbench.plugin("admission", name="bad-schema", schema="{not json")(C)
    with pytest.raises(TypeError):
        vodbench.plugin("admission")(lambda: None)


def test_registered_policies_are_listed_like_builtins():
    listing = {(p["kind"], p["name"]): p for p in vodbench.plugins()}
    assert ("disk.scheduler", "elevator") in listing
    lruk = listing[("buffer_pool", "py-lru-k")]
    assert lruk["description"] == "LRU-K page replacement (Python)"
    assert lruk["params"][0]["name"] == "k" and lruk["params"][0]["default"] == 2


def test_plugins_takes_registered_classes_and_refuses_others(tmp_path):
    import fcfs_fifo

    s = scheduler(tmp_path, "py-fcfs")
    assert vodbench.run(s, out=tmp_path / "o", plugins=[fcfs_fifo.Fcfs]).summary
    with pytest.raises(TypeError, match="not a vodbench policy"):
        vodbench.run(s, out=tmp_path / "p", plugins=[dict])
    with pytest.raises(TypeError, match="plugins= takes"):
        vodbench.run(s, out=tmp_path / "p", plugins=[3])
