"""Every call of the API, against what the command line writes; every error path."""

import _thread
import shutil
import subprocess
import threading
import time

import polars as pl
import pytest
import vodbench

from conftest import cdylib, ROOT, TINY, ZIPF1, results, target_dir, variant

FIXTURES = ROOT / "tests" / "fixtures"


def cli():
    exe = target_dir() / "release" / "vodbench"
    return exe if exe.is_file() else shutil.which("vodbench")


def test_run_returns_summary_tables_and_the_report(tmp_path):
    run = vodbench.run(TINY, out=tmp_path / "o")
    assert isinstance(run, vodbench.Run)
    assert run.summary["scenario"] == "tiny" and run.summary["terminals"] == 12
    for t in ("disks", "timeseries", "requests", "terminals", "nodes"):
        assert isinstance(getattr(run, t), pl.DataFrame), t
    assert run.disks.height == 2  # one row per disk
    assert set(run.tables) >= {"disks", "timeseries", "requests"}
    page = run.report(tmp_path / "page.html")
    assert page.read_bytes() == (tmp_path / "o" / "report.html").read_bytes()
    assert b"<html" in page.read_bytes()[:500].lower()
    with pytest.raises(AttributeError, match="no table 'nope'"):
        run.nope


def test_run_writes_what_the_command_line_writes(tmp_path):
    exe = cli()
    if exe is None:
        pytest.skip("no vodbench binary built (cargo build --release)")
    vodbench.run(TINY, out=tmp_path / "py", seed=3)
    subprocess.run([exe, "run", TINY, "--out", tmp_path / "cli", "--seed", "3", "--quiet"],
                   check=True)
    a, b = results(tmp_path / "py"), results(tmp_path / "cli")
    assert a == b
    assert (tmp_path / "py" / "report.html").read_bytes() == \
        (tmp_path / "cli" / "report.html").read_bytes()


def test_run_takes_a_toml_string_terminals_and_seed(tmp_path):
    text = TINY.read_text()
    run = vodbench.run(text, terminals=5, seed=9, out=tmp_path / "o")
    assert run.summary["terminals"] == 5 and run.summary["seed"] == 9
    # the temporary scenario file is gone
    assert not list(ROOT.glob(".vodbench-scenario-*")) and not list(
        __import__("pathlib").Path.cwd().glob(".vodbench-scenario-*"))
    # default output folder: a new temporary one
    other = vodbench.run(text, terminals=5, seed=9)
    assert other.path != run.path and results(other.path) == results(run.path)


def test_load_reads_every_kind_of_folder(tmp_path):
    run = vodbench.run(TINY, out=tmp_path / "run")
    assert isinstance(vodbench.load(run.path), vodbench.Run)
    assert vodbench.load(run.path).summary == run.summary
    with pytest.raises(vodbench.InputError, match="not an output folder"):
        vodbench.load(tmp_path / "nothing")


def test_search(tmp_path):
    s = vodbench.search(FIXTURES / "search_small.toml", out=tmp_path / "s", seeds=3,
                        max_terminals=60)
    assert isinstance(s, vodbench.Search) and isinstance(vodbench.load(s.path), vodbench.Search)
    assert s.summary["max_terminals"] > 0, s.summary
    assert s.curve.height > 0


def test_sweep_shows_progress_and_calls_back(tmp_path, capsys):
    seen = []
    sw = vodbench.sweep(FIXTURES / "sweep_small.toml", out=tmp_path / "w", seeds=3,
                        max_terminals=40, callback=lambda n, p: seen.append((n, p)))
    assert isinstance(sw, vodbench.Sweep)
    points = sw.summary["points"]
    assert len(points) == 4
    assert [n for n, _ in seen] == [1, 2, 3, 4]
    # each call gets the point that finished, as sweep.json then gives it
    by_index = {p["index"]: p for _, p in seen}
    assert sorted(by_index) == [0, 1, 2, 3]
    for saved in points:
        p = by_index[saved["point"]]
        assert p["label"] == saved["label"] and p["values"] == saved["values"], (p, saved)
        assert p["max_terminals"] == saved["max_terminals"], (p, saved)
        assert p["replications"] == saved["replications"], (p, saved)
        assert p["converged"] == saved["converged"], (p, saved)
    err = capsys.readouterr().err
    assert "4 points done" in err or "4/" in err or "4point" in err.replace(" ", ""), err


