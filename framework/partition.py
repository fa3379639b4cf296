"""The :class:`Partition` type: labels over samples or over variables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from . import richrepr
from .errors import DataValidationError

__all__ = ["Partition"]

Axis = Literal["samples", "variables"]


class Partition:
    """A partition of samples or of variables, with -1 marking noise.

    Parameters
    ----------
    labels : array-like of int, shape (n,)
        Cluster label per item; ``-1`` is noise. Labels need not start at 0
        nor be contiguous.
    axis : {"samples", "variables"}
        What is partitioned: the rows of a dataset (micro-level points, latent
        classes) or its columns (clusters of variables, feature groups).
    info : mapping, optional
        Method-specific extras (e.g. ``"distributions"`` for CAFE DBSCAN).
    names : sequence of str, optional
        Variable names, for ``axis="variables"``; lets :attr:`cluster_names`
        return name sets.
    selected : array-like of int, optional
        For a feature selection (a partition of the variables): the indices of the
        chosen features, best first. Given here or as ``info["selected"]``; both
        then hold the same read-only array.

    Examples
    --------
    >>> p = Partition([0, 0, 1, -1])
    >>> p.n_clusters, p.noise.tolist()
    (2, [False, False, False, True])
    >>> Partition([0, 1, 0], axis="variables", selected=[2, 0]).info["selected"].tolist()
    [2, 0]
    """

    __slots__ = ("labels", "axis", "info", "names", "selected")

    def __init__(
        self,
        labels: Any,
        axis: Axis = "samples",
        info: Mapping[str, Any] | None = None,
        names: Sequence[str] | None = None,
        selected: Any = None,
    ) -> None:
        if axis not in ("samples", "variables"):
            raise DataValidationError(
                f"Partition: axis must be 'samples' or 'variables', got {axis!r}."
            )
        lab = np.asarray(labels)
        if lab.ndim != 1:
            raise DataValidationError(
                f"Partition: labels must be 1-D (one label per item), got shape {lab.shape}."
            )
        if lab.size and not np.issubdtype(lab.dtype, np.integer):
            if lab.dtype.kind == "f" and np.all(np.isfinite(lab)) and np.all(lab == np.round(lab)):
                if np.max(np.abs(lab)) >= 2.0**53:
                    raise DataValidationError(
                        f"Partition: labels must be integers below 2**53 when given as floats, got "
                        f"{float(np.max(np.abs(lab))):.3g}; relabel them 0..k-1 (-1 = noise)."
                    )
                lab = lab.astype(np.int64)
            else:
                raise DataValidationError(
                    f"Partition: labels must be integers (-1 = noise), got dtype {lab.dtype}."
                )
        if lab.size and lab.dtype.kind == "u" and lab.max() > np.iinfo(np.int64).max:
            raise DataValidationError(
                f"Partition: label {int(lab.max())} does not fit a signed 64-bit integer; "
                "relabel them 0..k-1 (-1 = noise)."
            )
        lab = np.array(lab, dtype=np.int64, copy=True)
        if lab.size and lab.min() < -1:
            raise DataValidationError(
                f"Partition: labels must be >= -1 (-1 = noise), got {int(lab.min())}."
            )
        lab.setflags(write=False)
        if names is not None:
            names = tuple(str(s) for s in names)
            if len(names) != lab.size:
                raise DataValidationError(
                    f"Partition: got {len(names)} names for {lab.size} labels."
                )
        info = dict(info) if info else {}
        if selected is None:
            selected = info.get("selected")
        if selected is not None:
            selected = _selection(selected, axis, lab.size)
            info["selected"] = selected
        self.labels = lab
        self.axis: Axis = axis
        self.info: dict[str, Any] = info
        self.names = names
        self.selected: np.ndarray | None = selected

    def __len__(self) -> int:
        return int(self.labels.size)

    @property
    def cluster_ids(self) -> np.ndarray:
        """Sorted distinct non-noise labels."""
        u = np.unique(self.labels)
        return u[u >= 0]

    @property
    def n_clusters(self) -> int:
        """Number of clusters (noise excluded)."""
        return int(self.cluster_ids.size)

    @property
    def noise(self) -> np.ndarray:
        """Boolean mask of the noise items."""
        return self.labels == -1

    @property
    def clusters(self) -> list[np.ndarray]:
        """Index arrays, one per cluster, in order of :attr:`cluster_ids`."""
        return [np.flatnonzero(self.labels == c) for c in self.cluster_ids]

    @property
    def cluster_names(self) -> list[frozenset[str]]:
        """Name sets, one per cluster (needs :attr:`names`)."""
        if self.names is None:
            raise DataValidationError("Partition.cluster_names: this partition has no names.")
        return [frozenset(self.names[i] for i in idx) for idx in self.clusters]

    def relabeled(self) -> Partition:
        """The same partition with labels 0..k-1 in order of first appearance; noise stays -1."""
        from .numeric import compact_labels

        return Partition(compact_labels(self.labels), axis=self.axis, info=self.info, names=self.names,
                         selected=self.selected)

    def same_clustering(self, other: Partition) -> bool:
        """True when both partitions group items identically (labels up to renaming)."""
        if len(self) != len(other):
            return False
        a, b = self.relabeled().labels, other.relabeled().labels
        return bool(np.array_equal(a, b))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Partition):
            return NotImplemented
        return self.axis == other.axis and np.array_equal(self.labels, other.labels)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        noise = int(self.noise.sum())
        extra = f", {noise} noise" if noise else ""
        return f"Partition({len(self)} {self.axis}, {self.n_clusters} clusters{extra})"

    def _repr_html_(self) -> str:
        return richrepr.html("partition", self)

    def __reduce__(self):
        return (Partition, (self.labels, self.axis, self.info, self.names, self.selected))


def _selection(selected: Any, axis: str, n: int) -> np.ndarray:
    """Selected feature indices as a read-only int array, checked against the *n* variables."""
    if axis != "variables":
        raise DataValidationError("Partition: 'selected' lists features: it needs axis='variables'.")
    sel = np.asarray(selected)
    if sel.ndim != 1 or (sel.size and not np.issubdtype(sel.dtype, np.integer)):
        raise DataValidationError(f"Partition: 'selected' must be 1-D feature indices, got {sel.dtype} {sel.shape}.")
    sel = np.array(sel, dtype=np.int64, copy=True)
    if sel.size and (sel.min() < 0 or sel.max() >= n):
        raise DataValidationError(f"Partition: 'selected' indices must lie in [0, {n}); got {sel.tolist()}.")
    if np.unique(sel).size != sel.size:
        raise DataValidationError(f"Partition: 'selected' lists a feature twice: {sel.tolist()}.")
    sel.setflags(write=False)
    return sel
