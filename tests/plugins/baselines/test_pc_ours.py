"""Our PC against causal-learn's: tests, skeleton, CPDAG, and conflicts that no longer crash."""

import warnings

import numpy as np
import pytest

from framework import CausalGraph, registry
from framework.errors import ConfigError, DataValidationError
from plugins.baselines._pc import resolve_conflicts, run_pc, to_graph
from plugins.baselines._pc_citests import (
    CHISQ,
    FISHERZ,
    chi2_sf,
    discrete_p,
    fisherz_p,
    prepare,
)
from plugins.baselines._pc_skeleton import in_sepset, skeleton


def test_chi2_sf_matches_scipy():
    from scipy.stats import chi2

    for df in (1, 2, 3, 7, 30, 200):
        for stat in (0.0, 0.01, 0.5, 1.0, 3.84, 10.0, 50.0, 300.0):
            assert chi2_sf(stat, df) == pytest.approx(chi2.sf(stat, df), rel=1e-10, abs=1e-300)


def test_tests_match_causallearn_p_values():
    from causallearn.utils.cit import CIT

    rng = np.random.default_rng(0)
    Xg = rng.standard_normal((300, 6))
    Xg[:, 1] += Xg[:, 0]
    Xg[:, 2] += Xg[:, 1] - Xg[:, 3]
    corr, _, _ = prepare(Xg, FISHERZ)
    # few samples, up to 4 codes (one column with gaps in its values): sparse tables
    Xd = rng.integers(0, 4, (80, 6))
    Xd[:, 1] = (Xd[:, 0] + rng.integers(0, 2, 80)) % 4
    Xd[:, 5] = Xd[:, 5] * 10 + 3
    _, codes, cards = prepare(Xd, CHISQ)
    fz, cs, gs = CIT(Xg, "fisherz"), CIT(Xd, "chisq"), CIT(Xd, "gsq")
    for x, y, S in [(0, 1, []), (1, 0, [2]), (0, 2, [1, 3]), (2, 5, [0, 1, 4]), (4, 5, [0, 1, 2, 3])]:
        S_arr = np.array(S, np.int64)
        assert fisherz_p(corr, 300, x, y, S_arr) == pytest.approx(fz(x, y, S), rel=1e-9, abs=1e-12)
        assert discrete_p(codes, cards, x, y, S_arr, False) == pytest.approx(cs(x, y, S), rel=1e-9, abs=1e-12)
        assert discrete_p(codes, cards, x, y, S_arr, True) == pytest.approx(gs(x, y, S), rel=1e-9, abs=1e-12)


def _data(kind, seed):
    d = int(np.random.default_rng(seed).integers(5, 11))
    if kind == "fisherz":
        return registry.load_data("linear_gaussian", n_variables=d, n_samples=500, edge_prob=0.3, seed=seed)
    ds = registry.load_data("discrete_bn", n_variables=d, n_samples=500, seed=seed)
    return ds.select([j for j in range(d) if np.ptp(ds.X[:, j]) > 0])  # PC refuses constant columns


@pytest.mark.parametrize("test,seeds", [("fisherz", range(10)), ("chisq", range(6)), ("gsq", range(6, 12))])
def test_same_skeleton_and_cpdag_as_causallearn(test, seeds):
    consistent = 0
    for seed in seeds:
        ds = _data(test, seed)
        for stable in (True, False):
            ref = registry.create("pc", indep_test=test, stable=stable, backend="causal-learn")
            ours = registry.create("pc", indep_test=test, stable=stable)
            g_ref, g = ref.search(ds), ours.search(ds)
            assert g.skeleton() == g_ref.skeleton(), (seed, stable)
            if ref.last_info["conflicts"] == 0:  # causal-learn's output has no cycle
                consistent += 1
                assert g == g_ref, (seed, stable)
    assert consistent >= len(seeds)  # most comparisons are of full CPDAGs


def test_sepsets_are_unions_over_both_endpoints():
    # chain 0 -> 1 -> 2: 0 and 2 separated by {1} only, so 1 is in the separating set
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal(2000)
    x1 = x0 + rng.standard_normal(2000)
    x2 = x1 + rng.standard_normal(2000)
    corr, codes, cards = prepare(np.column_stack([x0, x1, x2]), FISHERZ)
    adj, sep, n_tests, depth = skeleton(FISHERZ, 0.05, -1, True, corr, 2000, codes, cards)
    assert adj.sum() == 4 and not adj[0, 2]
    assert [k for k in range(3) if in_sepset(sep, 2, 0, k)] == [1]
    # 3 pairs at depth 0; at depth 1 each pair given the third variable, once (not again from the other end)
    assert depth == 1 and n_tests == 3 + 3


