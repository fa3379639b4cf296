"""Stored runs and pipeline results as pandas DataFrames, in the long format of benchopt's results.

One row per run and step (what :meth:`ResultStore.rows` returns), the run's
identity first (grid, pipeline, data, seed), then the step (id, kind, plugin,
the step it rates, its parameters), its status and cost, and one float column
per metric (NaN where a step has no such metric). A
:class:`~macrocause.framework.pipeline.PipelineResult` gives the same layout for its
records (:func:`records_frame`). pandas is imported on use.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["runs_frame", "records_frame", "FRAME_COLUMNS", "RECORD_COLUMNS"]

FRAME_COLUMNS = (
    "run_key", "grid", "pipeline", "source", "source_params", "data_label", "seed", "step", "kind",
    "plugin", "on_step", "method", "params", "params_hash", "status", "error", "seconds", "peak_mb",
    "created",
)
_JSON = ("params", "source_params")
RECORD_COLUMNS = (
    "pipeline", "data_label", "seed", "step", "kind", "plugin", "on_step", "method", "params",
    "params_hash", "status", "error", "seconds", "startup_s", "peak_mb", "output",
)


def _with_metrics(records: list[dict[str, Any]], metrics: Sequence[Mapping[str, float]],
                  columns: Sequence[str]):
    """The DataFrame of *records* (dicts over *columns*) with one float column per metric of
    *metrics* (one dict per record), NaN where missing; a clashing name is prefixed ``metric_``."""
    import pandas as pd

    names = sorted({m for ms in metrics for m in ms})
    named = {m: f"metric_{m}" if m in columns else m for m in names}
    for rec, ms in zip(records, metrics):
        rec.update({named[m]: float(ms.get(m, float("nan"))) for m in names})
    return pd.DataFrame.from_records(records, columns=[*columns, *named.values()])


def runs_frame(rows: Sequence[Mapping[str, Any]]):
    """A DataFrame of store rows: the columns of :data:`FRAME_COLUMNS`, then one per metric.

    ``params`` and ``source_params`` are canonical JSON strings (sorted keys), so runs group and
    compare by them; ``json.loads`` gives the dicts back. A metric whose name is already a column
    is prefixed with ``metric_``. Package versions stay in :meth:`ResultStore.rows`.
    """
    import pandas as pd

    records = []
    for r in rows:
        rec = {c: r[c] for c in FRAME_COLUMNS if c not in _JSON}
        rec.update({c: _json(r[c]) for c in _JSON})
        records.append(rec)
    frame = _with_metrics(records, [r["metrics"] for r in rows], FRAME_COLUMNS)
    frame["created"] = pd.to_datetime(frame["created"], unit="s")
    return frame.astype({"seed": "Int64"})


def records_frame(result):
    """A DataFrame of a pipeline result's records: :data:`RECORD_COLUMNS`, then one per metric.

    The columns are those of :func:`runs_frame` that one run in memory has (``seconds`` is the
    record's ``wall_s``, ``on_step`` its ``on``), with ``startup_s`` and the output's summary.
    """
    records = [{
        "pipeline": result.pipeline, "data_label": result.data, "seed": result.seed, "step": r.step,
        "kind": r.kind, "plugin": r.plugin, "on_step": r.on, "method": r.method, "params": _json(r.params),
        "params_hash": r.params_hash, "status": r.status, "error": r.error, "seconds": r.wall_s,
        "startup_s": r.startup_s, "peak_mb": r.peak_mb, "output": r.output,
    } for r in result.records]
    return _with_metrics(records, [r.metrics for r in result.records], RECORD_COLUMNS)


def _json(value: Any) -> str:
    return json.dumps(value or {}, sort_keys=True, default=str)
