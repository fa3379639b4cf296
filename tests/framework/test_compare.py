import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from macrocause.framework.compare import Grid, compare
from macrocause.framework.errors import PipelineError
from macrocause.framework.report import build_report
from macrocause.framework.store import ResultStore


def report_table(rows):
    """The report's cells (metric, data, method, mean, n), time aside."""
    cells = build_report(rows).cells
    return [{"data": c.data, "method": c.method, "metric": c.metric, "mean": c.mean, "n": c.n}
            for c in cells[cells.metric != "time"].itertuples()]


PIPE = """
name: toy
steps:
  - {id: groups, partition: toy_threshold, params: {sleep: SLEEP}}
  - {evaluate: toy_agreement, on: groups}
"""


def _grid(tmp_path, seeds=3, sleep=0.0, source_sleep=0.0, timeout=None):
    (tmp_path / "toy.yaml").write_text(PIPE.replace("SLEEP", str(sleep)))
    t = f"timeout: {timeout}\n" if timeout else ""
    (tmp_path / "grid.yaml").write_text(
        "name: g\ndata:\n  - {source: toy_source, params: {n: 20, sleep: %s}}\n"
        "  - {source: toy_source, params: {n: 40}}\npipelines: [toy.yaml]\nseeds: %d\n%s"
        % (source_sleep, seeds, t)
    )
    return tmp_path / "grid.yaml"


def _values(store):
    return sorted(
        (r["data_label"], r["seed"], r["step"], r["metrics"].get("toy_agreement", -1.0))
        for r in store.rows()
    )


def test_compare_stores_every_run_once(toys, tmp_path):
    grid, base = Grid.from_yaml(_grid(tmp_path))
    with ResultStore(tmp_path / "r.db") as store:
        counts = compare(grid, store, base=base, progress=False)
        assert counts == {"total": 6, "skipped": 0, "done": 6, "failed": 0, "timeout": 0}
        assert store.count_runs() == 6
        rows = store.rows()
        assert len(rows) == 12  # two rows per run: the partition and its evaluation
        ev = [r for r in rows if r["kind"] == "evaluate"]
        assert all(r["metrics"]["toy_agreement"] == 1.0 for r in ev)
        assert all(r["on_step"] == "groups" and r["method"] == "toy_threshold" for r in ev)
        assert {r["seed"] for r in rows} == {0, 1, 2}
        assert rows[0]["versions"]["numpy"]
        again = compare(grid, store, base=base, progress=False)
        assert again["skipped"] == 6 and again["done"] == 0


def test_process_pool_gives_the_same_results(toys, tmp_path):
    grid, base = Grid.from_yaml(_grid(tmp_path))
    with ResultStore(tmp_path / "a.db") as a, ResultStore(tmp_path / "b.db") as b:
        compare(grid, a, base=base, progress=False)
        compare(grid, b, base=base, progress=False, n_jobs=2)
        assert _values(a) == _values(b)


def test_dask_local_cluster_gives_the_same_results(toys, tmp_path):
    pytest.importorskip("distributed")
    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=2))
    with ResultStore(tmp_path / "a.db") as a, ResultStore(tmp_path / "d.db") as d:
        compare(grid, a, base=base, progress=False)
        counts = compare(grid, d, base=base, progress=False, executor="dask", n_jobs=2)
        assert counts["done"] == 4
        assert _values(a) == _values(d)


def test_timeout_is_recorded(toys, tmp_path):
    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=1, sleep=2.0, timeout=0.2))
    with ResultStore(tmp_path / "t.db") as store:
        counts = compare(grid, store, base=base, progress=False)
        assert counts["timeout"] == 2
        (row, *_) = store.rows()
        assert row["status"] == "timeout" and "timeout of 0.2 s" in row["error"]


