"""CAUSE-FS and the baseline feature selectors (variable partitioners with ``scores`` and ``selected``)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Params, Partition, Partitioner
from macrocause.framework.errors import DataValidationError

PAPER = "Shen, Huang, Ma, Li. Causally-Aware Unsupervised Feature Selection Learning (CAUSE-FS), 2024"


def minmax(X: np.ndarray) -> np.ndarray:
    """Each column scaled to [0, 1] (the authors' ``mapminmax``); constant columns become 0."""
    lo, span = X.min(axis=0), np.ptp(X, axis=0)
    return (X - lo) / np.where(span > 0, span, 1.0)


def ranked(scores: np.ndarray, n_select: int) -> np.ndarray:
    """Indices of the *n_select* highest scores, best first (ties by index)."""
    return np.argsort(-scores, kind="stable")[: min(n_select, scores.size)].astype(np.int64)


def selection_partition(scores: np.ndarray, n_select: int, names, labels=None, selected=None, **info) -> Partition:
    """Variable partition with ``info["scores"]`` and ``info["selected"]`` (default: the *n_select*
    highest scores, best first); without *labels*, the selected features are group 0, the rest 1."""
    sel = ranked(scores, n_select) if selected is None else np.asarray(selected, dtype=np.int64)
    if labels is None:
        labels = np.ones(scores.size, dtype=np.int64)
        labels[sel] = 0
    return Partition(labels, axis="variables", names=names,
                     info={"scores": np.asarray(scores, dtype=np.float64), "selected": sel, **info})


class CauseFSParams(Params):
    n_select: int = Field(20, ge=1, description="rho: number of features to select (all if d is smaller).")
    alpha: float = Field(1e6, gt=0, description="Weight of the regression term of Eq. (5); the default was chosen "
                         "by leaving one data set out on 9 shared sets (docs/plugins/cause_fs.md, 'How the defaults were chosen').")
    beta: float = Field(1e5, ge=0, description="Weight of the confounder-balancing term (Eq. 15, with 1/n^2).")
    lam: float = Field(1e-3, gt=0, description="lambda: weight of the l2,1 row sparsity of W.")
    k: int = Field(5, ge=1, description="Neighbours of the adaptive graphs S^(m) and G (Eqs. 10, 12).")
    h: int | None = Field(None, ge=1, description="Subspace dimension; None = n_clusters, else estimated.")
    n_clusters: int | None = Field(None, ge=2, description="Number of clusters, the default h.")
    max_granularities: int = Field(10, ge=2, description="Largest number M of feature granularities tried by CH.")
    max_iter: int = Field(20, ge=1, description="Iterations of Algorithm 1.")
    tol: float = Field(1e-5, ge=0, description="Stop when the relative decrease of Eq. (5) is below tol.")
    variant: Literal["full", "no_causal", "no_multigranular"] = Field(
        "full", description="full = CAUSE-FS; no_causal = CAUSE-FS-I; no_multigranular = CAUSE-FS-II.")
    scale: Literal["minmax", "none"] = Field("minmax", description="Per-feature scaling to [0, 1] first.")
    selection: Literal["rank", "greedy"] = Field(
        "greedy", description="greedy (ours, the default, chosen with alpha): forward selection of n_select features "
        "that best fit the learned F, weighted by mu (an l2,0 reading of the regression term); rank: the n_select "
        "largest ||W_i||^2 (the paper).")
    seed: int = Field(0, description="Seed of the spectral initialisation.")
    memory_gb: float | None = Field(None, gt=0, description="None = the framework's memory budget (half the available memory, or MACROCAUSE_MEMORY_LIMIT). Refuse before allocating when the estimated peak of the "
                             "parts growing faster than linearly (d x d or n x n) exceeds this many GB.")


def cause_fs_memory(n: int, d: int, M: int) -> tuple[float, str]:
    """Estimated peak bytes of CAUSE-FS's superlinear parts, and what they are.

    d <= n: the d x d matrices (correlations, Ward's distances and their copy, Eq. 7's
    matrix and its factor), about 24 d^2 bytes, and the balance kernel of Eq. (15) (n x n,
    float32 above 4,000 samples). d > n: Ward's condensed distances (clustered in place),
    4 d^2, and the n x n matrices of the kernel-form Eq. (7), about 8 (M + 4) n^2.
    """
    from ._core import wide

    if wide(n, d):
        need = 4.0 * d * d + 8.0 * (M + 4) * n * n
        return need, f"Ward clustering of {d} features, 4 d^2 bytes, and n x n matrices"
    need = 24.0 * d * d + (8.0 if n <= 4000 else 4.0) * n * n
    return need, f"d x d matrices for d = {d}, 24 d^2 bytes, and the n x n balance kernel"


class CauseFS(Partitioner):
    """CAUSE-FS: causally-aware unsupervised feature selection by confounder-balanced spectral regression.

    Minimises Eq. (5) of the paper by Algorithm 1: W by Eq. (7) (re-weighted l2,1), the
    granularity graphs S^(m) by Eq. (10), the fused graph G by Eq. (12), the cluster
    indicator F by the generalised power iteration on Eq. (14), the sample weights mu by
    the simplex QP of Eq. (16) (monotone accelerated projected gradient, matrix-vector
    products only), the feature granularities by Ward clustering of ``||W_i||^2`` with the
    Calinski-Harabasz criterion, and their weights nu. The paper ranks features by
    ``||W_i||^2`` (``selection="rank"``). By default (``selection="greedy"``, ours) the model
    is fitted the same way, but the ``n_select`` features are chosen one at a time, each the
    one that most improves the mu-weighted ridge fit of F by the chosen columns
    (``_subset.greedy_subset``); redundant features (e.g. neighbouring pixels) are then rarely
    chosen together. The defaults ``alpha=1e6, selection="greedy"`` were chosen by leaving one
    data set out on 9 shared sets (23 cells); the paper's selection is ``selection="rank"``.

    Returns a partition of the variables: each feature's label is its granularity.
    ``info``: ``scores`` (``||W_i||^2``, length d; greedy: each feature's gain in fit when
    chosen, or after the last step), ``selected`` (the ``n_select`` best, best first),
    ``objective`` (Eq. 5 after each iteration, non-increasing), ``n_iter``, ``h``, ``nu``, ``mu``.

    Parameters
    ----------
    n_select, alpha, beta, lam, k, h, n_clusters, max_granularities, max_iter, tol, variant, scale, selection, seed
        See the parameter descriptions (``macrocause describe cause_fs``).

    Notes
    -----
    Differences from the paper: gamma_i and xi_i are set by Eqs. (10)/(12) at the first
    update and then held fixed (the paper re-sets them each time, which changes the
    objective); S and G are then exact minimisers over all n columns, found on sparse
    candidate sets. New granularities (Alg. 1, lines 9-10) are proposed together with the
    S update of the next iteration and kept only when Eq. (5) does not increase. The mu QP
    takes at most 50 warm-started accelerated steps per iteration (never increasing).
    ``no_causal`` (CAUSE-FS-I) drops the balancing term and fixes mu = 1/n but keeps the
    regression: Eq. (17) as printed has the trivial minimiser W = 0.

    References
    ----------
    Z. Shen, Y. Huang, M. Ma, T. Li. Causally-Aware Unsupervised Feature Selection
    Learning. arXiv:2410.12224, 2024.
    """

    name = "cause_fs"
    scale_invariant = "global"
    Params = CauseFSParams
    paper = PAPER
    axis = "variables"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=max(self.params.k + 2, 4), min_variables=2)

    def memory_estimate(self, data: Dataset):
        """See :func:`cause_fs_memory`; ``memory_gb`` replaces the framework's budget when set."""
        from ._solvers import memory_estimate

        return memory_estimate(*cause_fs_memory(data.n_samples, data.n_variables, self.params.max_granularities),
                               self.params.memory_gb)

    def _partition(self, data: Dataset) -> Partition:
        from . import _core, _solvers

        p = self.params
        X = minmax(data.X) if p.scale == "minmax" else np.array(data.X, dtype=np.float64)
        n, d = X.shape
        if p.h is not None:
            h = p.h
        elif p.n_clusters is not None:
            h = p.n_clusters
        else:
            h = _solvers.eigengap_h(_solvers.knn_simplex_init(X, p.k), p.seed)
        if h >= n:
            raise DataValidationError(f"cause_fs: h={h} must be smaller than the number of samples ({n}).")
        st = _core.init_state(X, alpha=p.alpha, beta=p.beta, lam=p.lam, k=p.k, h=h, variant=p.variant,
                              max_groups=p.max_granularities, seed=p.seed)
        trace = _core.iterate(st, max_iter=p.max_iter, tol=p.tol, max_groups=p.max_granularities,
                              progress=True)
        if p.selection == "greedy":
            from ._subset import greedy_subset

            selected, scores = greedy_subset(X, st.F, st.mu, p.n_select)
        else:
            selected, scores = None, _core.contributions(st)
        return selection_partition(
            scores, p.n_select, data.names, labels=st.delta.copy(), selected=selected, objective=trace,
            n_iter=len(trace), h=h, nu=st.nu.copy(), mu=st.mu.copy(),
        )


