"""PC and Hill-Climb: conversion of their outputs, colliders, test/score choice, determinism."""

import os
import subprocess
import sys

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.framework.errors import ConfigError, DataValidationError


def gaussian_collider(n=3000, seed=0):
    """x -> z <- y, z -> w: a collider at z (identifiable: x -> z <- y, z -> w all directed)."""
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    z = x + y + 0.5 * rng.standard_normal(n)
    w = z + 0.5 * rng.standard_normal(n)
    names = ["x", "y", "z", "w"]
    truth = CausalGraph.from_edges(names, [("x", "z"), ("y", "z"), ("z", "w")])
    return Dataset(np.column_stack([x, y, z, w]), names=names), truth


def discrete_collider(n=3000, seed=0):
    """Binary x -> z <- y (z = x OR y, 10% flipped), z -> w (10% flipped)."""
    rng = np.random.default_rng(seed)
    flip = lambda v: np.where(rng.random(n) < 0.1, 1 - v, v)  # noqa: E731
    x, y = rng.integers(0, 2, n), rng.integers(0, 2, n)
    z = flip(x | y)
    w = flip(z)
    names = ["x", "y", "z", "w"]
    truth = CausalGraph.from_edges(names, [("x", "z"), ("y", "z"), ("z", "w")])
    return Dataset(np.column_stack([x, y, z, w]), names=names), truth


def test_causallearn_endpoint_matrix_is_read_correctly():
    # causal-learn: i -> j is M[j, i] = 1, M[i, j] = -1; i - j is -1/-1.
    names = ["a", "b", "c"]
    M = np.zeros((3, 3), dtype=int)
    M[0, 2], M[2, 0] = -1, 1  # a -> c
    M[2, 1], M[1, 2] = 1, -1  # b -> c
    g = CausalGraph.from_causallearn(M, names)
    assert g.edge_names() == {("a", "c"), ("b", "c")} and not g.undirected
    M2 = np.zeros((3, 3), dtype=int)
    M2[0, 1] = M2[1, 0] = -1
    assert CausalGraph.from_causallearn(M2, names).undirected_names() == {frozenset("ab")}
    assert np.array_equal(g.to_causallearn_matrix(names), M)


def test_causallearn_generalgraph_collider_roundtrip():
    from causallearn.graph.Edge import Edge
    from causallearn.graph.Endpoint import Endpoint
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode

    nodes = [GraphNode(v) for v in ["a", "b", "c"]]
    G = GeneralGraph(nodes)
    G.add_edge(Edge(nodes[0], nodes[2], Endpoint.TAIL, Endpoint.ARROW))  # a -> c
    G.add_edge(Edge(nodes[1], nodes[2], Endpoint.TAIL, Endpoint.ARROW))  # b -> c
    g = CausalGraph.from_causallearn(G, ["a", "b", "c"])
    assert g.edge_names() == {("a", "c"), ("b", "c")}


def test_pc_orients_gaussian_collider():
    ds, truth = gaussian_collider()
    pc = registry.create("pc", alpha=0.01)
    assert pc.test_for(ds) == "fisherz"
    assert pc.search(ds) == truth


def test_pc_orients_discrete_collider_with_chisq_and_gsq():
    ds, truth = discrete_collider()
    assert registry.create("pc").test_for(ds) == "chisq"
    assert registry.create("pc", alpha=0.01).search(ds) == truth
    assert registry.create("pc", alpha=0.01, indep_test="gsq").search(ds) == truth


def test_pc_prints_nothing(capfd):
    ds, _ = discrete_collider(n=500)
    registry.create("pc").search(ds)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_pc_refuses_discrete_test_on_continuous_data():
    ds, _ = gaussian_collider(n=200)
    with pytest.raises(DataValidationError, match="needs discrete data"):
        registry.create("pc", indep_test="chisq").search(ds)
    with pytest.raises(ConfigError, match="indep_test"):
        registry.create("pc", indep_test="hsic")
    with pytest.raises(ConfigError, match="'alpha' parameter of pc must be < 1"):
        registry.create("pc", alpha=1.5)


def test_pc_kci_finds_nonlinear_dependence_that_fisherz_misses():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 200)
    y = x**2 + 0.05 * rng.standard_normal(200)  # uncorrelated with x, but dependent
    ds = Dataset(np.column_stack([x, y]), names=["x", "y"])
    assert registry.create("pc", indep_test="fisherz").search(ds).skeleton() == set()
    assert registry.create("pc", indep_test="kci").search(ds).skeleton() == {frozenset({0, 1})}


@pytest.mark.parametrize("scoring", ["bic", "bdeu", "k2"])
def test_hill_climb_finds_discrete_collider(scoring):
    rng = np.random.default_rng(0)
    n = 3000
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    c = np.where(rng.random(n) < 0.1, 1 - (a | b), a | b)
    ds = Dataset(np.column_stack([a, b, c]), names=["a", "b", "c"])
    g = registry.create("hill_climb", scoring=scoring).search(ds)
    truth = CausalGraph.from_edges(["a", "b", "c"], [("a", "c"), ("b", "c")])
    if scoring == "k2":  # not score-equivalent; greedy K2 also joins a - b here
        assert truth.skeleton() <= g.skeleton()
    else:  # score-equivalent scores: the CPDAG keeps the collider
        assert g == truth


def test_hill_climb_gaussian_and_dag_output():
    ds, truth = gaussian_collider()
    hc = registry.create("hill_climb")
    assert hc.score_for(ds) == "bic-g"
    assert hc.search(ds) == truth
    dag = registry.create("hill_climb", return_type="dag").search(ds)
    assert dag.is_dag and dag.skeleton() == truth.skeleton()


def test_hill_climb_max_indegree_is_respected():
    ds, _ = gaussian_collider()
    g = registry.create("hill_climb", max_indegree=1, return_type="dag").search(ds)
    assert all(len(g.parents(i)) <= 1 for i in range(g.n_nodes))


def test_hill_climb_scoring_checks():
    ds, _ = gaussian_collider(n=100)
    with pytest.raises(DataValidationError, match="needs discrete data"):
        registry.create("hill_climb", scoring="bic").search(ds)
    dsd, _ = discrete_collider(n=100)
    with pytest.raises(DataValidationError, match="needs continuous data"):
        registry.create("hill_climb", scoring="bic-g").search(dsd)


def test_hill_climb_on_mixed_data_after_augment():
    ds, _ = gaussian_collider(n=400)
    k = (ds.column("x") > 0).astype(int)
    mixed = ds.with_column("K", k)
    hc = registry.create("hill_climb")
    assert hc.score_for(mixed) == "bic-cg"
    g = hc.search(mixed)
    adjacent = {frozenset(g.label(i) for i in e) for e in g.skeleton()}
    assert frozenset({"x", "K"}) in adjacent and frozenset({"x", "z"}) in adjacent


_SCRIPT = """
import numpy as np
from macrocause.framework import Dataset, registry
rng = np.random.default_rng(3)
x = rng.integers(0, 2, 400); y = np.where(rng.random(400) < 0.2, 1 - x, x)
z = np.where(rng.random(400) < 0.2, 1 - y, y)
ds = Dataset(np.column_stack([x, y, z]), names=["a", "b", "c"])
print(sorted(registry.create("hill_climb", return_type="dag").search(ds).edge_names()))
"""


def test_hill_climb_does_not_depend_on_hash_seed():
    outs = set()
    for seed in ("1", "2", "5"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        res = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, check=True)
        outs.add(res.stdout.strip().splitlines()[-1])
    assert len(outs) == 1, outs
