"""The ``direct_lingam`` searcher: DirectLiNGAM (the ``lingam`` package) for linear non-Gaussian data."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Params, Searcher


class DirectLiNGAMParams(Params):
    measure: Literal["pwling", "kernel", "pwling_fast"] = Field(
        "pwling", description="Independence measure of the causal-order search (lingam's 'measure').")
    threshold: float = Field(
        0.0, ge=0, description="Drop edges whose absolute estimated coefficient is at most this (0 = keep every "
        "non-zero coefficient of lingam's adaptive-lasso pruning).")
    seed: int = Field(0, description="random_state of lingam's DirectLiNGAM.")


class DirectLiNGAM(Searcher):
    """DirectLiNGAM (the ``lingam`` package): a DAG from linear non-Gaussian data.

    Finds exogenous variables one after another (the ``lingam`` package's ``DirectLiNGAM``);
    edges are pruned by adaptive lasso.

    The causal order is identifiable only when the noise is non-Gaussian; on Gaussian data the
    order is arbitrary. After a search ``last_info`` holds ``causal_order`` (variable names) and
    ``adjacency`` (``B[i, j]``: the coefficient of x_j in x_i's equation, lingam's convention).

    References
    ----------
    Shimizu et al. DirectLiNGAM: a direct method for learning a linear non-Gaussian structural
    equation model. JMLR 12, 2011.
    """

    name = "direct_lingam"
    Params = DirectLiNGAMParams
    paper = "Shimizu et al., JMLR 2011"

    def __init__(self, **params) -> None:
        super().__init__(**params)
        self.last_info: dict = {}

    def check_data(self, data: Dataset) -> None:
        data.check(self.name, min_samples=5, min_variables=2, reject_constant=True)

    def _search(self, data: Dataset, scorer, init) -> CausalGraph:
        from lingam import DirectLiNGAM as _Lingam

        model = _Lingam(random_state=self.params.seed, measure=self.params.measure)
        model.fit(np.asarray(data.X, dtype=float))
        B = np.asarray(model.adjacency_matrix_)
        names = list(data.names)
        edges = [(names[j], names[i]) for i, j in zip(*np.nonzero(np.abs(B) > self.params.threshold))]
        self.last_info = {"causal_order": [names[k] for k in model.causal_order_], "adjacency": B}
        return CausalGraph.from_edges(names, edges)
