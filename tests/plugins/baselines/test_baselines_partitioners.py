"""Sample and variable partitioners: sanity on tiny data with a known grouping."""

import numpy as np
import pytest

from macrocause.framework import Dataset, registry
from macrocause.framework.errors import ConfigError, DataValidationError
from macrocause.framework.testing.examples import blobs


@pytest.mark.parametrize(
    "name, params",
    [("kmeans", {"n_clusters": 3}), ("gmm_em", {"n_components": 3}), ("hdbscan", {"min_cluster_size": 10}),
     ("dbscan", {"eps": 1.0}), ("agglomerative", {"n_clusters": 3}), ("spectral", {"n_clusters": 3})],
)
def test_sample_partitioners_recover_separated_blobs(name, params):
    ds, truth = blobs()
    part = registry.create(name, **params).partition(ds)
    keep = ~part.noise
    assert keep.mean() > 0.95
    assert part.n_clusters == 3
    # every found cluster lies inside one true blob, and each blob gets one cluster
    for c in part.cluster_ids:
        assert np.unique(truth.labels[part.labels == c]).size == 1


def test_kmeans_seed_and_info():
    ds, _ = blobs()
    a = registry.create("kmeans", n_clusters=3, seed=1).partition(ds)
    b = registry.create("kmeans", n_clusters=3, seed=1).partition(ds)
    assert a == b
    centers = a.info["centers"]
    assert centers.shape == (3, 2)
    inertia = sum(((ds.X[a.labels == k] - centers[k]) ** 2).sum() for k in range(3))
    assert a.info["inertia"] == pytest.approx(inertia, rel=1e-6)


def test_gmm_em_info_is_consistent():
    ds, _ = blobs()
    part = registry.create("gmm_em", n_components=3, covariance_type="diag").partition(ds)
    info = part.info
    n, d = ds.shape
    n_params = 3 * d + 3 * d + 2  # diag: means + variances + (k - 1) weights
    assert info["bic"] == pytest.approx(-2 * info["log_likelihood"] + n_params * np.log(n))
    assert info["aic"] == pytest.approx(-2 * info["log_likelihood"] + 2 * n_params)
    assert np.array_equal(part.labels, info["probabilities"].argmax(axis=1))
    assert info["weights"].sum() == pytest.approx(1.0)


def test_gmm_em_more_restarts_never_worse():
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.standard_normal((60, 2)) + c for c in ([0, 0], [3, 0], [0, 3], [3, 3])])
    ll = [registry.create("gmm_em", n_components=4, n_init=k, seed=0).partition(X).info["log_likelihood"]
          for k in (1, 8)]
    # best of 8 restarts, the first of which is the single restart with the same seed
    assert ll[1] >= ll[0] - 1e-9


def test_agglomerative_linkages_by_hand():
    # 1-D points 0, 1, 3, 7: single linkage merges at gaps 1, 2, 4, so k=2 cuts off {7};
    # Ward merges 0,1 (cost 0.5), then {0,1} with 3 (cost 4.17) before 3 with 7 (cost 8)
    X = np.array([[0.0], [1.0], [3.0], [7.0]])
    single = registry.create("agglomerative", n_clusters=2, linkage="single").partition(X)
    ward = registry.create("agglomerative", n_clusters=2).partition(X)
    for part in (single, ward):
        assert part.labels[0] == part.labels[1] == part.labels[2] != part.labels[3]
    three = registry.create("agglomerative", n_clusters=3, linkage="single").partition(X)
    assert three.labels[0] == three.labels[1] and len(set(three.labels.tolist())) == 3


