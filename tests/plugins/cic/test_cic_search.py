"""Decomposability, acyclicity and determinism of the cluster-DAG search; data sources."""

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Partition, registry
from macrocause.framework.dag_climb import climb_edges, is_acyclic, parent_vars
from macrocause.plugins.cic._climb import cluster_neighbours, sample_clustering, sample_edges
from macrocause.plugins.cic.search import to_graph
from macrocause.plugins.cic.simulate import random_cluster_dag, scenario, xor_example


@pytest.fixture(scope="module")
def data():
    return scenario(1, n=500, seed=3)


def test_local_move_delta_equals_full_rescoring(data):
    cic = registry.create("cic", fit_factor="N")  # Eq. 6's engine: local scores over flat parent sets
    eng = cic.engine(data)
    rng = np.random.default_rng(0)
    for _ in range(5):
        clusters = [tuple(c) for c in _clusters(sample_clustering(8, 5, rng))]
        adj = sample_edges(len(clusters), 0.5, rng)
        base = cic.score(data, to_graph(data.names, clusters, adj))
        m = len(clusters)
        for a in range(m):
            for b in range(m):
                if a == b:
                    continue
                new = adj.copy()
                if adj[a, b]:
                    new[a, b] = False
                elif not adj[b, a]:
                    new[a, b] = True
                else:
                    continue
                if not is_acyclic(new):
                    continue
                delta = eng.local(clusters[b], parent_vars(clusters, new, b))
                delta -= eng.local(clusters[b], parent_vars(clusters, adj, b))
                delta += eng.structure(m, int(new.sum())) - eng.structure(m, int(adj.sum()))
                full = cic.score(data, to_graph(data.names, clusters, new))
                assert delta == pytest.approx(full - base, abs=1e-8)


def _clusters(labels):
    return [np.flatnonzero(labels == c).tolist() for c in np.unique(labels)]


def test_climb_score_is_the_full_score_and_acyclic(data):
    cic = registry.create("cic", fit_factor="N")  # the climb shared with greedy_dag: flat parent sets
    eng = cic.engine(data)
    rng = np.random.default_rng(1)
    for _ in range(20):
        clusters = [tuple(c) for c in _clusters(sample_clustering(8, 8, rng))]
        adj0 = sample_edges(len(clusters), 0.5, rng)
        assert is_acyclic(adj0)
        adj, score = climb_edges(eng, clusters, adj0, 1000)
        assert is_acyclic(adj)
        g = to_graph(data.names, clusters, adj)  # CausalGraph itself rejects cycles
        assert score == pytest.approx(cic.score(data, g))
        assert score >= cic.score(data, to_graph(data.names, clusters, adj0)) - 1e-9
        for cl, A in cluster_neighbours(clusters, adj):
            assert is_acyclic(A)
            assert sorted(v for c in cl for v in c) == list(range(8))


def test_search_deterministic_and_backend_independent(data):
    s = registry.create("cic_greedy", restarts=12, seed=5)
    a = s.run(data, registry.create("cic"))
    b = s.run(data, registry.create("cic"))
    assert a["graph"] == b["graph"] and a["restart_scores"] == b["restart_scores"]
    c = s.with_params(n_jobs=2).run(data, registry.create("cic"))
    assert c["graph"] == a["graph"] and c["restart_scores"] == a["restart_scores"]
    assert a["score"] == max(a["restart_scores"])
    other = s.with_params(seed=6).run(data, registry.create("cic"))
    assert other["restart_scores"] != a["restart_scores"]


def test_search_by_name_and_init_partition(data):
    g = registry.create("cic_greedy", restarts=3).search(data, scorer="cic")
    assert isinstance(g, CausalGraph) and sorted(g.variables) == sorted(data.names)
    init = Partition([0, 0, 0, 1, 1, 1, 2, 2], axis="variables")
    g = registry.create("cic_greedy", restarts=3, cluster_moves=False).search(data, scorer="cic", init=init)
    assert sorted(sorted(c) for c in g.clusters) == [["X1", "X2", "X3"], ["X4", "X5", "X6"], ["X7", "X8"]]


def test_cluster_moves_never_lower_the_score(data):
    cic = registry.create("cic")
    plain = registry.create("cic_greedy", restarts=5, vstructures=False).run(data, cic)
    moved = registry.create("cic_greedy", restarts=5, vstructures=False, cluster_moves=True).run(data, cic)
    assert all(m >= p - 1e-9 for m, p in zip(moved["restart_scores"], plain["restart_scores"]))


def test_greedy_dag_bic_recovers_gaussian_chain_skeleton():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(2000)
    b = a + 0.5 * rng.standard_normal(2000)
    c = b + 0.5 * rng.standard_normal(2000)
    d = rng.standard_normal(2000)
    X = np.column_stack([a, b, c, d])
    g = registry.create("greedy_dag").search(X, scorer="bic")
    assert {frozenset(g.label(i) for i in e) for e in g.skeleton()} == {
        frozenset({"x0", "x1"}), frozenset({"x1", "x2"})}


def test_data_sources_ship_truth():
    for ds in (scenario(2, n=200), xor_example(n=200), random_cluster_dag(3, 3, "majority", n=200)):
        g = ds.truth["graph"]
        assert isinstance(g, CausalGraph) and sorted(g.variables) == sorted(ds.names)
        assert ds.is_discrete and set(np.unique(ds.X)) <= {0.0, 1.0}
    ds = xor_example(n=20000, delta=0.0, gamma=0.0, seed=1)
    x = ds.X.astype(int)
    assert np.array_equal(x[:, 2], x[:, 0] ^ x[:, 1]) and np.array_equal(x[:, 3], x[:, 2])
    assert abs(np.corrcoef(x[:, 0], x[:, 2])[0, 1]) < 0.03  # pairwise independent: unfaithful DAG
    ds = registry.create("cic_scenario", scenario=3, n=300).load()
    assert ds.n_samples == 300 and ds.names[-1] == "X8"


def test_greedy_dag_rejects_a_variable_partition_init_before_any_compute():
    """greedy_dag declares init_accepts = ("graph",): a pipeline giving it a variable partition fails
    at validation, before data is loaded or any step runs."""
    from macrocause.framework import PipelineError
    from macrocause.framework.pipeline import Pipeline

    with pytest.raises(PipelineError, match="greedy_dag takes as 'init' a graph, but 'groups' gives a "
                                            "partition of variables"):
        Pipeline.from_yaml("data: {source: cic_scenario, params: {n: 50}}\nsteps:\n"
                           "  - {id: groups, partition: correlation_clusters}\n"
                           "  - {id: g, search: greedy_dag, init: groups}\n")
    # cic_greedy takes both; a sample partition is refused for both
    Pipeline.from_yaml("steps:\n  - {id: groups, partition: correlation_clusters}\n"
                       "  - {id: g, search: cic_greedy, init: groups}\n")
    with pytest.raises(PipelineError, match="'init: km' must partition variables, but kmeans partitions samples"):
        Pipeline.from_yaml("steps:\n  - {id: km, partition: kmeans}\n  - {id: g, search: cic_greedy, init: km}\n")
