"""The score engine of the ``cic`` scorer: cached, index-based local scores (the engine protocol is
described in :mod:`macrocause.framework.score_engine`).

An engine works on variable indices. ``local(C, P)`` is the score of cluster C
(a sorted tuple of indices) given the union P of its parent clusters' variables;
``structure(m, n_edges)`` holds the terms that depend on the whole graph (for
CIC the partition code length and the parent lists). A graph's score is
``sum(local) + structure``. Every entropy, MI and local value is cached, so a
search re-computes only what a move changed.
"""

from __future__ import annotations

import math

import numpy as np

from macrocause.framework.entropy import DiscreteEntropies, g_test

Idx = tuple[int, ...]


def prepare_continuous(X: np.ndarray) -> np.ndarray:
    """Columns scaled to unit standard deviation, plus 1e-10 jitter (fixed seed) to break ties.

    Ties make kNN distances zero; scikit-learn's ``mutual_info_regression`` adds the
    same kind of noise. The jitter is deterministic, so scores are reproducible.
    """
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    Z = (X - X.mean(axis=0)) / sd
    rng = np.random.default_rng(0)
    return np.ascontiguousarray(Z + 1e-10 * rng.standard_normal(Z.shape))


def rank_transform(X: np.ndarray, seed: int = 0) -> np.ndarray:
    """Each column replaced by a sorted standard-normal sample placed in the column's rank order.

    Ties are ranked in a random order. MI and TC do not change under monotone maps
    of single variables, and this is one (up to the tie-breaking): the dependence
    (copula) is kept, every margin becomes an i.i.d. normal sample. Rounded data have
    many ties, which drive kNN distances (and Kozachenko-Leonenko marginal entropies)
    towards zero; breaking them spreads the tied values over their rank interval (a
    dequantisation). Normal margins, unlike exact ranks on a grid, meet the
    estimator's assumptions (no boundary, no lattice).
    """
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    U = np.empty(X.shape)
    for j in range(X.shape[1]):
        order = np.lexsort((rng.random(n), X[:, j]))
        U[order, j] = np.sort(rng.standard_normal(n))
    return np.ascontiguousarray(U)


class KLEntropies:
    """Kozachenko-Leonenko kNN entropies of column subsets, cached per subset.

    Every TC and MI is then a sum of cached entropies, so with d variables at most
    2^d - 1 kNN searches are ever made, however long the search runs. The data are
    rank-transformed first (:func:`rank_transform`).
    """

    def __init__(self, X: np.ndarray, k: int) -> None:
        self.Z, self.k = rank_transform(X), k
        self._h: dict[Idx, float] = {}

    def H(self, cols: Idx) -> float:
        h = self._h.get(cols)
        if h is None:
            from ._knn import knn_entropy

            h = knn_entropy(self.Z[:, list(cols)], self.k) if cols else 0.0
            self._h[cols] = h
        return h

    def mi(self, a: Idx, b: Idx) -> float:
        return self.H(a) + self.H(b) - self.H(tuple(sorted(a + b)))


class CopulaEntropies:
    """Gaussian-copula entropies of column subsets: ``H(S) = log det(R_SS) / 2`` with R the correlation of the
    normal scores of the ranks (:func:`rank_transform`), each variable's own (equal) constant left out, so
    that every TC and MI built from them is the Gaussian-copula one. Exact for Gaussian copulas, a lower
    bound of the information otherwise; one d x d correlation, then a log-determinant per subset."""

    def __init__(self, X: np.ndarray) -> None:
        Z = rank_transform(X)
        self.R = np.corrcoef(Z, rowvar=False).reshape(X.shape[1], X.shape[1])
        self._h: dict[Idx, float] = {}

    def H(self, cols: Idx) -> float:
        h = self._h.get(cols)
        if h is None:
            idx = list(cols)
            h = 0.5 * float(np.linalg.slogdet(self.R[np.ix_(idx, idx)])[1]) if len(idx) > 1 else 0.0
            self._h[cols] = h
        return h

    def mi(self, a: Idx, b: Idx) -> float:
        return self.H(a) + self.H(b) - self.H(tuple(sorted(a + b)))


