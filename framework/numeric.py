"""Small numerics shared by several plugins: label compaction, the k-distance, and the limits of the
joint-state keys of discrete columns (shared by the numba kernels and their NumPy twin)."""

from __future__ import annotations

from typing import Literal

import numpy as np

__all__ = ["compact_labels", "k_distance", "KEY_RANK_LIMIT", "DENSE_COUNT_LIMIT"]

KEY_RANK_LIMIT = 1 << 40  # joint keys: re-rank the running key before it could overflow int64
DENSE_COUNT_LIMIT = 1 << 16  # joint alphabets up to this size are counted in a dense array


def compact_labels(labels: np.ndarray, order: Literal["first", "sorted"] = "first") -> np.ndarray:
    """Cluster ids renumbered 0..k-1, noise (any negative id) kept at -1; same dtype as *labels*.

    ``order="first"`` numbers clusters in order of first appearance, ``"sorted"`` in
    increasing order of their ids.
    """
    labels = np.asarray(labels)
    out = np.full_like(labels, -1)
    ok = labels >= 0
    if ok.any():
        _, first, inv = np.unique(labels[ok], return_index=True, return_inverse=True)
        rank = np.argsort(np.argsort(first)) if order == "first" else np.arange(first.size)
        out[ok] = rank[inv]
    return out


def k_distance(X: np.ndarray, k: int, p: float = 2.0, max_queries: int | None = None) -> np.ndarray:
    """Each point's distance to its k-th nearest point, the point itself counted (Minkowski *p*).

    With ``max_queries``, only that many evenly spaced points are queried (against all
    points), which bounds the cost of a quantile of the k-distance on large data. *k* is
    clipped to 1..n.
    """
    from scipy.spatial import cKDTree

    from .execution import thread_budget
    n = X.shape[0]
    k = min(max(k, 1), n)
    idx = np.arange(n) if max_queries is None else np.linspace(0, n - 1, min(n, max_queries)).round().astype(np.int64)
    dist, _ = cKDTree(X).query(X[idx], k=k, p=p, workers=thread_budget())
    return np.asarray(dist, dtype=float).reshape(len(idx), k)[:, -1]
