"""Execution backends: sequential, a local process pool, or Dask distributed.

:func:`parallel_map` is the one primitive: results come back in input order,
so a computation gives the same result on every backend.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Literal

from .errors import ConfigError

__all__ = ["parallel_map", "iter_unordered", "progress_bar", "Executor"]

Executor = Literal["local", "dask"]


def _check(executor: str, n_jobs: int) -> None:
    if executor not in ("local", "dask"):
        raise ConfigError(f"executor must be 'local' or 'dask', got {executor!r}.")
    if n_jobs == 0 or n_jobs < -1:
        raise ConfigError(f"n_jobs must be a positive int or -1 (all cores), got {n_jobs}.")


def _workers(n_jobs: int) -> int:
    return (os.cpu_count() or 1) if n_jobs == -1 else n_jobs


def dask_client(address: str | None = None, n_workers: int = 2):
    """A Dask client on *address*, or on a new LocalCluster of *n_workers* processes."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError(
            "The dask executor needs dask[distributed]: pip install 'macrocause[dask]'."
        ) from None
    if address:
        return Client(address)
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster)


def iter_unordered(
    fn: Callable[..., Any],
    items: Iterable[Any],
    *,
    executor: Executor = "local",
    n_jobs: int = 1,
    address: str | None = None,
    client: Any = None,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, fn(item))`` as results complete (any order).

    Exceptions raised by *fn* propagate; wrap *fn* to capture them instead.
    """
    _check(executor, n_jobs)
    items = list(items)
    if executor == "dask":
        own = client is None
        client = client or dask_client(address, n_workers=max(_workers(n_jobs), 1) if n_jobs != 1 else 2)
        try:
            from distributed import as_completed as dask_completed

            futures = client.map(fn, items, pure=False)
            index = {f.key: i for i, f in enumerate(futures)}
            for fut in dask_completed(futures):
                yield index[fut.key], fut.result()
        finally:
            if own:
                cluster = getattr(client, "cluster", None)
                client.close()
                if cluster is not None:
                    cluster.close()
        return
    workers = _workers(n_jobs)
    if workers == 1 or len(items) <= 1:
        for i, item in enumerate(items):
            yield i, fn(item)
        return
    with ProcessPoolExecutor(max_workers=min(workers, len(items))) as pool:
        futs = {pool.submit(fn, item): i for i, item in enumerate(items)}
        for fut in as_completed(futs):
            yield futs[fut], fut.result()


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
        ``local`` runs sequentially for ``n_jobs=1``, else on a process pool;
        ``dask`` runs on the cluster at *address* or on a local 2-worker cluster.
    n_jobs : int
        Worker processes for the local pool (-1 = all cores).
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
    """A tqdm progress bar, shown on a terminal only (:mod:`framework.progress`), never when
    quiet or when *label* is None."""
    from tqdm import tqdm

    from .progress import progress

    return tqdm(total=total, disable=True) if label is None else progress(total=total, desc=label, leave=leave, delay=0)