def test_spectral_splits_two_rings_and_is_seeded():
    # two concentric rings: k-means cannot split them, the 10-NN graph has one component per ring
    t = np.linspace(0, 2 * np.pi, 100, endpoint=False)
    X = np.concatenate([np.c_[np.cos(t), np.sin(t)], 4 * np.c_[np.cos(t), np.sin(t)]])
    ring = np.repeat([0, 1], 100)
    a = registry.create("spectral", n_clusters=2, seed=3).partition(X)
    assert abs(np.corrcoef(a.labels, ring)[0, 1]) == pytest.approx(1.0)
    assert a == registry.create("spectral", n_clusters=2, seed=3).partition(X)
    km = registry.create("kmeans", n_clusters=2).partition(X)
    assert abs(np.corrcoef(km.labels, ring)[0, 1]) < 0.5


def test_spectral_needs_more_points_than_neighbours():
    with pytest.raises(DataValidationError, match="spectral needs at least 11 samples"):
        registry.create("spectral", n_clusters=2).partition(np.arange(20.0).reshape(10, 2))


def test_too_few_samples_is_a_clear_error():
    with pytest.raises(DataValidationError, match="kmeans needs at least 5 samples"):
        registry.create("kmeans", n_clusters=5).partition(np.zeros((3, 2)) + np.arange(3)[:, None])


def groups_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, 2))
    X = np.column_stack([z[:, 0], z[:, 0], -z[:, 0], z[:, 1], z[:, 1]]) + 0.3 * rng.standard_normal((n, 5))
    return Dataset(X, names=["a1", "a2", "a3", "b1", "b2"])


def test_correlation_clusters_groups_correlated_variables():
    ds = groups_data()
    for params in ({}, {"n_clusters": 2}, {"measure": "mutual_information", "n_clusters": 2},
                   {"linkage": "single", "distance_threshold": 0.6}):
        part = registry.create("correlation_clusters", **params).partition(ds)
        assert part.axis == "variables"
        assert part.labels.tolist() == [0, 0, 0, 1, 1], params
        assert part.cluster_names == [frozenset({"a1", "a2", "a3"}), frozenset({"b1", "b2"})]


def test_correlation_distances_by_hand():
    ds = groups_data()
    part = registry.create("correlation_clusters").partition(ds)
    D = part.info["distances"]
    assert D[0, 2] == pytest.approx(1 - abs(np.corrcoef(ds.X[:, 0], ds.X[:, 2])[0, 1]))
    assert np.allclose(np.diag(D), 0) and np.allclose(D, D.T)


def test_correlation_clusters_on_discrete_data_with_mutual_information():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 500)
    b = rng.integers(0, 2, 500)
    X = np.column_stack([a, a, (a + (rng.random(500) < 0.05)) % 3, b, b])
    part = registry.create("correlation_clusters", measure="mutual_information", n_clusters=2).partition(X)
    assert part.labels.tolist() == [0, 0, 0, 1, 1]


def test_correlation_clusters_parameter_and_data_errors():
    with pytest.raises(ConfigError, match="not both"):
        registry.create("correlation_clusters", n_clusters=2, distance_threshold=0.3)
    with pytest.raises(DataValidationError, match="exceeds"):
        registry.create("correlation_clusters", n_clusters=9).partition(groups_data())
    X = np.column_stack([np.arange(10.0), np.ones(10), np.arange(10.0) ** 2])
    with pytest.raises(DataValidationError, match="constant"):
        registry.create("correlation_clusters").partition(X)


@pytest.mark.parametrize(("name", "params", "words"), [
    ("agglomerative", {"linkage": "median"},
     "The 'linkage' parameter of agglomerative must be one of 'ward', 'complete', 'average' or 'single'. "
     "Got 'median' instead."),
    ("agglomerative", {"n_clusters": 0}, "The 'n_clusters' parameter of agglomerative must be >= 1. Got 0 instead."),
    ("spectral", {"assign_labels": "x"},
     "The 'assign_labels' parameter of spectral must be one of 'kmeans', 'discretize' or 'cluster_qr'."),
])
def test_new_partitioners_name_the_bad_parameter_and_what_is_allowed(name, params, words):
    with pytest.raises(ConfigError) as err:
        registry.create(name, **params)
    assert words in str(err.value) and "\n" not in str(err.value)