class LaplacianScoreParams(Params):
    n_select: int = Field(20, ge=1, description="Number of features to select (all if d is smaller).")
    k: int = Field(5, ge=1, description="Neighbours of the heat-kernel k-NN graph.")


class LaplacianScore(Partitioner):
    """Laplacian score: features that best preserve a k-NN heat-kernel graph (lower score = better).

    ``L_r = f~' L f~ / f~' D f~`` with ``f~`` the feature centred by the degree-weighted
    mean; the graph is the symmetrised k-NN graph with weights ``exp(-||x_i - x_j||^2 / t)``,
    t the mean squared k-NN distance. ``info["scores"]`` = ``-L_r`` (higher = better),
    ``info["laplacian_score"]`` = ``L_r``; ``selected`` the ``n_select`` lowest, best first.
    Labels: 0 = selected, 1 = not.

    References
    ----------
    X. He, D. Cai, P. Niyogi. Laplacian Score for Feature Selection. NIPS 2005.
    """

    name = "laplacian_score"
    scale_invariant = "global"
    Params = LaplacianScoreParams
    paper = "He, Cai, Niyogi, NIPS 2005"
    axis = "variables"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=self.params.k + 1)

    def _partition(self, data: Dataset) -> Partition:
        import scipy.sparse as sp
        from sklearn.neighbors import kneighbors_graph

        X = np.asarray(data.X, dtype=np.float64)
        n = X.shape[0]
        Dist = kneighbors_graph(X, n_neighbors=self.params.k, mode="distance", include_self=False)
        sq = Dist.data**2
        t = float(sq.mean()) if sq.size and sq.mean() > 0 else 1.0
        Wg = sp.csr_matrix((np.exp(-sq / t), Dist.indices, Dist.indptr), shape=(n, n))
        Wg = Wg.maximum(Wg.T)
        deg = np.asarray(Wg.sum(axis=1)).ravel()
        Ft = X - (deg @ X) / deg.sum()
        denom = np.einsum("i,ij,ij->j", deg, Ft, Ft)
        num = denom - np.einsum("ij,ij->j", Ft, Wg @ Ft)
        ls = np.where(denom > 0, num / np.where(denom > 0, denom, 1.0), np.inf)
        scores = np.where(np.isfinite(ls), -ls, -np.inf)
        return selection_partition(np.nan_to_num(scores, neginf=-1e300), self.params.n_select, data.names,
                                   laplacian_score=ls)


class AllFeaturesParams(Params):
    pass


class AllFeatures(Partitioner):
    """All features (the paper's AllFea baseline): every feature selected, in column order.

    One group (label 0); ``info["scores"]`` all 1, ``info["selected"]`` = 0..d-1.
    """

    name = "all_features"
    scale_invariant = "column"
    Params = AllFeaturesParams
    paper = PAPER
    axis = "variables"

    def _partition(self, data: Dataset) -> Partition:
        d = data.n_variables
        return Partition(np.zeros(d, dtype=np.int64), axis="variables", names=data.names,
                         info={"scores": np.ones(d), "selected": np.arange(d, dtype=np.int64)})
