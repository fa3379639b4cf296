"""CAFE DBSCAN: hand-checked cases, a brute-force reference of Algorithm 1, parameters and bad input."""

from collections import deque

import numpy as np
import pytest

from macrocause.framework import Dataset, registry
from macrocause.framework.errors import ConfigError, DataValidationError


def squares(left_states, right_states):
    """Two touching 20 x 20 grids of spacing 0.05: x in [0, 0.95] and [1.0, 1.95]."""
    g = np.arange(20) * 0.05
    xx, yy = np.meshgrid(g, g)
    left = np.column_stack([xx.ravel(), yy.ravel()])
    X = np.concatenate([left, left + [1.0, 0.0]])
    two = ((np.arange(400) // 20 + 2 * np.arange(400)) % 5 == 0)  # every 5th point along rows and columns
    y = np.concatenate([np.where(two, 2, left_states), np.where(two, 2, right_states)])
    return X, y


def cafe(**kw):
    return registry.create("cafe_dbscan", **kw)


def test_touching_squares_with_different_distributions_are_split():
    X, y = squares(0, 1)  # left: 80% state 0, right: 80% state 1 (20% state 2 in both)
    part = cafe(eps=0.16, min_points=5, tau=0.3).partition(Dataset(X, target=y))
    right = X[:, 0] >= 1.0
    assert part.n_clusters == 2
    sides = [right[idx] for idx in part.clusters]
    assert sorted(int(s.mean() > 0.5) for s in sides) == [0, 1]  # one cluster per square
    for s in sides:  # >= 99% of each cluster in its square and >= 98% of the square covered
        assert max(s.mean(), 1 - s.mean()) >= 0.99 and max(s.sum(), (~s).sum()) >= 392
    # only minority-state (2) points at the seam cross over: a lone state-2 point has total
    # variation 0.8 from either cluster, so it joins later with a mixed region (Algorithm 1 as
    # printed); a few such leftovers stay unclassified (noise)
    crossed = np.concatenate([idx[right[idx] != (s.mean() > 0.5)] for idx, s in zip(part.clusters, sides)])
    assert set(y[crossed]) <= {2} and np.all(np.abs(X[crossed, 0] - 0.975) < 0.1)
    assert part.noise.sum() <= 8
    dist = part.info["distributions"]
    assert dist[:, 0].max() == pytest.approx(0.8, abs=0.01) and dist[:, 1].max() == pytest.approx(0.8, abs=0.01)
    assert part.info["states"] == [0, 1, 2]


def test_identical_distributions_are_merged():
    X, y = squares(0, 0)
    part = cafe(eps=0.16, min_points=5, tau=0.3).partition(Dataset(X, target=y))
    assert part.n_clusters == 1 and part.noise.sum() <= 8 and set(y[part.noise]) <= {2}
    np.testing.assert_allclose(part.info["distributions"], [[0.8, 0.2]], atol=0.01)


def test_isolated_points_are_noise():
    X, y = squares(0, 1)
    far = np.array([[10.0, 10.0], [-5.0, 3.0], [4.0, -6.0]])
    ds = Dataset(np.concatenate([X, far]), target=np.concatenate([y, [0, 1, 2]]))
    part = cafe(eps=0.16, min_points=5, tau=0.3).partition(ds)
    assert part.noise[-3:].all()
    assert part.same_clustering(type(part)(np.r_[cafe(eps=0.16, min_points=5, tau=0.3).partition(Dataset(X, target=y)).labels, [-1, -1, -1]]))


def brute_cafe(X, codes, m, eps, mu, tau, p=2):
    """Algorithm 1 written out with an O(n^2) distance matrix."""
    n = len(X)
    D = np.linalg.norm(X[:, None] - X[None], ord=p, axis=2)
    labels = np.full(n, -1)
    c = 0
    for x in range(n):
        if labels[x] != -1:
            continue
        region = [q for q in np.flatnonzero(D[x] <= eps) if labels[q] == -1]
        if len(region) < mu:
            continue
        hist = np.zeros(m)
        queue = deque()
        for q in region:
            labels[q] = c
            hist[codes[q]] += 1
            queue.append(q)
        while queue:
            xp = queue.popleft()
            reg = [q for q in np.flatnonzero(D[xp] <= eps) if labels[q] == -1]
            if not reg:
                continue
            h = np.bincount(codes[reg], minlength=m)
            if 0.5 * np.abs(h / len(reg) - hist / hist.sum()).sum() <= tau + 1e-12:
                for q in reg:
                    labels[q] = c
                    hist[codes[q]] += 1
                    queue.append(q)
        c += 1
    return labels


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric,p", [("euclidean", 2), ("manhattan", 1), ("chebyshev", np.inf)])
def test_matches_brute_force_reference(seed, metric, p):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(0, 1, (80, 2)), rng.normal([3, 0], 1, (80, 2))])
    y = np.concatenate([rng.choice(3, 80, p=[0.7, 0.2, 0.1]), rng.choice(3, 80, p=[0.1, 0.2, 0.7])])
    eps, mu, tau = 0.6, 4 + seed, 0.25 + 0.05 * seed
    part = cafe(eps=eps, min_points=mu, tau=tau, metric=metric).partition(Dataset(X, target=y))
    assert np.array_equal(part.labels, brute_cafe(X, y, 3, eps, mu, tau, p))


