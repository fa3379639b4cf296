"""Speed in a report: ratios against a peer measured in the same run, and growth with size.

*Ratios* (``--peer P``): for each timing metric and each method, the median over
the (data, seed) pairs both have of ``method / P``; the peer ran in the same grid,
on the same data, so machine load affects both alike. When *P* is an evaluator
whose own timing (``time@P``) was asked for, the ratios are between evaluators.

*Growth* (``--growth X``): each method's median over seeds against ``X``, a
parameter of the data source (``n_samples``) or ``n`` / ``d`` (the data's shape),
and the growth exponent: the least-squares slope of ``log(median)`` on ``log(X)``.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import median

import numpy as np

from ..errors import MacrocauseError
from .results import Result, natural_key

__all__ = ["Ratio", "Growth", "peer_ratios", "growth", "growth_exponent", "size_of"]


@dataclass(frozen=True)
class Ratio:
    """Median over (data, seed) pairs of ``metric(method) / metric(peer)`` on one dataset."""

    metric: str
    method: str
    peer: str
    data: str
    ratio: float
    n: int


@dataclass(frozen=True)
class Growth:
    """One method's timing against a size, and its fitted growth exponent."""

    metric: str
    method: str
    setting: str  # the data-source parameters other than the size ("" when none differ)
    sizes: tuple[float, ...]
    medians: tuple[float, ...]
    exponent: float  # NaN with fewer than two sizes or a non-positive median


def _resolve(peer: str, methods: Iterable[str]) -> str:
    methods = sorted(set(methods), key=natural_key)
    if peer in methods:
        return peer
    near = [m for m in methods if m.split(":")[-1].split(" ")[0] == peer or m.endswith(f"({peer})")]
    if len(near) == 1:
        return near[0]
    raise MacrocauseError(
        f"Peer {peer!r} is {'ambiguous' if near else 'not a method of the report'}; "
        f"give one of {methods}.")


def peer_ratios(results: Sequence[Result], metrics: Iterable[str], peer: str) -> list[Ratio]:
    """Ratios to *peer*, per timing metric and dataset: of every other method when *peer* is
    a method; of every other evaluator's own timing when *metrics* hold ``time@peer`` etc."""
    metrics = list(metrics)
    if any(m.endswith(f"@{peer}") for m in metrics):
        return _evaluator_ratios(results, metrics, peer)
    peer = _resolve(peer, {r.method for r in results if r.metric in metrics})
    out: list[Ratio] = []
    for metric in (m for m in metrics if "@" not in m):
        base = {(r.data, r.seed): r.value for r in results if r.metric == metric and r.method == peer}
        groups: dict[tuple[str, str], list[float]] = defaultdict(list)
        for r in results:
            b = base.get((r.data, r.seed))
            if r.metric == metric and r.method != peer and b:
                groups[(r.method, r.data)].append(r.value / b)
        out += [Ratio(metric, m, peer, d, median(v), len(v)) for (m, d), v in _sorted(groups)]
    return out


def _evaluator_ratios(results: Sequence[Result], metrics: list[str], peer: str) -> list[Ratio]:
    out: list[Ratio] = []
    for kind in dict.fromkeys(m.split("@")[0] for m in metrics if m.endswith(f"@{peer}")):
        base = {(r.method, r.data, r.seed): r.value for r in results if r.metric == f"{kind}@{peer}"}
        several = len({k[0] for k in base}) > 1
        groups: dict[tuple[str, str], list[float]] = defaultdict(list)
        for r in results:
            name, _, evaluator = r.metric.partition("@")
            b = base.get((r.method, r.data, r.seed))
            if name == kind and evaluator and evaluator != peer and f"{kind}@{evaluator}" in metrics and b:
                groups[(f"{r.method}: {evaluator}" if several else evaluator, r.data)].append(r.value / b)
        out += [Ratio(kind, m, peer, d, median(v), len(v)) for (m, d), v in _sorted(groups)]
    return out


def _sorted(groups: dict) -> list:
    return sorted(groups.items(), key=lambda kv: (natural_key(kv[0][0]), natural_key(kv[0][1])))


def size_of(r: Result, param: str) -> float | None:
    """The size *param* of a result's data: a source parameter, or ``n`` / ``d`` of its shape."""
    if param in ("n", "d") and r.shape is not None:
        return float(r.shape[0] if param == "n" else r.shape[1])
    value = json.loads(r.source_params).get(param)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def growth_exponent(sizes: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of ``log(values)`` on ``log(sizes)``; NaN when undefined.

    >>> round(growth_exponent([1e3, 2e3, 4e3], [1.0, 4.0, 16.0]), 6)
    2.0
    """
    x, y = np.asarray(sizes, float), np.asarray(values, float)
    if len(set(x)) < 2 or (x <= 0).any() or (y <= 0).any():
        return math.nan
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def growth(results: Sequence[Result], metrics: Iterable[str], param: str) -> list[Growth]:
    """Each method's median timing per size of *param*, and its growth exponent."""
    out = []
    for metric in metrics:
        series: dict[tuple[str, str], dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
        for r in results:
            if r.metric != metric:
                continue
            x = size_of(r, param)
            if x is None:
                continue
            rest = {k: v for k, v in json.loads(r.source_params).items() if k not in (param, "seed")}
            setting = "" if param in ("n", "d") else ",".join(f"{k}={v}" for k, v in sorted(rest.items()))
            series[(r.method, setting)][x].append(r.value)
        for (method, setting), by_x in sorted(series.items(), key=lambda kv: tuple(map(natural_key, kv[0]))):
            xs = sorted(by_x)
            meds = [median(by_x[x]) for x in xs]
            out.append(Growth(metric, method, setting, tuple(xs), tuple(meds), growth_exponent(xs, meds)))
    if metrics and not out:
        raise MacrocauseError(f"No result has a size {param!r}: give a parameter of the data source "
                              "(e.g. n_samples) or n / d (the data's shape, recorded by grids).")
    return out
