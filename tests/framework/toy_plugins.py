"""Small plugins for framework tests; loaded with MACROCAUSE_PLUGINS=toy_plugins
(with this folder on PYTHONPATH) or registered into the `plugin_registry` fixture."""

from __future__ import annotations

import time

import numpy as np
from pydantic import Field

from macrocause.framework import (
    CausalGraph,
    Dataset,
    DataSource,
    Evaluation,
    Evaluator,
    Params,
    Partition,
    Partitioner,
    Searcher,
    hookimpl,
)


class ToySourceParams(Params):
    n: int = Field(40, ge=4)
    seed: int = 0
    sleep: float = Field(0.0, ge=0)


class ToySource(DataSource):
    """Two variables; a sample is in group 1 when a > 0; b copies a with noise."""

    name = "toy_source"
    Params = ToySourceParams

    def _load(self):
        rng = np.random.default_rng(self.params.seed)
        a = rng.standard_normal(self.params.n)
        b = a + 0.1 * rng.standard_normal(self.params.n)
        c = rng.standard_normal(self.params.n)
        truth = Partition((a > 0).astype(int))
        graph = CausalGraph.from_edges(["a", "b", "c"], [("a", "b")])
        time.sleep(self.params.sleep)
        return Dataset(np.column_stack([a, b, c]), names=["a", "b", "c"],
                       truth={"labels": truth, "graph": graph})


class ThresholdParams(Params):
    column: int = Field(0, ge=0)
    sleep: float = Field(0.0, ge=0)


class Threshold(Partitioner):
    """Group samples by the sign of one column."""

    name = "toy_threshold"
    Params = ThresholdParams

    def _partition(self, data):
        time.sleep(self.params.sleep)
        return Partition((data.X[:, self.params.column] > 0).astype(int))


class FirstTwo(Partitioner):
    """Selects the first two variables (a variable partitioner with info['selected'])."""

    name = "toy_select"
    axis = "variables"

    def _partition(self, data):
        labels = [0] * min(2, data.n_variables) + [1] * max(0, data.n_variables - 2)
        return Partition(labels, axis="variables", info={"selected": [0, 1][: data.n_variables]})


class ChainParams(Params):
    seed: int = 0


class Chain(Searcher):
    """Links the variables in data order, one cluster per init cluster if given."""

    name = "toy_chain"
    Params = ChainParams
    uses_init = True

    def _search(self, data, scorer, init):
        clusters = init.cluster_names if init is not None else [[v] for v in data.names]
        return CausalGraph(clusters, [(i, i + 1) for i in range(len(clusters) - 1)])


class Agreement(Evaluator):
    """Fraction of samples whose label equals the truth's."""

    name = "toy_agreement"
    needs_truth = True

    def _evaluate(self, data, result, truth):
        return Evaluation(float(np.mean(result.labels == truth.labels)))


class EdgeCount(Evaluator):
    """Number of directed edges of a graph."""

    name = "toy_edges"
    accepts = ("graph",)

    def _evaluate(self, data, result, truth):
        return Evaluation(float(len(result.directed)))


@hookimpl
def macrocause_register_plugins(register):
    for cls in (Threshold, FirstTwo, Chain, Agreement, EdgeCount):
        register(cls)


@hookimpl
def macrocause_register_data_sources(register):
    register(ToySource)
