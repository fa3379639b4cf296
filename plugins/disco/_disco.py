"""DISCO without an n x n matrix: core distances and the exact MST of mutual
reachability (Boruvka over a KD-tree in low dimension, over blocked matrix products in
high dimension, chosen by a measured cost model), its single-linkage dendrogram, and
one pass per cluster over the merges.
"""

from __future__ import annotations

import numpy as np

from macrocause.framework.errors import DataValidationError

__all__ = ["BACKENDS", "choose_backend", "core_distances", "mutual_reachability_mst", "dendrogram", "disco_samples",
           "encode_labels", "prepare"]

BACKENDS = ("auto", "tree", "blocked", "dense")


def encode_labels(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Cluster labels as codes ``0..k-1`` (sorted ids), noise ``-1``; returns (codes, k)."""
    from macrocause.framework.numeric import compact_labels

    codes = compact_labels(np.asarray(labels, dtype=np.int64), order="sorted")
    return codes, int(codes.max()) + 1 if codes.size else 0


def core_distances(X: np.ndarray, min_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Distance to the ``min_points``-th nearest point, the point itself counted, and the
    indices of those neighbours (shape (n, min_points))."""
    from scipy.spatial import cKDTree

    from macrocause.framework.execution import thread_budget
    n = X.shape[0]
    if n < min_points:
        raise DataValidationError(
            f"disco needs at least min_points={min_points} samples (a point's core distance is the "
            f"distance to its min_points-th nearest point, itself counted); got {n}. "
            "Lower min_points or pass more samples."
        )
    dist, idx = cKDTree(X).query(X, k=min_points, workers=thread_budget())
    dist = np.asarray(dist, dtype=np.float64).reshape(n, min_points)
    idx = np.asarray(idx, dtype=np.int64).reshape(n, min_points)
    return dist[:, -1].copy(), idx


# Cost model, measured (tree / blocked time on 10 Gaussian clusters, d = 4..24): the
# KD-tree's time grows about geometrically with d (x1.12 per dimension), the blocked
# products' as n^2 d; they break even at d = 19 for n = 5,000 and d = 25 for n = 20,000,
# i.e. 3 dimensions more per doubling of n (the tree's n log n beats n^2 for longer).
TREE_BREAK_EVEN_DIM = 19.0  # at n = 5,000
TREE_DIM_PER_DOUBLING = 3.0


def tree_max_dim(n: int) -> float:
    """Largest dimension at which the KD-tree Boruvka is expected to beat the blocked one."""
    import math

    return TREE_BREAK_EVEN_DIM + TREE_DIM_PER_DOUBLING * math.log2(max(n, 2) / 5000)


def choose_backend(n: int, d: int) -> str:
    """``"tree"`` (Boruvka over a KD-tree) or ``"blocked"`` (Boruvka over BLAS blocks)
    for n points in d dimensions, by the measured break-even dimension."""
    return "tree" if d <= tree_max_dim(n) else "blocked"


def mutual_reachability_mst(X: np.ndarray, core: np.ndarray, knn: np.ndarray, leaf_size: int = 32,
                            method: str = "boruvka"):
    """Exact MST of ``d_m(x, y) = max(core(x), core(y), |x - y|)``.

    ``method``: ``"boruvka"`` (over a KD-tree) or ``"prim"`` (O(n^2) time, no matrix; the
    test reference).
    Returns ``(u, v, w)``: the n - 1 edges in original point indices.
    """
    from sklearn.neighbors import KDTree

    from ._kernels import boruvka_mst, prim_mst_dense

    n, d = X.shape
    if n == 1:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    if method == "prim":
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


def prepare(X: np.ndarray, min_points: int = 5, backend: str = "auto"):
    """Everything DISCO needs that does not depend on the labels: the core distances and
    the single-linkage merges of the mutual-reachability MST (reuse it across labellings).

    ``backend``: ``"tree"``, ``"blocked"`` or ``"auto"`` (:func:`choose_backend`); both give
    the same exact values.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, d = X.shape
    if backend == "auto":
        backend = choose_backend(n, d)
    if backend == "blocked":
        from ._blocked import blocked_mst

        if n < min_points:
            core_distances(X, min_points)  # raises the clear error
        core, (u, v, w) = blocked_mst(X, min_points)
    else:
        core, knn = core_distances(X, min_points)
        u, v, w = mutual_reachability_mst(X, core, knn)
    return (core, *dendrogram(n, u, v, w))


def disco_samples(X: np.ndarray, labels: np.ndarray, min_points: int = 5, prepared=None,
                  backend: str = "auto") -> np.ndarray:
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
    backend : {"auto", "tree", "blocked", "dense"}
        How the MST is built (:func:`prepare`); ``"dense"`` computes everything from
        n x n matrices as the authors' code does (the reference; O(n^2) memory).

    Returns
    -------
    ndarray of shape (n,)
        Values in [-1, 1].
    """
    from ._kernels import disco_from_dendrogram

    if backend not in BACKENDS:
        raise ValueError(f"The 'backend' parameter of disco must be one of {list(BACKENDS)}. Got {backend!r} instead.")
    n = X.shape[0]
    if backend == "dense" and prepared is None:
        from ._dense import dense_disco_samples

        if n < min_points:
            core_distances(X, min_points)  # raises the clear error
        return dense_disco_samples(X, labels, min_points)
    codes, k = encode_labels(labels)
    if prepared is None:
        if n < min_points:
            core_distances(X, min_points)  # raises the clear error
    if k == 0:
        return np.full(n, -1.0)
    has_noise = bool((codes < 0).any())
    if k == 1 and not has_noise:
        return np.zeros(n)
    core, left, right, height = prepare(X, min_points, backend) if prepared is None else prepared
    return disco_from_dendrogram(left, right, height, codes, k, core, k == 1 and has_noise)
