"""What a reported number means: its direction (higher or lower is better) and its range.

A metric's direction comes from the evaluator plugin when the plugin declares
``higher_is_better`` itself; otherwise from :data:`KNOWN`, the table of the
built-in metrics below. A value with no known direction (``n_variables``,
``noise_fraction``, ...) describes a result rather than rating it: it is kept
in ``results.csv`` but neither tabulated, ranked, tested nor plotted.

=====================  =========  ===============  ==========================================
metric                 better     range            source
=====================  =========  ===============  ==========================================
shd                    lower      [0, inf)         counts of differing node pairs
missing, extra,        lower      [0, inf)         the parts of ``shd``
reversed, orientation
edge_f1, \\*_f1,        higher     [0, 1]           edge precision / recall / F1
\\*_precision,
\\*_recall
nmi, clustering_acc.   higher     [0, 1]
ari                    higher     [-0.5, 1]        ARI >= -0.5 (Chacon & Rastrojo 2023)
disco, dbcv,           higher     [-1, 1]
silhouette
kernel_rank            lower      [0, inf)
mmd_matching, mmd_*    lower      [0, inf)
time                   lower      [0, inf)         wall seconds of the evaluated step
cpu                    lower      [0, inf)         CPU seconds of the evaluated step
memory                 lower      [0, inf)         peak MiB of the evaluated step
time@E, cpu@E,         lower      [0, inf)         the same of evaluator E's own call
memory@E
=====================  =========  ===============  ==========================================

``time`` is reported by default; the other timings when asked for (``--metrics``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["MetricInfo", "KNOWN", "metric_info", "TIME", "CPU", "MEMORY", "TIMINGS", "is_timing"]

TIME, CPU, MEMORY = "time", "cpu", "memory"
TIMINGS = (TIME, CPU, MEMORY)
_UNITS = {TIME: "s", CPU: "s", MEMORY: "MiB"}
_INF = math.inf


@dataclass(frozen=True)
class MetricInfo:
    """A metric's name, direction and the closed range its values live in."""

    name: str
    higher_is_better: bool
    low: float = -_INF
    high: float = _INF

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def label(self) -> str:
        """Axis label: ``"shd (lower is better)"``; time carries its unit."""
        unit = _UNITS.get(self.name.split("@")[0].split(" [")[0])
        unit = f" [{unit}]" if unit else ""
        return f"{self.name}{unit} ({self.direction})"

    def clip(self, values: Iterable[float]) -> np.ndarray:
        """Values forced into the metric's range (what a plot may draw)."""
        return np.clip(np.asarray(list(values), dtype=float), self.low, self.high)

    def limits(self, values: Iterable[float], pad: float = 0.06) -> tuple[float, float]:
        """Axis limits: the whole range when it is bounded on both sides, else from the
        finite bound (0 for counts and seconds) or the data, *pad* of the span beyond."""
        v = self.clip(values)
        lo = self.low if math.isfinite(self.low) else (float(v.min()) if v.size else 0.0)
        hi = self.high if math.isfinite(self.high) else (float(v.max()) if v.size else 1.0)
        if hi <= lo:
            hi = lo + max(abs(lo), 1.0)
        span = hi - lo
        return lo - pad * span, hi + pad * span

    def best(self, values: Iterable[float]) -> float:
        vals = list(values)
        return max(vals) if self.higher_is_better else min(vals)


def _m(name: str, higher: bool, low: float = -_INF, high: float = _INF) -> MetricInfo:
    return MetricInfo(name, higher, low, high)


KNOWN: dict[str, MetricInfo] = {m.name: m for m in (
    _m("shd", False, 0), _m("missing", False, 0), _m("extra", False, 0), _m("reversed", False, 0),
    _m("orientation", False, 0), _m("edge_f1", True, 0, 1), _m("nmi", True, 0, 1), _m("ari", True, -0.5, 1),
    _m("clustering_accuracy", True, 0, 1), _m("disco", True, -1, 1), _m("dbcv", True, -1, 1),
    _m("silhouette", True, -1, 1), _m("kernel_rank", False, 0), _m("mmd_matching", False, 0),
    _m(TIME, False, 0), _m(CPU, False, 0), _m(MEMORY, False, 0),
)}
_SUFFIXES = (("_f1", True, 0.0, 1.0), ("_precision", True, 0.0, 1.0), ("_recall", True, 0.0, 1.0))


def metric_info(name: str, evaluator: type | None = None) -> MetricInfo | None:
    """Direction and range of *name*, or None when it is not a metric.

    *evaluator* is the class of the evaluator plugin whose headline value *name* is;
    its own ``higher_is_better`` wins over the table, and an evaluator that
    inherits the default still rates (higher is better, as ``Evaluator`` documents).
    """
    known = KNOWN.get(name)
    if known is None and is_timing(name):
        known = MetricInfo(name, False, 0.0)
    if known is None:
        for suffix, higher, low, high in _SUFFIXES:
            if name.endswith(suffix):
                known = MetricInfo(name, higher, low, high)
        if known is None and name.startswith("mmd_"):
            known = MetricInfo(name, False, 0.0)
    if evaluator is None:
        return known
    declared = _declares_direction(evaluator)
    higher = bool(evaluator.higher_is_better)
    if known is not None:
        return known if not declared or known.higher_is_better == higher else MetricInfo(name, higher)
    return MetricInfo(name, higher)


def is_timing(name: str) -> bool:
    """``time``, ``cpu``, ``memory`` or one of them of an evaluator (``time@disco``)."""
    return name.split("@")[0] in TIMINGS


def _declares_direction(cls: type) -> bool:
    from ..roles import Evaluator

    return any("higher_is_better" in vars(c) for c in cls.__mro__ if c is not Evaluator)
