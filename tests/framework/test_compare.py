import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import toy_plugins

from framework.compare import Grid, compare
from framework.store import ResultStore

HERE = Path(__file__).resolve().parent

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


@pytest.fixture
def toys(plugin_registry, monkeypatch):
    plugin_registry.register_module(toy_plugins, "toys")
    monkeypatch.setenv("MACROCAUSE_PLUGINS", "toy_plugins")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
    return plugin_registry


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
    cmd = [sys.executable, "-m", "framework.cli", "compare", str(path), "--store", str(db)]
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
    from framework import PipelineError

    (tmp_path / "g.yaml").write_text("data: []\npipelines: [x.yaml]\n")
    with pytest.raises(PipelineError, match="grid: data: List should have at least 1 item"):
        Grid.from_yaml(tmp_path / "g.yaml")
    (tmp_path / "g.yaml").write_text("data: [{source: toy_source}]\npipelines: [x.yaml]\n")
    grid, base = Grid.from_yaml(tmp_path / "g.yaml")
    with pytest.raises(PipelineError, match="grid pipeline 1: Pipeline file not found"):
        grid.tasks(base)