def test_distributions_match_cluster_contents():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 3, (300, 2))
    y = np.where(X[:, 0] < 1.5, rng.choice(["a", "b"], 300, p=[0.9, 0.1]), rng.choice(["a", "b"], 300, p=[0.1, 0.9]))
    part = cafe(eps=0.3, min_points=8, tau=0.3).partition(Dataset(X, target=y))
    assert part.info["states"] == ["a", "b"]
    for row, idx in zip(part.info["distributions"], part.clusters):
        np.testing.assert_allclose(row, [np.mean(y[idx] == "a"), np.mean(y[idx] == "b")])


def test_deterministic_and_input_unchanged():
    X, y = squares(0, 1)
    ds = Dataset(X, target=y)
    a = cafe().partition(ds)  # automatic mode
    b = cafe().partition(ds)
    assert a == b and a.n_clusters == 2
    assert {"eps", "min_points", "tau", "auto"} <= set(a.info)
    np.testing.assert_array_equal(ds.X, X)


def test_partial_parameters_follow_heuristic():
    from macrocause.plugins.cafe_dbscan._core import (
        heuristic_eps,
        heuristic_min_points,
        heuristic_tau,
    )

    X, y = squares(0, 1)
    ds = Dataset(X, target=y)
    part = cafe(eps=0.16).partition(ds)
    mu = heuristic_min_points(800)
    assert mu == 10 and part.info["min_points"] == mu and part.info["eps"] == 0.16
    assert part.info["tau"] == heuristic_tau(3, mu) == 0.4
    part2 = cafe(min_points=5, tau=0.3).partition(ds)
    assert part2.info["eps"] == pytest.approx(heuristic_eps(X, 5, "euclidean"))


def test_bic_gain_extremes():
    from macrocause.plugins.cafe_dbscan.partitioner import bic_gain

    y = np.repeat([0, 1], 500)
    assert bic_gain(np.repeat([0, 1], 500), y, 2) == pytest.approx(1 - 0.5 * np.log(1000) / (1000 * np.log(2)))
    assert bic_gain(np.zeros(1000, int), y, 2) == 0.0


def test_bic_gain_counts_noise_as_unexplained():
    from macrocause.plugins.cafe_dbscan.partitioner import bic_gain

    # a quarter of the points noise: they stay under P(Y) = (1/2, 1/2) and add no gain; three
    # distributions (two clusters and the global one) cost 2 x (m - 1) log(n) / 2 over P(Y)
    y = np.repeat([0, 1], 500)
    lab = np.repeat([0, 1], 500)
    lab[:250] = -1
    n, h = 1000, np.log(2)
    assert bic_gain(lab, y, 2) == pytest.approx((750 * h - np.log(n)) / (n * h))
    assert bic_gain(lab, y, 2) < bic_gain(np.repeat([0, 1], 500), y, 2)
    assert bic_gain(np.full(1000, -1), y, 2) == 0.0


def test_no_target_is_rejected():
    with pytest.raises(DataValidationError, match="needs a target of effect states"):
        cafe(eps=0.1, min_points=3, tau=0.3).partition(np.random.default_rng(0).random((20, 2)))


def test_target_length_mismatch_is_rejected():
    with pytest.raises(DataValidationError, match="one effect state per sample"):
        Dataset(np.zeros((10, 2)), target=np.zeros(9))


def test_one_effect_state_is_rejected():
    with pytest.raises(DataValidationError, match="at least 2 distinct effect states"):
        cafe(eps=0.1, min_points=3, tau=0.3).partition(Dataset(np.random.default_rng(0).random((20, 2)), target=np.ones(20)))


def test_nan_is_rejected():
    X = np.random.default_rng(0).random((20, 2))
    X[3, 1] = np.nan
    with pytest.raises(DataValidationError, match="NaN"):
        cafe(eps=0.1, min_points=3, tau=0.3).partition(X)


@pytest.mark.parametrize("bad", [{"eps": 0.0}, {"tau": 1.5}, {"min_points": 0}, {"metric": "cosine"}])
def test_bad_parameters(bad):
    with pytest.raises(ConfigError, match=next(iter(bad))):
        cafe(**bad)
