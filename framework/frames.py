"""Stored runs as a pandas DataFrame, in the long format of benchopt's results.

One row per run and step (what :meth:`ResultStore.rows` returns), the run's
identity first (grid, pipeline, data, seed), then the step (id, kind, plugin,
the step it rates, its parameters), its status and cost, and one float column
per metric (NaN where a step has no such metric). pandas is imported on use.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["runs_frame", "FRAME_COLUMNS"]

FRAME_COLUMNS = (
    "run_key", "grid", "pipeline", "source", "source_params", "data_label", "seed", "step", "kind",
    "plugin", "on_step", "method", "params", "params_hash", "status", "error", "seconds", "peak_mb",
    "created",
)
_JSON = ("params", "source_params")


def runs_frame(rows: Sequence[Mapping[str, Any]]):
    """A DataFrame of store rows: the columns of :data:`FRAME_COLUMNS`, then one per metric.

    ``params`` and ``source_params`` are canonical JSON strings (sorted keys), so runs group and
    compare by them; ``json.loads`` gives the dicts back. A metric whose name is already a column
    is prefixed with ``metric_``. Package versions stay in :meth:`ResultStore.rows`.
    """
    import pandas as pd

    metrics = sorted({m for r in rows for m in r["metrics"]})
    named = {m: f"metric_{m}" if m in FRAME_COLUMNS else m for m in metrics}
    records = []
    for r in rows:
        rec = {c: r[c] for c in FRAME_COLUMNS if c not in _JSON}
        rec.update({c: json.dumps(r[c] or {}, sort_keys=True, default=str) for c in _JSON})
        rec.update({named[m]: float(r["metrics"].get(m, float("nan"))) for m in metrics})
        records.append(rec)
    frame = pd.DataFrame.from_records(records, columns=[*FRAME_COLUMNS, *named.values()])
    frame["created"] = pd.to_datetime(frame["created"], unit="s")
    return frame.astype({"seed": "Int64"})
