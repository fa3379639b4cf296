"""Greedy equivalence search (causal-learn's GES) and the BIC of any returned graph as an evaluator."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from macrocause.framework import (
    CausalGraph,
    Dataset,
    Evaluation,
    Evaluator,
    Params,
    Searcher,
    registry,
)
from macrocause.framework.errors import DataValidationError
from macrocause.framework.evaluation import Metric


class GESParams(Params):
    score: Literal["auto", "bic", "bdeu"] = Field(
        "auto", description="Local score: 'bic' (linear Gaussian), 'bdeu' (discrete); 'auto' = bdeu when "
        "every variable is discrete, bic otherwise.")
    max_parents: int | None = Field(None, ge=1, description="Most parents per node; None = no limit.")


class GES(Searcher):
    """Greedy equivalence search over CPDAGs (causal-learn's ges): forward insertions, then deletions.

    Returns the CPDAG. The Gaussian BIC is causal-learn's ``local_score_BIC``
    (penalty ``0.5 log N`` per parameter, as the ``bic`` scorer); discrete data use
    its ``local_score_BDeu`` (causal-learn has no discrete BIC).

    References
    ----------
    Chickering. Optimal structure identification with greedy search. JMLR 3, 2002.
    Zheng et al. Causal-learn: causal discovery in Python. JMLR 25(60), 2024.
    """

    name = "ges"
    scale_invariant = "column"
    Params = GESParams
    paper = "Chickering, JMLR 2002 (causal-learn, Zheng et al. JMLR 2024)"

    def score_for(self, data: Dataset) -> str:
        """The local score used on *data* (resolves ``"auto"``)."""
        s = self.params.score
        return ("bdeu" if data.is_discrete else "bic") if s == "auto" else s

    def check_data(self, data: Dataset) -> None:
        bdeu = self.score_for(data) == "bdeu"
        data.check(self.name, min_samples=5, min_variables=2, reject_constant=not bdeu)  # constant: singular BIC
        if bdeu and not data.is_discrete:
            raise DataValidationError(f"{self.name}: score='bdeu' needs discrete data; use score='bic' or 'auto'.")

    def _search(self, data: Dataset, scorer, init) -> CausalGraph:
        import warnings

        from causallearn.search.ScoreBased.GES import ges

        func = "local_score_BDeu" if self.score_for(data) == "bdeu" else "local_score_BIC"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            record = ges(data.X, score_func=func, maxP=self.params.max_parents)
        return CausalGraph.from_causallearn(record["G"].graph, data.names)


def dag_extension(graph: CausalGraph) -> CausalGraph:
    """A DAG of the class of a CPDAG / PDAG: orient its undirected edges without new v-structures or cycles.

    Dor and Tarsi's algorithm: repeatedly take a node with no outgoing directed
    edge whose undirected neighbours are adjacent to all its other neighbours,
    point its undirected edges into it and remove it.

    References
    ----------
    Dor, Tarsi. A simple algorithm to construct a consistent extension of a partially
    oriented graph. Technical Report R-185, UCLA, 1992.
    """
    if graph.bidirected:
        raise DataValidationError(
            f"dag_extension: the graph has {len(graph.bidirected)} bidirected edge(s) (e.g. pc with "
            "uc_priority=1), which no DAG extends; use another uc_priority."
        )
    if not graph.undirected:
        return graph
    left = set(range(graph.n_nodes))
    directed = set(graph.directed)
    undirected = {tuple(e) for e in graph.undirected}
    adj = {i: set() for i in left}
    for a, b in directed | undirected:
        adj[a].add(b)
        adj[b].add(a)
    und = {i: set() for i in left}
    for a, b in undirected:
        und[a].add(b)
        und[b].add(a)
    out = {i: {b for a, b in directed if a == i} for i in left}
    oriented = set(directed)
    while left:
        for x in sorted(left):
            if out[x] & left:
                continue
            nx_ = adj[x] & left
            if all(nx_ - {y} <= adj[y] for y in und[x] & left):
                oriented |= {(y, x) for y in und[x] & left}
                left.discard(x)
                break
        else:
            raise DataValidationError("dag_extension: the partially directed graph has no consistent DAG "
                                      "extension (its orientations conflict).")
    return CausalGraph(graph.clusters, oriented)


class BICScoreParams(Params):
    kind: Literal["auto", "discrete", "gaussian"] = Field(
        "auto", description="Likelihood, as the 'bic' scorer: multinomial, linear Gaussian, or auto.")


class BICScore(Evaluator):
    """BIC of the returned graph on the data (the bic scorer); a CPDAG is scored through one of its DAGs.

    Every DAG of a Markov equivalence class has the same BIC, so a CPDAG (``pc``,
    ``hill_climb``, ``ges``) and a DAG (``greedy_dag``) are rated on one scale: the
    undirected edges are oriented by :func:`dag_extension`. Higher is better; no
    ground truth needed. ``metrics`` adds ``n_edges``.

    References
    ----------
    Schwarz. Estimating the dimension of a model. Annals of Statistics 6(2), 1978.
    """

    name = "bic_score"
    declares = {"bic_score": Metric.higher(), "n_edges": Metric.descriptive(0)}
    requires = ("bic",)
    accepts = ("graph",)
    scale_invariant = "column"
    Params = BICScoreParams
    paper = "Schwarz, Annals of Statistics 1978"

    def _evaluate(self, data: Dataset, result: CausalGraph, truth) -> Evaluation:
        dag = dag_extension(result)
        value = registry.create("bic", kind=self.params.kind).score(data, dag)
        return Evaluation(value, {"n_edges": float(len(dag.directed))})
