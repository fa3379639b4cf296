"""Benchmark-only plugins for overhead.yaml: causal-learn's pc and pgmpy's hill climb called directly.

``pc_direct`` and ``hill_climb_direct`` do only what the libraries need (the array or
categorical DataFrame they take, their call, the conversion of their graph to a
CausalGraph that every searcher must return), without the ``pc`` / ``hill_climb``
wrappers' own checks, conflict resolution and CPDAG conversion. Loaded by the grid's
``plugins:`` key; not registered for users.
"""

from __future__ import annotations

import warnings

from pydantic import Field

from macrocause.framework import CausalGraph, Params, Searcher, hookimpl


class DirectPCParams(Params):
    alpha: float = Field(0.01, gt=0, lt=1, description="Significance level.")


class DirectPC(Searcher):
    """causal-learn's pc called on the raw array (chisq on discrete data, fisherz otherwise)."""

    name = "pc_direct"
    Params = DirectPCParams

    def _search(self, data, scorer, init) -> CausalGraph:
        from causallearn.search.ConstraintBased.PC import pc

        X, test = (data.X.astype(int), "chisq") if data.is_discrete else (data.X, "fisherz")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cg = pc(X, alpha=self.params.alpha, indep_test=test, stable=True, show_progress=False)
        return CausalGraph.from_causallearn(cg.G, data.names)


class DirectHillClimb(Searcher):
    """pgmpy's HillClimbSearch (the sorted move order of ``hill_climb``, so the same work), PDAG output."""

    name = "hill_climb_direct"

    def _search(self, data, scorer, init) -> CausalGraph:
        from pgmpy.structure_score import get_scoring_method

        from macrocause.plugins.baselines._pgmpy_hc import OrderedHillClimbSearch

        frame = data.to_pandas(categorical=True)
        score = get_scoring_method("bic-d" if data.is_discrete else "bic-g", frame)
        est = OrderedHillClimbSearch(scoring_method=score, return_type="pdag", show_progress=False)
        return CausalGraph.from_pgmpy(est.fit(frame).causal_graph_, data.names)


@hookimpl
def macrocause_register_plugins(register):
    register(DirectPC)
    register(DirectHillClimb)
