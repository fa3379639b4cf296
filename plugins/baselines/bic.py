"""The ``bic`` scorer: the Bayesian Information Criterion of a DAG or cluster DAG, and its engine."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import Dataset, Params
from macrocause.framework.entropy import NumpyEntropies
from macrocause.framework.score_engine import EngineScorer, LocalOnlyEngine

Idx = tuple[int, ...]


class BICEngine(LocalOnlyEngine):
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
        self._adds: dict[tuple[int, Idx], np.ndarray] = {}
        self._kernel_scores: tuple | None = None  # the numba climb's scores and caches (climb)
        self.bounded_adds = True  # the numba climb counts an add move only when its gain bound can matter

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

    def add_scores(self, i: int, P: Idx) -> np.ndarray:
        """The local score of variable *i* given ``P + (a,)`` for every variable a (-inf for a = i
        and a in P), cached per (i, P): a climb's row of add moves. Discrete entropies are counted
        for all candidates together (:meth:`NumpyEntropies.H_plus`)."""
        key = (i, P)
        row = self._adds.get(key)
        if row is None:
            cands = [a for a in range(self.d) if a != i and a not in P]
            row = np.full(self.d, -np.inf)
            if self.discrete and cands and hasattr(self.ent, "H_plus"):
                fam = tuple(sorted(P + (i,)))
                h = self.ent.H_plus(fam, cands) - self.ent.H_plus(P, cands)
                q = (float(np.prod(self.cards[list(P)])) if P else 1.0) * self.cards[cands]
                row[cands] = -self.n * h - 0.5 * self.log_n * (self.cards[i] - 1.0) * q
            else:
                row[cands] = [self.var_score(i, tuple(sorted(P + (a,)))) for a in cands]
            self._adds[key] = row
        return row

    def climb(self, adj: np.ndarray, max_steps: int, tabu_length: int, patience: int,
              rng: np.random.Generator | None) -> tuple[np.ndarray, float] | None:
        """:func:`~macrocause.framework.dag_climb.climb_edges` over a plain DAG of discrete variables
        in one numba kernel (:mod:`._bic_climb_kernels`: the same floats, moves and draws, without
        Python per step); None for Gaussian data, other entropies than NumpyEntropies' or above 128
        variables. Its caches are its own. With ``bounded_adds`` (default) an add move is counted only
        when its gain bound reaches a step's best move: the same moves and draws, floats equal up to
        rounding (:mod:`._bic_climb_kernels`)."""
        from . import _bic_climb_kernels as kern

        if not self.discrete or not isinstance(self.ent, NumpyEntropies) or self.d > kern.MAX_VARIABLES:
            return None
        if self._kernel_scores is None:
            ent = self.ent
            bits = ent.bits() if ent.counts_in_numba else np.zeros((0, 0, 0), np.uint64)
            self._kernel_scores = kern.scores(ent.codes, ent._rows, ent.cards, ent.clogc(), ent.counts_in_numba,
                                               bits, self.bounded_adds)
        return kern.run_climb(self._kernel_scores, adj, max_steps, tabu_length, patience, rng)

    def local(self, C: Idx, P: Idx) -> float:
        if len(C) == 1:
            return self.var_score(C[0], P)
        return sum(self.var_score(i, P) for i in C)


class BICParams(Params):
    kind: Literal["auto", "discrete", "gaussian"] = Field(
        "auto", description="Likelihood: multinomial, linear Gaussian, or auto (discrete when "
        "every column is discrete, else Gaussian)."
    )


class BIC(EngineScorer):
    """Bayesian Information Criterion (discrete or linear Gaussian) of a DAG or cluster DAG.

    For a cluster node, the local score is the sum over its variables of each
    variable's BIC given all variables of the parent clusters. The formulas match
    pgmpy 1.1's ``BIC`` (``-N H(X|P) - (log N/2)(s_X - 1) prod s_P``, observed
    alphabets) and ``BICGauss`` (``-N/2 (log(2 pi RSS/N) + 1) - (|P| + 2)/2 log N``).

    References
    ----------
    Schwarz. Estimating the dimension of a model. Annals of Statistics 6(2), 1978.
    """

    name = "bic"
    Params = BICParams
    paper = "Schwarz, Annals of Statistics 1978"

    def is_discrete(self, data: Dataset) -> bool:
        kind = self.params.kind
        return kind == "discrete" or (kind == "auto" and data.is_discrete)

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=3)

    def _build_engine(self, data: Dataset):
        return BICEngine(data.X, discrete=self.is_discrete(data))
