"""Score engines: cached, index-based local scores behind the ``cic`` and ``bic`` scorers.

An engine works on variable indices. ``local(C, P)`` is the score of cluster C
(a sorted tuple of indices) given the union P of its parent clusters' variables;
``structure(m, n_edges)`` holds the terms that depend on the whole graph (for
CIC the partition code length and the parent lists). A graph's score is
``sum(local) + structure``. Every entropy, MI and local value is cached, so a
search re-computes only what a move changed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cached_property

import numpy as np

from framework.numeric import DENSE_COUNT_LIMIT, KEY_RANK_LIMIT

Idx = tuple[int, ...]


def encode_columns(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-column integer codes 0..s_j-1 (C-contiguous int64) and the observed alphabet sizes s_j."""
    codes = np.empty(X.shape, dtype=np.int64)
    cards = np.empty(X.shape[1], dtype=np.int64)
    for j in range(X.shape[1]):
        u, inv = np.unique(X[:, j], return_inverse=True)
        codes[:, j] = inv
        cards[j] = u.size
    return np.ascontiguousarray(codes), cards


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


class DiscreteEntropies:
    """Plug-in joint entropies of column subsets, cached (numba kernels)."""

    def __init__(self, X: np.ndarray) -> None:
        self.codes, self.cards = encode_columns(X)
        self.n = X.shape[0]
        self._h: dict[Idx, float] = {}

    def H(self, cols: Idx) -> float:
        h = self._h.get(cols)
        if h is None:
            h = self._h[cols] = self._entropy(cols)
        return h

    def _entropy(self, cols: Idx) -> float:
        from ._kernels import joint_entropy

        return float(joint_entropy(self.codes, np.asarray(cols, dtype=np.int64), self.cards))

    def mi(self, a: Idx, b: Idx) -> float:
        return self.H(a) + self.H(b) - self.H(tuple(sorted(a + b)))

    def cmi(self, a: Idx, b: Idx, c: Idx) -> float:
        """I(A; B | C) = H(AC) + H(BC) - H(ABC) - H(C)."""
        ac, bc = tuple(sorted(a + c)), tuple(sorted(b + c))
        return self.H(ac) + self.H(bc) - self.H(tuple(sorted(a + b + c))) - self.H(c)


class NumpyEntropies(DiscreteEntropies):
    """:class:`DiscreteEntropies` computed in NumPy, with no numba start-up (about 0.4 s per process).

    The values are bit for bit those of the numba kernels: the same mixed-radix keys
    (re-ranked in order before they could overflow), the counts in increasing key order,
    ``c log c`` from ``math.log`` (the C library's log, as numba's; NumPy's own log can
    differ in the last bit) and summed one after the other. The BIC engine uses it: a
    greedy search over 20 discrete variables needs about 2,000 entropies, fewer than
    numba's start-up is worth.
    """

    def __init__(self, X: np.ndarray) -> None:
        super().__init__(X)
        self._clogc = np.full(self.n + 1, np.nan)  # c log c, filled for the counts met
        self._clogc[0] = 0.0
        self._log_n = math.log(self.n)
        self._rows = np.ascontiguousarray(self.codes.T)  # one contiguous row per column

    def _entropy(self, cols: Idx) -> float:
        if not cols:
            return 0.0
        rows, cards = self._rows, self.cards
        keys = rows[cols[0]]
        total = int(cards[cols[0]])
        for c in cols[1:]:
            s = int(cards[c])
            if total * s > KEY_RANK_LIMIT:
                u, keys = np.unique(keys, return_inverse=True)
                total = u.size
            keys = keys * s + rows[c]
            total *= s
        if total <= DENSE_COUNT_LIMIT:
            counts = np.bincount(keys, minlength=total)
            counts = counts[counts > 0]
        else:
            counts = np.unique(keys, return_counts=True)[1]
        tab = self._clogc
        todo = counts[np.isnan(tab[counts])]
        if todo.size:
            for c in np.unique(todo).tolist():
                tab[c] = c * math.log(c)
        acc = float(np.cumsum(tab[counts])[-1])  # in order, as the kernels' loop
        return self._log_n - acc / self.n


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


def g_test(ent: DiscreteEntropies, A: Idx, B: Idx, S: Idx) -> float:
    """G-test of A _||_ B | S: G = 2 N I(A; B | S), degrees of freedom summed over the observed
    strata of S as (levels of A - 1)(levels of B - 1) observed in each stratum."""
    from scipy.stats import chi2

    from ._kernels import joint_keys

    stat = 2.0 * ent.n * ent.cmi(A, B, S)
    ka, _ = joint_keys(ent.codes, np.asarray(A, dtype=np.int64), ent.cards)
    kb, _ = joint_keys(ent.codes, np.asarray(B, dtype=np.int64), ent.cards)
    ks, _ = joint_keys(ent.codes, np.asarray(S, dtype=np.int64), ent.cards)
    dof = 0
    for s in np.unique(ks):
        sel = ks == s
        dof += max(np.unique(ka[sel]).size - 1, 0) * max(np.unique(kb[sel]).size - 1, 0)
    if dof == 0:
        return 1.0
    return float(chi2.sf(max(stat, 0.0), dof))


