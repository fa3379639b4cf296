"""CLIC's search variants (best single moves, paper sweep, starts, stop rules) and the matched MMD."""

import itertools

import numpy as np
import pytest

from macrocause.framework import Dataset, Partition, registry
from macrocause.plugins.clic import _kernels as K
from macrocause.plugins.clic.evaluators import squared_mmd
from macrocause.plugins.clic.hsic import cluster_bandwidths, median_bandwidth
from macrocause.plugins.clic.simulate import product_mixture


def _objective(X, labels, m, sig):
    _, _, scal, counts = K.build_state(X, labels, m, sig)
    return -K.all_cluster_logp(scal, counts).sum()


def test_best_move_is_the_brute_force_best():
    rng = np.random.default_rng(4)
    X = np.ascontiguousarray(rng.standard_normal((45, 3)))
    X[:15, 1] += X[:15, 0]  # one dependent patch, so moves matter
    m = 3
    labels = (np.arange(45) % m).astype(np.int64)
    sig = cluster_bandwidths(X, labels, m)
    R, Sv, scal, counts = K.build_state(X, labels, m, sig)
    logp = K.all_cluster_logp(scal, counts)
    before = labels.copy()
    p, c, gain = K.best_move(X, labels, sig, R, Sv, scal, counts, logp, 6)
    np.testing.assert_array_equal(labels, before)  # state restored
    R2, Sv2, scal2, counts2 = K.build_state(X, labels, m, sig)
    np.testing.assert_allclose(scal, scal2, rtol=1e-9, atol=1e-8)
    base = _objective(X, labels, m, sig)
    best = (None, 0.0)
    for q, t in itertools.product(range(45), range(m)):
        if t == labels[q]:
            continue
        lab = labels.copy()
        lab[q] = t
        g = base - _objective(X, lab, m, sig)
        if g > best[1]:
            best = ((q, t), g)
    assert best[0] is not None and (p, c) == best[0]
    assert gain == pytest.approx(best[1], rel=1e-6)


@pytest.mark.parametrize("seed", [7, 5])
def test_greedy_moves_stop_when_independent(seed):
    X = np.ascontiguousarray(np.random.default_rng(seed).standard_normal((60, 2)))
    labels = (np.arange(60) % 2).astype(np.int64)
    sig = cluster_bandwidths(X, labels, 2)
    R, Sv, scal, counts = K.build_state(X, labels, 2, sig)
    logp = K.all_cluster_logp(scal, counts)
    passes = bool(np.all(logp > np.log(0.05)))  # seed 7: both halves pass; seed 5: one fails
    n = K.greedy_moves(X, labels, sig, R, Sv, scal, counts, logp, 50, 6, np.log(0.05), True)
    assert (n == 0) == passes
    assert np.all(logp > np.log(0.05)) or n == 50
    np.testing.assert_allclose(logp, K.all_cluster_logp(*K.build_state(X, labels, 2, sig)[2:]), rtol=1e-8)


def test_em_start_is_kept_when_its_clusters_pass():
    X, z = product_mixture(2, 3, 100, 5)
    X[z == 1] += 3.0
    ds = Dataset(X, discrete=False)
    em = registry.create("gmm_em", n_components=2, seed=0).partition(ds)
    cl = registry.create("clic", n_components=2, seed=0).partition(ds)
    assert cl.info["independent"] and cl.info["iterations"] == 0 and cl.info["moves"] == 0
    assert cl == Partition(np.unique(em.labels, return_inverse=True)[1])


@pytest.mark.parametrize("params", [
    {"init": "random", "moves": "sweep"}, {"init": "kmeans", "stop": "converged"}, {"init": "best"},
    {"init": "random", "moves": "sweep", "c": 2},
])
def test_variants_recover_separated_components(params):
    X, z = product_mixture(2, 2, 80, 1)
    X[z == 1] += 4.0
    a = registry.create("clic", n_components=2, seed=2, max_iter=3, **params).partition(X)
    agree = np.mean(a.labels == z)
    assert max(agree, 1 - agree) > 0.9
    assert a == registry.create("clic", n_components=2, seed=2, max_iter=3, **params).partition(X)
    if params["init"] == "best":
        assert set(a.info["init_objectives"]) == {"kmeans", "gmm_em"}


