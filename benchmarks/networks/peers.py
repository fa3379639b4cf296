"""Benchmark-only peer ``pyagrum_climb``: pyAgrum's score-based searches (greedy hill climbing or local
search with a tabu list, BIC without prior) on discrete data, loaded by the grids' ``plugins:`` key.

pyAgrum is a benchmark peer, not a dependency of macrocause (``pip install pyagrum``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Params, Searcher, hookimpl
from macrocause.framework.errors import DataValidationError


class PyAgrumClimbParams(Params):
    method: Literal["greedy", "tabu"] = Field(
        "greedy", description="pyAgrum's useGreedyHillClimbing or useLocalSearchWithTabuList.")
    return_type: Literal["dag", "cpdag"] = Field("dag", description="The DAG found or its CPDAG.")
    threads: int = Field(
        0, ge=0, description="pyAgrum's setNumberOfThreads; 0 = its default (every core). On a loaded machine "
        "the default burns several times the CPU of one thread for the same graph.")


class PyAgrumClimb(Searcher):
    """pyAgrum's BNLearner (C++) with the BIC score and no prior: greedy hill climbing or tabu local
    search over DAGs, from the empty graph. Discrete data only (states passed as labels).

    References
    ----------
    Ducamp, Gonzales, Wuillemin. aGrUM/pyAgrum: a toolbox to build models and algorithms for
    probabilistic graphical models in Python. PGM 2020.
    """

    name = "pyagrum_climb"
    Params = PyAgrumClimbParams
    paper = "Ducamp, Gonzales, Wuillemin, PGM 2020"

    def check_data(self, data: Dataset) -> None:
        if not data.is_discrete:
            raise DataValidationError("pyagrum_climb: pyAgrum's BIC needs discrete data.")

    def _search(self, data: Dataset, scorer, init) -> CausalGraph:
        import pandas as pd
        import pyagrum as gum

        X = np.asarray(data.X).astype(np.int64).astype(str)
        learner = gum.BNLearner(pd.DataFrame(np.char.add("s", X), columns=list(data.names)))
        if self.params.threads:
            learner.setNumberOfThreads(self.params.threads)
        learner.useScoreBIC()
        learner.useNoPrior()
        learner.useGreedyHillClimbing() if self.params.method == "greedy" else learner.useLocalSearchWithTabuList()
        dag = learner.learnDAG()
        edges = [(learner.nameFromId(a), learner.nameFromId(b)) for a, b in dag.arcs()]
        dag = CausalGraph.from_edges(list(data.names), edges)
        return dag.cpdag() if self.params.return_type == "cpdag" else dag


@hookimpl
def macrocause_register_plugins(register):
    register(PyAgrumClimb)