def test_resolve_conflicts_undirects_cycles_and_bidirected_edges():
    M = np.zeros((5, 5), np.int8)

    def orient(a, b):
        M[a, b], M[b, a] = -1, 1

    orient(0, 1), orient(1, 2), orient(2, 0)  # a directed cycle 0 -> 1 -> 2 -> 0
    orient(2, 3)  # outside the cycle: stays
    M[3, 4] = M[4, 3] = 1  # bidirected
    R, n = resolve_conflicts(M)
    assert n == 4
    g = to_graph(R, list("abcde"))
    assert g.edge_names() == {("c", "d")}
    assert g.undirected_names() == {frozenset("ab"), frozenset("bc"), frozenset("ac"), frozenset("de")}


def _causallearn_orientation(adj, sep):
    """causal-learn's own collider and Meek steps on a given skeleton and separating sets."""
    from causallearn.graph.GraphClass import CausalGraph as CLGraph
    from causallearn.utils.PCUtils import Meek, UCSepset

    d = adj.shape[0]
    cg = CLGraph(d)
    cg.G.graph = np.where(adj, -1, 0)
    for a in range(d):
        for b in range(a + 1, d):
            if not adj[a, b]:
                cg.sepset[a, b] = cg.sepset[b, a] = [tuple(k for k in range(d) if in_sepset(sep, a, b, k))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Meek.meek(UCSepset.uc_sepset(cg, 2)).G.graph


def _crashing_data():
    return registry.load_data("linear_gaussian", n_variables=100, n_samples=2000, edge_prob=0.03, seed=3)


def test_100_variables_that_crashed_give_a_graph_with_conflicts_counted():
    ds = _crashing_data()
    corr, codes, cards = prepare(ds.X, FISHERZ)
    adj, sep, _, _ = skeleton(FISHERZ, 0.05, -1, True, corr, ds.n_samples, codes, cards)
    ref = _causallearn_orientation(adj, sep)  # causal-learn's rules close a directed cycle here
    with pytest.raises(DataValidationError, match="cycle"):
        CausalGraph.from_causallearn(ref, ds.names)
    assert resolve_conflicts(ref)[1] > 0
    pc = registry.create("pc")
    g = pc.search(ds)
    M, info = run_pc(ds.X, "fisherz", 0.05)
    assert g == to_graph(M, ds.names) and np.array_equal(M != 0, adj | adj.T)
    assert pc.last_info["conflicts"] == info["conflicts"] > 0


@pytest.mark.slow
def test_100_variables_with_causallearn_backend_do_not_crash():
    ds = _crashing_data()
    ref = registry.create("pc", backend="causal-learn")
    g = ref.search(ds)
    assert ref.last_info["conflicts"] > 0
    assert g.skeleton() == registry.create("pc").search(ds).skeleton()


def test_kci_is_causallearn_only_and_last_info():
    with pytest.raises(ConfigError, match="kci.*backend='causal-learn'"):
        registry.create("pc", indep_test="kci", backend="macrocause")
    assert registry.create("pc", indep_test="kci").backend == "causal-learn"
    with pytest.raises(ConfigError, match="backend"):
        registry.create("pc", backend="tetrad")
    ds = _data("chisq", 0)
    pc = registry.create("pc", max_k=1)
    pc.search(ds)
    assert pc.last_info["backend"] == "macrocause" and pc.last_info["indep_test"] == "chisq"
    assert pc.last_info["depth"] <= 1 and pc.last_info["n_tests"] > 0


@pytest.mark.parametrize("backend", ["macrocause", "causal-learn"])
def test_singular_correlation_is_a_data_error(backend):
    from framework import Dataset

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(200), rng.standard_normal(200)
    ds = Dataset(np.column_stack([x, 2 * x, y]), names=["a", "b", "c"])
    with pytest.raises(DataValidationError, match="correlation matrix is singular"):
        registry.create("pc", backend=backend).search(ds)
