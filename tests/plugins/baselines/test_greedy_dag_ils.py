"""greedy_dag's iterated local search: never below its first climb, deterministic, acyclic kicks, and at
least pgmpy's HillClimbSearch BIC on bnlearn networks."""

import numpy as np
import pytest

from macrocause.framework import CausalGraph, registry
from macrocause.framework.dag_climb import closure
from macrocause.framework.errors import ConfigError
from macrocause.plugins.baselines.greedy import kick


def test_kicks_keep_the_graph_acyclic_and_make_moves():
    rng = np.random.default_rng(0)
    adj = np.zeros((8, 8), dtype=bool)
    for _ in range(200):
        new = kick(adj, int(rng.integers(1, 6)), rng)
        assert not np.diag(closure(new)).any()
        adj = new
    assert adj.sum() > 0


@pytest.mark.parametrize("m", [2, 3, 9, 70])
def test_kick_kernel_makes_the_python_kicks_moves_from_the_same_draws(m):
    # the numba kick draws NumPy's rng.choice(m, 2, replace=False) and rng.random() itself: the same
    # graphs, and the generator left in the same state, over 300 kicks of 1-10 moves
    py, nb = np.random.default_rng(m), np.random.default_rng(m)
    adj = np.zeros((m, m), dtype=bool)
    edges = []
    for _ in range(300):
        n_moves = int(py.integers(1, 11))
        assert int(nb.integers(1, 11)) == n_moves
        new = kick(adj, n_moves, py)
        assert np.array_equal(kick(adj, n_moves, nb, fast=True), new)
        adj = new
        edges.append(int(adj.sum()))
        assert not np.diag(closure(adj)).any()
    assert py.random() == nb.random()
    assert max(edges) >= min(m - 1, 10) and len(set(edges)) > 1


@pytest.mark.parametrize("seed", [0, 1])
def test_kicks_never_lower_the_first_climb_and_are_deterministic(seed):
    ds = registry.load_data("bnlearn", network="sachs", n_samples=2000, seed=seed)
    bic = registry.create("bic")
    plain = registry.create("greedy_dag", stale=0, restarts=0, pc_start=False).run(ds, bic)
    ils = registry.create("greedy_dag", stale=20, stale_per_variable=None, restarts=0, pc_start=False,
                          seed=seed).run(ds, bic)
    again = registry.create("greedy_dag", stale=20, stale_per_variable=None, restarts=0, pc_start=False,
                            seed=seed).run(ds, bic)
    assert ils["score"] >= plain["score"] - 1e-9
    assert ils["climb_scores"][0] == plain["score"] and len(ils["kick_scores"]) >= 20
    assert ils["graph"] == again["graph"] and ils["score"] == again["score"]
    assert ils["score"] == pytest.approx(bic.score(ds, ils["graph"]))


def test_kicks_stop_after_stale_per_variable_times_d_misses():
    ds = registry.load_data("bnlearn", network="sachs", n_samples=2000, seed=0)  # d = 11
    for per, want in [(1, 11), (2, 22), (None, 30)]:
        res = registry.create("greedy_dag", stale=30, stale_per_variable=per, pc_start=False).run(
            ds, registry.create("bic"))
        kicks, best, misses = res["kick_scores"], max(res["climb_scores"]), 0
        for s in kicks:
            misses = 0 if s > best + 1e-9 else misses + 1
            best = max(best, s)
        assert misses == want and len(kicks) >= want


def test_pc_start_never_below_pcs_dag_extension():
    from macrocause.plugins.baselines.ges import dag_extension

    ds = registry.load_data("bnlearn", network="alarm", n_samples=5000, seed=100)
    res = registry.create("greedy_dag", seed=100).run(ds, registry.create("bic"))
    pc_dag = dag_extension(registry.create("pc").search(ds))
    assert res["score"] >= res["pc_start_score"] - 1e-9
    assert res["pc_start_score"] >= registry.create("bic").score(ds, pc_dag) - 1e-6


def test_return_type_cpdag_is_the_class_of_the_dag():
    ds = registry.load_data("bnlearn", network="asia", n_samples=2000, seed=0)
    dag = registry.create("greedy_dag", stale=5).search(ds, scorer="bic")
    cp = registry.create("greedy_dag", stale=5, return_type="cpdag").search(ds, scorer="bic")
    assert cp == dag.cpdag()


