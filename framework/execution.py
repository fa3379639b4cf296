"""Execution backends: sequential, local worker processes, or Dask distributed.

:func:`parallel_map` is the one primitive: results come back in input order,
so a computation gives the same result on every backend. :func:`iter_unordered`
yields results as they complete and pulls items lazily, one per free worker.

Local workers are processes this module starts and can kill: a task that
exceeds its timeout is stopped even inside native code, a worker that dies
(killed, out of memory, a crash in native code) costs only its own task, and
workers die with their parent. Each worker's BLAS/OpenMP/numba thread pools are
sized so that the workers together use no more threads than there are cores.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import wait
from typing import Any, Literal

from .errors import ConfigError, MacrocauseError

__all__ = ["parallel_map", "iter_unordered", "progress_bar", "Executor", "n_workers", "cores", "thread_budget",
           "WorkerLost"]

Executor = Literal["local", "dask"]
OnLost = Callable[[Any, str, str], Any]

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
                "NUMEXPR_NUM_THREADS")


class WorkerLost(MacrocauseError):
    """A task's worker died or was stopped at its timeout, and no ``on_lost`` handler was given."""


def cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def n_workers(n_jobs: int) -> int:
    """Worker count for *n_jobs*: itself, or every core for -1."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ConfigError(f"n_jobs must be a positive int or -1 (all cores), got {n_jobs!r}.")
    return cores() if n_jobs == -1 else n_jobs


def _check(executor: str, n_jobs: int) -> int:
    if executor not in ("local", "dask"):
        raise ConfigError(f"executor must be 'local' or 'dask', got {executor!r}.")
    return n_workers(n_jobs)


def dask_client(address: str | None = None, n_workers: int = 2, announce: bool = False):
    """A Dask client on *address*, or on a new LocalCluster of *n_workers* processes.

    With *announce*, say on stderr what is being started (a cluster takes seconds).
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError(
            "The dask executor needs dask[distributed]: pip install 'macrocause[dask]'."
        ) from None
    if address:
        _say(announce, f"connecting to the Dask scheduler at {address} ...")
        return Client(address)
    _say(announce, f"starting a local Dask cluster with {n_workers} workers ...")
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    _say(announce, "the Dask cluster is ready.")
    return client


def _say(on: bool, text: str) -> None:
    if on:
        print(text, file=sys.stderr, flush=True)


def iter_unordered(
    fn: Callable[..., Any],
    items: Iterable[Any],
    *,
    executor: Executor = "local",
    n_jobs: int = 1,
    address: str | None = None,
    client: Any = None,
    timeout: Callable[[Any], float | None] | None = None,
    on_lost: OnLost | None = None,
    announce: bool = False,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, fn(item))`` as results complete (any order).

    *items* is consumed lazily: an item is taken when a worker is free for it.
    Exceptions raised by *fn* propagate; wrap *fn* to capture them instead.

    Parameters
    ----------
    timeout : callable, optional
        Seconds allowed for an item (``None``: no limit). The local executor then
        runs every item in a worker process, killed at the timeout; Dask ignores it.
    on_lost : callable, optional
        ``on_lost(item, status, reason)`` gives the result of an item whose worker
        died (``status="failed"``) or was killed at its timeout (``"timeout"``).
        Without it, :class:`WorkerLost` is raised.
    announce : bool
        Say on stderr when a Dask cluster is being started or connected to.
    """
    workers = _check(executor, n_jobs)
    if executor == "dask":
        yield from _dask(fn, items, workers if n_jobs != 1 else 2, address, client, on_lost, announce)
        return
    if workers == 1 and timeout is None:
        for i, item in enumerate(items):
            yield i, fn(item)
        return
    yield from _Pool(fn, workers, timeout, on_lost).run(items)


def _lost(on_lost: OnLost | None, item: Any, status: str, reason: str) -> Any:
    if on_lost is None:
        raise WorkerLost(reason)
    return on_lost(item, status, reason)


def _dask(fn, items, workers, address, client, on_lost, announce) -> Iterator[tuple[int, Any]]:
    own = client is None
    client = client or dask_client(address, n_workers=workers, announce=announce)
    try:
        from distributed import KilledWorker
        from distributed import as_completed as dask_completed

        window = max(2, 2 * sum(client.nthreads().values()))
        source = enumerate(items)
        queue = dask_completed()
        meta: dict[str, tuple[int, Any]] = {}

        def submit(n: int) -> None:
            for i, item in source:
                fut = client.submit(fn, item, pure=False)
                meta[fut.key] = (i, item)
                queue.add(fut)
                n -= 1
                if n == 0:
                    return

        submit(window)
        for fut in queue:
            i, item = meta.pop(fut.key)
            try:
                res = fut.result()
            except KilledWorker as exc:
                res = _lost(on_lost, item, "failed", f"its Dask worker died repeatedly ({exc})")
            yield i, res
            submit(1)
    finally:
        if own:
            cluster = getattr(client, "cluster", None)
            client.close()
            if cluster is not None:
                cluster.close()


# -- local worker processes -------------------------------------------------------------------


def thread_budget() -> int:
    """Threads this process may use, as :func:`limit_threads` set them (``OMP_NUM_THREADS``;
    ``macrocause compare`` gives each worker cores / jobs), else -1: every core (the ``workers``
    convention of scipy's k-d trees)."""
    n = os.environ.get("OMP_NUM_THREADS", "")
    return max(1, int(n)) if n.isdigit() else -1


def limit_threads(n: int) -> None:
    """Cap the BLAS/OpenMP/numba thread pools of this process at *n* threads.

    Environment variables cover libraries loaded later; threadpoolctl (when
    installed) and numba's ``set_num_threads`` cover those already loaded.
    """
    for var in _THREAD_VARS:
        os.environ[var] = str(n)
    if "numba" not in sys.modules:
        os.environ["NUMBA_NUM_THREADS"] = str(n)
    else:
        import numba

        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn brings it
        return
    threadpool_limits(limits=n)


def _die_with_parent(parent: int) -> None:
    """Have the OS kill this process when *parent* exits (Linux prctl), else watch it from a thread."""
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    else:  # pragma: no cover - not Linux

        def watch() -> None:
            while True:
                time.sleep(1.0)
                try:
                    os.kill(parent, 0)
                except ProcessLookupError:
                    os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    try:  # the parent may have died before prctl
        os.kill(parent, 0)
    except ProcessLookupError:
        os._exit(1)


def _worker_main(conn, fn, threads: int, parent: int) -> None:
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    limit_threads(threads)
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        i, item = msg
        try:
            reply = (i, True, fn(item))
        except Exception as exc:
            reply = (i, False, exc)
        try:
            conn.send(reply)
        except Exception as exc:  # an unpicklable result or exception
            conn.send((i, False, MacrocauseError(f"{type(exc).__name__}: {exc}")))


class _Worker:
    def __init__(self, ctx, fn, threads: int) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, fn, threads, os.getpid()), daemon=True)
        self.proc.start()
        child.close()
        self.job: tuple[int, Any, float] | None = None  # index, item, deadline

    def stop(self, kill: bool = False) -> None:
        if self.proc.is_alive():
            if kill:
                self.proc.kill()
            else:
                try:
                    self.conn.send(None)
                except OSError:
                    self.proc.kill()
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def _death(proc) -> str:
    code = proc.exitcode
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