def test_sigkill_loses_nothing_and_rerun_completes(toys, tmp_path):
    path = _grid(tmp_path, seeds=10, source_sleep=0.15)
    db = tmp_path / "kill.db"
    cmd = [sys.executable, "-m", "macrocause.framework.cli", "compare", str(path), "--store", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    stored = 0
    while time.time() < deadline:
        time.sleep(0.05)
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=1) as c:
                    stored = c.execute("SELECT COUNT(DISTINCT run_key) FROM runs").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            if stored >= 3:
                break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 3 <= stored < 20, "the grid finished before it could be killed"
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        per_run = c.execute("SELECT run_key, COUNT(*) FROM runs GROUP BY run_key").fetchall()
    assert all(n == 2 for _, n in per_run), "a run was half-written"
    before = len(per_run)
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{before} already stored, {20 - before} done" in done.stdout
    with ResultStore(db) as store:
        assert store.count_runs() == 20
        assert len(store.rows()) == 40


def test_bad_grids(toys, tmp_path):
    from macrocause.framework import PipelineError

    (tmp_path / "g.yaml").write_text("data: []\npipelines: [x.yaml]\n")
    with pytest.raises(PipelineError, match="grid: data: List should have at least 1 item"):
        Grid.from_yaml(tmp_path / "g.yaml")
    (tmp_path / "g.yaml").write_text("data: [{source: toy_source}]\npipelines: [x.yaml]\n")
    grid, base = Grid.from_yaml(tmp_path / "g.yaml")
    with pytest.raises(PipelineError, match="grid pipeline 1: Pipeline file not found"):
        grid.tasks(base)


@pytest.mark.parametrize(("text", "message"), [
    ("data: [{source: toy_source}]\npipelines: [toy.yaml]\nseeds: [1, 1, 2]\n",
     "Invalid grid: seeds: entries 1 and 2 are the same (1); list each once."),
    ("data: [{source: toy_source, params: {n: 8}}, {source: toy_source}, {source: toy_source, params: {n: 8}}]\n"
     "pipelines: [toy.yaml]\n",
     "Invalid grid: data: entries 1 and 3 are the same ({'source': 'toy_source', 'params': {'n': 8}}); list each once."),
    ("data: [{source: toy_source}]\npipelines: [toy.yaml, toy.yaml]\n",
     "Invalid grid: pipelines: entries 1 and 2 are the same ('toy.yaml'); list each once."),
])
def test_repeated_grid_entries_are_rejected(toys, tmp_path, text, message):
    from macrocause.framework import PipelineError

    (tmp_path / "g.yaml").write_text(text)
    with pytest.raises(PipelineError) as err:
        Grid.from_yaml(tmp_path / "g.yaml")
    assert str(err.value) == message


def test_two_pipelines_giving_the_same_run_are_rejected(toys, tmp_path):
    from macrocause.framework import PipelineError

    _grid(tmp_path)
    (tmp_path / "copy.yaml").write_text((tmp_path / "toy.yaml").read_text())
    (tmp_path / "g.yaml").write_text("data: [{source: toy_source}]\npipelines: [toy.yaml, copy.yaml]\nseeds: 2\n")
    grid, base = Grid.from_yaml(tmp_path / "g.yaml")
    with pytest.raises(PipelineError, match=r"pipeline 1 on data entry 1 and pipeline 2 on data entry 1 give "
                                            r"the same run \(toy on toy_source, seed 0\); list each run once"):
        grid.tasks(base)


def test_retry_failed_recomputes_only_failed_and_timed_out_runs(toys, tmp_path):
    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=1, sleep=0.5, timeout=0.1))
    with ResultStore(tmp_path / "f.db") as store:
        assert compare(grid, store, base=base, progress=False)["timeout"] == 2
        assert compare(grid, store, base=base, progress=False)["skipped"] == 2
        patient = grid.model_copy(update={"timeout": 30.0})  # the timeout is not part of a run's key
        counts = compare(patient, store, base=base, progress=False, retry_failed=True)
        assert counts == {"total": 2, "skipped": 0, "done": 2, "failed": 0, "timeout": 0}
        assert store.count_runs() == 2 and {r["status"] for r in store.rows()} == {"done"}
        assert compare(patient, store, base=base, progress=False, retry_failed=True)["skipped"] == 2


