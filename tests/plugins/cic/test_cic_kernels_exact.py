"""The batched pairwise-MI kernels and the cached Stirling table give the values of the old
per-pair path exactly (same floats), and a search with them the same result."""

import numpy as np
import pytest

from macrocause.framework import Dataset, registry
from macrocause.framework.entropy import DiscreteEntropies
from macrocause.plugins.cic import _climb
from macrocause.plugins.cic._kernels import (
    block_sum,
    log_stirling2_row,
    log_stirling2_table,
    pairwise_mi_matrix,
)
from macrocause.plugins.cic._knn import knn_mutual_information, knn_pairwise_mi
from macrocause.plugins.cic.engine import CICEngine, prepare_continuous
from macrocause.plugins.cic.simulate import scenario


def old_pairwise_sum(eng, C, P):
    """The per-pair path before batching: one KSG estimate per pair, summed in Python."""
    if eng.pmi is None:
        eng.pmi = np.full((eng.d, eng.d), np.nan)
    for i in C:
        for j in P:
            if np.isnan(eng.pmi[i, j]):
                eng.pmi[i, j] = eng.pmi[j, i] = knn_mutual_information(eng.Z[:, [i]], eng.Z[:, [j]], eng.k)
    return sum(float(eng.pmi[i, j]) for i in C for j in P)


def old_stirling_table(n):
    T = np.full((n + 1, n + 1), -np.inf)
    T[0, 0] = 0.0
    for i in range(1, n + 1):
        k = np.arange(1, i + 1)
        T[i, 1 : i + 1] = np.logaddexp(T[i - 1, 1 : i + 1] + np.log(k), T[i - 1, 0:i])
    return T


@pytest.mark.parametrize("n, k", [(6, 5), (40, 3), (400, 5)])
def test_batched_ksg_equals_per_pair_estimates(n, k):
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 4))
    X[:, 1] += X[:, 0]
    X[:, 3] = np.round(X[:, 3])
    pairs = np.array([(0, 1), (1, 2), (3, 0), (2, 3)])
    for Z in (prepare_continuous(X), np.round(X * 2) / 2):  # jittered, and with exact ties
        old = [knn_mutual_information(Z[:, [i]], Z[:, [j]], k) for i, j in pairs]
        np.testing.assert_array_equal(knn_pairwise_mi(Z, pairs, k), old)


def test_discrete_pairwise_matrix_and_block_sum_equal_the_old_loops():
    X = scenario(1, n=300, seed=3).X
    ent = DiscreteEntropies(X)
    d = X.shape[1]
    h1 = [ent.H((j,)) for j in range(d)]
    old = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1, d):
            old[i, j] = old[j, i] = h1[i] + h1[j] - ent.H((i, j))
    M = pairwise_mi_matrix(ent.codes, ent.cards)
    np.testing.assert_array_equal(M, old)
    C, P = (0, 2, 5), (1, 3, 4, 6, 7)
    assert block_sum(M, np.array(C), np.array(P)) == sum(old[i, j] for i in C for j in P)


def test_stirling_table_cached_and_equal_to_the_old_recursions():
    T = log_stirling2_table(30)
    assert log_stirling2_table(30) is T and not T.flags.writeable
    np.testing.assert_allclose(T, old_stirling_table(30), rtol=1e-13, atol=0)
    np.testing.assert_array_equal(log_stirling2_table(30, 4), T[:, :5])
    np.testing.assert_array_equal(log_stirling2_row(30), T[30])
    assert round(np.exp(T[10, 4])) == 34105


def test_uniform_partition_draws_as_with_the_old_table(monkeypatch):
    new = [_climb.uniform_partition(9, m, np.random.default_rng(m)) for m in range(1, 10)]
    monkeypatch.setattr("macrocause.plugins.cic._kernels.log_stirling2_table", lambda d, m: old_stirling_table(d))
    old = [_climb.uniform_partition(9, m, np.random.default_rng(m)) for m in range(1, 10)]
    for a, b in zip(new, old):
        np.testing.assert_array_equal(a, b)


def test_continuous_search_same_result_as_per_pair_path(monkeypatch):
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(150)
    X = np.column_stack([x0, x0 + 0.5 * rng.standard_normal(150), rng.standard_normal(150), rng.standard_normal(150)])
    X[:, 3] += X[:, 1]
    ds = Dataset(X, discrete=False)

    def run():
        scorer = registry.create("cic", fit_factor="N")  # Eq. 6 by name: KSG estimates at N = 150
        g = registry.create("cic_greedy", restarts=6, seed=1, vstructures=False).search(ds, scorer=scorer)
        return g, scorer.score(ds, g)

    g_new, s_new = run()
    monkeypatch.setattr(CICEngine, "pairwise_mi_sum", old_pairwise_sum)
    g_old, s_old = run()
    assert g_new == g_old and s_new == s_old


def old_kth_distance(joint, k):
    """The k-d tree search in row order before the leaf ordering."""
    from scipy.spatial import cKDTree

    return cKDTree(joint).query(joint, k=k + 1, p=np.inf)[0][:, k]


@pytest.mark.parametrize("d", [1, 3, 7])
def test_leaf_ordered_kth_distance_equals_brute_force_and_row_order(d):
    from macrocause.plugins.cic._knn import _kth_distance

    rng = np.random.default_rng(d)
    for X in (rng.standard_normal((150, d)), np.round(rng.standard_normal((150, d)))):  # with exact ties
        D = np.abs(X[:, None, :] - X[None, :, :]).max(axis=2)
        brute = np.sort(D, axis=1)[:, 4]  # the point itself is the 0-th
        np.testing.assert_array_equal(_kth_distance(X, 4), brute)
        np.testing.assert_array_equal(_kth_distance(X, 4), old_kth_distance(X, 4))


