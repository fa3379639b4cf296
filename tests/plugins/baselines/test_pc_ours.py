"""Our PC against causal-learn's: tests, skeleton, every collider option mark for mark, conflicts, constant columns."""

import warnings

import numpy as np
import pytest

from macrocause.framework import CausalGraph, Dataset, registry
from macrocause.framework.errors import ConfigError, DataValidationError
from macrocause.plugins.baselines._pc import resolve_conflicts, run_pc, to_graph
from macrocause.plugins.baselines._pc_citests import CHISQ, FISHERZ, prepare
from macrocause.plugins.baselines._pc_kernels import chi2_sf, discrete_p, fisherz_p, skeleton
from macrocause.plugins.baselines._pc_skeleton import SepSets

OPTIONS = [(r, q) for r in (0, 1, 2) for q in (-1, 0, 1, 2, 3, 4) if not (r == 2 and q in (0, 1))]


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


def test_skeleton_reused_strata_give_the_same_p_values():
    """The skeleton's tests keep each conditioning set's strata for the next pair of the same x:
    the p-value is discrete_p's bit for bit, whether the strata are new or reused."""
    from numba import types
    from numba.typed import Dict

    from macrocause.plugins.baselines._pc_kernels import _discrete_p_cached

    rng = np.random.default_rng(1)
    X = np.column_stack([rng.integers(0, k, 400) for k in (2, 3, 4, 2, 5, 3, 2)])
    X[:, 1] = (X[:, 0] + X[:, 3] + rng.integers(0, 2, 400)) % 3
    _, codes, cards = prepare(X, CHISQ)
    layers = Dict.empty(key_type=types.int64, value_type=types.int64[:])
    for _ in range(2):  # the second round reads every set's strata from the cache
        for x, y, S in [(0, 1, []), (1, 2, [3]), (0, 2, [3]), (1, 4, [0, 3]), (2, 4, [0, 3]), (5, 6, [0, 1, 2, 3])]:
            S_arr = np.array(S, np.int64)
            for gsq in (False, True):
                assert _discrete_p_cached(codes, cards, x, y, S_arr, gsq, layers) == discrete_p(codes, cards, x, y,
                                                                                               S_arr, gsq)
    assert len(layers) == 4


def _data(kind, seed):
    d = int(np.random.default_rng(seed).integers(5, 11))
    if kind == "fisherz":
        return registry.load_data("linear_gaussian", n_variables=d, n_samples=500, edge_prob=0.3, seed=seed)
    ds = registry.load_data("discrete_bn", n_variables=d, n_samples=500, seed=seed)
    return ds.select([j for j in range(d) if np.ptp(ds.X[:, j]) > 0])


def _causallearn_pc(X, test, stable, uc_rule, uc_priority):
    from causallearn.search.ConstraintBased.PC import pc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pc(X, 0.05, test, stable, uc_rule, uc_priority, show_progress=False).G.graph


def _agreement(tests_seeds):
    """Every option pair, stable and original: our endpoint matrix against causal-learn's."""
    compared, differ, bidirected = 0, [], 0
    for test, seeds in tests_seeds:
        for seed in seeds:
            ds = _data(test, seed)
            X = ds.X.astype(int) if test != "fisherz" else ds.X
            for stable in (True, False):
                for rule, priority in OPTIONS:
                    M, _ = run_pc(X, test, 0.05, stable, None, rule, priority)
                    ref = _causallearn_pc(X, test, stable, rule, priority)
                    compared += 1
                    bidirected += int(((M == 1) & (M.T == 1)).any())
                    if not np.array_equal(M, ref):
                        differ.append((test, seed, stable, rule, priority))
    return compared, differ, bidirected


def test_every_collider_option_equals_causallearn_mark_for_mark():
    compared, differ, bidirected = _agreement([("fisherz", [0, 1]), ("chisq", [2]), ("gsq", [3])])
    assert compared == 4 * 2 * len(OPTIONS) and differ == []
    assert bidirected > 0  # uc_priority=1 kept some conflicting colliders as <->