def test_three_processes_on_one_grid_compute_each_run_once(toys, tmp_path):
    path = _grid(tmp_path, seeds=6, source_sleep=0.1)
    db = tmp_path / "three.db"
    cmd = [sys.executable, "-m", "macrocause.framework.cli", "compare", str(path), "--store", str(db)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    done = [int(re.search(r"(\d+) done", out).group(1)) for out, _ in outs]
    assert sum(done) == 12, outs  # each run computed by exactly one process
    with ResultStore(db) as store:
        assert store.count_runs() == 12 and len(store.rows()) == 24
        assert {t["n"] for t in report_table(store.results())} == {6}
        assert store._conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_a_worker_that_dies_fails_its_run_only(toys, tmp_path):
    from macrocause.framework import Partitioner, hookimpl

    class Crash(Partitioner):
        """Kills its own process on the small data set."""

        name = "toy_crash"

        def _partition(self, data):
            if data.n_samples == 20:
                os.kill(os.getpid(), signal.SIGKILL)
            return toys.create("toy_threshold").partition(data)

    class Plugins:
        @hookimpl
        def macrocause_register_plugins(self, register):
            register(Crash)

    toys.register_module(Plugins(), "crash")
    _grid(tmp_path, seeds=2)
    (tmp_path / "toy.yaml").write_text(PIPE.replace("toy_threshold, params: {sleep: SLEEP}", "toy_crash"))
    grid, base = Grid.from_yaml(tmp_path / "grid.yaml")
    with ResultStore(tmp_path / "c.db") as store:
        counts = compare(grid, store, base=base, progress=False, n_jobs=2)
        assert counts == {"total": 4, "skipped": 0, "done": 2, "failed": 2, "timeout": 0}
        failed = [r for r in store.rows() if r["status"] == "failed"]
        assert len(failed) == 2 and all(r["data_label"] == "toy_source[n=20,sleep=0.0]" for r in failed)
        assert failed[0]["error"] == "its worker process died (killed by SIGKILL)"


def test_report_out_is_replaced_atomically(toys, tmp_path, monkeypatch):
    from click.testing import CliRunner

    import macrocause.framework.report as fr
    from macrocause.framework.cli import main

    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=1))
    db = tmp_path / "a.db"
    with ResultStore(db) as store:
        compare(grid, store, base=base, progress=False)
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.md").write_text("from an earlier report")
    (out / "old.csv").write_text("from an earlier report")
    res = CliRunner().invoke(main, ["report", "--store", str(db), "--out", str(out)])
    assert res.exit_code == 0, res.output
    names = sorted(p.name for p in out.iterdir())
    assert {"report.md", "report.html", "report.csv"} <= set(names) and "old.csv" not in names

    def broken(rep, folder):
        (folder / "report.md").write_text("half")
        raise OSError("disk full")

    monkeypatch.setattr(fr, "write_files", broken)
    res = CliRunner().invoke(main, ["report", "--store", str(db), "--out", str(out)])
    assert res.exit_code == 1 and "disk full" in res.output
    assert (out / "report.md").read_text().startswith("# macrocause report")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".rep")) == []


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stored_runs(db):
    try:
        with sqlite3.connect(db, timeout=1) as c:
            return c.execute("SELECT COUNT(DISTINCT run_key) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


@pytest.mark.slow
def test_dask_scheduler_and_two_workers_survive_a_killed_worker(toys, tmp_path):
    pytest.importorskip("distributed")
    from distributed import Client

    path = _grid(tmp_path, seeds=4, sleep=0.4)
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "dask"]
    procs = [subprocess.Popen(dask + ["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen(
                dask + ["worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-dashboard",
                        "--death-timeout", "30"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=30)
        db = tmp_path / "dask.db"
        cmd = [sys.executable, "-m", "macrocause.framework.cli", "compare", str(path), "--store", str(db),
               "--executor", "dask", "--address", address]
        run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(run)
        deadline = time.time() + 40
        while _stored_runs(db) < 2 and time.time() < deadline and run.poll() is None:
            time.sleep(0.05)
        assert 2 <= _stored_runs(db) < 8, "the grid was not caught mid-way"
        os.killpg(procs[1].pid, signal.SIGKILL)  # one worker (nanny and its process) dies mid-run
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
        assert "8 runs: 0 already stored, 8 done, 0 failed" in out
        assert f"connecting to the Dask scheduler at {address}" in err
        (tmp_path / "ref").mkdir()  # the reference on the local executor, without the sleep
        grid, base = Grid.from_yaml(_grid(tmp_path / "ref", seeds=4))
        with ResultStore(db) as d, ResultStore(tmp_path / "local.db") as a:
            compare(grid, a, base=base, progress=False)
            assert _values(d) == _values(a)
    finally:
        for p in procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    p.kill()
                p.wait()


def test_a_local_dask_cluster_start_is_announced(monkeypatch, capsys):
    distributed = pytest.importorskip("distributed")
    from macrocause.framework.execution import dask_client

    seen = {}
    monkeypatch.setattr(distributed, "LocalCluster", lambda **kw: seen.update(kw) or "cluster")
    monkeypatch.setattr(distributed, "Client", lambda cluster: f"client of {cluster}")
    assert dask_client(n_workers=3, announce=True) == "client of cluster"
    assert seen["n_workers"] == 3 and seen["threads_per_worker"] == 1
    assert capsys.readouterr().err.splitlines() == [
        "starting a local Dask cluster with 3 workers ...", "the Dask cluster is ready."]


def test_a_changed_default_makes_stored_runs_stale(toys, tmp_path, monkeypatch):
    """The key hashes the pipeline as written; a stored run computed under an old default is found
    by re-resolving its parameters, refused with a one-line error, and replaced on request."""
    import toy_plugins

    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=2))
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)

        class Shifted(toy_plugins.ThresholdParams):
            column: int = 1

        monkeypatch.setattr(toy_plugins.Threshold, "Params", Shifted)
        with pytest.raises(PipelineError, match=r"^4 stored runs .* \(e\.g\. groups\.column: 0 -> 1: a default "
                                            r"changed\); run them again with --rerun-stale") as err:
            compare(grid, store, base=base, progress=False)
        assert "\n" not in str(err.value)
        assert {r["params"]["column"] for r in store.rows() if r["step"] == "groups"} == {0}  # untouched
        counts = compare(grid, store, base=base, progress=False, rerun_stale=True)
        assert counts["done"] == 4 and counts["skipped"] == 0 and store.count_runs() == 4
        assert {r["params"]["column"] for r in store.rows() if r["step"] == "groups"} == {1}
        assert compare(grid, store, base=base, progress=False)["skipped"] == 4  # nothing stale now


