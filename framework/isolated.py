"""One run of a grid in a fresh Python process (a grid's ``isolate: true``).

A worker that has run other pipelines (or the warm-up of this one) holds memory
their allocations freed, and a later run reuses it without the resident set
growing: its measured peak is then too low. Here the run is computed by a new
interpreter (started as a subprocess, so that it also works inside the local
executor's daemonic workers and on Dask), which loads the data, runs the warm-up
if asked and the timed executions, and before every step collects garbage and
hands the allocator's free memory back to the OS
(:func:`~macrocause.framework.pipeline.repeat.run_repeated` with ``isolated``); its
own peak resident memory (``ru_maxrss``) is recorded as ``process_peak_mb``.
The records come back to the caller, which stores them as one run, as always.
The new process dies with its caller (a run stopped at its timeout stops it).
"""

from __future__ import annotations

import json
import os
import pickle
import resource
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .errors import MacrocauseError

__all__ = ["run_isolated", "RunFailed"]


class RunFailed(MacrocauseError):
    """The fresh process could not run the pipeline; the message is the run's error as stored."""


_BOOT = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
         "from macrocause.framework.isolated import _child; _child(*sys.argv[2:])")


def run_isolated(task: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Records and data fingerprint of *task* (a :class:`~macrocause.framework.compare.Task`),
    computed by :func:`~macrocause.framework.pipeline.repeat.run_repeated` in a fresh process.

    Raises
    ------
    RunFailed
        The fresh process failed before the pipeline ran (the data did not load, say: the
        message is ``"ErrorType: message"``), or died (the message names the signal or exit status).
    """
    with tempfile.TemporaryDirectory(prefix="macrocause-isolated-") as tmp:
        src, dst = Path(tmp, "task.pkl"), Path(tmp, "result.pkl")
        src.write_bytes(pickle.dumps(task))
        # the parent's import path, as multiprocessing's spawn passes it, so the child runs this code
        argv = [sys.executable, "-c", _BOOT, json.dumps(sys.path), str(os.getpid()), str(src), str(dst)]
        code = subprocess.run(argv, stdin=subprocess.DEVNULL, check=False).returncode
        if not dst.exists():
            how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
            raise RunFailed(f"its fresh process died ({how})")
        ok, value = pickle.loads(dst.read_bytes())
    if not ok:
        raise RunFailed(value)
    return value


def _child(parent: str, src: str, dst: str) -> None:
    """The fresh process: run the pickled task in *src*, write ``(ok, result or message)`` to *dst*."""
    from .execution import _die_with_parent
    from .pipeline.repeat import run_repeated

    _die_with_parent(int(parent))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle
    try:
        task = pickle.loads(Path(src).read_bytes())
        records, info = run_repeated(task.pipeline, task.repeat, task.warmup, isolated=True)
        # the whole process's peak: interpreter, imports, data and every execution
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (2**20 if sys.platform == "darwin" else 2**10)
        out: tuple[bool, Any] = (True, (records, {**info, "process_peak_mb": round(peak, 1)}))
    except Exception as exc:
        out = (False, f"{type(exc).__name__}: {exc}")
    Path(dst).write_bytes(pickle.dumps(out))
