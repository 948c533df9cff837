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


def test_the_engine_checks_a_python_policys_answers_as_a_builtins(tmp_path):
    # as for a loaded library: a contract broken is bad input (exit code 2), attributed
    with pytest.raises(vodbench.InputError) as e:
        vodbench.run(scheduler(tmp_path, "test-stranger"), out=tmp_path / "o")
    m = str(e.value)
    assert "test-stranger" in m and "test_policies.py#Stranger" in m, m
    assert "returned request 4000000, which is not queued" in m, m


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