class _LocalOnlyEngine:
    """Engines whose score is the sum of local scores (no structure term) and whose
    v-structure CI test is the G-test (discrete) or the Gaussian partial-correlation test,
    on ``self.ent`` / ``self.S`` (scatter matrix)."""

    n: int
    discrete: bool

    def structure(self, m: int, n_edges: int, n_vars: int | None = None) -> float:
        return 0.0

    def edge_cost(self, m: int) -> float:
        return 0.0

    def ci_pvalue(self, A: Idx, B: Idx, S: Idx, n_perm: int, seed: int) -> float:
        if self.discrete:
            return g_test(self.ent, A, B, S)
        return partial_correlation_pvalue(self.S, self.n, A, B, S)


class BICEngine(_LocalOnlyEngine):
    """Cached BIC local scores, discrete (multinomial) or Gaussian (linear regression).

    A cluster node's local score is the sum over its variables of the variable's
    BIC given all variables of the parent clusters (the variables of one cluster
    are modelled as independent given the parents). Formulas follow pgmpy 1.1's
    ``BIC`` and ``BICGauss`` exactly, so scores are comparable with pgmpy's:

    - discrete: ``-N H(X | P) - (log N / 2) (s_X - 1) prod_{k in P} s_k`` with plug-in
      entropies and observed alphabet sizes;
    - Gaussian: ``-N/2 (log(2 pi RSS/N) + 1) - (|P| + 2)/2 log N`` (OLS with intercept).
    """

    def __init__(self, X: np.ndarray, discrete: bool) -> None:
        self.n, self.d = X.shape
        self.discrete = discrete
        self.log_n = math.log(self.n)
        if discrete:
            self.ent = NumpyEntropies(X)
            self.cards = self.ent.cards.astype(float)
        else:
            Xc = X - X.mean(axis=0)
            self.S = Xc.T @ Xc  # scatter matrix: RSS of any regression comes from it
        self._var: dict[tuple[int, Idx], float] = {}

    def var_score(self, i: int, P: Idx) -> float:
        key = (i, P)
        v = self._var.get(key)
        if v is None:
            n = self.n
            if self.discrete:
                h = self.ent.H(tuple(sorted((i,) + P))) - (self.ent.H(P) if P else 0.0)
                q = float(np.prod(self.cards[list(P)])) if P else 1.0
                v = -n * h - 0.5 * self.log_n * (self.cards[i] - 1.0) * q
            else:
                rss = self.S[i, i]
                if P:
                    p = list(P)
                    Spp = self.S[p][:, p]
                    b = self.S[p, i]
                    try:
                        coef = np.linalg.solve(Spp, b)
                    except np.linalg.LinAlgError:  # collinear parents: least squares
                        coef = np.linalg.lstsq(Spp, b, rcond=None)[0]
                    rss = rss - b @ coef
                rss = max(rss, 1e-300)
                v = -0.5 * n * (math.log(2.0 * math.pi * rss / n) + 1.0) - 0.5 * (len(P) + 2) * self.log_n
            self._var[key] = v
        return v

    def local(self, C: Idx, P: Idx) -> float:
        if len(C) == 1:
            return self.var_score(C[0], P)
        return sum(self.var_score(i, P) for i in C)


def partial_correlation_pvalue(S: np.ndarray, n: int, A: Idx, B: Idx, C: Idx) -> float:
    """Gaussian CI test between sets: log-likelihood ratio -n log(det terms), chi-square |A||B| dof."""
    from scipy.stats import chi2

    def logdet(idx: Sequence[int]) -> float:
        if not idx:
            return 0.0
        return float(np.linalg.slogdet(S[np.ix_(list(idx), list(idx))] / n)[1])

    a, b, c = list(A), list(B), list(C)
    cmi = 0.5 * (logdet(a + c) + logdet(b + c) - logdet(a + b + c) - logdet(c))
    return float(chi2.sf(max(2.0 * n * cmi, 0.0), len(a) * len(b)))


class GenericEngine(_LocalOnlyEngine):
    """Adapter for any other :class:`~framework.roles.DecomposableScorer`: local scores through
    its public ``local_score``."""

    def __init__(self, scorer, data) -> None:
        self.scorer, self.data = scorer, data
        self.names = list(data.names)
        self._local: dict[tuple[Idx, Idx], float] = {}
        self.discrete = data.is_discrete
        self.n = data.n_samples

    @cached_property
    def ent(self) -> DiscreteEntropies:
        """Plug-in entropies, built on the first CI test."""
        return DiscreteEntropies(np.asarray(self.data.X))

    @cached_property
    def S(self) -> np.ndarray:
        """Scatter matrix, built on the first CI test."""
        Xc = np.asarray(self.data.X) - np.asarray(self.data.X).mean(axis=0)
        return Xc.T @ Xc

    def local(self, C: Idx, P: Idx) -> float:
        key = (C, P)
        v = self._local.get(key)
        if v is None:
            cl = frozenset(self.names[i] for i in C)
            pa = [frozenset([self.names[i]]) for i in P]
            v = float(self.scorer.local_score(self.data, cl, pa))
            self._local[key] = v
        return v
