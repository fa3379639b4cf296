"""Low-rank candidate scores of CLIC's greedy search (``clic(kernel="low_rank")``).

An exact scan of all N (m-1) single-point moves costs O(N n d) (every point against every
member). Here each cluster's Gram matrices (``K`` of variable t and ``L`` of variables
t+1..d-1, the cluster's bandwidths) are factorised by pivoted incomplete Cholesky on the
cluster's members (residual trace <= ``tol * n_c``, Fine and Scheinberg 2001), and every
point gets Nystrom features ``g = k(x, pivots) L_P^{-T}`` (equal to the Cholesky rows for
members). The nine member sums a move needs (see ``_kernels._accumulate``) are then inner
products with a few r-vectors and r x r matrices of the cluster, so one scan costs
O(N m d r^2) through BLAS instead of O(N n d). The sums that involve the row sums of ``K``
and ``L`` use the exact row sums of the current state. Scores only propose moves: each move
is applied only after its exact gain is checked (``_kernels.apply_candidates``), so the
objective, the state and the p-values stay exact.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular


def pivoted_cholesky(Z: np.ndarray, tol: float, max_rank: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pivoted incomplete Cholesky ``K ~ G G'`` of the RBF kernel ``exp(-|z - z'|^2 / 2)`` of the
    rows of Z (already divided by the bandwidths): greedy pivots (largest residual diagonal);
    stops when the residual's trace is at most ``tol * n`` or at ``max_rank`` columns (default
    n). O(n r^2) time, n x r memory (Fine, Scheinberg 2001). Returns (G, pivots)."""
    n = Z.shape[0]
    r_max = n if max_rank is None else min(n, max_rank)
    G = np.zeros((n, min(r_max, 64)))
    dg = np.ones(n)
    piv = []
    k = 0
    while k < r_max and dg.sum() > tol * n:
        i = int(np.argmax(dg))
        if k == G.shape[1]:
            G = np.hstack([G, np.zeros((n, min(r_max, 2 * k) - k))])
        col = np.exp(-0.5 * np.sum((Z - Z[i]) ** 2, axis=1))
        g = (col - G[:, :k] @ G[i, :k]) / np.sqrt(dg[i])
        G[:, k] = g
        dg -= g * g
        dg[i] = 0.0
        np.maximum(dg, 0.0, out=dg)
        piv.append(i)
        k += 1
    return G[:, :k], np.array(piv, dtype=np.int64)


def nystrom_features(Z_all: np.ndarray, members: np.ndarray, tol: float, max_rank: int) -> np.ndarray:
    """Features of every row of ``Z_all`` (scaled inputs) for the kernel of the rows ``members``:
    the members' pivoted Cholesky factor, extended to the others by Nystrom (N x r)."""
    G, piv = pivoted_cholesky(Z_all[members], tol, max_rank)
    P = Z_all[members[piv]]
    sq = (Z_all * Z_all).sum(1)[:, None] + (P * P).sum(1)[None, :] - 2.0 * Z_all @ P.T
    Kx = np.exp(-0.5 * np.maximum(sq, 0.0))
    return solve_triangular(G[piv], Kx.T, lower=True).T


def features(X: np.ndarray, labels: np.ndarray, sig: np.ndarray, tol: float, max_rank: int) -> list:
    """Per cluster c and test t: (G, H), the Nystrom features of K (variable t) and L
    (variables t+1..d-1) with cluster c's bandwidths."""
    m, d = sig.shape
    out = []
    for c in range(m):
        members = np.flatnonzero(labels == c)
        Z = X / sig[c]
        out.append([(nystrom_features(Z[:, [t]], members, tol, max_rank),
                     nystrom_features(Z[:, t + 1:], members, tol, max_rank)) for t in range(d - 1)])
    return out


def member_sums(feats: list, labels: np.ndarray, R: np.ndarray, Sv: np.ndarray) -> np.ndarray:
    """Approximate sums over the members i != p of cluster c, for every point p, cluster c and
    test t, in the order of ``_kernels._accumulate``: sum k, l, k^2, l^2, k l, R_i k, S_i l,
    R_i l, k S_i. Shape (m, d-1, N, 9)."""
    m = len(feats)
    n_tests = len(feats[0])
    N = labels.shape[0]
    out = np.empty((m, n_tests, N, 9))
    for c in range(m):
        mem = labels == c
        for t in range(n_tests):
            G, H = feats[c][t]
            GS, HS = G[mem], H[mem]
            RS, SS = R[c, t, mem], Sv[c, t, mem]
            u, v = GS.sum(0), HS.sum(0)
            A, B, C = GS.T @ GS, HS.T @ HS, GS.T @ HS
            o = out[c, t]
            o[:, 0] = G @ u
            o[:, 1] = H @ v
            o[:, 2] = np.einsum("ij,ij->i", G @ A, G)
            o[:, 3] = np.einsum("ij,ij->i", H @ B, H)
            o[:, 4] = np.einsum("ij,ij->i", G @ C, H)
            o[:, 5] = G @ (GS.T @ RS)
            o[:, 6] = H @ (HS.T @ SS)
            o[:, 7] = H @ (HS.T @ RS)
            o[:, 8] = G @ (GS.T @ SS)
            # members: remove the self term (the sums run over i != p)
            gg = np.einsum("ij,ij->i", G[mem], G[mem])
            hh = np.einsum("ij,ij->i", H[mem], H[mem])
            o[mem, 0] -= gg
            o[mem, 1] -= hh
            o[mem, 2] -= gg * gg
            o[mem, 3] -= hh * hh
            o[mem, 4] -= gg * hh
            o[mem, 5] -= RS * gg
            o[mem, 6] -= SS * hh
            o[mem, 7] -= RS * hh
            o[mem, 8] -= gg * SS
    return out
