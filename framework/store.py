"""The results store: one SQLite file, one row per executed step, one transaction per run.

A *run* is one pipeline on one dataset with one seed; its key is a hash of all
three, so a grid that is run again skips what the store already holds, and an
interrupted grid resumes where it stopped. Rows of a run are written together
in a single transaction: a run is either wholly in the store or not at all.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any

from .errors import MacrocauseError

__all__ = ["ResultStore", "DEFAULT_STORE", "package_versions"]

DEFAULT_STORE = "macrocause-results.db"

_SCHEMA = """
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

_COLUMNS = (
    "run_key", "grid", "pipeline", "step", "kind", "plugin", "on_step", "method", "params",
    "params_hash", "source", "source_params", "data_label", "seed", "metrics", "seconds",
    "peak_mb", "versions", "status", "error", "created",
)


@cache
def package_versions() -> dict[str, str]:
    """Versions of macrocause and the libraries whose behaviour shapes results."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("macrocause", "numpy", "scipy", "scikit-learn", "numba", "pgmpy", "causal-learn", "networkx"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return out


class ResultStore:
    """SQLite store of pipeline runs.

    Parameters
    ----------
    path : str or Path
        The database file; created with its schema if missing.
    """

    def __init__(self, path: str | Path = DEFAULT_STORE) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            raise MacrocauseError(f"Results store folder does not exist: {self.path.parent}")
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._conn.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise MacrocauseError(f"{self.path} is not a macrocause results store: {exc}") from None

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def done_keys(self) -> set[str]:
        """Keys of the runs already stored (done, failed or timed out)."""
        return {r[0] for r in self._conn.execute("SELECT DISTINCT run_key FROM runs")}

    def write_run(
        self,
        run_key: str,
        records: Iterable[Any],
        *,
        pipeline: str,
        seed: int,
        data_label: str,
        source: str | None = None,
        source_params: dict[str, Any] | None = None,
        grid: str | None = None,
    ) -> int:
        """Store every record of one run in a single transaction; returns the row count."""
        now = time.time()
        versions = json.dumps(package_versions(), sort_keys=True)
        rows = []
        for rec in records:
            r = rec if isinstance(rec, dict) else asdict(rec)
            params = r.get("params") or {}
            rows.append((
                run_key, grid, pipeline, r["step"], r["kind"], r.get("plugin"), r.get("on"),
                r.get("method"), json.dumps(params, sort_keys=True, default=str),
                r.get("params_hash") or _hash(params), source,
                json.dumps(source_params or {}, sort_keys=True, default=str), data_label, seed,
                json.dumps(r.get("metrics") or {}, sort_keys=True), r.get("seconds"),
                r.get("peak_mb"), versions, r.get("status", "done"), r.get("error"), now,
            ))
        if not rows:
            raise MacrocauseError(f"run {run_key}: nothing to store.")
        cur = self._conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            cur.executemany(
                f"INSERT INTO runs ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                rows,
            )
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        return len(rows)

    def rows(self, where: str = "", args: tuple = ()) -> list[dict[str, Any]]:
        """All rows (optionally filtered by a SQL *where* clause) as dicts with JSON decoded."""
        q = f"SELECT {', '.join(_COLUMNS)} FROM runs" + (f" WHERE {where}" if where else "") + " ORDER BY id"
        out = []
        for row in self._conn.execute(q, args):
            d = dict(zip(_COLUMNS, row))
            for key in ("params", "source_params", "metrics", "versions"):
                d[key] = json.loads(d[key]) if d[key] else {}
            out.append(d)
        return out

    def count_runs(self) -> int:
        return self._conn.execute("SELECT COUNT(DISTINCT run_key) FROM runs").fetchone()[0]

    def to_pandas(self, where: str = "", args: tuple = ()):
        """The rows as a long-format DataFrame, metrics as columns (see :func:`framework.frames.runs_frame`)."""
        from .frames import runs_frame

        return runs_frame(self.rows(where, args))


def _hash(params: dict[str, Any]) -> str:
    from .pipeline import params_hash

    return params_hash(params)
