"""PC within a skeleton bound (pc's ``init``; run_pc's ``start``): known answers on hand-built cases."""

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.framework.errors import ConfigError, DataValidationError
from macrocause.plugins.baselines._pc import moral_start, run_pc


def _gaussian(edges, d, n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    for a, b in edges:  # edges listed in a causal order
        X[:, b] += X[:, a]
    return X


def _undirected(names, pairs):
    return CausalGraph([[v] for v in names], undirected=pairs)


def test_the_complete_bound_is_plain_pc():
    for seed in range(4):
        ds = registry.load_data("discrete_bn", n_variables=8, n_samples=800, seed=seed)
        X = ds.X[:, np.ptp(ds.X, axis=0) > 0].astype(int)
        M, info = run_pc(X, "chisq", 0.05)
        Mb, info_b = run_pc(X, "chisq", 0.05, start=np.ones((X.shape[1],) * 2, bool))
        assert np.array_equal(M, Mb) and info == info_b


def test_pairs_outside_the_bound_are_never_joined_nor_tested():
    X = _gaussian([(0, 1), (1, 2), (2, 3)], 4)
    start = np.zeros((4, 4), bool)
    start[0, 1] = start[1, 0] = start[2, 3] = start[3, 2] = True  # 1 - 2 left out
    M, info = run_pc(X, "fisherz", 0.05, start=start)
    assert {(a, b) for a, b in zip(*np.nonzero(M)) if a < b} == {(0, 1), (2, 3)}
    assert info["n_tests"] == 2  # the two pairs of the bound, given nothing


def test_an_untested_pair_is_tested_to_orient_its_collider():
    # truth 0 -> 2 <- 1; the bound is the moral graph of the wrong DAG 0 <- 2 -> 1 (0 and 1 not married):
    # the pair 0, 1 is separated by the empty set, so 2 is a collider
    X = _gaussian([(0, 2), (1, 2)], 3)
    wrong = np.zeros((3, 3), bool)
    wrong[2, 0] = wrong[2, 1] = True
    start = moral_start(wrong)
    assert not start[0, 1]
    ds = Dataset(X, ["a", "b", "c"])
    g = registry.create("pc").search(ds, init=_undirected(ds.names, [(0, 2), (1, 2)]))
    assert sorted(g.edge_names()) == [("a", "c"), ("b", "c")] and not g.undirected


def test_a_married_pair_separated_by_the_middle_is_no_collider():
    # truth chain 0 -> 2 -> 1; the bound marries 0 and 1 (moral graph of 0 -> 2 <- 1): the test given {2}
    # removes 0 - 1 with 2 in the separating set, so the chain stays undirected
    X = _gaussian([(0, 2), (2, 1)], 3)
    dag = np.zeros((3, 3), bool)
    dag[0, 2] = dag[1, 2] = True
    start = moral_start(dag)
    assert start[0, 1] and start[0, 2] and start[1, 2]
    M, _ = run_pc(X, "fisherz", 0.05, start=start)
    assert M[0, 2] == M[2, 0] == -1 and M[1, 2] == M[2, 1] == -1 and M[0, 1] == 0  # undirected 0 - 2 - 1


def test_moral_graph_by_hand():
    dag = np.zeros((4, 4), bool)
    dag[0, 2] = dag[1, 2] = dag[2, 3] = True  # 0 -> 2 <- 1, 2 -> 3
    M = moral_start(dag)
    assert {(a, b) for a, b in zip(*np.nonzero(M)) if a < b} == {(0, 2), (1, 2), (2, 3), (0, 1)}


def test_python_and_compiled_paths_agree_within_a_bound(monkeypatch):
    import macrocause.plugins.baselines._pc as pcmod

    ds = registry.load_data("discrete_bn", n_variables=9, n_samples=600, seed=3)
    X = ds.X[:, np.ptp(ds.X, axis=0) > 0].astype(int)
    rng = np.random.default_rng(0)
    U = np.triu(rng.random((X.shape[1],) * 2) < 0.6, 1)
    start = U | U.T
    out = []
    for work in (10**9, 0):
        monkeypatch.setattr(pcmod, "PYTHON_WORK", work)
        out.append(run_pc(X, "gsq", 0.05, start=start))
    assert np.array_equal(out[0][0], out[1][0]) and out[0][1] == out[1][1]


def test_bound_errors():
    ds = Dataset(_gaussian([(0, 1)], 2), ["a", "b"])
    with pytest.raises(DataValidationError, match="not in the data"):
        registry.create("pc").search(ds, init=_undirected(["a", "z"], [(0, 1)]))
    with pytest.raises(ConfigError, match="backend='macrocause'"):
        registry.create("pc", backend="causal-learn").search(ds, init=_undirected(["a", "b"], [(0, 1)]))
    with pytest.raises(DataValidationError, match="graph of single variables") as err:
        registry.create("pc").search(ds, init=CausalGraph([["a", "b"]]))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("bad", [{"pc_skeleton": "full"}, {"pc_fallback": "sometimes"}])
def test_greedy_dag_rejects_an_unknown_pc_bound_in_one_line(bad):
    with pytest.raises(ConfigError, match=next(iter(bad))) as err:
        registry.create("greedy_dag", **bad)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("test", ["chisq", "fisherz"])
@pytest.mark.parametrize("max_k", [-1, 0, 2])
def test_untested_sepsets_kernel_equals_the_python_search(test, max_k):
    # the separating sets of the pairs left out of the bound, kernel against the cached Python search,
    # over random skeletons within random bounds (pairs with and without a separating set found)
    from macrocause.plugins.baselines._pc import TESTS, _untested_sepsets, cached, compiled_p_value
    from macrocause.plugins.baselines._pc_citests import prepare
    from macrocause.plugins.baselines._pc_kernels import untested_sepsets

    kind = TESTS[test]
    n_rows = 0
    for seed in range(6):
        ds = registry.load_data("discrete_bn", n_variables=10, n_samples=500, seed=seed)
        X = ds.X[:, np.ptp(ds.X, axis=0) > 0]
        X = X.astype(int) if test == "chisq" else X + np.random.default_rng(seed).standard_normal(X.shape)
        n, d = X.shape
        corr, codes, cards = prepare(X, kind)
        rng = np.random.default_rng(seed)
        U = np.triu(rng.random((d, d)) < 0.7, 1)
        start = U | U.T
        A = np.triu(rng.random((d, d)) < 0.5, 1) & U
        adj = A | A.T
        p = cached(compiled_p_value(kind, corr, n, codes, cards))
        want = _untested_sepsets(adj, start, p, 0.05, max_k)
        got = untested_sepsets(kind, 0.05, max_k, corr, n, codes, cards, adj, start)
        assert np.array_equal(got, want)
        n_rows += len(want)
    assert n_rows > 0