def test_squared_mmd_matches_brute_force():
    rng = np.random.default_rng(6)
    A, B = rng.standard_normal((7, 2)), rng.standard_normal((5, 2)) + 0.5
    sig = np.array([0.7, 1.3])

    def k(u, v):
        return np.exp(-np.sum((u - v) ** 2 / (2 * sig**2)))

    want = (np.mean([k(a, b) for a in A for b in A]) + np.mean([k(a, b) for a in B for b in B])
            - 2 * np.mean([k(a, b) for a in A for b in B]))
    assert squared_mmd(A, B, sig) == pytest.approx(want, rel=1e-12)


def test_mmd_matching_takes_the_best_permutation():
    X, z = product_mixture(3, 2, 20, 3)
    out = np.random.default_rng(7).integers(0, 3, len(z))
    ds = Dataset(X)
    sig = np.array([median_bandwidth(c) for c in X.T])
    C = np.array([[squared_mmd(X[out == a], X[z == b], sig) for b in range(3)] for a in range(3)])
    want = min(sum(C[a, perm[a]] for a in range(3)) for perm in itertools.permutations(range(3))) / 3
    ev = registry.create("mmd_matching").evaluate(ds, Partition(out), Partition(z))
    assert ev.value == pytest.approx(want, rel=1e-12)
    assert ev.value == pytest.approx(
        registry.create("mmd_matching").evaluate(ds, Partition(z), Partition(out)).value, rel=1e-12)


def test_search_options_reject_unknown_values():
    from macrocause.framework.errors import ConfigError

    for name, bad in (("init", "spectral"), ("moves", "all"), ("stop", "never")):
        with pytest.raises(ConfigError, match=name):
            registry.create("clic", **{name: bad})


def test_low_rank_kernel_mode_matches_exact_on_small_data():
    from scipy.linalg import svdvals

    from macrocause.plugins.clic.rank import (
        estimate_rank,
        incomplete_cholesky,
        neighbour_bandwidths,
    )

    for m, seed in ((2, 0), (3, 1)):
        X = product_mixture(m, 3, 80, seed)[0]
        exact, low = estimate_rank(X, kernel="exact"), estimate_rank(X, kernel="low_rank")
        assert low.split_ranks == exact.split_ranks and low.rank == exact.rank
    sig = neighbour_bandwidths(X)
    n = len(X)
    K = [np.exp(-0.5 * ((X[:, j][:, None] - X[:, j][None, :]) / sig[j]) ** 2) for j in range(3)]
    KA, KB = K[0], K[1] * K[2]
    GA, GB = incomplete_cholesky(X[:, :1], sig[:1], 1e-7), incomplete_cholesky(X[:, 1:], sig[1:], 1e-7)
    for Kx, G in ((KA, GA), (KB, GB)):
        assert G.shape[1] < n and np.trace(Kx - G @ G.T) <= 1e-7 * n + 1e-9  # the stated tolerance
        assert np.linalg.eigvalsh(Kx - G @ G.T).min() >= -1e-8  # the residual is PSD
    s, s_low = svdvals(KA @ KB / n), svdvals(GA @ (GA.T @ GB) @ GB.T / n)
    np.testing.assert_allclose(s_low[:20], s[:20], rtol=0, atol=2e-7 * n)  # Weyl: ||V - V~|| <= 2 tol n


def test_kernel_rank_switches_to_low_rank_above_the_size(monkeypatch):
    from macrocause.plugins.clic import rank

    calls = []
    real = rank._estimate_low_rank
    monkeypatch.setattr(rank, "_estimate_low_rank", lambda *a: calls.append(len(a[0])) or real(*a))
    monkeypatch.setattr(rank, "LOW_RANK_MIN_N", 150)
    small, big = product_mixture(2, 3, 70, 0)[0], product_mixture(2, 3, 80, 0)[0]  # 140 and 160 samples
    assert rank.estimate_rank(small).rank == rank.estimate_rank(small, kernel="exact").rank
    assert calls == []
    assert rank.estimate_rank(big).rank == 2 and calls == [160]
    ev = registry.create("kernel_rank", kernel="low_rank").evaluate(Dataset(small))
    assert ev.value == 2 and calls == [160, 140]


