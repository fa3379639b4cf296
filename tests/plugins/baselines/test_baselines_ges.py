"""GES (causal-learn) and the bic_score evaluator: recovery on a collider, score equivalence, DAG extension."""

import numpy as np
import pytest
from test_baselines_search import discrete_collider, gaussian_collider

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.framework.errors import DataValidationError
from macrocause.plugins.baselines.ges import dag_extension


def test_ges_finds_the_collider_gaussian_and_discrete():
    for make in (gaussian_collider, discrete_collider):
        ds, truth = make(n=1000)
        g = registry.create("ges").search(ds)
        assert g.edge_names() == truth.edge_names() and not g.undirected


def test_dag_extension_keeps_the_class():
    names = ["a", "b", "c", "d"]
    # a - b - c: any orientation but a collider at b
    g = dag_extension(CausalGraph(names, undirected=[(0, 1), (1, 2)]))
    assert len(g.directed) == 2 and not {(0, 1), (2, 1)} <= g.directed
    # a -> b - c: b -> c is forced (else a new collider at b)
    assert dag_extension(CausalGraph(names[:3], directed=[(0, 1)], undirected=[(1, 2)])).directed == {(0, 1), (1, 2)}
    # a 4-cycle of undirected edges has no extension without a new v-structure
    with pytest.raises(DataValidationError, match="no consistent DAG extension"):
        dag_extension(CausalGraph(names, undirected=[(0, 1), (1, 2), (2, 3), (3, 0)]))
    # a bidirected edge (pc with uc_priority=1) has no DAG extension either
    with pytest.raises(DataValidationError, match="bidirected"):
        dag_extension(CausalGraph(names, undirected=[(0, 1)], bidirected=[(1, 2)]))


def test_bic_score_is_the_bic_of_any_dag_of_the_class():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(500)
    y = x + rng.standard_normal(500)
    z = y + rng.standard_normal(500)
    ds = Dataset(np.column_stack([x, y, z]), names=["x", "y", "z"])
    chain = CausalGraph.from_edges(ds.names, [("x", "y"), ("y", "z")])
    cpdag = CausalGraph(ds.names, undirected=[(0, 1), (1, 2)])
    bic = registry.create("bic").score(ds, chain)
    ev = registry.create("bic_score").evaluate(ds, cpdag)
    assert ev.value == pytest.approx(bic, rel=1e-12) and ev.metrics["n_edges"] == 2
    # the collider x -> y <- z is another class: a different score
    coll = CausalGraph.from_edges(ds.names, [("x", "y"), ("z", "y")])
    assert registry.create("bic_score").evaluate(ds, coll).value < bic


@pytest.mark.parametrize("seed", [1, 2])
def test_greedy_dag_escapes_the_plain_climb_and_tabu_search_beats_ges_here(seed):
    # stale=0, restarts=0 is the plain climb with pgmpy's moves and tabu list; the defaults (10
    # tie-breaking restarts, then kicks) score above it. Measured on these draws: tabu search
    # (patience 20) with restarts scores above GES; the defaults reach GES within 1 on seed 1
    # (-7207.73 against -7206.93; within 0.05 before the kicks were capped at d = 10 misses in a row,
    # chains='best', tuning round 4) and above it on seed 2.
    ds = registry.load_data("linear_gaussian", n_variables=10, n_samples=500, edge_prob=0.4, seed=seed)
    bic = registry.create("bic_score")
    plain = registry.create("greedy_dag", stale=0, restarts=0, pc_start=False).search(ds, scorer="bic")
    ours = registry.create("greedy_dag").search(ds, scorer="bic")
    tabu = registry.create("greedy_dag", patience=20).search(ds, scorer="bic")
    ges = bic.evaluate(ds, registry.create("ges").search(ds)).value
    assert bic.evaluate(ds, ours).value > bic.evaluate(ds, plain).value + 1
    assert bic.evaluate(ds, tabu).value > ges
    assert bic.evaluate(ds, ours).value > ges - 1.0