@pytest.mark.slow
def test_every_collider_option_equals_causallearn_more_seeds():
    compared, differ, _ = _agreement([("fisherz", range(2, 8)), ("chisq", range(3, 7)), ("gsq", range(4, 8))])
    assert differ == [] and compared == 14 * 2 * len(OPTIONS)


def test_same_graph_from_both_backends_through_the_plugin():
    for test, seed in [("fisherz", 4), ("chisq", 5)]:
        ds = _data(test, seed)
        for rule, priority in [(0, 2), (0, 1), (1, -1), (2, 3)]:
            kw = dict(indep_test=test, uc_rule=rule, uc_priority=priority)
            ref, ours = registry.create("pc", backend="causal-learn", **kw), registry.create("pc", **kw)
            assert ours.search(ds) == ref.search(ds), (test, seed, rule, priority)
            assert ours.last_info["conflicts"] == ref.last_info["conflicts"]


def test_collider_priorities_by_hand():
    # chain 0 - 1 - 2 - 3, every non-adjacent pair separated by the empty set: colliders
    # 0 -> 1 <- 2 and then 1 -> 2 <- 3 disagree on the edge 1 - 2
    from macrocause.plugins.baselines._pc_orient import EndpointGraph, uc_sepset

    adj = np.zeros((4, 4), bool)
    for i in range(3):
        adj[i, i + 1] = adj[i + 1, i] = True
    # (M[1, 2], M[2, 1], M[3, 2], M[2, 3]): overwritten to 1 -> 2 <- 3; 1 <-> 2 <- 3; the
    # first collider kept and the second not oriented (2 - 3 stays undirected)
    for priority, marks in {0: (-1, 1, -1, 1), 1: (1, 1, -1, 1), 2: (1, -1, -1, -1)}.items():
        g = EndpointGraph(adj)
        uc_sepset(g, lambda *_: False, priority, None)
        assert (g.M[1, 2], g.M[2, 1], g.M[3, 2], g.M[2, 3]) == marks, priority
        assert (g.M[0, 1], g.M[1, 0]) == (-1, 1)
        assert np.array_equal(g.M, _causallearn_orientation_priority(adj, priority))
    assert to_graph(g.M, list("abcd")).edge_names() == {("a", "b"), ("c", "b")}
    g = EndpointGraph(adj)
    uc_sepset(g, lambda *_: False, 1, None)
    assert to_graph(g.M, list("abcd")).bidirected_names() == {frozenset("bc")}


def _causallearn_orientation_priority(adj, priority):
    from causallearn.graph.GraphClass import CausalGraph as CLGraph
    from causallearn.utils.PCUtils import UCSepset

    d = adj.shape[0]
    cg = CLGraph(d)
    for a in range(d):
        for b in range(a + 1, d):
            if not adj[a, b]:
                cg.G.remove_edge(cg.G.get_edge(cg.G.nodes[a], cg.G.nodes[b]))
                cg.sepset[a, b] = cg.sepset[b, a] = [()]
    return UCSepset.uc_sepset(cg, priority).G.graph


def test_sepsets_are_unions_over_both_endpoints():
    # chain 0 -> 1 -> 2: 0 and 2 separated by {1} only, so 1 is in the separating set
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal(2000)
    x1 = x0 + rng.standard_normal(2000)
    x2 = x1 + rng.standard_normal(2000)
    corr, codes, cards = prepare(np.column_stack([x0, x1, x2]), FISHERZ)
    adj, sep, n_tests, depth = skeleton(FISHERZ, 0.05, -1, True, corr, 2000, codes, cards, np.ones((corr.shape[0],) * 2, bool))
    assert adj.sum() == 4 and not adj[0, 2]
    assert SepSets(sep, 3).as_dict() == {(0, 2): {1}} and SepSets(sep, 3).contains(2, 0, 1)
    # 3 pairs at depth 0; at depth 1 each pair given the third variable, once (not again from the other end)
    assert depth == 1 and n_tests == 3 + 3


