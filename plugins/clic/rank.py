"""Kernel tensor-rank estimate of the number of mixture components (Sgouritsa et al. 2013, Sec. 2.3, 6).

References
----------
Sgouritsa, Janzing, Peters, Schoelkopf. Identifying finite mixtures of
nonparametric product distributions and causal inference of confounders. UAI 2013.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from macrocause.framework.progress import progress


def neighbour_bandwidths(X: np.ndarray, n_neighbors: int = 10) -> np.ndarray:
    """Per-variable RBF bandwidths by the paper's neighbourhood rule.

    For variable j, the ``n_neighbors`` nearest neighbours of each point are found
    on all other variables (z-scored); sigma_j is the median distance along X_j
    between each point and its neighbours.
    """
    from sklearn.neighbors import NearestNeighbors

    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    k = min(n_neighbors, n - 1)
    sig = np.empty(d)
    for j in range(d):
        others = np.delete(Z, j, axis=1)
        idx = NearestNeighbors(n_neighbors=k + 1).fit(others).kneighbors(others, return_distance=False)
        dist = np.abs(X[idx[:, 1:], j] - X[:, j][:, None])
        s = float(np.median(dist))
        if s <= 0:
            pos = dist[dist > 0]
            s = float(np.median(pos)) if pos.size else 1.0
        sig[j] = s
    return sig


def splits(d: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The 2^(d-1) - 1 ways to split variables 0..d-1 into two non-empty groups."""
    out = []
    rest = list(range(1, d))
    for size in range(0, d - 1):
        for extra in itertools.combinations(rest, size):
            a = (0, *extra)
            b = tuple(j for j in range(d) if j not in a)
            out.append((a, b))
    return out


def leading_singular_values(V: np.ndarray, frac: float, seed: int = 0) -> tuple[np.ndarray, float]:
    """Singular values of V, largest first, at least until they cover ``frac`` of
    ``||V||_F^2`` (plus a margin), and ``||V||_F^2``.

    A randomised range finder with two power iterations (Halko, Martinsson, Tropp
    2011) doubles its width until the covered share is reached with a margin of at
    least 8 values; beyond n/2 it falls back to a dense SVD.
    """
    from scipy.linalg import qr, svdvals

    n = V.shape[0]
    total = float(np.sum(V * V))
    rng = np.random.default_rng(seed)
    width = 48
    while 2 * width < n:
        Y = V @ rng.standard_normal((n, width + 16))
        Q = qr(Y, mode="economic")[0]
        for _ in range(2):
            Q = qr(V.T @ Q, mode="economic")[0]
            Q = qr(V @ Q, mode="economic")[0]
        s = svdvals(Q.T @ V)
        cum = np.cumsum(s * s) / total
        hi = int(np.searchsorted(cum, frac))
        if hi + 8 < s.size:
            return s, total
        width *= 2
    return svdvals(V), total