def test_the_readme_callback_prints_each_points_label(tmp_path, capsys):
    vodbench.sweep(FIXTURES / "sweep_small.toml", out=tmp_path / "w", seeds=3,
                   max_terminals=40, progress=False,
                   callback=lambda done, point: print(done, point["label"]))
    printed = capsys.readouterr().out.splitlines()
    labels = [p["label"] for p in vodbench.load(tmp_path / "w").summary["points"]]
    assert sorted(line.split(" ", 1)[1] for line in printed) == sorted(labels), printed


def test_a_sweep_counts_only_the_points_it_writes(tmp_path):
    def sweep(record, **kw):
        return vodbench.sweep(FIXTURES / "sweep_small.toml", out=tmp_path / "w", seeds=3,
                              max_terminals=40, progress=False,
                              callback=lambda n, p: record.append((n, p["index"])), **kw)

    first = []
    sweep(first)
    assert sorted(i for _, i in first) == [0, 1, 2, 3]
    # one point again into the full folder: one call, for that point
    again = []
    sweep(again, points=[2])
    assert again == [(1, 2)], again
    # resumed with every point saved: nothing written, nothing counted
    resumed = []
    sweep(resumed, resume=True)
    assert resumed == [], resumed


def test_an_exception_in_the_callback_stops_the_sweep(tmp_path):
    def stop(n, point):
        raise RuntimeError("enough")

    # 20 replications a point: the first point ends well before the last
    with pytest.raises(RuntimeError, match="enough"):
        vodbench.sweep(FIXTURES / "sweep_small.toml", out=tmp_path / "w", seeds=20,
                       min_seeds=20, max_terminals=40, threads=1, callback=stop,
                       progress=False)
    assert not (tmp_path / "w" / "sweep.json").exists()
    assert len(list((tmp_path / "w" / "points").glob("[0-9]*.json"))) < 4


