"""CAFE DBSCAN's refinement and automatic mode: hand-made cases with known answers."""

import numpy as np
import pytest
from scipy.stats import chi2_contingency
from sklearn.metrics import normalized_mutual_info_score

from macrocause.framework import Dataset, registry
from macrocause.framework.numeric import compact_labels as compact
from macrocause.plugins.cafe_dbscan._core import (
    g_test,
    neighbourhoods,
    noise_rate,
    refine,
    sparse_threshold,
)


def touching_squares(seed=0, n=400, n_noise=60, p_left=(0.7, 0.1, 0.1, 0.1), p_right=(0.1, 0.7, 0.1, 0.1)):
    """Two touching unit squares [0, 1] x [0, 1] and [1, 2] x [0, 1] (uniform points, 4 effect
    states) and uniform noise on [-2, 4] x [-2, 3] with uniform states; truth 0 / 1 / -1."""
    rng = np.random.default_rng(seed)
    left = rng.uniform(0, 1, (n, 2))
    right = rng.uniform(0, 1, (n, 2)) + [1.0, 0.0]
    noise = rng.uniform([-2, -2], [4, 3], (n_noise, 2))
    X = np.concatenate([left, right, noise])
    y = np.concatenate([rng.choice(4, n, p=p_left), rng.choice(4, n, p=p_right), rng.integers(0, 4, n_noise)])
    truth = np.concatenate([np.zeros(n, int), np.ones(n, int), np.full(n_noise, -1)])
    return X, y, truth


def test_automatic_mode_finds_the_two_touching_squares():
    X, y, truth = touching_squares()
    part = registry.create("cafe_dbscan").partition(Dataset(X, target=y))
    assert part.n_clusters == 2 and part.info["refined"] is True
    assert normalized_mutual_info_score(truth, part.labels) > 0.85
    inside = truth >= 0
    # each square is (almost all) one cluster, the two clusters differ
    major = [np.bincount(part.labels[truth == c][part.labels[truth == c] >= 0]).argmax() for c in (0, 1)]
    assert major[0] != major[1]
    for c in (0, 1):
        assert np.mean(part.labels[truth == c] == major[c]) > 0.9
    # noise far from the squares stays noise
    far = (~inside) & ((X[:, 0] < -0.3) | (X[:, 0] > 2.3) | (X[:, 1] < -0.3) | (X[:, 1] > 1.3))
    assert np.all(part.labels[far] == -1)
    # the distributions are those of the squares (state 0 resp. 1 dominant)
    assert sorted(int(r.argmax()) for r in part.info["distributions"]) == [0, 1]


def test_automatic_mode_is_deterministic():
    X, y, _ = touching_squares(seed=3)
    ds = Dataset(X, target=y)
    a = registry.create("cafe_dbscan").partition(ds)
    b = registry.create("cafe_dbscan").partition(ds)
    assert np.array_equal(a.labels, b.labels)
    assert a.info["auto"] == b.info["auto"]
    assert (a.info["eps"], a.info["min_points"], a.info["tau"]) == (b.info["eps"], b.info["min_points"], b.info["tau"])
    # the chosen candidate is in the table, had a DISCO score, and is the best of the scored ones
    scored = [r for r in a.info["auto"] if "disco" in r]
    best = max(scored, key=lambda r: r["disco"])
    assert (best["eps"], best["min_points"], best["tau"]) == (a.info["eps"], a.info["min_points"], a.info["tau"])
    top = max(r["bic_gain"] for r in a.info["auto"])
    assert all(r["bic_gain"] >= top - 0.03 * abs(top) for r in scored)


def test_refine_moves_a_misplaced_boundary_to_the_true_one():
    X, y, truth = touching_squares(n=600, n_noise=0)
    ip, ix = neighbourhoods(X, 0.12, "euclidean")
    wrong = (X[:, 0] >= 1.3).astype(np.int64)  # boundary at x = 1.3 instead of 1.0
    out = refine(ip, ix, y, 4, wrong, min_points=10)
    assert out.max() == 1 and np.mean(out >= 0) > 0.99  # only a few corner points are sparse
    agree = max(np.mean(out == truth), np.mean(out == 1 - truth))
    assert np.mean(wrong == truth) < 0.86 and agree > 0.95


