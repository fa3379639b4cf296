"""Family engines of the ``cic`` scorer: a cluster's score given its parent clusters, by a consistent
penalised likelihood (``criterion="family"``, the default, and ``criterion="bic"``).

``family(C, parents)`` is the score of cluster C (a sorted tuple of variable indices) given its
parent clusters (a tuple of such tuples), relative to the model in which every variable is
independent (a constant across structures); ``structure(m, n_edges)`` is the code length of the
partition and of the parent lists. A graph's score is ``sum(family) + structure``.

Why not a table per family: a cluster of c binary variables with parents holding p variables has a
joint state table of (2^c - 1) 2^p parameters. Families of 15-20 binary variables (a cluster of 5
with two parents of 5) have more cells than N = 2,000-8,000 samples, so a consistently penalised
table likelihood prefers coarser structures at these N (the previous session's diagnosis, issue 28).
The ``family`` model describes a cluster by one binary summary of its parents and of itself:

- the cluster's own state enters through its parity ``chi_C = prod_{i in C} (-1)^{x_i}``;
- each parent cluster enters through one binary feature, its parity or its majority (chosen per
  family, log 2 nats each), and ``P(chi_C = +1 | parents)`` is a table over the 2^k joint feature
  states of the k parent clusters (2^k parameters, counted whole also for a single variable, one of
  whose cells repeats its margin: a single variable read from a parity group then costs more than
  joining it, as the identifiable grouping counts it); every other aspect of ``x_C`` is as under
  independence (an exponential tilt of the product of the margins along ``chi_C``);
- the family also may take a full joint table of C given its parents' variables (the ``bic``
  criterion's model), or no dependence at all: the best of the three codes is the family's score
  (MDL: the choice of code costs log 3 nats, the same for every family, so it is left out).

Every penalty is the BIC's (log N)/2 per free parameter, so the score is consistent: the
likelihood of a wrong structure falls behind by a term in N, a structure with redundant parameters
by a term in log N. Continuous data: Gaussian-copula likelihood (normal scores of the ranks), with
|C| (|C| - 1) / 2 + |C| |P| parameters.

References
----------
Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022 (the
cluster DAG, Eq. 5's partition and parent-list code lengths).
Schwarz. Estimating the dimension of a model. Annals of Statistics 6(2), 1978.
O'Donnell. Analysis of Boolean Functions. Cambridge University Press, 2014 (parity and majority
as characters and their Fourier weights).
"""

from __future__ import annotations

import math

import numpy as np

from macrocause.framework.entropy import DiscreteEntropies, g_test, partial_correlation_pvalue

from .engine import rank_transform

Idx = tuple[int, ...]
Parents = tuple[Idx, ...]
CACHE_ENTRIES = 100_000  # family scores and entropies kept (each cache)
FEATURE_ENTRIES = 2_048  # cluster features kept (n bytes each)