@pytest.mark.parametrize("network", ["asia", "sachs", "child"])
def test_defaults_reach_at_least_pgmpys_hill_climb_bic(network):
    """On report seed 0, N = 5,000 (docs/networks.md has the whole table)."""
    ds = registry.load_data("bnlearn", network=network, n_samples=5000, seed=0)
    rate = registry.create("bic_score")
    ours = rate.evaluate(ds, registry.create("greedy_dag").search(ds, scorer="bic")).value
    pgmpy = rate.evaluate(ds, registry.create("hill_climb").search(ds)).value
    assert ours >= pgmpy - 1e-6


def test_tabu_walk_escapes_the_empty_graph_of_a_parity():
    """z = x XOR y (10% noise): the three variables are pairwise independent, so every single edge
    lowers the BIC and a plain climb stops at the empty graph; a tabu walk (patience=1) takes one
    worsening move and then the improving second edge into the same node: one of the three best of
    all 25 DAGs on three nodes (brute force), the three v-structures (the noisy parity is symmetric
    in x, y, z, so which of them depends on the sample's noise)."""
    import itertools

    from macrocause.framework import CausalGraph, Dataset

    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 2, 3000), rng.integers(0, 2, 3000)
    z = x ^ y ^ (rng.random(3000) < 0.1)
    names = ["x", "y", "z"]
    ds = Dataset(np.column_stack([x, y, z]), names=names, discrete=True)
    bic = registry.create("bic")
    plain = dict(restarts=0, stale=0, pc_start=False)
    empty = registry.create("greedy_dag", patience=0, **plain).run(ds, bic)
    walk = registry.create("greedy_dag", patience=1, **plain).run(ds, bic)
    pairs = list(itertools.permutations(range(3), 2))
    dags = []
    for mask in range(64):
        adj = np.zeros((3, 3), dtype=bool)
        for i, (a, b) in enumerate(pairs):
            adj[a, b] = bool(mask >> i & 1)
        if not np.diag(closure(adj)).any():
            dags.append(CausalGraph([[v] for v in names], [(a, b) for a, b in pairs if adj[a, b]]))
    assert len(dags) == 25
    ranked = sorted(dags, key=lambda g: -bic.score(ds, g))
    singles = [g for g in dags if len(g.directed) == 1]
    assert empty["graph"] == CausalGraph.from_edges(names, [])  # a local optimum: every single edge scores lower
    assert max(bic.score(ds, g) for g in singles) < empty["score"]
    assert all(len({b for _, b in g.directed}) == 1 and len(g.directed) == 2 for g in ranked[:3])  # v-structures
    assert walk["graph"] in ranked[:3] and walk["score"] == pytest.approx(bic.score(ds, walk["graph"]))
    assert walk["score"] > empty["score"] + 100


@pytest.mark.parametrize("max_k", [0, 1])
def test_pc_max_k_starts_from_pcs_dag_with_that_bound(max_k):
    """pc_start with pc_max_k climbs from the DAG extension of pc(max_k=...): its score is that climb's."""
    from macrocause.framework.dag_climb import climb_edges
    from macrocause.framework.score_engine import engine_for
    from macrocause.plugins.baselines.ges import dag_extension

    ds = registry.load_data("bnlearn", network="asia", n_samples=2000, seed=1)
    bic = registry.create("bic")
    search = registry.create("greedy_dag", pc_max_k=max_k, pc_skeleton="complete", restarts=0, stale=0)
    res = search.run(ds, bic)
    names = list(ds.names)
    adj = np.zeros((8, 8), dtype=bool)
    for a, b in dag_extension(registry.create("pc", max_k=max_k).search(ds)).edge_names():
        adj[names.index(a), names.index(b)] = True
    _, want = climb_edges(engine_for(bic, ds), [(i,) for i in range(8)], adj, 10_000, 100, search.params.patience)
    assert res["pc_start_score"] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("bad", [-1, 1.5, "two"])
