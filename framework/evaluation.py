"""What an evaluator returns (:class:`Evaluation`), how its inputs are checked, and how it finds
the ground truth."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, Literal

import numpy as np

from . import richrepr
from .data import Dataset
from .errors import DataValidationError

__all__ = ["Evaluation", "Metric", "meaning_of", "checked_inputs", "truth_of"]


@dataclass(frozen=True)
class Evaluation:
    """The result of an :class:`Evaluator`.

    Attributes
    ----------
    value : float
        The headline number.
    metrics : dict of str to float
        All numbers, including the headline under the evaluator's name.
    pointwise : ndarray or None
        Per-sample values where the method has them (e.g. DISCO), else None.
    """

    value: float
    metrics: dict[str, float] = field(default_factory=dict)
    pointwise: np.ndarray | None = None

    def __repr__(self) -> str:
        return f"Evaluation(value={self.value:.6g}, metrics={self.metrics})"

    def _repr_html_(self) -> str:
        return richrepr.html("evaluation", self)


Direction = Literal["higher", "lower", "descriptive"]


@dataclass(frozen=True)
class Metric:
    """What one returned value means: its direction and the closed range it lives in.

    ``higher`` and ``lower`` values rate a result (tables, ranks, paired tests);
    ``descriptive`` ones describe it (a count of clusters, a noise share) and are
    kept in ``results.csv`` only. An :class:`~macrocause.framework.roles.Evaluator` declares one
    per value it returns in ``declares``; the runner stores them with each record.

    >>> Metric.lower(0.0).to_dict()
    {'direction': 'lower', 'low': 0.0, 'high': 'inf', 'unit': ''}
    """

    direction: Direction
    low: float = -math.inf
    high: float = math.inf
    unit: str = ""

    def __post_init__(self):
        if self.direction not in ("higher", "lower", "descriptive"):
            raise ValueError(f"Metric direction {self.direction!r}: use 'higher', 'lower' or 'descriptive'.")
        if not self.low <= self.high:
            raise ValueError(f"Metric range [{self.low}, {self.high}] is empty.")

    @classmethod
    def higher(cls, low: float = -math.inf, high: float = math.inf, unit: str = "") -> Metric:
        """Higher is better."""
        return cls("higher", float(low), float(high), unit)

    @classmethod
    def lower(cls, low: float = -math.inf, high: float = math.inf, unit: str = "") -> Metric:
        """Lower is better."""
        return cls("lower", float(low), float(high), unit)

    @classmethod
    def descriptive(cls, low: float = -math.inf, high: float = math.inf, unit: str = "") -> Metric:
        """Neither better nor worse: describes a result."""
        return cls("descriptive", float(low), float(high), unit)

    @property
    def rates(self) -> bool:
        return self.direction != "descriptive"

    def to_dict(self) -> dict[str, Any]:
        """Strict JSON (infinite bounds as ``"inf"`` / ``"-inf"``)."""
        return {"direction": self.direction, "low": _num(self.low), "high": _num(self.high), "unit": self.unit}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Metric:
        return cls(d["direction"], float(d.get("low", "-inf")), float(d.get("high", "inf")), d.get("unit", ""))


def _num(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def meaning_of(declares: Mapping[str, Metric], name: str) -> Metric | None:
    """The declaration of value *name*: its exact entry, else the first pattern (``acc@*``,
    ``*_f1``, fnmatch rules) that matches it; None when undeclared."""
    if name in declares:
        return declares[name]
    return next((m for pat, m in declares.items() if any(c in pat for c in "*?[") and fnmatchcase(name, pat)),
                None)


def truth_of(data: Dataset, key: str | None, want: type) -> Any:
    """Pick a ground-truth entry of *data*: by *key*, or the only one of type *want*."""
    if key is not None:
        if key not in data.truth:
            raise DataValidationError(
                f"The data has no ground truth {key!r}; it has {sorted(data.truth) or 'none'}."
            )
        return data.truth[key]
    found = [v for v in data.truth.values() if isinstance(v, want)]
    return found[0] if len(found) == 1 else None


def checked_inputs(name: str, accepts: tuple[str, ...], needs_truth: bool, ds: Dataset, result: Any,
                   truth: Any) -> tuple[Any, Any]:
    """*result* and *truth* as the Partition or CausalGraph evaluator *name* rates (arrays become
    partitions), sized to *ds*; a clear error for anything else."""
    from .graph import CausalGraph
    from .partition import Partition

    kind = "graph" if isinstance(result, CausalGraph) else "partition"
    if isinstance(result, np.ndarray | list | tuple):
        result = Partition(result)
        kind = "partition"
    if not isinstance(result, Partition | CausalGraph):
        raise DataValidationError(f"{name} rates a Partition or CausalGraph, got {type(result).__name__}.")
    if kind not in accepts:
        raise DataValidationError(f"{name} rates a {' or '.join(accepts)}, got a {kind}.")
    if isinstance(truth, np.ndarray | list | tuple):
        truth = Partition(truth, axis=result.axis if isinstance(result, Partition) else "samples")
    if needs_truth and truth is None:
        raise DataValidationError(f"{name} compares with a ground truth: pass truth=...")
    if isinstance(result, Partition) and result.axis == "samples" and len(result) != ds.n_samples:
        raise DataValidationError(f"{name}: the partition has {len(result)} labels for {ds.n_samples} samples.")
    if isinstance(truth, Partition) and isinstance(result, Partition):
        if truth.axis == result.axis and len(truth) != len(result):
            raise DataValidationError(
                f"{name}: the truth has {len(truth)} labels, the result {len(result)}; "
                "they must partition the same items."
            )
    return result, truth