def _state_with_wrong_points(seed=1):
    X, z = product_mixture(3, 3, 60, seed)
    X = np.ascontiguousarray(X)
    labels = z.astype(np.int64).copy()
    flip = np.random.default_rng(0).choice(len(z), 20, replace=False)
    labels[flip] = (labels[flip] + 1) % 3
    sig = cluster_bandwidths(X, labels, 3)
    R, Sv, scal, counts = K.build_state(X, labels, 3, sig)
    return X, labels, sig, R, Sv, scal, counts, K.all_cluster_logp(scal, counts)


def test_clic_low_rank_scores_equal_exact_within_the_tolerance():
    from macrocause.plugins.clic.lowrank import features, member_sums, pivoted_cholesky

    X, labels, sig, R, Sv, scal, counts, logp = _state_with_wrong_points()
    target, gain = K.exact_gains(X, labels, sig, R, Sv, scal, counts, logp, 10)
    assert gain.max() > 1  # moves matter here
    for tol, atol in ((1e-12, 1e-6), (1e-3, 0.1)):  # full rank: equal; the default: close
        f = features(X, labels, sig, tol, 1000)
        t_low, g_low = K.scan_gains(member_sums(f, labels, R, Sv), labels, R, Sv, scal, counts, logp, 10)
        np.testing.assert_allclose(g_low, gain, atol=atol)
        assert np.argmax(g_low) == np.argmax(gain)
    assert (t_low == target).mean() > 0.95
    Z = X[labels == 0] / sig[0]
    G, piv = pivoted_cholesky(Z, 1e-3)
    Kx = np.exp(-0.5 * ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    assert G.shape[1] < len(Z) and np.trace(Kx - G @ G.T) <= 1e-3 * len(Z) + 1e-9  # the stated tolerance


def test_clic_low_rank_mode_equals_exact_on_small_data(monkeypatch):
    from macrocause.plugins.clic import rank

    X = product_mixture(3, 3, 60, 1)[0]
    kw = {"n_components": 3, "init": "random", "seed": 0, "max_iter": 2}
    exact = registry.create("clic", kernel="exact", **kw).partition(X)
    low = registry.create("clic", kernel="low_rank", moves_per_scan=1, **kw).partition(X)
    assert exact.info["moves"] == 20 and exact.info["kernel"] == "exact" and low.info["kernel"] == "low_rank"
    np.testing.assert_array_equal(low.labels, exact.labels)
    np.testing.assert_allclose(low.info["pvalues"], exact.info["pvalues"], rtol=1e-9)
    monkeypatch.setattr(rank, "LOW_RANK_MIN_N", 150)  # auto: low-rank above the size
    auto = registry.create("clic", **{**kw, "max_iter": 1}).partition(X)
    assert auto.info["kernel"] == "low_rank" and auto.info["moves_per_scan"] == 1


def test_batch_moves_apply_only_exactly_improving_candidates():
    X, labels, sig, R, Sv, scal, counts, logp = _state_with_wrong_points()
    target, gain = K.exact_gains(X, labels, sig, R, Sv, scal, counts, logp, 10)
    bad = np.flatnonzero(target < 0)[:5]  # no improving move: proposed anyway, must be refused
    before = _objective(X, labels, 3, sig)
    cand = np.concatenate([bad, np.argsort(-gain)[:8]])
    tgt = np.concatenate([(labels[bad] + 1) % 3, target[np.argsort(-gain)[:8]]])
    n = K.apply_candidates(X, labels, sig, R, Sv, scal, counts, logp, cand, tgt, 6, 10, np.log(0.05), False)
    assert 1 <= n <= 6 and not np.any(labels[bad] != _state_with_wrong_points()[1][bad])
    after = _objective(X, labels, 3, sig)
    assert after < before - 1
    np.testing.assert_allclose(-logp.sum(), after, rtol=1e-8)  # the running state stays exact
