"""Local worker processes: killable, replaced when they die, gone with their parent, thread-capped."""

import ctypes
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from macrocause.framework.errors import ConfigError
from macrocause.framework.execution import (
    WorkerLost,
    cores,
    iter_unordered,
    n_workers,
    parallel_map,
)
from macrocause.framework.measure import measure, release_free_memory, rss_mb


def square_or_die(x):
    if x == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x


def native_sleep(x):
    if x == 0:
        ctypes.CDLL(None).sleep(60)  # inside C: a SIGALRM handler could not run before it returns
    return x


def thread_caps(_):
    caps = {var: os.environ.get(var) for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return caps, []
    return caps, [p["num_threads"] for p in threadpool_info()]


def _lost(item, status, reason):
    return (status, reason)


def test_worker_count_helper():
    assert n_workers(3) == 3 and n_workers(-1) == cores() >= 1
    for bad in (0, -2, True, 1.5):
        with pytest.raises(ConfigError, match="n_jobs must be a positive int or -1"):
            n_workers(bad)


def test_a_dead_worker_costs_only_its_item():
    got = dict(iter_unordered(square_or_die, range(6), n_jobs=2, on_lost=_lost))
    assert got == {0: 0, 1: 1, 2: 4, 3: ("failed", "its worker process died (killed by SIGKILL)"),
                   4: 16, 5: 25}
    with pytest.raises(WorkerLost, match="died"):
        parallel_map(square_or_die, range(6), n_jobs=2)


def test_timeout_stops_a_task_inside_native_code():
    t0 = time.monotonic()
    got = dict(iter_unordered(native_sleep, range(3), n_jobs=1, timeout=lambda x: 0.5, on_lost=_lost))
    assert time.monotonic() - t0 < 15
    assert got == {0: ("timeout", "run exceeded the timeout of 0.5 s"), 1: 1, 2: 2}


def test_worker_threads_never_oversubscribe_the_cores():
    per_worker = max(1, cores() // 2)
    for caps, pools in parallel_map(thread_caps, range(2), n_jobs=2):
        assert caps == {"OMP_NUM_THREADS": str(per_worker), "OPENBLAS_NUM_THREADS": str(per_worker)}
        assert all(n <= per_worker for n in pools)


def test_workers_die_with_their_parent(tmp_path):
    script = textwrap.dedent(f"""
        import os, time
        from macrocause.framework.execution import parallel_map

        def hold(i):
            open(os.path.join({str(tmp_path)!r}, f"w{{i}}"), "w").write(str(os.getpid()))
            time.sleep(60)

        if __name__ == "__main__":
            parallel_map(hold, range(2), n_jobs=2)
    """)
    (tmp_path / "parent.py").write_text(script)
    parent = subprocess.Popen([sys.executable, str(tmp_path / "parent.py")])
    try:
        deadline = time.time() + 30
        while time.time() < deadline and not all((tmp_path / f"w{i}").exists() for i in range(2)):
            time.sleep(0.05)
        time.sleep(0.1)
        pids = [int((tmp_path / f"w{i}").read_text()) for i in range(2)]
    finally:
        parent.kill()
        parent.wait()
    deadline = time.time() + 10
    alive = pids
    while alive and time.time() < deadline:
        time.sleep(0.05)
        alive = [p for p in pids if _alive(p)]
    for p in alive:  # clean up before failing
        os.kill(p, signal.SIGKILL)
    assert not alive, "workers outlived their parent"


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_peak_memory_is_the_steps_own():
    big = np.ones(2**24)  # 128 MiB held by the process, not by the measured steps
    big[::512] = 2.0
    release_free_memory()  # memory earlier tests freed but the allocator kept would be reused, not counted
    with measure() as m:
        a = np.ones(2**22)  # 32 MiB
        a[::512] = 2.0
    del a
    with measure() as idle:
        time.sleep(0.01)
    assert 30 < m.peak_mb < 40
    assert idle.peak_mb < 2 < 128 < rss_mb()
    del big


def test_a_task_that_kills_its_dask_workers_is_failed_and_the_rest_runs(monkeypatch):
    pytest.importorskip("distributed")
    import dask

    here = os.path.dirname(os.path.abspath(__file__))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        got = dict(iter_unordered(square_or_die, range(5), executor="dask", n_jobs=2, on_lost=_lost))
    assert sorted(got) == [0, 1, 2, 3, 4]  # every item has an outcome: the map went on
    status, reason = got[3]
    assert status == "failed" and reason.startswith("its Dask worker died repeatedly")
    for i, value in got.items():  # a task queued on the dying worker may fail with it, never go wrong
        assert value == i * i or value[0] == "failed"


@pytest.mark.parametrize("threads", ["1", "2", ""])
def test_k_nearest_searches_give_the_brute_force_answer_under_any_thread_budget(monkeypatch, threads):
    """DISCO's core distances and the k-distance read the budget (``OMP_NUM_THREADS``) for their
    k-d tree searches; the distances do not depend on it."""
    from macrocause.framework.numeric import k_distance
    from macrocause.plugins.disco._disco import core_distances

    monkeypatch.setenv("OMP_NUM_THREADS", threads)
    X = np.random.default_rng(3).standard_normal((200, 3))
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2))
    ordered = np.sort(D, axis=1)  # column 0: the point itself
    core, _ = core_distances(X, 4)
    np.testing.assert_allclose(core, ordered[:, 3])
    np.testing.assert_allclose(k_distance(X, 5), ordered[:, 4])
