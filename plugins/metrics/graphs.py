"""Graph metrics as evaluators: structural Hamming distance and edge F1.

Both compare *marks*: for every unordered pair of nodes, a graph has no edge,
``a -> b``, ``b -> a``, ``a - b`` (undirected) or ``a <-> b`` (bidirected), and in a PAG (FCI's
output) ``a o-> b`` or ``a o-o b``: two graphs agree on a pair only when both endpoint marks agree.
They work on DAGs, CPDAGs, PAGs and cluster DAGs, at two levels:

- ``level="variables"``: both graphs are expanded to variable graphs
  (:meth:`CausalGraph.expand`: an edge between clusters becomes an edge between
  every pair of their variables, same mark) and nodes are variables.
- ``level="clusters"``: nodes are the clusters themselves, identified by their
  variable sets; a cluster that the other graph does not have is a node of its
  own, so all its edges count as differences.

Only the variables both graphs share are compared (a macro-variable added by
an ``augment`` step has no ground truth); ``metrics["n_variables"]`` says how many.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from macrocause.framework import CausalGraph, Dataset, Evaluation, Evaluator, Metric, Params
from macrocause.framework.errors import DataValidationError

Mark = tuple  # (a, b) for a -> b, ("-",) undirected, ("<->",) bidirected, ("o->", a, b) a o-> b, ("o-o",)


def edge_marks(graph: CausalGraph, level: str, keep: set[str]) -> dict[frozenset, Mark]:
    """Mark of every adjacent pair of nodes, restricted to the variables in *keep*.

    Nodes are variable names (``level="variables"``) or frozensets of variables
    (``level="clusters"``).
    """
    if level == "variables":
        g = graph if graph.is_singleton else graph.expand()
        key = [next(iter(c)) for c in g.clusters]
    else:
        g = graph
        key = [frozenset(c & keep) for c in g.clusters]
    ok = [bool(k) and (k in keep if level == "variables" else True) for k in key]
    marks: dict[frozenset, Mark] = {}
    for i, j in g.directed:
        if ok[i] and ok[j]:
            marks[frozenset((key[i], key[j]))] = (key[i], key[j])
    for i, j in g.partially_directed:
        if ok[i] and ok[j]:
            marks[frozenset((key[i], key[j]))] = ("o->", key[i], key[j])
    for edges, mark in ((g.undirected, ("-",)), (g.bidirected, ("<->",)), (g.nondirected, ("o-o",))):
        for e in edges:
            i, j = tuple(e)
            if ok[i] and ok[j]:
                marks[frozenset((key[i], key[j]))] = mark
    return marks


class GraphMetricParams(Params):
    level: Literal["variables", "clusters"] = Field(
        "variables",
        description="Compare the expanded variable graphs ('variables') or the cluster structure ('clusters').",
    )


class _GraphMetric(Evaluator):
    accepts = ("graph",)
    needs_truth = True

    def _marks(self, result: CausalGraph, truth) -> tuple[dict, dict, int]:
        if not isinstance(truth, CausalGraph):
            raise DataValidationError(f"{self.name} compares with a true CausalGraph, got {type(truth).__name__}.")
        keep = set(result.variables) & set(truth.variables)
        if not keep:
            raise DataValidationError(
                f"{self.name}: the result and the true graph share no variables "
                f"(result: {result.variables[:5]}..., truth: {truth.variables[:5]}...)."
            )
        level = self.params.level
        return edge_marks(result, level, keep), edge_marks(truth, level, keep), len(keep)


class SHD(_GraphMetric):
    """Structural Hamming distance to the true graph: node pairs whose edge differs (lower is better).

    Every unordered pair of nodes whose mark differs between the two graphs
    counts 1: a missing edge, an extra edge, a reversed edge, and a directed edge
    where the other graph has it undirected or bidirected (or any other mark
    mismatch) each cost 1 (the usual SHD between CPDAGs; a reversal is not
    counted twice). ``metrics`` splits the total into ``missing``, ``extra``,
    ``reversed`` and ``orientation`` (different marks other than a reversal). See the module docstring for
    ``level``.

    References
    ----------
    Tsamardinos, Brown, Aliferis. The max-min hill-climbing Bayesian network
    structure learning algorithm. Machine Learning 65, 2006.
    """

    name = "shd"
    declares = {"shd": Metric.lower(0), "missing": Metric.lower(0), "extra": Metric.lower(0),
                "reversed": Metric.lower(0), "orientation": Metric.lower(0), "n_variables": Metric.descriptive(0)}
    scale_invariant = "column"
    Params = GraphMetricParams
    higher_is_better = False
    paper = "Tsamardinos, Brown, Aliferis, Machine Learning 2006"

    def _evaluate(self, data: Dataset, result: CausalGraph, truth) -> Evaluation:
        est, true, n_vars = self._marks(result, truth)
        counts = {"missing": 0, "extra": 0, "reversed": 0, "orientation": 0}
        for pair in est.keys() | true.keys():
            a, b = est.get(pair), true.get(pair)
            if a == b:
                continue
            if a is None:
                counts["missing"] += 1
            elif b is None:
                counts["extra"] += 1
            elif len(a) == 2 and len(b) == 2:
                counts["reversed"] += 1
            else:
                counts["orientation"] += 1
        total = sum(counts.values())
        return Evaluation(float(total), {**{k: float(v) for k, v in counts.items()}, "n_variables": float(n_vars)})


class EdgeF1Params(GraphMetricParams):
    kind: Literal["directed", "skeleton"] = Field(
        "directed",
        description="'directed': an edge is right only with the same mark (direction, or both "
        "undirected, or both bidirected); 'skeleton': right when the pair is adjacent in both.",
    )


def _prf(tp: int, n_est: int, n_true: int) -> tuple[float, float, float]:
    if n_est == 0 and n_true == 0:
        return 1.0, 1.0, 1.0
    precision = tp / n_est if n_est else 0.0
    recall = tp / n_true if n_true else 0.0
    f1 = 2 * tp / (n_est + n_true)
    return precision, recall, f1


class EdgeF1(_GraphMetric):
    """F1 score of the estimated edges against the true ones (directed or skeleton).

    ``precision = TP / #estimated edges``, ``recall = TP / #true edges``,
    ``F1 = 2 TP / (#estimated + #true)``. With ``kind="directed"`` an estimated
    edge is a true positive only when the true graph has the same mark on that
    pair (same direction, or undirected in both, or bidirected in both); with ``kind="skeleton"`` when
    the pair is adjacent in both. Two empty graphs score 1. ``metrics`` holds
    precision, recall and F1 of both kinds. See the module docstring for ``level``.

    References
    ----------
    Standard edge-level precision/recall, e.g. Tsamardinos, Brown, Aliferis,
    Machine Learning 65, 2006.
    """

    name = "edge_f1"
    declares = {"edge_f1": Metric.higher(0, 1), "*_precision": Metric.higher(0, 1), "*_recall": Metric.higher(0, 1),
                "*_f1": Metric.higher(0, 1), "n_variables": Metric.descriptive(0)}
    scale_invariant = "column"
    Params = EdgeF1Params
    paper = None

    def _evaluate(self, data: Dataset, result: CausalGraph, truth) -> Evaluation:
        est, true, n_vars = self._marks(result, truth)
        adj = est.keys() & true.keys()
        tp = {"directed": sum(est[p] == true[p] for p in adj), "skeleton": len(adj)}
        metrics: dict[str, float] = {"n_variables": float(n_vars)}
        for kind, t in tp.items():
            p, r, f = _prf(t, len(est), len(true))
            metrics.update({f"{kind}_precision": p, f"{kind}_recall": r, f"{kind}_f1": f})
        return Evaluation(metrics[f"{self.params.kind}_f1"], metrics)


class ClusterARI(Evaluator):
    """Cluster recovery: adjusted Rand index of a graph's clustering of the variables against the truth's.

    Over the variables both graphs share, the clusters of the result and of the truth are
    two partitions; the value is their ARI (1 = the same clusters, about 0 = no better than
    chance; a plain DAG, all singletons, scores 0 against any truth with a cluster).
    ``metrics["clusters_found"]`` is the share of the true clusters of two or more variables
    that the result holds exactly. Edges are not compared (see ``shd`` and ``edge_f1``).

    References
    ----------
    Hubert, Arabie. Comparing partitions. J. Classification 2, 1985.
    """

    name = "cluster_ari"
    declares = {"cluster_ari": Metric.higher(-0.5, 1), "clusters_found": Metric.higher(0, 1),
                "n_variables": Metric.descriptive(0)}
    scale_invariant = "column"
    paper = "Hubert & Arabie, J. Classification 1985"
    accepts = ("graph",)
    needs_truth = True

    def _evaluate(self, data: Dataset, result: CausalGraph, truth) -> Evaluation:
        from sklearn.metrics import adjusted_rand_score

        if not isinstance(truth, CausalGraph):
            raise DataValidationError(f"{self.name} compares with a true CausalGraph, got {type(truth).__name__}.")
        keep = sorted(set(result.variables) & set(truth.variables))
        if not keep:
            raise DataValidationError(f"{self.name}: the result and the true graph share no variables.")
        r = [result.cluster_of(v) for v in keep]
        t = [truth.cluster_of(v) for v in keep]
        ours = {frozenset(c) & frozenset(keep) for c in result.clusters}
        multi = [frozenset(c) & frozenset(keep) for c in truth.clusters if len(frozenset(c) & frozenset(keep)) > 1]
        found = sum(c in ours for c in multi) / len(multi) if multi else 1.0
        return Evaluation(float(adjusted_rand_score(t, r)), {"clusters_found": float(found),
                                                              "n_variables": float(len(keep))})