def test_a_callbacks_exception_stops_only_its_own_sweep(tmp_path):
    # two sweeps at once from two Python threads: A's callback raises once B is under way;
    # B goes on and writes what a lone B writes
    def sweep(out, callback):
        return vodbench.sweep(FIXTURES / "sweep_small.toml", out=tmp_path / out, seeds=20,
                              min_seeds=20, max_terminals=40, threads=1, callback=callback,
                              progress=False)

    b_running, b_done, raised_with_b_unfinished = threading.Event(), [], []

    def stop_a(n, point):
        assert b_running.wait(timeout=300)
        raised_with_b_unfinished.append(len(b_done) < 4)
        raise RuntimeError("A stops")

    def mark_b(n, point):
        b_done.append(point["index"])
        b_running.set()

    outcome = {}

    def run(name, out, callback):
        try:
            outcome[name] = sweep(out, callback)
        except BaseException as e:  # noqa: B036 (KeyboardInterrupt is what the bug raised)
            outcome[name] = e

    threads = [threading.Thread(target=run, args=("a", "a", stop_a)),
               threading.Thread(target=run, args=("b", "b", mark_b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert isinstance(outcome["a"], RuntimeError) and str(outcome["a"]) == "A stops", outcome
    assert not (tmp_path / "a" / "sweep.json").exists()
    assert raised_with_b_unfinished == [True]  # A's stop came while B still ran
    assert isinstance(outcome["b"], vodbench.Sweep), outcome
    assert sorted(b_done) == [0, 1, 2, 3]
    sweep("lone", None)
    assert (tmp_path / "b" / "sweep.json").read_bytes() == \
        (tmp_path / "lone" / "sweep.json").read_bytes()


def test_ctrl_c_stops_a_run(tmp_path):
    # a long run: zipf1 for many simulated hours
    long = variant(ZIPF1, tmp_path, "long", {'duration = "10min"': 'duration = "20h"'})
    threading.Timer(1.0, _thread.interrupt_main).start()
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        vodbench.run(long, out=tmp_path / "o")
    assert time.monotonic() - t < 20
    assert not (tmp_path / "o" / "summary.json").exists()
    # the next command runs as usual
    assert vodbench.run(TINY, out=tmp_path / "next").summary


def long_broadcast(tmp_path):
    """A two-hour movie for 2000 receivers: a minute or more to the end."""
    return variant(FIXTURES / "broadcast-tiny.toml", tmp_path, "long", {
        "frames = 1800": "frames = 216000", "clients = 2": "clients = 2000",
        '[sweep]\n"receiver.cache" = ["5%", "10%"]': ""})


def test_ctrl_c_stops_a_broadcast_run(tmp_path):
    long = long_broadcast(tmp_path)
    threading.Timer(1.0, _thread.interrupt_main).start()
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt) as e:
        vodbench.run(long, out=tmp_path / "o")
    assert time.monotonic() - t < 20
    assert not getattr(e.value, "__notes__", None)  # stopped, not finished
    assert not (tmp_path / "o" / "manifest.json").exists()
    assert vodbench.run(TINY, out=tmp_path / "next").summary


def test_ctrl_c_stops_a_command_that_builds_no_worker_pool(tmp_path):
    # `bench` runs on no pool of its own: the receivers it runs in parallel see its stop all
    # the same (on rayon's global pool they would run to the end)
    long = long_broadcast(tmp_path)
    threading.Timer(1.0, _thread.interrupt_main).start()
    t = time.monotonic()
    with pytest.raises(KeyboardInterrupt) as e:
        vodbench._command(["bench", long, "--repeat", "1"])
    assert time.monotonic() - t < 20
    assert not getattr(e.value, "__notes__", None)  # stopped, not finished


def test_a_stop_arriving_after_the_command_finished_says_its_output_was_written(tmp_path):
    # `cache generate` never checks for a stop: one asked for meanwhile (here by the poll,
    # as a sweep callback's exception would) arrives once it has finished and written
    def poll():
        raise RuntimeError("stop")

    trace = tmp_path / "t.csv"
    t = time.monotonic()
    with pytest.raises(RuntimeError, match="stop") as e:
        vodbench._command(["cache", "generate", "--out", trace, "--objects=1000",
                           "--requests=2000000"], poll)
    assert time.monotonic() - t > 0.05  # the poll ran while the command did
    assert trace.is_file()
    assert e.value.__notes__ == [
        "vodbench: the command had finished before it could stop: its output was written"]


def test_a_scenario_path_with_an_equals_sign_is_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stripe=256KiB.toml").write_text(TINY.read_text())
    assert vodbench.run("stripe=256KiB.toml", out=tmp_path / "o").summary["scenario"] == "tiny"
    # TOML text: an error names it as the scenario text, not a deleted file
    with pytest.raises(vodbench.ScenarioError) as e:
        vodbench.run(TINY.read_text().replace("[terminals]", "[terminals]\nbogus = 1", 1),
                     out=tmp_path / "p")
    assert e.value.file == "the scenario text", e.value.file
    assert str(e.value).startswith("the scenario text:"), str(e.value)
    assert ".vodbench-scenario-" not in str(e.value)
    with pytest.raises(vodbench.ScenarioError) as e:
        vodbench.run("x = [", out=tmp_path / "q")
    assert e.value.file == "the scenario text" and ".vodbench-" not in str(e.value)


def test_compare_lays_runs_and_scenarios_side_by_side(tmp_path):
    a = vodbench.run(TINY, out=tmp_path / "a")
    b = vodbench.run(TINY, seed=5, out=tmp_path / "b")
    c = vodbench.compare(a, b.path, out=tmp_path / "c")
    assert isinstance(c, vodbench.Comparison)
    assert (tmp_path / "c" / "report.html").is_file()
    assert [r.summary["seed"] for r in c.runs] == [a.summary["seed"], 5]
    page = c.report(tmp_path / "cmp.html")
    assert page.read_bytes() == (tmp_path / "c" / "report.html").read_bytes()


def test_analyze(tmp_path):
    an = vodbench.analyze(ROOT / "scenarios" / "wu" / "fig10-array.toml", out=tmp_path / "an")
    assert isinstance(an, vodbench.Analysis)
    assert an.summary and an.table_names()


def test_cache_replay_returns_miss_ratios_per_size(tmp_path, capfd):
    trace = vodbench.cache_generate(tmp_path / "t.zst", objects=1000, requests=20000)
    df = vodbench.cache_replay(trace, pools=["global-lru", "py-lru", "py-fifo"],
                               sizes=[10, 100, 500], out=tmp_path / "c")
    assert isinstance(df, pl.DataFrame) and df.height == 9, df
    cols = set(df.columns)
    assert "miss_ratio" in cols, cols
    ratios = {(r["pool"], r["size_bytes"]): r["miss_ratio"] for r in df.iter_rows(named=True)}
    # the Python LRU is LRU: the same miss ratios as the built-in
    for size in (10, 100, 500):
        assert ratios[("py-lru", size)] == ratios[("global-lru", size)]
    assert ratios[("py-lru", 10)] > ratios[("py-lru", 500)]
    folder = vodbench.cache_replay(trace, pools="fifo", sizes=10, out=tmp_path / "d",
                                   folder=True)
    assert folder.summary
    # the commands print nothing: the results are what they return
    assert capfd.readouterr().out == ""


# ------------------------------------------------------------------------------------------
# errors

def test_a_bad_key_is_a_scenario_error_with_file_line_and_key(tmp_path):
    bad = variant(TINY, tmp_path, "bad", {"disks_per_node = 2": "disks_per_node = 0"})
    with pytest.raises(vodbench.ScenarioError) as e:
        vodbench.run(bad, out=tmp_path / "o")
    assert e.value.file == str(bad)
    assert e.value.key == "server.disks_per_node"
    assert e.value.line == bad.read_text().split("\n").index("disks_per_node = 0") + 1
    assert isinstance(e.value, vodbench.VodbenchError)


def test_a_syntax_error_and_a_missing_file_are_scenario_errors(tmp_path):
    bad = tmp_path / "syntax.toml"
    bad.write_text('name = "x"\n[server\n')
    with pytest.raises(vodbench.ScenarioError) as e:
        vodbench.run(bad)
    assert e.value.file == str(bad) and e.value.line == 2 and e.value.key is None
    with pytest.raises(vodbench.ScenarioError) as e:
        vodbench.run(tmp_path / "missing.toml")
    assert e.value.file == str(tmp_path / "missing.toml")
    with pytest.raises(vodbench.ScenarioError):
        vodbench.run("name = 3\n")


def test_bad_arguments_and_libraries_are_input_errors(tmp_path):
    with pytest.raises(vodbench.InputError, match="terminals"):
        vodbench.run(TINY, terminals=-1)
    junk = tmp_path / "libjunk.so"
    junk.write_text("not a library")
    with pytest.raises(vodbench.InputError, match="no ELF header"):
        vodbench.run(TINY, plugins=[junk])
    with pytest.raises(vodbench.InputError):
        vodbench.compare(tmp_path / "no-such-folder")
    with pytest.raises(TypeError):
        vodbench.run(3)


def test_a_loaded_librarys_failure_is_a_plugin_error(tmp_path):
    lib = cdylib("vodbench_faulty_plugins")
    if lib is None:
        pytest.skip(f"{lib} is not built (cargo build --release -p vodbench-faulty-plugins)")
    s = variant(TINY, tmp_path, "faulty",
                before_terminals='[disk.scheduler]\nname = "panicky"\nafter = 5\n')
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(s, plugins=[lib], out=tmp_path / "o")
    assert e.value.method == "dequeue" and e.value.policy == "disk.scheduler `panicky`"
    assert e.value.source.endswith("libvodbench_faulty_plugins.so")
    assert "boom after 5 requests" in str(e.value)


def test_a_loaded_librarys_broken_contract_is_a_plugin_error(tmp_path):
    lib = cdylib("vodbench_faulty_plugins")
    if lib is None:
        pytest.skip(f"{lib} is not built (cargo build --release -p vodbench-faulty-plugins)")
    s = variant(TINY, tmp_path, "liar", before_terminals='[disk.scheduler]\nname = "liar"\n')
    with pytest.raises(vodbench.PluginError) as e:
        vodbench.run(s, plugins=[lib], out=tmp_path / "o")
    err = e.value
    assert err.policy == "disk.scheduler `liar`" and err.method is None, err
    assert err.source.endswith("libvodbench_faulty_plugins.so"), err.source
    assert "which is not queued" in err.detail, err.detail
    assert f"`liar` (plugin library {err.source}) broke its contract at " in str(err), err
    assert str(err).endswith(err.detail), err


def test_the_command_line_rerun_refuses_a_run_made_with_python_policies(tmp_path):
    exe = cli()
    if exe is None:
        pytest.skip("no vodbench binary built (cargo build --release)")
    scenario = variant(TINY, tmp_path, "py", before_terminals='[disk.scheduler]\nname = "py-fcfs"\n')
    vodbench.run(scenario, out=tmp_path / "o")
    manifest = (tmp_path / "o" / "manifest.json").read_text()
    assert "fcfs_fifo.py#" in manifest
    r = subprocess.run([exe, "rerun", tmp_path / "o", "--out", tmp_path / "again"],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert "Python policies" in r.stderr and "fcfs_fifo.py#" in r.stderr, r.stderr
    assert not (tmp_path / "again").exists()
