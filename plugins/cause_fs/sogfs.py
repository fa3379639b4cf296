"""SOGFS: unsupervised feature selection with an adaptively learned (structured) similarity graph."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.errors import DataValidationError


class SOGFSParams(Params):
    n_select: int = Field(20, ge=1, description="Number of features to select (all if d is smaller).")
    n_clusters: int = Field(..., ge=2, description="c: clusters, i.e. the rank constraint rank(L_S) = n - c.")
    n_components: int | None = Field(None, ge=1, description="m: columns of the projection W; None = n_clusters.")
    gamma: float = Field(1.0, gt=0, description="Weight of the l2,1 row sparsity of W.")
    k: int = Field(5, ge=1, description="Neighbours per row of the learned graph S.")
    lam: float = Field(1.0, gt=0, description="Initial weight of the rank term 2 lam Tr(F'L_S F) (adapted).")
    max_iter: int = Field(20, ge=1, description="Alternating iterations.")
    scale: Literal["standard", "minmax", "none"] = Field(
        "standard", description="Per-feature scaling first: zero mean and unit variance, [0, 1], or none.")
    memory_gb: float | None = Field(None, gt=0, description="None = the framework's memory budget (half the available memory, or MACROCAUSE_MEMORY_LIMIT). Refuse before allocating when the estimated peak of the "
                             "d x d (d <= n) or dense n x n parts exceeds this many GB.")


class SOGFS(Partitioner):
    """SOGFS: feature selection with structured graph optimisation (adaptive-neighbour graph).

    Minimises ``sum_ij (||W'x_i - W'x_j||^2 s_ij + a_i s_ij^2) + gamma ||W||_2,1
    + 2 lam Tr(F' L_S F)`` subject to ``W'W = I``, ``F'F = I`` and each row of S on the
    simplex, alternating: F = the c eigenvectors of L_S with the smallest eigenvalues;
    W = the m eigenvectors of ``2 X'L_S X + gamma D`` with the smallest eigenvalues (re-weighted
    l2,1, ``D_ii = 1 / (2 ||w_i||)``); S row-wise in closed form on the distances
    ``||W'x_i - W'x_j||^2 + lam ||f_i - f_j||^2`` with a_i set for k neighbours (Nie et al.
    2014). lam is doubled when L_S has fewer than c (near-)zero eigenvalues and halved when
    it has more, as in the paper. Features are ranked by ``||w_i||_2``.

    Returns a variable partition (0 = selected, 1 = not); ``info``: ``scores`` (``||w_i||``),
    ``selected`` (best first), ``n_components_zero`` (near-zero eigenvalues of the last L_S
    used), ``lam`` (its final value).

    Notes
    -----
    One of the adaptive-graph feature selectors CAUSE-FS's comparison methods (HSL, CNAFS)
    build on; chosen here because it is the simplest of them. S is sparse: each row is solved
    over its ``max(8k, 40)`` nearest neighbours in the combined space (exact unless ties).
    a_i is reset each iteration so every row keeps exactly k neighbours. Features are
    standardised by default: with ``W'W = I`` the trace objective otherwise favours features of
    small variance (on COIL20 min-max scaled, near-constant border pixels); constant columns
    are left out (score 0).

    References
    ----------
    F. Nie, W. Zhu, X. Li. Unsupervised Feature Selection with Structured Graph Optimization.
    AAAI 2016.
    """

    name = "sogfs"
    scale_invariant = "global"
    Params = SOGFSParams
    paper = "Nie, Zhu, Li. Unsupervised Feature Selection with Structured Graph Optimization, AAAI 2016"
    axis = "variables"

    @classmethod
    def example(cls):
        from macrocause.framework.roles import Example

        rng = np.random.default_rng(0)
        y = np.repeat([0, 1], 15)
        X = np.column_stack([y + 0.1 * rng.standard_normal(30), rng.random((30, 3))])
        return Example({"n_select": 1, "n_clusters": 2, "k": 3, "max_iter": 3}, Dataset(X))

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=max(self.params.k + 2, self.params.n_clusters + 1), min_variables=2)

    def memory_estimate(self, data: Dataset):
        """The largest of three phases (d = the non-constant features), measured at two sizes
        each (docs: Limits): scaling the data, 24 n d bytes (a copy, a temporary, the result);
        the projection W, 16 n d + 24 d^2 when d <= n (X'L_S X and eigh's copy), 24 n d + 24 n^2
        when d > n (Woodbury through L_S's eigenvectors, the Cholesky factor and its copy);
        below 501 samples a dense eigendecomposition of L_S, 24 n^2. ``memory_gb`` replaces
        the framework's budget when set."""
        from ._solvers import memory_estimate

        n, d = data.n_samples, int((np.ptp(data.X, axis=0) > 0).sum())
        project = 24.0 * n * d + 24.0 * n * n if d > n else 16.0 * n * d + 24.0 * d * d
        need = max(24.0 * n * d, project, 24.0 * n * n if n <= 500 else 0.0)
        return memory_estimate(need, "max(24 n d, 16 n d + 24 d^2 if d <= n else 24 n d + 24 n^2) bytes",
                               self.params.memory_gb)

    def _partition(self, data: Dataset) -> Partition:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):  # small products; threads cost more than they save on a shared machine
            return self._select(data)

    def _select(self, data: Dataset) -> Partition:
        import scipy.sparse as sp

        from ._solvers import (
            EPS_L21,
            knn_simplex_init,
            laplacian,
            sparse_simplex_graph,
        )
        from .selector import minmax, selection_partition

        p = self.params
        X = np.array(data.X, dtype=np.float64)
        if p.scale == "minmax":
            X = minmax(X)
        n, d = X.shape
        c = p.n_clusters
        m = min(p.n_components or c, d)
        if c >= n:
            raise DataValidationError(f"sogfs: n_clusters={c} must be smaller than the number of samples ({n}).")
        keep = np.ptp(X, axis=0) > 0  # constant columns: zero graph energy, would be picked first
        if keep.sum() < m:
            raise DataValidationError(f"sogfs: {int(keep.sum())} non-constant features, fewer than m = {m}.")
        d_all, X = d, X[:, keep]
        if p.scale == "standard":
            X = (X - X.mean(axis=0)) / X.std(axis=0)
        d = X.shape[1]
        wide = d > n
        S = knn_simplex_init(X, p.k)
        lam = p.lam
        Dw = np.ones(d)
        W = np.zeros((d, m))
        zeros = 0
        for t in range(p.max_iter):
            L = laplacian(S)
            w, V = _smallest(L, c + 1)
            F = V[:, :c]
            zeros = int(np.sum(w < 1e-8 * max(1.0, float(L.diagonal().max()))))
            if t > 0:  # adapt lam to the graph learned with it
                lam = lam * 2.0 if zeros < c else lam / 2.0 if zeros > c else lam
            # sum_ij ||W'x_i - W'x_j||^2 s_ij = 2 tr(W'X'L_S XW): W = the m smallest of 2X'L_S X + gamma D
            W = smallest_projection(X, L, p.gamma * Dw, m, wide=wide)
            Dw = 1.0 / (2.0 * np.sqrt(np.sum(W**2, axis=1) + EPS_L21))
            emb = np.sqrt(2.0) * np.hstack([X @ W, np.sqrt(lam) * F])  # 0.5 ||.||^2 = d^w + lam d^f
            S = sparse_simplex_graph(emb, sp.csr_matrix((n, n)), 0.0, np.zeros(n), p.k)
        scores = np.zeros(d_all)
        scores[keep] = np.sqrt(np.sum(W**2, axis=1))
        return selection_partition(scores, p.n_select, data.names, n_components_zero=zeros, lam=lam)


