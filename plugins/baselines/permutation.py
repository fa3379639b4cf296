"""The ``grasp`` and ``boss`` searchers: causal-learn's permutation-based searches (GRaSP, BOSS), driven
through our decomposable scorer (default ``bic``) or run with causal-learn's own scores."""

from __future__ import annotations

import random
from contextlib import contextmanager
from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Params, Scorer, Searcher
from macrocause.framework.score_engine import engine_for


class EngineLocalScore:
    """causal-learn's ``LocalScoreClass`` interface (``data``, ``score``, ``score_nocache``; higher is
    better) over one of our score engines: the local score of variable i given parents PAi."""

    def __init__(self, eng, X: np.ndarray) -> None:
        self.eng, self.data = eng, X

    def score(self, i: int, PAi) -> float:
        return float(self.eng.local((int(i),), tuple(sorted(int(p) for p in PAi))))

    score_nocache = score


@contextmanager
def seeded_python_random(seed: int):
    """causal-learn's permutation searches draw from Python's global ``random``: seed it, restore after."""
    state = random.getstate()
    random.seed(seed)
    try:
        yield
    finally:
        random.setstate(state)


class PermutationParams(Params):
    backend: Literal["macrocause", "causal-learn"] = Field(
        "macrocause", description="'macrocause': causal-learn's search over orders, every local score from our "
        "scorer (default bic: the discrete BIC on categorical data, which causal-learn lacks); 'causal-learn': "
        "its own call with its own score (Gaussian BIC from the covariance, lambda 0.5, or BDeu on discrete data).")
    seed: int = Field(0, description="Seed of the random initial order and shuffles (Python's random).")


class GRaSPParams(PermutationParams):
    depth: int = Field(3, ge=1, description="Largest depth of GRaSP's depth-first search over tucks.")


class _Permutation(Searcher):
    uses_scorer = True
    default_scorer = "bic"
    requires = ("bic",)
    scale_invariant = "column"

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=5, min_variables=2)

    def _run(self, module: str, func: str, data: Dataset, scorer: Scorer | None, **kw) -> CausalGraph:
        """causal-learn's *func* on the columns that vary; constant ones are isolated nodes (warned)."""
        from ._constant import search_varying

        return search_varying(self.name, data, lambda d: self._causallearn(module, func, d, scorer, **kw))

    def _causallearn(self, module: str, func: str, data: Dataset, scorer: Scorer | None, **kw) -> CausalGraph:
        import importlib
        import warnings
        from unittest import mock  # imports asyncio and ssl: only when a search runs

        mod = importlib.import_module(f"causallearn.search.PermutationBased.{module}")
        X = np.asarray(data.X, dtype=float)
        with warnings.catch_warnings(), seeded_python_random(self.params.seed):
            warnings.simplefilter("ignore")
            if self.params.backend == "causal-learn":
                if data.is_discrete:
                    G = getattr(mod, func)(X, score_func="local_score_BDeu", verbose=False, **kw)
                else:
                    G = getattr(mod, func)(X, score_func="local_score_BIC_from_cov",
                                           parameters={"lambda_value": 0.5}, verbose=False, **kw)
            else:
                local = EngineLocalScore(engine_for(scorer, data), X)
                with mock.patch.object(mod, "LocalScoreClass", lambda *a, **k: local):
                    G = getattr(mod, func)(X, score_func="local_score_BDeu", verbose=False, **kw)
        return CausalGraph.from_causallearn(G.graph, data.names)


class GRaSP(_Permutation):
    """Greedy relaxation of the sparsest permutation (causal-learn's ``grasp``): a CPDAG.

    A search over variable orders by tucks (depth-first up to ``depth``), each order's DAG built by
    grow-shrink trees on the local scores; returns the CPDAG of the best order's DAG. Local scores
    come from our scorer (``backend="macrocause"``, default ``bic``) or causal-learn's own. Constant
    columns are isolated nodes, with a warning.

    References
    ----------
    Lam, Andrews, Ramsey. Greedy relaxations of the sparsest permutation algorithm. UAI 2022.
    Zheng et al. Causal-learn: causal discovery in Python. JMLR 25(60), 2024.
    """

    name = "grasp"
    Params = GRaSPParams
    paper = "Lam, Andrews, Ramsey, UAI 2022 (causal-learn)"

    def _search(self, data: Dataset, scorer: Scorer | None, init) -> CausalGraph:
        return self._run("GRaSP", "grasp", data, scorer, depth=self.params.depth)


class BOSS(_Permutation):
    """Best order score search (causal-learn's ``boss``): a CPDAG.

    Moves one variable at a time to its best position in the order (grow-shrink trees for the
    DAG of an order) until no move improves the score; returns the CPDAG of the final order's
    DAG. Local scores come from our scorer (``backend="macrocause"``, default ``bic``) or
    causal-learn's own. Constant columns are isolated nodes, with a warning.

    References
    ----------
    Andrews, Ramsey, Sanchez-Romero, Camchong, Kummerfeld. Fast scalable and accurate discovery of
    DAGs using the best order score search and grow-shrink trees. NeurIPS 2023.
    Zheng et al. Causal-learn: causal discovery in Python. JMLR 25(60), 2024.
    """

    name = "boss"
    Params = PermutationParams
    paper = "Andrews et al., NeurIPS 2023 (causal-learn)"

    def _search(self, data: Dataset, scorer: Scorer | None, init) -> CausalGraph:
        return self._run("BOSS", "boss", data, scorer)