def test_resolve_conflicts_undirects_cycles_and_keeps_bidirected_edges():
    M = np.zeros((5, 5), np.int8)

    def orient(a, b):
        M[a, b], M[b, a] = -1, 1

    orient(0, 1), orient(1, 2), orient(2, 0)  # a directed cycle 0 -> 1 -> 2 -> 0
    orient(2, 3)  # outside the cycle: stays
    M[3, 4] = M[4, 3] = 1  # bidirected
    R, undone = resolve_conflicts(M)
    assert sorted(undone) == [(0, 1), (1, 2), (2, 0)]
    g = to_graph(R, list("abcde"))
    assert g.edge_names() == {("c", "d")}
    assert g.undirected_names() == {frozenset("ab"), frozenset("bc"), frozenset("ac")}
    assert g.bidirected_names() == {frozenset("de")}


def _causallearn_orientation(adj, sep):
    """causal-learn's own collider and Meek steps on a given skeleton and separating sets."""
    from causallearn.graph.GraphClass import CausalGraph as CLGraph
    from causallearn.utils.PCUtils import Meek, UCSepset

    d = adj.shape[0]
    cg = CLGraph(d)
    cg.G.graph = np.where(adj, -1, 0)
    sets = SepSets(sep, d).as_dict()
    for a in range(d):
        for b in range(a + 1, d):
            if not adj[a, b]:
                cg.sepset[a, b] = cg.sepset[b, a] = [tuple(sorted(sets.get((a, b), ())))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Meek.meek(UCSepset.uc_sepset(cg, 2)).G.graph


def _crashing_data():
    return registry.load_data("linear_gaussian", n_variables=100, n_samples=2000, edge_prob=0.03, seed=3)


def test_100_variables_with_a_directed_cycle_give_the_same_graph_and_conflicts():
    ds = _crashing_data()
    corr, codes, cards = prepare(ds.X, FISHERZ)
    adj, sep, _, _ = skeleton(FISHERZ, 0.05, -1, True, corr, ds.n_samples, codes, cards, np.ones((corr.shape[0],) * 2, bool))
    ref = _causallearn_orientation(adj, sep)  # causal-learn's rules close a directed cycle here
    with pytest.raises(DataValidationError, match="cycle"):
        CausalGraph.from_causallearn(ref, ds.names)
    M, _ = run_pc(ds.X, "fisherz", 0.05)
    assert np.array_equal(M, ref)  # the same cycle, from causal-learn's ancestor matrix
    R, undone = resolve_conflicts(ref)
    assert len(undone) == 10
    pc = registry.create("pc")
    g = pc.search(ds)
    assert g == to_graph(R, ds.names)
    assert pc.last_info["conflicts"] == [(ds.names[a], ds.names[b]) for a, b in undone]


@pytest.mark.slow
def test_100_variables_with_causallearn_backend_do_not_crash():
    ds = _crashing_data()
    ref = registry.create("pc", backend="causal-learn")
    g = ref.search(ds)
    assert len(ref.last_info["conflicts"]) == 10
    assert g == registry.create("pc").search(ds)


@pytest.mark.slow
def test_hailfinder_backends_agree_on_marks_and_conflicts():
    """Issue 26: on hailfinder (N = 5,000, seed 0) the two backends once disagreed on 3 conflicts (ours left
    them directed); both now return the same endpoint matrix, with the 3-cycle's edges undirected."""
    ds = registry.load_data("bnlearn", network="hailfinder", n_samples=5000, seed=0)
    ours, ref = registry.create("pc"), registry.create("pc", backend="causal-learn")
    g, g_ref = ours.search(ds), ref.search(ds)
    assert np.array_equal(g.to_causallearn_matrix(ds.names), g_ref.to_causallearn_matrix(ds.names))
    cycle = [("WndHodograph", "OutflowFrMt"), ("OutflowFrMt", "Boundaries"), ("Boundaries", "WndHodograph")]
    assert ours.last_info["conflicts"] == ref.last_info["conflicts"] == cycle
    assert {frozenset(e) for e in cycle} <= g.undirected_names()


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
    from macrocause.framework import Dataset

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(200), rng.standard_normal(200)
    ds = Dataset(np.column_stack([x, 2 * x, y]), names=["a", "b", "c"])
    with pytest.raises(DataValidationError, match="correlation matrix is singular"):
        registry.create("pc", backend=backend).search(ds)


@pytest.mark.parametrize("backend", ["macrocause", "causal-learn"])
def test_constant_columns_are_isolated_nodes_with_a_warning(backend):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 500))
    c = a + b + 0.3 * rng.standard_normal(500)
    ds = Dataset(np.column_stack([a, np.ones(500), b, c]), names=["a", "k", "b", "c"])
    pc = registry.create("pc", backend=backend)
    with pytest.warns(UserWarning, match=r"constant columns \['k'\].*isolated"):
        g = pc.search(ds)
    assert g.edge_names() == {("a", "c"), ("b", "c")} and not g.undirected
    only = Dataset(np.column_stack([a, np.ones(500), np.zeros(500)]), names=["a", "k", "z"])
    with pytest.warns(UserWarning):
        assert registry.create("pc", backend=backend).search(only) == CausalGraph.empty(["a", "k", "z"])


