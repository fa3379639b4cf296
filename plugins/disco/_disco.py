"""DISCO at sub-quadratic cost: core distances from a KD-tree, the exact MST of
mutual reachability (Boruvka), its single-linkage dendrogram, and one pass per
cluster over the merges. No n x n matrix is ever built.
"""

from __future__ import annotations

import numpy as np

from framework.errors import DataValidationError

__all__ = ["core_distances", "mutual_reachability_mst", "dendrogram", "disco_samples", "encode_labels", "prepare"]


def encode_labels(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Cluster labels as codes ``0..k-1`` (sorted ids), noise ``-1``; returns (codes, k)."""
    from framework.numeric import compact_labels

    codes = compact_labels(np.asarray(labels, dtype=np.int64), order="sorted")
    return codes, int(codes.max()) + 1 if codes.size else 0


def core_distances(X: np.ndarray, min_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Distance to the ``min_points``-th nearest point, the point itself counted, and the
    indices of those neighbours (shape (n, min_points))."""
    from scipy.spatial import cKDTree

    n = X.shape[0]
    if n < min_points:
        raise DataValidationError(
            f"disco needs at least min_points={min_points} samples (a point's core distance is the "
            f"distance to its min_points-th nearest point, itself counted); got {n}. "
            "Lower min_points or pass more samples."
        )
    dist, idx = cKDTree(X).query(X, k=min_points, workers=-1)
    dist = np.asarray(dist, dtype=np.float64).reshape(n, min_points)
    idx = np.asarray(idx, dtype=np.int64).reshape(n, min_points)
    return dist[:, -1].copy(), idx


# KD-tree pruning fails in high dimension; there Prim's O(n^2 d) scan (distances computed on
# the fly, O(n) memory) is faster up to moderate n (optdigits, 64-D: 0.8 s against 4.3 s).
PRIM_MIN_DIM = 32
PRIM_MAX_N = 50_000


def mutual_reachability_mst(X: np.ndarray, core: np.ndarray, knn: np.ndarray, leaf_size: int = 32,
                            method: str = "auto"):
    """Exact MST of ``d_m(x, y) = max(core(x), core(y), |x - y|)``.

    ``method``: ``"boruvka"`` (over a KD-tree), ``"prim"`` (O(n^2) time, no matrix) or
    ``"auto"`` (Prim when d >= 32 and n <= 50,000, else Boruvka).
    Returns ``(u, v, w)``: the n - 1 edges in original point indices.
    """
    from sklearn.neighbors import KDTree

    from ._kernels import boruvka_mst, prim_mst_dense

    n, d = X.shape
    if n == 1:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    if method == "prim" or (method == "auto" and d >= PRIM_MIN_DIM and n <= PRIM_MAX_N):
        return prim_mst_dense(np.ascontiguousarray(X), np.ascontiguousarray(core))
    tree = KDTree(X, leaf_size=leaf_size)
    _, order, node_data, bounds = tree.get_arrays()
    order = np.asarray(order, dtype=np.int64)
    inv = np.empty(n, np.int64)
    inv[order] = np.arange(n)
    Xs = np.ascontiguousarray(X[order])
    eu, ev, ew = boruvka_mst(
        Xs,
        np.ascontiguousarray(core[order]),
        np.ascontiguousarray(node_data["idx_start"], dtype=np.int64),
        np.ascontiguousarray(node_data["idx_end"], dtype=np.int64),
        np.ascontiguousarray(node_data["is_leaf"], dtype=np.int64),
        np.ascontiguousarray(bounds[0]),
        np.ascontiguousarray(bounds[1]),
        np.ascontiguousarray(inv[knn[order]]),
    )
    if eu.size != n - 1:
        raise RuntimeError("disco: the mutual reachability MST is incomplete (a bug).")
    return order[eu], order[ev], ew


def dendrogram(n: int, u: np.ndarray, v: np.ndarray, w: np.ndarray):
    """Single-linkage merges ``(left, right, height)`` of an MST, by ascending weight."""
    from ._kernels import single_linkage

    return single_linkage(n, u, v, np.argsort(w, kind="stable"), w)


def prepare(X: np.ndarray, min_points: int = 5):
    """Everything DISCO needs that does not depend on the labels: the core distances and
    the single-linkage merges of the mutual-reachability MST (reuse it across labellings)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    core, knn = core_distances(X, min_points)
    u, v, w = mutual_reachability_mst(X, core, knn)
    return (core, *dendrogram(n, u, v, w))


def disco_samples(X: np.ndarray, labels: np.ndarray, min_points: int = 5, prepared=None) -> np.ndarray:
    """Per-point DISCO values.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Finite features.
    labels : ndarray of shape (n,)
        Integer labels, ``-1`` = noise; any other ids.
    min_points : int
        Core-distance parameter (the point itself counted).
    prepared : tuple, optional
        The output of :func:`prepare` for the same ``X`` and ``min_points``.

    Returns
    -------
    ndarray of shape (n,)
        Values in [-1, 1].
    """
    from ._kernels import disco_from_dendrogram

    n = X.shape[0]
    codes, k = encode_labels(labels)
    if prepared is None:
        if n < min_points:
            core_distances(X, min_points)  # raises the clear error
    if k == 0:
        return np.full(n, -1.0)
    has_noise = bool((codes < 0).any())
    if k == 1 and not has_noise:
        return np.zeros(n)
    core, left, right, height = prepare(X, min_points) if prepared is None else prepared
    return disco_from_dendrogram(left, right, height, codes, k, core, k == 1 and has_noise)