class _Pool:
    """At most *workers* persistent worker processes; a dead or timed-out worker is replaced."""

    def __init__(self, fn, workers: int, timeout, on_lost) -> None:
        self.fn, self.workers, self.timeout, self.on_lost = fn, workers, timeout, on_lost
        self.threads = max(1, cores() // workers)
        self.ctx = multiprocessing.get_context()

    def run(self, items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        source = enumerate(items)
        idle: list[_Worker] = []
        busy: list[_Worker] = []
        more = True
        try:
            while True:
                while more and len(busy) < self.workers:
                    nxt = next(source, None)
                    if nxt is None:
                        more = False
                        break
                    w = idle.pop() if idle else _Worker(self.ctx, self.fn, self.threads)
                    limit = self.timeout(nxt[1]) if self.timeout else None
                    w.job = (*nxt, time.monotonic() + limit if limit else float("inf"))
                    w.conn.send(nxt)
                    busy.append(w)
                if not busy:
                    return
                soonest = min(w.job[2] for w in busy)
                wait([w.conn for w in busy] + [w.proc.sentinel for w in busy],
                     None if soonest == float("inf") else max(0.0, soonest - time.monotonic()))
                for w in list(busy):
                    i, item, deadline = w.job
                    got = self._receive(w)
                    if got is not None:
                        busy.remove(w)
                        idle.append(w)
                        ok, value = got
                        if not ok:
                            raise value
                        yield i, value
                    elif not w.proc.is_alive():
                        busy.remove(w)
                        w.stop()
                        yield i, _lost(self.on_lost, item, "failed",
                                       f"its worker process died ({_death(w.proc)})")
                    elif time.monotonic() >= deadline:
                        busy.remove(w)
                        w.stop(kill=True)
                        yield i, _lost(self.on_lost, item, "timeout",
                                       f"run exceeded the timeout of {self.timeout(item)} s")
        finally:
            for w in busy:
                w.stop(kill=True)
            for w in idle:
                w.stop()

    @staticmethod
    def _receive(w: _Worker) -> tuple[bool, Any] | None:
        try:
            if not w.conn.poll():
                return None
            _, ok, value = w.conn.recv()
        except (EOFError, OSError):
            return None
        return ok, value


def parallel_map(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    executor: Executor = "local",
    n_jobs: int = 1,
    address: str | None = None,
    progress: str | None = None,
) -> list[Any]:
    """``[fn(x) for x in items]`` on the chosen backend, in input order.

    Parameters
    ----------
    fn : callable
        A picklable (module-level) function of one argument.
    items : iterable
    executor : {"local", "dask"}
        ``local`` runs sequentially for ``n_jobs=1``, else in worker processes;
        ``dask`` runs on the cluster at *address* or on a local 2-worker cluster.
    n_jobs : int
        Worker processes for the local executor (-1 = all cores).
    progress : str, optional
        Show a progress bar with this label (on a terminal).
    """
    items = list(items)
    out: list[Any] = [None] * len(items)
    with progress_bar(len(items), progress, leave=False) as bar:
        for i, res in iter_unordered(fn, items, executor=executor, n_jobs=n_jobs, address=address):
            out[i] = res
            bar.update(1)
    return out


def progress_bar(total: int, label: str | None, leave: bool = True):
    """A tqdm progress bar, shown on a terminal only (:mod:`macrocause.framework.progress`), never when
    quiet or when *label* is None."""
    from tqdm import tqdm

    from .progress import progress

    return tqdm(total=total, disable=True) if label is None else progress(total=total, desc=label, leave=leave, delay=0)
