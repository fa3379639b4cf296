"""What an evaluator returns (:class:`Evaluation`), and how it finds the ground truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import richrepr
from .data import Dataset
from .errors import DataValidationError

__all__ = ["Evaluation", "truth_of"]


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