def test_kl_search_same_result_as_row_order_search(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((300, 5))
    X[:, 1] += X[:, 0]
    X[:, 4] = X[:, 2] * X[:, 3] + 0.3 * rng.standard_normal(300)
    ds = Dataset(X)

    def run():
        scorer = registry.create("cic", estimator="kl", fit_factor="N")
        res = registry.create("cic_greedy", restarts=8, seed=2, vstructures=False).run(ds, scorer)
        return res["graph"], res["restart_scores"], dict(scorer.engine(ds).kl._h)

    new = run()
    monkeypatch.setattr("macrocause.plugins.cic._knn._kth_distance", old_kth_distance)
    old = run()
    assert new[0] == old[0] and new[1] == old[1] and new[2] == old[2]


@pytest.mark.parametrize("threads", ["1", "2", ""])
def test_kth_distance_and_counts_are_the_same_with_any_thread_budget(monkeypatch, threads):
    from macrocause.framework.execution import thread_budget
    from macrocause.plugins.cic._knn import _kth_distance, count_within

    monkeypatch.setenv("OMP_NUM_THREADS", threads)
    assert thread_budget() == (int(threads) if threads else -1)
    X = np.round(np.random.default_rng(7).standard_normal((400, 3)), 1)  # ties
    D = np.abs(X[:, None, :] - X[None, :, :]).max(axis=2)
    eps = np.sort(D, axis=1)[:, 5]
    np.testing.assert_array_equal(_kth_distance(X, 5), eps)
    np.testing.assert_array_equal(count_within(X, eps), (D < eps[:, None]).sum(axis=1) - 1)



def old_tilt_gain(y, B, cols, q0):
    """The parity tilt's fit as first written: one pass per sample over the chosen 0/1 rows, then the KL sum."""
    k = len(cols)
    cnt = np.zeros((2 ** k, 2), np.int64)
    for t in range(y.shape[0]):
        s = sum(int(B[c, t]) << j for j, c in enumerate(cols))
        cnt[s, y[t]] += 1
    acc = 0.0
    for s in range(2 ** k):
        tot = cnt[s, 0] + cnt[s, 1]
        for c, q in ((cnt[s, 1], q0), (cnt[s, 0], 1.0 - q0)):
            if tot and c > 0:
                acc += c * np.log(c / (tot * q))
    return acc


@pytest.mark.parametrize("k", [0, 1, 3, 6])
def test_vectorised_tilt_gain_equals_the_sample_loop(k):
    from macrocause.plugins.cic._kernels import tilt_gain

    rng = np.random.default_rng(k)
    B = rng.integers(0, 2, (8, 300)).astype(np.int8)
    y = (B[0] ^ B[3] ^ (rng.random(300) < 0.2)).astype(np.int64)
    cols = np.array(rng.choice(8, k, replace=False), dtype=np.int64)
    signs = lambda a: np.ascontiguousarray((1 - 2 * a).astype(np.int8))  # noqa: E731 (the kernel reads +-1)
    assert tilt_gain(signs(y), signs(B), cols, 0.45) == pytest.approx(old_tilt_gain(y, B, cols, 0.45), rel=1e-13)


def old_tilt(eng, C, parents):
    """FamilyEngine._tilt as first written (the choice of parity or majority per parent in Python)."""
    import itertools
    import math

    from macrocause.plugins.cic._kernels import tilt_gain

    y = eng.feature(C, "par")
    q1 = min(max(0.5 * (1.0 - float(np.prod(eng.mu[list(C)]))), 1e-12), 1.0 - 1e-12)
    params = 2.0 ** len(parents)
    if eng.half * params >= eng.n * math.log(2.0):
        return -math.inf
    rows, options = [], []
    for A in parents:
        rows.append(eng.feature(A, "par"))
        options.append([len(rows) - 1])
        if len(A) > 1:
            rows.append(eng.feature(A, "maj"))
            options[-1].append(len(rows) - 1)
    B = np.array(rows, dtype=np.int8) if rows else np.zeros((0, eng.n), np.int8)
    choosable = [j for j, o in enumerate(options) if len(o) > 1]

    def fit(choice):
        return tilt_gain(y, B, np.array([options[j][c] for j, c in enumerate(choice)], dtype=np.int64), q1)

    if len(choosable) <= 1:
        gain = max(fit(ch) for ch in itertools.product(*[range(len(o)) for o in options]))
    else:
        choice = [0] * len(parents)
        gain = fit(choice)
        alt = [1 if len(o) > 1 else 0 for o in options]
        if fit(alt) > gain:
            choice, gain = alt, fit(alt)
        for j in choosable:
            choice[j] ^= 1
            g = fit(choice)
            if g > gain:
                gain = g
            else:
                choice[j] ^= 1
    return gain - eng.half * params - math.log(2.0) * len(choosable)


@pytest.mark.parametrize("mechanism", ["parity", "majority"])
def test_tilt_in_one_kernel_equals_the_python_choice(mechanism):
    from macrocause.plugins.cic.family import FamilyEngine
    from macrocause.plugins.cic.simulate import random_cluster_dag

    data = random_cluster_dag(n_clusters=6, cluster_size=3, mechanism=mechanism, n=500, seed=2)
    eng = FamilyEngine(np.asarray(data.X), True)
    rng = np.random.default_rng(0)
    for _ in range(60):
        cut = np.sort(rng.choice(np.arange(1, 18), 6, replace=False))
        blocks = [tuple(int(v) for v in b) for b in np.split(rng.permutation(18), cut) if b.size]
        C, parents = blocks[0], tuple(sorted(blocks[1:1 + int(rng.integers(0, 5))]))
        assert eng._tilt(C, parents) == old_tilt(eng, C, parents)