class CICEngine:
    """Cached CIC terms (Eqs. 3-6): plug-in entropies for discrete data, kNN estimators for continuous.

    Parameters
    ----------
    X : ndarray (n, d)
    discrete : bool
        Plug-in estimators on integer codes, else kNN estimators on scaled data.
    k : int
        Neighbours of the kNN estimators.
    alphabet : int
        Alphabet size charged per continuous variable in the penalty (Eq. 5).
    f1 : float
        Factor of g per sample: 2 (Eq. 6, the MIT score's 2N) or 1 (the log-likelihood's N).
    knn : "ksg", "kl" or "copula"
        Continuous data: KSG estimators of each TC and MI (Kraskov et al.'s estimator 1,
        one joint kNN search per term), differences of Kozachenko-Leonenko entropies
        cached per variable subset (far fewer kNN searches; biases do not cancel as in KSG),
        or Gaussian-copula entropies (:class:`CopulaEntropies`).
    """

    def __init__(self, X: np.ndarray, discrete: bool, k: int = 5, alphabet: int = 2, knn: str = "ksg",
                 f1: float = 2.0) -> None:
        from ._kernels import log_stirling2_row, pairwise_mi_matrix

        self.n, self.d = X.shape
        self.discrete = discrete
        self.k = k
        self.log_n = math.log(self.n)
        self.f1 = f1 * self.n
        if discrete:
            self.ent = DiscreteEntropies(X)
            self.cards = self.ent.cards.astype(float)
            self.pmi = pairwise_mi_matrix(self.ent.codes, self.ent.cards)
        else:
            self.Z = prepare_continuous(X)
            self.cards = np.full(self.d, float(alphabet))
            self.pmi = None
            self.kl = KLEntropies(X, k) if knn == "kl" else CopulaEntropies(X) if knn == "copula" else None
        self._tc: dict[Idx, float] = {}
        self._mi: dict[tuple[Idx, Idx], float] = {}
        self._local: dict[tuple[Idx, Idx], float] = {}
        self._stirling = log_stirling2_row(self.d)

    # -- information terms ------------------------------------------------------
    def pairwise_mi(self, i: int, j: int) -> float:
        return self.pairwise_mi_sum((i,), (j,))

    def pairwise_mi_sum(self, C: Idx, P: Idx) -> float:
        """Sum of I(X_i; X_j) over i in C, j in P, in one kernel call; continuous pairs not yet
        estimated are estimated first, all in one batched kernel call."""
        from ._kernels import block_sum

        c, p = np.asarray(C, dtype=np.int64), np.asarray(P, dtype=np.int64)
        if self.pmi is None:
            self.pmi = np.full((self.d, self.d), np.nan)
        miss = np.argwhere(np.isnan(self.pmi[np.ix_(c, p)])) if not self.discrete else ()
        if len(miss):
            pairs = np.column_stack([c[miss[:, 0]], p[miss[:, 1]]])
            if self.kl is not None:
                vals = [self.kl.mi((int(i),), (int(j),)) for i, j in pairs]
            else:
                from ._knn import knn_pairwise_mi

                vals = knn_pairwise_mi(self.Z, pairs, self.k)
            for (i, j), v in zip(pairs, vals):
                self.pmi[i, j] = self.pmi[j, i] = v
        return float(block_sum(self.pmi, c, p))

    def tc(self, C: Idx) -> float:
        """Total correlation of the variables of C."""
        if len(C) < 2:
            return 0.0
        v = self._tc.get(C)
        if v is None:
            if self.discrete:
                v = sum(self.ent.H((i,)) for i in C) - self.ent.H(C)
            elif self.kl is not None:
                v = sum(self.kl.H((i,)) for i in C) - self.kl.H(C)
            else:
                from ._knn import knn_total_correlation

                v = knn_total_correlation([self.Z[:, [i]] for i in C], self.k)
            self._tc[C] = v
        return v

    def mi(self, C: Idx, P: Idx) -> float:
        """I(X_C; X_P) between two disjoint variable sets."""
        key = (C, P)
        v = self._mi.get(key)
        if v is None:
            if self.discrete:
                v = self.ent.mi(C, P)
            elif self.kl is not None:
                v = self.kl.mi(C, P)
            else:
                from ._knn import knn_mutual_information

                v = knn_mutual_information(self.Z[:, list(C)], self.Z[:, list(P)], self.k)
            self._mi[key] = v
        return v

    def g(self, C: Idx, P: Idx) -> float:
        """The cluster's share of g (Eq. 4): TC(C) + I(C; P) - sum of pairwise I(X_i; X_j)."""
        val = self.tc(C)
        if P:
            val += self.mi(C, P)
            val -= self.pairwise_mi_sum(C, P)
        return val

    def parameters(self, C: Idx, P: Idx) -> float:
        """(prod_{j in C} s_j - 1) * prod_{k in P} s_k, the cluster's share of Eq. 5."""
        return (float(np.prod(self.cards[list(C)])) - 1.0) * float(np.prod(self.cards[list(P)]))

    # -- scores ----------------------------------------------------------------------
    def local(self, C: Idx, P: Idx) -> float:
        """f1 g_C - (log N / 2) * params_C: the cluster's share of Eq. 6 (no m-dependent terms)."""
        key = (C, P)
        v = self._local.get(key)
        if v is None:
            v = self.f1 * self.g(C, P) - 0.5 * self.log_n * self.parameters(C, P)
            self._local[key] = v
        return v

    def log_stirling(self, m: int, n_vars: int | None = None) -> float:
        """log S(n_vars, m); n_vars defaults to all d variables."""
        if n_vars is None or n_vars == self.d:
            return float(self._stirling[m])
        from ._kernels import log_stirling2_row

        return float(log_stirling2_row(n_vars)[m])

    def structure(self, m: int, n_edges: int, n_vars: int | None = None) -> float:
        """-(log N / 2) * (log S(n, m) + |E| log m): Eq. 5's partition and parent-list terms."""
        return -0.5 * self.log_n * (self.log_stirling(m, n_vars) + n_edges * math.log(m))

    def edge_cost(self, m: int) -> float:
        return 0.5 * self.log_n * math.log(m)

    # -- CI test between clusters (closing step of Algorithm 1) ------------------------------
    def ci_pvalue(self, A: Idx, B: Idx, S: Idx, n_perm: int, seed: int) -> float:
        """p-value of X_A _||_ X_B | X_S: G-test (discrete) or kNN CMI local permutation test."""
        if self.discrete:
            return g_test(self.ent, A, B, S)
        from ._knn import local_permutation_test

        rng = np.random.default_rng(seed)
        Z = self.Z
        _, p = local_permutation_test(Z[:, list(A)], Z[:, list(B)], Z[:, list(S)], self.k, n_perm, 5, rng)
        return p
