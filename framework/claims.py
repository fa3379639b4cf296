"""Claims on the runs of a results store: which process is computing which run.

Before computing a run, ``compare`` claims it in the store's ``claims`` table,
so that several processes on one grid and one store compute each run once. A
claim holds a process (pid and host) and the time of its last heartbeat; it is
stale when its process is dead (same host) or silent for :data:`CLAIM_TTL`
seconds, and another process may then take it. Storing a run drops its claim
(in the store's write transaction).
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

__all__ = ["Claims", "CLAIM_TTL", "HEARTBEAT"]

CLAIM_TTL = 120.0  # seconds without a heartbeat after which a claim expires
HEARTBEAT = 20.0  # seconds between heartbeats of a running compare


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by another user
        return True
    return True


class Claims:
    """This process's claims in one store (its connection and file).

    Parameters
    ----------
    conn : sqlite3.Connection
        The store's connection (autocommit; the ``runs`` and ``claims`` tables exist).
    path : Path
        The store's file, for the heartbeat thread's own connection.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self.owner = (os.getpid(), socket.gethostname())

    def claim(self, run_key: str, *, retry_failed: bool = False, replace: bool = False,
              ttl: float = CLAIM_TTL) -> Literal["claimed", "stored", "busy"]:
        """Claim a run before computing it.

        Returns ``stored`` when the run is already in the store (done, or any
        status unless *retry_failed*; never with *replace*), ``busy`` when a live process holds its
        claim, else records this process's claim and returns ``claimed``. A claim
        is stale when its process is dead (same host) or silent for *ttl* seconds.
        """
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            statuses = {r[0] for r in c.execute("SELECT status FROM runs WHERE run_key = ?", (run_key,))}
            if statuses and not replace and (statuses == {"done"} or not retry_failed):
                c.execute("COMMIT")
                return "stored"
            held = c.execute("SELECT pid, host, heartbeat FROM claims WHERE run_key = ?", (run_key,)).fetchone()
            if held is not None and (held[0], held[1]) != self.owner and not self._stale(held, ttl):
                c.execute("COMMIT")
                return "busy"
            c.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)", (run_key, *self.owner, time.time()))
            c.execute("COMMIT")
            return "claimed"
        except BaseException:
            c.execute("ROLLBACK")
            raise

    def _stale(self, held: tuple[int, str, float], ttl: float) -> bool:
        pid, host, beat = held
        if host == self.owner[1] and not _pid_alive(pid):
            return True
        return time.time() - beat > ttl

    def release(self, keys: Iterable[str]) -> None:
        """Drop this process's claims on *keys* (runs it will not compute after all)."""
        self._conn.executemany("DELETE FROM claims WHERE run_key = ? AND pid = ? AND host = ?",
                               [(k, *self.owner) for k in keys])

    def heartbeat(self) -> threading.Event:
        """Refresh this process's claims every :data:`HEARTBEAT` seconds (in a thread with its
        own connection) until the returned event is set."""
        stop = threading.Event()

        def beat() -> None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            try:
                while not stop.wait(HEARTBEAT):
                    try:
                        conn.execute("UPDATE claims SET heartbeat = ? WHERE pid = ? AND host = ?",
                                     (time.time(), *self.owner))
                    except sqlite3.OperationalError:  # busy for 30 s: try at the next beat
                        pass
            finally:
                conn.close()

        if str(self.path) != ":memory:":
            threading.Thread(target=beat, daemon=True, name="macrocause-heartbeat").start()
        return stop
