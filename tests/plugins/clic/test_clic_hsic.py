"""HSIC gamma test, its running sums, and the incremental update."""

import numpy as np
import pytest
from scipy.special import gammaincc

from macrocause.framework.numeric_kernels import log_gamma_q
from macrocause.plugins.clic import _kernels as K
from macrocause.plugins.clic.hsic import cluster_bandwidths, hsic_test, median_bandwidth


def _dense_hsic(x, y, sx, sy):
    n = len(x)
    Kx = np.exp(-((x[:, None] - x[None, :]) ** 2) / (2 * sx**2))
    Ly = np.exp(-((y[:, None] - y[None, :]) ** 2) / (2 * sy**2))
    H = np.eye(n) - 1.0 / n
    Kc, Lc = H @ Kx @ H, H @ Ly @ H
    stat = np.sum(Kc * Lc) / n
    return stat, Kx, Ly


def test_log_gamma_q_matches_scipy():
    for a, x in [(0.5, 0.1), (2, 3), (10, 30), (100, 90), (3.7, 200), (7.0, 1.0)]:
        assert log_gamma_q(a, x) == pytest.approx(np.log(gammaincc(a, x)), rel=1e-9, abs=1e-12)


def test_statistic_equals_dense_formula():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(60)
    y = x**2 + rng.standard_normal(60)
    sx, sy = median_bandwidth(x), median_bandwidth(y)
    stat, _, _ = _dense_hsic(x, y, sx, sy)
    assert hsic_test(x, y).statistic == pytest.approx(stat, rel=1e-10)


def _perm_p(x, y, sx, sy, n_perm, rng):
    stat, Kx, Ly = _dense_hsic(x, y, sx, sy)
    n = len(x)
    H = np.eye(n) - 1.0 / n
    Kc = H @ Kx @ H
    null = []
    for _ in range(n_perm):
        p = rng.permutation(n)
        null.append(np.sum(Kc * (H @ Ly[np.ix_(p, p)] @ H)) / n)
    return (1 + np.sum(np.array(null) >= stat)) / (n_perm + 1)


@pytest.mark.parametrize("dep", [0.0, 0.25, 0.6])
def test_gamma_pvalue_agrees_with_permutation_test(dep):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(80)
    y = dep * np.sin(2 * x) + rng.standard_normal(80)
    sx, sy = median_bandwidth(x), median_bandwidth(y)
    gamma_p = hsic_test(x, y).pvalue
    perm_p = _perm_p(x, y, sx, sy, 400, rng)
    assert abs(np.log10(max(gamma_p, 1e-3)) - np.log10(max(perm_p, 1e-3))) < 0.7
    assert (gamma_p < 0.05) == (perm_p < 0.05)


def test_incremental_update_equals_recomputation():
    rng = np.random.default_rng(2)
    X = np.ascontiguousarray(rng.standard_normal((70, 4)))
    m = 3
    labels = (np.arange(70) % m).astype(np.int64)
    sig = cluster_bandwidths(X, labels, m)
    R, Sv, scal, counts = K.build_state(X, labels, m, sig)
    for p in rng.integers(0, 70, 25):
        a, b = labels[p], (labels[p] + 1 + rng.integers(0, m - 1)) % m
        K.move(X, labels, sig, R, Sv, scal, counts, p, a, -1)
        labels[p] = b
        K.move(X, labels, sig, R, Sv, scal, counts, p, b, 1)
    R2, Sv2, scal2, counts2 = K.build_state(X, labels, m, sig)
    np.testing.assert_array_equal(counts, counts2)
    np.testing.assert_allclose(scal, scal2, rtol=1e-10, atol=1e-8)
    mask = np.stack([labels == c for c in range(m)])[:, None, :]
    np.testing.assert_allclose(R * mask, R2 * mask, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(K.all_cluster_logp(scal, counts), K.all_cluster_logp(scal2, counts2), rtol=1e-8)


def test_running_sums_match_dense_matrices():
    rng = np.random.default_rng(3)
    X = np.ascontiguousarray(rng.standard_normal((30, 3)))
    labels = np.zeros(30, dtype=np.int64)
    sig = np.array([[0.8, 1.1, 0.9]])
    _, _, scal, _ = K.build_state(X, labels, 1, sig)
    G = [np.exp(-((X[:, j][:, None] - X[:, j][None, :]) ** 2) / (2 * sig[0, j] ** 2)) for j in range(3)]
    Km, Lm = G[0], G[1] * G[2]
    r, s = Km.sum(1), Lm.sum(1)
    want = [r.sum(), r @ r, (Km**2).sum(), s.sum(), s @ s, (Lm**2).sum(), (Km * Lm).sum(), r @ s]
    np.testing.assert_allclose(scal[0, 0], want, rtol=1e-12)
