"""Repeated timing of one run: the pipeline executed several times on one loaded dataset.

A grid's ``repeat: K`` runs each pipeline K times in its worker (after one untimed
execution with ``warmup: true``). The records of the first timed execution are kept,
with each step's ``wall_s``, ``cpu_s`` and ``startup_s`` replaced by their medians over
the K executions and ``peak_mb`` by the largest peak; ``wall_runs`` keeps the K wall
times. The data is loaded once, and its fingerprint (shape and a hash of the values)
is recorded so that a report can check that every pipeline saw the same data.

With ``isolated`` (a grid's ``isolate: true``: a fresh process running this one
pipeline), free memory goes back to the OS before every step
(:func:`~macrocause.framework.measure.release_free_memory`), so a timed step that
reuses what its warm-up (or an earlier step) freed has it counted in its ``peak_mb``.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from statistics import median
from typing import Any

import numpy as np

from ..data import Dataset
from .context import StepRecord
from .core import Pipeline

__all__ = ["data_fingerprint", "run_repeated"]


def data_fingerprint(ds: Dataset) -> dict[str, Any]:
    """``n_samples``, ``n_features`` and ``data_hash``: SHA-256 (first 16 hex digits) of the
    values, the names and the target, so equal data gives equal hashes across processes.

    >>> a = data_fingerprint(Dataset([[0.0, 1.0], [1.0, 0.5]]))
    >>> a["n_samples"], a["n_features"], a == data_fingerprint(Dataset([[0.0, 1.0], [1.0, 0.5]]))
    (2, 2, True)
    """
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(ds.X, dtype=float).tobytes())
    h.update("\0".join(ds.names).encode())
    if ds.target is not None:
        h.update(np.asarray(ds.target_codes).tobytes())
    return {"n_samples": int(ds.n_samples), "n_features": int(ds.n_variables), "data_hash": h.hexdigest()[:16]}


def run_repeated(pipe: Pipeline, repeat: int = 1, warmup: bool = False,
                 isolated: bool = False) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run *pipe* (``repeat`` timed executions, after an untimed one with *warmup*) without
    raising; return the records (dicts, medians as described above) and the data's fingerprint.
    *isolated*: release free memory before every step (see above).

    A failure in any execution ends the repeats: the failing execution's records are returned.
    """
    ds, label, origin = pipe.load()
    info = data_fingerprint(ds)
    runs: list[list[StepRecord]] = []
    for i in range(int(warmup) + repeat):
        records = pipe.run_loaded(ds, label, origin, pipe.seed, stop_on_error=False,
                                  release_memory=isolated).records
        if any(r.status != "done" for r in records):
            return [asdict(r) for r in records], info
        if i >= int(warmup):
            runs.append(records)
    out = [asdict(r) for r in runs[0]]
    if repeat > 1:
        for i, rec in enumerate(out):
            same = [run[i] for run in runs]
            rec["wall_s"] = median(r.wall_s for r in same)
            rec["cpu_s"] = median(r.cpu_s for r in same)
            rec["startup_s"] = median(r.startup_s for r in same)
            rec["peak_mb"] = max(r.peak_mb for r in same)
            rec["wall_runs"] = [round(r.wall_s, 6) for r in same]
    return out, info
