"""What an evaluator returns (:class:`Evaluation`), how its inputs are checked, and how it finds
the ground truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import richrepr
from .data import Dataset
from .errors import DataValidationError

__all__ = ["Evaluation", "checked_inputs", "truth_of"]


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
