"""CausalGraph.cpdag (Chickering's edge labelling): equal to the Markov equivalence class enumerated by
brute force on small DAGs and to pgmpy's DAG.to_pdag on random DAGs."""

import itertools

import numpy as np
import pytest

from macrocause.framework import CausalGraph, DataValidationError


def _random_dag(rng, d, p):
    order = rng.permutation(d)
    A = np.zeros((d, d), dtype=bool)
    for a in range(d):
        for b in range(a + 1, d):
            A[order[a], order[b]] = rng.random() < p
    return A


def _class_by_enumeration(A):
    """Every orientation of A's skeleton that is acyclic and has A's v-structures (Verma and Pearl
    1990: these are the DAGs Markov equivalent to A), as a stack of adjacency matrices."""
    d = A.shape[0]
    adj = A | A.T
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d) if adj[i, j]]
    flips = np.array(list(itertools.product([False, True], repeat=len(pairs))), dtype=bool).reshape(2 ** len(pairs), len(pairs))
    D = np.zeros((len(flips), d, d), dtype=bool)
    for k, (i, j) in enumerate(pairs):
        D[:, i, j] = ~flips[:, k]
        D[:, j, i] = flips[:, k]
    reach, acyclic = D.astype(np.int64), np.ones(len(D), dtype=bool)
    for _ in range(d):  # a cycle shows as a positive diagonal of some power D^k, k <= d
        acyclic &= np.einsum("mii->m", reach) == 0
        reach = np.minimum(reach @ D, 1)

    apart = ~adj & ~np.eye(d, dtype=bool)

    def colliders(M):  # M[..., a, c] & M[..., b, c] with a != b apart
        return np.einsum("...ac,...bc->...abc", M, M).astype(bool) & apart[:, :, None]

    same = (colliders(D.astype(np.int64)) == colliders(A.astype(np.int64))).all(axis=(1, 2, 3))
    return D[acyclic & same]


def _cpdag_by_enumeration(A, names):
    members = _class_by_enumeration(A)
    assert members.any(axis=0).sum() >= A.sum() and (members == A).all(axis=(1, 2)).any()  # A is a member
    always = members.all(axis=0)  # i -> j in every member: directed in the CPDAG
    both = members.any(axis=0) & members.any(axis=0).T & ~always & ~always.T
    return CausalGraph.from_adjacency(always | both, names)


def test_hand_cases():
    names = ["a", "b", "c", "d"]
    chain = CausalGraph.from_edges(names, [("a", "b"), ("b", "c")])
    assert chain.cpdag() == CausalGraph.from_edges(names, [], [("a", "b"), ("b", "c")])
    collider = CausalGraph.from_edges(names, [("a", "c"), ("b", "c"), ("c", "d")])  # rule 1 orients c -> d
    assert collider.cpdag() == collider
    # a -> b -> d <- c and a -> c: a - b, a - c, b -> d <- c (rule 2 / 3 free), the v-structure b -> d <- c
    g = CausalGraph.from_edges(names, [("a", "b"), ("b", "d"), ("c", "d"), ("a", "c")])
    assert g.cpdag() == CausalGraph.from_edges(names, [("b", "d"), ("c", "d")], [("a", "b"), ("a", "c")])


@pytest.mark.parametrize("seed", range(4))
def test_equal_to_the_enumerated_equivalence_class(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        d = int(rng.integers(2, 7))
        A = _random_dag(rng, d, float(rng.choice([0.3, 0.5, 0.8])))
        names = [f"x{i}" for i in range(d)]
        assert CausalGraph.from_adjacency(A, names).cpdag() == _cpdag_by_enumeration(A, names), A.astype(int)


def test_equal_to_pgmpy_on_random_dags():
    rng = np.random.default_rng(7)
    for _ in range(60):
        d = int(rng.integers(2, 16))
        A = _random_dag(rng, d, float(rng.choice([0.15, 0.3, 0.5])))
        names = [f"x{i}" for i in range(d)]
        dag = CausalGraph.from_adjacency(A, names)
        assert dag.cpdag() == CausalGraph.from_pgmpy(dag.to_pgmpy().to_pdag(), names), A.astype(int)


def test_cluster_dag_and_refusals():
    g = CausalGraph([["a", "b"], ["c"], ["d"]], directed=[(0, 2), (1, 2)])
    assert g.cpdag().directed == {(0, 2), (1, 2)} and g.cpdag().clusters == g.clusters
    with pytest.raises(DataValidationError, match="has undirected edges; the CPDAG is defined for a DAG"):
        CausalGraph.from_edges(["a", "b"], [], [("a", "b")]).cpdag()