class BoundedCache(dict):
    """A dict that forgets its oldest entries beyond ``cap`` (the memory guard's bound)."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap

    def __setitem__(self, key, value) -> None:
        if len(self) >= self.cap:
            del self[next(iter(self))]
        super().__setitem__(key, value)


class FamilyEngine:
    """Cached family scores (module docstring). ``criterion``: ``family`` or ``bic`` (tables only).

    Parameters
    ----------
    X : ndarray (n, d)
    discrete : bool
    criterion : "family" or "bic"
    price : float
        Multiplier of the BIC penalty (log N)/2 per parameter (1 = BIC).
    """

    def __init__(self, X: np.ndarray, discrete: bool, criterion: str = "family", price: float = 1.0) -> None:
        self.n, self.d = X.shape
        self.discrete = discrete
        self.criterion = criterion
        self.log_n = math.log(self.n)
        self.half = 0.5 * self.log_n * price
        self._fam: BoundedCache = BoundedCache(CACHE_ENTRIES)
        self._feat: BoundedCache = BoundedCache(FEATURE_ENTRIES)
        if discrete:
            self.ent = DiscreteEntropies(X)
            self.ent._h = BoundedCache(CACHE_ENTRIES)
            self.ent.codes = np.asfortranarray(self.ent.codes)  # column reads contiguous: same values, faster
            self.cards = self.ent.cards.astype(float)
            self.binary = bool(np.all(self.ent.cards <= 2))
            if self.binary:
                self.sgn = np.ascontiguousarray((1 - 2 * self.ent.codes.T).astype(np.int8))
                self.mu = self.sgn.mean(axis=1)
        else:
            Z = rank_transform(X)
            self.R = np.corrcoef(Z, rowvar=False).reshape(self.d, self.d)
            Zc = Z - Z.mean(axis=0)
            self.S = Zc.T @ Zc

    # -- structure ------------------------------------------------------------------------
    def structure(self, m: int, n_edges: int, n_vars: int | None = None) -> float:
        """-((d - m) + 2 |E|) log d: code length of the structure, naming one variable (log d nats) for each
        variable that joins another's cluster and two for each edge (its ends), so that singletons cost
        nothing and, between two descriptions of the same distribution, the one with fewer edges wins
        (a parity over {A, x} is one group, not A -> {x})."""
        d = self.d if n_vars is None else n_vars
        return -((d - m) + 2 * n_edges) * math.log(d)

    def local(self, C: Idx, P: Idx) -> float:
        """The family of C with one parent cluster holding the variables P (for a flat parent set)."""
        return self.family(C, (P,) if P else ())

    # -- families -------------------------------------------------------------------------
    def family(self, C: Idx, parents: Parents) -> float:
        key = (C, parents)
        v = self._fam.get(key)
        if v is None:
            v = self._family(C, parents)
            self._fam[key] = v
        return v

    def _family(self, C: Idx, parents: Parents) -> float:
        P = tuple(sorted(v for p in parents for v in p))
        if not self.discrete:
            return max(0.0, self._gaussian(C, P))
        best = max(0.0, self._table(C, P))
        if self.binary and self.criterion == "family":
            best = max(best, self._tilt(C, parents))
        return best

    def _table(self, C: Idx, P: Idx) -> float:
        """Full joint table of C given the parents' variables: N (sum H(i) - H(C | P)), BIC-penalised."""
        cards = self.cards
        q = float(np.prod(cards[list(P)])) if P else 1.0
        k = float(np.prod(cards[list(C)]))
        params = (k - 1.0) * q - float(np.sum(cards[list(C)] - 1.0))
        if params <= 0:
            return 0.0
        if self.half * params >= self.n * math.log(k):  # the penalty exceeds any possible fit
            return -math.inf
        H = self.ent.H
        cp = tuple(sorted(C + P))
        fit = sum(H((i,)) for i in C) - H(cp) + (H(P) if P else 0.0)
        return self.n * fit - self.half * params

    def feature(self, A: Idx, kind: str) -> np.ndarray:
        """+-1 parity (``par``) or majority (``maj``: -1 when at least half the bits are 1) of cluster A."""
        key = (A, kind)
        f = self._feat.get(key)
        if f is None:
            if kind == "par" or len(A) == 1:
                f = np.prod(self.sgn[list(A)], axis=0, dtype=np.int8) if len(A) > 1 else self.sgn[A[0]]
            else:
                ones = (len(A) - self.sgn[list(A)].sum(axis=0, dtype=np.int64)) // 2
                f = np.where(2 * ones >= len(A), -1, 1).astype(np.int8)
            self._feat[key] = f
        return f

    def _tilt(self, C: Idx, parents: Parents) -> float:
        """The parity tilt of C given a table over its parents' features (module docstring): each parent read
        through its parity or, with two or more variables, its majority (``tilt_best`` chooses)."""
        from ._kernels import tilt_best

        k = len(parents)
        params = 2.0 ** k
        if self.half * params >= self.n * math.log(2.0):
            return -math.inf
        mu = float(np.prod(self.mu[list(C)]))
        q1 = min(max(0.5 * (1.0 - mu), 1e-12), 1.0 - 1e-12)  # base probability of odd parity
        rows = [self.feature(A, "par") for A in parents]  # rows of B: the parents' parities, then majorities
        second = np.full(k, -1, dtype=np.int64)
        for j, A in enumerate(parents):
            if len(A) > 1:
                second[j] = len(rows)
                rows.append(self.feature(A, "maj"))
        B = np.stack(rows) if rows else np.zeros((0, self.n), np.int8)
        gain = tilt_best(self.feature(C, "par"), B, second, q1)
        return gain - self.half * params - math.log(2.0) * int((second >= 0).sum())

    def _gaussian(self, C: Idx, P: Idx) -> float:
        """Gaussian copula: N (TC(C) + I(C; P)) - (log N / 2) (|C|(|C|-1)/2 + |C||P|)."""
        def logdet(idx: Idx) -> float:
            return float(np.linalg.slogdet(self.R[np.ix_(idx, idx)])[1]) if len(idx) > 1 else 0.0

        cp = tuple(sorted(C + P))
        fit = -0.5 * logdet(cp) + (0.5 * logdet(P) if P else 0.0)  # TC(C) + I(C; P)
        params = len(C) * (len(C) - 1) / 2 + len(C) * len(P)
        return self.n * fit - self.half * params

    # -- CI test between clusters (the v-structure step) --------------------------------------
    def ci_pvalue(self, A: Idx, B: Idx, S: Idx, n_perm: int, seed: int) -> float:
        if self.discrete:
            return g_test(self.ent, A, B, S)
        return partial_correlation_pvalue(self.S, self.n, A, B, S)