def test_pc_max_k_rejects_what_is_not_a_count(bad):
    """pc_max_k is None or an integer >= 0: anything else is a one-line error that names it."""
    with pytest.raises(ConfigError, match="pc_max_k") as err:
        registry.create("greedy_dag", pc_max_k=bad)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("bound", ["moral", "union"])
def test_pc_skeleton_bounds_pc_by_the_climbs_moral_graphs(bound):
    """pc_skeleton='moral' gives pc the moral graph of the best climb from the start, 'union' the union
    of every climb's moral graph; the start then climbs from pc's DAG within that bound."""
    from macrocause.framework.dag_climb import climb_edges
    from macrocause.framework.score_engine import engine_for
    from macrocause.plugins.baselines._pc import moral_start
    from macrocause.plugins.baselines.ges import dag_extension

    ds = registry.load_data("bnlearn", network="sachs", n_samples=1000, seed=1)
    bic = registry.create("bic")
    names = list(ds.names)
    eng, clusters = engine_for(bic, ds), [(i,) for i in range(11)]
    first, _ = climb_edges(eng, clusters, np.zeros((11, 11), bool), 10_000, 100, 2)
    want = moral_start(first)
    if bound == "union":  # the restarts' climbs, with the seed's tie-breaking, as greedy_dag runs them
        rng = np.random.default_rng(0)
        for _ in range(2):
            want |= moral_start(climb_edges(eng, clusters, np.zeros((11, 11), bool), 10_000, 100, 2, rng)[0])
    res = registry.create("greedy_dag", pc_skeleton=bound, restarts=0 if bound == "moral" else 2,
                          stale=0, pc_max_k=None).run(ds, bic)
    pc = registry.create("pc").search(ds, init=CausalGraph([[v] for v in names],
                                                           undirected=zip(*np.nonzero(np.triu(want)))))
    assert {frozenset(e) for e in pc.skeleton()} <= {frozenset(e) for e in zip(*np.nonzero(want))}
    adj = np.zeros((11, 11), dtype=bool)
    for a, b in dag_extension(pc).edge_names():
        adj[names.index(a), names.index(b)] = True
    _, score = climb_edges(eng, clusters, adj, 10_000, 100, 2)
    assert res["pc_start_score"] == pytest.approx(score, abs=1e-9)
    full = registry.create("greedy_dag", pc_skeleton="complete", restarts=0, stale=0, pc_max_k=None).run(
        ds, bic)["pc_start_score"]
    assert abs(full - score) > 1.0  # the bound changed pc's graph (here it climbs higher)


def test_pc_fallback_orients_pcs_skeleton_along_the_climb(monkeypatch):
    """When pc's CPDAG admits no DAG, pc_fallback climbs from pc's skeleton oriented along the best
    climb's topological order (without it, pc's start is skipped)."""
    import macrocause.plugins.baselines.ges as ges
    from macrocause.framework.errors import DataValidationError
    from macrocause.plugins.baselines.greedy import GreedyDAG

    ds = registry.load_data("bnlearn", network="sachs", n_samples=1000, seed=1)
    pc = registry.create("pc").search(ds)

    def no_extension(graph):
        raise DataValidationError("dag_extension: no consistent DAG extension")

    monkeypatch.setattr(ges, "dag_extension", no_extension)
    order = np.zeros((11, 11), bool)
    order[np.triu_indices(11, 1)] = True
    order = order.T  # a DAG: i -> j for every i > j (topological order 10, 9, ..., 0)
    assert GreedyDAG._pc_dag(ds) is None
    adj = GreedyDAG._pc_dag(ds, order_of=order)
    names = list(ds.names)
    got = {frozenset((names[a], names[b])) for a, b in zip(*np.nonzero(adj))}
    assert got == {frozenset(pc.label(v) for v in e) for e in pc.skeleton()}
    assert all(a > b for a, b in zip(*np.nonzero(adj)))  # along the order: from the larger index
    res = registry.create("greedy_dag", pc_fallback=True, restarts=0, stale=0).run(ds, registry.create("bic"))
    assert res["pc_start_score"] is not None
    assert registry.create("greedy_dag", restarts=0, stale=0).run(ds, registry.create("bic"))["pc_start_score"] is None