def test_report_of_a_grid_file_leaves_out_runs_it_no_longer_names(toys, tmp_path):
    from click.testing import CliRunner

    from macrocause.framework.cli import main

    path = _grid(tmp_path, seeds=1)
    grid, base = Grid.from_yaml(path)
    db = tmp_path / "r.db"
    with ResultStore(db) as store:
        compare(grid, store, base=base, progress=False)
    path.write_text(path.read_text().replace("  - {source: toy_source, params: {n: 40}}\n", ""))  # entry removed

    def shown(grid_arg):
        res = CliRunner().invoke(main, ["report", "--store", str(db), "--grid", grid_arg, "--out",
                                        str(tmp_path / "out")])
        assert res.exit_code == 0, res.output
        with open(tmp_path / "out" / "results.csv") as f:
            return {line.split(",")[3] for line in f.readlines()[1:]}, res.output

    by_name, _ = shown("g")
    by_file, out = shown(str(path))
    assert len(by_name) == 2 and len(by_file) == 1 and by_file < by_name
    assert "1 of its 1 runs stored; 1 other stored runs of the grid left out" in out

    path.write_text(path.read_text().replace("n: 20", "n: 30"))  # a grid of runs never computed
    res = CliRunner().invoke(main, ["report", "--store", str(db), "--grid", str(path)])
    assert res.exit_code != 0 and "None of the 1 runs" in res.output and "macrocause compare" in res.output
    res = CliRunner().invoke(main, ["report", "--store", str(db), "--grid", str(tmp_path / "missing.yaml")])
    assert res.exit_code != 0 and f"Error: Grid file not found: {tmp_path / 'missing.yaml'}" in res.output
