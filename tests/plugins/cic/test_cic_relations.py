"""The relation start (plugins/cic/relations.py): Lee-Brickell decoding against brute force and a planted
heavy relation, the edges read from relations, and the grouping at d = 100."""

import itertools
import math

import numpy as np

from macrocause.framework import registry
from macrocause.plugins.cic.relations import (
    parity_relations,
    relation_clusters,
    relation_dag,
    sums_order,
)
from macrocause.plugins.cic.simulate import random_cluster_dag


def _passes(X: np.ndarray, S: tuple[int, ...]) -> bool:
    """The code-length test of relations.py written out: N KL(q || q0) > (log N) / 2 + log C(d, |S|) + log 2."""
    n, d = X.shape
    q = np.bitwise_xor.reduce(X[:, S], axis=1).mean()
    q0 = 0.5 * (1 - np.prod(1 - 2 * X[:, S].mean(axis=0)))
    kl = sum(a * math.log(a / b) for a, b in ((q, q0), (1 - q, 1 - q0)) if a > 0)
    return n * kl > 0.5 * math.log(n) + math.log(math.comb(d, len(S))) + math.log(2)


def test_decoding_equals_brute_force_on_seven_variables():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (2000, 7))
    X[:, 2] = X[:, 0] ^ X[:, 1] ^ (rng.random(2000) < 0.05)
    X[:, 6] = 1 ^ X[:, 3] ^ X[:, 4] ^ X[:, 5] ^ (rng.random(2000) < 0.1)  # an odd constant
    want = [S for k in range(2, 8) for S in itertools.combinations(range(7), k) if _passes(X, S)]
    assert want == [(0, 1, 2), (3, 4, 5, 6), (0, 1, 2, 3, 4, 5, 6)]  # the two factors and their sum
    assert sorted(parity_relations(X, np.random.default_rng(0), tries=200)) == sorted(want)


def test_decoding_finds_a_heavy_noisy_relation_that_exact_decoding_misses():
    # d = 80, one relation over 36 variables with 10 % noise: Prange's decoding (p = 0, the previous one) needs
    # 90 samples all clean, 0.9^90 = 8e-5 a try, so 500 tries find it with probability 4 %; with p = 3 a try
    # finds it with probability P(Bin(81, 0.1) in 1..3) = 3.3 %
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (3000, 80))
    S = tuple(range(0, 72, 2))
    X[:, 70] = np.bitwise_xor.reduce(X[:, [v for v in S if v != 70]], axis=1) ^ (rng.random(3000) < 0.1)
    assert sums_order(81) == 3 and sums_order(228) == 3 and sums_order(229) == 2  # at most 2 million sums
    assert parity_relations(X, np.random.default_rng(0), tries=500) == [S]


def test_edges_from_relations_peel_children_latest_first():
    # groups 0..4, factors {3, 4}, {2, 3}, {0, 1, 2} ({0, 1, 3} is their sum's part, dependent: dropped).
    # Entering one factor: 0, 1, 4; the first, 0, is {0, 1, 2}'s child (1 -> 0, 2 -> 0); then 2 enters
    # one factor left, {2, 3}: 3 -> 2; then {3, 4}: 3 and 4 tie, the first, 3, is the child: 4 -> 3
    clusters = [(0,), (1,), (2,), (3,), (4,)]
    adj = relation_dag(clusters, [(3, 4), (2, 3), (0, 1, 2), (0, 1, 3)])
    want = np.zeros((5, 5), dtype=bool)
    for a, b in [(1, 0), (2, 0), (3, 2), (4, 3)]:
        want[a, b] = True
    assert (adj == want).all()


def test_relation_start_groups_a_100_variable_cluster_dag_as_the_truth():
    # 20 clusters of 5, parity, N = 4,000, 86 cluster edges: each factor spans 10-60 variables. Before
    # Lee-Brickell decoding the relation start found no relation here and cic_greedy returned no group (ARI 0)
    ds = random_cluster_dag(20, 5, "parity", rho=0.5, n=4000, seed=0)
    start = registry.create("cic_greedy")._relation_start(ds)
    names = list(ds.names)
    truth = sorted(tuple(sorted(names.index(v) for v in c)) for c in ds.truth["identifiable"].clusters)
    assert start[0] == truth
    assert relation_clusters(100, []) is None
    edges = {(a, b) for a, b in zip(*np.nonzero(start[1]))}
    true_edges = {tuple(sorted(e)) for e in ds.truth["identifiable"].directed}
    order = {c: i for i, c in enumerate(start[0])}
    tc = [tuple(sorted(names.index(v) for v in c)) for c in ds.truth["identifiable"].clusters]
    mapped = {tuple(sorted((order[tc[a]], order[tc[b]]))) for a, b in true_edges}
    found = {tuple(sorted(e)) for e in edges}
    assert len(found & mapped) / len(mapped) > 0.8  # skeleton recall of the seeded edges


def test_relation_start_without_relations_is_every_variable_alone():
    from macrocause.framework import Dataset

    X = np.random.default_rng(0).integers(0, 2, (2000, 12))
    clusters, adj, fixed = registry.create("cic_greedy")._relation_start(Dataset(X, discrete=True))
    assert clusters == [(i,) for i in range(12)] and not adj.any() and not fixed
    assert registry.create("cic_greedy", max_clusters=6)._relation_start(Dataset(X, discrete=True)) is None