def ratio_rank(s: np.ndarray, total: float, lo: float = 0.9, hi: float = 0.99999) -> int:
    """The paper's rule: argmin_i s_{i+1}/s_i over the i whose first i singular values
    cover between ``lo`` and ``hi`` of the total variance (sum of squared values)."""
    cum = np.cumsum(s * s) / total
    i_lo = int(np.searchsorted(cum, lo))
    i_hi = int(np.searchsorted(cum, hi))
    i_hi = min(max(i_hi, i_lo), s.size - 2)
    if i_lo > i_hi:
        return int(s.size)
    idx = np.arange(i_lo, i_hi + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(s[idx] > 0, s[idx + 1] / s[idx], np.inf)
    return int(idx[int(np.argmin(ratio))] + 1)


@dataclass(frozen=True)
class RankEstimate:
    """Result of :func:`estimate_rank`.

    Attributes
    ----------
    rank : int
        Majority vote over the splits (ties go to the smaller rank).
    split_ranks : tuple of int
        Rank estimated for each split, in the order of :func:`splits`.
    vote_share : float
        Fraction of splits that agree with ``rank``.
    bandwidths : ndarray
        Per-variable RBF bandwidths.
    """

    rank: int
    split_ranks: tuple[int, ...]
    vote_share: float
    bandwidths: np.ndarray


LOW_RANK_MIN_N = 3000  # kernel="auto": exact Gram matrices up to this many samples, low-rank above


def estimate_rank(
    X: np.ndarray, n_neighbors: int = 10, lo: float = 0.9, hi: float = 0.99999,
    kernel: str = "auto", tol: float = 1e-7,
) -> RankEstimate:
    """Estimate the tensor rank of the kernel mean embedding of the columns of X.

    For each split of the variables into groups A, B the n x n matrix
    ``V = K_A K_B / n`` (Eq. 6 with q indices tied within each group; ``K_A`` the
    Hadamard product of the RBF Gram matrices of A) gives a rank by
    :func:`ratio_rank`; the estimate is the majority vote.

    Parameters
    ----------
    X : ndarray, shape (n, d), d >= 2
    n_neighbors : int
        Neighbourhood size of the bandwidth rule.
    lo, hi : float
        Share of the variance the candidate ranks must cover.
    kernel : {"auto", "exact", "low_rank"}
        exact: the n x n Gram matrices (O(n^2) memory); low_rank: each ``K_A`` by pivoted
        incomplete Cholesky (:func:`incomplete_cholesky`, residual trace <= tol * n) and the
        singular values of V from the small factors (O(n r) memory); auto: exact up to
        ``LOW_RANK_MIN_N`` samples.
    tol : float
        Tolerance of the low-rank mode.
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    if kernel == "low_rank" or (kernel == "auto" and n > LOW_RANK_MIN_N):
        return _estimate_low_rank(X, n_neighbors, lo, hi, tol)
    import sklearn.neighbors  # noqa: F401  (loads the OpenMP runtime, so the limit below covers it)
    from threadpoolctl import threadpool_limits

    # one BLAS/OpenMP thread: multi-threaded QR/SVD of thin matrices spins, and on a shared
    # machine it was up to 100x slower (1.5 s vs 0.017 s for one QR of 1500 x 64 at load 6)
    with threadpool_limits(limits=1):
        sig = neighbour_bandwidths(X, n_neighbors)
        grams = []
        for j in range(d):
            diff = X[:, j][:, None] - X[:, j][None, :]
            grams.append(np.exp(-(diff * diff) / (2.0 * sig[j] ** 2)))
        ranks = _split_ranks(grams, d, n, lo, hi)
    counts = Counter(ranks)
    top = max(counts.values())
    rank = min(r for r, c in counts.items() if c == top)
    return RankEstimate(rank, tuple(ranks), top / len(ranks), sig)


def _split_ranks(grams, d, n, lo, hi):
    ranks = []
    for a, b in progress(splits(d), "kernel rank splits"):
        KA = grams[a[0]].copy()
        for j in a[1:]:
            KA *= grams[j]
        KB = grams[b[0]].copy()
        for j in b[1:]:
            KB *= grams[j]
        V = (KA @ KB) / n
        s, total = leading_singular_values(V, hi)
        ranks.append(ratio_rank(s, total, lo, hi))
    return ranks


def incomplete_cholesky(X: np.ndarray, sig: np.ndarray, tol: float, max_rank: int | None = None) -> np.ndarray:
    """Pivoted incomplete Cholesky ``K ~ G G'`` of the RBF kernel ``exp(-sum_j (x_j - y_j)^2 / (2 sig_j^2))``.

    Greedy pivots (largest residual diagonal); stops when the residual's trace is at most
    ``tol * n`` (the residual is PSD, so ``||K - GG'||_2 <= tol n`` while ``||K||_2 <= n``),
    or at *max_rank* columns (default n). O(n r^2) time, n x r memory (Fine, Scheinberg 2001).
    """
    from .lowrank import pivoted_cholesky

    return pivoted_cholesky(X / sig, tol, max_rank)[0]


def _estimate_low_rank(X, n_neighbors, lo, hi, tol):
    """:func:`estimate_rank` with ``K_A ~ G_A G_A'``: V ~ Q_A (R_A G_A'G_B R_B' / n) Q_B' (thin QRs)."""
    import sklearn.neighbors  # noqa: F401
    from scipy.linalg import qr, svdvals
    from threadpoolctl import threadpool_limits

    n, d = X.shape
    with threadpool_limits(limits=1):
        sig = neighbour_bandwidths(X, n_neighbors)
        factors = {}

        def factor(group):
            if group not in factors:
                G = incomplete_cholesky(X[:, list(group)], sig[list(group)], tol)
                factors[group] = (G, qr(G, mode="economic")[1])
            return factors[group]

        ranks = []
        for a, b in splits(d):
            GA, RA = factor(a)
            GB, RB = factor(b)
            s = svdvals(RA @ (GA.T @ GB) @ RB.T / n)
            ranks.append(ratio_rank(s, float(np.sum(s * s)), lo, hi))
    counts = Counter(ranks)
    top = max(counts.values())
    rank = min(r for r, c in counts.items() if c == top)
    return RankEstimate(rank, tuple(ranks), top / len(ranks), sig)
