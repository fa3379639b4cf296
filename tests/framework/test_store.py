"""The results store: one result per run, claims, provenance, schema migration."""

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_compare import _grid, report_table

from macrocause.framework.cli import main
from macrocause.framework.compare import Grid, Task, compare
from macrocause.framework.errors import MacrocauseError
from macrocause.framework.store import SCHEMA_VERSION, ResultStore, git_commit

# the schema of the store before versioning (macrocause <= 0.1.0, schema 1), verbatim
OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_key TEXT NOT NULL,
    grid TEXT,
    pipeline TEXT NOT NULL,
    step TEXT NOT NULL,
    kind TEXT NOT NULL,
    plugin TEXT,
    on_step TEXT,
    method TEXT,
    params TEXT NOT NULL,
    params_hash TEXT NOT NULL,
    source TEXT,
    source_params TEXT,
    data_label TEXT,
    seed INTEGER,
    metrics TEXT NOT NULL,
    seconds REAL,
    peak_mb REAL,
    versions TEXT,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed', 'timeout')),
    error TEXT,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_key ON runs (run_key);
"""
OLD_COLUMNS = ("run_key", "grid", "pipeline", "step", "kind", "plugin", "on_step", "method", "params",
               "params_hash", "source", "source_params", "data_label", "seed", "metrics", "seconds",
               "peak_mb", "versions", "status", "error", "created")


def _old_rows(key, grid, label, seed, value, created):
    common = dict(run_key=key, grid=grid, pipeline="toy", params="{}", params_hash="x", source="toy_source",
                  source_params="{}", data_label=label, seed=seed, seconds=0.1, peak_mb=1.0,
                  versions="{}", status="done", error=None, created=created)
    part = dict(common, step="groups", kind="partition", plugin="toy_threshold", on_step=None, method=None,
                metrics=json.dumps({"n_clusters": 2.0}))
    ev = dict(common, step="evaluate", kind="evaluate", plugin="toy_agreement", on_step="groups",
              method="toy_threshold", metrics=json.dumps({"toy_agreement": value}))
    return [tuple(r[c] for c in OLD_COLUMNS) for r in (part, ev)]


def _old_store(path, rows):
    with sqlite3.connect(path) as c:
        c.executescript(OLD_SCHEMA)
        c.executemany(f"INSERT INTO runs ({', '.join(OLD_COLUMNS)}) VALUES ({', '.join('?' * len(OLD_COLUMNS))})",
                      rows)


def test_old_schema_store_opens_deduplicated_and_resumes(toys, tmp_path):
    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=2))
    tasks = grid.tasks(base)
    rows = []
    for i, t in enumerate(tasks):  # what the old compare stored: keys without the grid
        old_key = Task(t.pipeline).key
        label = "toy_source[n=20,sleep=0.0]" if i < 2 else "toy_source[n=40]"
        rows += _old_rows(old_key, "g", label, t.pipeline.seed, 0.5, 100.0 + i)
    # the first run stored three times (three concurrent processes), the last write has 1.0
    first = Task(tasks[0].pipeline).key
    rows += _old_rows(first, "g", "toy_source[n=20,sleep=0.0]", 0, 0.25, 200.0)
    rows += _old_rows(first, "g", "toy_source[n=20,sleep=0.0]", 0, 1.0, 300.0)
    rows += _old_rows("single", None, "toy_source[n=20,sleep=0.0]", 0, 0.0, 50.0)
    _old_store(tmp_path / "old.db", rows)
    with sqlite3.connect(tmp_path / "old.db") as c:
        assert c.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 14
    with ResultStore(tmp_path / "old.db") as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.count_runs() == 5 and len(store.rows()) == 10
        table = report_table(store.results())
        assert {(t["data"], t["mean"], t["n"]) for t in table} == {
            ("toy_source[n=20,sleep=0.0]", 0.75, 2), ("toy_source[n=40]", 0.5, 2)}
        counts = compare(grid, store, base=base, progress=False)
        assert counts["skipped"] == 4 and counts["done"] == 0
    with ResultStore(tmp_path / "old.db") as store:  # opening again changes nothing
        assert len(store.rows()) == 10


def test_an_old_store_is_read_read_only_without_changing_it(tmp_path):
    rows = _old_rows("a", "g", "toy_source[n=20]", 0, 0.5, 100.0) + _old_rows("a", "g", "toy_source[n=20]", 0, 1.0, 200.0)
    _old_store(tmp_path / "old.db", rows)
    before = (tmp_path / "old.db").read_bytes()
    with ResultStore(tmp_path / "old.db", readonly=True) as store:  # migrated in memory: the latest write
        assert [r["metrics"] for r in store.rows()] == [{"n_clusters": 2.0}, {"toy_agreement": 1.0}]
    assert (tmp_path / "old.db").read_bytes() == before
    with pytest.raises(MacrocauseError, match="No results store"):
        ResultStore(tmp_path / "missing.db", readonly=True)
    assert not (tmp_path / "missing.db").exists()


def test_a_newer_schema_is_refused(tmp_path):
    with sqlite3.connect(tmp_path / "new.db") as c:
        c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(MacrocauseError, match="written by a newer macrocause"):
        ResultStore(tmp_path / "new.db")


def test_rerun_replaces_and_report_n_is_unchanged(toys, tmp_path):
    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=2))
    with ResultStore(tmp_path / "r.db") as store:
        compare(grid, store, base=base, progress=False)
        before = report_table(store.results())
        assert {t["n"] for t in before} == {2}
        counts = compare(grid, store, base=base, progress=False, retry_failed=True)
        assert counts["skipped"] == 4  # done runs are never recomputed
        t = grid.tasks(base)[0]
        out = __import__("macrocause.framework.compare", fromlist=["run_task"]).run_task(t)
        store.write_run(t.key, out.records, pipeline=out.pipeline, seed=out.seed,
                        data_label=out.data_label, grid="g")  # the same run written again
        assert report_table(store.results()) == before
        assert store.count_runs() == 4 and len(store.rows()) == 8
        with pytest.raises(sqlite3.IntegrityError):  # the constraint holds on its own
            store._conn.execute("INSERT INTO runs (run_key, seq, pipeline, step, kind, params, params_hash,"
                                " metrics, status, created) SELECT run_key, seq, pipeline, step, kind, params,"
                                " params_hash, metrics, status, created FROM runs LIMIT 1")


def test_single_run_twice_is_stored_once_and_not_in_grid_reports(toys, tmp_path):
    from click.testing import CliRunner

    (tmp_path / "p.yaml").write_text(
        "name: one\ndata: {source: toy_source}\nsteps:\n  - {id: s, partition: toy_threshold}\n"
        "  - {evaluate: toy_agreement, on: s}\n")
    db = str(tmp_path / "s.db")
    for _ in range(2):
        res = CliRunner().invoke(main, ["run", str(tmp_path / "p.yaml"), "--store", db])
        assert res.exit_code == 0, res.output
    with ResultStore(db) as store:
        assert store.count_runs() == 1 and len(store.rows()) == 2
        assert store.grids() == [] and len(store.results()) == 2  # no grid: the single runs
        assert store.rows()[0]["grid"] is None
    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=1))
    with ResultStore(db) as store:
        compare(grid, store, base=base, progress=False)
        assert {r["pipeline"] for r in store.results()} == {"toy"}
    res = CliRunner().invoke(main, ["report", "--store", db])
    assert res.exit_code == 0 and "(n=1)" in res.output and "| s (toy_threshold)" not in res.output


def test_report_takes_one_grid_latest_by_default(toys, tmp_path):
    from click.testing import CliRunner

    path = _grid(tmp_path, seeds=1)
    db = tmp_path / "g.db"
    grid, base = Grid.from_yaml(path)
    with ResultStore(db) as store:
        compare(grid.model_copy(update={"name": "first"}), store, base=base, progress=False)
        compare(grid.model_copy(update={"name": "second", "seeds": [0, 1, 2]}), store, base=base,
                progress=False)
        assert store.grids() == ["first", "second"]
        assert {r["seed"] for r in store.results()} == {0, 1, 2}
        assert {r["seed"] for r in store.results("first")} == {0}
        with pytest.raises(MacrocauseError, match="has no grid 'third'; it has 'first', 'second'"):
            store.results("third")
    res = CliRunner().invoke(main, ["report", "--store", str(db), "--grid", "first"])
    assert res.exit_code == 0 and "(n=1)" in res.output and "(n=3)" not in res.output
    res = CliRunner().invoke(main, ["report", "--store", str(db)])
    assert "(n=3)" in res.output


def test_provenance_is_stored(toys, tmp_path):
    grid, base = Grid.from_yaml(_grid(tmp_path, seeds=1))
    with ResultStore(tmp_path / "p.db") as store:
        compare(grid, store, base=base, progress=False)
        row = store.rows()[0]
        store.write_run("k", [{"step": "s", "kind": "partition", "startup_s": 0.5, "cache_hits": 3}],
                        pipeline="p", seed=0, data_label="d")
        written = store.rows("run_key = 'k'")[0]
        extra = written["extra"]
    assert row["grid"] == "g" and row["host"] == socket.gethostname()
    assert row["cores"] == os.cpu_count() and 0 <= row["load1"] < 1000
    assert row["versions"]["numpy"]
    assert extra == {"cache_hits": 3} and written["startup_s"] == 0.5
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        head = None
    assert git_commit() == head and row["git_commit"] == head


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_claims(tmp_path):
    db = tmp_path / "c.db"
    rec = [{"step": "s", "kind": "partition", "status": "failed", "error": "boom"}]
    with ResultStore(db) as a, ResultStore(db) as b:
        host = socket.gethostname()
        assert a.claims.claim("r1") == "claimed"
        assert a.claims.claim("r1") == "claimed"  # its own claim
        b.claims.owner = (os.getppid(), host)  # a live process on this host
        assert b.claims.claim("r1") == "busy"
        a.claims.owner = (_dead_pid(), host)
        assert a.claims.claim("r2") == "claimed"
        assert b.claims.claim("r2") == "claimed"  # the holder died: stale at once
        a.claims.owner = (1, "elsewhere")  # another host, silent for longer than the TTL
        assert a.claims.claim("r3") == "claimed"
        assert b.claims.claim("r3") == "busy"
        a._conn.execute("UPDATE claims SET heartbeat = ? WHERE run_key = 'r3'", (time.time() - 1000,))
        assert b.claims.claim("r3") == "claimed"
        b.write_run("r3", rec, pipeline="p", seed=0, data_label="d")  # storing releases the claim
        assert b._conn.execute("SELECT COUNT(*) FROM claims WHERE run_key = 'r3'").fetchone()[0] == 0
        assert a.claims.claim("r3") == "stored"
        assert a.claims.claim("r3", retry_failed=True) == "claimed"
        b.claims.release(["r2"])
        assert b._conn.execute("SELECT run_key FROM claims ORDER BY run_key").fetchall() == [("r1",), ("r3",)]