def test_option_errors():
    with pytest.raises(ConfigError, match="uc_rule=2.*-1, 2, 3 or 4"):
        registry.create("pc", uc_rule=2, uc_priority=1)
    with pytest.raises(ConfigError, match="uc_rule"):
        registry.create("pc", uc_rule=3)
    with pytest.raises(ConfigError, match="uc_priority"):
        registry.create("pc", uc_priority=5)


def test_memory_estimate_refuses_before_the_search(monkeypatch):
    from macrocause.framework.errors import MemoryBudgetError

    rng = np.random.default_rng(0)
    ds = Dataset(rng.standard_normal((50, 300)), names=[f"x{i}" for i in range(300)])
    est = registry.create("pc").memory_estimate(ds).bytes
    assert est == 16 * 50 * 300 + 36 * 300**2
    assert registry.create("pc", indep_test="chisq").memory_estimate(ds).bytes == 16 * 50 * 300 + 64 * 300**2
    monkeypatch.setenv("MACROCAUSE_MEMORY_LIMIT", "1MB")
    with pytest.raises(MemoryBudgetError, match="pc would need"):
        registry.create("pc").search(ds)


def test_a_small_first_search_compiles_nothing(tmp_path):
    import os
    import subprocess
    import sys

    code = (
        "from macrocause.framework import registry\n"
        "import sys\n"
        "ds = registry.load_data('discrete_bn', n_variables=6, n_samples=2000, seed=1)\n"
        "g = registry.create('pc', alpha=0.01, uc_rule=1, uc_priority=3).search(ds)\n"
        "print(int('numba' in sys.modules), len(g.skeleton()))\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=os.getcwd(), check=True).stdout.split()
    assert out[0] == "0" and int(out[1]) > 0  # numba not even imported
    assert not list(tmp_path.rglob("*.nbi"))


def test_python_and_compiled_paths_agree(monkeypatch):
    import macrocause.plugins.baselines._pc as pcmod

    for test, seed in [("fisherz", 6), ("gsq", 7)]:
        ds = _data(test, seed)
        X = ds.X.astype(int) if test != "fisherz" else ds.X
        for rule, priority in [(0, 2), (1, 3), (2, 4)]:
            monkeypatch.setattr(pcmod, "PYTHON_WORK", 10**9)
            M_py, info_py = run_pc(X, test, 0.05, True, None, rule, priority)
            monkeypatch.setattr(pcmod, "PYTHON_WORK", 0)
            M_jit, info_jit = run_pc(X, test, 0.05, True, None, rule, priority)
            assert np.array_equal(M_py, M_jit) and info_py == info_jit, (test, rule, priority)
