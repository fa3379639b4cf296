"""Evaluators of a whole cluster DAG: is a dependence carried, and does the truth score above the result."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Evaluation, Evaluator, Metric, Params
from macrocause.framework.errors import DataValidationError
from macrocause.framework.roles import Example

from .scorers import PAPER


def _graph(truth: Any, who: str) -> CausalGraph:
    if not isinstance(truth, CausalGraph):
        raise DataValidationError(f"{who} compares with a true CausalGraph, got {type(truth).__name__}.")
    return truth


def carries(graph: CausalGraph, a: str, b: str) -> bool:
    """True when *a* and *b* share a cluster of *graph* or their clusters are adjacent (any mark)."""
    i, j = graph.cluster_of(a), graph.cluster_of(b)
    return i == j or frozenset((i, j)) in graph.skeleton()


class DependenceCarriedParams(Params):
    sources: list[str] | None = Field(
        None, description="Variables whose dependence is checked (e.g. [X1, X2, X3]); None: every true "
        "cluster edge is checked (sources = the parent cluster, target = each variable of the child)."
    )
    target: str | None = Field(None, description="The variable that depends on the sources (with sources).")


class DependenceCarried(Evaluator):
    """Whether the result carries a true dependence: by an edge or by a shared cluster.

    A source variable's dependence on the target is carried when the two share a
    cluster of the result or their clusters are adjacent (either direction, or
    undirected): the cluster DAG then does not claim them independent. With
    ``sources`` and ``target`` the value is 1 when every source is carried, else 0
    (``metrics["share"]``: the share of sources carried; ``metrics["sources_together"]``:
    1 when the sources form exactly one cluster of the result). Without them, every
    edge of the true cluster DAG is checked, and the value is the share of true
    cluster edges whose every (parent, child) variable pair is carried.

    For the CIC scenarios, ``sources: [X1, X2, X3], target: X7`` asks whether X7's
    dependence on the synergistic cluster survives in the result, the point of the
    paper's Section 5.1.

    References
    ----------
    Niu, Li, Li. Learning Cluster Causal Diagrams: An Information-Theoretic Approach. IJCAI 2022.
    """

    name = "dependence_carried"
    declares = {"dependence_carried": Metric.higher(0, 1), "share": Metric.higher(0, 1),
                "sources_together": Metric.higher(0, 1), "n_edges": Metric.descriptive(0)}
    scale_invariant = "column"
    Params = DependenceCarriedParams
    paper = PAPER
    accepts = ("graph",)
    needs_truth = True

    def _evaluate(self, data: Dataset, result: CausalGraph, truth) -> Evaluation:
        truth = _graph(truth, self.name)
        p = self.params
        known = set(result.variables)
        if (p.sources is None) != (p.target is None):
            raise DataValidationError(
                "dependence_carried takes both 'sources' and 'target', or neither. Got only one.")
        if p.sources is not None:
            missing = sorted((set(p.sources) | {p.target}) - known)
            if missing:
                raise DataValidationError(f"dependence_carried: {missing} are not variables of the result.")
            ok = [carries(result, s, p.target) for s in p.sources]
            together = frozenset(p.sources) in {frozenset(c) for c in result.clusters}
            return Evaluation(float(all(ok)), {"share": sum(ok) / len(ok), "sources_together": float(together)})
        edges = [(a, b) for a, b in truth.directed]
        edges += [tuple(e) for e in truth.undirected]
        if not edges:
            return Evaluation(1.0, {"n_edges": 0.0})
        hits = 0
        for a, b in edges:
            pairs = [(x, y) for x in truth.clusters[a] for y in truth.clusters[b] if x in known and y in known]
            hits += bool(pairs) and all(carries(result, x, y) for x, y in pairs)
        return Evaluation(hits / len(edges), {"n_edges": float(len(edges))})


class ScoreGapParams(Params):
    scorer: str = Field("cic", description="Name of the scorer both graphs are scored by.")
    scorer_params: dict[str, Any] = Field(default_factory=dict, description="Parameters of that scorer.")


class ScoreGap(Evaluator):
    """Score of the true graph minus the score of the result, under a scorer (default ``cic``).

    Negative: the scorer prefers the result to the truth, so no search can return the
    truth under that score; positive: the search stopped short of a graph the score
    prefers. ``metrics`` holds both scores (``truth_score``, ``result_score``).
    """

    name = "score_gap"
    declares = {"score_gap": Metric.higher(), "truth_score": Metric.descriptive(),
                "result_score": Metric.descriptive()}
    requires = ("cic",)
    scale_invariant = "column"
    Params = ScoreGapParams
    paper = PAPER
    accepts = ("graph",)
    needs_truth = True

    @classmethod
    def example(cls) -> Example:
        from .simulate import xor_example

        ds = xor_example(n=200, seed=0)
        result = CausalGraph([["X1", "X2", "X3"], ["X4"]], [(0, 1)])
        return Example({}, ds, result=result, truth=ds.truth["graph"])

    def _evaluate(self, data: Dataset, result: CausalGraph, truth) -> Evaluation:
        from macrocause.framework import registry

        truth = _graph(truth, self.name)
        scorer = registry.create(self.params.scorer, **self.params.scorer_params)
        t, r = float(scorer.score(data, truth)), float(scorer.score(data, result))
        return Evaluation(t - r, {"truth_score": t, "result_score": r})
