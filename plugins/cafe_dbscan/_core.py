"""Array-level CAFE DBSCAN: neighbourhoods, Algorithm 1, the Section V heuristic and the candidate grid."""

from __future__ import annotations

import numpy as np

P_OF_METRIC = {"euclidean": 2.0, "manhattan": 1.0, "chebyshev": np.inf}


def neighbourhoods(X: np.ndarray, eps: float, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """CSR epsilon-neighbourhoods (distance <= eps, the point itself included) via a KD-tree.

    Memory is O(n + number of neighbour pairs).
    """
    from scipy.spatial import cKDTree

    from ._kernels import pairs_to_csr

    tree = cKDTree(X)
    pairs = tree.query_pairs(eps, p=P_OF_METRIC[metric], output_type="ndarray")
    return pairs_to_csr(X.shape[0], pairs.astype(np.int64, copy=False))


def cafe_dbscan(
    X: np.ndarray, codes: np.ndarray, m: int, eps: float, min_points: int, tau: float, metric: str = "euclidean"
) -> tuple[np.ndarray, np.ndarray]:
    """Labels (noise -1) and per-cluster effect-state counts (k x m) of Algorithm 1."""
    from ._kernels import cafe_expand

    indptr, indices = neighbourhoods(X, eps, metric)
    return cafe_expand(indptr, indices, np.ascontiguousarray(codes, dtype=np.int64), int(m), int(min_points), float(tau))


def kdist(X: np.ndarray, k: int, metric: str, max_queries: int = 4000) -> np.ndarray:
    """Distances to the k-th nearest point (the point itself counted) for an evenly spaced
    subsample of at most ``max_queries`` points, queried against all points."""
    from scipy.spatial import cKDTree

    n = X.shape[0]
    k = min(k, n)
    idx = np.linspace(0, n - 1, min(n, max_queries)).round().astype(np.int64)
    d, _ = cKDTree(X).query(X[idx], k=k, p=P_OF_METRIC[metric])
    return np.asarray(d).reshape(len(idx), -1)[:, -1]


# -- Section V heuristic -------------------------------------------------------
def heuristic_min_points(n: int) -> int:
    """mu in the paper's range [10, 100], growing like sqrt(n) / 3 (30 at n = 8,100)."""
    return int(np.clip(round(np.sqrt(n) / 3), 10, 100))


def heuristic_eps(X: np.ndarray, min_points: int, metric: str, quantile: float = 0.5) -> float:
    """eps such that a good share of the eps-neighbourhoods (``1 - quantile``... here the
    points below the quantile) hold at least mu points: a quantile of the mu-distance."""
    d = kdist(X, min_points, metric)
    eps = float(np.quantile(d, quantile))
    return eps if eps > 0 else float(d[d > 0].min()) if np.any(d > 0) else 1.0


def heuristic_tau(m: int, min_points: int) -> float:
    """tau in the paper's range [0.1, 0.4]: about twice the expected total-variation error
    of a histogram of mu/2 points over m states (sqrt(m / (2 pi)) / sqrt(mu/2))."""
    err = np.sqrt(m / (2 * np.pi)) / np.sqrt(max(min_points / 2, 1))
    return float(np.clip(round(2 * err, 2), 0.1, 0.4))
