"""Our NumPy k-means (the default) against scikit-learn's KMeans, its reference: the same labels,
centres and inertia equal up to rounding."""

import numpy as np
import pytest

from macrocause.framework import Dataset, registry


def _data(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n, d = int(rng.choice([30, 300, 1500])), int(rng.integers(1, 6))
    if seed % 2:  # discrete values: many duplicate points and near-ties
        return rng.integers(0, 3, (n, d)).astype(float)
    return rng.standard_normal((n, d)) + 2.0 * rng.integers(0, 4, (n, 1))


@pytest.mark.filterwarnings("ignore:.*distinct clusters")
@pytest.mark.parametrize("seed, k", [(0, 3), (1, 2), (2, 5), (3, 4), (4, 1), (5, 6)])
def test_same_partition_as_scikit_learn(seed, k):
    ds = Dataset(_data(seed), names=None)
    ours = registry.create("kmeans", n_clusters=k, seed=seed).partition(ds)
    ref = registry.create("kmeans", n_clusters=k, seed=seed, backend="scikit-learn").partition(ds)
    assert np.array_equal(ours.labels, ref.labels)
    assert np.allclose(ours.info["centers"], ref.info["centers"], rtol=0, atol=1e-12)
    assert ours.info["inertia"] == pytest.approx(ref.info["inertia"], rel=1e-12)


def test_more_clusters_than_distinct_points_relocates_and_warns():
    X = np.repeat(np.array([[0.0], [1.0], [5.0]]), 10, axis=0)  # 3 distinct points, k = 4
    ds = Dataset(X, names=None)
    with pytest.warns(UserWarning, match="3 distinct clusters found, fewer than n_clusters=4"):
        ours = registry.create("kmeans", n_clusters=4).partition(ds)
    ref = registry.create("kmeans", n_clusters=4, backend="scikit-learn").partition(ds)
    assert np.array_equal(ours.labels, ref.labels)
