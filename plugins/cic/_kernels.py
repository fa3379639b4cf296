"""Numba kernels of the CIC plugin: log Stirling numbers, block sums, kNN counts, pairwise MI (the plug-in
entropy kernels are shared, in :mod:`framework.numeric_kernels`)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from framework.numeric_kernels import joint_entropy


@njit(cache=True)
def _log_stirling2(n: int, max_m: int) -> np.ndarray:
    T = np.full((n + 1, max_m + 1), -np.inf)
    T[0, 0] = 0.0
    for i in range(1, n + 1):
        for m in range(1, min(i, max_m) + 1):
            a = T[i - 1, m] + np.log(m) if T[i - 1, m] > -np.inf else -np.inf
            b = T[i - 1, m - 1]
            if a == -np.inf:
                T[i, m] = b
            elif b == -np.inf:
                T[i, m] = a
            else:
                hi = max(a, b)
                T[i, m] = hi + np.log(np.exp(a - hi) + np.exp(b - hi))
    return T


def log_stirling2_table(n: int, max_m: int | None = None) -> np.ndarray:
    """T[i, m] = log S(i, m) for 0 <= i <= n, 0 <= m <= max_m (default n), Stirling numbers of the
    second kind in log space; ``-inf`` stands for S = 0. Cached per (n, max_m), read-only.

    Uses S(i, m) = m S(i-1, m) + S(i-1, m-1).
    """
    return _cached_table(int(n), int(n if max_m is None else max_m))


@lru_cache(maxsize=32)
def _cached_table(n: int, max_m: int) -> np.ndarray:
    T = _log_stirling2(n, max_m)
    T.setflags(write=False)
    return T


def log_stirling2_row(n: int) -> np.ndarray:
    """``log S(n, m)`` for m = 0..n (read-only, cached)."""
    return log_stirling2_table(n)[n]


@njit(cache=True)
def block_sum(M: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> float:
    """Sum of ``M[i, j]`` over i in *rows* (outer) and j in *cols* (inner), in that order."""
    acc = 0.0
    for i in rows:
        for j in cols:
            acc += M[i, j]
    return acc


@njit(cache=True)
def _pair_kth_distance(x: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """Each point's max-norm distance in (x, y) to its (k+1)-th nearest point, itself counted
    (the k-th neighbour); a sweep outwards along x, stopped where |dx| cannot improve it."""
    n = x.shape[0]
    order = np.argsort(x, kind="mergesort")
    xs, ys = x[order], y[order]
    out = np.empty(n)
    best = np.empty(k + 1)
    for p in range(n):
        best[:] = np.inf
        best[0] = 0.0  # the point itself
        filled = 1
        lo, hi = p - 1, p + 1
        while lo >= 0 or hi < n:
            dl = xs[p] - xs[lo] if lo >= 0 else np.inf
            dr = xs[hi] - xs[p] if hi < n else np.inf
            if dl <= dr:
                q, dx = lo, abs(xs[lo] - xs[p])
                lo -= 1
            else:
                q, dx = hi, abs(xs[hi] - xs[p])
                hi += 1
            if filled > k and dx >= best[k]:
                break
            d = max(dx, abs(ys[q] - ys[p]))
            if filled <= k or d < best[k]:
                t = min(filled, k)  # insert d into the sorted buffer
                while t > 0 and best[t - 1] > d:
                    best[t] = best[t - 1]
                    t -= 1
                best[t] = d
                filled = min(filled + 1, k + 1)
        out[order[p]] = best[k]
    return out


@njit(cache=True)
def _count_within_1d(x: np.ndarray, eps: np.ndarray) -> np.ndarray:
    xs = np.sort(x)
    hi = np.searchsorted(xs, x + eps, side="left")
    lo = np.searchsorted(xs, x - eps, side="right")
    return hi - lo - 1


@njit(cache=True)
def ksg_pair_counts(Z: np.ndarray, pairs: np.ndarray, k: int) -> np.ndarray:
    """KSG neighbour counts of the single-column pairs ``(Z[:, i], Z[:, j])``: out[p, 0] and
    out[p, 1] count, per point, the other points within its k-th neighbour distance (max-norm,
    strict) along column i and along column j. The same counts as :mod:`._knn`'s tree queries."""
    n = Z.shape[0]
    out = np.empty((pairs.shape[0], 2, n), np.int64)
    for p in range(pairs.shape[0]):
        x = np.ascontiguousarray(Z[:, pairs[p, 0]])
        y = np.ascontiguousarray(Z[:, pairs[p, 1]])
        eps = _pair_kth_distance(x, y, k)
        out[p, 0] = _count_within_1d(x, eps)
        out[p, 1] = _count_within_1d(y, eps)
    return out


@njit(cache=True)
def pairwise_mi_matrix(codes: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Plug-in I(X_i; X_j) = H(X_i) + H(X_j) - H(X_i, X_j) (nats) of every pair of columns."""
    d = codes.shape[1]
    h1 = np.empty(d)
    for i in range(d):
        h1[i] = joint_entropy(codes, np.array([i], np.int64), cards)
    out = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1, d):
            out[i, j] = out[j, i] = h1[i] + h1[j] - joint_entropy(codes, np.array([i, j], np.int64), cards)
    return out