def test_refine_merges_touching_clusters_with_the_same_distribution():
    X, y, truth = touching_squares(n=500, n_noise=0, p_right=(0.7, 0.1, 0.1, 0.1))
    ip, ix = neighbourhoods(X, 0.12, "euclidean")
    out = refine(ip, ix, y, 4, truth.astype(np.int64), min_points=10)
    assert out.max() == 0 and np.mean(out == 0) > 0.99  # one cluster; a few sparse corner points are noise


def test_refine_keeps_distinct_touching_clusters_apart():
    X, y, truth = touching_squares(n=500, n_noise=0)
    ip, ix = neighbourhoods(X, 0.12, "euclidean")
    out = refine(ip, ix, y, 4, truth.astype(np.int64), min_points=10)
    assert out.max() == 1 and np.mean(out == truth) > 0.96


def test_refine_makes_sparse_points_noise_and_dissolves_small_clusters():
    X, y, truth = touching_squares(n=300, n_noise=0)
    far = np.array([[5.0, 5.0], [5.05, 5.0], [-4.0, 0.0]])
    Xf = np.concatenate([X, far])
    yf = np.concatenate([y, [0, 1, 2]])
    ip, ix = neighbourhoods(Xf, 0.12, "euclidean")
    lab = np.concatenate([truth, [0, 0, 1]]).astype(np.int64)  # far points wrongly in the squares' clusters
    out = refine(ip, ix, yf, 4, lab, min_points=10)
    assert np.all(out[-3:] == -1)
    # a tiny cluster (5 points) inside the left square is dissolved into its surroundings
    lab2 = truth.astype(np.int64).copy()
    lab2[np.flatnonzero(truth == 0)[:5]] = 2
    out2 = refine(*neighbourhoods(X, 0.12, "euclidean"), y, 4, lab2, min_points=10)
    assert out2.max() == 1


def test_noise_rate_recovers_the_low_poisson_rate():
    rng = np.random.default_rng(0)
    deg = 1 + np.concatenate([rng.poisson(1.0, 2000), rng.poisson(30.0, 8000)])  # counts include the point
    assert noise_rate(deg) == pytest.approx(1.0, abs=0.1)


def test_sparse_threshold_without_noise_is_a_quarter_of_the_median():
    # no background noise: the mixture's low component is the squares' edge (rate above half the
    # median), so only the quarter-of-the-median rule applies
    X, _, _ = touching_squares(n=600, n_noise=0)
    deg = np.diff(neighbourhoods(X, 0.12, "euclidean")[0])
    med = float(np.median(deg))
    assert noise_rate(deg) >= med / 2
    assert sparse_threshold(deg, med, 1 / 4, 0.99, 1 / 2) == pytest.approx(med / 4)


def test_sparse_rule_keeps_edge_points_and_rises_with_dense_noise():
    # light noise: a quarter of the median keeps the squares' corner points that a third drops
    X, y, truth = touching_squares(seed=0, n=600, n_noise=60)
    ip, ix = neighbourhoods(X, 0.12, "euclidean")
    lost = [int(np.sum((truth >= 0) & (refine(ip, ix, y, 4, truth.astype(np.int64), 10, **kw) < 0)))
            for kw in ({"density": 1 / 3, "noise_quantile": 0.0}, {})]
    assert lost[1] < lost[0] and lost[1] <= 2
    # dense noise (4,000 points, rate ~6 per neighbourhood): the Poisson quantile of the noise count
    # raises the threshold, so far fewer noise points are absorbed than with the quarter alone
    X, y, truth = touching_squares(seed=0, n=600, n_noise=4000)
    ip, ix = neighbourhoods(X, 0.12, "euclidean")
    absorbed = [int(np.sum((truth < 0) & (refine(ip, ix, y, 4, truth.astype(np.int64), 10, **kw) >= 0)))
                for kw in ({"noise_quantile": 0.0}, {})]
    assert absorbed[1] < absorbed[0] - 100