def _smallest(L, r: int):
    """The r smallest eigenpairs of a sparse graph Laplacian (dense below 500 rows)."""
    from scipy.sparse.linalg import eigsh

    n = L.shape[0]
    if n <= 500 or r >= n - 1:
        w, V = np.linalg.eigh(L.toarray())
        return w[:r], V[:, :r]
    v0 = np.full(n, 1.0 / np.sqrt(n))
    w, V = eigsh(L, k=r, sigma=-1e-6, which="LM", v0=v0, tol=1e-8)
    o = np.argsort(w)
    return w[o], V[:, o]


def smallest_projection(X: np.ndarray, L, diag: np.ndarray, m: int, wide: bool) -> np.ndarray:
    """The m eigenvectors of ``A = 2 X'LX + diag(diag)`` (d x d) with the smallest eigenvalues.

    Dense ``eigh`` when not *wide*; else Lanczos on ``A^-1`` (its largest eigenvalues) with
    A^-1 applied by Woodbury through n x n matrices: ``2L = P P'`` (eigenvectors of L),
    ``B = P'X``, ``A^-1 = Lam^-1 - Lam^-1 B' (I + B Lam^-1 B')^-1 B Lam^-1`` (``Lam = diag``);
    O(n d) per product, no d x d matrix. The eigenvectors agree with the dense ones up to
    signs (and rotations within repeated eigenvalues), which the scores ``||w_i||`` and the
    graph update do not see.
    """
    from scipy.linalg import cho_factor, cho_solve, eigh
    from scipy.sparse.linalg import LinearOperator, eigsh

    d = X.shape[1]
    if not wide:
        A = 2.0 * (X.T @ (L @ X))
        A = 0.5 * (A + A.T)
        A[np.diag_indices_from(A)] += diag
        return eigh(A, subset_by_index=[0, m - 1], check_finite=False)[1]
    s, U = eigh(2.0 * L.toarray(), check_finite=False)
    B = (U * np.sqrt(np.maximum(s, 0.0))).T @ X
    Bl = B / diag
    G = Bl @ B.T
    G[np.diag_indices_from(G)] += 1.0
    cf = cho_factor(G, check_finite=False)

    def inv(v):
        v = v.reshape(d, -1) / diag[:, None]
        return v - Bl.T @ cho_solve(cf, B @ v, check_finite=False)

    op = LinearOperator((d, d), matvec=inv, matmat=inv, dtype=np.float64)
    v0 = np.full(d, 1.0 / np.sqrt(d)) + np.linspace(0.0, 1e-3, d)
    w, V = eigsh(op, k=m, which="LA", v0=v0, tol=1e-12)
    return V[:, np.argsort(-w)]
