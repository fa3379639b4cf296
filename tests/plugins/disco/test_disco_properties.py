"""DISCO against a brute-force O(n^3) implementation, hand-computed cases and edge cases."""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from macrocause.framework import Dataset, Partition, registry
from macrocause.framework.errors import DataValidationError

sys.path.insert(0, str(Path(__file__).parent))
from _brute import brute_disco  # noqa: E402


@st.composite
def labelled_points(draw):
    min_points = draw(st.integers(1, 5))
    n = draw(st.integers(max(min_points, 2), 28))
    d = draw(st.integers(1, 3))
    # a coarse integer grid: many equal distances (ties) and duplicate points
    grid = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.lists(st.integers(0, grid), min_size=d, max_size=d),
                               min_size=n, max_size=n)), dtype=float)
    n_labels = draw(st.integers(1, 4))
    y = np.array(draw(st.lists(st.integers(-1, n_labels - 1), min_size=n, max_size=n)))
    return X, y, min_points


@settings(max_examples=150, deadline=None)
@given(labelled_points())
def test_matches_brute_force(case):
    X, y, mp = case
    ev = registry.create("disco", min_points=mp).evaluate(X, y)
    ref = brute_disco(X, y, mp)
    np.testing.assert_allclose(ev.pointwise, ref, rtol=0, atol=1e-9)
    assert ev.value == pytest.approx(ref.mean(), abs=1e-12)
    assert np.all(ev.pointwise >= -1 - 1e-12) and np.all(ev.pointwise <= 1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(30, 150))
def test_mst_is_minimal(seed, n):
    """The Boruvka KD-tree MST has the weight of Prim's dense MST (ties from a grid)."""
    from macrocause.plugins.disco._disco import core_distances, mutual_reachability_mst
    from macrocause.plugins.disco._kernels import prim_mst_dense

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, 2)).astype(float) + (rng.random((n, 2)) < 0.5) * rng.random((n, 2))
    core, knn = core_distances(X, 4)
    u, v, w = mutual_reachability_mst(X, core, knn, leaf_size=4, method="boruvka")
    _, _, w_ref = prim_mst_dense(X, core)
    assert len(w) == n - 1
    assert w.sum() == pytest.approx(w_ref.sum(), abs=1e-9)
    np.testing.assert_allclose(np.sort(w), np.sort(w_ref), atol=1e-12)
    d = np.sqrt(((X[u] - X[v]) ** 2).sum(1))
    np.testing.assert_allclose(w, np.maximum(d, np.maximum(core[u], core[v])))


def test_hand_computed():
    # 1-D, min_points = 2: every core distance 1 except the far noise point (19)
    X = np.array([[0.0], [1.0], [10.0], [11.0], [30.0]])
    y = np.array([0, 0, 1, 1, -1])
    ev = registry.create("disco", min_points=2).evaluate(X, y)
    # cluster points: a = 1, b = 9 -> 8/9; noise: p_sparse = p_far = (19 - 1) / 19
    np.testing.assert_allclose(ev.pointwise, [8 / 9] * 4 + [18 / 19], atol=1e-15)
    assert ev.metrics["disco_clusters"] == pytest.approx(8 / 9)
    assert ev.metrics["disco_noise"] == pytest.approx(18 / 19)


def _blobs_with_noise(seed=0):
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(0, 0.3, (25, 2)), rng.normal(4, 0.3, (25, 2)), rng.uniform(-3, 7, (8, 2))])
    y = np.array([0] * 25 + [1] * 25 + [-1] * 8)
    return X, y


def test_only_noise():
    X, _ = _blobs_with_noise()
    ev = registry.create("disco").evaluate(X, np.full(len(X), -1))
    assert ev.value == -1.0 and np.all(ev.pointwise == -1.0)
    assert np.isnan(ev.metrics["disco_clusters"]) and ev.metrics["disco_noise"] == -1.0


def test_one_cluster():
    X, _ = _blobs_with_noise()
    ev = registry.create("disco").evaluate(X, np.full(len(X), 7))
    assert ev.value == 0.0 and np.all(ev.pointwise == 0.0)


def test_one_cluster_plus_noise():
    X, y = _blobs_with_noise()
    y1 = np.where(y == 1, 0, y)
    ev = registry.create("disco").evaluate(X, y1)
    np.testing.assert_allclose(ev.pointwise, brute_disco(X, y1), atol=1e-12)
    # the noise points act as singleton clusters for the cluster points' b(x): not the plain 0
    assert np.all(ev.pointwise[y1 == 0] != 0.0)


def test_singleton_clusters():
    X, y = _blobs_with_noise()
    y2 = y.copy()
    y2[[0, 30]] = [5, 6]
    ev = registry.create("disco").evaluate(X, y2)
    assert ev.pointwise[0] == 0.0 and ev.pointwise[30] == 0.0
    np.testing.assert_allclose(ev.pointwise, brute_disco(X, y2), atol=1e-12)
    # every point its own cluster: all zeros
    ev = registry.create("disco").evaluate(X, np.arange(len(X)))
    assert np.all(ev.pointwise == 0.0)


def test_duplicate_points():
    X = np.ones((12, 3))
    y = np.array([0] * 5 + [1] * 5 + [-1] * 2)
    ev = registry.create("disco").evaluate(X, y)
    assert np.all(ev.pointwise == 0.0)  # all distances 0: every 0/0 counts as 0
    Xd, yd = _blobs_with_noise()
    Xd = np.concatenate([Xd, Xd[:10]])
    yd = np.concatenate([yd, yd[:10]])
    np.testing.assert_allclose(registry.create("disco").evaluate(Xd, yd).pointwise,
                               brute_disco(Xd, yd), atol=1e-12)


def test_label_ids_do_not_matter():
    X, y = _blobs_with_noise()
    base = registry.create("disco").evaluate(X, y)
    odd = np.where(y == 0, 17, np.where(y == 1, 3, -1))
    ev = registry.create("disco").evaluate(X, Partition(odd))
    np.testing.assert_array_equal(ev.pointwise, base.pointwise)


def test_fewer_points_than_min_points():
    with pytest.raises(DataValidationError, match="min_points=5"):
        registry.create("disco").evaluate(np.zeros((4, 2)), [0, 0, 1, 1])
    ev = registry.create("disco", min_points=4).evaluate(np.arange(8.0).reshape(4, 2), [0, 0, 1, 1])
    assert np.isfinite(ev.value)


def test_nan_rejected():
    X, y = _blobs_with_noise()
    X[3, 1] = np.nan
    with pytest.raises(DataValidationError, match="NaN"):
        registry.create("disco").evaluate(X, y)


def test_wrong_length_and_params():
    X, y = _blobs_with_noise()
    with pytest.raises(DataValidationError):
        registry.create("disco").evaluate(Dataset(X), y[:-1])
    from macrocause.framework.errors import ConfigError

    with pytest.raises(ConfigError, match="min_points"):
        registry.create("disco", min_points=0)
