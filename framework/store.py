"""The results store: one SQLite file, one result per run, one transaction per run.

A *run* is one pipeline on one dataset with one seed, inside a grid or on its
own (``macrocause run``). Its key hashes the pipeline (data, parameters and seed
included) and the grid's name, and is unique in the store: writing a run again
replaces its rows, so nothing is counted twice. Rows of a run are written
together in a single transaction: a run is either wholly in the store or not at
all. Before computing a run, ``compare`` *claims* it through the store's
:class:`~macrocause.framework.claims.Claims` (``store.claims``), so that several processes on
one grid and one store compute each run once.

Each row carries its provenance: the grid (``NULL`` for a single run), package
versions, the git commit of the macrocause checkout (if any), the host, its core
count and its 1-minute load average when the run started.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import time
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import quote

from . import provenance as _provenance
from .claims import Claims
from .errors import MacrocauseError
from .provenance import git_commit, package_versions, provenance

__all__ = ["ResultStore", "DEFAULT_STORE", "SCHEMA_VERSION", "package_versions",
           "provenance", "git_commit", "run_key"]

DEFAULT_STORE = "macrocause-results.db"
SCHEMA_VERSION = 2

# the runs table of schema 1; schema 2 adds the columns of _NEW (a new store gets both)
_RUNS = """
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
"""
# columns added by schema 2, with their types
_NEW = {"seq": "INTEGER NOT NULL DEFAULT 0", "startup_s": "REAL", "extra": "TEXT", "host": "TEXT", "cores": "INTEGER",
        "load1": "REAL", "git_commit": "TEXT"}
_SCHEMA_2 = """
CREATE UNIQUE INDEX IF NOT EXISTS runs_key_seq ON runs (run_key, seq);
CREATE INDEX IF NOT EXISTS runs_grid ON runs (grid);
CREATE TABLE IF NOT EXISTS claims (
    run_key TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    heartbeat REAL NOT NULL
);
"""

_COLUMNS = (
    "run_key", "seq", "grid", "pipeline", "step", "kind", "plugin", "on_step", "method", "params",
    "params_hash", "source", "source_params", "data_label", "seed", "metrics", "seconds",
    "startup_s", "peak_mb", "versions", "status", "error", "extra", "host", "cores", "load1", "git_commit",
    "created",
)
_JSON = ("params", "source_params", "metrics", "versions", "extra")
# record keys with a column of their own; any other key of a record goes to `extra`
_KNOWN = {"step", "kind", "plugin", "on", "method", "params", "params_hash", "metrics", "seconds",
          "wall_s", "startup_s", "peak_mb", "status", "error"}
# what a store may hold (sqlite_master type and name); a view, trigger or other table is refused
_OBJECTS = {("table", "runs"), ("table", "claims"), ("table", "sqlite_sequence"),
            ("index", "runs_key_seq"), ("index", "runs_grid"), ("index", "sqlite_autoindex_claims_1"),
            ("index", "runs_key"),  # runs_key: schema 1; sqlite_stat*: ANALYZE's statistics
            ("table", "sqlite_stat1"), ("table", "sqlite_stat4")}
MAX_JSON = 1_000_000  # characters of one stored JSON field
MAX_SECONDS = 60.0  # one read of the store, at most
MAX_ERROR = 2400  # characters of a stored error message
_NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def run_key(pipeline_key: str, grid: str | None) -> str:
    """The store key of a run: the pipeline's own key, scoped by the grid's name."""
    if grid is None:
        return pipeline_key
    return hashlib.sha256(f"{grid}\0{pipeline_key}".encode()).hexdigest()[:24]


class ResultStore:
    """SQLite store of pipeline runs.

    A store holding anything but macrocause's tables and indexes (a view, a
    trigger, another table, a missing column) is refused, and so is any read
    taking more than :data:`MAX_SECONDS`.

    Parameters
    ----------
    path : str or Path
        The database file; created with its schema if missing, migrated if it
        was written by an older macrocause.
    readonly : bool
        Open the file read-only (``report`` does): nothing is created or
        written; a store of an older schema is migrated in memory.
    """

    def __init__(self, path: str | Path = DEFAULT_STORE, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        if self.path.parent and not self.path.parent.exists():
            raise MacrocauseError(f"Results store folder does not exist: {self.path.parent}")
        if readonly and not self.path.is_file():
            raise MacrocauseError(f"No results store at {self.path}.")
        self._deadline = math.inf
        try:
            if readonly:
                uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
                self._conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30)
            else:
                self._conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._conn.set_progress_handler(self._too_long, 10_000)
            with self._bounded():
                self._check_objects()
                self._open()
                self._check_columns()
        except sqlite3.DatabaseError as exc:
            raise MacrocauseError(f"{self.path} is not a macrocause results store: {_line(exc)}") from None
        self.claims = Claims(self._conn, self.path)

    def _too_long(self) -> int:
        return int(time.monotonic() > self._deadline)

    @contextmanager
    def _bounded(self):
        """Context in which a read is interrupted after :data:`MAX_SECONDS`."""
        self._deadline = time.monotonic() + MAX_SECONDS
        try:
            yield
        except sqlite3.OperationalError as exc:
            if "interrupt" not in str(exc):
                raise
            raise MacrocauseError(f"{self.path}: reading the store took over {MAX_SECONDS:.0f} s; refused.") from None
        finally:
            self._deadline = math.inf

    def _check_objects(self) -> None:
        found = list(self._conn.execute("SELECT type, name, sql FROM sqlite_master"))
        odd = [(t, n) for t, n, sql in found
               if (t, n) not in _OBJECTS or (t == "table" and "VIRTUAL" in (sql or "").upper())]
        if odd:
            kind, name = odd[0]
            raise MacrocauseError(f"{self.path} is not a macrocause results store: it holds a {kind} "
                                  f"{_short(name)} ({len(odd)} unexpected object(s)); refused.")

    def _check_columns(self) -> None:
        cols = {r[1] for r in self._conn.execute("PRAGMA table_info(runs)")}
        missing = [c for c in _COLUMNS if c not in cols]
        if missing:
            raise MacrocauseError(f"{self.path} is not a macrocause results store: table runs has no "
                                  f"column {missing[0]!r}; refused.")

    def _open(self) -> None:
        c = self._conn
        version = c.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if self.readonly and version < SCHEMA_VERSION:
            self._migrate_in_memory()
            return
        if version > SCHEMA_VERSION:
            raise MacrocauseError(
                f"{self.path} was written by a newer macrocause (store schema {version}; "
                f"this version reads up to {SCHEMA_VERSION}): upgrade macrocause."
            )
        c.execute("BEGIN IMMEDIATE")
        try:
            version = c.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
            if version < SCHEMA_VERSION:
                has_runs = c.execute("SELECT 1 FROM sqlite_master WHERE name = 'runs'").fetchone()
                c.execute(_RUNS)
                cols = {r[1] for r in c.execute("PRAGMA table_info(runs)")}
                for name, kind in _NEW.items():
                    if name not in cols:
                        c.execute(f"ALTER TABLE runs ADD COLUMN {name} {kind}")
                if has_runs:
                    _migrate_1_to_2(c)
                for stmt in _SCHEMA_2.split(";"):
                    if stmt.strip():
                        c.execute(stmt)
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def _migrate_in_memory(self) -> None:
        """A read-only store of an older schema: copy it to memory and migrate the copy."""
        mem = sqlite3.connect(":memory:", isolation_level=None)
        self._conn.backup(mem)
        self._conn.close()
        self._conn = mem
        self._conn.set_progress_handler(self._too_long, 10_000)
        self.readonly = False
        try:
            self._open()
        finally:
            self.readonly = True

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- what is stored -------------------------------------------------------------------------

    def done_keys(self) -> set[str]:
        """Keys of the runs already stored (done, failed or timed out)."""
        return {r[0] for r in self._conn.execute("SELECT DISTINCT run_key FROM runs")}

    def run_status(self) -> dict[str, str]:
        """Status of every stored run: ``done``, or the first failed/timed-out step's status."""
        out: dict[str, str] = {}
        for key, status in self._conn.execute("SELECT run_key, status FROM runs ORDER BY run_key, seq"):
            if out.get(key, "done") == "done":
                out[key] = status
        return out

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
        provenance: Mapping[str, Any] | None = None,
    ) -> int:
        """Store every record of one run in a single transaction, replacing the run's earlier
        rows and releasing its claim; returns the row count.

        A record is a dict (or dataclass) with at least ``step`` and ``kind``; keys
        without a column of their own (e.g. a plugin-specific timing) are kept in ``extra``.
        *provenance* defaults to :func:`provenance` now.
        """
        now = time.time()
        prov = dict(provenance) if provenance is not None else _provenance.provenance()
        versions = json.dumps(prov.get("versions") or package_versions(), sort_keys=True)
        rows = []
        for seq, rec in enumerate(records):
            r = rec if isinstance(rec, dict) else asdict(rec)
            params = r.get("params") or {}
            extra = {k: v for k, v in r.items() if k not in _KNOWN}
            rows.append((
                run_key, seq, grid, pipeline, r["step"], r["kind"], r.get("plugin"), r.get("on"),
                r.get("method"), json.dumps(params, sort_keys=True, default=str),
                r.get("params_hash") or _hash(params), source,
                json.dumps(source_params or {}, sort_keys=True, default=str), data_label, seed,
                json.dumps(_strict(r.get("metrics") or {}), sort_keys=True, allow_nan=False),
                r.get("wall_s", r.get("seconds")),
                r.get("startup_s"), r.get("peak_mb"), versions, r.get("status", "done"), _cap(r.get("error")),
                json.dumps(extra, sort_keys=True, default=str) if extra else None,
                prov.get("host"), prov.get("cores"), prov.get("load1"), prov.get("git_commit"), now,
            ))
        if not rows:
            raise MacrocauseError(f"run {run_key}: nothing to store.")
        cur = self._conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            cur.execute("DELETE FROM runs WHERE run_key = ?", (run_key,))
            cur.executemany(
                f"INSERT INTO runs ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                rows,
            )
            cur.execute("DELETE FROM claims WHERE run_key = ?", (run_key,))
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        return len(rows)

    def rows(self, where: str = "", args: tuple = ()) -> list[dict[str, Any]]:
        """All rows (optionally filtered by a SQL *where* clause) as dicts with JSON decoded."""
        q = f"SELECT {', '.join(_COLUMNS)} FROM runs" + (f" WHERE {where}" if where else "") + " ORDER BY id"
        out = []
        with self._bounded():
            for row in self._conn.execute(q, args):
                d = dict(zip(_COLUMNS, row))
                for key in _JSON:
                    d[key] = self._json(d[key], key, d["run_key"])
                d["metrics"] = self._metrics(d["metrics"], d["run_key"])
                out.append(d)
        return out

    def _json(self, text: Any, column: str, key: Any) -> Any:
        if not text:
            return {}
        where = f"{self.path}: run {_short(key)}, column {column}"
        if not isinstance(text, str) or len(text) > MAX_JSON:
            raise MacrocauseError(f"{where}: not JSON text of at most {MAX_JSON:,} characters; refused.")
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise MacrocauseError(f"{where}: unreadable JSON ({_line(exc)}); refused.") from None
        if not isinstance(value, dict):
            raise MacrocauseError(f"{where}: a mapping expected, got {type(value).__name__}; refused.")
        return value

    def _metrics(self, metrics: dict[str, Any], key: Any) -> dict[str, float]:
        """Metric values as floats; the strings ``"inf"``, ``"-inf"``, ``"nan"`` are the non-finite ones."""
        out = {}
        for name, v in metrics.items():
            if isinstance(v, str) and v in _NONFINITE:
                v = _NONFINITE[v]
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise MacrocauseError(f"{self.path}: run {_short(key)}, metric {_short(name)} is not a "
                                      f"number ({type(v).__name__}); refused.")
            out[name] = v
        return out

    def grids(self) -> list[str]:
        """Names of the grids in the store, the most recently written last."""
        q = "SELECT grid FROM runs WHERE grid IS NOT NULL GROUP BY grid ORDER BY MAX(created), grid"
        return [r[0] for r in self._conn.execute(q)]

    def results(self, grid: str | None = None, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The rows of one grid: one result per (pipeline, data, parameters, seed).

        *grid* defaults to the most recently written grid; single runs
        (``macrocause run``) are never mixed in, and are reported only when the
        store holds no grid. With *keys* (run keys, e.g. those a grid file names
        now: :meth:`macrocause.framework.compare.Grid.tasks`), only those runs.
        """
        names = self.grids()
        if grid is None:
            rows = self.rows("grid = ?", (names[-1],)) if names else self.rows("grid IS NULL")
        elif grid not in names:
            raise MacrocauseError(
                f"The store {self.path} has no grid {grid!r}; it has {', '.join(map(repr, names)) or 'none'}."
            )
        else:
            rows = self.rows("grid = ?", (grid,))
        if keys is None:
            return rows
        keys = set(keys)
        return [r for r in rows if r["run_key"] in keys]

    def count_runs(self) -> int:
        return self._conn.execute("SELECT COUNT(DISTINCT run_key) FROM runs").fetchone()[0]

    def to_pandas(self, where: str = "", args: tuple = ()):
        """The rows as a long-format DataFrame, metrics as columns (see :func:`macrocause.framework.frames.runs_frame`)."""
        from .frames import runs_frame

        return runs_frame(self.rows(where, args))


def _migrate_1_to_2(c: sqlite3.Connection) -> None:
    """Schema 1 (no version, no uniqueness) to 2: scope grid runs' keys by their grid, keep only
    the latest write of each run, number its rows."""
    c.create_function("grid_key", 2, run_key, deterministic=True)
    c.execute("UPDATE runs SET run_key = grid_key(run_key, grid) WHERE grid IS NOT NULL")
    c.execute("DELETE FROM runs WHERE created < (SELECT MAX(created) FROM runs r WHERE r.run_key = runs.run_key)")
    c.execute("UPDATE runs SET seq = (SELECT COUNT(*) FROM runs r WHERE r.run_key = runs.run_key AND r.id < runs.id)")
    c.execute("DROP INDEX IF EXISTS runs_key")


def _strict(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Metrics as strict JSON values: non-finite floats become ``"inf"``, ``"-inf"``, ``"nan"``."""
    out = {}
    for k, v in metrics.items():
        if isinstance(v, float | int) and not isinstance(v, bool) and not math.isfinite(v):
            v = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        out[k] = v
    return out


def _short(text: Any, limit: int = 60) -> str:
    """*text* quoted and cut to *limit* characters."""
    r = repr(str(text))
    return r if len(r) <= limit else r[: limit - 4] + "...'"


def _line(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + " ..."


def _cap(error: Any) -> Any:
    if not isinstance(error, str) or len(error) <= MAX_ERROR:
        return error
    return error[:MAX_ERROR] + f" ... [{len(error) - MAX_ERROR:,} characters cut]"


def _hash(params: dict[str, Any]) -> str:
    from .pipeline import params_hash

    return params_hash(params)