def dense_and_sparse_squares(seed=0, n_sparse=600):
    """Two touching unit squares without background noise, 1,500 points (mostly state 0) and
    ``n_sparse`` points (mostly state 1): regions of different density, like an image's sky and
    its lamp."""
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.uniform(0, 1, (1500, 2)), rng.uniform([1, 0], [2, 1], (n_sparse, 2))])
    y = np.concatenate([rng.choice(3, 1500, p=[0.9, 0.05, 0.05]), rng.choice(3, n_sparse, p=[0.05, 0.9, 0.05])])
    return X, y, np.repeat([0, 1], [1500, n_sparse])


def test_noise_raise_calls_a_sparse_cluster_noise_and_is_optional():
    # the mixture's low component is the sparse square (rate below half the median), so the raise
    # (to its 0.99 quantile, capped at half the median) drops about half of that square; without
    # the raise it keeps its points
    X, y, truth = dense_and_sparse_squares()
    ip, ix = neighbourhoods(X, 0.07, "euclidean")
    lab = truth.astype(np.int64)
    lost = [float(np.mean(refine(ip, ix, y, 3, lab, 20, noise_quantile=nq)[truth == 1] < 0)) for nq in (0.99, None)]
    assert lost[0] > 0.4 and lost[1] < 0.1


def test_automatic_mode_keeps_a_sparse_state_pure_region(monkeypatch):
    import macrocause.plugins.cafe_dbscan.partitioner as mod

    X, y, truth = dense_and_sparse_squares()
    ds = Dataset(X, target=y)
    part = registry.create("cafe_dbscan").partition(ds)
    assert part.info["noise_quantile"] is None and part.n_clusters == 2
    assert np.mean(part.labels[truth == 1] < 0) < 0.1
    assert {r["noise_quantile"] for r in part.info["auto"]} == {0.99, None}
    # the earlier rule (every candidate refined with the raise) leaves about half the square noise
    monkeypatch.setattr(mod, "AUTO_NOISE_RULES", (0.99,))
    old = registry.create("cafe_dbscan").partition(ds)
    assert np.mean(old.labels[truth == 1] < 0) > 0.4


def test_g_test_matches_scipy():
    a, b = np.array([30.0, 5.0, 10.0, 0.0]), np.array([10.0, 20.0, 10.0, 0.0])
    ref = chi2_contingency(np.array([a, b])[:, :3], lambda_="log-likelihood", correction=False)[1]
    assert g_test(a, b) == pytest.approx(ref, rel=1e-9)
    assert g_test(a, a) == pytest.approx(1.0)
    assert g_test(np.array([5.0, 0.0]), np.array([7.0, 0.0])) == 1.0


def test_compact_orders_by_first_appearance():
    np.testing.assert_array_equal(compact(np.array([5, -1, 2, 5, 9, 2])), [0, -1, 1, 0, 2, 1])


def test_refine_flag_with_given_parameters():
    X, y, truth = touching_squares()
    ds = Dataset(X, target=y)
    plain = registry.create("cafe_dbscan", eps=0.12, min_points=10, tau=0.4).partition(ds)
    ref = registry.create("cafe_dbscan", eps=0.12, min_points=10, tau=0.4, refine=True).partition(ds)
    assert plain.info["refined"] is False and ref.info["refined"] is True
    nmi = [normalized_mutual_info_score(truth, p.labels) for p in (plain, ref)]
    assert nmi[1] >= nmi[0]
    for row, idx in zip(ref.info["distributions"], ref.clusters):
        np.testing.assert_allclose(row, np.bincount(y[idx], minlength=4) / len(idx))
