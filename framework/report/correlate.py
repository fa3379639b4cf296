"""Correlation of each reported metric with one metric, per dataset, over the grid's runs.

Every run of a dataset (a method, i.e. an evaluated step, with a seed) is one point:
e.g. one labelling rated by internal scores and by ARI. Per dataset and metric, the
Pearson and the Spearman correlation (Pearson of the average ranks) with the chosen
metric over the points where both values are defined; points with a NaN in either are
left out and counted. The mean over datasets is the plain mean of the defined
per-dataset correlations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import MacrocauseError
from .metrics import is_timing
from .results import Collection, Result, natural_key

__all__ = ["Correlation", "correlations", "correlated_metrics", "run_points", "pearson", "spearman", "MEAN",
           "MIN_POINTS"]

MEAN = "mean"  # the ``data`` of the rows averaging the datasets
MIN_POINTS = 3  # fewer points than this: no correlation (NaN)


@dataclass(frozen=True)
class Correlation:
    """One metric against *against* on one dataset (or ``data == MEAN``: over the datasets)."""

    metric: str
    against: str
    data: str
    n: int  # points used (for MEAN: datasets with a defined Pearson correlation)
    left_out: int  # points with a NaN in either value (for MEAN: their sum)
    pearson: float
    spearman: float


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r; NaN below :data:`MIN_POINTS` points or when either side is constant."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size < MIN_POINTS or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    xc, yc = x - x.mean(), y - y.mean()
    return float(np.clip((xc @ yc) / math.sqrt((xc @ xc) * (yc @ yc)), -1.0, 1.0))


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of the ranks, ties given their average rank."""
    from scipy.stats import rankdata

    return pearson(rankdata(x), rankdata(y))


def correlated_metrics(collection: Collection, against: str) -> list[str]:
    """The reported metrics to correlate with *against*: every other one but the timings."""
    found = {r.metric for r in collection.everything}
    if against not in found:
        raise MacrocauseError(f"Cannot correlate with {against!r}: the store has no values of it; "
                              f"it has {sorted(found, key=natural_key)}.")
    return [m for m in collection.metrics if m != against and not is_timing(m)]


def run_points(results: Sequence[Result]) -> dict[tuple[str, str, int], dict[str, float]]:
    """The points: ``(data, method, seed)`` -> ``{metric: value}``."""
    values: dict[tuple[str, str, int], dict[str, float]] = {}
    for r in results:
        values.setdefault((r.data, r.method, r.seed), {})[r.metric] = r.value
    return values


def correlations(results: Sequence[Result], metrics: Sequence[str], against: str) -> list[Correlation]:
    """Per dataset and metric, the correlations with *against* over the points (method, seed),
    then one :data:`MEAN` row per metric; *results* may hold NaN values (left out, counted)."""
    values = run_points(results)
    datas = sorted({k[0] for k in values}, key=natural_key)
    out = []
    for metric in metrics:
        per = []
        for data in datas:
            pairs = [(v[against], v[metric]) for k, v in values.items()
                     if k[0] == data and against in v and metric in v]
            if not pairs:
                continue
            xy = np.array(pairs, dtype=float)
            ok = np.isfinite(xy).all(axis=1)
            x, y = xy[ok, 0], xy[ok, 1]
            per.append(Correlation(metric, against, data, int(ok.sum()), int((~ok).sum()),
                                   pearson(y, x), spearman(y, x)))
        out += per
        if per:
            p = [c.pearson for c in per if not math.isnan(c.pearson)]
            s = [c.spearman for c in per if not math.isnan(c.spearman)]
            out.append(Correlation(metric, against, MEAN, len(p), sum(c.left_out for c in per),
                                   float(np.mean(p)) if p else math.nan, float(np.mean(s)) if s else math.nan))
    return out
